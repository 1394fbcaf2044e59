"""actgrad.ge.ge_global: GE's initialisation API (ge.ge_global)."""
from .geapi import GeApi

__all__ = ["GeApi"]
