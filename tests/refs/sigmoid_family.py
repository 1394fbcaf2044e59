"""The sigmoid/tanh family, SiLU, LogSigmoid, Softsign and Sqrt."""
from __future__ import annotations

import reference as R  # noqa: F401 - numeric helpers
from refs import OpRef

REFS: tuple[OpRef, ...] = ()
