#!/usr/bin/env bash
# Builds actgrad's CANN operator package (an msOpGen-layout project: CMakeLists.txt, CMakePresets.json, op_host/,
# op_kernel/) into build_out/custom_opp_<os>_<arch>.run: aclnn APIs, GE IR prototypes, tiling and the kernel
# binaries of every operator for Atlas A2/A3. The CPU twin and the torch_npu bridge are built by pip (setup.py).
set -euo pipefail

CANN_MINIMUM=8.3  # find_package(ASC) and the npu_op_* functions this project's CMake uses
ES_MINIMUM=8.5    # gen_esb and include/ge/cmake/FindGenerateEsPackage.cmake (cmake/es_plugin.cmake)
usage() {
    cat <<USAGE
Usage: bash build.sh [--without-es-plugin] [--help]

Builds build_out/custom_opp_<os>_<arch>.run with CANN $CANN_MINIMUM or later. Before: source <cann>/set_env.sh
(it sets ASCEND_HOME_PATH). Then install the package and make it visible before Python starts:
    build_out/custom_opp_<os>_<arch>.run --install-path=<dir>
    source <dir>/vendors/actgrad/bin/set_env.bash
The package includes the operators' ES graph-building API (ge.es.actgrad; CANN's gen_esb, CANN $ES_MINIMUM or later):
    pip install <dir>/vendors/actgrad/op_api/python/es_actgrad-*.whl
--without-es-plugin builds the package without it (needed with CANN older than $ES_MINIMUM).
Environment: ASCEND_HOME_PATH (required), CANN_VERSION (overrides the version read from the toolkit),
PYTHON (default python3), MAX_JOBS (default: all cores).
USAGE
}
fail() { echo "build.sh: $*" >&2; exit 2; }

ES_PLUGIN=ON
for arg in "$@"; do
    case "$arg" in
        -h|--help) usage; exit 0 ;;
        --without-es-plugin) ES_PLUGIN=OFF ;;
        *) usage >&2; fail "unknown argument '$arg'" ;;
    esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-python3}"
CANN="${ASCEND_HOME_PATH:-}"
if [[ -z "$CANN" || ! -d "$CANN" ]]; then
    what="not set"; [[ -z "$CANN" ]] || what="not a directory ('$CANN')"
    fail "CANN not found: ASCEND_HOME_PATH is $what. Install the CANN \
toolkit ($CANN_MINIMUM or later) and run 'source <cann>/set_env.sh' first. Nothing was built."
fi

# The toolkit's version: share/info/<package>/version.info (CANN 8.5 and later) or <arch>-linux/ascend_toolkit_install.info
cann_version() {
    local file
    for file in "$CANN"/share/info/{asc-devkit,compiler,toolkit,runtime}/version.info "$CANN"/*-linux/ascend_toolkit_install.info \
                "$CANN"/compiler/version.info; do
        [[ -f "$file" ]] || continue
        found=$(sed -n 's/^[Vv]ersion=\([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p' "$file" | head -n 1)
        if [[ -n "$found" ]]; then echo "$found"; return 0; fi
    done
}
version="${CANN_VERSION:-$(cann_version)}"
[[ -n "$version" ]] || fail "cannot tell the CANN version of $CANN (no share/info/*/version.info or \
*-linux/ascend_toolkit_install.info with a 'version=' line). If it is $CANN_MINIMUM or later, rerun with CANN_VERSION=<x.y>."
[[ "$version" =~ ^([0-9]+)\.([0-9]+) ]] || fail "CANN_VERSION '$version' is not a version like 9.0"
IFS=. read -r want_major want_minor <<<"$CANN_MINIMUM"
if (( BASH_REMATCH[1] < want_major || (BASH_REMATCH[1] == want_major && BASH_REMATCH[2] < want_minor) )); then
    fail "CANN $version at $CANN is too old: actgrad's package needs CANN $CANN_MINIMUM or later (the ASC CMake modules)."
fi
[[ -f "$CANN/compiler/tikcpp/ascendc_kernel_cmake/asc-config.cmake" ]] || fail "CANN $version at $CANN has no \
compiler/tikcpp/ascendc_kernel_cmake/asc-config.cmake (the ASC CMake modules): install the CANN toolkit, not only its runtime."

# The ES API's generator, looked for where CANN's FindGenerateEsPackage looks (PATH, then the toolkit's bin/)
if [[ "$ES_PLUGIN" == ON ]]; then
    es_missing=""
    [[ -f "$CANN/include/ge/cmake/FindGenerateEsPackage.cmake" ]] || es_missing="include/ge/cmake/FindGenerateEsPackage.cmake"
    if ! command -v gen_esb >/dev/null && [[ ! -x "$CANN/bin/gen_esb" && ! -x "$CANN/$(uname -m)-linux/bin/gen_esb" ]]; then
        es_missing="${es_missing:+$es_missing and }gen_esb"
    fi
    [[ -z "$es_missing" ]] || fail "CANN $version at $CANN has no $es_missing: the ES graph-building API (ge.es.actgrad) \
needs CANN $ES_MINIMUM or later, where ES first shipped. Rerun with --without-es-plugin to build the package without it."
fi

command -v cmake >/dev/null || fail "cmake not found (3.19 or later is needed for CMakePresets.json)"
# The package is built from the checked-in generated sources: they must match spec.py.
"$PYTHON" scripts/gen_ops.py --check || fail "generated sources are stale: run '$PYTHON scripts/gen_ops.py'"

echo "build.sh: CANN $version at $CANN; building for ascend910b and ascend910_93 into build_out/"
cmake --preset=default -DASCEND_CANN_PACKAGE_PATH="$CANN" -DASCEND_PYTHON_EXECUTABLE="$(command -v "$PYTHON")" \
      -DACTGRAD_ES_PLUGIN="$ES_PLUGIN"
cmake --build build_out --target binary -j "${MAX_JOBS:-$(nproc)}"
cmake --build build_out --target package -j "${MAX_JOBS:-$(nproc)}"

run_file=$(ls build_out/custom_opp_*.run)
echo "Built: $run_file"
echo "Install: $run_file --install-path=<dir>, then 'source <dir>/vendors/actgrad/bin/set_env.bash' before Python starts."
if [[ "$ES_PLUGIN" == ON ]]; then
    echo "ES API (ge.es.actgrad): pip install <dir>/vendors/actgrad/op_api/python/es_actgrad-*.whl"
fi
