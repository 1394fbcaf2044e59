"""Shapes, strides, out=/in-place, torch.ops overloads, SoC profiles and tiling."""
import math
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import harness as H
import reference as R

DT = [pytest.param(d, id=H.DTYPE_IDS[d]) for d in H.DTYPES]
OPS = [pytest.param(op, id=op) for op in R.OP_NAMES]
# the tests that check values with the elementwise references (the row reductions': tests/test_softmax_backward.py)
ELEMENTWISE = [pytest.param(op, id=op) for op in R.ELEMENTWISE_OP_NAMES]

# attributes that make every op non-trivial on the random data (band edges inside the data range); a row
# reduction reduces along the last axis, which every shape here has
ATTRS = {**{op: R.REFS[op].typical for op in R.ELEMENTWISE_OP_NAMES}, **{op: {"axis": -1} for op in R.ROW_OP_NAMES}}
ELU_SRC = {"alpha": 0.7, "use_dst": False}


def data(shape, dtype, seed=0):
    """Random saved/grad of a shape, with the special values sprinkled over the first elements."""
    n = math.prod(shape)
    g = torch.Generator().manual_seed(seed)
    saved = (torch.randn(n, generator=g, dtype=torch.float64) * 3).to(dtype)
    grad = (torch.randn(n, generator=g, dtype=torch.float64) * 2).to(dtype)
    sp = H.interesting_values(dtype, [-1.0, 1.5, -0.5, 2.0, 3.0])
    k = min(n, sp.numel())
    saved[:k] = sp[:k]
    grad[n - k:] = sp[:k].flip(0) if n else grad[n - k:]
    return saved.reshape(shape), grad.reshape(shape)


SHAPES = [(), (1,), (2,), (15,), (16,), (17,), (31,), (32,), (33,), (63,), (64,), (65,), (127,), (129,),
          (4095,), (4096,), (4097,), (8191,), (48 * 4096 + 1,), (7, 33), (3, 1, 5), (2, 3, 4, 5),
          (2, 1, 3, 1, 2, 1, 2, 3), (1,) * 8]


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("op", ELEMENTWISE)
def test_shapes(op, shape, dtype):
    saved, grad = data(shape, dtype, seed=len(shape))
    attrs = ATTRS[op]
    got = H.call(op, saved, grad, **attrs)
    assert got.shape == saved.shape and got.dtype == dtype and got.is_contiguous()
    H.check_op(op, got.reshape(-1), saved.reshape(-1), grad.reshape(-1), attrs, f"{op} {shape}")


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("n", [1, 33, 4097, 48 * 4096 + 1])
def test_shapes_elu_src(n, dtype):
    saved, grad = data((n,), dtype, seed=n)
    H.check_op("elu_backward", H.call("elu_backward", saved, grad, **ELU_SRC), saved, grad, ELU_SRC)


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("shape", [(0,), (4, 0, 3), (0,) * 8], ids=str)
@pytest.mark.parametrize("op", OPS)
def test_empty(op, shape, dtype):
    saved, grad = torch.empty(shape, dtype=dtype), torch.empty(shape, dtype=dtype)
    got = H.call(op, saved, grad, **ATTRS[op])
    assert got.shape == shape and got.dtype == dtype
    out = torch.empty(shape, dtype=dtype)
    assert H.call(op, saved, grad, out=out, **ATTRS[op]) is out
    assert H.call_torch_ops(op, saved, grad, **ATTRS[op]).shape == shape
    H.call_torch_ops(op, saved, grad, out=out, **ATTRS[op])


