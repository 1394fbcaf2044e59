"""actgrad.ge.es.all: every operator function here (GE: ge.es.all, the plugin of CANN's operators): the GE built-ins
computed on the host and the actgrad operators."""
from .actgrad import *  # noqa: F403
from .actgrad import __all__ as _actgrad_all
from .builtins import *  # noqa: F403
from .builtins import __all__ as _builtins_all

__all__ = [*_builtins_all, *_actgrad_all]
