"""Autograd of the operators. They are backward kernels with no derivative of their own: the forward works on tensors
that require grad (its output requires grad), and backpropagating through an op raises NotImplementedError naming
it, in eager mode and under torch.compile, instead of leaving .grad silently None. The .out overloads refuse
arguments that require grad, as ATen's out= functions do, and bump the version counter of `out`."""
from __future__ import annotations

import math
import re

import pytest
import torch

import actgrad
import actgrad.aten
from actgrad.spec import OPS
from test_torch_registration import ATTR_SAMPLES, DTYPES, OP_IDS, inputs, packet

# which of (in0, in1) require grad, named by what they hold
REQUIRING = {"both": lambda op: (True, True),
             "saved": lambda op: (op.saved_index == 0, op.saved_index == 1),
             "grad": lambda op: (op.saved_index == 1, op.saved_index == 0)}


def double_backward_error(op):
    return re.escape(f"actgrad.{op.name}: double backward (the derivative of actgrad.{op.name}) is not implemented "
                     "by actgrad")


def out_error(op):
    return re.escape(f"actgrad.{op.name}(): functions with out=... arguments don't support automatic "
                     "differentiation, but one of the arguments requires grad")


def leaves(op, dtype=torch.float32, which="both", seed=0):
    flags = REQUIRING[which](op)
    return tuple(t.requires_grad_(flag) for t, flag in zip(inputs(op, dtype, seed=seed), flags))


def keywords(op, attrs):
    return dict(zip([a.name for a in op.attrs], attrs))


# ---------------------------------------------------------------------------------------------------------------
# Registration


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_every_overload_has_an_autograd_kernel(op):
    for overload in (packet(op).default, packet(op).out):
        assert torch._C._dispatch_has_kernel_for_dispatch_key(overload.name(), "Autograd")
    assert torch._C._dispatch_has_kernel_for_dispatch_key(packet(op).out.name(), "ADInplaceOrView")


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_opcheck_with_inputs_requiring_grad(op):
    # the aot_dispatch checks compare eager and compiled gradients, which do not exist here
    for attrs in ATTR_SAMPLES[op.name]:
        torch.library.opcheck(packet(op).default, (*leaves(op), *attrs),
                              test_utils=("test_schema", "test_autograd_registration", "test_faketensor"))
        in0, in1 = leaves(op)
        torch.library.opcheck(packet(op).out, (in0, in1, *attrs), {"out": torch.empty_like(in0)},
                              test_utils="test_autograd_registration")


# ---------------------------------------------------------------------------------------------------------------
# Forward on inputs that require grad


@pytest.mark.parametrize("which", REQUIRING)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_forward_with_requires_grad_matches_no_grad(op, dtype, which):
    for attrs in ATTR_SAMPLES[op.name]:
        in0, in1 = leaves(op, dtype, which)
        want = packet(op)(in0.detach(), in1.detach(), *attrs)
        assert not want.requires_grad
        for got in (packet(op)(in0, in1, *attrs), getattr(actgrad, op.name)(in0, in1, **keywords(op, attrs))):
            assert got.requires_grad and got.grad_fn is not None
            assert (got.shape, got.dtype) == (want.shape, want.dtype)
            assert torch.equal(got.detach(), want)
        assert in0.grad is None and in1.grad is None


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_no_grad_mode_gives_an_output_without_grad(op):
    in0, in1 = leaves(op)
    with torch.no_grad():
        got = packet(op)(in0, in1, *ATTR_SAMPLES[op.name][0])
    assert not got.requires_grad and got.grad_fn is None
    assert torch.equal(got, packet(op)(in0.detach(), in1.detach(), *ATTR_SAMPLES[op.name][0]))


# ---------------------------------------------------------------------------------------------------------------
# Backward through an op raises, naming it


