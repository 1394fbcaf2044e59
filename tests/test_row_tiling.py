"""_C.plan_rows (op_host/row_tiling.cpp): the invariants of the row-reduction tiling over the [outer, R, inner]
view, and that the UB the record states is what the kernel carves (the twin's high-water mark)."""
import math

import pytest
import torch

from actgrad import _C

SOC = "Ascend910B2"
SOCS = ["Ascend910B2", "Ascend910B4", "Ascend910_93", "Ascend950"]
SIZE = {"float32": 4, "float16": 2, "bfloat16": 2}
TORCH_DTYPE = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
VIEWS = [(1, 1, 1), (7, 1, 1), (1, 5, 1), (4096, 1024, 1), (1, 4096, 1024), (64, 65536, 1), (1, 64, 65536),
         (65536, 64, 1), (1, 65536, 64), (3, 1, 5), (1, 3, 5), (15, 1, 1), (37, 31, 1), (5, 17, 3), (2, 2 ** 20, 1),
         (1, 2 ** 20 + 3, 3), (1000, 3, 1000), (3, 4095, 7), (3, 4096, 7), (10 ** 6, 7, 1), (2, 100, 10 ** 6)]
OP = "ActgradSoftMaxBackward"


def plan(view, dtype, soc):
    return _C.plan_rows(OP, *view, dtype, soc)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("dtype", list(SIZE))
@pytest.mark.parametrize("view", VIEWS, ids=str)
def test_invariants(view, dtype, soc):
    t = plan(view, dtype, soc)
    outer, r, inner = view
    size = SIZE[dtype]
    assert t["ub_bytes_used"] <= t["ub_bytes_available"]
    assert 1 <= t["block_dim"] <= t["units"]
    # every unit exactly once: the blocks' ranges tile [0, units) in order
    nxt = 0
    for b in t["blocks"]:
        assert b["first_unit"] == nxt and b["units"] >= 1
        nxt += b["units"]
    assert nxt == t["units"]
    counts = [b["units"] for b in t["blocks"]]
    assert max(counts) - min(counts) <= 1
    # slices: padded to 32 bytes of storage, at most one DataCopyPad's 4095 blocks per tile
    assert t["slice_stride"] * size % 32 == 0 and t["slice_stride"] >= t["slice_length"] >= 1
    assert 1 <= t["tile_slices"] <= 4095
    if inner == 1:
        assert t["units"] == outer and t["column_chunks"] == 1
        if t["two_pass"]:  # a whole row does not fit: chunks of it, one per tile
            assert t["tile_slices"] == 1 and t["slice_length"] < r and t["slice_length"] % 64 == 0
        else:
            assert t["slice_length"] == r
    else:
        w = t["slice_length"]
        assert t["column_chunks"] == math.ceil(inner / w) and t["units"] == outer * t["column_chunks"]
        if t["two_pass"]:
            assert t["tile_slices"] < r or r > 4095
        else:
            assert t["tile_slices"] == r


@pytest.mark.parametrize("dtype", list(SIZE))
def test_one_or_two_passes(dtype):
    """Two passes exactly where one tile cannot hold a row (or, for columns, all R slices of a 32-element chunk)."""
    budget = plan((1, 1, 1), dtype, "Ascend910B2")["ub_bytes_available"]
    # queues, widened copies and summands (RowUbBytesUsed): a tile that holds only a few rows applies their sums as
    # scalars, with no broadcast sum tile
    per_elem = 28
    for r in (1, 100, 5000, 5800, 6000, 6600, 6800, 10 ** 5, 2 ** 20):
        t = plan((3, r, 1), dtype, "Ascend910B2")
        fits = math.ceil(r * SIZE[dtype] / 32) * 32 // SIZE[dtype] * per_elem < budget - 64
        assert t["two_pass"] == (not fits), (r, t)
    assert not plan((1, 64, 65536), dtype, "Ascend910B2")["two_pass"]
    assert plan((1, 65536, 64), dtype, "Ascend910B2")["two_pass"]


@pytest.mark.parametrize("dtype", list(SIZE))
@pytest.mark.parametrize("view", [(37, 31, 1), (3, 300000, 1), (1, 64, 4096), (1, 9000, 40), (4, 5, 3),
                                  (2000, 200, 1), (96, 120, 1)], ids=str)
def test_ub_used_is_what_the_kernel_carves(view, dtype):
    t = plan(view, dtype, SOC)
    n = math.prod(view)
    x = torch.rand(n, dtype=TORCH_DTYPE[dtype])
    s = _C.launch_rows(OP, x, x.clone(), torch.empty_like(x), *view, SOC, 1, True)
    assert s["block_dim"] == t["block_dim"]
    assert max(b["ub_high_water"] for b in s["blocks"]) == t["ub_bytes_used"]
    if view[2] == 1 and not t["two_pass"]:  # a sum tile only where the tile spreads its sums with Brcb
        assert t["sum_tile_elems"] == 0 or t["slice_stride"] // 8 < t["tile_slices"]


def test_bad_arguments():
    with pytest.raises(ValueError, match="outer must be > 0"):
        plan((0, 3, 1), "float32", SOC)
    with pytest.raises(ValueError, match="largest tensor"):
        plan((2 ** 40, 2 ** 40, 1), "float32", SOC)
    with pytest.raises(ValueError, match="dtype"):
        plan((1, 3, 1), "float64", SOC)
    with pytest.raises(ValueError, match="unknown actgrad operator"):
        _C.plan_rows("Nope", 1, 3, 1, "float32", SOC)
    with pytest.raises(RuntimeError, match="DataCopyPad"):
        plan((1, 3, 1), "float32", "Ascend310P")


@pytest.mark.parametrize("dtype", list(SIZE))
@pytest.mark.parametrize("r", [3, 31, 64, 65, 120, 185, 200, 224, 300, 370, 1000, 1024, 3000])
def test_one_pass_tile_holds_as_many_rows_as_fit(r, dtype):
    """Rows per tile: the most whose UB fits (28 bytes per tile element, the row sums in 32-byte blocks, ReduceSum's
    work buffer) where the kernel applies the row sums as scalars; where it spreads them with Brcb, i.e. where a row
    has fewer 32-byte f32 blocks than a tile with a 32-byte sum block per row has rows in whole groups of 8, that
    many."""
    t = plan((10 ** 6, r, 1), dtype, SOC)
    stride = math.ceil(r * SIZE[dtype] / 32) * 32 // SIZE[dtype]
    work = math.ceil(math.ceil(r / 64) / 8) * 8 if r > 64 else 8
    used = lambda k, per_row: k * stride * 28 + math.ceil(k / 8) * 8 * per_row + work * 4  # noqa: E731
    fit = max(k for k in range(1, 4096) if used(k, 4) <= t["ub_bytes_available"])
    grouped = max(k for k in range(1, 4096) if used(k, 4 + 32) <= t["ub_bytes_available"]) // 8 * 8
    by_brcb = grouped >= 8 and stride // 8 < grouped
    expected = grouped if by_brcb else fit
    assert t["sum_tile_elems"] == (expected * 8 if by_brcb else 0)
    assert not t["two_pass"] and t["tile_slices"] == expected, (fit, t["tile_slices"])
