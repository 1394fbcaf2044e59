#!/usr/bin/env python
"""On-device acceptance of actgrad on an Ascend NPU, for the first run on real hardware. Builds nothing.

1. The checks of `python -m actgrad.npu_check` (CANN, torch_npu, the installed package, the bridge, a device).
2. Every operator of the spec on NPU tensors, for float32, float16 and bfloat16, against the CPU twin on the same
   inputs. NaN matches NaN whatever its payload.
   - Elementwise: shapes 1, 31, 4096, 3x5x1027 and 1M, with the required and the typical attributes of its test record
     (tests/refs): bit-exact for the piecewise-linear forms (+0 and -0 alike); the transcendental forms within twice
     the contract's target, 2 ulp (float16, bfloat16) or 2x the operator's 4 or 8 ulp (float32), or twice the
     record's absolute bound where terms cancel or exp underflows: each is within the target of the exact value, and
     the NPU's exp/erf need not round like the twin's.
   - Row reductions: shapes 1x1, 37x31, 64x4096, 3x5x1027 and 2x1M along the default axis, the first and the last
     (rows of one element to rows longer than UB, in one and two passes, contiguous and strided), on softmax /
     log-softmax outputs with a masked class (-inf logit) and a NaN poisoning one row: within 2 ulp or twice the
     bound of one f32 evaluation plus the rounding to the dtype (python/actgrad/row_bounds.py; twin and NPU sum in
     the same order, so "max 0 ulp" is expected; the NPU's exp need not round like the twin's).
3. torch_npu's own aten.elu_backward and aten.hardsigmoid_backward against ATen on the CPU, with the package loaded:
   CANN's built-in aclnn APIs serve them, and a package that registered the same names would shadow them.

Prints a table (operator, dtype, shape, attributes, max ulp or bit-exact, PASS/FAIL). Exits 0 when everything
passes, 1 on any failure (or a failed check), 77 (skipped) where there is no NPU: torch_npu not installed, or no
device visible.
"""
from __future__ import annotations

import argparse
import math
import pathlib
import sys

import torch

import actgrad
from actgrad import npu_check
from actgrad.row_bounds import row_f32_error_bound
from actgrad.spec import OPS

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))
import reference as R  # noqa: E402 - the operators' records (tests/refs)

SKIPPED = 77
DTYPES = (torch.float32, torch.float16, torch.bfloat16)
SHAPES = ((1,), (31,), (4096,), (3, 5, 1027), (1 << 20,))
ROW_SHAPES = ((1, 1), (37, 31), (64, 4096), (3, 5, 1027), (2, 1 << 20))
INT_VIEW = {torch.float32: (torch.int32, 32), torch.float16: (torch.int16, 16), torch.bfloat16: (torch.int16, 16)}


def attribute_sets(op, shape: tuple) -> list[dict]:
    """Elementwise: the required attributes alone (every other at its default), then its record's typical set. Row
    reduction: the default axis, then axis 0 and -1 where they are other axes of `shape`."""
    if op.family == "elementwise":
        return [dict(R.REFS[op.name].required), dict(R.REFS[op.name].typical)]
    sets, axes = [{}], {op.attrs[0].default % len(shape)}
    for axis in (0, -1):
        if axis % len(shape) not in axes:
            axes.add(axis % len(shape))
            sets.append({"axis": axis})
    return sets


def cases():
    """(op, dtype, shape, attrs) of every run, in table order."""
    for op in OPS:
        for dtype in DTYPES:
            for shape in SHAPES if op.family == "elementwise" else ROW_SHAPES:
                for attrs in attribute_sets(op, shape):
                    yield op, dtype, shape, attrs


def row_axis(op, attrs: dict, rank: int) -> int:
    return attrs.get("axis", op.attrs[0].default) % max(rank, 1)


def make_row_inputs(op, attrs: dict, shape: tuple, dtype: torch.dtype, seed: int) -> list[torch.Tensor]:
    """(diff_dst, dst): dst the softmax or log-softmax output of normal logits along the axis, the first element's
    logit -inf (a masked class) where its row has others; diff_dst normal, its last element NaN where there is more
    than one row (the NaN poisons that row)."""
    generator = torch.Generator().manual_seed(seed)
    axis = row_axis(op, attrs, len(shape))
    logits = 3 * torch.randn(shape, dtype=torch.float64, generator=generator)
    if shape[axis] > 1:
        logits.view(-1)[0] = -math.inf
    forward = torch.softmax if op.name == "soft_max_backward" else torch.log_softmax
    dst = forward(logits, axis)
    diff_dst = torch.randn(shape, dtype=torch.float64, generator=generator)
    if diff_dst.numel() > shape[axis]:
        diff_dst.view(-1)[-1] = math.nan
    return [diff_dst.to(dtype), dst.to(dtype)]


