"""The row reductions, SoftMaxBackward and LogSoftmaxBackward, at the torch level: values against the float64
formulas (tests/reference.py) within the bound of one f32 evaluation, the row NaN rule, empty tensors, out= and in
place, strided inputs, bad arguments, Meta/FakeTensor, opcheck, torch.compile, vmap, autograd and the ATen
drop-ins _softmax_backward_data / _log_softmax_backward_data."""
import inspect
import math
import re

import numpy as np
import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

import harness as H
import reference as R

actgrad = H.ag()
from actgrad import _C  # noqa: E402
from actgrad.autograd import double_backward_message  # noqa: E402

ROW_OPS = ("soft_max_backward", "log_softmax_backward")
DTYPES = H.DTYPES


def fn(op):
    return getattr(actgrad, op)


# ------------------------------------------------------------------------------------------------ inputs
def logits(shape, gen):
    return 3 * torch.randn(shape, generator=gen, dtype=torch.float64)


def forward_output(op, x, axis):
    """The forward's output of logits x (what dst is in training): softmax or log_softmax in float64."""
    if x.dim() == 0:
        return torch.zeros((), dtype=torch.float64) if op == "log_softmax_backward" else torch.ones((), dtype=x.dtype)
    return torch.softmax(x, axis) if op == "soft_max_backward" else torch.log_softmax(x, axis)


def synthetic_dst(op, shape, gen):
    """benchdnn-like: dst is not a forward output, just values of the forward output's range and beyond."""
    u = torch.rand(shape, generator=gen, dtype=torch.float64)
    return 3 * u - 1 if op == "soft_max_backward" else 12 * u - 10  # [-1, 2) and [-10, 2)


def make_inputs(op, shape, axis, dtype, kind, seed=0):
    """(diff_dst, dst) of `dtype`: dst a softmax/log_softmax output of random logits, or synthetic."""
    gen = torch.Generator().manual_seed(seed)
    dst = forward_output(op, logits(shape, gen), axis) if kind == "forward" else synthetic_dst(op, shape, gen)
    diff_dst = torch.randn(shape, generator=gen, dtype=torch.float64)
    return diff_dst.to(dtype), dst.to(dtype)


# ------------------------------------------------------------------------------------------------ the check
@R.quiet
def check_values(op, got, diff_dst, dst, axis, what="", reference=None):
    """got within the bound of the float64 formula: |got - ref| <= f32 bound (float32), or 1 ulp of the output dtype
    plus the f32 bound (float16/bfloat16: the f32 result rounded once). NaN exactly where the reference is NaN."""
    assert got.dtype == dst.dtype and got.shape == dst.shape, (got.dtype, got.shape, dst.dtype, dst.shape)
    g, d = R.exact(diff_dst), R.exact(dst)
    wrapped = axis % max(dst.dim(), 1)
    ref = (reference or R.ROW_F64[op])(g, d, wrapped).reshape(-1)
    bound = R.row_f32_error_bound(op, g, d, wrapped).reshape(-1)
    if dst.dtype != torch.float32:
        bound = bound + R.ulp_of(R.round_f64(ref, dst.dtype))
    out = R.exact(got).reshape(-1)
    nan = np.isnan(ref)
    bad = (np.isnan(out) != nan) | (~nan & ~(np.abs(out - ref) <= bound))
    if bad.any():
        i = np.flatnonzero(bad)[:6]
        raise AssertionError(f"{op} {what} axis={axis} {dst.dtype} shape={list(dst.shape)}: {int(bad.sum())} of "
                             f"{bad.size} elements out of bound; first at {i.tolist()}: got {out[i].tolist()}, want "
                             f"{ref[i].tolist()}, bound {bound[i].tolist()}")


def run_and_check(op, shape, axis, dtype, kind, seed=0):
    g, d = make_inputs(op, shape, axis, dtype, kind, seed)
    got = fn(op)(g, d, axis)
    check_values(op, got, g, d, axis, kind)
    assert got.is_contiguous()
    return got


# ------------------------------------------------------------------------------------------------ values
SHAPES_AXES = [((4, 7), 1), ((4, 7), -1), ((4, 7), 0), ((4, 7), -2), ((3, 1, 5), 1), ((2, 3, 4, 5), 0),
               ((2, 3, 4, 5), 1), ((2, 3, 4, 5), 2), ((2, 3, 4, 5), 3), ((), 0), ((), -1), ((2, 1, 3, 1, 2, 1, 2, 3), 4)]


