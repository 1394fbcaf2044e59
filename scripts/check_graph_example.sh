#!/usr/bin/env bash
# Compile-check (g++ -fsyntax-only) the C++ graph example examples/graph/mlp_backward.cpp against a CANN include tree,
# with the flags and include directories examples/graph/CMakeLists.txt uses. Prints the compiler's errors and
# "errors: N"; exits 0 iff N is 0.
#   scripts/check_graph_example.sh [--file SOURCE] CANN_ROOT [PROTO_DIR ...]
# --file: check SOURCE instead of the example (tests/test_graph_example_cpp.py feeds it a broken copy).
# CANN_ROOT: an installed CANN (ASCEND_HOME_PATH), or any tree with its include/ layout (the fidelity tool's farm).
# PROTO_DIRs: where all_ops.h and what it includes are found; default $ASCEND_OPP_PATH/built-in/op_proto/inc, else
# CANN_ROOT/opp/built-in/op_proto/inc (an installed CANN). Without CANN: tests/ge_protos_standin and an ops-math tree.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SOURCE="$ROOT/examples/graph/mlp_backward.cpp"
if [[ "${1:-}" == --file ]]; then SOURCE="$2"; shift 2; fi
if [[ $# -lt 1 ]]; then echo "usage: $0 [--file SOURCE] CANN_ROOT [PROTO_DIR ...]" >&2; exit 2; fi
[[ -f "$SOURCE" ]] || { echo "no such file: $SOURCE" >&2; exit 2; }
CANN="$1"; shift
[[ -f "$CANN/include/graph/operator_reg.h" ]] || { echo "$CANN has no include/graph/operator_reg.h: not a CANN tree" >&2; exit 2; }
PROTOS=("$@")
if [[ ${#PROTOS[@]} -eq 0 ]]; then PROTOS=("${ASCEND_OPP_PATH:-$CANN/opp}/built-in/op_proto/inc"); fi
FLAGS=(-std=c++17 -D_GLIBCXX_USE_CXX11_ABI=0 -I"$ROOT"
       -I"$CANN/include" -I"$CANN/include/graph" -I"$CANN/include/ge" -I"$CANN/include/external")
for d in "${PROTOS[@]}"; do
    [[ -d "$d" ]] || { echo "no such prototype directory: $d" >&2; exit 2; }
    FLAGS+=(-I"$d")
done
LOG="$(mktemp)"
trap 'rm -f "$LOG"' EXIT
g++ -fsyntax-only -fmax-errors=0 "${FLAGS[@]}" "$SOURCE" >"$LOG" 2>&1
N=$(grep -c ': error: \|: fatal error: ' "$LOG")
grep ': error: \|: fatal error: ' "$LOG"
echo "errors: $N"
[[ "$N" -eq 0 ]]
