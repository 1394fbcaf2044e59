"""Invalid calls: each a clear error whose message names the argument; inputs and out untouched afterwards."""
import math

import pytest
import torch

import harness as H
import reference as R

OPS = [pytest.param(op, id=op) for op in R.OP_NAMES]
ERRORS = (RuntimeError, ValueError, TypeError)


def bits(t: torch.Tensor) -> torch.Tensor:
    """A bit-exact snapshot (NaN-safe, any dtype, any device except meta; None for None)."""
    if t is None or t.device.type == "meta":
        return t
    c = t.detach().clone()
    if c.dtype.is_floating_point or c.dtype.is_complex:
        return c.contiguous().reshape(-1).view(torch.uint8)
    return c


def same_bits(a, b) -> bool:
    if a is None or a.device.type == "meta":
        return True
    return torch.equal(a, b)


def expect_error(op, saved, grad, match, out=None, exc=ERRORS, **attrs):
    """Call actgrad.<op> and torch.ops.actgrad.<op>(.out); both must raise exc matching `match`; nothing written."""
    tensors = [saved, grad] + ([out] if out is not None else [])
    before = [bits(t) for t in tensors]
    with pytest.raises(exc, match=match):
        H.call(op, saved, grad, out=out, **attrs)
    with pytest.raises(exc, match=match):
        H.call_torch_ops(op, saved, grad, out=out, **attrs)
    for t, b in zip(tensors, before):
        assert same_bits(bits(t), b), "a tensor was modified by a failed call"


def good(shape=(64,), dtype=torch.float32, device="cpu"):
    g = torch.Generator().manual_seed(0)
    s = (torch.randn(shape, generator=g) * 2).to(dtype)
    d = torch.randn(shape, generator=g).to(dtype)
    if s.numel():
        s.reshape(-1)[0] = math.nan
    return s.to(device), d.to(device)


def arg_names(op):
    spec = R.SPEC.BY_NAME[op]
    return spec.saved, spec.grad


def _bad_tensor(dtype, shape=(64,)):
    if dtype == torch.bool:
        return torch.rand(shape) > 0.5
    if dtype.is_complex:
        return torch.randn(shape, dtype=dtype)
    if dtype.is_floating_point:
        return torch.randn(shape, dtype=dtype)
    return torch.randint(0 if dtype == torch.uint8 else -5, 5, shape, dtype=dtype)


# ------------------------------------------------------------------------------------------------ dtypes
@pytest.mark.parametrize("bad", [torch.int32, torch.int64, torch.float64, torch.complex64, torch.bool, torch.int8,
                                 torch.uint8], ids=str)
@pytest.mark.parametrize("op", OPS)
def test_wrong_dtype(op, bad):
    saved_name, grad_name = arg_names(op)
    s, g = good()
    # the saved tensor has the bad dtype
    expect_error(op, _bad_tensor(bad), g, rf"\b{saved_name}\b.*{str(bad).replace('torch.', '')}|"
                                          rf"{str(bad).replace('torch.', '')}.*\b{saved_name}\b")
    # the gradient has it
    expect_error(op, s, _bad_tensor(bad), rf"\b{grad_name}\b")
    # both
    expect_error(op, _bad_tensor(bad), _bad_tensor(bad), rf"dtype")


@pytest.mark.parametrize("pair", [(torch.float32, torch.float16), (torch.bfloat16, torch.float16),
                                  (torch.float16, torch.float32), (torch.float32, torch.bfloat16)], ids=str)
@pytest.mark.parametrize("op", OPS)
def test_mixed_dtypes(op, pair):
    s, g = good()
    s, g = s.to(pair[0]), g.to(pair[1])
    saved_name, grad_name = arg_names(op)
    expect_error(op, s, g, rf"(?s)(?=.*\b{saved_name}\b)(?=.*\b{grad_name}\b).*dtype")


# ------------------------------------------------------------------------------------------------ shapes, rank, device
@pytest.mark.parametrize("shapes", [((3, 4), (4, 3)), ((5,), (1, 5)), ((5,), ()), ((1,), (5,)), ((2, 3), (6,)),
                                    ((0,), (1,)), ((4, 1), (4, 4))], ids=str)
@pytest.mark.parametrize("op", OPS)
def test_shape_mismatch(op, shapes):
    s = torch.randn(shapes[0])
    g = torch.randn(shapes[1])
    saved_name, grad_name = arg_names(op)
    expect_error(op, s, g, rf"(?s)(?=.*\b{saved_name}\b)(?=.*\b{grad_name}\b).*shape")
    expect_error(op, g.clone(), s.clone(), rf"shape")