@pytest.mark.parametrize("kind", ["forward", "synthetic"])
@pytest.mark.parametrize("dtype", DTYPES, ids=H.DTYPE_IDS.get)
@pytest.mark.parametrize("op", ROW_OPS)
def test_values_of_shapes_and_axes(op, dtype, kind):
    for i, (shape, axis) in enumerate(SHAPES_AXES):
        run_and_check(op, shape, axis, dtype, kind, seed=i)


@pytest.mark.parametrize("kind", ["forward", "synthetic"])
@pytest.mark.parametrize("dtype", DTYPES, ids=H.DTYPE_IDS.get)
@pytest.mark.parametrize("op", ROW_OPS)
def test_values_of_every_row_length_up_to_31(op, dtype, kind):
    for r in range(1, 32):
        run_and_check(op, (5, r), 1, dtype, kind, seed=r)  # inner 1: rows one after the other
        run_and_check(op, (2, r, 3), 1, dtype, kind, seed=100 + r)  # inner 3: a row is strided by 3


@pytest.mark.parametrize("dtype", DTYPES, ids=H.DTYPE_IDS.get)
@pytest.mark.parametrize("op", ROW_OPS)
def test_values_of_long_rows(op, dtype):
    run_and_check(op, (2, 70000), 1, dtype, "forward", seed=3)
    run_and_check(op, (2, 70000), -1, dtype, "synthetic", seed=4)
    run_and_check(op, (3, 5000, 2), 1, dtype, "synthetic", seed=5)  # long strided rows


@pytest.mark.parametrize("op", ROW_OPS)
def test_values_of_a_row_of_a_million(op):
    """A row longer than UB holds: the kernel sums it chunk by chunk first (two passes)."""
    for dtype in ("float32", "bfloat16"):
        assert actgrad.tiling(op, (1, 1 << 20), dtype, axis=1).two_pass
    run_and_check(op, (1, 1 << 20), 1, torch.float32, "forward", seed=6)
    run_and_check(op, (1 << 20,), 0, torch.bfloat16, "synthetic", seed=7)


@pytest.mark.parametrize("op", ROW_OPS)
def test_the_bound_rejects_a_wrong_formula(op):
    """The check is not vacuous: the right result fails against a slightly wrong formula, the row sum off by 2**-10
    relative in float32, by 2**-6 in bfloat16 (whose results are 2**-8 apart)."""
    def perturbed(relative):
        def reference(g, d, axis):
            # dst*(g - s') or g - exp(dst)*s' with s' = s*(1 + relative), written through the true formula
            s = ((g * d) if op == "soft_max_backward" else g).sum(axis=axis, keepdims=True)
            factor = d if op == "soft_max_backward" else np.exp(d)
            return R.ROW_F64[op](g, d, axis) - factor * s * relative
        return reference

    for dtype, relative in ((torch.float32, 2.0 ** -10), (torch.bfloat16, 2.0 ** -6)):
        g, d = make_inputs(op, (6, 40), 1, dtype, "forward", seed=8)
        got = fn(op)(g, d, 1)
        check_values(op, got, g, d, 1)
        with pytest.raises(AssertionError, match="out of bound"):
            check_values(op, got, g, d, 1, reference=perturbed(relative))


@pytest.mark.parametrize("op", ROW_OPS)
def test_rank_0_is_one_row_of_one_element(op):
    g, d = torch.tensor(0.75), torch.tensor(0.5)
    for axis in (0, -1):
        got = fn(op)(g, d, axis)
        assert got.shape == ()
        check_values(op, got, g, d, axis)
    assert actgrad.soft_max_backward(g, d, 0).item() == 0.5 * (0.75 - 0.75 * 0.5)  # exact in float32