def _noncontiguous(op, dtype):
    base_s, base_g = data((64, 66), dtype, seed=3)
    yield "transpose", base_s.t(), base_g.t()
    yield "slice-step", base_s[:, ::2], base_g[:, ::2]
    yield "saved-only", base_s.t(), base_g.t().contiguous()
    yield "grad-only", base_s.t().contiguous(), base_g.t()
    yield "expand", base_s[:1, :33].expand(5, 33), base_g[:5, :33]
    yield "offset", base_s.reshape(-1)[7:7 + 1001], base_g.reshape(-1)[3:3 + 1001]
    yield "rank8-permuted", base_s.reshape(2, 2, 2, 2, 2, 2, 2, 33).permute(7, 6, 5, 4, 3, 2, 1, 0), \
        base_g.reshape(2, 2, 2, 2, 2, 2, 2, 33).permute(7, 6, 5, 4, 3, 2, 1, 0)


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("op", ELEMENTWISE)
def test_noncontiguous_inputs(op, dtype):
    attrs = ATTRS[op]
    for name, saved, grad in _noncontiguous(op, dtype):
        s0, g0 = saved.clone(), grad.clone()
        got = H.call(op, saved, grad, **attrs)
        assert got.shape == saved.shape, name
        want = H.call(op, saved.contiguous(), grad.contiguous(), **attrs)
        assert R.same_values(got.contiguous(), want).all(), name
        H.check_op(op, got.contiguous().reshape(-1), saved.contiguous().reshape(-1),
                   grad.contiguous().reshape(-1), attrs, f"{op} {name}")
        assert H.bits_equal(saved, s0) and H.bits_equal(grad, g0), f"{name}: inputs modified"


# ------------------------------------------------------------------------------------------------ out= and in-place
@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("op", ELEMENTWISE)
def test_out_separate(op, dtype):
    saved, grad = data((4097,), dtype)
    s0, g0 = saved.clone(), grad.clone()
    want = H.call(op, saved, grad, **ATTRS[op])
    out = torch.full_like(saved, 123.0)
    res = H.call(op, saved, grad, out=out, **ATTRS[op])
    assert res is out
    assert R.same_values(out, want).all()
    assert H.bits_equal(saved, s0) and H.bits_equal(grad, g0)
    H.check_op(op, out, saved, grad, ATTRS[op])


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("op", ELEMENTWISE)
def test_in_place_into_grad(op, dtype):
    for shape in [(1,), (33,), (48 * 4096 + 1,), (3, 5, 7)]:
        saved, grad = data(shape, dtype, seed=5)
        s0, g0 = saved.clone(), grad.clone()
        res = H.call(op, saved, grad, out=grad, **ATTRS[op])
        assert res is grad
        assert H.bits_equal(saved, s0), "saved input modified"
        H.check_op(op, grad.reshape(-1), s0.reshape(-1), g0.reshape(-1), ATTRS[op], f"in-place {shape}")


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("op", OPS)
def test_out_aliasing_and_strided(op, dtype):
    attrs = ATTRS[op]
    saved, grad = data((64, 66), dtype, seed=9)
    want = H.call(op, saved, grad, **attrs)
    # out = the saved tensor (not the documented in-place, but must still give the right values)
    s = saved.clone()
    assert H.call(op, s, grad, out=s, **attrs) is s
    assert R.same_values(s, want).all()
    # out = a non-contiguous view of a bigger buffer
    buf = torch.full((66, 64), 7.0, dtype=dtype)
    out = buf.t()
    assert H.call(op, saved, grad, out=out, **attrs) is out
    assert R.same_values(out.contiguous(), want).all()
    # out overlapping the gradient with an offset (partial overlap): still the right values
    big = torch.cat([grad.reshape(-1), grad.reshape(-1)[:8]])
    g_view, o_view = big[:saved.numel()].view(saved.shape), big[8:8 + saved.numel()].view(saved.shape)
    g_copy = g_view.clone()
    H.call(op, saved, g_view, out=o_view, **attrs)
    assert R.same_values(o_view.contiguous(), H.call(op, saved, g_copy, **attrs)).all()
    # in-place through the torch.ops .out overload
    g2 = grad.clone()
    H.call_torch_ops(op, saved, g2, out=g2, **attrs)  # the .out overload returns nothing (schema returns [])
    assert R.same_values(g2, want).all()


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("op", OPS)
def test_torch_ops_overloads(op, dtype):
    saved, grad = data((1000,), dtype, seed=11)
    attrs = ATTRS[op]
    want = H.call(op, saved, grad, **attrs)
    f = H.call_torch_ops(op, saved, grad, **attrs)
    assert R.same_values(f, want).all()
    out = torch.empty_like(saved)
    H.call_torch_ops(op, saved, grad, out=out, **attrs)
    assert R.same_values(out, want).all()
    # positional attributes through torch.ops (spec order)
    spec = R.SPEC.BY_NAME[op]
    pos = [H.full_attrs(op, attrs)[a.name] for a in spec.attrs]
    p = getattr(torch.ops.actgrad, op)(*H.positional(op, saved, grad), *pos)
    assert R.same_values(p, want).all()
    # the schema: functional and out overloads exist with the spec's argument names
    packet = getattr(torch.ops.actgrad, op)
    names = [a.name for a in packet.default._schema.arguments]
    assert names == list(spec.inputs) + [a.name for a in spec.attrs]
    assert [a.name for a in packet.out._schema.arguments][-1] == "out"


