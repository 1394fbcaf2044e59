"""actgrad.tiling() of the elementwise operators: the invariants of the block/tile split, and kernel runs at the
numels where the split changes (one unit, one tile, one block's worth, all cores, several tiles per block with a
tail)."""
import functools
import math

import pytest
import torch

import harness as H
import reference as R
from test_shapes import ATTRS, assert_refused_on_310p, data

# vector cores (GetCoreNumAiv) and UB bytes of each SoC: the platform numbers the twin models
SOC_CORES = {"Ascend910B1": 48, "Ascend910B2": 48, "Ascend910B3": 40, "Ascend910B4": 40, "Ascend910_93": 48,
             "Ascend950": 72}  # Ascend310P is not a kernel target: no tiling (test_tiling_refused_on_310p)
SOC_UB = {"Ascend910B1": 196608, "Ascend910B2": 196608, "Ascend910B3": 196608, "Ascend910B4": 196608,
          "Ascend910_93": 196608, "Ascend950": 253952}
DT = [pytest.param(d, id=H.DTYPE_IDS[d]) for d in H.DTYPES]
NUMELS = [1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 255, 256, 257, 1023, 1024, 1025, 4095, 4096, 4097, 10000, 65537,
          48 * 4096 + 1, 10 ** 6 + 3, 2 ** 24 + 1, 10 ** 8, 2 ** 31 + 7, 2 ** 33 + 5, 3 * 10 ** 11 + 1]
# Not in the tiling record, so named here: tiles are whole granules of kTileGranule elements
# (op_kernel/elementwise_grad_tiling.h), and a block is only started for >= 4 KiB of work (README, "tiling" row:
# "all AIV cores once each gets >= 4 KiB"; kMinBytesPerBlock in op_host/elementwise_tiling.h).
TILE_GRANULE = 256
MIN_BLOCK_BYTES = 4096


@functools.cache
def ub_bytes_per_granule(op_type, dtype, soc) -> int:
    """UB bytes of a one-granule tile of this op/dtype/SoC, as the tiling of one element reports it: the buffers'
    cost comes from a record, not from a copy of each functor's needs."""
    t = H.ag().tiling(op_type, (1,), dtype, soc=soc)
    assert t.tile_length == TILE_GRANULE, t
    return t.ub_bytes_used


def ub_bytes_for_tile(t, dtype, tile: int) -> int:
    """UB bytes the kernel would carve for tiles of `tile` elements: linear in the tile with no constant part
    (double-buffered queues, f32 copies, scratch and masks all scale with it: UbBytesForTile in
    op_host/elementwise_tiling.cpp; check_ub_bytes_used holds every record to this)."""
    return ub_bytes_per_granule(t.op_type, dtype, t.soc) * tile // TILE_GRANULE


def check_ub_bytes_used(t, dtype):
    """The record's UB use is the cost of its tile, so a tile changed without its UB figure (or vice versa) fails."""
    assert t.ub_bytes_used == ub_bytes_for_tile(t, dtype, t.tile_length), (t.tile_length, t.ub_bytes_used)


def check_tile_as_large_as_ub_allows(t, dtype):
    """The tile is the smaller of what the largest block needs and what the UB holds, in whole granules: while a
    block needs more than one tile, one granule more must not fit; otherwise the tile is the fewest granules that
    hold the largest block."""
    largest_block = max(b.length for b in t.blocks)
    if largest_block > t.tile_length:  # limited by the UB, not by the work
        bigger = ub_bytes_for_tile(t, dtype, t.tile_length + TILE_GRANULE)
        assert bigger > t.ub_bytes_available, (
            f"tile {t.tile_length} leaves room for another granule: {bigger} of {t.ub_bytes_available} UB bytes")
    else:
        assert t.tile_length - TILE_GRANULE < largest_block, (
            f"tile {t.tile_length} larger than the largest block ({largest_block}) needs")


def check_blocks_balanced(t):
    """Blocks differ by at most one tile in length and in tile count, so no core runs a whole tile longer."""
    lengths = [b.length for b in t.blocks]
    tiles = [b.tiles for b in t.blocks]
    assert max(lengths) - min(lengths) <= t.tile_length, (min(lengths), max(lengths), t.tile_length)
    assert max(tiles) - min(tiles) <= 1, (min(tiles), max(tiles))


