"""actgrad.ge.es: GE's eager-style graph builder (ge.es) on the twin: GraphBuilder, TensorHolder, and the plugin
modules GE loads from the ge.es.plugins entry points, here the two this package has: `actgrad` (its operators) and
`all` (those plus the GE built-ins it computes on the host)."""
from . import actgrad, all  # noqa: A004
from .graph_builder import GraphBuilder
from .tensor_holder import TensorHolder

_plugins = {"actgrad": actgrad, "all": all}

__all__ = ["GraphBuilder", "TensorHolder", "list_plugins", "get_plugin", *_plugins]


def list_plugins() -> list:
    return list(_plugins)


def get_plugin(plugin_name: str):
    return _plugins.get(plugin_name)
