#!/usr/bin/env bash
# Installs actgrad for the CPU twin into the current Python: the pinned CPU torch, the test tools, and the
# package itself (editable, built against that torch, so no other torch is fetched). Safe to run again.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PYTHON="${PYTHON:-python}"
PIP=("$PYTHON" -m pip install --quiet --disable-pip-version-check)

# PyPI's Linux wheel of torch 2.13.0 is the CUDA build (gigabytes): unless it is installed already or pip's local
# wheels (find-links) hold it, it comes from PyTorch's CPU index. The probe only resolves, it fetches nothing.
torch_index=()
if ! "${PIP[@]}" --dry-run --no-index --no-deps "torch==2.13.0" >/dev/null 2>&1; then
    torch_index=(--extra-index-url "${ACTGRAD_TORCH_INDEX:-https://download.pytorch.org/whl/cpu}")
fi
# ${a[@]+...}: an empty array under set -u, which bash before 4.4 calls unbound
"${PIP[@]}" ${torch_index[@]+"${torch_index[@]}"} "torch==2.13.0" numpy pytest setuptools wheel ninja
MAX_JOBS="${MAX_JOBS:-2}" "${PIP[@]}" --no-build-isolation -e .