def check_block_count(t, elem_bytes, soc):
    """Every core once each block gets >= MIN_BLOCK_BYTES; below that as many blocks as get that much, at least 1."""
    by_work = max(1, t.numel * elem_bytes // MIN_BLOCK_BYTES)
    assert t.block_dim == min(SOC_CORES[soc], by_work), (
        f"{t.block_dim} blocks for {t.numel * elem_bytes} bytes on {SOC_CORES[soc]} cores")


def check_invariants(t, numel, dtype, soc):
    elem = torch.empty((), dtype=dtype).element_size()
    assert t.numel == numel and t.soc == soc
    assert 1 <= t.block_dim <= SOC_CORES[soc] and len(t.blocks) == t.block_dim
    assert t.unit_elems * elem == 32
    assert t.tile_length > 0 and t.tile_length % TILE_GRANULE == 0
    assert 0 < t.ub_bytes_used <= t.ub_bytes_available <= SOC_UB[soc]
    pos = 0
    lengths = []
    for i, b in enumerate(t.blocks):
        assert b.start == pos, (i, b)
        assert b.start % t.unit_elems == 0  # GM offsets 32-byte aligned
        assert b.length > 0
        assert b.tiles == math.ceil(b.length / t.tile_length)
        assert b.tail == b.length - (b.tiles - 1) * t.tile_length and 0 < b.tail <= t.tile_length
        pos += b.length
        lengths.append(b.length)
    assert pos == numel
    # whole units for every block but the last; sizes differ by at most one unit
    assert all(n % t.unit_elems == 0 for n in lengths[:-1])
    assert max(lengths[:-1] or lengths) - min(lengths[:-1] or lengths) <= t.unit_elems
    assert lengths[-1] <= max(lengths)
    check_blocks_balanced(t)
    check_block_count(t, elem, soc)
    check_ub_bytes_used(t, dtype)
    check_tile_as_large_as_ub_allows(t, dtype)


def numels_to_check(op, dtype, soc):
    """NUMELS plus the numels where this op/dtype/SoC switches from work-limited to UB-limited tiles."""
    return sorted(set(NUMELS) | set(boundary_numels(op, dtype, soc)))


@pytest.mark.parametrize("soc", list(SOC_CORES))
@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("op", R.ELEMENTWISE_OP_NAMES)
def test_tiling_invariants(op, dtype, soc):
    for numel in numels_to_check(op, dtype, soc):
        t = H.ag().tiling(op, (numel,), dtype, soc=soc)
        check_invariants(t, numel, dtype, soc)
    # shape only matters through numel; dtype by name works too
    a = H.ag().tiling(op, (3, 5, 7), dtype, soc=soc)
    b = H.ag().tiling(op, (105,), R.DTYPE_NAMES[dtype], soc=soc)
    assert (a.block_dim, a.tile_length, a.blocks) == (b.block_dim, b.tile_length, b.blocks)


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("op", R.ELEMENTWISE_OP_NAMES)
def test_tiling_refused_on_310p(op, dtype):
    """Ascend310P is not a kernel target (no DataCopyPad), so it has no tiling either (README)."""
    for numel in (1, 4096, 4097, 10 ** 8):
        assert_refused_on_310p(op, lambda: H.ag().tiling(op, (numel,), dtype, soc="Ascend310P"))


def test_tiling_bad_arguments():
    ag = H.ag()
    with pytest.raises(ValueError, match="empty"):
        ag.tiling("hardtanh_grad", (0,), torch.float32)
    with pytest.raises(ValueError, match="no_such_op"):
        ag.tiling("no_such_op", (5,), torch.float32)
    with pytest.raises(ValueError, match="Ascend123"):
        ag.tiling("hardtanh_grad", (5,), torch.float32, soc="Ascend123")
    with pytest.raises((ValueError, TypeError), match="float64|dtype"):
        ag.tiling("hardtanh_grad", (5,), torch.float64)
    for shape in [(-4, -2), (-4,), (2.5, 2), (True, 3), 12, "12", (1,) * 9]:
        with pytest.raises(ValueError, match="shape"):
            ag.tiling("hardtanh_grad", shape, torch.float32)
    with pytest.raises(RuntimeError, match="Ascend310P"):  # as a launch there is refused
        ag.tiling("hardtanh_grad", (4096,), torch.float32, soc="Ascend310P")
    # an elementwise split follows no axis (a row reduction's does: tests/test_tiling_rows.py)
    with pytest.raises(ValueError, match="axis=-1 given, but ActgradHardtanhGrad is elementwise"):
        ag.tiling("hardtanh_grad", (4, 8), torch.float32, axis=-1)
    # OpType accepted as well as the function name
    assert ag.tiling("ActgradHardtanhGrad", (5,), torch.float32).op_type == "ActgradHardtanhGrad"


def boundary_numels(op, dtype, soc=None):
    t = H.ag().tiling(op, (10 ** 8,), dtype, soc=soc)
    T, C, U = t.tile_length, t.block_dim, t.unit_elems
    return sorted({U - 1, U + 1, T - 1, T, T + 1, 2 * T + 3, C * U - 1, C * U + 1, C * T - 1, C * T + U + 1,
                   2 * C * T + 5 * U + 3})


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("op", R.ELEMENTWISE_OP_NAMES)
def test_kernel_at_tiling_boundaries(op, dtype):
    for n in boundary_numels(op, dtype):
        saved, grad = data((n,), dtype, seed=n % 1000)
        got = H.call(op, saved, grad, **ATTRS[op])
        H.check_op(op, got, saved, grad, ATTRS[op], f"{op} n={n}")
        # the whole range is written: in-place must also give the result everywhere
        g2 = grad.clone()
        H.call(op, saved, g2, out=g2, **ATTRS[op])
        assert R.same_values(g2, got).all(), f"in-place differs at n={n}"


@pytest.mark.parametrize("soc", ["Ascend910B3", "Ascend950"])
@pytest.mark.parametrize("dtype", DT)
def test_kernel_at_tiling_boundaries_other_socs(soc, dtype):
    for op in ("hardsigmoid_backward", "elu_backward", "soft_plus_backward"):
        with H.soc(soc):
            for n in boundary_numels(op, dtype, soc)[-3:]:
                saved, grad = data((n,), dtype, seed=n % 1000)
                got = H.call(op, saved, grad, **ATTRS[op])
                H.check_op(op, got, saved, grad, ATTRS[op], f"{op} {soc} n={n}")
