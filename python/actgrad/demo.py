"""python -m actgrad.demo: every operator on the CPU twin against PyTorch, on the activations of an MLP layer.

The layer's pre-activation z = x @ W + b, the activation's saved tensor (z, or the activation's output for the
dst forms) and a random upstream gradient g feed each backward in float32, float16 and bfloat16.
Piecewise-linear operators (ELU's dst form among them) must equal PyTorch's backward in the same dtype bit for bit
(PyTorch computes them in float32 and rounds once, as the contract does). ELU's src form and softplus are compared with PyTorch's backward evaluated
in float64 and rounded once to the dtype, within the contract's 4 ulp (float32) / 1 ulp (float16, bfloat16).
Exits with status 1 if any operator is outside its tolerance.

Timings are of the CPU twin on this machine (the Ascend C kernels executed instruction by instruction on the CPU),
next to PyTorch's CPU kernels: they say nothing about the speed on an NPU.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass
from typing import Callable

import torch
import torch.nn.functional as F

import actgrad
from actgrad.row_bounds import row_f32_error_bound

aten = torch.ops.aten
DTYPES = (torch.float32, torch.float16, torch.bfloat16)
TILING_SOC = "Ascend910B2"
TRANSCENDENTAL_ULP = {torch.float16: 1, torch.bfloat16: 1}  # float32: each case's ulp_f32
SELU_ALPHA, SELU_SCALE = 1.6732632423543772, 1.0507009873554805
CLAMP_MIN, CLAMP_MAX = -0.5, 0.5
SOFTPLUS_THRESHOLD = 20.0  # torch.nn.Softplus's default


@dataclass(frozen=True)
class Case:
    call: str  # what the user writes (z: the pre-activation, g: the upstream gradient)
    torch_call: str  # the PyTorch function it is compared with
    op: str
    saved: Callable  # z -> the tensor the backward is evaluated at, in z's dtype
    run: Callable  # (saved, g) -> actgrad's result
    reference: Callable  # (saved, g) -> PyTorch's result
    exact: bool  # piecewise linear: PyTorch in the same dtype, bit-exact; else PyTorch in float64, ulp budget
    ulp_f32: int = 4  # the contract's float32 budget: 4 ulp for one transcendental factor, 8 for compound ones
    # float64 saved tensor -> the terms of a compound derivative: where they cancel by more than a factor 1.5 the
    # contract's absolute bound 1e-6*|g| replaces the ulp budget (contract A.2)
    terms: Callable | None = None
    tail: float = -math.inf  # saved values below it are in the absolute-bound region too (GELU's far tail)
    # a row reduction: its axis; the bound of one float32 evaluation per element (its row sum's rounding) replaces the
    # ulp budget (actgrad.row_bounds, docs/row_reductions.md)
    row_axis: int | None = None


SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
FAST_GELU_K = torch.tensor(1.702, dtype=torch.float32).item()  # the f32 constant, as the operator takes it


def _gelu_erf_terms(x):
    return 0.5 * (1 + torch.erf(x / math.sqrt(2.0))), x * torch.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def _gelu_tanh_terms(x):
    t = torch.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x ** 3))
    return 0.5 * (1 + t), 0.5 * x * (1 - t * t) * SQRT_2_OVER_PI * (1 + 3 * 0.044715 * x * x)


def _silu_terms(x):
    sig = torch.sigmoid(x)
    return sig, x * sig * (1 - sig)


def _fast_gelu_terms(x):
    sig = torch.sigmoid(FAST_GELU_K * x)
    return sig, FAST_GELU_K * x * sig * (1 - sig)


def _mish_terms(x):
    t = torch.tanh(F.softplus(x))
    return t, x * torch.sigmoid(x) * (1 - t * t)


def _sign_times(s: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    return g * torch.sign(s)


def _fast_gelu_grad(s: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    """CANN FastGeluGrad's formula (PyTorch has no FastGelu): g*s*(1 + 1.702x*(1 - s)), s = sigmoid(1.702x)."""
    sig = torch.sigmoid(FAST_GELU_K * s)
    return g * sig * (1 + FAST_GELU_K * s * (1 - sig))