@pytest.mark.parametrize("which", REQUIRING)
@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_backward_raises_not_implemented_naming_the_op(op, which):
    for attrs in ATTR_SAMPLES[op.name]:  # defaults (dropped by the dispatcher) and every attribute given
        in0, in1 = leaves(op, which=which)
        with pytest.raises(NotImplementedError, match=double_backward_error(op)):
            packet(op)(in0, in1, *attrs).sum().backward()
        with pytest.raises(NotImplementedError, match=double_backward_error(op)):
            getattr(actgrad, op.name)(in0, in1, **keywords(op, attrs)).sum().backward()
        wanted = [t for t in (in0, in1) if t.requires_grad]
        y = packet(op)(in0, in1, *attrs)
        with pytest.raises(NotImplementedError, match=double_backward_error(op)):
            torch.autograd.grad(y, wanted, torch.ones_like(y))
        assert in0.grad is None and in1.grad is None


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_backward_raises_inside_a_larger_graph(op):
    # second-order use: the op's inputs come from differentiable ops, its output feeds more of them
    x = torch.randn(4, 33, requires_grad=True)
    in0, in1 = inputs(op, torch.float32)
    in0, in1 = in0 * x.exp(), in1 + x
    loss = (packet(op)(in0, in1, *ATTR_SAMPLES[op.name][1]) ** 2).sum() + x.sum()
    with pytest.raises(NotImplementedError, match=double_backward_error(op)):
        loss.backward()
    assert x.grad is None


class _NoGradient(torch.autograd.Function):
    """y * 2 whose backward sends no gradient (None) to y."""

    @staticmethod
    def forward(ctx, y):
        return y * 2

    @staticmethod
    def backward(ctx, grad):
        return None


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_backward_raises_when_the_incoming_gradient_is_none(op):
    # autograd still runs the op's backward node, with an undefined gradient: it must raise all the same
    in0, in1 = leaves(op)
    with pytest.raises(NotImplementedError, match=double_backward_error(op)):
        _NoGradient.apply(packet(op)(in0, in1, *ATTR_SAMPLES[op.name][0])).sum().backward()
    assert in0.grad is None and in1.grad is None


def test_aten_drop_ins_raise_too():
    g, x = torch.randn(8, requires_grad=True), 3 * torch.randn(8)
    for call, name in [(lambda: actgrad.aten.hardtanh_backward(g, x, -1.0, 1.0), "hardtanh_grad"),
                       (lambda: actgrad.aten.hardsigmoid_backward(g, x), "hardsigmoid_backward"),
                       (lambda: actgrad.aten.elu_backward(g, 1.0, 1.0, 1.0, False, x), "elu_backward"),
                       (lambda: actgrad.aten.softplus_backward(g, x, 1.0, 20.0), "soft_plus_backward")]:
        with pytest.raises(NotImplementedError, match=double_backward_error(actgrad.spec.BY_NAME[name])):
            call().sum().backward()


# ---------------------------------------------------------------------------------------------------------------
# .out: no autograd, as ATen's out= functions


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_out_refuses_arguments_requiring_grad_and_writes_nothing(op):
    attrs = ATTR_SAMPLES[op.name][0]
    for which in REQUIRING:
        in0, in1 = leaves(op, which=which)
        out = torch.full_like(in0, math.nan)
        with pytest.raises(RuntimeError, match=out_error(op)):
            packet(op).out(in0, in1, *attrs, out=out)
        with pytest.raises(RuntimeError, match=out_error(op)):
            getattr(actgrad, op.name)(in0, in1, *attrs, out=out)
        assert out.isnan().all()
    # `out` itself requiring grad
    in0, in1 = inputs(op, torch.float32)
    out = torch.zeros_like(in0, requires_grad=True)
    with pytest.raises(RuntimeError, match=out_error(op)):
        packet(op).out(in0, in1, *attrs, out=out)
    assert not out.detach().any()


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_out_under_no_grad_works(op):
    attrs = ATTR_SAMPLES[op.name][1]
    in0, in1 = leaves(op)
    out = torch.full_like(in0, math.nan)
    with torch.no_grad():
        assert getattr(actgrad, op.name)(in0, in1, *attrs, out=out) is out
    assert not out.requires_grad
    assert torch.equal(out, packet(op)(in0.detach(), in1.detach(), *attrs))


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_out_bumps_the_version_counter(op):
    in0, in1 = inputs(op, torch.float32)
    out = torch.empty_like(in0)
    version = out._version
    packet(op).out(in0, in1, *ATTR_SAMPLES[op.name][0], out=out)
    assert out._version > version
    # so autograd notices when `out` was saved for another op's backward
    w = torch.randn(4, 33, requires_grad=True)
    loss = (w * out).sum()  # saves out
    packet(op).out(in0, in1, *ATTR_SAMPLES[op.name][0], out=out)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


