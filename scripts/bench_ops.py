#!/usr/bin/env python3
"""Time each actgrad operator on the CPU twin next to ATen's CPU *_backward .grad_input overload.

Both sides write into preallocated outputs (actgrad: out=; ATen: grad_input=), same inputs, same process; each
measurement is the median of --reps runs after --warmup runs. The runs interleave: every round times each operator
of a dtype once on each side, so a burst of load from other tenants of the machine lands on all of them a little
instead of on one of them a lot, and the medians leave it out. ClampBackward is compared with hardtanh_backward (the
same band test), ReluBackward with threshold_backward at 0; an operator ATen has no backward for is compared with
its formula in eager PyTorch into a preallocated out (target: faster than that). Prints a table with the ratio
actgrad time / ATen time (the project's target is <= 2x).

The row reductions (softmax and log-softmax backward) are timed on --row-shapes, along the last axis and axis 0, next
to ATen's _softmax_backward_data / _log_softmax_backward_data (.out), in a table of their own.

    python scripts/bench_ops.py [--numel 4194304] [--reps 15] [--dtypes float32,bfloat16] [--soc Ascend910B2]
                                [--row-shapes 4096x1024,64x65536,65536x64]
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time

import torch


DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def dtype_list(text: str) -> list[str]:
    """--dtypes: comma-separated names from DTYPES."""
    names = [name.strip() for name in text.split(",")]
    unknown = [name for name in names if name not in DTYPES]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown dtype {', '.join(unknown)}: expected names from {', '.join(DTYPES)}")
    return names


def median_times(pairs, reps: int, warmup: int) -> list[tuple[float, float]]:
    """Median times of each (fa, fb) pair. Every round runs each pair once, a then b, so that a change of machine
    load affects both sides of a pair alike and, over the rounds, every pair alike."""
    for _ in range(warmup):
        for fa, fb in pairs:
            fa()
            fb()
    times = [([], []) for _ in pairs]
    for _ in range(reps):
        for (fa, fb), (ta, tb) in zip(pairs, times):
            for fn, ts in ((fa, ta), (fb, tb)):
                t0 = time.perf_counter()
                fn()
                ts.append(time.perf_counter() - t0)
    return [(statistics.median(ta), statistics.median(tb)) for ta, tb in times]


def cases(actgrad, x, g, out_a, out_t):
    aten = torch.ops.aten
    # forward outputs the dst forms and ATen's log_sigmoid_backward take
    sig, tanh, root = torch.sigmoid(x), torch.tanh(x), x.abs().sqrt()
    buffer = aten.log_sigmoid_forward(x)[1]
    return [
        ("hardtanh_grad", lambda: actgrad.hardtanh_grad(x, g, -1.0, 1.0, out=out_a),
         "hardtanh_backward", lambda: aten.hardtanh_backward.grad_input(g, x, -1.0, 1.0, grad_input=out_t)),
        ("hardsigmoid_backward", lambda: actgrad.hardsigmoid_backward(g, x, out=out_a),
         "hardsigmoid_backward", lambda: aten.hardsigmoid_backward.grad_input(g, x, grad_input=out_t)),
        ("clamp_backward", lambda: actgrad.clamp_backward(x, g, -1.0, 1.0, False, out=out_a),
         "hardtanh_backward", lambda: aten.hardtanh_backward.grad_input(g, x, -1.0, 1.0, grad_input=out_t)),
        ("elu_backward(dst)", lambda: actgrad.elu_backward(x, g, 1.0, True, out=out_a),
         "elu_backward(is_result)",
         lambda: aten.elu_backward.grad_input(g, 1.0, 1.0, 1.0, True, x, grad_input=out_t)),
        ("elu_backward(src)", lambda: actgrad.elu_backward(x, g, 1.0, False, out=out_a),
         "elu_backward", lambda: aten.elu_backward.grad_input(g, 1.0, 1.0, 1.0, False, x, grad_input=out_t)),
        ("soft_plus_backward", lambda: actgrad.soft_plus_backward(x, g, 1.0, 20.0, out=out_a),
         "softplus_backward", lambda: aten.softplus_backward.grad_input(g, x, 1.0, 20.0, grad_input=out_t)),
        # piecewise-linear rectifiers, shrinks and Abs
        ("relu_backward", lambda: actgrad.relu_backward(x, g, False, out=out_a),
         "threshold_backward(0)", lambda: aten.threshold_backward.grad_input(g, x, 0.0, grad_input=out_t)),
        ("threshold_grad_v2_d", lambda: actgrad.threshold_grad_v2_d(g, x, 0.5, out=out_a),
         "threshold_backward", lambda: aten.threshold_backward.grad_input(g, x, 0.5, grad_input=out_t)),
        ("leaky_relu_grad", lambda: actgrad.leaky_relu_grad(g, x, 0.01, out=out_a),
         "leaky_relu_backward", lambda: aten.leaky_relu_backward.grad_input(g, x, 0.01, False, grad_input=out_t)),
        ("hard_swish_backward", lambda: actgrad.hard_swish_backward(x, g, out=out_a),
         "hardswish_backward", lambda: aten.hardswish_backward.out(g, x, out=out_t)),
        ("soft_shrink_grad", lambda: actgrad.soft_shrink_grad(g, x, 0.5, out=out_a),
         "softshrink_backward", lambda: aten.softshrink_backward.grad_input(g, x, 0.5, grad_input=out_t)),
        ("hard_shrink_grad", lambda: actgrad.hard_shrink_grad(g, x, 0.5, out=out_a),
         "hardshrink_backward", lambda: aten.hardshrink_backward.grad_input(g, x, 0.5, grad_input=out_t)),
        ("abs_backward", lambda: actgrad.abs_backward(x, g, out=out_a),
         "g * sign(x) (eager)", lambda: torch.mul(g, torch.sign(x), out=out_t)),

        # the sigmoid/tanh family, SiLU, LogSigmoid, Softsign, Sqrt
        ("sigmoid_backward(dst)", lambda: actgrad.sigmoid_backward(sig, g, True, out=out_a),
         "sigmoid_backward", lambda: aten.sigmoid_backward.grad_input(g, sig, grad_input=out_t)),
        ("tanh_backward(dst)", lambda: actgrad.tanh_backward(tanh, g, True, out=out_a),
         "tanh_backward", lambda: aten.tanh_backward.grad_input(g, tanh, grad_input=out_t)),
        ("silu_grad", lambda: actgrad.silu_grad(g, x, out=out_a),
         "silu_backward", lambda: aten.silu_backward.grad_input(g, x, grad_input=out_t)),
        ("log_sigmoid_grad", lambda: actgrad.log_sigmoid_grad(g, x, out=out_a),
         "log_sigmoid_backward", lambda: aten.log_sigmoid_backward.grad_input(g, x, buffer, grad_input=out_t)),
        ("softsign_grad", lambda: actgrad.softsign_grad(g, x, out=out_a),
         "eager g/(1+|x|)**2", lambda: torch.div(g, (1 + x.abs()) ** 2, out=out_t)),
        ("sqrt_backward(dst)", lambda: actgrad.sqrt_backward(root, g, True, out=out_a),
         "eager g/(2*d)", lambda: torch.div(g, 2 * root, out=out_t)),

        # the smooth gates: GELU, FastGelu, Mish
        ("gelu_backward(none)", lambda: actgrad.gelu_backward(x, g, "none", out=out_a),
         "gelu_backward", lambda: aten.gelu_backward.grad_input(g, x, approximate="none", grad_input=out_t)),
        ("gelu_backward(tanh)", lambda: actgrad.gelu_backward(x, g, "tanh", out=out_a),
         "gelu_backward(tanh)", lambda: aten.gelu_backward.grad_input(g, x, approximate="tanh", grad_input=out_t)),
        ("fast_gelu_grad", lambda: actgrad.fast_gelu_grad(g, x, out=out_a),
         "eager formula", lambda: eager_fast_gelu_grad(g, x, out_t)),
        # ATen's mish_backward has no grad_input overload: it allocates its result
        ("mish_backward", lambda: actgrad.mish_backward(x, g, out=out_a),
         "mish_backward", lambda: aten.mish_backward(g, x)),
    ]


def row_cases(actgrad, shape: tuple[int, ...], dtype):
    """The row reductions on `shape` along the last axis and axis 0: (name, actgrad call, ATen name, ATen call)."""
    aten = torch.ops.aten
    gen = torch.Generator().manual_seed(1)
    logits = torch.randn(shape, generator=gen) * 3
    g = torch.randn(shape, generator=gen).to(dtype)
    out_a, out_t = torch.empty_like(g), torch.empty_like(g)
    table = []
    for axis in (len(shape) - 1, 0):
        y = torch.softmax(logits, axis).to(dtype)
        ly = torch.log_softmax(logits, axis).to(dtype)
        where = f"{'x'.join(map(str, shape))},{axis}"
        table += [
            (f"soft_max_backward[{where}]",
             lambda y=y, axis=axis: actgrad.soft_max_backward(g, y, axis, out=out_a), "_softmax_backward_data",
             lambda y=y, axis=axis: aten._softmax_backward_data.out(g, y, axis, dtype, grad_input=out_t)),
            (f"log_softmax_backward[{where}]",
             lambda ly=ly, axis=axis: actgrad.log_softmax_backward(g, ly, axis, out=out_a), "_log_softmax_backward_data",
             lambda ly=ly, axis=axis: aten._log_softmax_backward_data.out(g, ly, axis, dtype, out=out_t)),
        ]
    return table


def shape_list(text: str) -> list[tuple[int, ...]]:
    """--row-shapes: comma-separated shapes, dimensions joined by x (4096x1024)."""
    try:
        shapes = [tuple(int(d) for d in item.split("x")) for item in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--row-shapes: expected shapes like 4096x1024,64x65536, got {text!r}") from None
    if not all(shape and all(d > 0 for d in shape) for shape in shapes):
        raise argparse.ArgumentTypeError(f"--row-shapes: dimensions must be positive, got {text!r}")
    return shapes


def eager_fast_gelu_grad(dy, x, out):
    """CANN FastGeluGrad's formula in eager PyTorch, written into out: dy*s*(1 + 1.702x*(1 - s)), s = sigmoid(1.702x)
    (PyTorch has no FastGelu backward)."""
    z = x * 1.702
    s = torch.sigmoid(z)
    return torch.mul(dy * s, (1 - s).mul_(z).add_(1), out=out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--numel", type=int, default=4 * 1024 * 1024, help="elements per tensor (default 4M)")
    ap.add_argument("--reps", type=int, default=15, help="timed runs per operator and side; the median is reported")
    ap.add_argument("--warmup", type=int, default=3, help="untimed runs before timing")
    ap.add_argument("--dtypes", type=dtype_list, default="float32,bfloat16",
                    help="comma-separated among float32, bfloat16, float16 (default float32,bfloat16)")
    ap.add_argument("--soc", default=None, help="SoC profile the twin runs as (default: actgrad's default)")
    ap.add_argument("--row-shapes", type=shape_list, default="4096x1024,64x65536,65536x64",
                    help="shapes the row reductions run on (default 4096x1024,64x65536,65536x64)")
    args = ap.parse_args()

    import actgrad  # noqa: PLC0415
    if args.soc:
        actgrad.set_default_soc(args.soc)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} ATen threads, {os.cpu_count()} CPUs, "
          f"numel {args.numel}, median of {args.reps} interleaved runs after {args.warmup} warm-up rounds, "
          f"SoC {actgrad.default_soc()}, load average {os.getloadavg()[0]:.2f}")
    print(f"{'operator':<22}{'dtype':>9}{'actgrad ms':>12}{'ATen op':>26}{'ATen ms':>10}{'ratio':>8}")
    ratios = []
    for dname in args.dtypes:
        dtype = DTYPES[dname]
        gen = torch.Generator().manual_seed(0)
        x = (torch.randn(args.numel, generator=gen) * 3).to(dtype)
        g = torch.randn(args.numel, generator=gen).to(dtype)
        out_a, out_t = torch.empty_like(x), torch.empty_like(x)
        table = cases(actgrad, x, g, out_a, out_t)
        medians = median_times([(fa, ft) for _, fa, _, ft in table], args.reps, args.warmup)
        for (name, _, aname, _), (ta, tt) in zip(table, medians):
            ratios.append(ta / tt)
            print(f"{name:<22}{dname:>9}{ta * 1e3:>12.3f}{aname:>26}{tt * 1e3:>10.3f}{ta / tt:>8.2f}")
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"geometric mean ratio {geo:.2f}, max {max(ratios):.2f} (target <= 2); "
          f"load average now {os.getloadavg()[0]:.2f}")

    print(f"\n{'row reduction [shape,axis]':<40}{'dtype':>9}{'actgrad ms':>12}{'ATen op':>28}{'ATen ms':>10}{'ratio':>8}")
    row_ratios = []
    for dname in args.dtypes:
        table = [case for shape in args.row_shapes for case in row_cases(actgrad, shape, DTYPES[dname])]
        medians = median_times([(fa, ft) for _, fa, _, ft in table], args.reps, args.warmup)
        for (name, _, aname, _), (ta, tt) in zip(table, medians):
            row_ratios.append(ta / tt)
            print(f"{name:<40}{dname:>9}{ta * 1e3:>12.3f}{aname:>28}{tt * 1e3:>10.3f}{ta / tt:>8.2f}")
    print(f"row reductions: max ratio {max(row_ratios):.2f} (target <= 2); load average now {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