CASES = (
    # the founding five
    Case("actgrad.hardtanh_grad(z, g)", "hardtanh_backward(g, z, -1, 1)", "hardtanh_grad", lambda z: z,
         lambda s, g: actgrad.hardtanh_grad(s, g),
         lambda s, g: aten.hardtanh_backward(g, s, -1.0, 1.0), exact=True),
    Case("actgrad.hardsigmoid_backward(g, z)", "hardsigmoid_backward(g, z)", "hardsigmoid_backward", lambda z: z,
         lambda s, g: actgrad.hardsigmoid_backward(g, s),
         lambda s, g: aten.hardsigmoid_backward(g, s), exact=True),
    Case(f"actgrad.clamp_backward(z.clamp({CLAMP_MIN}, {CLAMP_MAX}), g, {CLAMP_MIN}, {CLAMP_MAX})",
         f"hardtanh_backward(g, y, {CLAMP_MIN}, {CLAMP_MAX})", "clamp_backward", lambda z: z.clamp(CLAMP_MIN, CLAMP_MAX),
         lambda s, g: actgrad.clamp_backward(s, g, CLAMP_MIN, CLAMP_MAX),
         lambda s, g: aten.hardtanh_backward(g, s, CLAMP_MIN, CLAMP_MAX), exact=True),
    Case("actgrad.elu_backward(F.elu(z), g, 1.0)", "elu_backward(g, 1, 1, 1, is_result=True, y)", "elu_backward",
         F.elu,
         lambda s, g: actgrad.elu_backward(s, g, 1.0),
         lambda s, g: aten.elu_backward(g, 1.0, 1.0, 1.0, True, s), exact=True),
    Case(f"actgrad.elu_backward(z, g, {SELU_ALPHA:.4f}, use_dst=False, scale={SELU_SCALE:.4f})  (SELU)",
         "elu_backward(g, alpha, scale, 1, False, z)", "elu_backward", lambda z: z,
         lambda s, g: actgrad.elu_backward(s, g, SELU_ALPHA, use_dst=False, scale=SELU_SCALE),
         lambda s, g: aten.elu_backward(g, SELU_ALPHA, SELU_SCALE, 1.0, False, s), exact=False),
    Case(f"actgrad.soft_plus_backward(z, g, 1.0, {SOFTPLUS_THRESHOLD})",
         f"softplus_backward(g, z, 1, {SOFTPLUS_THRESHOLD})", "soft_plus_backward", lambda z: z,
         lambda s, g: actgrad.soft_plus_backward(s, g, 1.0, SOFTPLUS_THRESHOLD),
         lambda s, g: aten.softplus_backward(g, s, 1.0, SOFTPLUS_THRESHOLD), exact=False),
    # piecewise-linear rectifiers, shrinks and Abs
    Case("actgrad.relu_backward(F.relu(z), g)", "threshold_backward(g, y, 0)", "relu_backward", F.relu,
         lambda s, g: actgrad.relu_backward(s, g),
         lambda s, g: aten.threshold_backward(g, s, 0.0), exact=True),
    Case("actgrad.threshold_grad_v2_d(g, z, 0.5)", "threshold_backward(g, z, 0.5)", "threshold_grad_v2_d",
         lambda z: z, lambda s, g: actgrad.threshold_grad_v2_d(g, s, 0.5),
         lambda s, g: aten.threshold_backward(g, s, 0.5), exact=True),
    Case("actgrad.leaky_relu_grad(g, z, 0.01)", "leaky_relu_backward(g, z, 0.01, False)", "leaky_relu_grad",
         lambda z: z, lambda s, g: actgrad.leaky_relu_grad(g, s, 0.01),
         lambda s, g: aten.leaky_relu_backward(g, s, 0.01, False), exact=True),
    Case("actgrad.hard_swish_backward(z, g)", "hardswish_backward(g, z)", "hard_swish_backward", lambda z: z,
         lambda s, g: actgrad.hard_swish_backward(s, g),
         lambda s, g: aten.hardswish_backward(g, s), exact=True),
    Case("actgrad.soft_shrink_grad(g, z, 0.5)", "softshrink_backward(g, z, 0.5)", "soft_shrink_grad", lambda z: z,
         lambda s, g: actgrad.soft_shrink_grad(g, s, 0.5),
         lambda s, g: aten.softshrink_backward(g, s, 0.5), exact=True),
    Case("actgrad.hard_shrink_grad(g, z, 0.5)", "hardshrink_backward(g, z, 0.5)", "hard_shrink_grad", lambda z: z,
         lambda s, g: actgrad.hard_shrink_grad(g, s, 0.5),
         lambda s, g: aten.hardshrink_backward(g, s, 0.5), exact=True),
    Case("actgrad.abs_backward(z, g)", "g * sign(z) (abs's autograd formula)", "abs_backward", lambda z: z,
         lambda s, g: actgrad.abs_backward(s, g), _sign_times, exact=True),
    # the sigmoid/tanh family, SiLU, LogSigmoid, Softsign, Sqrt
    Case("actgrad.sigmoid_backward(torch.sigmoid(z), g)", "sigmoid_backward(g, y)", "sigmoid_backward", torch.sigmoid,
         lambda s, g: actgrad.sigmoid_backward(s, g),
         lambda s, g: aten.sigmoid_backward(g, s), exact=False),
    Case("actgrad.tanh_backward(torch.tanh(z), g)", "tanh_backward(g, y)", "tanh_backward", torch.tanh,
         lambda s, g: actgrad.tanh_backward(s, g),
         lambda s, g: aten.tanh_backward(g, s), exact=False),
    Case("actgrad.silu_grad(g, z)", "silu_backward(g, z)", "silu_grad", lambda z: z,
         lambda s, g: actgrad.silu_grad(g, s),
         lambda s, g: aten.silu_backward(g, s), exact=False, ulp_f32=8, terms=_silu_terms),
    Case("actgrad.log_sigmoid_grad(g, z)", "log_sigmoid_backward(g, z, buffer)", "log_sigmoid_grad", lambda z: z,
         lambda s, g: actgrad.log_sigmoid_grad(g, s),
         lambda s, g: aten.log_sigmoid_backward(g, s, aten.log_sigmoid_forward(s)[1]), exact=False, ulp_f32=8),
    Case("actgrad.softsign_grad(g, z)", "g / (1 + |z|)**2 (softsign's autograd formula)", "softsign_grad",
         lambda z: z, lambda s, g: actgrad.softsign_grad(g, s),
         lambda s, g: g / (1 + s.abs()) ** 2, exact=False),
    Case("actgrad.sqrt_backward(z.abs().sqrt(), g)", "g / (2 * y) (sqrt's autograd formula)", "sqrt_backward",
         lambda z: z.abs().sqrt(), lambda s, g: actgrad.sqrt_backward(s, g),
         lambda s, g: g / (2 * s), exact=False),
    # the smooth gates: GELU, FastGelu, Mish
    Case("actgrad.gelu_backward(z, g)", "gelu_backward(g, z)", "gelu_backward", lambda z: z,
         lambda s, g: actgrad.gelu_backward(s, g),
         lambda s, g: aten.gelu_backward(g, s), exact=False, ulp_f32=8, terms=_gelu_erf_terms, tail=-4.0),
    Case("actgrad.gelu_backward(z, g, 'tanh')", "gelu_backward(g, z, approximate='tanh')", "gelu_backward",
         lambda z: z, lambda s, g: actgrad.gelu_backward(s, g, "tanh"),
         lambda s, g: aten.gelu_backward(g, s, approximate="tanh"), exact=False, ulp_f32=8, terms=_gelu_tanh_terms,
         tail=-4.0),
    Case("actgrad.fast_gelu_grad(g, z)", "CANN FastGeluGrad's formula", "fast_gelu_grad", lambda z: z,
         lambda s, g: actgrad.fast_gelu_grad(g, s), _fast_gelu_grad, exact=False, ulp_f32=8, terms=_fast_gelu_terms),
    Case("actgrad.mish_backward(z, g)", "mish_backward(g, z)", "mish_backward", lambda z: z,
         lambda s, g: actgrad.mish_backward(s, g),
         lambda s, g: aten.mish_backward(g, s), exact=False, ulp_f32=8, terms=_mish_terms),
    # the row reductions, along the features of each row
    Case("actgrad.soft_max_backward(g, torch.softmax(z, -1), -1)", "_softmax_backward_data(g, y, -1, dtype)",
         "soft_max_backward", lambda z: torch.softmax(z, -1),
         lambda s, g: actgrad.soft_max_backward(g, s, -1),
         lambda s, g: aten._softmax_backward_data(g, s, -1, s.dtype), exact=False, row_axis=-1),
    Case("actgrad.log_softmax_backward(g, torch.log_softmax(z, -1))", "_log_softmax_backward_data(g, y, -1, dtype)",
         "log_softmax_backward", lambda z: torch.log_softmax(z, -1),
         lambda s, g: actgrad.log_softmax_backward(g, s),
         lambda s, g: aten._log_softmax_backward_data(g, s, -1, s.dtype), exact=False, row_axis=-1),
)


