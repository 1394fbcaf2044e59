"""torch integration of the operators: schemas from the spec, opcheck, torch.compile, Meta/FakeTensor, argument
validation, out=/in-place, the ATen drop-ins, tiling(), SoC selection, and the NPU/graph-mode entry points."""
from __future__ import annotations

import importlib.util
import inspect
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch._subclasses.fake_tensor import FakeTensorMode

import actgrad
import actgrad.aten
from actgrad import graph, npu
from actgrad.schema import SCHEMA_INF
from actgrad.spec import OPS

import harness as H
import reference as R

ROOT = Path(__file__).resolve().parent.parent
DTYPES = (torch.float32, torch.float16, torch.bfloat16)
OP_IDS = [op.name for op in OPS]

# Attribute lists to call each op with, positional in spec order: defaults only (just the required ones, from the
# op's record in tests/refs), then every attribute given, with the record's typical values. A row reduction: the
# last axis (which every shape here has, the 1-dimensional ones included), then the first.
ATTR_SAMPLES = {op.name: [tuple(R.REFS[op.name].required[a.name] for a in op.attrs if a.required),
                          tuple(H.full_attrs(op.name, R.REFS[op.name].typical)[a.name] for a in op.attrs)]
                if op.family == "elementwise" else [(-1,), (0,)]
                for op in OPS}


def packet(op):
    return getattr(torch.ops.actgrad, op.name)


def inputs(op, dtype, shape=(4, 33), seed=0):
    """(in0, in1) in IR order: saved ~ N(0, 2) so every band edge is crossed, grad ~ N(0, 1)."""
    gen = torch.Generator().manual_seed(seed)
    saved = (2 * torch.randn(shape, generator=gen)).to(dtype)
    grad = torch.randn(shape, generator=gen).to(dtype)
    return (saved, grad) if op.saved_index == 0 else (grad, saved)


def expected(op, in0, in1, attrs):
    """The contract's values (tests/reference.py) for the inputs in IR order and positional attributes, and the
    tolerance of each element: for an elementwise op 8 ulps of float32 relative and 1e-6 absolute (the entry points
    must agree with the contract; the value tests hold the exact ulp bounds: bit-exact forms, 1 ulp f16/bf16, 8 ulp
    f32 and 1e-6*|grad| where terms cancel: this catches wrong wiring, not the last ulps); for a row reduction the
    bound of its f32 evaluation plus one ulp of the result (tests/test_softmax_backward.py)."""
    saved, grad = (in0, in1) if op.saved_index == 0 else (in1, in0)
    if op.family == "row":
        axis = (attrs or (op.attrs[0].default,))[0] % max(saved.dim(), 1)
        g, d = R.exact(grad), R.exact(saved)
        want = R.round_f64(R.ROW_F64[op.name](g, d, axis), saved.dtype).reshape(saved.shape)
        tolerance = R.row_f32_error_bound(op.name, g, d, axis).reshape(-1) + R.ulp_of(want)
        return want, torch.from_numpy(tolerance).reshape(saved.shape)
    want = R.expected(op.name, saved, grad, **dict(zip([a.name for a in op.attrs], attrs)))
    return want, 8 * torch.finfo(want.dtype).eps * want.double().abs() + 1e-6


def assert_close_to_contract(got, contract):
    want, tolerance = contract
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape, got.dtype, want.dtype)
    g, w = got.double(), want.double()
    assert torch.equal(g.isnan(), w.isnan()), "NaN where the contract has none, or the reverse"
    bad = ~w.isnan() & ~((g - w).abs() <= tolerance) & (g != w)  # (g != w: equal infinities)
    assert not bad.any(), f"{int(bad.sum())} elements off, e.g. got {g[bad][:4].tolist()} want {w[bad][:4].tolist()}"