@pytest.mark.parametrize("op", OPS)
def test_rank_9(op):
    s, g = good((1, 2, 1, 2, 1, 2, 1, 2, 3))
    saved_name, grad_name = arg_names(op)
    expect_error(op, s, g, r"rank 9|9 dim")
    out = torch.empty_like(s)
    expect_error(op, s, g, r"rank 9|9 dim", out=out)


@pytest.mark.parametrize("op", OPS)
def test_device_mismatch(op):
    s, g = good()
    m = torch.empty_like(s, device="meta")
    saved_name, grad_name = arg_names(op)
    expect_error(op, m, g, r"device")
    expect_error(op, s, m, r"device")
    out = torch.empty_like(s, device="meta")
    expect_error(op, s, g, r"\bout\b", out=out)


@pytest.mark.parametrize("op", OPS)
def test_none_for_a_tensor(op):
    s, g = good()
    saved_name, grad_name = arg_names(op)
    expect_error(op, None, g, rf"{saved_name} must be a Tensor, got NoneType", exc=TypeError)
    expect_error(op, s, None, rf"{grad_name} must be a Tensor, got NoneType", exc=TypeError)


# ------------------------------------------------------------------------------------------------ out=
@pytest.mark.parametrize("op", OPS)
def test_none_out_of_the_out_overload(op):
    # actgrad.<op>(out=None) is the functional form; the .out overload must get a tensor
    s, g = good()
    before = [bits(s), bits(g)]
    H.ag()  # registers the ops
    with pytest.raises(TypeError, match=r"\bout must be a Tensor, got NoneType"):
        getattr(torch.ops.actgrad, op).out(*H.positional(op, s, g), **H.full_attrs(op, {}), out=None)
    assert same_bits(bits(s), before[0]) and same_bits(bits(g), before[1])


@pytest.mark.parametrize("op", OPS)
def test_bad_out(op):
    s, g = good((8, 8))
    cases = [
        (torch.full((64,), 3.0), r"\bout\b.*shape"),  # same numel, other shape: never reshaped
        (torch.full((8, 9), 3.0), r"\bout\b.*shape"),
        (torch.full((0,), 3.0), r"\bout\b.*shape"),  # never resized
        (torch.full((8, 8), 3.0, dtype=torch.float16), r"\bout\b.*dtype"),
        (torch.full((8, 8), 3.0, dtype=torch.float64), r"\bout\b.*dtype"),
        (torch.full((8, 8), 3, dtype=torch.int32), r"\bout\b.*dtype"),
    ]
    for out, match in cases:
        expect_error(op, s, g, match, out=out)