@pytest.mark.parametrize("dtype", DTYPES, ids=H.DTYPE_IDS.get)
def test_log_softmax_of_a_masked_class(dtype):
    """dst = -inf (a class masked out before log_softmax, exp(dst) = 0): the row stays finite, diff_src = diff_dst
    there, as the float64 formula has it."""
    g, d = make_inputs("log_softmax_backward", (3, 9), 1, dtype, "forward", seed=9)
    d[1, 4] = -math.inf
    got = actgrad.log_softmax_backward(g, d, 1)
    check_values("log_softmax_backward", got, g, d, 1)
    assert torch.isfinite(got).all() and got[1, 4] == g[1, 4]


SOCS = ["Ascend910B1", "Ascend910B2", "Ascend910B3", "Ascend910B4", "Ascend910_93", "Ascend950"]


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("op", ROW_OPS)
def test_values_on_every_soc(op, soc):
    """Other core counts and UB sizes split and tile the rows differently."""
    with H.soc(soc):
        for dtype in DTYPES:
            for shape, axis in [((37, 300), 1), ((5, 4000, 3), 1), ((3, 50000), -1), ((64, 40), 0)]:
                run_and_check(op, shape, axis, dtype, "forward", seed=len(soc))


@pytest.mark.parametrize("op", ROW_OPS)
def test_launch_stats_writes_every_element_once(op):
    g, d = make_inputs(op, (48, 500), 1, torch.float32, "forward", seed=16)
    stats = actgrad.launch_stats(op, g, d, 1)
    assert H.bits_equal(stats.out, fn(op)(g, d, 1)) and stats.numel == g.numel()
    assert sum(b.gm_bytes_written for b in stats.blocks) == g.numel() * 4
    assert all(b.ub_high_water > 0 for b in stats.blocks) and len(stats.blocks) == stats.block_dim > 1


@pytest.mark.parametrize("op", ROW_OPS)
def test_twin_launch_runs_the_rows_at_the_axis(op):
    """_C.launch (what the torch kernels call) runs a row operator as _C.launch_rows over [outer, R, inner] of the
    shape at the wrapped axis: the same bits, rank 0 as one row of one element."""
    op_type, soc = R.SPEC.BY_NAME[op].op_type, actgrad.default_soc()
    for shape, axis in [((4, 7), 1), ((4, 7), 0), ((2, 3, 4, 5), 2), ((6,), 0), ((), 0)]:
        g, d = make_inputs(op, shape, axis, torch.float32, "synthetic", seed=17)
        outer, r = math.prod(shape[:axis]), (shape[axis] if shape else 1)
        inner = math.prod(shape[axis + 1:])
        by_axis, by_view = torch.empty_like(g), torch.empty_like(g)
        _C.launch(op_type, g, d, by_axis, [float(axis)], soc)
        _C.launch_rows(op_type, g, d, by_view, outer, r, inner, soc)
        assert H.bits_equal(by_axis, by_view) and H.bits_equal(by_axis, fn(op)(g, d, axis)), shape


# ------------------------------------------------------------------------------------------------ NaN
@pytest.mark.parametrize("where", ["diff_dst", "dst"])
@pytest.mark.parametrize("dtype", DTYPES, ids=H.DTYPE_IDS.get)
@pytest.mark.parametrize("op", ROW_OPS)
def test_nan_anywhere_in_a_row_makes_the_whole_row_nan(op, dtype, where):
    # (shape, axis, index of the NaN): rows of inner 1, columns (axis 0, inner > 1), a middle axis, a long row
    cases = [((4, 7), 1, (2, 5)), ((6, 5), 0, (3, 2)), ((3, 6, 4), 1, (1, 0, 3)), ((3, 6, 4), -3, (2, 5, 1)),
             ((2, 3000), 1, (1, 2999)), ((3, 17), 1, (0, 0))]
    for shape, axis, index in cases:
        g, d = make_inputs(op, shape, axis, dtype, "forward", seed=10)
        (g if where == "diff_dst" else d)[index] = math.nan
        got = fn(op)(g, d, axis)
        check_values(op, got, g, d, axis, f"NaN in {where} at {index}")
        nan = torch.isnan(got)
        row = list(index)
        row[axis] = slice(None)
        assert nan[tuple(row)].all(), (shape, axis, index)
        assert int(nan.sum()) == shape[axis], (shape, axis, index)  # the row alone


