#!/usr/bin/env python3
"""Measured accuracy of the actgrad operators on the twin: the maximum ulp distance to the contract's reference,
per operator and dtype, over the exhaustive f16/bf16 sweeps of tests/sweeps.py (every bit pattern as the saved
tensor against several gradients, and every bit pattern as the gradient against saved values around the bounds)
and, for f32, the f16 and bf16 values plus a large random f32 sample.

Reference: piecewise-linear ops (and EluBackward use_dst) the f32-step reference rounded once (target 0 ulp);
EluBackward src and SoftPlusBackward the correctly rounded float64 value (targets 1 ulp f16/bf16, 4 ulp f32), over
the region where the ulp target applies (tests/reference.py transcendental_regions; the f32-exp-underflow region is
reported separately).

The row reductions (softmax and log-softmax backward) are measured on the benchmark shapes and [37, 31], along the
last axis and axis 0, dst a forward output of N(0, 9) logits and diff_dst N(0, 1): the largest |error| as a share
of the bound the tests hold (the f32 bound of python/actgrad/row_bounds.py, plus one ulp of the output for
f16/bf16), and for f16/bf16 the largest distance in ulps of the output to the float64 value.

    python scripts/accuracy.py [--random N] [--soc Ascend910B2] [--ops gelu_backward,fast_gelu_grad]
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))

import torch  # noqa: E402

import harness as H  # noqa: E402
import reference as R  # noqa: E402
import sweeps as S  # noqa: E402


ROW_SHAPES = ([37, 31], [4096, 1024], [64, 65536], [65536, 64])


@R.quiet
def row_accuracy(ag, ops) -> int:
    """Prints the row reductions' table; returns how many elements are outside the tests' bound."""
    if not ops:
        return 0
    print(f"{'row reduction [shape,axis]':<36}{'dtype':>6}{'max err/bound':>15}{'max ulp':>9}{'elements':>11}")
    bad = 0
    for op in ops:
        for shape in ROW_SHAPES:
            for axis in (-1, 0):
                gen = torch.Generator().manual_seed(0)
                x = 3 * torch.randn(shape, generator=gen, dtype=torch.float64)
                dst64 = torch.softmax(x, axis) if op == "soft_max_backward" else torch.log_softmax(x, axis)
                diff_dst64 = torch.randn(shape, generator=gen, dtype=torch.float64)
                for dtype in H.DTYPES:
                    diff_dst, dst = diff_dst64.to(dtype), dst64.to(dtype)
                    got = R.exact(getattr(ag, op)(diff_dst, dst, axis=axis)).reshape(-1)
                    g, d = R.exact(diff_dst), R.exact(dst)
                    ref = R.ROW_F64[op](g, d, axis % 2).reshape(-1)
                    bound = R.row_f32_error_bound(op, g, d, axis % 2).reshape(-1)
                    err = abs(got - ref)
                    ulps = "-"
                    if dtype != torch.float32:
                        ulp = R.ulp_of(R.round_f64(ref, dtype))
                        bound = bound + ulp
                        ulps = f"{(err / ulp).max():.2f}"
                    bad += int((~(err <= bound)).sum())
                    print(f"{op + str(shape).replace(' ', '') + f',{axis}':<36}{H.DTYPE_IDS[dtype]:>6}"
                          f"{(err / bound).max():>15.3f}{ulps:>9}{err.size:>11}")
    print("row reductions: all within the bound" if bad == 0 else f"row reductions: {bad} elements outside the bound")
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--random", type=int, default=1_000_000,
                    help="random f32 saved values per kind (random bit patterns, N(0,10), N(0,100)); default 1M")
    ap.add_argument("--soc", default=None, help="SoC profile for the twin (default: actgrad's default)")
    ap.add_argument("--ops", default=None, help="comma-separated operators to measure (default: all)")
    args = ap.parse_args()
    known = list(S.CASES) + list(R.ROW_F64)
    ops = set(known) if args.ops is None else set(args.ops.split(","))
    unknown = ops - set(known)
    if unknown:
        ap.error(f"--ops: unknown operator(s) {', '.join(sorted(unknown))}; expected some of {', '.join(known)}")
    ag = H.ag()
    if args.soc:
        ag.set_default_soc(args.soc)
    bad_rows = row_accuracy(ag, sorted(ops & set(R.ROW_F64)))
    ops -= set(R.ROW_F64)
    if not ops:
        return 0 if bad_rows == 0 else 1
    t0 = time.time()
    rows = {}
    worst = {}
    for op, i, attrs in S.all_cases():
        if op not in ops:
            continue
        label = S.label_of(op, attrs)
        for dtype in H.DTYPES:
            saved, grad, got = S.run(op, dtype, attrs, n_random_f32=args.random if dtype == torch.float32 else 0)
            st = S.measure(op, got, saved, grad, attrs)
            key = (label, dtype)
            cur = rows.setdefault(key, {"max_ulp": 0, "n_target": 0, "n_exceeding": 0, "nan_mismatches": 0,
                                        "max_ulp_underflow_region": 0, "n_underflow_region": 0})
            for k in ("n_target", "n_exceeding", "nan_mismatches", "n_underflow_region"):
                cur[k] += st[k]
            for k in ("max_ulp", "max_ulp_underflow_region"):
                if st[k] > cur[k]:
                    cur[k] = st[k]
                    if k == "max_ulp":
                        worst[key] = S.case_id(attrs)
    labels = [label for label, cases in S.groups().items() if cases[0][0] in ops]
    print(f"actgrad accuracy on the twin (SoC {ag.default_soc()}), {time.time() - t0:.0f} s")
    print(f"{'operator':<24}{'dtype':>6}{'max ulp':>9}{'target':>8}{'elements':>12}{'over target':>13}"
          f"{'NaN mism.':>11}{'underflow rgn max ulp (n)':>28}  worst case")
    for label in labels:
        for dtype in H.DTYPES:
            r = rows[(label, dtype)]
            under = f"{r['max_ulp_underflow_region']} ({r['n_underflow_region']})" if r["n_underflow_region"] else "-"
            print(f"{label:<24}{H.DTYPE_IDS[dtype]:>6}{r['max_ulp']:>9}{S.target_of(label, dtype):>8}"
                  f"{r['n_target']:>12}{r['n_exceeding']:>13}{r['nan_mismatches']:>11}{under:>28}  "
                  f"{worst.get((label, dtype), '')}")
    bad = sum(r["n_exceeding"] + r["nan_mismatches"] for r in rows.values()) + bad_rows
    print("all within target" if bad == 0 else f"{bad} elements outside the contract")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
