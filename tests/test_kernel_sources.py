"""scripts/check_kernel_sources.py: the tree passes, and each rule reports exactly the violation planted in a copy.

The script holds the kernel-side sources (op_kernel/, sim/examples/) and the CANN host sources to what the NPU
toolchain enforces and g++ on the CPU twin does not: no host functions or std:: calls in kernel code, tiling keys on
both sides or neither, and file-relative includes in the sources CANN's code generation compiles. Every mutation test
copies op_kernel/, op_host/ and sim/examples/ into tmp_path, plants one violation and expects that one finding (rule,
file and line); the controls plant look-alikes the script must leave alone.
"""
from __future__ import annotations

import pathlib
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "check_kernel_sources.py"
FINDING_RE = re.compile(r"^(?P<path>\S+?):(?P<line>\d+): (?P<rule>[\w-]+): (?P<message>.*)$")


@dataclass
class Result:
    returncode: int
    output: str
    findings: list[tuple[str, int, str]]  # (path, line, rule)
    messages: list[str]


def run_check(root: pathlib.Path | None = None) -> Result:
    cmd = [sys.executable, str(SCRIPT)] + (["--root", str(root)] if root is not None else [])
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    matches = [FINDING_RE.match(line) for line in proc.stdout.splitlines()]
    matches = [m for m in matches if m]
    return Result(proc.returncode, proc.stdout + proc.stderr,
                  [(m["path"], int(m["line"]), m["rule"]) for m in matches], [m["message"] for m in matches])


@pytest.fixture
def tree(tmp_path: pathlib.Path) -> pathlib.Path:
    for sub in ("op_kernel", "op_host", "sim/examples"):
        shutil.copytree(ROOT / sub, tmp_path / sub)
    return tmp_path


def insert(path: pathlib.Path, anchor: str, text: str, *, after: bool = True) -> None:
    """Insert text (whole lines) after, or before, the one line of path that contains anchor."""
    lines = path.read_text().splitlines(keepends=True)
    hits = [k for k, line in enumerate(lines) if anchor in line]
    assert len(hits) == 1, f"{anchor!r} occurs {len(hits)} times in {path}"
    at = hits[0] + 1 if after else hits[0]
    lines[at:at] = [text if text.endswith("\n") else text + "\n"]
    path.write_text("".join(lines))