# ------------------------------------------------------------------------------------------------ empty tensors
@pytest.mark.parametrize("op", ROW_OPS)
def test_empty_tensors_give_empty_results_without_a_launch(op):
    for shape, axis in [((0, 5), 1), ((5, 0), 1), ((5, 0), 0), ((0,), 0), ((2, 0, 3), -1)]:
        g, d = torch.empty(shape), torch.empty(shape)
        _C.clear_last_launch_stats()
        got = fn(op)(g, d, axis)
        out = torch.empty(shape)
        assert fn(op)(g, d, axis, out=out) is out
        assert got.shape == shape and got.dtype == g.dtype and got.is_contiguous()
        assert _C.last_launch_stats() is None, shape
    with pytest.raises(IndexError, match="axis"):  # the axis is checked before the empty shortcut
        fn(op)(torch.empty(0, 5), torch.empty(0, 5), 2)


# ------------------------------------------------------------------------------------------------ out=, in place
def _bits(t):
    return t.detach().clone().contiguous().view(torch.int16 if t.element_size() == 2 else torch.int32)


@pytest.mark.parametrize("dtype", DTYPES, ids=H.DTYPE_IDS.get)
@pytest.mark.parametrize("op", ROW_OPS)
def test_out_and_in_place_equal_the_functional_result(op, dtype):
    # the last two: rows longer than UB (two passes), strided and not, in place too
    for shape, axis in [((6, 33), 1), ((6, 33), 0), ((2, 5, 3), 1), ((1, 1 << 18), 1), ((2, 100000, 3), 1)]:
        g, d = make_inputs(op, shape, axis, dtype, "synthetic", seed=11)
        g0, d0 = _bits(g), _bits(d)
        want = fn(op)(g, d, axis)
        out = torch.full(shape, 7.0, dtype=dtype)
        assert fn(op)(g, d, axis, out=out) is out and H.bits_equal(out, want)
        out.fill_(7.0)
        assert getattr(torch.ops.actgrad, op).out(g, d, axis, out=out) is None and H.bits_equal(out, want)
        assert torch.equal(_bits(g), g0) and torch.equal(_bits(d), d0)  # inputs never modified
        strided_out = torch.full(shape[::-1], 7.0, dtype=dtype).permute(*reversed(range(len(shape))))
        fn(op)(g, d, axis, out=strided_out)
        assert H.bits_equal(strided_out, want)
        in_place = g.clone()
        assert fn(op)(in_place, d, axis, out=in_place) is in_place and H.bits_equal(in_place, want)
        assert torch.equal(_bits(d), d0)
        into_dst = d.clone()  # out = the saved input: computed beside it, then copied in
        assert fn(op)(g, into_dst, axis, out=into_dst) is into_dst and H.bits_equal(into_dst, want)


@pytest.mark.parametrize("op", ROW_OPS)
def test_bad_out_raises_naming_out_and_leaves_it_untouched(op):
    g, d = make_inputs(op, (4, 8), 1, torch.float32, "forward")
    for out, match in [(torch.full((32,), 7.0), r"\bout\b.*shape"), (torch.full((4, 9), 7.0), r"\bout\b.*shape"),
                       (torch.full((4, 8), 7.0, dtype=torch.float16), r"\bout\b.*dtype"),
                       (torch.full((4, 8), 7.0, dtype=torch.float64), r"\bout\b.*dtype")]:
        before = out.clone()
        with pytest.raises(RuntimeError, match=match):
            fn(op)(g, d, 1, out=out)
        assert torch.equal(out, before)
    out = torch.full((4, 8), 7.0)
    with pytest.raises(IndexError, match="axis"):  # any error: nothing written
        fn(op)(g, d, 2, out=out)
    assert bool((out == 7.0).all())


# ------------------------------------------------------------------------------------------------ strided inputs
@pytest.mark.parametrize("dtype", DTYPES, ids=H.DTYPE_IDS.get)
@pytest.mark.parametrize("op", ROW_OPS)
def test_strided_inputs_give_the_same_values_and_a_contiguous_result(op, dtype):
    gen = torch.Generator().manual_seed(12)
    base_g, base_d = (torch.randn(9, 20, generator=gen).to(dtype) for _ in range(2))
    views = {
        "transposed": lambda t: t.t(),  # [20, 9]
        "sliced": lambda t: t[1:8, ::3],  # [7, 7], step 3
        "expanded": lambda t: t[:1].expand(4, 20),  # stride 0
    }
    for name, view in views.items():
        g, d = view(base_g), view(base_d)
        for axis in (0, 1, -1):
            got = fn(op)(g, d, axis)
            assert got.is_contiguous(), name
            assert H.bits_equal(got, fn(op)(g.contiguous(), d.contiguous(), axis)), (name, axis)
            check_values(op, got, g, d, axis, name)


