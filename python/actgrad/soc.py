"""Which SoC profile (core count, UB size) the twin runs the kernels as: set_default_soc() > $ACTGRAD_SOC > default."""
from __future__ import annotations

import functools
import os

from . import _C

ENV_VAR = "ACTGRAD_SOC"
FALLBACK_SOC = "Ascend910B2"

_chosen: str | None = None


@functools.cache
def socs() -> tuple[str, ...]:
    """The SoC profiles the twin knows."""
    return tuple(_C.socs())


def check_soc(name: str) -> str:
    if name not in socs():
        raise ValueError(f"unknown SoC {name!r}; known: {', '.join(socs())}")
    return name


def set_default_soc(name: str | None) -> None:
    """Run later launches as `name`; None goes back to $ACTGRAD_SOC or Ascend910B2."""
    global _chosen
    _chosen = None if name is None else check_soc(name)


def default_soc() -> str:
    if _chosen is not None:
        return _chosen
    name = os.environ.get(ENV_VAR, FALLBACK_SOC)
    if name not in socs():
        raise ValueError(f"${ENV_VAR}={name!r} is not a known SoC; known: {', '.join(socs())}")
    return name