def make_inputs(op, attrs: dict, shape: tuple, dtype: torch.dtype, seed: int) -> list[torch.Tensor]:
    """The op's two tensors in IR order. Elementwise: the saved one uniform in [-6, 6) after the attributes' values and
    their negations, +-3, +-1, +-0, +-inf and NaN (as many as fit); the gradient normal, ending in +-inf and NaN."""
    if op.family == "row":
        return make_row_inputs(op, attrs, shape, dtype, seed)
    n = math.prod(shape)
    generator = torch.Generator().manual_seed(seed)
    saved = torch.empty(n, dtype=torch.float64).uniform_(-6.0, 6.0, generator=generator)
    edges = [v for value in attrs.values() if type(value) is float and math.isfinite(value)
             for v in (value, -value)]
    specials = [*edges, 3.0, -3.0, 1.0, -1.0, 0.0, -0.0, math.inf, -math.inf, math.nan][:n]
    saved[:len(specials)] = torch.tensor(specials, dtype=torch.float64)
    grad = torch.randn(n, dtype=torch.float64, generator=generator)
    if n >= 16:
        grad[-3:] = torch.tensor([math.inf, -math.inf, math.nan], dtype=torch.float64)
    tensors = [None, None]
    tensors[op.saved_index] = saved
    tensors[1 - op.saved_index] = grad
    return [t.to(dtype).reshape(shape) for t in tensors]


def _ordered(t: torch.Tensor) -> torch.Tensor:
    """Integers that adjacent values of t's dtype differ by 1 in (+0 and -0 both 0)."""
    int_type, bits = INT_VIEW[t.dtype]
    raw = t.contiguous().view(int_type).to(torch.int64) & ((1 << bits) - 1)
    sign = 1 << (bits - 1)
    return torch.where(raw & sign != 0, -(raw & (sign - 1)), raw)


def compare(got: torch.Tensor, want: torch.Tensor, target: int, absolute: torch.Tensor) -> tuple[bool, str]:
    """(passed, what the table shows): bit-exact where target is 0, else within 2*target ulp or twice the absolute
    bound (per element); NaN matches NaN."""
    both_nan = got.isnan() & want.isnan()
    if (got.isnan() ^ want.isnan()).any():
        return False, f"NaN mismatch at {int((got.isnan() ^ want.isnan()).sum())} elements"
    if target == 0:
        int_type, _ = INT_VIEW[got.dtype]
        both_zero = (got == 0) & (want == 0)  # signed zeros are not part of the contract
        differ = (got.contiguous().view(int_type) != want.contiguous().view(int_type)) & ~both_nan & ~both_zero
        count = int(differ.sum())
        return count == 0, "bit-exact" if count == 0 else f"{count} of {got.numel()} elements differ in bits"
    distance = torch.where(both_nan, 0, (_ordered(got) - _ordered(want)).abs())
    within = (distance <= 2 * target) | ((got.double() - want.double()).abs() <= 2 * absolute.reshape(got.shape))
    worst = int(distance[~within].max()) if (~within).any() else int(distance.max()) if distance.numel() else 0
    return bool(within.all()), f"max {worst} ulp (bound {2 * target} ulp or twice the absolute bound)"


def first_line(error: Exception) -> str:
    return f"{type(error).__name__}: {(str(error).strip().splitlines() or [''])[0]}"


def tolerance(op, inputs: list[torch.Tensor], attrs: dict, want: torch.Tensor) -> tuple[int, torch.Tensor]:
    """(ulp target, absolute bound per element) that the results of `op` on `inputs` (the twin's: `want`) are each
    within of the exact values."""
    if op.family == "row":  # the f32 evaluation's bound plus the rounding to the dtype
        diff_dst, dst = inputs
        bound = row_f32_error_bound(op.name, diff_dst.double(), dst.double(), row_axis(op, attrs, dst.dim()))
        spacing = (torch.nextafter(want, torch.full_like(want, math.inf)).double() - want.double()).abs()
        return 1, (bound + spacing).reshape(-1)
    saved, grad = inputs[op.saved_index], inputs[1 - op.saved_index]
    ref = R.REFS[op.name]
    x, g = R.exact(saved).reshape(-1), R.exact(grad).reshape(-1)
    absolute = torch.from_numpy(ref.abs_bound(x, g, **R.full(op.name, attrs)) if ref.abs_bound is not None else 0 * x)
    return R.ulp_target(op.name, attrs, want.dtype), absolute