# ------------------------------------------------------------------------------------------------ bad arguments
def _aten_range(shape):
    with pytest.raises(IndexError) as error:
        torch.ops.aten._softmax_backward_data(torch.ones(shape), torch.ones(shape), 99, torch.float32)
    return re.search(r"expected to be in range of \[-?\d+, -?\d+\]", str(error.value)).group(0)


@pytest.mark.parametrize("device", ["cpu", "meta"])
@pytest.mark.parametrize("op", ROW_OPS)
def test_axis_out_of_range_is_an_index_error_with_atens_range(op, device):
    for shape, axes in [((4, 7), (2, -3, 100)), ((), (1, -2)), ((2, 3, 4), (3, -4))]:
        g, d = torch.ones(shape, device=device), torch.ones(shape, device=device)
        for axis in axes:
            for call in (lambda: fn(op)(g, d, axis), lambda: getattr(torch.ops.actgrad, op)(g, d, axis),
                         lambda: fn(op)(g, d, axis, out=torch.empty_like(g))):
                with pytest.raises(IndexError, match=r"\baxis\b") as error:
                    call()
                assert _aten_range(shape) in str(error.value), str(error.value)


@pytest.mark.parametrize("op", ROW_OPS)
def test_axis_of_another_type_is_a_type_error_naming_it(op):
    g, d = torch.ones(4, 7), torch.ones(4, 7)
    for axis in (1.0, True, "1", None, torch.tensor(1)):
        with pytest.raises(TypeError, match=r"\baxis must be an int"):
            fn(op)(g, d, axis)
        with pytest.raises(TypeError, match=r"\baxis must be an int"):
            fn(op)(g, d, axis=axis)
    assert H.bits_equal(fn(op)(g, d, np.int64(1)), fn(op)(g, d, 1))  # an integral NumPy scalar is an int


# ------------------------------------------------------------------------------------------------ Meta, FakeTensor
@pytest.mark.parametrize("op", ROW_OPS)
def test_meta_and_fake_tensors_give_a_contiguous_result(op):
    for device_kind in ("meta", "fake"):
        for shape, axis, permute in [((4, 7), 1, (1, 0)), ((2, 3, 5), -1, (2, 0, 1)), ((), 0, ())]:
            real = torch.randn(shape).permute(*permute) if permute else torch.randn(shape)  # non-contiguous
            if device_kind == "meta":
                g, d = real.to("meta"), real.to("meta")
                got = fn(op)(g, d, axis)
                out = fn(op)(g, d, axis, out=torch.empty(real.shape, device="meta"))
            else:
                with FakeTensorMode() as mode:
                    g, d = mode.from_tensor(real), mode.from_tensor(real)
                    got = fn(op)(g, d, axis)
                    out = fn(op)(g, d, axis, out=torch.empty(real.shape))
            assert got.shape == real.shape and got.dtype == real.dtype
            assert got.stride() == torch.empty(real.shape).stride()
            assert out.shape == real.shape


@pytest.mark.parametrize("dtype", DTYPES, ids=H.DTYPE_IDS.get)
@pytest.mark.parametrize("op", ROW_OPS)
def test_opcheck(op, dtype):
    g, d = make_inputs(op, (3, 10), 1, dtype, "forward")
    packet = getattr(torch.ops.actgrad, op)
    for axis in (1, 0, -1):
        torch.library.opcheck(packet.default, (g, d, axis))
        torch.library.opcheck(packet.out, (g, d, axis), {"out": torch.empty_like(g)})


def both_ops(g1, d1, g2, d2):
    return actgrad.soft_max_backward(g1, d1, 1), actgrad.log_softmax_backward(g2, d2, -1)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_compile_fullgraph(backend):
    torch._dynamo.reset()
    compiled = torch.compile(both_ops, fullgraph=True, backend=backend)
    for shape in [(4, 33), (3, 7, 2)]:  # the second shape recompiles or runs the dynamic graph
        g1, d1 = make_inputs("soft_max_backward", shape, 1, torch.float32, "forward")
        g2, d2 = make_inputs("log_softmax_backward", shape, -1, torch.float32, "forward")
        got, want = compiled(g1, d1, g2, d2), both_ops(g1, d1, g2, d2)
        assert all(H.bits_equal(a, b) for a, b in zip(got, want))


