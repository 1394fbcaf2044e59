#!/usr/bin/env bash
# Compile-check every NPU-side source against the public vendor headers with the fidelity tool (a directory holding
# run_project_checks.sh and check_host.sh; its trees come from its setup.sh): the tool's own project run, then the
# host sources its fixed list does not name (found here by layout, so a new tiling or TilingFunc file is checked the
# day it lands), each in default and --codegen mode. Prints each check's output and "extra host errors: N".
#   scripts/check_npu_sources.sh [--extra-only] FIDELITY_TOOLS_DIR
# --extra-only: skip the tool's project run (about 5 minutes), check only the sources its list lacks.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
EXTRA_ONLY=0
if [[ "${1:-}" == --extra-only ]]; then EXTRA_ONLY=1; shift; fi
if [[ $# -ne 1 ]]; then echo "usage: $0 [--extra-only] FIDELITY_TOOLS_DIR" >&2; exit 2; fi
TOOLS="$1"
for t in run_project_checks.sh check_host.sh; do
    [[ -x "$TOOLS/$t" ]] || { echo "$TOOLS has no executable $t: not the fidelity tool" >&2; exit 2; }
done
[[ $EXTRA_ONLY -eq 1 ]] || "$TOOLS/run_project_checks.sh" "$ROOT"

echo "### host sources the tool's list does not name"
# NPU-side host code: the TilingFuncs and InferShape (op_host/npu), the tiling they share with the twin, the OpDef.
cd "$ROOT" || exit 2
shopt -s nullglob
SOURCES=(op_host/npu/*.cpp op_host/*_tiling.cpp op_host/actgrad_op_def.cpp op_host/lower_attrs.cpp)
ERRORS=0
for f in "${SOURCES[@]}"; do
    grep -qF "$f" "$TOOLS/run_project_checks.sh" && continue
    for mode in default --codegen; do
        echo "== $f ($mode)"
        args=("$ROOT/$f" "$ROOT/op_host" "$ROOT/op_kernel")
        [[ $mode == --codegen ]] && args=(--codegen "$ROOT/$f")
        out="$("$TOOLS/check_host.sh" "${args[@]}" 2>&1)"
        echo "$out"
        n=$(echo "$out" | sed -n 's/^errors: \([0-9]*\).*/\1/p' | tail -1)
        ERRORS=$((ERRORS + ${n:-1}))
    done
done
echo "extra host errors: $ERRORS"
[[ $ERRORS -eq 0 ]]