def run_op(op, dtype: torch.dtype, shape: tuple, attrs: dict, seed: int, device: str = "npu") -> tuple[bool, str]:
    """The op on `device` against the CPU twin (device "cpu": the twin against itself, which tests this script)."""
    function = getattr(actgrad, op.name)
    inputs = make_inputs(op, attrs, shape, dtype, seed)
    want = function(*inputs, **attrs)
    try:
        got = function(*(t.to(device) for t in inputs), **attrs).cpu()
    except Exception as error:  # the NPU stack's error is the finding
        return False, first_line(error)
    return compare(got, want, *tolerance(op, inputs, attrs, want))


def run_aten(name: str, call, dtype: torch.dtype, seed: int) -> tuple[bool, str]:
    """torch_npu's kernel of an ATen op against ATen's on the CPU: close, where a shadowing package API would give
    other values or fail."""
    generator = torch.Generator().manual_seed(seed)
    x = (torch.rand(4096, generator=generator, dtype=torch.float64) * 12 - 6).to(dtype)
    grad = torch.randn(4096, generator=generator, dtype=torch.float64).to(dtype)
    want = call(grad, x).double()
    try:
        got = call(grad.to("npu"), x.to("npu")).cpu().double()
    except Exception as error:
        return False, first_line(error)
    eps = torch.finfo(dtype).eps
    diff = float((got - want).abs().max())
    tolerance = 8 * eps * max(1.0, float(want.abs().max()))
    return diff <= tolerance, f"max |diff| {diff:.3g} (tolerance {tolerance:.3g})"


ATEN_CASES = (
    ("aten.elu_backward", "is_result=False",
     lambda grad, x: torch.ops.aten.elu_backward(grad, 1.0, 1.0, 1.0, False, x)),
    ("aten.elu_backward", "is_result=True",
     lambda grad, x: torch.ops.aten.elu_backward(grad, 1.0, 1.0, 1.0, True, torch.nn.functional.elu(x))),
    ("aten.hardsigmoid_backward", "", lambda grad, x: torch.ops.aten.hardsigmoid_backward(grad, x)),
)


def table_row(*cells) -> str:
    name, dtype, shape, attrs, result, verdict = cells
    return f"{name:<26} {dtype:<9} {shape:<10} {attrs:<44} {result:<34} {verdict}"


def no_npu(checks: dict) -> str | None:
    """Why there is no NPU to test on, or None."""
    if checks["torch_npu"].status == npu_check.MISSING:
        return ("no NPU: torch_npu is not installed, so nothing runs on an NPU here (python -m actgrad.npu_check "
                "lists what an NPU host needs)")
    if checks["device"].status == npu_check.MISSING:
        return f"no NPU: {checks['device'].detail}"
    return None


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args(argv)
    checks = npu_check.run_checks()
    for check in checks:
        print(check.line())
    by_key = {check.key: check for check in checks}
    reason = no_npu(by_key)
    if reason is not None:
        print(f"npu_smoke: skipped: {reason}.")
        return SKIPPED
    if not all(check.passed for check in checks):
        print("npu_smoke: FAIL: the checks above must pass before the operators can be tested.")
        return 1

    print()
    print(table_row("operator", "dtype", "shape", "attributes", "result", "verdict"))
    failures = 0
    seed = 0
    for op, dtype, shape, attrs in cases():
        seed += 1
        passed, result = run_op(op, dtype, shape, attrs, seed)
        failures += not passed
        described = ", ".join(f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}"
                              for k, v in attrs.items()) or "defaults"
        print(table_row(op.known_as, str(dtype).removeprefix("torch."), "x".join(map(str, shape)), described,
                        result, "PASS" if passed else "FAIL"), flush=True)
    for name, variant, call in ATEN_CASES:
        for dtype in DTYPES:
            seed += 1
            passed, result = run_aten(name, call, dtype, seed)
            failures += not passed
            print(table_row(name, str(dtype).removeprefix("torch."), "4096", variant or "-", result,
                            "PASS" if passed else "FAIL"), flush=True)
    print(f"npu_smoke: {'PASS' if failures == 0 else f'FAIL: {failures} case(s) failed'}.")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
