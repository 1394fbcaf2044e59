"""actgrad.tiling() of the row reductions: the [outer, R, inner] view around the wrapped axis, the units that cover
every row (or column chunk) of it exactly once over the blocks, the one-/two-pass choice and the UB figures, checked
against expectations computed here and against the twin's launch of the kernel (its blocks, their GM traffic and UB
high-water mark); the axis default, wrapping and errors as the operators have them."""
import math

import pytest
import torch

import harness as H
import reference as R
from test_tiling import SOC_CORES, SOC_UB

ag = H.ag()
ROW_OPS = R.ROW_OP_NAMES
DT = [pytest.param(d, id=H.DTYPE_IDS[d]) for d in H.DTYPES]
SOCS = ["Ascend910B2", "Ascend910B4", "Ascend950"]
# (shape, axis): contiguous rows (inner 1) short and long, strided rows (inner > 1) narrow and wide, one-element
# rows, a 0-dimensional tensor, rank 8, and rows longer than UB holds (two passes)
SHAPES_AXES = [((37, 31), 1), ((37, 31), 0), ((4096, 1024), -1), ((4096, 1024), 0), ((64, 65536), -1),
               ((65536, 64), 0), ((3, 5, 7), 1), ((3, 5, 7), -3), ((15, 1), 1), ((1,), 0), ((), 0), ((), -1),
               ((2, 1, 3, 1, 2, 1, 2, 3), 4), ((2, 1 << 20), 1), ((1 << 20, 3), 0), ((2, 9000, 40), 1)]


def view(shape, axis):
    """[outer, R, inner] of `shape` around `axis` (wrapped): a 0-dimensional tensor is one row of one element."""
    dims = tuple(shape) or (1,)
    axis %= len(dims)
    return math.prod(dims[:axis]), dims[axis], math.prod(dims[axis + 1:])


def unit_rows(t, unit):
    """The rows (outer index o, inner index i) that unit `unit` holds: row `unit` (inner 1), or the columns of one
    column chunk of one outer index (inner > 1)."""
    if t.inner == 1:
        return [(unit, 0)]
    o, c = divmod(unit, t.column_chunks)
    return [(o, i) for i in range(c * t.slice_length, min((c + 1) * t.slice_length, t.inner))]


def check_report(t, shape, axis, dtype, soc):
    size = torch.empty((), dtype=dtype).element_size()
    outer, r, inner = view(shape, axis)
    assert isinstance(t, ag.RowTiling) and (t.soc, t.dtype, t.shape) == (soc, R.DTYPE_NAMES[dtype], tuple(shape))
    assert t.axis == axis % max(len(shape), 1)
    assert (t.outer, t.row_length, t.inner) == (outer, r, inner)
    # the units: rows, or column chunks of slice_length columns
    if inner == 1:
        assert t.units == outer and t.column_chunks == 1
    else:
        assert t.column_chunks == math.ceil(inner / t.slice_length) and t.units == outer * t.column_chunks
    # the blocks: consecutive ranges of units, at most one per core and per unit, balanced, the extra units on the
    # last blocks
    assert 1 <= t.block_dim == len(t.blocks) <= min(SOC_CORES[soc], t.units)
    counts = [b.units for b in t.blocks]
    assert [b.first_unit for b in t.blocks] == [sum(counts[:i]) for i in range(len(counts))]
    assert sum(counts) == t.units and max(counts) - min(counts) <= 1 and counts == sorted(counts)
    assert counts == [t.units_per_block] * (t.block_dim - t.blocks_with_extra_unit) + \
        [t.units_per_block + 1] * t.blocks_with_extra_unit
    # every row of the view in exactly one unit (checked element by element where that is cheap)
    if outer * inner <= 1 << 16:
        covered = [0] * (outer * inner)
        for unit in range(t.units):
            for o, i in unit_rows(t, unit):
                covered[o * inner + i] += 1
        assert covered == [1] * (outer * inner)
    # the tile: slices padded to 32 bytes; one pass holds whole rows (at most the largest block's) or all R slices
    # of a column chunk, two passes a part of them
    assert t.slice_stride * size % 32 == 0 and t.slice_stride >= t.slice_length >= 1
    assert t.tile_elems == t.tile_slices * t.slice_stride
    if inner == 1 and not t.two_pass:
        assert t.slice_length == r and 1 <= t.tile_slices <= max(counts)
    elif inner == 1:
        assert t.tile_slices == 1 and t.slice_length < r
    elif not t.two_pass:
        assert t.tile_slices == r
    assert 0 < t.ub_bytes_used <= t.ub_bytes_available <= SOC_UB[soc]


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("op", ROW_OPS)
def test_row_tiling_report(op, dtype, soc):
    for shape, axis in SHAPES_AXES:
        check_report(ag.tiling(op, shape, dtype, soc=soc, axis=axis), shape, axis, dtype, soc)


