#!/usr/bin/env python3
"""x86 instructions per element of each scripts/bench_ops.py case on the CPU twin, counted by callgrind.

Wall-clock A/Bs of a few percent drown in the noise of a shared machine; instruction counts do not. Each case runs
once (the actgrad side only) under `valgrind --tool=callgrind`, and its count is the inclusive cost of the kernel's
entry function (actgrad_<op>, every block of the launch) divided by the element count. Cases that share a kernel
(elu_backward with and without use_dst, gelu_backward's two forms) run under separate valgrind processes.

    python scripts/twin_instructions.py [--numel 4194304] [--dtypes float32,bfloat16] [--cases silu_grad,...]

Collection stays on from the start: a --toggle-collect pattern such as 'actgrad_*' also matches the twin's own
non-template functions (actgrad_sim::...), and every call to one of those would switch collection off.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
ENTRY = re.compile(r"^\s*([\d,]+) .*:(actgrad_[a-z0-9_]+)(?: \[|$)")


def run_case(dtype: str, numel: int, cases: list[str], workdir: pathlib.Path) -> dict[str, float]:
    """Per-kernel instructions/element of one valgrind process running `cases` once each."""
    out = workdir / "callgrind.out"
    child = [sys.executable, __file__, "--child", dtype, str(numel), *cases]
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *child], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "OMP_NUM_THREADS": "1"})
    report = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(out)], check=True,
                            capture_output=True, text=True).stdout
    return entry_counts(report, numel)


def entry_counts(report: str, numel: int) -> dict[str, float]:
    """Instructions/element of each kernel entry function in a callgrind_annotate --inclusive=yes report."""
    counts: dict[str, float] = {}
    for line in report.splitlines():
        m = ENTRY.match(line)
        if m:
            counts[m.group(2)] = max(counts.get(m.group(2), 0.0), int(m.group(1).replace(",", "")) / numel)
    return counts


def child(dtype_name: str, numel: int, names: list[str]) -> None:
    """Runs the named bench_ops cases once each (under valgrind)."""
    import torch
    sys.path.insert(0, str(ROOT / "scripts"))
    import bench_ops
    import actgrad

    dtype = bench_ops.DTYPES[dtype_name]
    gen = torch.Generator().manual_seed(0)
    x = (torch.randn(numel, generator=gen) * 3).to(dtype)
    g = torch.randn(numel, generator=gen).to(dtype)
    for name, fa, _, _ in bench_ops.cases(actgrad, x, g, torch.empty_like(x), torch.empty_like(x)):
        if name in names:
            fa()


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]), sys.argv[4:])
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--numel", type=int, default=4 * 1024 * 1024, help="elements per tensor (default 4M)")
    ap.add_argument("--dtypes", default="float32,bfloat16", help="comma-separated (default float32,bfloat16)")
    ap.add_argument("--cases", default="", help="comma-separated bench_ops case names (default: all)")
    args = ap.parse_args()

    import torch
    sys.path.insert(0, str(ROOT / "scripts"))
    import bench_ops
    import actgrad

    tiny = torch.ones(8)
    all_cases = [name for name, *_ in bench_ops.cases(actgrad, tiny, tiny, tiny, tiny)]
    wanted = [c for c in args.cases.split(",") if c] or all_cases
    unknown = sorted(set(wanted) - set(all_cases))
    if unknown:
        sys.exit(f"--cases: unknown {', '.join(unknown)}; expected names from {', '.join(all_cases)}")
    # one process per group of cases whose kernels differ
    groups: list[list[str]] = []
    for name in wanted:
        kernel = name.split("(")[0]
        group = next((g for g in groups if all(c.split("(")[0] != kernel for c in g)), None)
        if group is None:
            groups.append([name])
        else:
            group.append(name)
    print(f"{'case':<24}" + "".join(f"{d:>12}" for d in args.dtypes.split(",")))
    table: dict[str, dict[str, float]] = {name: {} for name in wanted}
    with tempfile.TemporaryDirectory() as tmp:
        for dtype in args.dtypes.split(","):
            for group in groups:
                counts = run_case(dtype, args.numel, group, pathlib.Path(tmp))
                for name in group:
                    table[name][dtype] = counts.get("actgrad_" + name.split("(")[0], float("nan"))
    for name in wanted:
        print(f"{name:<24}" + "".join(f"{table[name][d]:>12.2f}" for d in args.dtypes.split(",")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
