"""tiling(): how one launch of an operator splits its work over the vector cores and into UB tiles.

An elementwise operator splits numel elements (Tiling); a row reduction the rows of the [outer, R, inner] view of the
tensor around its axis (RowTiling: rows or column chunks over the cores, one or two passes; docs/row_reductions.md).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from . import _C
from .checks import reduction_axis
from .functions import int_attribute
from .soc import check_soc, default_soc
from .spec import BY_NAME, BY_TYPE, DTYPES, MAX_RANK, OpSpec

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


@dataclass(frozen=True)
class RowBlockTiling:
    """One block (one vector core) of a row reduction: units [first_unit, first_unit + units)."""
    first_unit: int
    units: int


@dataclass(frozen=True)
class RowTiling:
    """A row reduction's launch. The tensor is viewed as [outer, row_length, inner] around the axis (inner == 1: the
    rows are contiguous; inner > 1: a row's elements lie inner apart, loaded as strided DMA blocks, no transpose).
    The work is `units` units, each reduced by one block: a row (inner == 1), or a chunk of slice_length columns of
    one outer index (inner > 1, column_chunks chunks per outer index). A UB tile holds tile_slices slices of
    slice_length elements, slice_stride (32-byte padded) apart:
      one pass:  inner == 1: tile_slices whole rows; inner > 1: all row_length slices of a column chunk;
      two passes (the row does not fit a tile): chunks of the row (inner == 1: slice_length elements; inner > 1:
                 tile_slices slices) are summed first, then the results computed chunk by chunk."""
    op_type: str
    soc: str
    dtype: str
    shape: tuple[int, ...]
    axis: int  # wrapped into [0, rank) (a 0-dimensional tensor is one row of one element)
    outer: int
    row_length: int  # R, the size of the reduced axis
    inner: int
    units: int  # rows (inner == 1) or outer * column_chunks
    column_chunks: int  # column chunks per outer index (1 when inner == 1)
    block_dim: int  # blocks launched
    units_per_block: int
    blocks_with_extra_unit: int  # the last this many blocks get one unit more
    two_pass: bool
    tile_slices: int
    slice_length: int  # elements per slice
    slice_stride: int  # UB elements between slices
    sum_tile_elems: int  # f32 elements of the sum blocks (short rows: a 32-byte block per row, whole groups of 8) or of a
    #   two-pass column chunk's results check (one slice); 0: none
    ub_bytes_used: int  # UB the kernel carves: double-buffered queues, f32 copies, summands, sums, reduce work
    ub_bytes_available: int
    blocks: tuple[RowBlockTiling, ...]

    @property
    def tile_elems(self) -> int:
        """Elements of one UB tile, padding included."""
        return self.tile_slices * self.slice_stride

    def __str__(self) -> str:
        if self.inner == 1:
            unit = "rows"
            tile = (f"chunks of {self.slice_length} elements of a row, two passes" if self.two_pass else
                    f"tiles of {self.tile_slices} rows, one pass")
        else:
            unit = (f"column chunks ({self.column_chunks} per outer index, {self.slice_length} of the {self.inner} "
                    f"columns each)")
            tile = (f"tiles of {self.tile_slices} of the {self.row_length} slices, two passes" if self.two_pass else
                    f"tiles of all {self.row_length} slices, one pass")
        head = (f"{self.op_type} {self.dtype}{list(self.shape)} axis {self.axis} on {self.soc}: [outer, R, inner] = "
                f"[{self.outer}, {self.row_length}, {self.inner}], {self.units} {unit} over {self.block_dim} blocks, "
                f"{tile}, UB {self.ub_bytes_used}/{self.ub_bytes_available} bytes")
        rows = [f"  block {i:>3}: units [{b.first_unit}, {b.first_unit + b.units})" for i, b in enumerate(self.blocks)]
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


def _dims(shape) -> tuple[int, ...]:
    dims = tuple(shape) if isinstance(shape, (tuple, list, torch.Size)) else None
    if dims is None or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in dims):
        raise ValueError(f"shape must be a tuple, list or torch.Size of non-negative ints, got {shape!r}")
    if len(dims) > MAX_RANK:
        raise ValueError(f"shape has rank {len(dims)}; at most {MAX_RANK} dimensions are supported")
    return dims


def _check_size(dims: tuple[int, ...], dtype_name: str) -> int:
    """numel of a tensor of `dims` that launches a kernel (> 0 elements, at most 2**63 - 1 bytes)."""
    numel = math.prod(dims)
    if numel == 0:
        raise ValueError("an empty tensor launches no kernel, so it has no tiling")
    nbytes = numel * getattr(torch, dtype_name).itemsize
    if nbytes > MAX_TENSOR_BYTES:
        raise ValueError(f"shape {dims} of {dtype_name} holds {numel} elements, {nbytes} bytes; a tensor holds "
                         f"at most 2**63 - 1 bytes")
    return numel


def tiling(op: str, shape, dtype, soc: str | None = None, axis: int | None = None) -> Tiling | RowTiling:
    """The tiling of `op` (name or OpType) on a tensor of `shape` (tuple or torch.Size, > 0 elements) and `dtype`
    (torch dtype or its name) for `soc` (default: the SoC the twin runs as): a Tiling for an elementwise operator, a
    RowTiling for a row reduction along `axis` (default: the operator's; wrapped as the operator wraps it,
    IndexError when out of range). `axis` is refused for an elementwise operator, whose split does not follow one."""
    op_type, dtype_name = _op_type(op), _dtype_name(dtype)
    spec = BY_TYPE[op_type]
    if spec.family == "row":
        return _row_tiling(spec, _dims(shape), dtype_name, soc, axis)
    if axis is not None:
        raise ValueError(f"{op}: axis={axis!r} given, but {op_type} is elementwise: its tiling splits numel "
                         f"elements along no axis (axis is a row reduction's)")
    soc = default_soc() if soc is None else check_soc(soc)
    numel = _check_size(_dims(shape), dtype_name)
    r = _C.tiling(op_type, numel, dtype_name, soc)
    return Tiling(op_type=op_type, soc=soc, dtype=dtype_name, numel=numel, block_dim=r["block_dim"],
                  tile_length=r["tile_length"], unit_elems=r["unit_elems"], units_per_block=r["units_per_block"],
                  blocks_with_extra_unit=r["blocks_with_extra_unit"], ub_bytes_used=r["ub_bytes_used"],
                  ub_bytes_available=r["ub_bytes_available"], blocks=tuple(BlockTiling(**b) for b in r["blocks"]))


def _row_tiling(spec: OpSpec, dims: tuple[int, ...], dtype_name: str, soc: str | None, axis) -> RowTiling:
    axis = int_attribute(f"actgrad.tiling({spec.name})", "axis", spec.attrs[0].default if axis is None else axis)
    axis = reduction_axis(spec, axis, len(dims))  # IndexError naming the axis, as the operator's
    soc = default_soc() if soc is None else check_soc(soc)
    _check_size(dims, dtype_name)
    padded = dims or (1,)  # a 0-dimensional tensor: one row of one element
    outer, row_length, inner = math.prod(padded[:axis]), padded[axis], math.prod(padded[axis + 1:])
    r = _C.plan_rows(spec.op_type, outer, row_length, inner, dtype_name, soc)
    return RowTiling(op_type=spec.op_type, soc=soc, dtype=dtype_name, shape=dims, axis=axis, outer=outer,
                     row_length=row_length, inner=inner, units=r["units"], column_chunks=r["column_chunks"],
                     block_dim=r["block_dim"], units_per_block=r["units_per_block"],
                     blocks_with_extra_unit=r["blocks_with_extra_unit"], two_pass=r["two_pass"],
                     tile_slices=r["tile_slices"], slice_length=r["slice_length"], slice_stride=r["slice_stride"],
                     sum_tile_elems=r["sum_tile_elems"], ub_bytes_used=r["ub_bytes_used"],
                     ub_bytes_available=r["ub_bytes_available"],
                     blocks=tuple(RowBlockTiling(**b) for b in r["blocks"]))