def mlp_layer(batch: int, features: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Pre-activation of a linear layer (unit variance, so every band edge is hit) and its upstream gradient."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(batch, features, generator=gen)
    weight = torch.randn(features, features, generator=gen) / features ** 0.5
    bias = 0.1 * torch.randn(features, generator=gen)
    return x @ weight + bias, torch.randn(batch, features, generator=gen)


def ordered(t: torch.Tensor) -> torch.Tensor:
    """Float bits as integers ordered like the values (+0 and -0 both map to 0): ulp distance = difference."""
    bits = {torch.float32: torch.int32, torch.float16: torch.int16, torch.bfloat16: torch.int16}[t.dtype]
    i = t.view(bits).long()
    sign_bit = 1 << (torch.finfo(t.dtype).bits - 1)
    return torch.where(i < 0, -(i + sign_bit), i)


def errors(got: torch.Tensor, want: torch.Tensor, exempt: torch.Tensor | None = None) -> tuple[float, int]:
    """Max absolute and max ulp error; positions where both are NaN agree; the ulp error leaves out `exempt`
    (where an absolute bound holds instead)."""
    both_nan = got.isnan() & want.isnan()
    abs_err = (got.double() - want.double()).abs().masked_fill(both_nan, 0.0)
    ulp = (ordered(got) - ordered(want)).abs().masked_fill(both_nan, 0)
    if exempt is not None:
        ulp = ulp.masked_fill(exempt, 0)
    return float(abs_err.max()), int(ulp.max())


def absolute_bound_holds(case: Case, saved: torch.Tensor, grad: torch.Tensor, got: torch.Tensor,
                         exact: torch.Tensor) -> torch.Tensor:
    """Where the contract's absolute bound replaces the ulp budget (the derivative's terms cancel by more than a
    factor 1.5, or the far tail) and holds: |got - exact| <= 1e-6*|g| plus the rounding to the dtype."""
    if case.terms is None:
        return torch.zeros_like(got, dtype=torch.bool)
    s64 = saved.double()
    first, second = case.terms(s64)
    region = (first + second).abs() * 1.5 < torch.maximum(first.abs(), second.abs())
    region |= s64 < case.tail
    spacing = (torch.nextafter(got, torch.full_like(got, math.inf)).double() - got.double()).abs()
    return region & ((got.double() - exact).abs() <= 1e-6 * grad.double().abs() + spacing)


def best_milliseconds(fn, repeats: int = 5) -> float:
    """Best of `repeats` runs after a warm-up: the least disturbed by other work on the machine."""
    for _ in range(2):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1e3 * min(times)


def launch_split(case: Case, saved: torch.Tensor) -> tuple[int, int]:
    """Vector-core blocks and elements per UB tile of the launch on TILING_SOC (a row reduction's tile: its padded
    rows, or a chunk of one)."""
    if case.row_axis is None:
        tiling = actgrad.tiling(case.op, saved.shape, saved.dtype, soc=TILING_SOC)
        return tiling.block_dim, tiling.tile_length
    tiling = actgrad.tiling(case.op, saved.shape, saved.dtype, soc=TILING_SOC, axis=case.row_axis)
    return tiling.block_dim, tiling.tile_elems


def measure(case: Case, dtype, z: torch.Tensor, g: torch.Tensor) -> dict:
    saved, grad = case.saved(z.to(dtype)), g.to(dtype)
    got = case.run(saved, grad)
    if case.exact:
        want, tolerance = case.reference(saved, grad), 0
    else:
        exact = case.reference(saved.double(), grad.double())
        want = exact.to(dtype)
        tolerance = case.ulp_f32 if dtype == torch.float32 else TRANSCENDENTAL_ULP[dtype]
    if case.exact:
        exempt = None
    elif case.row_axis is not None:
        spacing = (torch.nextafter(got, torch.full_like(got, math.inf)).double() - got.double()).abs()
        bound = row_f32_error_bound(case.op, grad.double(), saved.double(), case.row_axis % saved.dim())
        exempt = (got.double() - exact).abs() <= bound + spacing
    else:
        exempt = absolute_bound_holds(case, saved, grad, got, exact)
    max_abs, max_ulp = errors(got, want, exempt)
    blocks, tile = launch_split(case, saved)
    return {"case": case, "dtype": str(dtype).removeprefix("torch."),
            "reference": "torch, same dtype" if case.exact else "torch f64, rounded",
            "max_abs": max_abs, "max_ulp": max_ulp, "tolerance": tolerance, "ok": max_ulp <= tolerance,
            "actgrad_ms": best_milliseconds(lambda: case.run(saved, grad)),
            "torch_ms": best_milliseconds(lambda: case.reference(saved, grad)),
            "blocks": blocks, "tile": tile}


COLUMNS = """Columns:
  dtype        the dtype of z, g and the result
  reference    what the result is compared with: PyTorch's backward in the same dtype (bit for bit), or in
               float64 rounded once to the dtype (within the ulp tolerance)
  max abs err  largest absolute difference from the reference
  max ulp      largest difference in units in the last place; tol: the contract's tolerance; ok: within it.
               Where a compound derivative's terms cancel (near its zeros, GELU's x < -4) the contract's
               absolute bound 1e-6*|g| holds instead, and those elements are left out of max ulp; the row
               reductions are held to the bound of their float32 row sum instead of an ulp budget
  twin ms      actgrad's time on the CPU twin (best of 5 after warm-up): the CPU emulation, not an NPU timing
  torch ms     PyTorch's CPU backward on the same tensors
  blocks/tile  the launch's tiling on {soc}: vector-core blocks and elements per UB tile
"""


def print_table(rows: list[dict]) -> None:
    header = (f"  {'dtype':<9} {'reference':<19} {'max abs err':>11} {'max ulp':>7} {'tol':>3} {'ok':<4} "
              f"{'twin ms':>8} {'torch ms':>8} {'blocks':>6} {'tile':>6}")
    print(header)
    case = None
    for r in rows:
        if r["case"] is not case:
            case = r["case"]
            print(f"{case.call}   vs torch.ops.aten.{case.torch_call}")
        print(f"  {r['dtype']:<9} {r['reference']:<19} {r['max_abs']:>11.3g} {r['max_ulp']:>7} {r['tolerance']:>3} "
              f"{'yes' if r['ok'] else 'NO':<4} {r['actgrad_ms']:>8.2f} {r['torch_ms']:>8.3f} {r['blocks']:>6} "
              f"{r['tile']:>6}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=int, default=64, help="rows of the layer's activations (default 64)")
    parser.add_argument("--features", type=int, default=1024, help="columns of the layer's activations (default 1024)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random layer and gradient (default 0)")
    args = parser.parse_args(argv)
    for name in ("batch", "features"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1, got {getattr(args, name)}")

    z, g = mlp_layer(args.batch, args.features, args.seed)
    print(f"Every actgrad operator on the activations z of an MLP layer ({args.batch}x{args.features}) and a random "
          f"upstream gradient g,\nrun on the CPU twin as {actgrad.default_soc()} and compared with PyTorch.\n")
    print(COLUMNS.format(soc=TILING_SOC))
    rows = [measure(case, dtype, z, g) for case in CASES for dtype in DTYPES]
    print_table(rows)
    failed = [f"{r['case'].call} [{r['dtype']}]" for r in rows if not r["ok"]]
    if failed:
        print(f"\nOutside tolerance: {', '.join(failed)}")
        return 1
    print("\nAll operators within the contract's tolerance.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