def test_meta_tensors():
    for op in R.OP_NAMES:
        s = torch.empty((3, 4), dtype=torch.bfloat16, device="meta")
        r = H.call(op, s, s.clone(), **ATTRS[op])
        assert r.device.type == "meta" and r.shape == (3, 4) and r.dtype == torch.bfloat16


# ------------------------------------------------------------------------------------------------ SoC profiles
def test_socs_listed():
    socs = H.ag().socs()
    for name in ["Ascend910B1", "Ascend910B2", "Ascend910B3", "Ascend910B4", "Ascend910_93", "Ascend310P",
                 "Ascend950"]:
        assert name in socs
    with pytest.raises(ValueError, match="Ascend999"):
        H.ag().set_default_soc("Ascend999")
    for not_a_name in ("", 3):  # None is the way back to the default
        with pytest.raises(ValueError, match="unknown SoC"):
            H.ag().set_default_soc(not_a_name)


SOCS_OK = ["Ascend910B1", "Ascend910B2", "Ascend910B3", "Ascend910B4", "Ascend910_93", "Ascend950"]


@pytest.mark.parametrize("soc", SOCS_OK)
@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("op", ELEMENTWISE)
def test_every_soc(op, dtype, soc):
    with H.soc(soc):
        for n in (1, 33, 4097, 48 * 4096 + 1):
            saved, grad = data((n,), dtype, seed=n)
            got = H.call(op, saved, grad, **ATTRS[op])
            H.check_op(op, got, saved, grad, ATTRS[op], f"{op} {soc} n={n}")


def refused_on_310p(op: str) -> str:
    """The error message of any kernel launch (or tiling) of `op` on Ascend310P: the operator, the missing API and
    the SoC (README "Using the operators"; op_host/twin_launch.cpp RequireKernelTarget)."""
    return rf"^{R.SPEC.BY_NAME[op].op_type}: actgrad's kernels need DataCopyPad, which Ascend310P lacks"


def assert_refused_on_310p(op: str, launch) -> None:
    """launch() raises exactly RuntimeError (not a subclass such as NotImplementedError) naming op, DataCopyPad and
    Ascend310P."""
    with pytest.raises(RuntimeError, match=refused_on_310p(op)) as err:
        launch()
    assert err.type is RuntimeError, f"{err.type.__name__}: {err.value}"


def assert_unchanged(got, before, what: str) -> None:
    changed = int((~torch.from_numpy(R.same_values(got, before))).sum())  # NaN-aware: the data holds NaNs
    assert changed == 0, f"{what}: {changed} of {got.numel()} elements written by a refused launch"


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("op", OPS)
def test_310p(op, dtype):
    """Ascend310P has no DataCopyPad, which every kernel needs for its tails, so it is not a kernel target: every
    launch, of every op and dtype (f32 and f16 too, not only bf16), through every entry point, is refused before
    anything is written (README "Using the operators")."""
    attrs = ATTRS[op]
    for n in (4096, 4097, 1):  # whole 32-byte units, an unaligned tail, a single element
        saved, grad = data((n,), dtype, seed=n)
        saved0, grad0 = saved.clone(), grad.clone()
        out = torch.full_like(saved, 5.0)
        in_place = grad.clone()
        with H.soc("Ascend310P"):
            assert_refused_on_310p(op, lambda: H.call(op, saved, grad, **attrs))
            assert_refused_on_310p(op, lambda: H.call(op, saved, grad, out=out, **attrs))
            assert_refused_on_310p(op, lambda: H.call(op, saved, in_place, out=in_place, **attrs))
            assert_refused_on_310p(op, lambda: H.call_torch_ops(op, saved, grad, **attrs))
            assert_refused_on_310p(op, lambda: H.call_torch_ops(op, saved, grad, out=out, **attrs))
        assert_unchanged(out, torch.full_like(saved, 5.0), f"{op} n={n} out=")
        assert_unchanged(in_place, grad0, f"{op} n={n} in place")
        assert_unchanged(saved, saved0, f"{op} n={n} saved input")
        assert_unchanged(grad, grad0, f"{op} n={n} grad input")


