#!/usr/bin/env bash
# Installs actgrad for the CPU twin into the current Python: the pinned CPU torch, the test tools, and the
# package itself (editable, built against that torch, so no other torch is fetched). Safe to run again.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PYTHON="${PYTHON:-python}"
PIP=("$PYTHON" -m pip install --quiet --disable-pip-version-check)

# PyPI's Linux wheel of torch 2.13.0 is the CUDA build (gigabytes): unless pip's local wheels (find-links) hold the
# pinned torch, it comes from PyTorch's CPU index. An installed torch 2.13.0 is kept either way.
torch_index=()
wheels="$(mktemp -d)"
if ! "$PYTHON" -m pip download --quiet --disable-pip-version-check --no-index --no-deps -d "$wheels" "torch==2.13.0" \
        >/dev/null 2>&1; then
    torch_index=(--extra-index-url "${ACTGRAD_TORCH_INDEX:-https://download.pytorch.org/whl/cpu}")
fi
rm -rf "$wheels"
"${PIP[@]}" "${torch_index[@]}" "torch==2.13.0" numpy pytest setuptools wheel ninja
MAX_JOBS="${MAX_JOBS:-2}" "${PIP[@]}" --no-build-isolation -e .
