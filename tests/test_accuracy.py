"""The measured maximum ulp distance per operator and dtype over the exhaustive sweeps (tests/sweeps.py), against
the contract's targets: 0 for the piecewise-linear ops (bit-exact), 1 ulp f16/bf16 and 4 ulp f32 for the
transcendental ones. The table is printed at the end of the pytest run (conftest.py)."""
import pytest
import torch

import harness as H
import sweeps as S


@pytest.mark.parametrize("dtype", [pytest.param(d, id=H.DTYPE_IDS[d]) for d in H.DTYPES])
@pytest.mark.parametrize("label", list(S.groups()))
def test_max_ulp_within_target(label, dtype):
    stats = [S.checked(op, dtype, i) for op, i in S.groups()[label]]
    max_ulp = max(s["max_ulp"] for s in stats)
    target = S.target_of(label, dtype)
    S.REPORT[(label, dtype)] = {"max_ulp": max_ulp, "target": target}
    assert sum(s["n_target"] for s in stats) > 100_000
    assert max_ulp <= target, f"{label} {dtype}: max {max_ulp} ulp > target {target}"
