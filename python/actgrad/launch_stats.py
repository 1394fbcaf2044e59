"""launch_stats(): run one operator call on the CPU twin and return what its launch did, block by block.

The call is the operator's own (torch.ops.actgrad.<op>, or .out with out=), so it checks its arguments as the
operator does, with the same messages, and computes the same result; in addition `out` may only be the gradient
input itself (in place) or share no memory with the inputs, as for a kernel launch (the operator itself would
compute through a temporary there, which is not the launch to measure). The statistics are the twin's
(actgrad_sim::LaunchStats of the launch): per block the GM bytes read and written, the DMA transfers and their
sizes, the vector instructions issued and the UB high-water mark.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import torch

from . import _C
from .functions import attribute_checker, signature
from .meta_kernels import _FUNCTIONAL, _validate
from .soc import check_soc, default_soc
from .spec import BY_NAME, BY_TYPE, OpSpec


@dataclass(frozen=True)
class BlockStats:
    """What one block (one vector core) of the launch did."""
    block: int
    gm_bytes_read: int
    gm_bytes_written: int
    dma_transfers: int  # DataCopy/DataCopyPad calls, in and out
    dma_bytes_min: int
    dma_bytes_max: int
    vector_instructions: int
    ub_high_water: int  # bytes of UB the block's TPipe carved at most


@dataclass(frozen=True)
class LaunchStats:
    op_type: str
    kernel: str  # the kernel entry symbol
    soc: str
    dtype: str
    numel: int
    block_dim: int
    threads: int  # worker threads the blocks ran on
    blocks: tuple[BlockStats, ...]
    out: torch.Tensor = field(compare=False, repr=False)  # the result (`out` itself when given)

    def __str__(self) -> str:
        head = (f"{self.op_type} {self.dtype}[{self.numel}] on {self.soc}: {self.block_dim} blocks on "
                f"{self.threads} threads")
        rows = [f"  block {b.block:>3}: GM read {b.gm_bytes_read} B, written {b.gm_bytes_written} B in "
                f"{b.dma_transfers} DMA transfers of {b.dma_bytes_min}..{b.dma_bytes_max} B, "
                f"{b.vector_instructions} vector instructions, UB high water {b.ub_high_water} B"
                for b in self.blocks]
        return "\n".join([head, *rows])


def _spec(op: str) -> OpSpec:
    if op in BY_NAME:
        return BY_NAME[op]
    if op in BY_TYPE:
        return BY_TYPE[op]
    raise ValueError(f"unknown operator {op!r}; known: {', '.join(BY_NAME)} (or their OpTypes)")


def launch_stats(op: str, *args, out: torch.Tensor | None = None, soc: str | None = None, **kwargs) -> LaunchStats:
    """Runs `op` (name or OpType) on CPU tensors as actgrad.<op>(*args, out=out, **kwargs) would, as the SoC `soc`
    (default: the SoC launches run as), and returns the statistics of its launch. `out`, if given, must be the
    gradient input itself or share no memory with the inputs (RuntimeError naming the input otherwise)."""
    spec = _spec(op)
    fn = f"actgrad.{spec.name}"
    args, kwargs = attribute_checker(spec)(args, dict(kwargs))
    try:
        bound = signature(spec).bind(*args, **kwargs)
    except TypeError as error:
        raise TypeError(f"{fn}: {error}") from None
    bound.apply_defaults()
    in0, in1 = (bound.arguments[name] for name in spec.inputs)
    attrs = [bound.arguments[a.name] for a in spec.attrs]
    _validate(spec, in0, in1, attrs, _FUNCTIONAL if out is None else out)
    if in0.device.type != "cpu":
        raise RuntimeError(f"{fn}: launch_stats runs the kernel on the CPU twin; {spec.inputs[0]} is on {in0.device}")
    if in0.numel() == 0:
        raise ValueError(f"{fn}: an empty tensor launches no kernel, so it has no launch statistics")
    soc = default_soc() if soc is None else check_soc(soc)
    if out is not None:
        _C.check_out_aliases(fn, spec.op_type, in0, in1, out)
    packet = getattr(torch.ops.actgrad, spec.name)
    _C.set_thread_soc(soc)
    _C.clear_last_launch_stats()
    try:
        with torch.no_grad():  # a measurement, not part of a graph
            if out is None:
                result = packet.default(in0, in1, *attrs)
            else:
                packet.out(in0, in1, *attrs, out=out)
                result = out
        raw = _C.last_launch_stats()
    finally:
        _C.set_thread_soc("")
    if raw is None:
        raise RuntimeError(f"{fn}: no kernel ran on the twin for these tensors ({type(in0).__name__}); launch_stats "
                           "takes plain CPU tensors")
    return LaunchStats(op_type=spec.op_type, kernel=raw["kernel"], soc=raw["soc"],
                       dtype=str(in0.dtype).removeprefix("torch."), numel=in0.numel(), block_dim=raw["block_dim"],
                       threads=raw["threads"], blocks=tuple(BlockStats(**b) for b in raw["blocks"]), out=result)
