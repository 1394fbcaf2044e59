"""The interfaces as strict as documented (issue 15): the attributes of actgrad.<op> and of the actgrad.aten drop-ins,
the twin's environment variables ($ACTGRAD_SIM_THREADS, $ACTGRAD_SOC), tiling sizes, the result's memory format and
the batching rules of torch.vmap. (actgrad.launch_stats: tests/test_launch_stats.py.)"""
from __future__ import annotations

import inspect
import math
import os
import subprocess
import sys

import numpy as np
import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

import actgrad
import harness as H
import reference as R
from actgrad import _C

OPS = R.SPEC.OPS
FLOAT32_MAX = float(torch.finfo(torch.float32).max)
ALL_SOCS = ("Ascend910B1", "Ascend910B2", "Ascend910B3", "Ascend910B4", "Ascend910_93", "Ascend310P", "Ascend950")


def _python(code: str, **env) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in ("ACTGRAD_SOC", "ACTGRAD_SIM_THREADS")}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**clean, **env},
                          timeout=300)


def _sample(dtype=torch.float32):
    saved = torch.tensor([-3.0, -1.5, -0.7, -0.2, 0.0, 0.3, 0.9, 1.5, 2.5, 4.0], dtype=dtype)
    grad = torch.tensor([1.0, -2.0, 0.5, 3.0, -1.5, 0.25, 2.0, -0.75, 1.25, -3.0], dtype=dtype)
    return saved, grad


# ---------------------------------------------------------------------------------------------------------------
# 1. actgrad.<op>: bool attributes take True/False (or 0/1), float attributes real numbers; TypeError naming them

BOOL_ATTRS = [(op.name, a.name) for op in OPS for a in op.attrs if a.type == "bool"]
FLOAT_ATTRS = [(op.name, a.name) for op in OPS for a in op.attrs if a.type == "float"]
# values valid for every float attribute (hardsigmoid's alpha must be non-zero, min <= max for clamp: 0.5 <= 1.0)
FLOAT_KINDS = {"int": 1, "float": 0.5, "np.float32": np.float32(0.5), "np.float64": np.float64(0.5),
               "np.float16": np.float16(0.5), "np.int64": np.int64(1), "np.int32": np.int32(1)}
NOT_FLOATS = {"bool": True, "np.bool_": np.bool_(True), "str": "0.5", "None": None, "complex": 0.5 + 0j,
              "tensor0d": torch.tensor(0.5), "tensor1el": torch.tensor([0.5]), "list": [0.5], "object": object()}
NOT_BOOLS = {"None": None, "float": 0.5, "float1": 1.0, "int2": 2, "int-1": -1, "str": "True",
             "np.bool_": np.bool_(True), "tensor": torch.tensor(True), "np.int64": np.int64(1)}


def _call(op: str, saved, grad, attrs: dict, positional: bool, out=None):
    """actgrad.<op> with the attributes by position (every one, spec order) or by keyword."""
    fn = getattr(actgrad, op)
    tensors = H.positional(op, saved, grad)
    full = H.full_attrs(op, attrs)
    kwargs = {} if out is None else {"out": out}
    if positional:
        return fn(*tensors, *[full[a.name] for a in R.SPEC.BY_NAME[op].attrs], **kwargs)
    return fn(*tensors, **full, **kwargs)


@pytest.mark.parametrize("positional", [False, True], ids=["keyword", "positional"])
@pytest.mark.parametrize("op,attr", BOOL_ATTRS)
def test_bool_attributes_take_true_false_0_and_1(op, attr, positional):
    saved, grad = _sample()
    for value, meaning in [(True, True), (False, False), (1, True), (0, False)]:
        got = _call(op, saved, grad, {attr: value}, positional)
        H.check_exact(got, H.call(op, saved, grad, **{attr: meaning}), {"saved": saved, "grad": grad}, f"{attr}={value!r}")


@pytest.mark.parametrize("positional", [False, True], ids=["keyword", "positional"])
@pytest.mark.parametrize("kind", list(NOT_BOOLS))
@pytest.mark.parametrize("op,attr", BOOL_ATTRS)
def test_bool_attributes_refuse_everything_else_naming_the_argument(op, attr, kind, positional):
    saved, grad = _sample()
    saved0, grad0 = saved.clone(), grad.clone()
    out = torch.full_like(saved, 7.0)
    for target in (None, out):
        with pytest.raises(TypeError, match=rf"actgrad\.{op}: {attr} must be True or False \(or the int 0 or 1\)"):
            _call(op, saved, grad, {attr: NOT_BOOLS[kind]}, positional, out=target)
    assert torch.equal(saved, saved0) and torch.equal(grad, grad0) and bool((out == 7.0).all())