# ------------------------------------------------------------------------------------------------ vmap
@pytest.fixture
def no_vmap_fallback():
    was = torch._C._functorch._is_vmap_fallback_enabled()
    torch._C._functorch._set_vmap_fallback_enabled(False)  # a missing rule is an error, not a slow path
    yield
    torch._C._functorch._set_vmap_fallback_enabled(was)


def _loop(f, in_dims, *args):
    size = next(a.shape[dim] for a, dim in zip(args, in_dims) if dim is not None)
    return torch.stack([f(*(a if dim is None else a.select(dim, i) for a, dim in zip(args, in_dims)))
                        for i in range(size)])


def _batched(sample_shape, batch, dim, gen):
    if dim is None:
        return torch.randn(sample_shape, generator=gen)
    return torch.randn(batch, *sample_shape, generator=gen).movedim(0, dim)


@pytest.mark.parametrize("in_dims", [(0, 0), (1, 1), (2, 0), (-1, None), (None, 1)], ids=str)
@pytest.mark.parametrize("op", ROW_OPS)
def test_vmap_moves_the_axis_past_the_batch(no_vmap_fallback, op, in_dims):
    gen = torch.Generator().manual_seed(13)
    for axis in (0, 1, -1, -2):
        g, d = (_batched((3, 5), 4, dim, gen) for dim in in_dims)
        one = lambda a, b: fn(op)(a, b, axis)  # noqa: E731
        got = torch.vmap(one, in_dims=in_dims)(g, d)
        assert H.bits_equal(got, _loop(one, in_dims, g, d)), axis


@pytest.mark.parametrize("op", ROW_OPS)
def test_vmap_nested_out_and_rank_8_samples(no_vmap_fallback, op):
    gen = torch.Generator().manual_seed(14)
    g, d = torch.randn(2, 3, 4, 5, generator=gen), torch.randn(3, 2, 4, 5, generator=gen)
    one = lambda a, b: fn(op)(a, b, -2)  # noqa: E731
    got = torch.vmap(torch.vmap(one, in_dims=(1, 0)), in_dims=(3, 3))(g, d)
    want = torch.stack([_loop(one, (1, 0), g[..., i], d[..., i]) for i in range(5)])
    assert H.bits_equal(got, want)
    out = torch.full((4, 3, 5), 7.0)
    g3, d3 = torch.randn(4, 3, 5, generator=gen), torch.randn(4, 3, 5, generator=gen)
    torch.vmap(lambda a, b, o: fn(op)(a, b, 0, out=o), in_dims=(0, 0, 0))(g3, d3, out)
    assert H.bits_equal(out, _loop(lambda a, b: fn(op)(a, b, 0), (0, 0), g3, d3))
    # rank-8 samples: the batch is merged into the first sample dimension, except when that is the axis
    g8, d8 = torch.randn(3, 2, 1, 2, 1, 2, 1, 2, 3, generator=gen), torch.randn(3, 2, 1, 2, 1, 2, 1, 2, 3, generator=gen)
    for axis in (0, 7, -1, 3):
        one8 = lambda a, b: fn(op)(a, b, axis)  # noqa: E731
        assert H.bits_equal(torch.vmap(one8)(g8, d8), _loop(one8, (0, 0), g8, d8)), axis
    with pytest.raises(IndexError, match=r"\baxis\b"):  # checked per sample, as the loop would
        torch.vmap(lambda a, b: fn(op)(a, b, 2))(g3, d3)


# ------------------------------------------------------------------------------------------------ autograd
@pytest.mark.parametrize("op", ROW_OPS)
def test_double_backward_is_not_implemented(op):
    g, d = make_inputs(op, (3, 6), 1, torch.float32, "forward")
    g.requires_grad_(True)
    got = fn(op)(g, d, 1)
    assert got.requires_grad and H.bits_equal(got.detach(), fn(op)(g.detach(), d, 1))
    with pytest.raises(NotImplementedError, match=re.escape(double_backward_message(op))):
        got.sum().backward()
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic differentiation"):
        fn(op)(g, d, 1, out=torch.empty(3, 6))


