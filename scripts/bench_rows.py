#!/usr/bin/env python3
"""Time the row-reduction grads on the CPU twin (_C.launch_rows, preallocated out) next to ATen's CPU
_softmax_backward_data / _log_softmax_backward_data, same inputs, interleaved rounds, medians. Prints the ratio
actgrad time / ATen time (target <= 2x).

    python scripts/bench_rows.py [--reps 15] [--soc Ascend910B2]
"""
from __future__ import annotations

import argparse
import statistics
import time

import torch

from actgrad import _C

SHAPES = [((4096, 1024), -1), ((4096, 1024), 0), ((64, 65536), -1), ((64, 65536), 0), ((65536, 64), -1),
          ((65536, 64), 0)]
OPS = {"softmax": ("ActgradSoftMaxBackward", torch.ops.aten._softmax_backward_data, torch.softmax),
       "log_softmax": ("ActgradLogSoftmaxBackward", torch.ops.aten._log_softmax_backward_data, torch.log_softmax)}


def view3(shape, axis):
    axis %= len(shape)
    outer = 1
    for s in shape[:axis]:
        outer *= s
    inner = 1
    for s in shape[axis + 1:]:
        inner *= s
    return outer, shape[axis], inner


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=15)
    p.add_argument("--soc", default="Ascend910B2")
    p.add_argument("--ops", default="softmax")
    args = p.parse_args()
    print(f"threads {torch.get_num_threads()}  soc {args.soc}")
    print(f"{'op':12} {'shape':>14} {'axis':>4} {'dtype':>8} {'actgrad ms':>11} {'aten ms':>9} {'ratio':>6}")
    for name in args.ops.split(","):
        op_type, aten, forward = OPS[name]
        for dtype in (torch.float32, torch.bfloat16):
            for shape, axis in SHAPES:
                y = forward(torch.randn(shape), axis).to(dtype)
                g = torch.randn(shape).to(dtype)
                out = torch.empty_like(g)
                view = view3(shape, axis)
                ours = lambda: _C.launch_rows(op_type, g, y, out, *view, args.soc)
                theirs = lambda: aten(g, y, axis, dtype)
                times = ([], [])
                for i in range(args.reps + 2):
                    for k, f in enumerate((ours, theirs)):
                        t0 = time.perf_counter()
                        f()
                        if i >= 2:
                            times[k].append(time.perf_counter() - t0)
                a, b = (statistics.median(t) * 1e3 for t in times)
                print(f"{name:12} {str(shape):>14} {axis:>4} {str(dtype)[6:]:>8} {a:11.2f} {b:9.2f} {a / b:6.2f}")


if __name__ == "__main__":
    main()
