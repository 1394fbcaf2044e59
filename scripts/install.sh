#!/usr/bin/env bash
# Installs actgrad for the CPU twin into the current Python: the pinned CPU torch, the test tools, and the
# package itself (editable, built against that torch, so no other torch is fetched). Safe to run again.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PYTHON="${PYTHON:-python}"
"$PYTHON" -m pip install --quiet --disable-pip-version-check "torch==2.13.0" numpy pytest setuptools wheel ninja
MAX_JOBS="${MAX_JOBS:-2}" "$PYTHON" -m pip install --quiet --disable-pip-version-check --no-build-isolation -e .