# ------------------------------------------------------------------------------------------------ attributes
INVALID_ATTRS = [
    ("elu_backward", {"alpha": -0.5, "use_dst": True}, "alpha"),
    ("elu_backward", {"alpha": -1e-30, "use_dst": True}, "alpha"),
    ("elu_backward", {"alpha": -math.inf, "use_dst": True}, "alpha"),
    ("clamp_backward", {"min": 1.0, "max": -1.0}, r"\bmin\b|\bmax\b"),
    ("clamp_backward", {"min": 1.0, "max": 1.0 - 2 ** -24, "use_dst": False}, r"\bmin\b|\bmax\b"),
    ("clamp_backward", {"min": math.inf, "max": -math.inf}, r"\bmin\b|\bmax\b"),
    ("hardsigmoid_backward", {"alpha": 0.0}, "alpha"),
    ("hardsigmoid_backward", {"alpha": -0.0}, "alpha"),
    ("hardsigmoid_backward", {"alpha": math.inf}, "alpha"),
    ("hardsigmoid_backward", {"alpha": -math.inf}, "alpha"),
    ("hardsigmoid_backward", {"beta": math.inf}, "beta"),
    ("hardsigmoid_backward", {"beta": -math.inf}, "beta"),
    # attributes are float32 (the IR's type): judged after rounding, as the NPU TilingFunc sees them
    ("hardsigmoid_backward", {"alpha": 1e39}, "alpha"),  # float32 inf
    ("hardsigmoid_backward", {"alpha": -1.7976931348623157e308}, "alpha"),
    ("hardsigmoid_backward", {"alpha": 1e-50}, "alpha"),  # float32 0
    ("hardsigmoid_backward", {"beta": -1e39}, "beta"),
    ("soft_plus_backward", {"beta": 1e39}, "beta"),
    ("elu_backward", {"alpha": 0.0, "scale": math.inf, "use_dst": False}, "alpha"),  # alpha*scale = 0*inf
    ("elu_backward", {"alpha": math.inf, "scale": 0.0}, "alpha"),
    ("soft_plus_backward", {"beta": -1.7976931348623157e308}, "beta"),
    # NaN attributes anywhere
    ("hardtanh_grad", {"min_val": math.nan}, "min_val"),
    ("hardtanh_grad", {"max_val": math.nan}, "max_val"),
    ("hardsigmoid_backward", {"alpha": math.nan}, "alpha"),
    ("hardsigmoid_backward", {"beta": math.nan}, "beta"),
    ("clamp_backward", {"min": math.nan, "max": 1.0}, r"\bmin\b"),
    ("clamp_backward", {"min": -1.0, "max": math.nan}, r"\bmax\b"),
    ("elu_backward", {"alpha": math.nan, "use_dst": False}, "alpha"),
    ("elu_backward", {"alpha": math.nan, "use_dst": True}, "alpha"),
    ("elu_backward", {"alpha": 1.0, "scale": math.nan}, r"\bscale\b"),
    ("elu_backward", {"alpha": 1.0, "use_dst": False, "input_scale": math.nan}, "input_scale"),
    ("soft_plus_backward", {"beta": math.nan}, "beta"),
    ("soft_plus_backward", {"threshold": math.nan}, "threshold"),
    ("threshold_grad_v2_d", {"threshold": math.nan}, "threshold"),
    ("leaky_relu_grad", {"negative_slope": math.nan}, "negative_slope"),
    ("soft_shrink_grad", {"lambd": math.nan}, "lambd"),
    ("hard_shrink_grad", {"lambd": math.nan}, "lambd"),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
@pytest.mark.parametrize("op,attrs,name", [pytest.param(*c, id=f"{c[0]}-{c[2]}-{c[1]}") for c in INVALID_ATTRS])
def test_invalid_attributes(op, attrs, name, dtype):
    s, g = good((33,), dtype)
    expect_error(op, s, g, name, **attrs)
    out = torch.full_like(s, 9.0)
    expect_error(op, s, g, name, out=out, **attrs)
    # also with empty tensors (validated before the empty shortcut) and on the meta device
    e = torch.empty((0,), dtype=dtype)
    expect_error(op, e, e.clone(), name, **attrs)
    m = torch.empty((5,), dtype=dtype, device="meta")
    expect_error(op, m, m.clone(), name, **attrs)


def test_every_attribute_check_of_the_spec_is_exercised():
    """Each check the spec declares (python/actgrad/spec.py: Attr.valid, OpSpec.rules) rejects one of the cases above
    with its own message, so a check added to the spec without a case here fails."""
    from actgrad.spec import BY_NAME
    s, g = good()
    messages = {}
    for op, attrs, _ in INVALID_ATTRS:
        with pytest.raises(ValueError) as error:
            H.call(op, s, g, **attrs)
        messages.setdefault(op, []).append(str(error.value))
    for name, op in BY_NAME.items():
        for rule in op.checks:
            assert any(f"'{rule.attr}' = " in m and f"expected {rule.expected}" in m for m in messages.get(name, [])), \
                f"{name}: no case above fails the check on {rule.attr!r}: {rule.expected}"


def test_attribute_error_type_is_value_error():
    s, g = good()
    with pytest.raises(ValueError, match="alpha"):
        H.call("hardsigmoid_backward", s, g, alpha=0.0)
    with pytest.raises(ValueError, match=r"\bmin\b|\bmax\b"):
        H.call("clamp_backward", s, g, min=2.0, max=1.0)


def test_attribute_message_shows_the_float32_value_it_judged():
    s, g = good()
    with pytest.raises(ValueError, match=r"'alpha' = 1e-50 \(float32: 0\) is invalid: expected a non-zero slope"):
        H.call("hardsigmoid_backward", s, g, alpha=1e-50)
    with pytest.raises(ValueError, match=r"'beta' = 1e\+39 \(float32: inf\) is invalid: expected a finite float32"):
        H.call("soft_plus_backward", s, g, beta=1e39)
    # the given and the float32 value, each as it reads back, and the bound it was compared with
    with pytest.raises(ValueError, match=r"'min' = 1\.0000001 \(float32: 1\.0000001192092896\) is invalid: expected "
                                         r"min <= max \(max = 1 as float32\)"):
        H.call("clamp_backward", s, g, min=1.0000001, max=1.0)


@pytest.mark.parametrize("op,attrs", [
    ("hardtanh_grad", {"min_val": 2.0, "max_val": -2.0}),  # accepted: zeros
    ("hardtanh_grad", {"min_val": math.inf, "max_val": -math.inf}),
    ("elu_backward", {"alpha": -0.5, "use_dst": False}),  # negative alpha allowed on the src form
    ("soft_plus_backward", {"beta": -3.0, "threshold": -math.inf}),
    ("soft_plus_backward", {"beta": 0.0}),
    ("hardsigmoid_backward", {"alpha": -1e-30, "beta": 1e30}),
    ("clamp_backward", {"min": 0.0, "max": 0.0}),
    ("clamp_backward", {"min": -math.inf, "max": math.inf}),
    # judged as float32: the largest float32 is finite, -1e-50 is -0 (a valid use_dst alpha), 1 - 2**-40 is 1
    ("hardsigmoid_backward", {"alpha": 3.4028234663852886e38, "beta": -3.4028234663852886e38}),
    ("soft_plus_backward", {"beta": -3.4028234663852886e38}),
    ("elu_backward", {"alpha": -1e-50, "use_dst": True}),
    ("clamp_backward", {"min": 1.0, "max": 1.0 - 2 ** -40}),
])
def test_valid_corner_attributes_are_accepted(op, attrs):
    s, g = good((33,))
    got = H.call(op, s, g, **attrs)
    assert got.shape == s.shape and torch.isnan(got[0])  # element 0 holds a NaN: propagated


@pytest.mark.parametrize("op", OPS)
def test_missing_required_and_unknown_keyword(op):
    s, g = good()
    fn = getattr(H.ag(), op)
    spec = R.SPEC.BY_NAME[op]
    with pytest.raises((TypeError, RuntimeError), match="argument"):
        fn(*H.positional(op, s, g), not_an_attribute=1.0, **{a.name: H.full_attrs(op, {})[a.name]
                                                             for a in spec.attrs})
    if any(a.required for a in spec.attrs):
        with pytest.raises((TypeError, RuntimeError)):
            fn(*H.positional(op, s, g))


# ------------------------------------------------------------------------------------------------ CPU = Meta
def _error(fn):
    try:
        fn()
    except (*ERRORS, IndexError) as e:  # IndexError: a row operator's axis out of range
        return type(e), str(e)
    raise AssertionError("no error raised")


@pytest.mark.parametrize("op", OPS)
def test_cpu_kernels_check_like_the_meta_kernels(op):
    """The CPU kernels (C++) and the Meta kernels (Python, checks.py) raise the same error type and message."""
    s, g = good((4, 8))
    spec = R.SPEC.BY_NAME[op]
    floats = [a.name for a in spec.attrs if a.type == "float"]
    bad_attrs = [{floats[0]: math.nan}] if floats else []  # NaN is refused by every float attribute, no bool
    bad_attrs += [{a.name: value} for a in spec.attrs if a.type == "int" for value in (2, -3)]  # axis out of range
    cases = [  # (saved, grad, out, attrs)
        (s.to(torch.int64), g, None, {}),
        (s, g.to(torch.complex64), None, {}),
        (s, g.to(torch.float16), None, {}),
        (s, g.reshape(8, 4), None, {}),
        (s.reshape(1, 1, 1, 1, 1, 1, 1, 1, 4, 8), g.reshape(1, 1, 1, 1, 1, 1, 1, 1, 4, 8), None, {}),
        (None, g, None, {}),
        (s, None, None, {}),
        (s, g, torch.empty(32), {}),
        (s, g, torch.empty((4, 8), dtype=torch.float64), {}),
    ] + [(s, g, out, bad) for bad in bad_attrs for out in (None, torch.empty((4, 8)))]
    for saved, grad, out, attrs in cases:
        def on(device):
            move = (lambda t: None if t is None else t.to(device))
            return lambda: H.call_torch_ops(op, move(saved), move(grad), out=move(out), **attrs)
        cpu, meta = _error(on("cpu")), _error(on("meta"))
        assert cpu == meta, (saved is None, grad is None, out is not None, attrs)