# ---------------------------------------------------------------------------------------------------------------
# Schemas and signatures come from the spec


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_functional_schema_matches_spec(op):
    schema = packet(op).default._schema
    args = schema.arguments
    assert [a.name for a in args] == [*op.inputs, *(a.name for a in op.attrs)]
    assert [str(a.type) for a in args] == ["Tensor", "Tensor", *(a.type for a in op.attrs)]
    for arg, attr in zip(args[2:], op.attrs):
        assert arg.has_default_value() == (not attr.required)
        if not attr.required:
            default = arg.default_value
            if attr.type == "float" and abs(default) == SCHEMA_INF:
                default = math.copysign(math.inf, default)
            assert default == attr.default and type(default) is type(attr.default)
    assert [str(r.type) for r in schema.returns] == ["Tensor"]


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_out_schema_adds_a_mutated_keyword_out_and_returns_nothing(op):
    functional, out = packet(op).default._schema, packet(op).out._schema
    assert [a.name for a in out.arguments] == [a.name for a in functional.arguments] + ["out"]
    out_arg = out.arguments[-1]
    assert out_arg.kwarg_only and out_arg.alias_info.is_write
    assert out.returns == []


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_python_function_signature_is_documented_in_the_operator_docs(op):
    signature = inspect.signature(getattr(actgrad, op.name))
    assert list(signature.parameters) == [*op.inputs, *(a.name for a in op.attrs), "out"]
    assert f"actgrad.{op.name}{signature} -> Tensor" in (ROOT / "docs" / "operators.md").read_text()
    assert op.formula in getattr(actgrad, op.name).__doc__


def test_public_api():
    for name in ["hardtanh_grad", "hardsigmoid_backward", "clamp_backward", "elu_backward", "soft_plus_backward",
                 "tiling", "socs", "set_default_soc"]:
        assert name in actgrad.__all__ and callable(getattr(actgrad, name))
    assert inspect.signature(actgrad.hardsigmoid_backward).parameters["alpha"].default == 1.0 / 6.0
    assert inspect.signature(actgrad.soft_plus_backward).parameters["threshold"].default == math.inf