def replace(path: pathlib.Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {path}"
    path.write_text(text.replace(old, new))


def line_of(path: pathlib.Path, needle: str) -> int:
    hits = [k + 1 for k, line in enumerate(path.read_text().splitlines()) if needle in line]
    assert len(hits) == 1, f"{needle!r} occurs {len(hits)} times in {path}"
    return hits[0]


def assert_one_finding(root: pathlib.Path, rel: str, needle: str, rule: str) -> Result:
    """The check of root fails with exactly one finding: rule, at the line of rel that contains needle."""
    result = run_check(root)
    expected = [(rel, line_of(root / rel, needle), rule)]
    assert result.findings == expected, result.output
    assert result.returncode == 1, result.output
    return result


def assert_clean(root: pathlib.Path) -> None:
    result = run_check(root)
    assert result.returncode == 0 and not result.findings, result.output


# ------------------------------------------------------------------------------------------------------------------
# the real tree


def test_repository_has_no_findings():
    result = run_check()
    assert result.returncode == 0, result.output
    assert result.findings == [], result.output
    assert "0 finding(s)" in result.output.splitlines()[-1], result.output


def test_unmodified_copy_has_no_findings(tree):
    """The baseline of every mutation below: the copy alone is clean, so each finding is the planted one."""
    assert_clean(tree)


def test_help():
    proc = subprocess.run([sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "--root" in proc.stdout, proc.stdout + proc.stderr


# ------------------------------------------------------------------------------------------------------------------
# host-function: functions defined without an execution-space qualifier, called from kernel code

HELPER = "inline uint32_t HalfOf(uint32_t n) { return n / 2; }  // no __aicore__\n"


def test_unqualified_helper_called_from_aicore_code(tree):
    ops = tree / "op_kernel/functors/tile_operands.h"
    insert(ops, "template <typename T> constexpr bool kIsWidened", HELPER)
    insert(ops, "constexpr uint32_t kPerRepeat = 256 / sizeof(C);", "    const uint32_t half = HalfOf(n);")
    result = assert_one_finding(tree, "op_kernel/functors/tile_operands.h", "= HalfOf(n);", "host-function")
    assert "HalfOf()" in result.messages[0] and "CompareLanes" in result.messages[0]
    assert f"tile_operands.h:{line_of(ops, 'inline uint32_t HalfOf')}" in result.messages[0]


def test_unqualified_helper_called_only_from_host_code_is_not_reported(tree):
    """Negative control: the same helper in the shared tiling header, called by an unqualified (host) function there
    and by the host tiling, never by kernel code."""
    shared = tree / "op_kernel/elementwise_grad_tiling.h"
    insert(shared, "}  // namespace actgrad", HELPER + "inline uint32_t HalfTile(uint32_t t) { return HalfOf(t); }\n",
           after=False)
    insert(tree / "op_host/elementwise_tiling.cpp", '#include <string>',
           "static const uint32_t kHalf = actgrad::HalfOf(actgrad::kTileGranule);")
    assert_clean(tree)


def test_lambda_in_kernel_code_is_not_reported(tree):
    kernel = tree / "op_kernel/elementwise_grad.h"
    insert(kernel, "const uint32_t n = i + 1 < tiles_ ? tileLength_ : tail_;",
           "            auto twice = [](uint32_t v) { return 2 * v; };\n            CopyIn(twice(0), n);")
    assert_clean(tree)


def test_unqualified_static_member_called_from_aicore_code(tree):
    band = tree / "op_kernel/functors/band_grad.h"
    insert(band, "private:", "    static int32_t Words(uint32_t lanes) { return int32_t(lanes / 16); }")
    replace(band, "const int32_t maskWords = int32_t(lanes / 16);", "const int32_t maskWords = BandGrad::Words(lanes);")
    result = assert_one_finding(tree, "op_kernel/functors/band_grad.h", "BandGrad::Words(lanes)", "host-function")
    assert "BandGrad::Words()" in result.messages[0]


def test_unqualified_constexpr_template_called_from_aicore_code(tree):
    ops = tree / "op_kernel/functors/tile_operands.h"
    insert(ops, "template <typename T> constexpr bool kIsWidened",
           "template <typename C>\nconstexpr uint32_t PerRepeat() { return 256 / sizeof(C); }")
    replace(ops, "constexpr uint32_t kPerRepeat = 256 / sizeof(C);", "constexpr uint32_t kPerRepeat = PerRepeat<C>();")
    assert_one_finding(tree, "op_kernel/functors/tile_operands.h", "PerRepeat<C>();", "host-function")


def test_shared_tiling_function_without_qualifier(tree):
    """BlockTiles runs in the host tiling and in the kernel: without its [host, aicore] qualifier the kernel's call
    is the error (whichever spelling the header uses for the qualifier)."""
    shared = tree / "op_kernel/elementwise_grad_tiling.h"
    text, n = re.subn(r"^\w+ inline void BlockTiles\(", "inline void BlockTiles(", shared.read_text(), flags=re.M)
    assert n == 1
    shared.write_text(text)
    assert_one_finding(tree, "op_kernel/elementwise_grad.h", "BlockTiles(t, length", "host-function")


def test_unqualified_constructor_of_a_kernel_class(tree):
    add = tree / "sim/examples/add_kernel.h"
    replace(add, "__aicore__ inline KernelAdd() {}", "inline KernelAdd() {}")
    result = assert_one_finding(tree, "sim/examples/add_kernel.h", "KernelAdd op;", "host-function")
    assert "constructor" in result.messages[0]


def test_member_call_resolves_the_receiver_class(tree):
    """op.Init(...) in the elementwise kernel names ElementwiseGradKernel::Init only: an unqualified Init of another
    class (here a host-side helper class of the add sample) is not reported for it."""
    add = tree / "sim/examples/add_kernel.h"
    insert(add, "class KernelAdd {", "struct AddHostPlan {\n    void Init(uint32_t n) { total = n; }\n"
                                     "    uint32_t total = 0;\n};\n", after=False)
    assert_clean(tree)
    # and the same Init, called on an AddHostPlan from kernel code, is
    insert(add, "KernelAdd op;", "    AddHostPlan plan;\n    plan.Init(t.totalLength);")
    assert_one_finding(tree, "sim/examples/add_kernel.h", "plan.Init(t.totalLength);", "host-function")


# ------------------------------------------------------------------------------------------------------------------
# std-in-kernel


def test_std_max_in_kernel_function(tree):
    kernel = tree / "op_kernel/elementwise_grad.h"
    insert(kernel, "const uint32_t n = i + 1 < tiles_ ? tileLength_ : tail_;",
           "            const uint32_t atLeastOne = std::max(n, 1u);")
    result = assert_one_finding(tree, "op_kernel/elementwise_grad.h", "std::max(n, 1u)", "std-in-kernel")
    assert "std::max()" in result.messages[0]


@pytest.mark.parametrize("statement", [
    "const uint32_t m = std::min<uint32_t>(n, 8);",
    "const float inf = std::numeric_limits<float>::infinity();",
    "const float a = ::std::abs(-1.0f);",
    "std::array<float, 2> pair{};",
])
def test_std_entities_outside_the_npu_headers(tree, statement):
    kernel = tree / "op_kernel/functors/zero_derivative.h"
    insert(kernel, "using S = typename SelectLane<T>::type;", "    " + statement)
    assert_one_finding(tree, "op_kernel/functors/zero_derivative.h", statement, "std-in-kernel")


def test_std_forms_the_npu_headers_provide_and_std_outside_kernel_code(tree):
    """Control: traits and fixed-width types in kernel code, std::min in comments, strings and host functions."""
    kernel = tree / "op_kernel/functors/zero_derivative.h"
    insert(kernel, "using S = typename SelectLane<T>::type;", "\n".join([
        "    static_assert(std::is_same_v<S, half> || std::is_same<S, float>::value, \"std::min(a, b)\");",
        "    using W = std::conditional_t<sizeof(T) == 2, std::uint16_t, std::uint32_t>;",
        "    using U = typename std::remove_cv<T>::type;",
        "    const std::size_t bytes = sizeof(W) + sizeof(U);  // std::max(x, y) is not available here",
        "    /* std::abs(x) */ const std::int64_t k = std::integral_constant<int, 1>::value;",
    ]))
    shared = tree / "op_kernel/elementwise_grad_tiling.h"
    insert(shared, "}  // namespace actgrad",
           "inline uint64_t HostOnlyTiles(uint64_t a, uint64_t b) { return std::max(a, b); }", after=False)
    assert_clean(tree)


# ------------------------------------------------------------------------------------------------------------------
# tiling-key


def test_host_sets_a_tiling_key_no_kernel_declares(tree):
    # the TilingFuncs of both families store their tiling through tiling_io.h
    tiling = tree / "op_host/npu/tiling_io.h"
    insert(tiling, "context->SetBlockDim(tiling.blockDim);", "    context->SetTilingKey(1);")
    result = assert_one_finding(tree, "op_host/npu/tiling_io.h", "SetTilingKey(1)", "tiling-key")
    assert "actgrad_elu_backward.cpp" in result.messages[0]
    assert "actgrad_soft_max_backward.cpp" in result.messages[0]


def test_tiling_keys_on_both_sides_pass(tree):
    """Control: keys declared in the shared kernel headers (one per family) reach every kernel through its includes."""
    insert(tree / "op_host/npu/tiling_io.h", "context->SetBlockDim(tiling.blockDim);",
           "    context->SetTilingKey(1);")
    insert(tree / "op_kernel/elementwise_grad.h", "GET_TILING_DATA(t, tiling);", "    if (!TILING_KEY_IS(1)) return;")
    insert(tree / "op_kernel/row_grad.h", "GET_TILING_DATA(t, tiling);", "    if (!TILING_KEY_IS(1)) return;")
    assert_clean(tree)


def test_kernel_declares_keys_no_host_sets_one(tree):
    kernel = tree / "op_kernel/actgrad_elu_backward.cpp"
    insert(kernel, "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);", "    if (TILING_KEY_IS(1)) {}")
    assert_one_finding(tree, "op_kernel/actgrad_elu_backward.cpp", "TILING_KEY_IS(1)", "tiling-key")


# ------------------------------------------------------------------------------------------------------------------
# codegen-include


def test_include_not_file_relative_in_a_host_source(tree):
    infer = tree / "op_host/npu/infer_shape.cpp"
    insert(infer, '#include "op_hooks.h"', '#include "elementwise_tiling.h"')
    assert line_of(infer, '#include "elementwise_tiling.h"') == 3
    result = assert_one_finding(tree, "op_host/npu/infer_shape.cpp", '#include "elementwise_tiling.h"',
                                "codegen-include")
    assert '"../elementwise_tiling.h"' in result.messages[0]


def test_include_in_a_project_header_a_host_source_includes(tree):
    """Includes are followed through project headers: elementwise_tiling.h is reached from two host sources and
    reported once."""
    header = tree / "op_host/elementwise_tiling.h"
    insert(header, '#include "../op_kernel/functors/functor_needs.h"', '#include "kernel_operator.h"')
    assert_one_finding(tree, "op_host/elementwise_tiling.h", '#include "kernel_operator.h"', "codegen-include")


def test_library_code_generation_cannot_see(tree):
    insert(tree / "op_host/lower_attrs.cpp", "#include <sstream>", "#include <torch/extension.h>")
    assert_one_finding(tree, "op_host/lower_attrs.cpp", "#include <torch/extension.h>", "codegen-include")


def test_listed_host_source_missing(tree):
    cmake = tree / "op_host/CMakeLists.txt"
    insert(cmake, "${CMAKE_CURRENT_SOURCE_DIR}/npu/tiling_func.cpp", "    ${CMAKE_CURRENT_SOURCE_DIR}/npu/missing.cpp")
    result = assert_one_finding(tree, "op_host/CMakeLists.txt", "npu/missing.cpp", "codegen-include")
    assert "does not exist" in result.messages[0]


def test_new_listed_host_source_is_checked_unlisted_ones_are_not(tree):
    extra = tree / "op_host/npu/extra_hooks.cpp"
    extra.write_text('#include "lower_attrs.h"\n#include "register/op_def_registry.h"\n#include <cstdint>\n')
    assert_clean(tree)  # not listed: CANN does not compile it
    insert(tree / "op_host/CMakeLists.txt", "${CMAKE_CURRENT_SOURCE_DIR}/npu/tiling_func.cpp",
           "    ${CMAKE_CURRENT_SOURCE_DIR}/npu/extra_hooks.cpp")
    assert_one_finding(tree, "op_host/npu/extra_hooks.cpp", '#include "lower_attrs.h"', "codegen-include")


# ------------------------------------------------------------------------------------------------------------------
# what the parser cannot read is reported, not skipped


def test_unparsable_kernel_file_is_reported(tree):
    kernel = tree / "op_kernel/functors/scratch.h"
    insert(kernel, "struct Scratch {", "#if 0\nstruct Broken {\n#endif")
    result = run_check(tree)
    assert result.findings == [("op_kernel/functors/scratch.h", 1, "parse")], result.output
    assert result.returncode == 1
