"""No name actgrad registers with CANN is already used by CANN's built-in operator libraries.

A custom OpDef whose OpType is a built-in one shadows the built-in operator in GE, and op-plugin resolves aclnn symbols
in the custom libcust_opapi.so first, so a clash silently reroutes other people's calls to our kernels.
tests/data/cann_builtin_names.txt lists the built-in names; scripts/gen_cann_builtin_names.py regenerates it.
"""
import re
import sys
from functools import cache
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
NAMES_FILE = ROOT / "tests" / "data" / "cann_builtin_names.txt"
REPOS = ("hicann/ops-nn", "hicann/ops-math", "hicann/ops-cv", "hicann/ops-transformer")
# Measured at generation time: 1388 op types, 1099 aclnn APIs. Far fewer means the generator lost a source.
MIN_OP_TYPES, MIN_APIS = 1000, 800


class Builtins(NamedTuple):
    op_types: frozenset[str]
    apis: frozenset[str]
    repo_lines: dict[str, str]  # repository -> its "# repo ..." header line
    body: list[str]  # the non-comment lines, as in the file


@cache
def builtins() -> Builtins:
    lines = NAMES_FILE.read_text().splitlines()
    repo_lines = {line.split()[2]: line for line in lines if line.startswith("# repo ")}
    body = [line for line in lines if not line.startswith("#")]
    kinds = [line.split(" ", 1) for line in body]
    return Builtins(frozenset(name for kind, name in kinds if kind == "optype"),
                    frozenset(name for kind, name in kinds if kind == "aclnn"), repo_lines, body)


def reserved_apis(b: Builtins) -> frozenset[str]:
    # CANN generates aclnn<OpType> for every op without a hand-written op_api, so those names are taken too.
    return b.apis | {f"aclnn{op_type}" for op_type in b.op_types}


def clashes(names, reserved) -> list[str]:
    """Each name that is a reserved name, or is one but for case: file and kernel names derive from the snake_case
    of the OpType (lower case), so HardTanhGrad and HardtanhGrad would still collide there."""
    by_lower = {}
    for name in reserved:
        by_lower.setdefault(name.lower(), []).append(name)
    return [f"{name} is built-in {taken}" if name == taken else f"{name} differs only in case from built-in {taken}"
            for name in names for taken in sorted(by_lower.get(name.lower(), []))]


@pytest.fixture(scope="module")
def ops():
    # The spec without the compiled package, as tests/test_generated.py loads it.
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import gen_ops
        spec = gen_ops.load_spec()
    finally:
        sys.path.pop(0)
    return spec, spec.OPS


def test_op_types_are_not_builtin(ops):
    _, op_list = ops
    assert clashes([op.op_type for op in op_list], builtins().op_types) == []


def test_aclnn_apis_are_not_builtin(ops):
    _, op_list = ops
    assert clashes([op.aclnn_api for op in op_list], reserved_apis(builtins())) == []


def test_names_are_prefixed_and_unique(ops):
    spec, op_list = ops
    prefix = spec.OP_TYPE_PREFIX
    assert prefix and [op.op_type for op in op_list if not op.op_type.startswith(prefix)] == []
    # The prefix is only a namespace of our own if CANN uses it nowhere.
    b = builtins()
    assert [n for n in b.op_types | b.apis if n.lower().removeprefix("aclnn").startswith(prefix.lower())] == []
    names = [name.lower() for op in op_list for name in (op.op_type, op.aclnn_api, op.kernel_name)]
    assert len(names) == len(set(names)) == 3 * len(op_list), "op_type, aclnn_api and kernel_name must all differ"


def test_builtin_name_list_is_well_formed():
    b = builtins()
    for repo in REPOS:
        header = b.repo_lines.get(repo, "")
        assert re.fullmatch(rf"# repo {re.escape(repo)} commit [0-9a-f]{{40}} date \S+", header), repo
    assert "gen_cann_builtin_names.py" in NAMES_FILE.read_text().split("\n", 3)[2]
    assert b.body == sorted(set(b.body)), "must be sorted and de-duplicated (rerun the generator)"
    assert [line for line in b.body if not re.fullmatch(r"optype [A-Za-z_]\w*|aclnn aclnn[A-Z]\w*", line)] == []
    assert len(b.op_types) > MIN_OP_TYPES and len(b.apis) > MIN_APIS
    # Names the generator must find: the built-ins computing the same gradients as actgrad's operators.
    assert {"HardtanhGrad", "EluGradV2", "SoftmaxGrad"} <= b.op_types
    assert {"aclnnHardtanhBackward", "aclnnHardsigmoidBackward", "aclnnEluBackward", "aclnnSoftplusBackward"} <= b.apis


def test_clashes_are_caught():
    b = builtins()
    assert clashes(["HardtanhGrad", "hardtanhgrad", "ActgradHardtanhGrad"], b.op_types) == [
        "HardtanhGrad is built-in HardtanhGrad", "hardtanhgrad differs only in case from built-in HardtanhGrad"]
    # aclnnEluBackward is hand-written; aclnnHardtanhGrad would be generated from the built-in OpType HardtanhGrad.
    assert clashes(["aclnnEluBackward", "aclnnHardtanhGrad", "aclnnActgradHardtanhGrad"], reserved_apis(b)) == [
        "aclnnEluBackward is built-in aclnnEluBackward", "aclnnHardtanhGrad is built-in aclnnHardtanhGrad"]
