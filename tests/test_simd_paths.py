"""The twin's AVX2 loops and its deferred widenings and GM -> UB copies change speed, never results: every operator gives
the same bits with them switched off (ACTGRAD_SIM_NO_AVX2=1, ACTGRAD_SIM_NO_DEFER=1, read once per process, hence the
subprocesses) on special and random values in every dtype, NaN payloads included where two NaNs meet; the row reductions
on short rows, two-pass rows and column chunks, in place too."""
import os
import subprocess
import sys

import torch

SCRIPT = r"""
import sys, torch, actgrad
sys.path.insert(0, {tests!r})
import harness as H, sweeps
def nans(dtype, seed, n=512):
    # NaNs of random sign and payload, quiet and signalling: where two meet, the result's payload is the twin's rule
    exponent, mantissa, bits = {{torch.float32: (0x7f800000, 1 << 23, torch.int32), torch.float16: (0x7c00, 1 << 10, torch.int16),
                                torch.bfloat16: (0x7f80, 1 << 7, torch.int16)}}[dtype]
    gen = torch.Generator().manual_seed(seed)
    payload = torch.randint(1, mantissa, (n,), generator=gen)
    sign_bit = -(1 << (8 * torch.tensor([], dtype=dtype).element_size() - 1))  # the sign bit, as a signed integer
    sign = torch.randint(0, 2, (n,), generator=gen) * sign_bit
    return ((exponent | payload) + sign).to(bits).view(dtype)

out = {{}}
for dtype in (torch.float32, torch.float16, torch.bfloat16):
    x = H.interesting_values(dtype, [], n_random=3000, seed=1)
    g = H.interesting_values(dtype, [], n_random=3000, seed=2)[torch.randperm(x.numel(), generator=torch.Generator().manual_seed(3))]
    xn, gn = nans(dtype, 4), nans(dtype, 5)
    for op, attr_sets in sweeps.CASES.items():
        for i, attrs in enumerate(attr_sets):
            out[(op, i, str(dtype))] = H.call(op, x, g, **attrs).view(torch.int16 if dtype != torch.float32 else torch.int32)
            out[(op, i, str(dtype), "nan")] = H.call(op, xn, gn, **attrs).view(torch.int16 if dtype != torch.float32 else torch.int32)
    # the row reductions: short rows, two-pass rows, column chunks in one and two passes, and in place
    gen = torch.Generator().manual_seed(6)
    for shape, axis in (((37, 70), 1), ((3, 20000), 1), ((20, 40, 9), 1), ((3000, 8), 0)):
        logits = torch.randn(shape, generator=gen) * 4
        dd = torch.randn(shape, generator=gen).to(dtype)
        dd.view(-1)[::997] = float("nan")
        for op, y in (("soft_max_backward", torch.softmax(logits, axis)), ("log_softmax_backward", torch.log_softmax(logits, axis))):
            y = y.to(dtype)
            bits = torch.int16 if dtype != torch.float32 else torch.int32
            out[(op, shape, str(dtype))] = getattr(actgrad, op)(dd, y, axis).view(bits)
            inplace = dd.clone()
            getattr(actgrad, op)(inplace, y, axis, out=inplace)
            out[(op, shape, str(dtype), "in place")] = inplace.view(bits)
torch.save(out, sys.argv[1])
"""


SWITCHES = ("ACTGRAD_SIM_NO_AVX2", "ACTGRAD_SIM_NO_DEFER")


def _run(path, env_extra):
    env = {k: v for k, v in os.environ.items() if k not in SWITCHES}
    env.update(env_extra)
    code = SCRIPT.format(tests=os.path.dirname(__file__))
    subprocess.run([sys.executable, "-c", code, str(path)], check=True, env=env)
    return torch.load(path)


def test_operators_give_the_same_bits_with_each_speed_path_off(tmp_path):
    fast = _run(tmp_path / "fast.pt", {})
    assert len(fast) > 30
    for switch in SWITCHES:
        slow = _run(tmp_path / f"{switch}.pt", {switch: "1"})
        assert fast.keys() == slow.keys()
        for key in fast:
            assert torch.equal(fast[key], slow[key]), (switch, key)