@pytest.mark.parametrize("dtype", DT)
def test_one_or_two_passes_where_the_row_fits_or_not(dtype):
    """A row of 1024 fits a tile (several rows per tile); a row of 2**20 elements does not, in any dtype."""
    short = ag.tiling("soft_max_backward", (4096, 1024), dtype, soc="Ascend910B2", axis=-1)
    long = ag.tiling("soft_max_backward", (2, 1 << 20), dtype, soc="Ascend910B2", axis=-1)
    assert not short.two_pass and short.tile_slices > 1 and short.slice_length == 1024
    assert long.two_pass and long.tile_slices == 1 and long.slice_length < 1 << 20


def bytes_per_tile_elem(size):
    """UB bytes per element of a tile without a sum tile: three double-buffered queues of the storage type, the f32
    copies of a 16-bit tile and the summands."""
    return 3 * 2 * size + (0 if size == 4 else 3 * 4) + 4


def test_two_pass_chunks_carry_no_sum_tile():
    """A row longer than UB is summed chunk by chunk and applied as a scalar: its chunk needs no sum tile."""
    for dtype in H.DTYPES:
        size = torch.empty((), dtype=dtype).element_size()
        t = ag.tiling("soft_max_backward", (2, 1 << 20), dtype, soc="Ascend910B2", axis=-1)
        assert t.two_pass and t.sum_tile_elems == 0 and t.slice_length % 64 == 0
        per_elem = bytes_per_tile_elem(size)
        # one more 64-lane repeat would not fit: its elements, and one f32 in each of the three per-repeat buffers
        # (ReduceSum's work buffer, the two of the results' check)
        assert t.ub_bytes_used + 64 * per_elem + 3 * 4 > t.ub_bytes_available


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("op", ROW_OPS)
@pytest.mark.parametrize("shape,axis", [((37, 31), 1), ((300, 257), 0), ((3, 40, 9), 1), ((2, 300000), 1),
                                        ((5, 9000, 4), 1)], ids=str)
def test_the_report_is_what_the_launch_does(op, dtype, shape, axis):
    """The twin's launch runs the report's blocks, carves its UB (high-water mark), and each block reads both inputs
    of its units' elements (once in one pass; in two, softmax both twice, log-softmax diff_dst twice and dst once, its
    guard not running on these finite inputs; softmax keeps a long row's last chunk in UB for the second pass, so
    that chunk is read once) and writes their results once."""
    t = ag.tiling(op, shape, dtype, axis=axis)
    x = torch.rand(shape).to(dtype)
    stats = ag.launch_stats(op, x, x.clone(), axis)
    size = x.element_size()
    assert stats.block_dim == t.block_dim and max(b.ub_high_water for b in stats.blocks) == t.ub_bytes_used
    for block, launched in zip(t.blocks, stats.blocks):
        units = range(block.first_unit, block.first_unit + block.units)
        elems = t.row_length * sum(len(unit_rows(t, u)) for u in units)
        assert launched.gm_bytes_written == elems * size
        reads = (4 if op == "soft_max_backward" else 3) if t.two_pass else 2
        kept = 0
        if t.two_pass and t.inner == 1 and op == "soft_max_backward":  # per row, both inputs of its last chunk
            last = t.row_length - (t.row_length - 1) // t.slice_length * t.slice_length
            kept = 2 * last * len(units)
        assert launched.gm_bytes_read == (reads * elems - kept) * size, (block, launched)


