"""The smooth gates: GELU (erf and tanh), FastGelu and Mish."""
from __future__ import annotations

import reference as R  # noqa: F401 - numeric helpers
from refs import OpRef

REFS: tuple[OpRef, ...] = ()
