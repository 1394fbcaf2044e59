"""The row-reduction grad kernels (row_grad.h: SoftMaxBackward, LogSoftmaxBackward) through _C.launch_rows, against
float64 references (tests/reference.py, ROW_F64) within the bound of one f32 evaluation: every layout the tiling
picks (rows per tile, two-pass long rows, column chunks in one and two passes), f32/f16/bf16, the NaN rule and
in-place launches."""
import math

import pytest
import torch

from actgrad import _C

import reference as R

DTYPES = [torch.float32, torch.float16, torch.bfloat16]
DT_IDS = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16"}
OPS = list(R.ROW_OP_NAMES)
SOC = "Ascend910B2"


def view3(shape, axis):
    """The [outer, R, inner] view of a contiguous tensor of `shape` reduced over `axis`."""
    axis %= len(shape)
    return math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1:])


def launch(op, diff_dst, dst, axis, out=None):
    """The kernel's diff_src (a new tensor, or `out`)."""
    out = torch.empty_like(diff_dst) if out is None else out
    _C.launch_rows(R.SPEC.BY_NAME[op].op_type, diff_dst, dst, out, *view3(tuple(diff_dst.shape), axis), SOC)
    return out


def reference(op, diff_dst, dst, axis):
    """(diff_src in float64, the f32 error bound of each element) as tensors."""
    g, d = R.exact(diff_dst), R.exact(dst)
    axis %= diff_dst.dim()
    return torch.from_numpy(R.ROW_F64[op](g, d, axis)), torch.from_numpy(R.row_f32_error_bound(op, g, d, axis))


