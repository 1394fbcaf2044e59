#!/usr/bin/env bash
# Build actgrad for real Ascend NPUs: the CANN custom-operator package (build/npu/build_out/custom_opp_*.run:
# aclnn APIs, GE IR prototypes, tiling, kernel binaries) and, when torch_npu is installed, the bridge module
# python/actgrad/_npu*.so that the PrivateUse1 kernels call. The CPU twin (pip install -e .) needs none of this.
#
# Environment: ASCEND_HOME_PATH (set by `source <cann>/set_env.sh`), optional ACTGRAD_SOCS (default
# "ascend910b;ascend910_93"), ACTGRAD_NPU_BUILD_DIR (default build/npu), PYTHON (default python).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-python}"
CANN="${ASCEND_HOME_PATH:-}"
SOCS="${ACTGRAD_SOCS:-ascend910b;ascend910_93}"
BUILD_DIR="${ACTGRAD_NPU_BUILD_DIR:-$ROOT/build/npu}"

if [[ -z "$CANN" || ! -d "$CANN" ]]; then
    echo "build_npu_package.sh: CANN not found (ASCEND_HOME_PATH is not set or not a directory)." >&2
    echo "Install the CANN toolkit and run 'source <cann>/set_env.sh' (e.g. /usr/local/Ascend/cann/set_env.sh)." >&2
    echo "Nothing was built. Without CANN, actgrad runs its kernels on the CPU twin only." >&2
    exit 2
fi

# The package is built from the checked-in generated sources: they must match spec.py.
"$PYTHON" "$ROOT/scripts/gen_ops.py" --check

BRIDGE=ON
if ! "$PYTHON" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("torch_npu") is None)'; then
    echo "torch_npu is not installed: building the CANN package without the actgrad._npu bridge." >&2
    BRIDGE=OFF
fi

cmake -S "$ROOT/npu" -B "$BUILD_DIR" \
    -DASCEND_CANN_PACKAGE_PATH="$CANN" \
    -DASCEND_COMPUTE_UNIT="$SOCS" \
    -Dvendor_name=actgrad \
    -DACTGRAD_BUILD_TORCH_BRIDGE="$BRIDGE" \
    -DPython3_EXECUTABLE="$(command -v "$PYTHON")" \
    -DCMAKE_BUILD_TYPE=Release
cmake --build "$BUILD_DIR" --target binary -j
cmake --build "$BUILD_DIR" --target package -j
if [[ "$BRIDGE" == ON ]]; then
    cmake --build "$BUILD_DIR" --target actgrad_npu_bridge -j
fi

echo "Built: $(ls "$BUILD_DIR"/build_out/*.run)"
echo "Install: <that .run> --install-path=<dir>, then 'source <dir>/vendors/actgrad/bin/set_env.bash' before importing torch."