def test_aten_drop_ins_come_with_the_package():
    # a fresh interpreter: this test module's own `import actgrad.aten` must not be what makes it work
    code = ("import actgrad, torch\n"
            "x = torch.tensor([-2.0, 0.5, 2.0]); g = torch.ones(3)\n"
            "print(actgrad.aten.hardtanh_backward(g, x, -1.0, 1.0).tolist())\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[0] == "[0.0, 1.0, 0.0]"


# ---------------------------------------------------------------------------------------------------------------
# opcheck: schema, autograd registration, FakeTensor, AOT dispatch; functional and out, every dtype

OPCHECK_CASES = [(op, dtype, attrs) for op in OPS for dtype in DTYPES for i, attrs in enumerate(ATTR_SAMPLES[op.name])
                 if dtype == torch.float32 or i == 0]


def _case_id(case):
    op, dtype, attrs = case
    return f"{op.name}-{str(dtype).removeprefix('torch.')}-{len(attrs)}attrs"


@pytest.mark.parametrize("case", OPCHECK_CASES, ids=_case_id)
def test_opcheck_functional(case):
    op, dtype, attrs = case
    torch.library.opcheck(packet(op).default, (*inputs(op, dtype), *attrs))


@pytest.mark.parametrize("case", OPCHECK_CASES, ids=_case_id)
def test_opcheck_out(case):
    op, dtype, attrs = case
    in0, in1 = inputs(op, dtype)
    torch.library.opcheck(packet(op).out, (in0, in1, *attrs), {"out": torch.empty_like(in0)})


# ---------------------------------------------------------------------------------------------------------------
# Values through every entry point (the value sweeps live in the value tests; here: the wiring is right)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_public_function_torch_op_and_out_agree_with_the_contract(op, dtype):
    for attrs in ATTR_SAMPLES[op.name]:
        in0, in1 = inputs(op, dtype)
        want = expected(op, in0, in1, attrs)
        keyword = dict(zip([a.name for a in op.attrs], attrs))
        assert_close_to_contract(getattr(actgrad, op.name)(in0, in1, **keyword), want)
        assert_close_to_contract(packet(op)(in0, in1, *attrs), want)
        out = torch.full_like(in0, math.nan)
        assert getattr(actgrad, op.name)(in0, in1, **keyword, out=out) is out
        assert_close_to_contract(out, want)


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_inputs_are_not_modified(op):
    in0, in1 = inputs(op, torch.bfloat16)
    copies = in0.clone(), in1.clone()
    packet(op)(in0, in1, *ATTR_SAMPLES[op.name][0])
    assert torch.equal(in0, copies[0]) and torch.equal(in1, copies[1])


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_non_contiguous_inputs(op):
    attrs = ATTR_SAMPLES[op.name][0]
    in0, in1 = (t.t() for t in inputs(op, torch.float16, shape=(33, 4)))
    assert not in0.is_contiguous()
    got = packet(op)(in0, in1, *attrs)
    assert got.shape == in0.shape
    assert torch.equal(got, packet(op)(in0.contiguous(), in1.contiguous(), *attrs))


@pytest.mark.parametrize("shape", [(), (1,), (2, 1, 3, 1, 2, 1, 2, 3)], ids=str)
def test_ranks_zero_to_eight(shape):
    op = OPS[0]
    in0, in1 = inputs(op, torch.float32, shape=shape)
    got = packet(op)(in0, in1)
    assert got.shape == torch.Size(shape)
    assert_close_to_contract(got, expected(op, in0, in1, ()))


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_empty_tensors_return_empty_without_launching(op, monkeypatch):
    def no_launch(*args, **kwargs):
        raise AssertionError("launched a kernel for an empty tensor")
    monkeypatch.setattr(actgrad._C, "launch", no_launch)
    in0, in1 = inputs(op, torch.float16, shape=(3, 0, 2))
    got = packet(op)(in0, in1, *ATTR_SAMPLES[op.name][0])
    assert got.shape == (3, 0, 2) and got.dtype == torch.float16
    out = torch.empty(3, 0, 2, dtype=torch.float16)
    assert getattr(actgrad, op.name)(in0, in1, *ATTR_SAMPLES[op.name][0], out=out) is out


# ---------------------------------------------------------------------------------------------------------------
# out=: in place into the gradient, non-contiguous out, out overlapping an input


def _grad_of(op, in0, in1):
    return in1 if op.saved_index == 0 else in0


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_out_may_be_the_gradient(op):
    attrs = ATTR_SAMPLES[op.name][1]
    in0, in1 = inputs(op, torch.float32)
    want = expected(op, in0, in1, attrs)
    grad = _grad_of(op, in0, in1)
    address = grad.data_ptr()
    assert packet(op).out(in0, in1, *attrs, out=grad) is None
    assert grad.data_ptr() == address
    assert_close_to_contract(grad, want)


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_out_may_be_the_saved_tensor(op):
    attrs = ATTR_SAMPLES[op.name][1]
    in0, in1 = inputs(op, torch.float32)
    want = expected(op, in0, in1, attrs)
    saved = in0 if op.saved_index == 0 else in1
    packet(op).out(in0, in1, *attrs, out=saved)
    assert_close_to_contract(saved, want)


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_out_partially_overlapping_the_gradient(op):
    # several tiles in every block: a kernel writing straight into out would clobber grad ahead of its reads
    n = 1 << 19
    if op.family == "elementwise":  # (a row reduction's kernel reads a tile before writing it, whatever its tiling)
        t = actgrad.tiling(op.name, (n,), torch.float32)
        assert t.block_dim > 1 and all(b.tiles > 1 for b in t.blocks), t
    attrs = ATTR_SAMPLES[op.name][0]
    gen = torch.Generator().manual_seed(5)
    buffer = torch.randn(n + 1, generator=gen)
    saved = 2 * torch.randn(n, generator=gen)
    grad, out = buffer[:n], buffer[1:]  # out starts one element into grad
    in0, in1 = (saved, grad) if op.saved_index == 0 else (grad, saved)
    want = expected(op, in0, in1, attrs)
    packet(op).out(in0, in1, *attrs, out=out)
    assert_close_to_contract(out, want)


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_non_contiguous_out(op):
    attrs = ATTR_SAMPLES[op.name][0]
    in0, in1 = inputs(op, torch.bfloat16, shape=(4, 6))
    out = torch.zeros(6, 4, dtype=torch.bfloat16).t()
    packet(op).out(in0, in1, *attrs, out=out)
    assert_close_to_contract(out, expected(op, in0, in1, attrs))


# ---------------------------------------------------------------------------------------------------------------
# Validation: clear errors naming the argument, nothing written


def _call(op, in0, in1, out=None):
    attrs = ATTR_SAMPLES[op.name][0]
    return packet(op)(in0, in1, *attrs) if out is None else packet(op).out(in0, in1, *attrs, out=out)


@pytest.mark.parametrize("bad_dtype", [torch.float64, torch.int32, torch.complex64, torch.bool], ids=str)
@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_unsupported_dtype_names_the_argument(op, bad_dtype):
    in0, in1 = inputs(op, torch.float32)
    with pytest.raises(RuntimeError, match=rf"actgrad\.{op.name}: {op.inputs[1]} has dtype {bad_dtype}; "
                                           r"supported dtypes are torch\.float32, torch\.float16, torch\.bfloat16"):
        _call(op, in0, in1.to(bad_dtype))


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_mismatches_are_rejected(op):
    in0, in1 = inputs(op, torch.float32)
    a, b = op.inputs
    with pytest.raises(RuntimeError, match=f"{a} and {b} must have the same dtype, got torch.float32 and torch.float16"):
        _call(op, in0, in1.half())
    with pytest.raises(RuntimeError, match=rf"{a} and {b} must have the same shape, got \[4, 33\] and \[33, 4\]"):
        _call(op, in0, in1.t().contiguous())
    with pytest.raises(RuntimeError, match=f"{a} and {b} must be on the same device, got cpu and meta"):
        _call(op, in0, in1.to("meta"))
    nine = torch.ones([1] * 9)
    with pytest.raises(RuntimeError, match=f"{a} has rank 9; at most 8 dimensions are supported"):
        _call(op, nine, nine)


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_bad_out_is_rejected_and_left_untouched(op):
    in0, in1 = inputs(op, torch.float32)
    for out, message in [(torch.zeros(4, 32), r"out has shape \[4, 32\], expected \[4, 33\]"),
                         (torch.zeros(4, 33, dtype=torch.float16), "out has dtype torch.float16, expected torch.float32"),
                         (torch.zeros(4, 33, device="meta"), "out is on meta, expected cpu")]:
        with pytest.raises(RuntimeError, match=message):
            _call(op, in0, in1, out=out)
        if out.device.type == "cpu":
            assert not out.any()


ATTRIBUTE_ERRORS = [
    ("clamp_backward", (1.0, -1.0), "min"),
    ("elu_backward", (-0.5, True), "alpha"),
    ("hardsigmoid_backward", (0.0, 0.5), "alpha"),
    ("hardsigmoid_backward", (math.inf, 0.5), "alpha"),
    ("hardsigmoid_backward", (0.2, math.nan), "beta"),
    ("hardtanh_grad", (math.nan, 1.0), "min_val"),
    ("soft_plus_backward", (1.0, math.nan), "threshold"),
]


@pytest.mark.parametrize("name,attrs,attr_name", ATTRIBUTE_ERRORS, ids=[f"{n}-{a}" for n, _, a in ATTRIBUTE_ERRORS])
def test_invalid_attributes_raise_value_error_naming_them(name, attrs, attr_name):
    op = actgrad.spec.BY_NAME[name]
    in0, in1 = inputs(op, torch.float32)
    out = torch.zeros_like(in0)
    for call in (lambda: packet(op)(in0, in1, *attrs), lambda: packet(op).out(in0, in1, *attrs, out=out),
                 lambda: packet(op)(in0.to("meta"), in1.to("meta"), *attrs)):
        with pytest.raises(ValueError, match=attr_name):
            call()
    assert not out.any()


def test_hardtanh_accepts_min_above_max_and_gives_zeros():
    op = actgrad.spec.BY_NAME["hardtanh_grad"]
    in0, in1 = inputs(op, torch.float32)
    assert torch.equal(actgrad.hardtanh_grad(in0, in1, 1.0, -1.0), torch.zeros_like(in0))


# ---------------------------------------------------------------------------------------------------------------
# Meta and FakeTensor


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_meta_and_fake_give_the_output_shape_and_dtype(op, dtype):
    attrs = ATTR_SAMPLES[op.name][0]
    in0, in1 = (t.to("meta") for t in inputs(op, dtype, shape=(2, 3, 5)))
    got = packet(op)(in0, in1, *attrs)
    assert (got.device.type, got.shape, got.dtype) == ("meta", (2, 3, 5), dtype)
    out = torch.empty(2, 3, 5, dtype=dtype, device="meta")
    assert getattr(actgrad, op.name)(in0, in1, *attrs, out=out) is out
    with FakeTensorMode() as mode:
        f0, f1 = (mode.from_tensor(t) for t in inputs(op, dtype, shape=(7, 1, 9)))
        fake = getattr(actgrad, op.name)(f0, f1, *attrs)
        assert fake.shape == (7, 1, 9) and fake.dtype == dtype and fake.is_contiguous()


def test_meta_validates_like_cpu():
    op = OPS[0]
    in0, in1 = (t.to("meta") for t in inputs(op, torch.float32))
    with pytest.raises(RuntimeError, match=r"result and grad must have the same shape"):
        packet(op)(in0, in1[:, :3])
    with pytest.raises(RuntimeError, match=r"grad has dtype torch.float64"):
        packet(op)(in0, in1.double())


# ---------------------------------------------------------------------------------------------------------------
# torch.compile


def all_five(x, clamped, elu_out, g):
    # the forward outputs come in as inputs, so the compiled graph holds only actgrad ops and the comparison is exact
    return (actgrad.hardtanh_grad(x, g, -0.5, 0.5),
            actgrad.hardsigmoid_backward(g, x),
            actgrad.clamp_backward(clamped, g, -1.0, 1.0),
            actgrad.elu_backward(elu_out, g, 1.0),
            actgrad.soft_plus_backward(x, g, beta=2.0, threshold=20.0))


def all_five_inputs(*shape):
    x = 2 * torch.randn(*shape)
    return x, x.clamp(-1, 1), F.elu(x), torch.randn(*shape)


def in_place(x, g):
    actgrad.elu_backward(x, g, 0.5, use_dst=False, out=g)
    return g * 2


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_compile_fullgraph(backend):
    torch._dynamo.reset()
    compiled = torch.compile(all_five, fullgraph=True, backend=backend)
    for shape in [(16, 40), (3, 7)]:  # the second shape recompiles or runs the dynamic graph
        args = all_five_inputs(*shape)
        torch.testing.assert_close(compiled(*args), all_five(*args), rtol=0, atol=0)


def test_compile_out_in_place():
    torch._dynamo.reset()
    x, g = 2 * torch.randn(8, 8), torch.randn(8, 8)
    g_eager, g_compiled = g.clone(), g.clone()
    want = in_place(x, g_eager)
    got = torch.compile(in_place, fullgraph=True, backend="aot_eager")(x, g_compiled)
    torch.testing.assert_close(got, want, rtol=0, atol=0)
    torch.testing.assert_close(g_compiled, g_eager, rtol=0, atol=0)


# ---------------------------------------------------------------------------------------------------------------
# ATen drop-ins


def _aten_inputs(dtype, seed=1):
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(8, 129, generator=gen).to(dtype), (3 * torch.randn(8, 129, generator=gen)).to(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_aten_piecewise_linear_drop_ins_equal_pytorch(dtype):
    g, x = _aten_inputs(dtype)
    aten = torch.ops.aten
    assert torch.equal(actgrad.aten.hardtanh_backward(g, x, -1.0, 1.0), aten.hardtanh_backward(g, x, -1.0, 1.0))
    assert torch.equal(actgrad.aten.hardtanh_backward(g, x, 0, 6), aten.hardtanh_backward(g, x, 0, 6))
    assert torch.equal(actgrad.aten.hardsigmoid_backward(g, x), aten.hardsigmoid_backward(g, x))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_aten_elu_and_softplus_drop_ins_equal_pytorch(dtype):
    g, x = _aten_inputs(dtype)
    aten = torch.ops.aten
    y = F.elu(x)
    tolerance = {"rtol": 4 * torch.finfo(dtype).eps, "atol": 1e-30}
    for args in [(1.0, 1.0, 1.0, False, x), (1.0, 1.0, 1.0, True, y),
                 (1.6732632423543772, 1.0507009873554805, 1.0, False, x), (0.5, 1.0, 2.0, False, x)]:
        torch.testing.assert_close(actgrad.aten.elu_backward(g, *args), aten.elu_backward(g, *args), **tolerance)
    for beta, threshold in [(1.0, 20.0), (2.0, 3.0), (-1.0, 20.0)]:
        torch.testing.assert_close(actgrad.aten.softplus_backward(g, x, beta, threshold),
                                   aten.softplus_backward(g, x, beta, threshold), **tolerance)


def test_aten_softplus_threshold_passes_the_gradient_through():
    g, x = torch.tensor([3.0, 3.0]), torch.tensor([1.0, 1.5])
    # beta*x > threshold: exactly the gradient; below it: grad*sigmoid(beta*x)
    got = actgrad.aten.softplus_backward(g, x, 2.0, 2.5)
    assert got[1] == 3.0 and got[0] == torch.ops.aten.softplus_backward(g, x, 2.0, 2.5)[0] != 3.0


def test_aten_elu_is_result_with_negative_alpha_raises_like_pytorch():
    g, y = _aten_inputs(torch.float32)
    with pytest.raises(RuntimeError, match="negative slope") as ours:
        actgrad.aten.elu_backward(g, -0.5, 1.0, 1.0, True, y)
    with pytest.raises(RuntimeError) as theirs:
        torch.ops.aten.elu_backward(g, -0.5, 1.0, 1.0, True, y)
    assert str(ours.value) == str(theirs.value)
    # the src form accepts negative alpha, as in PyTorch
    torch.testing.assert_close(actgrad.aten.elu_backward(g, -0.5, 1.0, 1.0, False, y),
                               torch.ops.aten.elu_backward(g, -0.5, 1.0, 1.0, False, y))


# ---------------------------------------------------------------------------------------------------------------
# tiling(), SoC selection


def test_tiling_record():
    t = actgrad.tiling("hardtanh_grad", (64, 1024), torch.float16, soc="Ascend910B2")
    assert isinstance(t, actgrad.Tiling)
    assert (t.op_type, t.soc, t.dtype, t.numel) == ("ActgradHardtanhGrad", "Ascend910B2", "float16", 65536)
    # the blocks cover the elements in order, each in ceil(length / tile_length) tiles
    assert len(t.blocks) == t.block_dim > 1
    assert t.blocks[0].start == 0 and t.blocks[-1].start + t.blocks[-1].length == 65536
    for block, following in zip(t.blocks, t.blocks[1:]):
        assert block.start + block.length == following.start
    for b in t.blocks:
        assert b.tiles == -(-b.length // t.tile_length) and b.tail == b.length - (b.tiles - 1) * t.tile_length
        assert b.start % t.unit_elems == 0
    assert 0 < t.ub_bytes_used <= t.ub_bytes_available
    assert str(t).startswith(f"ActgradHardtanhGrad float16[65536] on Ascend910B2: {t.block_dim} blocks")
    with pytest.raises(AttributeError):
        t.block_dim = 2  # frozen
    # the same record by OpType, torch.Size and dtype name
    assert actgrad.tiling("ActgradHardtanhGrad", torch.Size([64, 1024]), "float16", soc="Ascend910B2") == t


def test_tiling_rejects_unknown_arguments():
    with pytest.raises(ValueError, match="unknown operator 'relu_grad'"):
        actgrad.tiling("relu_grad", (4,), torch.float32)
    with pytest.raises(ValueError, match="unsupported dtype torch.float64"):
        actgrad.tiling("elu_backward", (4,), torch.float64)
    with pytest.raises(ValueError, match="unknown SoC 'Ascend000'"):
        actgrad.tiling("elu_backward", (4,), torch.float32, soc="Ascend000")
    with pytest.raises(ValueError, match="empty tensor"):
        actgrad.tiling("elu_backward", (4, 0), torch.float32)


def test_socs_and_default_soc():
    assert "Ascend910B2" in actgrad.socs()
    assert actgrad.default_soc() == os.environ.get("ACTGRAD_SOC", "Ascend910B2")
    other = next(s for s in actgrad.socs() if s != "Ascend910B2")
    try:
        actgrad.set_default_soc(other)
        assert actgrad.default_soc() == other
        assert actgrad.tiling("hardtanh_grad", (8,), torch.float32).soc == other
    finally:
        actgrad.set_default_soc(None)
    with pytest.raises(ValueError, match="unknown SoC 'Ascend000'"):
        actgrad.set_default_soc("Ascend000")


def _python(code, **env):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, **env})


def test_soc_from_environment():
    other = next(s for s in actgrad.socs() if s != "Ascend910B2")
    result = _python("import actgrad; print(actgrad.default_soc())", ACTGRAD_SOC=other)
    assert result.stdout.strip() == other, result.stderr
    # an unknown name is refused by the import itself, listing the known SoCs; empty means unset
    result = _python("import actgrad", ACTGRAD_SOC="Ascend000")
    assert result.returncode != 0
    assert result.stderr.strip().splitlines()[-1] == (
        f"ValueError: $ACTGRAD_SOC='Ascend000' is not a known SoC; known: {', '.join(actgrad.socs())}")
    result = _python("import torch, actgrad; print(actgrad.default_soc(), "
                     "actgrad.hardtanh_grad(torch.zeros(2), torch.ones(2)).tolist())", ACTGRAD_SOC="")
    assert result.stdout.split() == ["Ascend910B2", "[1.0,", "1.0]"], result.stderr


# ---------------------------------------------------------------------------------------------------------------
# NPU and graph mode entry points, without an NPU


@pytest.mark.skipif(npu.torch_npu_available(), reason="torch_npu is installed")
def test_no_private_use1_kernels_without_torch_npu():
    for op in OPS:
        for overload in (packet(op).default, packet(op).out):
            assert not torch._C._dispatch_has_kernel_for_dispatch_key(overload.name(), "PrivateUse1")
            assert torch._C._dispatch_has_kernel_for_dispatch_key(overload.name(), "CPU")
            assert torch._C._dispatch_has_kernel_for_dispatch_key(overload.name(), "Meta")


class _RecordingLibrary:
    ns = "actgrad"

    def __init__(self):
        self.impls = []

    def impl(self, name, fn, key):
        self.impls.append((name, fn, key))


def _register_npu(monkeypatch, bridge):
    """npu.register() on a recording library, with torch_npu "installed" and actgrad._npu being `bridge`: a module
    object, None (not built) or an exception (raised by its import)."""
    monkeypatch.setattr(npu, "torch_npu_available", lambda: True)
    monkeypatch.setattr(npu, "package_visible", lambda: True)  # tests/test_npu_bridge.py covers where it is not
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: (bridge is not None or None) if name == "actgrad._npu" else find_spec(name, *a))

    def import_module(name):
        assert name == "actgrad._npu"
        if isinstance(bridge, Exception):
            raise bridge
        return bridge

    monkeypatch.setattr(npu.importlib, "import_module", import_module)
    lib = _RecordingLibrary()
    npu.register(lib)
    return lib


