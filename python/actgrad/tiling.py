"""tiling(): how one launch of an operator splits its elements over the vector cores and into UB tiles."""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from . import _C
from .soc import check_soc, default_soc
from .spec import BY_NAME, BY_TYPE, DTYPES, MAX_RANK

MAX_TENSOR_BYTES = 2 ** 63 - 1  # what a torch tensor can hold (its nbytes is an int64); the tiling's arithmetic fits


@dataclass(frozen=True)
class BlockTiling:
    """One block (one vector core): elements [start, start + length), processed in `tiles` tiles (the loop count
    of CopyIn/Compute/CopyOut), the last one holding `tail` elements."""
    start: int
    length: int
    tiles: int
    tail: int


@dataclass(frozen=True)
class Tiling:
    op_type: str
    soc: str
    dtype: str
    numel: int
    block_dim: int  # blocks launched
    tile_length: int  # elements per full tile
    unit_elems: int  # elements per 32-byte unit; blocks get whole units so GM offsets stay aligned
    units_per_block: int
    blocks_with_extra_unit: int  # blocks [0, this) get one unit more
    ub_bytes_used: int  # UB the kernel carves: double-buffered queues plus f32 and mask scratch
    ub_bytes_available: int
    blocks: tuple[BlockTiling, ...]

    def __str__(self) -> str:
        head = (f"{self.op_type} {self.dtype}[{self.numel}] on {self.soc}: {self.block_dim} blocks, tiles of "
                f"{self.tile_length} elements, UB {self.ub_bytes_used}/{self.ub_bytes_available} bytes")
        rows = [f"  block {i:>3}: [{b.start}, {b.start + b.length}) in {b.tiles} tiles, last {b.tail}"
                for i, b in enumerate(self.blocks)]
        return "\n".join([head, *rows])


def _op_type(op: str) -> str:
    if op in BY_TYPE:
        return op
    if op in BY_NAME:
        return BY_NAME[op].op_type
    raise ValueError(f"unknown operator {op!r}; known: {', '.join(BY_NAME)} (or their OpTypes)")


def _dtype_name(dtype) -> str:
    name = str(dtype).removeprefix("torch.") if isinstance(dtype, torch.dtype) else dtype
    if name not in DTYPES:
        raise ValueError(f"unsupported dtype {dtype}; supported: {', '.join(DTYPES)}")
    return name


def _numel(shape) -> int:
    dims = tuple(shape) if isinstance(shape, (tuple, list, torch.Size)) else None
    if dims is None or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in dims):
        raise ValueError(f"shape must be a tuple, list or torch.Size of non-negative ints, got {shape!r}")
    if len(dims) > MAX_RANK:
        raise ValueError(f"shape has rank {len(dims)}; at most {MAX_RANK} dimensions are supported")
    return math.prod(dims)


def tiling(op: str, shape, dtype, soc: str | None = None) -> Tiling:
    """The tiling of `op` (name or OpType) on a tensor of `shape` (tuple or torch.Size, > 0 elements) and `dtype`
    (torch dtype or its name) for `soc` (default: the SoC the twin runs as)."""
    op_type, dtype_name = _op_type(op), _dtype_name(dtype)
    if BY_TYPE[op_type].family != "elementwise":  # its split follows the axis, which this record has no place for
        raise ValueError(f"{op}: tiling() describes the elementwise kernels' split of numel elements; "
                         f"{op_type} is a row reduction, whose tiling depends on its axis")
    soc = default_soc() if soc is None else check_soc(soc)
    numel = _numel(shape)
    if numel == 0:
        raise ValueError("an empty tensor launches no kernel, so it has no tiling")
    nbytes = numel * getattr(torch, dtype_name).itemsize
    if nbytes > MAX_TENSOR_BYTES:
        raise ValueError(f"shape {tuple(shape)} of {dtype_name} holds {numel} elements, {nbytes} bytes; a tensor holds "
                         f"at most 2**63 - 1 bytes")
    r = _C.tiling(op_type, numel, dtype_name, soc)
    return Tiling(op_type=op_type, soc=soc, dtype=dtype_name, numel=numel, block_dim=r["block_dim"],
                  tile_length=r["tile_length"], unit_elems=r["unit_elems"], units_per_block=r["units_per_block"],
                  blocks_with_extra_unit=r["blocks_with_extra_unit"], ub_bytes_used=r["ub_bytes_used"],
                  ub_bytes_available=r["ub_bytes_available"], blocks=tuple(BlockTiling(**b) for b in r["blocks"]))
