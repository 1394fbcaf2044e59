"""Which SoC profile (core count, UB size) the twin runs the kernels as: set_default_soc() > $ACTGRAD_SOC > default."""
from __future__ import annotations

import functools

from . import _C


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
    # kept in C++, where the CPU kernels read it on every launch ("" clears it there)
    _C.set_default_soc("" if name is None else check_soc(name))


def default_soc() -> str:
    """The SoC launches run as; ValueError when $ACTGRAD_SOC names an unknown one."""
    return _C.default_soc()