def test_npu_registration_with_the_bridge(monkeypatch):
    """The bridge registers the C++ kernels of every op from its spec entry."""
    calls = []

    class Bridge:
        @staticmethod
        def register_kernels(*args):
            calls.append(args)

    assert _register_npu(monkeypatch, Bridge).impls == []
    by_name = {c[1]: c for c in calls}
    assert sorted(by_name) == sorted(op.name for op in OPS)
    elu = by_name["elu_backward"]
    assert elu[:5] == ("actgrad", "elu_backward", "ActgradEluBackward", ["src_or_dst", "diff_dst"], 0)
    assert elu[5] == [("alpha", "float", False, []), ("use_dst", "bool", False, []), ("scale", "float", False, []),
                      ("input_scale", "float", False, [])]
    assert by_name["soft_plus_backward"][5][1] == ("threshold", "float", True, [])  # the inf default's stand-in
    assert elu[-1] is False and by_name["soft_plus_backward"][-1] is False  # not row reductions
    softmax = by_name["soft_max_backward"]
    assert softmax[2:6] == ("ActgradSoftMaxBackward", ["diff_dst", "dst"], 1, [("axis", "int", False, [])])
    assert softmax[-1] is True


@pytest.mark.parametrize("bridge,match", [
    (None, r"NPU kernels are not built\. On a host with CANN"),
    (ImportError("libascendcl.so: cannot open shared object file"),
     r"built but unusable: importing it failed with ImportError\('libascendcl\.so.*On a host with CANN"),
    (object(), r"built but unusable: it predates this actgrad \(no register_kernels\); rebuild it"),
    (type("OtherSignature", (), {"register_kernels": staticmethod(lambda ns, name: None)}),
     r"built but unusable: its register_kernels does not take this actgrad's arguments .*; rebuild it"),
], ids=["not-built", "does-not-load", "stale", "other-signature"])
def test_npu_kernels_without_a_usable_bridge_say_what_to_do(monkeypatch, bridge, match):
    lib = _register_npu(monkeypatch, bridge)
    assert sorted((name, key) for name, _, key in lib.impls) == sorted(
        (f"{op.name}{suffix}", "PrivateUse1") for op in OPS for suffix in ("", ".out"))
    for _, kernel, _ in lib.impls:
        with pytest.raises(RuntimeError, match=match):
            kernel(torch.ones(1), torch.ones(1), -1.0, 1.0)


def test_torchair_cannot_derive_the_op_type_from_the_op_name():
    # torchair's automatic converter emits the PascalCase of the op name: the plain name (CANN's built-in operator),
    # never the package's prefixed OpType, so every op needs the explicit converter of actgrad.graph
    assert not {graph.automatic_op_type(op.name) for op in OPS} & {op.op_type for op in OPS}
    for op in OPS:
        assert graph.automatic_op_type(op.name) == op.known_as != op.op_type
        # torchair refuses Scalar arguments; every attribute is a float, bool, str or int
        assert all(str(a.type) in ("Tensor", "float", "bool", "str", "int")
                   for a in packet(op).default._schema.arguments)


@pytest.mark.skipif(importlib.util.find_spec("torchair") is not None, reason="torchair is installed")
def test_check_torchair_mapping_without_torchair():
    with pytest.raises(RuntimeError, match="torchair not installed"):
        graph.check_torchair_mapping()