@pytest.mark.parametrize("kind", list(FLOAT_KINDS))
@pytest.mark.parametrize("op,attr", FLOAT_ATTRS)
def test_float_attributes_take_ints_floats_and_numpy_real_scalars(op, attr, kind):
    saved, grad = _sample()
    value = FLOAT_KINDS[kind]
    attrs = {attr: value}
    if op == "clamp_backward" and attr == "max":
        attrs["min"] = -1.0
    for positional in (False, True):
        got = _call(op, saved, grad, attrs, positional)
        H.check_op(op, got, saved, grad, {**attrs, attr: float(value)}, f"{op} {attr}={value!r}")


@pytest.mark.parametrize("kind", list(NOT_FLOATS))
@pytest.mark.parametrize("op,attr", FLOAT_ATTRS)
def test_float_attributes_refuse_bools_tensors_str_none_complex_naming_the_argument(op, attr, kind):
    saved, grad = _sample()
    saved0, grad0 = saved.clone(), grad.clone()
    out = torch.full_like(saved, 7.0)
    for positional in (False, True):
        for target in (None, out):
            with pytest.raises(TypeError, match=rf"actgrad\.{op}: {attr} must be a real number \(int or float\)"):
                _call(op, saved, grad, {attr: NOT_FLOATS[kind]}, positional, out=target)
    assert torch.equal(saved, saved0) and torch.equal(grad, grad0) and bool((out == 7.0).all())


INT_ATTRS = [(op.name, a.name) for op in OPS for a in op.attrs if a.type == "int"]
# valid for a row operator's axis on the 1-dimensional samples
INT_KINDS = {"int": 0, "negative": -1, "np.int64": np.int64(0), "np.int32": np.int32(-1)}
NOT_INTS = {"bool": True, "np.bool_": np.bool_(False), "float": 0.0, "np.float64": np.float64(0.0), "str": "0",
            "None": None, "tensor0d": torch.tensor(0), "list": [0]}


@pytest.mark.parametrize("kind", list(INT_KINDS))
@pytest.mark.parametrize("op,attr", INT_ATTRS)
def test_int_attributes_take_ints_and_numpy_integers(op, attr, kind):
    saved, grad = _sample()
    for positional in (False, True):
        got = _call(op, saved, grad, {attr: INT_KINDS[kind]}, positional)
        assert H.bits_equal(got, H.call(op, saved, grad, **{attr: int(INT_KINDS[kind])})), positional


@pytest.mark.parametrize("kind", list(NOT_INTS))
@pytest.mark.parametrize("op,attr", INT_ATTRS)
def test_int_attributes_refuse_bools_floats_str_none_tensors_naming_the_argument(op, attr, kind):
    saved, grad = _sample()
    saved0, grad0 = saved.clone(), grad.clone()
    out = torch.full_like(saved, 7.0)
    for positional in (False, True):
        for target in (None, out):
            with pytest.raises(TypeError, match=rf"actgrad\.{op}: {attr} must be an int, got "):
                _call(op, saved, grad, {attr: NOT_INTS[kind]}, positional, out=target)
    assert torch.equal(saved, saved0) and torch.equal(grad, grad0) and bool((out == 7.0).all())


def test_float_attribute_too_large_for_a_double_is_a_value_error_naming_it():
    saved, grad = _sample()
    with pytest.raises(ValueError, match=r"actgrad\.hardtanh_grad: max_val=10{36}\.\.\. does not fit a float"):
        actgrad.hardtanh_grad(saved, grad, -1.0, 10 ** 400)
    # an int beyond float32 is inf after rounding, as a float is (README: float attributes are float32)
    assert torch.equal(actgrad.hardtanh_grad(saved, grad, -1.0, 10 ** 39), actgrad.hardtanh_grad(saved, grad, -1.0,
                                                                                                   math.inf))


# ---------------------------------------------------------------------------------------------------------------
# 2. actgrad.aten: the scalar arguments take exactly what torch.ops.aten takes (the table follows torch's verdict)