def inputs(op, shape, axis, dtype, kind, seed=0):
    """(diff_dst, dst) in `dtype`: 'like' a real softmax/log-softmax output, or 'synthetic' (any dst, as benchdnn
    feeds)."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g, dtype=torch.float64) * 2
    if kind == "like":
        dst = torch.softmax(x, axis) if op == "soft_max_backward" else torch.log_softmax(x, axis)
    else:
        dst = x / 2
    dd = torch.randn(shape, generator=g, dtype=torch.float64)
    return dd.to(dtype), dst.to(dtype)


def ulp(v, dtype):
    """The spacing of `dtype` at |v| (v float64, already a `dtype` value), as float64."""
    a = v.abs().to(dtype)
    return (torch.nextafter(a, torch.full_like(a, math.inf)).double() - a.double())


def check(op, dd, d, axis, out=None):
    got = launch(op, dd, d, axis, out=out)
    want, bound = reference(op, dd, d, axis)
    g = got.double()
    assert torch.equal(g.isnan(), want.isnan()), (
        f"NaN where the reference has none, or the reverse: {int((g.isnan() != want.isnan()).sum())} elements")
    ok = ~want.isnan()
    if dd.dtype == torch.float32:
        tol = bound + ulp(want, torch.float32) / 2
        err = (g - want).abs()
    else:  # within 1 ulp of the float64 value rounded once, plus what the f32 sum may be off by
        rounded = want.to(dd.dtype).double()
        tol = ulp(rounded, dd.dtype) + bound
        err = (g - rounded).abs()
    bad = ok & ~((err <= tol) | (g == want if dd.dtype == torch.float32 else g == rounded))  # equal infinities
    if bad.any():
        i = bad.nonzero()[0].tolist()
        pytest.fail(f"{int(bad.sum())} elements off, first at {i}: got {g[tuple(i)].item()!r} want "
                    f"{want[tuple(i)].item()!r} tol {tol[tuple(i)].item()!r}")
    return got


SHAPES = [  # (shape, axis): the layouts and sizes the brief names
    ((4096, 1024), -1), ((4096, 1024), 0), ((64, 65536), -1), ((64, 65536), 0), ((65536, 64), -1),
    ((65536, 64), 0), ((3, 1, 5), 0), ((3, 1, 5), 1), ((3, 1, 5), 2),
]


@pytest.mark.parametrize("dtype", DTYPES, ids=DT_IDS.get)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("shape,axis", SHAPES, ids=[f"{s}-{a}" for s, a in SHAPES])
def test_shapes(op, dtype, shape, axis):
    for kind in ("like", "synthetic"):
        check(op, *inputs(op, shape, axis, dtype, kind), axis)


@pytest.mark.parametrize("dtype", DTYPES, ids=DT_IDS.get)
@pytest.mark.parametrize("op", OPS)
def test_short_rows(op, dtype):
    """R = 1..31 (not multiples of 8 or 16): rows padded in UB, one WholeReduceSum repeat per row; and the same
    lengths across inner > 1 columns."""
    for r in range(1, 32):
        for shape, axis in (((37, r), 1), ((5, r, 3), 1), ((2, r, 19), 1)):
            check(op, *inputs(op, shape, axis, dtype, "like", seed=r), axis)


@pytest.mark.parametrize("dtype", DTYPES, ids=DT_IDS.get)
@pytest.mark.parametrize("op", OPS)
def test_row_lengths_around_the_repeat(op, dtype):
    """Rows of 63..65 (WholeReduceSum vs ReduceSum) and 1000 elements, columns of 100 slices; rows of 200, whose
    tiles (33 float32 rows) are too small for Brcb once a sum tile is carved and take scalar sums although they have
    more rows than a row has 32-byte blocks."""
    for shape, axis in (((9, 63), 1), ((9, 64), 1), ((9, 65), 1), ((5, 1000), 1), ((100, 7), 0), ((3, 100, 40), 1),
                        ((2000, 200), 1)):
        check(op, *inputs(op, shape, axis, dtype, "like"), axis)


@pytest.mark.parametrize("dtype", DTYPES, ids=DT_IDS.get)
@pytest.mark.parametrize("op", OPS)
def test_million_element_row(op, dtype):
    """Rows longer than UB: two passes (chunk sums, then the results); 2**20 + 3 leaves a ragged last chunk."""
    for shape, axis in (((1, 2 ** 20), 1), ((2, 2 ** 20 + 3), 1), ((2 ** 20 + 3, 3), 0)):
        check(op, *inputs(op, shape, axis, dtype, "like"), axis)


@pytest.mark.parametrize("dtype", DTYPES, ids=DT_IDS.get)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("shape,axis", [((8, 100), 1), ((100, 8), 0), ((3, 300000), 1), ((5, 9000, 4), 1)],
                         ids=["rows", "columns", "two-pass-rows", "two-pass-columns"])
@pytest.mark.parametrize("which", ["diff_dst", "dst"])
def test_nan_poisons_its_row(op, dtype, shape, axis, which):
    dd, d = inputs(op, shape, axis, dtype, "like")
    t = dd if which == "diff_dst" else d
    idx = [0] * len(shape)
    idx[axis] = shape[axis] // 2
    idx[0 if axis != 0 else -1] = 1  # row 1
    t[tuple(idx)] = math.nan
    got = check(op, dd, d, axis)
    row_nan = got.isnan().all(axis)
    assert row_nan.sum() == 1 and not got.isnan().sum() > shape[axis], row_nan.nonzero()


@pytest.mark.parametrize("op", OPS)
def test_infinities(op):
    """log-softmax's masked classes (dst = -inf) keep their row finite; dst = +inf poisons the row (NaN rule);
    softmax rows with an infinite diff_dst give NaN through inf*0 or inf-inf, as the float64 formula does."""
    dd, d = inputs(op, (6, 40), 1, torch.float32, "like")
    if op == "log_softmax_backward":
        d[0, 3] = -math.inf
        d[1, 5] = math.inf
    else:
        dd[2, 7] = math.inf
    got = check(op, dd, d, 1)
    if op == "log_softmax_backward":
        assert got[0].isfinite().all() and got[1].isnan().all()


def bits(t):
    return t.view(torch.int16 if t.dtype != torch.float32 else torch.int32)


@pytest.mark.parametrize("dtype", DTYPES, ids=DT_IDS.get)
@pytest.mark.parametrize("shape,axis", [((3, 300000), 1), ((5, 9000, 4), 1)], ids=["rows", "columns"])
@pytest.mark.parametrize("case", ["dst_inf", "dst_overflows", "diff_dst_inf", "masked"])
def test_two_pass_log_softmax_guard(dtype, shape, axis, case):
    """Two-pass log-softmax sums diff_dst alone and checks dst only where a result is not finite (row_grad.h,
    GuardRow / GuardColumns): a dst that poisons its row late in it (+inf, or 89 whose exp overflows f32) still makes
    that whole row NaN, in place too, where earlier chunks were already written; an infinite diff_dst or a masked
    class (dst = -inf) leaves every row as the formula gives it. In columns only the poisoned column turns NaN."""
    op = "log_softmax_backward"
    dd, d = inputs(op, shape, axis, dtype, "like")
    last = [1] + [shape[axis] - 1] + ([2] if len(shape) == 3 else [])  # row 1 (column 2), at the axis' end
    if case == "dst_inf":
        d[tuple(last)] = math.inf
    elif case == "dst_overflows":
        d[tuple(last)] = 89.0
    elif case == "diff_dst_inf":
        dd[tuple(last)] = math.inf
        d[tuple([1, 7] + last[2:])] = -math.inf
    else:
        d[tuple([1, 7] + last[2:])] = -math.inf
    want = check(op, dd.clone(), d, axis)
    poisoned = want.isnan().all(axis)
    assert int(poisoned.sum()) == (1 if case.startswith("dst_") else 0), poisoned.nonzero()
    if case == "masked":
        assert want.isfinite().all()
    got = launch(op, dd, d, axis, out=dd)
    assert torch.equal(bits(got), bits(want))


@pytest.mark.parametrize("dtype", DTYPES, ids=DT_IDS.get)
def test_two_pass_log_softmax_guard_placement(dtype):
    """The guard where it is easy to get wrong: a poisoned row that is not the last of its block (rows of 20000, two or
    three per block), whose neighbours keep their values; columns past the first column chunk (inner = 200: chunks of
    64 columns in float32, of 128 in 16 bits), two adjacent (one run of the rewrite) in their first slice and one apart
    in the middle; and a whole outer index of NaN dst. In place throughout."""
    op = "log_softmax_backward"
    cases = [((100, 20000), 1, [(0, 5)]),
             ((2, 9000, 200), 1, [(1, 0, 150), (1, 0, 151), (1, 4000, 190)]),
             ((3, 9000, 100), 1, None)]
    for shape, axis, poison in cases:
        dd, d = inputs(op, shape, axis, dtype, "like")
        if poison is None:
            d[1] = math.nan
        else:
            for idx in poison:
                d[idx] = math.inf
        want = check(op, dd.clone(), d, axis)
        assert int(want.isnan().all(axis).sum()) == (len(poison) if poison else shape[2])
        got = launch(op, dd, d, axis, out=dd)
        assert torch.equal(bits(got), bits(want))


@pytest.mark.parametrize("shape,axis", [((3, 300000), 1), ((5, 9000, 4), 1)], ids=["rows", "columns"])
def test_two_pass_log_softmax_keeps_negative_zeros(shape, axis):
    """diff_dst of -0 everywhere: the row's sum is +0 (it starts from +0), so every result is -0 - exp(dst)*0 = -0,
    as when the first pass added 0*exp(dst) into the sum."""
    op = "log_softmax_backward"
    _, d = inputs(op, shape, axis, torch.float32, "like")
    got = launch(op, torch.full(shape, -0.0), d, axis)
    assert (got == 0).all() and got.signbit().all()


@pytest.mark.parametrize("dtype", DTYPES, ids=DT_IDS.get)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("shape,axis", [((50, 33), 1), ((1, 300001), 1), ((40, 7, 9), 1), ((70000, 3), 0)])
def test_in_place_into_diff_dst(op, dtype, shape, axis):
    dd, d = inputs(op, shape, axis, dtype, "like")
    want = launch(op, dd, d, axis)
    got = launch(op, dd, d, axis, out=dd)
    assert got.data_ptr() == dd.data_ptr() and torch.equal(bits(got), bits(want))


def test_matches_aten():
    """Against ATen's own kernels (f32, last axis and axis 0): the same operator, not just our formula."""
    for axis in (-1, 0):
        x = torch.randn(300, 257)
        y, g = torch.softmax(x, axis), torch.randn(300, 257)
        torch.testing.assert_close(launch("soft_max_backward", g, y, axis),
                                   torch.ops.aten._softmax_backward_data(g, y, axis, torch.float32))
        y = torch.log_softmax(x, axis)
        torch.testing.assert_close(launch("log_softmax_backward", g, y, axis),
                                   torch.ops.aten._log_softmax_backward_data(g, y, axis, torch.float32))


