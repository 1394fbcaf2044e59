"""actgrad: backward kernels of NN activations, written in Ascend C, run on the CPU twin of the Ascend C runtime.

Every operator of spec.py is a torch op, torch.ops.actgrad.<name> (functional and .out), and a function here:
hardtanh_grad, hardsigmoid_backward, clamp_backward, elu_backward, soft_plus_backward. actgrad.aten has drop-ins
with ATen's signatures. tiling() shows how a launch splits the work (a row reduction's along its axis);
socs()/set_default_soc() (or $ACTGRAD_SOC) choose the SoC profile the twin runs as. actgrad.ge is GE's Python graph
API on the twin; compile_backend a torch.compile backend running actgrad graphs through it.
"""
import torch  # noqa: F401  (loads libtorch, which _C links against)

try:
    from . import _C
except ImportError as error:
    raise ImportError(f"actgrad._C, the compiled twin, cannot be loaded ({error}); build it with "
                      "`pip install --no-build-isolation -e .` in the repository root") from error

from . import library  # noqa: F401  (registers torch.ops.actgrad.*)
from . import aten  # noqa: F401  (actgrad.aten: the drop-ins, built on the ops above)
from .compile_backend import compile_backend
from .functions import PUBLIC_FUNCTIONS
from .launch_stats import BlockStats, LaunchStats, launch_stats
from .soc import default_soc, set_default_soc, socs
from .tiling import RowTiling, Tiling, tiling

# The operator functions are made from the spec; bind them here as actgrad.<op name>.
globals().update(PUBLIC_FUNCTIONS)

__all__ = [*PUBLIC_FUNCTIONS, "compile_backend", "tiling", "Tiling", "RowTiling", "socs", "set_default_soc",
           "default_soc", "launch_stats", "LaunchStats", "BlockStats"]