SCALAR_KINDS = {
    "int": 2, "float": 0.5, "bool": True, "np.float32": np.float32(0.5), "np.float64": np.float64(0.5),
    "np.int64": np.int64(2), "np.bool_": np.bool_(True), "tensor0d": torch.tensor(0.5),
    "tensor1el": torch.tensor([0.5]), "tensor2el": torch.tensor([0.5, 1.0]), "str": "1", "None": None,
    "complex": 0.5 + 0j, "complex_imaginary": 0.5j, "np.complex64": np.complex64(0.5), "list": [0.5],
    "int_2**63": 2 ** 63, "int_2**64-1": 2 ** 64 - 1, "int_2**64": 2 ** 64, "int_-2**63": -(2 ** 63),
    "int_-2**63-1": -(2 ** 63) - 1, "float32_max": FLOAT32_MAX, "float_above_float32": 1e39,
    "float_just_above_float32": math.nextafter(FLOAT32_MAX, math.inf), "float_below_-float32": -1e39,
    "dtype": torch.float32, "layout": torch.strided, "memory_format": torch.channels_last,
}
ATEN_SCALARS = [("hardtanh_backward", "min_val"), ("hardtanh_backward", "max_val"), ("elu_backward", "alpha"),
                ("elu_backward", "scale"), ("elu_backward", "input_scale"), ("elu_backward", "is_result"),
                ("softplus_backward", "beta"), ("softplus_backward", "threshold")]
ATEN_DEFAULTS = {"min_val": -1.0, "max_val": 1.0, "alpha": 1.0, "scale": 1.0, "input_scale": 1.0,
                 "is_result": False, "beta": 1.0, "threshold": 20.0}


def _aten_args(name: str, grad, saved, **override) -> list:
    """The positional arguments of aten::<name> by its schema."""
    values = {**ATEN_DEFAULTS, **override, "grad_output": grad, "self": saved, "self_or_result": saved}
    return [values[a.name] for a in getattr(torch.ops.aten, name).default._schema.arguments]


def _outcome(fn, args):
    try:
        return fn(*args), None
    except Exception as error:  # noqa: BLE001 - the verdict, whatever it is
        return None, error


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
@pytest.mark.parametrize("kind", list(SCALAR_KINDS))
@pytest.mark.parametrize("name,arg", ATEN_SCALARS)
def test_aten_drop_ins_accept_and_refuse_scalars_as_torch_ops_aten_does(name, arg, kind, dtype):
    saved, grad = _sample(dtype)
    saved0, grad0 = saved.clone(), grad.clone()
    args = _aten_args(name, grad, saved, **{arg: SCALAR_KINDS[kind]})
    want, aten_error = _outcome(getattr(torch.ops.aten, name), args)
    got, our_error = _outcome(getattr(actgrad.aten, name), args)
    assert torch.equal(saved, saved0) and torch.equal(grad, grad0)
    if aten_error is not None:
        assert our_error is not None, f"torch.ops.aten.{name} refuses {arg}={SCALAR_KINDS[kind]!r} " \
                                      f"({type(aten_error).__name__}: {aten_error}), actgrad.aten accepts it"
        assert type(our_error) is type(aten_error), (our_error, aten_error)
        assert f"actgrad.aten.{name}: {arg}" in str(our_error), str(our_error)
        return
    assert our_error is None, f"torch.ops.aten.{name} accepts {arg}={SCALAR_KINDS[kind]!r}, actgrad.aten refuses: " \
                              f"{type(our_error).__name__}: {our_error}"
    try:
        huge = abs(complex(SCALAR_KINDS[kind])) > 1e6
    except (TypeError, ValueError):
        huge = False
    if not huge:  # past that the values meet the documented divergences (0 where ATen computes inf * 0 = NaN)
        torch.testing.assert_close(got, want, rtol=4 * torch.finfo(dtype).eps, atol=1e-30, equal_nan=True)


def test_aten_scalar_table_covers_what_torch_accepts_and_refuses():
    # the table is only a test if torch takes some of its kinds and refuses others, for Scalars and for the bool
    saved, grad = _sample()
    verdicts = {arg: {kind: _outcome(getattr(torch.ops.aten, name), _aten_args(name, grad, saved, **{arg: v}))[1]
                      is None for kind, v in SCALAR_KINDS.items()} for name, arg in ATEN_SCALARS}
    for arg, by_kind in verdicts.items():
        assert any(by_kind.values()) and not all(by_kind.values()), arg
    assert verdicts["min_val"]["np.float64"] and not verdicts["min_val"]["np.float32"]
    assert not verdicts["min_val"]["str"] and not verdicts["min_val"]["tensor0d"]