@pytest.mark.parametrize("dtype", DT)
def test_310p_failed_in_place_launch_keeps_the_gradient(dtype):
    """out= the gradient on a SoC that cannot run the launch: the error must leave the gradient as it was (a
    partially overwritten gradient is silent corruption of the caller's data)."""
    saved, grad = data((4097,), dtype, seed=2)
    g0 = grad.clone()
    with H.soc("Ascend310P"):
        with pytest.raises(RuntimeError, match="Ascend310P"):
            H.call("hardtanh_grad", saved, grad, out=grad)
    changed = int((~torch.from_numpy(R.same_values(grad, g0))).sum())
    assert changed == 0, f"{changed} of {grad.numel()} gradient elements overwritten by a failed launch"


def test_soc_env_variable():
    code = ("import actgrad, torch\n"
            "print(actgrad.default_soc())\n"
            "x = torch.ones(5, dtype=torch.bfloat16)\n"
            "try:\n    actgrad.hardtanh_grad(x, x)\n    print('ran')\n"
            "except RuntimeError as e:\n    print('error', '310P' in str(e))\n")
    env = {**os.environ, "ACTGRAD_SOC": "Ascend310P"}
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.split()
    assert lines[0] == "Ascend310P" and lines[1:] == ["error", "True"], r.stdout


def test_soc_precedence(monkeypatch):
    """set_default_soc() wins over $ACTGRAD_SOC, which wins over the default; an unknown name is a clear error."""
    ag = H.ag()
    x = torch.full((64,), 0.5, dtype=torch.bfloat16)
    g = torch.full((64,), 3.0, dtype=torch.bfloat16)
    try:
        monkeypatch.setenv("ACTGRAD_SOC", "Ascend310P")
        ag.set_default_soc(None)
        with pytest.raises(RuntimeError, match="Ascend310P"):
            ag.hardtanh_grad(x, g)
        ag.set_default_soc("Ascend910B2")
        assert ag.hardtanh_grad(x, g).tolist() == [3.0] * 64
        monkeypatch.setenv("ACTGRAD_SOC", "NoSuchSoc")  # changed after import: refused at the launch that reads it
        ag.set_default_soc(None)
        with pytest.raises(ValueError, match=r"\$ACTGRAD_SOC='NoSuchSoc' is not a known SoC; known: Ascend910B1"):
            ag.hardtanh_grad(x, g)
        monkeypatch.setenv("ACTGRAD_SOC", "")  # empty: unset, the default SoC
        assert ag.default_soc() == "Ascend910B2"
        assert ag.hardtanh_grad(x, g).tolist() == [3.0] * 64
    finally:
        monkeypatch.delenv("ACTGRAD_SOC", raising=False)
        ag.set_default_soc(None)


def test_concurrent_launches_from_threads():
    """Launches from several Python threads at once (the twin runs its own workers) give the right values."""
    import threading

    failures = []

    def worker(seed):
        op = R.ELEMENTWISE_OP_NAMES[seed % len(R.ELEMENTWISE_OP_NAMES)]
        dtype = H.DTYPES[seed % 3]
        for i in range(4):
            saved, grad = data((100_003,), dtype, seed=seed * 10 + i)
            got = H.call(op, saved, grad, **ATTRS[op])
            try:
                H.check_op(op, got, saved, grad, ATTRS[op], f"thread {seed}")
            except AssertionError as e:  # collected: pytest only sees the main thread's exceptions
                failures.append(str(e)[:500])

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures[0]