# ---------------------------------------------------------------------------------------------------------------
# torch.compile: the forward compiles and runs; the compiled backward raises as eager does


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_compile_forward_with_requires_grad_and_backward_raises(op):
    torch._dynamo.reset()
    attrs = ATTR_SAMPLES[op.name][1]

    def f(in0, in1):
        return packet(op)(in0, in1, *attrs) * 2

    compiled = torch.compile(f, fullgraph=True, backend="aot_eager")
    in0, in1 = leaves(op)
    got = compiled(in0, in1)
    assert got.requires_grad
    torch.testing.assert_close(got.detach(), f(in0.detach(), in1.detach()), rtol=0, atol=0)
    with pytest.raises(NotImplementedError, match=double_backward_error(op)):
        got.sum().backward()
    assert in0.grad is None and in1.grad is None


def test_compile_inductor_forward_with_requires_grad_and_backward_raises():
    torch._dynamo.reset()
    op = OPS[0]

    def f(x, g):
        return actgrad.hardtanh_grad(x.sin(), g, -0.5, 0.5) + 1

    x, g = torch.randn(16, 40, requires_grad=True), torch.randn(16, 40)
    got = torch.compile(f, fullgraph=True, backend="inductor")(x, g)
    assert got.requires_grad
    torch.testing.assert_close(got.detach(), f(x.detach(), g), rtol=0, atol=0)
    with pytest.raises(NotImplementedError, match=double_backward_error(op)):
        got.sum().backward()
    assert x.grad is None


def test_compiled_autograd_backward_raises_as_eager():
    # compiled autograd captures the backward graph node by node: this one refuses with actgrad's message
    torch._dynamo.reset()
    op = OPS[0]
    in0, in1 = leaves(op)
    y = packet(op)(in0, in1, *ATTR_SAMPLES[op.name][0])
    with torch._dynamo.compiled_autograd._enable(torch.compile(backend="eager")):
        with pytest.raises(NotImplementedError, match=double_backward_error(op)):
            y.sum().backward()
    assert in0.grad is None and in1.grad is None


# ---------------------------------------------------------------------------------------------------------------
# Forward-mode AD: refused, not silently tangent-free


def forward_ad_error(op):
    return re.escape(f"actgrad.{op.name}: forward-mode AD (a tangent on an input) is not implemented by actgrad")


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_forward_mode_ad_is_refused(op):
    import torch.autograd.forward_ad as fwAD

    attrs = ATTR_SAMPLES[op.name][0]
    in0, in1 = inputs(op, torch.float32)
    for which in (0, 1):  # a tangent on either input
        with pytest.raises(NotImplementedError, match=forward_ad_error(op)):
            torch.func.jvp(lambda t: packet(op)(*((t, in1) if which == 0 else (in0, t)), *attrs),
                           ((in0, in1)[which],), (torch.ones_like(in0),))
    out = torch.full_like(in0, 7.0)
    with fwAD.dual_level():
        dual = fwAD.make_dual(in1, torch.ones_like(in1))
        with pytest.raises(NotImplementedError, match=forward_ad_error(op)):
            packet(op).out(in0, dual, *attrs, out=out)
    assert (out == 7.0).all()
