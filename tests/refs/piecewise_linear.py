"""Piecewise-linear rectifiers, shrinks and Abs: bit-exact against their float32 steps."""
from __future__ import annotations

import reference as R  # noqa: F401 - numeric helpers
from refs import OpRef

REFS: tuple[OpRef, ...] = ()