@pytest.mark.parametrize("op", ROW_OPS)
def test_axis_default_and_wrapping(op):
    spec = R.SPEC.BY_NAME[op]
    shape = (4, 6, 10)
    default = ag.tiling(op, shape, torch.float32)
    assert default.axis == spec.attrs[0].default % 3  # softmax 1, log-softmax -1 (oneDNN Graph's defaults)
    assert default == ag.tiling(op, shape, torch.float32, axis=default.axis - 3)
    for axis in range(-3, 3):
        t = ag.tiling(op, torch.Size(shape), "float32", axis=axis)
        assert t.axis == axis % 3 and (t.outer, t.row_length, t.inner) == view(shape, axis)
    assert ag.tiling(op, (), torch.float32, axis=-1) == ag.tiling(op, (), torch.float32, axis=0)
    # OpType accepted as well as the name
    assert ag.tiling(spec.op_type, shape, torch.float32, axis=1) == ag.tiling(op, shape, torch.float32, axis=1)


@pytest.mark.parametrize("op", ROW_OPS)
def test_axis_out_of_range_is_the_operators_index_error(op):
    for shape, axis in (((4, 6), 2), ((4, 6), -3), ((), 1), ((5,), -2)):
        x = torch.ones(shape)
        with pytest.raises(IndexError) as by_op:
            getattr(ag, op)(x, x, axis)
        with pytest.raises(IndexError, match=f"axis {axis} is out of range") as by_tiling:
            ag.tiling(op, shape, torch.float32, axis=axis)
        assert str(by_tiling.value) == str(by_op.value)


def test_bad_arguments():
    for axis in (1.0, True, "1", [1]):
        with pytest.raises(TypeError, match="axis must be an int"):
            ag.tiling("soft_max_backward", (4, 6), torch.float32, axis=axis)
    with pytest.raises(ValueError, match="axis=0 given, but ActgradHardtanhGrad is elementwise"):
        ag.tiling("hardtanh_grad", (4, 6), torch.float32, axis=0)
    with pytest.raises(ValueError, match="empty"):
        ag.tiling("log_softmax_backward", (4, 0), torch.float32, axis=0)
    with pytest.raises(ValueError, match="shape"):
        ag.tiling("log_softmax_backward", (1,) * 9, torch.float32)
    with pytest.raises(ValueError, match="dtype"):
        ag.tiling("log_softmax_backward", (4, 6), torch.float64)
    with pytest.raises(ValueError, match="Ascend123"):
        ag.tiling("log_softmax_backward", (4, 6), torch.float32, soc="Ascend123")
    with pytest.raises(RuntimeError, match="Ascend310P"):  # no DataCopyPad: no kernel target
        ag.tiling("log_softmax_backward", (4, 6), torch.float32, soc="Ascend310P")
    with pytest.raises(ValueError, match="2\\*\\*63 - 1 bytes"):
        ag.tiling("soft_max_backward", (2 ** 31, 2 ** 31), torch.float32, axis=0)


def test_str_describes_the_split():
    t = ag.tiling("soft_max_backward", (4096, 1024), torch.float16, soc="Ascend910B2", axis=-1)
    text = str(t).splitlines()
    assert text[0] == ("ActgradSoftMaxBackward float16[4096, 1024] axis 1 on Ascend910B2: [outer, R, inner] = "
                       f"[4096, 1024, 1], 4096 rows over {t.block_dim} blocks, tiles of {t.tile_slices} rows, one "
                       f"pass, UB {t.ub_bytes_used}/{t.ub_bytes_available} bytes")
    assert len(text) == 1 + t.block_dim and text[1] == f"  block   0: units [0, {t.blocks[0].units})"
    c = ag.tiling("soft_max_backward", (2, 9000, 40), torch.float32, axis=1)
    columns = str(c).splitlines()[0]
    assert (f"{c.units} column chunks ({c.column_chunks} per outer index, {c.slice_length} of the 40 columns each)"
            in columns)
    assert "two passes" in columns
    assert "two passes" in str(ag.tiling("log_softmax_backward", (2, 1 << 20), torch.float32))