def test_out_never_shares_dst():
    """In place means into diff_dst: an out that is dst as well is refused (a two-pass log-softmax row may read dst
    after writing its results), in place or not."""
    x = torch.rand(4, 6)
    for dd in (x, torch.rand(4, 6)):
        with pytest.raises(RuntimeError, match="out shares memory with dst"):
            _C.launch_rows("ActgradLogSoftmaxBackward", dd, x, x, 4, 6, 1, SOC)


def test_bad_sizes():
    dd = torch.zeros(4, 6)
    with pytest.raises(ValueError, match="outer \\* rows \\* inner"):
        _C.launch_rows("ActgradSoftMaxBackward", dd, dd.clone(), torch.empty_like(dd), 4, 5, 1, SOC)
    # _C.launch runs a row operator over the view at its axis (attrs[0], wrapped), which it needs
    with pytest.raises(ValueError, match="takes one attribute, the axis"):
        _C.launch("ActgradSoftMaxBackward", dd, dd.clone(), torch.empty_like(dd), [], SOC)
    with pytest.raises(ValueError, match=r"axis must be wrapped into \[0, rank\)"):
        _C.launch("ActgradSoftMaxBackward", dd, dd.clone(), torch.empty_like(dd), [-1.0], SOC)
    with pytest.raises(ValueError, match="is elementwise"):
        _C.launch_rows("ActgradReluBackward", dd, dd.clone(), torch.empty_like(dd), 4, 6, 1, SOC)
