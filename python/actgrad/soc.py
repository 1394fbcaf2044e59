"""Which SoC profile (core count, UB size) the twin runs the kernels as: set_default_soc() > $ACTGRAD_SOC > default.

The twin's environment variables are checked when actgrad is imported (check_environment), with the rules its
launches apply when they read them again: $ACTGRAD_SOC names a known SoC; $ACTGRAD_SIM_THREADS is an integer from 1
to 65535 (the most threads a launch uses); either, unset or empty, means no setting.
"""
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
    """Run later launches as `name`; None goes back to $ACTGRAD_SOC (unset or empty: Ascend910B2)."""
    # kept in C++, where the CPU kernels read it on every launch ("" clears it there)
    _C.set_default_soc("" if name is None else check_soc(name))


def default_soc() -> str:
    """The SoC launches run as; ValueError when $ACTGRAD_SOC names an unknown one."""
    return _C.default_soc()


def check_environment() -> None:
    """ValueError naming the variable and its value when $ACTGRAD_SOC or $ACTGRAD_SIM_THREADS holds something the
    twin refuses (the first launch would refuse it too)."""
    _C.check_environment()


check_environment()  # at `import actgrad`, not at the first launch