# ------------------------------------------------------------------------------------------------ ATen drop-ins
DROP_INS = [("_softmax_backward_data", "soft_max_backward", torch.softmax),
            ("_log_softmax_backward_data", "log_softmax_backward", torch.log_softmax)]


@pytest.mark.parametrize("name,op,forward", DROP_INS, ids=[d[0] for d in DROP_INS])
def test_drop_in_signature_is_atens(name, op, forward):
    schema = getattr(torch.ops.aten, name).default._schema
    assert list(inspect.signature(getattr(actgrad.aten, name)).parameters) == [a.name for a in schema.arguments]


@pytest.mark.parametrize("dtype", DTYPES, ids=H.DTYPE_IDS.get)
@pytest.mark.parametrize("name,op,forward", DROP_INS, ids=[d[0] for d in DROP_INS])
def test_drop_in_values_are_atens(name, op, forward, dtype):
    """On real forward outputs ATen's CPU kernel (f32 accumulation too) and actgrad differ only by the order of the
    f32 sums: at most twice the f32 bound, plus 2 ulps of the output dtype for float16/bfloat16."""
    gen = torch.Generator().manual_seed(15)
    for shape, dim in [((8, 129), 1), ((8, 129), 0), ((4, 6, 10), -2), ((2, 3000), -1)]:
        dst = forward(3 * torch.randn(shape, generator=gen), dim).to(dtype)
        grad = torch.randn(shape, generator=gen).to(dtype)
        got = getattr(actgrad.aten, name)(grad, dst, dim, dtype)
        want = getattr(torch.ops.aten, name)(grad, dst, dim, dtype)
        assert got.dtype == want.dtype == dtype and got.is_contiguous()
        bound = 2 * R.row_f32_error_bound(op, R.exact(grad), R.exact(dst), dim % dst.dim()).reshape(-1)
        if dtype != torch.float32:
            bound = bound + 2 * R.ulp_of(want)
        err = np.abs(R.exact(got) - R.exact(want)).reshape(-1)
        assert (err <= bound).all(), (shape, dim, float(err.max()))


@pytest.mark.parametrize("name,op,forward", DROP_INS, ids=[d[0] for d in DROP_INS])
def test_drop_in_dim_and_input_dtype_rules(name, op, forward):
    drop_in, theirs = getattr(actgrad.aten, name), getattr(torch.ops.aten, name)
    grad, dst = torch.randn(4, 7), forward(torch.randn(4, 7), 1)
    for dim in (2, -3):  # IndexError, as ATen's dim wrapping
        with pytest.raises(IndexError):
            theirs(grad, dst, dim, torch.float32)
        with pytest.raises(IndexError, match=re.escape("[-2, 1]")):
            drop_in(grad, dst, dim, torch.float32)
    assert H.bits_equal(drop_in(grad, dst, -1, torch.float32), drop_in(grad, dst, 1, torch.float32))
    # a float32 grad_output for a float16 forward input: ATen's CPU kernels refuse it, and so does the drop-in
    with pytest.raises(RuntimeError):
        theirs(grad, dst, 1, torch.float16)
    with pytest.raises(RuntimeError, match="input_dtype"):
        drop_in(grad, dst, 1, torch.float16)
    # any other input_dtype is ignored, as ATen's CPU kernels ignore it
    want = drop_in(grad, dst, 1, torch.float32)
    for input_dtype in (torch.float64, torch.bfloat16, torch.int32):
        assert H.bits_equal(drop_in(grad, dst, 1, input_dtype), want), input_dtype
    half = grad.half(), dst.half()
    assert H.bits_equal(drop_in(*half, 1, torch.float16), drop_in(*half, 1, torch.float32))
    for bad in ("float32", None, 1, torch.float32.itemsize):
        with pytest.raises(TypeError, match="input_dtype"):
            drop_in(grad, dst, 1, bad)
    for bad in (1.0, True, "1"):
        with pytest.raises(TypeError, match=r"\bdim\b"):
            drop_in(grad, dst, bad, torch.float32)
