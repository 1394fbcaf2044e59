"""The five founding operators. Their formulas live in tests/reference.py (written before the records); the records
put them in (x, g) order and add what the tests sweep."""
from __future__ import annotations

import math

import reference as R
from refs import OpRef

SELU_ALPHA = 1.6732632423543772
SELU_SCALE = 1.0507009873554805


def _check_exp_form(*args, **kwargs):
    """ELU's src form and softplus: exp-argument and underflow regions of their own (harness.check_transcendental)."""
    import harness  # noqa: PLC0415 - harness imports reference, which gathers these records
    return harness.check_transcendental(*args, **kwargs)


def _softplus_bounds(a):
    b = [R.LN_F32_MIN_NORMAL / a["beta"]] if a["beta"] else []
    if math.isfinite(a["threshold"]) and a["beta"]:
        b.append(a["threshold"] / a["beta"])
    return b


REFS: tuple[OpRef, ...] = (
    OpRef(
        op="hardtanh_grad",
        f64=lambda x, g, **a: R.hardtanh_grad_f64(x, g, **a),
        f32=lambda x, g, **a: R.hardtanh_grad_f32(x, g, **a),
        cases=({}, {"min_val": 0.0, "max_val": 6.0}, {"min_val": -0.7, "max_val": 0.7}),
        typical={"min_val": -1.0, "max_val": 1.5},
        bounds=lambda a: [a["min_val"], a["max_val"]],
        torch=lambda s, g, **a: R.aten().hardtanh_backward(g, s, a["min_val"], a["max_val"]),
    ),
    OpRef(
        op="hardsigmoid_backward",
        f64=lambda x, g, **a: R.hardsigmoid_backward_f64(g, x, **a),
        f32=lambda x, g, **a: R.hardsigmoid_backward_f32(g, x, **a),
        cases=({}, {"alpha": 0.2, "beta": 0.5}, {"alpha": 1.28, "beta": 0.128}, {"alpha": -0.25, "beta": 0.5}),
        typical={"alpha": 0.25, "beta": 0.5},
        bounds=lambda a: list(R.hardsigmoid_bounds(a["alpha"], a["beta"])),
        torch=lambda s, g, **a: R.aten_hardsigmoid_backward(g, s, **a),
    ),
    OpRef(
        op="clamp_backward",
        f64=lambda x, g, **a: R.clamp_backward_f64(x, g, **a),
        f32=lambda x, g, **a: R.clamp_backward_f32(x, g, **a),
        cases=({"min": -1.0, "max": 1.0, "use_dst": True}, {"min": 0.0, "max": 6.0, "use_dst": False},
               {"min": -0.7, "max": 0.7, "use_dst": True}),
        typical={"min": -0.5, "max": 2.0, "use_dst": False},
        bounds=lambda a: [a["min"], a["max"]],
        required={"min": -1.0, "max": 1.0},
        # the same band test as hardtanh_backward (use_dst changes nothing in it)
        torch=lambda s, g, **a: R.aten().hardtanh_backward(g, s, a["min"], a["max"]),
    ),
    OpRef(
        op="elu_backward",
        f64=lambda x, g, **a: R.elu_backward_f64(x, g, **a),
        f32=lambda x, g, **a: R.elu_backward_f32(x, g, **a),
        exact=lambda a: bool(a["use_dst"]),
        cases=(
            {"alpha": 1.0, "use_dst": True},
            {"alpha": SELU_ALPHA, "use_dst": True, "scale": SELU_SCALE},
            {"alpha": 0.3, "use_dst": True, "scale": 0.7},
            {"alpha": 1.7, "use_dst": True, "input_scale": 1 / 1.7},
            {"alpha": 1.0, "use_dst": False},
            {"alpha": -0.75, "use_dst": False},
            {"alpha": SELU_ALPHA, "use_dst": False, "scale": SELU_SCALE},
            {"alpha": 0.5, "use_dst": False, "input_scale": 2.0},
            {"alpha": 1.7, "use_dst": False, "input_scale": 1 / 1.7},
            {"alpha": 1.3, "use_dst": False, "scale": 1.1, "input_scale": 2.3},  # x*2.3 rounds: large exp arguments
        ),
        typical={"alpha": 1.3, "use_dst": True, "scale": 1.1},
        bounds=lambda a: [0.0, -a["alpha"] * a["scale"], R.LN_F32_MIN_NORMAL / a["input_scale"]],
        required={"alpha": 1.0},
        torch=lambda s, g, **a: R.aten().elu_backward(g, a["alpha"], a["scale"], a["input_scale"], bool(a["use_dst"]), s),
        check=_check_exp_form,
    ),
    OpRef(
        op="soft_plus_backward",
        f64=lambda x, g, **a: R.soft_plus_backward_f64(x, g, **a),
        cases=({}, {"threshold": 20.0}, {"beta": -1.0}, {"beta": 2.0, "threshold": 15.0}, {"beta": 0.5, "threshold": 3.0},
               {"beta": 0.0}, {"beta": 0.3, "threshold": 4.0}, {"beta": 2.9}, {"threshold": 17.5},
               {"beta": -1.5, "threshold": 16.0}),
        typical={"beta": 1.0, "threshold": 3.0},
        bounds=_softplus_bounds,
        torch=lambda s, g, **a: R.aten().softplus_backward(g, s, a["beta"], a["threshold"]),
        check=_check_exp_form,
    ),
)