def test_aten_drop_ins_have_atens_signatures():
    for name in ("hardtanh_backward", "hardsigmoid_backward", "elu_backward", "softplus_backward",
                 "_softmax_backward_data", "_log_softmax_backward_data"):
        schema = [a.name for a in getattr(torch.ops.aten, name).default._schema.arguments]
        assert list(inspect.signature(getattr(actgrad.aten, name)).parameters) == schema, name


# ---------------------------------------------------------------------------------------------------------------
# 3. $ACTGRAD_SIM_THREADS: the cap on the threads a launch uses; invalid values refused at import

THREADS_PROBE = """
import torch, actgrad
from actgrad import _C
torch.set_num_threads(4)
x, g = torch.randn(1 << 20), torch.randn(1 << 20)
raw = _C.launch("ActgradHardtanhGrad", x, g, torch.empty_like(x), [-1.0, 1.0], "Ascend910B2", 0, True)["threads"]
y = actgrad.hardtanh_grad(x, g)
op = _C.last_launch_stats()["threads"]
public = actgrad.launch_stats("hardtanh_grad", x, g).threads
print(raw, op, public, torch.equal(y, torch.ops.aten.hardtanh_backward(g, x, -1.0, 1.0)))
"""


@pytest.mark.parametrize("setting,threads", [(None, 4), ("", 4), ("1", 1), ("3", 3), ("8", 4), ("65535", 4)])
def test_sim_threads_caps_the_threads_of_torch_ops_and_launches(setting, threads):
    env = {} if setting is None else {"ACTGRAD_SIM_THREADS": setting}
    result = _python(THREADS_PROBE, **env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [str(threads)] * 3 + ["True"]


@pytest.mark.parametrize("setting", ["0", "abc", "-3", "2x", " 2", "65536", "1.5"])
def test_invalid_sim_threads_is_refused_at_import_naming_the_variable(setting):
    result = _python("import actgrad", ACTGRAD_SIM_THREADS=setting)
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert last == (f"ValueError: $ACTGRAD_SIM_THREADS='{setting}' is not a thread count: expected an integer from 1 "
                    "to 65535 (unset or empty for the default)"), result.stderr


def test_sim_threads_set_after_import_is_checked_at_the_next_launch(monkeypatch):
    x, g = torch.randn(1 << 16), torch.randn(1 << 16)
    out = torch.full_like(x, 7.0)
    monkeypatch.setenv("ACTGRAD_SIM_THREADS", "abc")
    with pytest.raises(ValueError, match=r"\$ACTGRAD_SIM_THREADS='abc' is not a thread count"):
        actgrad.hardtanh_grad(x, g, out=out)
    assert bool((out == 7.0).all())
    monkeypatch.setenv("ACTGRAD_SIM_THREADS", "1")
    assert actgrad.launch_stats("hardtanh_grad", x, g).threads == 1


# ---------------------------------------------------------------------------------------------------------------
# 4. $ACTGRAD_SOC: empty means unset (the default SoC) everywhere; an unknown name is refused at import

def test_empty_soc_variable_means_the_default_soc():
    code = ("import torch, actgrad\n"
            "x, g = torch.randn(4096), torch.randn(4096)\n"
            "y = actgrad.hardtanh_grad(x, g)\n"
            "print(actgrad.default_soc(), actgrad.tiling('hardtanh_grad', x.shape, x.dtype).soc,\n"
            "      actgrad.launch_stats('hardtanh_grad', x, g).soc,\n"
            "      torch.equal(y, torch.ops.aten.hardtanh_backward(g, x, -1.0, 1.0)))\n")
    result = _python(code, ACTGRAD_SOC="")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["Ascend910B2"] * 3 + ["True"]


def test_unknown_soc_variable_is_refused_at_import_listing_the_known_socs():
    result = _python("import actgrad", ACTGRAD_SOC="Ascend000")
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert last == f"ValueError: $ACTGRAD_SOC='Ascend000' is not a known SoC; known: {', '.join(ALL_SOCS)}"
    assert set(ALL_SOCS) == set(actgrad.socs())


def test_soc_variable_emptied_after_import_means_the_default(monkeypatch):
    x, g = torch.full((64,), 0.5, dtype=torch.bfloat16), torch.full((64,), 3.0, dtype=torch.bfloat16)
    monkeypatch.setenv("ACTGRAD_SOC", "")
    assert actgrad.default_soc() == "Ascend910B2"
    assert actgrad.launch_stats("hardtanh_grad", x, g).soc == "Ascend910B2"
    assert actgrad.hardtanh_grad(x, g).tolist() == [3.0] * 64


# ---------------------------------------------------------------------------------------------------------------
# 5. tiling: sizes whose byte count exceeds int64 are refused; the largest accepted ones tile without wrapping

@pytest.mark.parametrize("shape,dtype", [((2 ** 61,), torch.float32), ((2 ** 62,), torch.float16),
                                         ((2 ** 62,), torch.bfloat16), ((2 ** 62 + 1,), torch.float32),
                                         ((2 ** 31, 2 ** 31), torch.float32), ((2 ** 64 + 5,), torch.float16)])
def test_tiling_refuses_sizes_beyond_int64_bytes(shape, dtype):
    with pytest.raises(ValueError, match=r"a tensor holds at most 2\*\*63 - 1 bytes"):
        actgrad.tiling("hardtanh_grad", shape, dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=str)
@pytest.mark.parametrize("soc", ["Ascend910B2", "Ascend950"])
def test_tiling_of_the_largest_sizes_covers_every_element_once(dtype, soc):
    size = torch.empty((), dtype=dtype).element_size()
    for numel in ((2 ** 63 - 1) // size, (2 ** 63 - 1) // size - 12345, 2 ** 60 // size + 1):
        t = actgrad.tiling("elu_backward", (numel,), dtype, soc=soc)
        assert t.block_dim == len(t.blocks) >= 1
        end = 0
        for b in t.blocks:
            assert b.start == end and b.start * size % 32 == 0
            assert (b.tiles - 1) * t.tile_length < b.length <= b.tiles * t.tile_length
            assert b.tail == b.length - (b.tiles - 1) * t.tile_length
            end = b.start + b.length
        assert end == numel
        assert max(b.length for b in t.blocks) - min(b.length for b in t.blocks) <= t.unit_elems


def test_raw_tiling_refuses_wrapping_sizes_instead_of_crashing():
    code = ("from actgrad import _C\n"
            "for n in (2 ** 64 - 1, 2 ** 62, 2 ** 63):\n"
            "    try:\n"
            "        _C.tiling('ActgradHardtanhGrad', n, 'float32', 'Ascend910B2')\n"
            "        print('accepted')\n"
            "    except ValueError as e:\n        print('ValueError', 'exceed the largest tensor' in str(e))\n"
            "print(_C.tiling('ActgradHardtanhGrad', (2 ** 63 - 1) // 4, 'float32', 'Ascend910B2')['block_dim'])\n")
    result = _python(code)
    assert result.returncode == 0, f"status {result.returncode}: {result.stderr}"
    assert result.stdout.split() == ["ValueError", "True"] * 3 + ["48"]


# ---------------------------------------------------------------------------------------------------------------
# 7. memory format: the result has the strides ATen gives (TensorIterator on (gradient, saved)), Meta kernels too

def _layouts():
    def cl(shape, fmt):
        return lambda gen: torch.randn(shape, generator=gen).contiguous(memory_format=fmt)

    def permuted(shape, perm):
        inverse = [perm.index(i) for i in range(len(perm))]
        return lambda gen: torch.randn([shape[i] for i in perm], generator=gen).permute(inverse)

    def sliced(shape):
        return lambda gen: torch.randn(*shape[:-1], 2 * shape[-1], generator=gen)[..., ::2]

    def expanded(shape):
        return lambda gen: torch.randn(shape[1:], generator=gen).expand(shape)

    s4, s5, s3 = (2, 3, 4, 5), (2, 3, 2, 4, 5), (3, 4, 5)
    contiguous = lambda shape: lambda gen: torch.randn(shape, generator=gen)  # noqa: E731
    return {
        "channels_last": (cl(s4, torch.channels_last), cl(s4, torch.channels_last)),
        "channels_last_3d": (cl(s5, torch.channels_last_3d), cl(s5, torch.channels_last_3d)),
        "permuted": (permuted(s3, [2, 0, 1]), permuted(s3, [2, 0, 1])),
        "transposed": (permuted((6, 7), [1, 0]), permuted((6, 7), [1, 0])),
        "grad_channels_last_saved_contiguous": (cl(s4, torch.channels_last), contiguous(s4)),
        "grad_contiguous_saved_channels_last": (contiguous(s4), cl(s4, torch.channels_last)),
        "grad_permuted_saved_other_permutation": (permuted(s3, [2, 0, 1]), permuted(s3, [1, 2, 0])),
        "grad_sliced_saved_permuted": (sliced(s3), permuted(s3, [1, 0, 2])),
        "grad_expanded_saved_permuted": (expanded(s4), permuted(s4, [3, 1, 2, 0])),
        "ambiguous_size_one_dims": (cl((2, 3, 1, 1), torch.channels_last), permuted((2, 3, 1, 1), [0, 2, 3, 1])),
    }


LAYOUTS = _layouts()
# the elementwise operators: the defaults, which ATen's counterparts all take
MEMORY_FORMAT_ATTRS = {op.name: {} for op in OPS if op.family == "elementwise"}
# the row reductions' ATen counterparts (grad, output, dim, input_dtype), whose CPU results are contiguous
ATEN_ROW_OPS = {"soft_max_backward": torch.ops.aten._softmax_backward_data,
                "log_softmax_backward": torch.ops.aten._log_softmax_backward_data}


def _layout_inputs(layout, dtype=torch.float32):
    gen = torch.Generator().manual_seed(3)
    make_grad, make_saved = LAYOUTS[layout]
    grad, saved = make_grad(gen), make_saved(gen).mul_(3)  # in place: the strides stay
    if dtype != torch.float32:  # .to() keeps the strides of dense tensors (the layouts used with other dtypes)
        grad, saved = grad.to(dtype), saved.to(dtype)
    return saved, grad


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("op", list(MEMORY_FORMAT_ATTRS))
def test_result_has_atens_strides(op, layout):
    saved, grad = _layout_inputs(layout)
    saved0, grad0 = saved.clone(), grad.clone()
    attrs = MEMORY_FORMAT_ATTRS[op]
    # ATen's activation backward functions are binary TensorIterator ops on (grad, saved), as torch.mul is, or on
    # (saved, grad) where the spec says so (layout_first)
    ordered = (saved, grad) if R.SPEC.BY_NAME[op].layout_first == "saved" else (grad, saved)
    want = torch.mul(*ordered)
    if R.has_torch(op):
        want = R.torch_reference(op, saved, grad, **attrs)  # ATen's counterpart, its layout included
        assert want.stride() == torch.mul(*ordered).stride()
    got = H.call(op, saved, grad, **attrs)
    assert got.stride() == want.stride(), (got.stride(), want.stride())
    H.check_op(op, got, saved, grad, attrs, f"{op} {layout}")
    assert torch.equal(saved, saved0) and torch.equal(grad, grad0)
    # the Meta kernel (FakeTensor, what torch.compile traces with) gives the same strides
    with FakeTensorMode() as mode:
        fake = H.call(op, mode.from_tensor(saved), mode.from_tensor(grad), **attrs)
    assert fake.stride() == got.stride()


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("op", list(ATEN_ROW_OPS))
def test_row_result_has_atens_strides(op, layout):
    saved, grad = _layout_inputs(layout)
    axis = R.DEFAULT_ATTRS[op]["axis"]
    want = ATEN_ROW_OPS[op](grad, saved, axis, saved.dtype)
    got = H.call(op, saved, grad)
    assert got.stride() == want.stride() == torch.empty(saved.shape).stride()
    assert H.bits_equal(got, H.call(op, saved.contiguous(), grad.contiguous()))
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)  # the values: tests/test_softmax_backward.py
    with FakeTensorMode() as mode:
        fake = H.call(op, mode.from_tensor(saved), mode.from_tensor(grad))
    assert fake.stride() == got.stride()


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_aten_drop_ins_keep_the_layout_aten_gives(layout):
    saved, grad = _layout_inputs(layout)
    aten = torch.ops.aten
    pairs = [(actgrad.aten.hardtanh_backward(grad, saved, -1.0, 1.0), aten.hardtanh_backward(grad, saved, -1.0, 1.0)),
             (actgrad.aten.hardsigmoid_backward(grad, saved), aten.hardsigmoid_backward(grad, saved)),
             (actgrad.aten.elu_backward(grad, 1.0, 1.0, 1.0, False, saved),
              aten.elu_backward(grad, 1.0, 1.0, 1.0, False, saved)),
             (actgrad.aten.softplus_backward(grad, saved, 1.0, 20.0), aten.softplus_backward(grad, saved, 1.0, 20.0))]
    for got, want in pairs:
        assert got.stride() == want.stride()
        torch.testing.assert_close(got, want, rtol=4 * torch.finfo(torch.float32).eps, atol=1e-30)


@pytest.mark.parametrize("dtype", H.DTYPES, ids=str)
def test_out_keeps_its_own_layout(dtype):
    saved, grad = _layout_inputs("grad_contiguous_saved_channels_last", dtype)
    want = H.call("elu_backward", saved, grad, alpha=0.5, use_dst=False).contiguous()
    for out in (torch.empty_like(saved, memory_format=torch.channels_last),
                torch.empty(2, 5, 4, 3, dtype=dtype).transpose(1, 3), torch.empty(2, 3, 4, 10, dtype=dtype)[..., ::2]):
        strides = out.stride()
        H.call("elu_backward", saved, grad, alpha=0.5, use_dst=False, out=out)
        assert out.stride() == strides and H.bits_equal(out, want)
    # in place into a channels_last gradient
    g = grad.contiguous(memory_format=torch.channels_last)
    H.call("elu_backward", saved, g, alpha=0.5, use_dst=False, out=g)
    assert g.is_contiguous(memory_format=torch.channels_last) and H.bits_equal(g, want)


def test_opcheck_on_channels_last_inputs():
    saved, grad = _layout_inputs("channels_last")
    torch.library.opcheck(torch.ops.actgrad.hardtanh_grad.default, (saved, grad, -0.5, 0.5))
    torch.library.opcheck(torch.ops.actgrad.elu_backward.default, (saved, grad, 1.0, False, 1.0, 1.0))
    mixed_saved, mixed_grad = _layout_inputs("grad_sliced_saved_permuted")
    torch.library.opcheck(torch.ops.actgrad.soft_plus_backward.default, (mixed_saved, mixed_grad, 1.0, 20.0))


# ---------------------------------------------------------------------------------------------------------------
# 8. torch.vmap: batching rules (no per-sample fallback); .out works with a vmapped out, else a clear error

@pytest.fixture
def vmap_rules():
    import actgrad.library
    import actgrad.vmap
    actgrad.vmap.register(actgrad.library.lib)  # does nothing once library.py registers them
    was = torch._C._functorch._is_vmap_fallback_enabled()
    torch._C._functorch._set_vmap_fallback_enabled(False)  # a missing rule is an error, not a slow path
    yield
    torch._C._functorch._set_vmap_fallback_enabled(was)


def _loop(fn, in_dims, *args):
    """The per-sample loop torch.vmap(fn, in_dims)(*args) stands for."""
    size = next(a.shape[d] for a, d in zip(args, in_dims) if d is not None)
    return torch.stack([fn(*(a if d is None else a.select(d, i) for a, d in zip(args, in_dims)))
                        for i in range(size)])


IN_DIMS = [(0, 0), (None, 0), (0, None), (1, -1), (-1, 1), (2, 0)]


def _vmapped(sample_shape, batch: int, dim: int | None, gen) -> torch.Tensor:
    """Random values of sample_shape, with a batch of `batch` along `dim` (None: no batch)."""
    if dim is None:
        return 3 * torch.randn(sample_shape, generator=gen)
    return (3 * torch.randn(batch, *sample_shape, generator=gen)).movedim(0, dim)


@pytest.mark.parametrize("in_dims", IN_DIMS, ids=str)
@pytest.mark.parametrize("op", [op.name for op in OPS])
def test_vmap_runs_the_batching_rule_and_equals_the_loop(vmap_rules, op, in_dims):
    gen = torch.Generator().manual_seed(5)
    attrs = H.full_attrs(op, {"use_dst": False} if op == "elu_backward" else {})
    args = [_vmapped((3, 5), 4, d, gen) for d in in_dims]  # IR order
    fn = getattr(actgrad, op)
    one = lambda a, b: fn(a, b, **attrs)  # noqa: E731
    got = torch.vmap(one, in_dims=in_dims)(*args)
    assert H.bits_equal(got, _loop(one, in_dims, *args))


def test_vmap_nested_positional_attributes_and_rank_8_samples(vmap_rules):
    x, g = 3 * torch.randn(2, 3, 4, 5), torch.randn(3, 2, 4, 5)
    fn = lambda a, b: actgrad.elu_backward(a, b, 0.5, False, 1.5)  # noqa: E731
    got = torch.vmap(torch.vmap(fn, in_dims=(1, 0)), in_dims=(3, 3))(x, g)
    want = torch.stack([_loop(fn, (1, 0), x[..., i], g[..., i]) for i in range(5)])
    assert H.bits_equal(got, want)
    x8, g8 = torch.randn(3, 2, 1, 2, 1, 2, 1, 2, 3), torch.randn(3, 2, 1, 2, 1, 2, 1, 2, 3)  # rank 8 per sample
    assert H.bits_equal(torch.vmap(actgrad.hardtanh_grad)(x8, g8), _loop(actgrad.hardtanh_grad, (0, 0), x8, g8))


def test_vmap_checks_each_sample_as_the_loop_would(vmap_rules):
    x, g = torch.randn(3, 4), torch.randn(3, 5)
    with pytest.raises(RuntimeError) as looped:
        actgrad.hardtanh_grad(x[0], g[0])
    with pytest.raises(RuntimeError) as vmapped:
        torch.vmap(actgrad.hardtanh_grad)(x, g)
    assert str(vmapped.value) == str(looped.value)
    x9 = torch.randn(2, *[1] * 8, 3)  # rank 9 per sample
    with pytest.raises(RuntimeError, match="result has rank 9; at most 8"):
        torch.vmap(actgrad.hardtanh_grad)(x9, x9)
    with pytest.raises(TypeError, match="use_dst must be True or False"):
        torch.vmap(lambda a, b: actgrad.elu_backward(a, b, 1.0, None))(x, x)


@pytest.mark.parametrize("in_dims", [(0, 0, 0), (None, 0, 0), (1, None, 1), (0, 0, 1)], ids=str)
def test_vmap_with_a_vmapped_out_writes_each_sample(vmap_rules, in_dims):
    gen = torch.Generator().manual_seed(9)
    x, g, out = [_vmapped((3, 5), 4, d, gen) for d in in_dims]
    out.fill_(7.0)
    fn = lambda a, b, o: actgrad.soft_plus_backward(a, b, 2.0, 3.0, out=o)  # noqa: E731
    returned = torch.vmap(fn, in_dims=in_dims)(x, g, out)
    want = _loop(lambda a, b: actgrad.soft_plus_backward(a, b, 2.0, 3.0), in_dims[:2], x, g)
    assert H.bits_equal(out.movedim(in_dims[2], 0), want) and H.bits_equal(returned, want)


def test_vmap_in_place_into_the_vmapped_gradient_and_nested_out(vmap_rules):
    x, g = 3 * torch.randn(4, 6), torch.randn(4, 6)
    want = actgrad.hardtanh_grad(x, g)
    torch.vmap(lambda a, b: actgrad.hardtanh_grad(a, b, out=b))(x, g)
    assert torch.equal(g, want)
    x3, g3, out = torch.randn(2, 3, 4), torch.randn(2, 3, 4), torch.empty(2, 3, 4)
    inner = torch.vmap(lambda a, b, o: actgrad.clamp_backward(a, b, -0.5, 0.5, out=o))
    torch.vmap(inner, in_dims=(2, 2, 2))(x3, g3, out)
    assert torch.equal(out, actgrad.clamp_backward(x3, g3, -0.5, 0.5))


def test_vmap_with_an_unvmapped_out_is_refused_naming_the_limitation(vmap_rules):
    x, g = torch.randn(4, 6), torch.randn(4, 6)
    out = torch.full((6,), 7.0)
    with pytest.raises(RuntimeError, match=r"actgrad\.hardtanh_grad: vmap over a call with out= needs out to be "
                                           r"vmapped when an input is: result has the batch dimension"):
        torch.vmap(lambda a, b: actgrad.hardtanh_grad(a, b, out=out))(x, g)
    assert bool((out == 7.0).all())
    # nothing vmapped but out: every sample gets the one result
    x1, g1, out2 = torch.randn(6), torch.randn(6), torch.empty(4, 6)
    torch.vmap(lambda o: actgrad.hardtanh_grad(x1, g1, out=o))(out2)
    assert torch.equal(out2, actgrad.hardtanh_grad(x1, g1).expand(4, 6))
