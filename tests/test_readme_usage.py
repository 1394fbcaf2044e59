"""README's "Using the operators" snippet runs as written and computes what its comments say."""
import re
from pathlib import Path

import torch

README = Path(__file__).resolve().parent.parent / "README.md"


def usage_snippet() -> str:
    text = README.read_text()
    section = text[text.index("\n## Using the operators\n"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_usage_snippet_runs_and_gives_the_reference_values(capsys):
    torch.manual_seed(0)
    scope = {}
    exec(compile(usage_snippet(), "README.md (Using the operators)", "exec"), scope)  # noqa: S102
    printed = capsys.readouterr().out
    # the same draws again: the snippet overwrote its dy in place
    torch.manual_seed(0)
    x = torch.randn(1024, 4096, dtype=torch.bfloat16)
    dy = torch.randn_like(x)
    assert torch.equal(scope["x"], x)
    # hardtanh's derivative is 1 inside (-1, 1), else 0: bit-exact
    assert torch.equal(scope["dx"], torch.where((x > -1) & (x < 1), dy, torch.zeros_like(dy)))
    # ELU (alpha 1) of the source: dy * (x > 0 ? 1 : exp(x)), one bf16 rounding of the float64 value, within 1 ulp
    want = (dy.double() * torch.where(x > 0, torch.ones_like(x, dtype=torch.float64), x.double().exp())).to(torch.bfloat16)
    _, exponent = torch.frexp(want.float())  # want = m * 2**exponent, 0.5 <= |m| < 1: a bf16 ulp is 2**(exponent - 8)
    ulp = torch.ldexp(torch.ones_like(want, dtype=torch.float32), exponent - 8).clamp(min=2.0**-133)
    assert (scope["dy"].float() - want.float()).abs().le(ulp).all()
    assert printed.startswith("ActgradHardtanhGrad bfloat16[4194304] on Ascend910B2: 48 blocks, tiles of "), printed
