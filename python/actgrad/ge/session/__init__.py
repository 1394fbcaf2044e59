"""actgrad.ge.session: GE's Session (ge.session) on the twin."""
from ..error import GeError
from .session import Session

__all__ = ["GeError", "Session"]
