# Generated from python/actgrad/spec.py by scripts/gen_ops.py; do not edit, rerun the script.
"""actgrad.ge.es.actgrad: the ES functions of the actgrad operators (GE: ge.es.actgrad, the plugin gen_esb
generates from framework/actgrad_ops_proto.h with module name "actgrad")."""
from __future__ import annotations

import math
from typing import Union

from ._actgrad_node import build
from .tensor_holder import TensorHolder
from .tensor_like import TensorLike

__all__ = [
    'ActgradHardtanhGrad',
    'ActgradHardsigmoidBackward',
    'ActgradClampBackward',
    'ActgradEluBackward',
    'ActgradSoftPlusBackward',
    'ActgradReluBackward',
    'ActgradThresholdGradV2D',
    'ActgradLeakyReluGrad',
    'ActgradHardSwishBackward',
    'ActgradSoftShrinkGrad',
    'ActgradHardShrinkGrad',
    'ActgradAbsBackward',
    'ActgradSigmoidBackward',
    'ActgradTanhBackward',
    'ActgradSiluGrad',
    'ActgradLogSigmoidGrad',
    'ActgradSoftsignGrad',
    'ActgradSqrtBackward',
    'ActgradGeluBackward',
    'ActgradFastGeluGrad',
    'ActgradMishBackward',
    'ActgradSoftMaxBackward',
    'ActgradLogSoftmaxBackward',
]


def ActgradHardtanhGrad(
    result: Union[TensorHolder, TensorLike],
    grad: Union[TensorHolder, TensorLike],
    *,
    min_val: float = -1.0,
    max_val: float = 1.0,
) -> TensorHolder:
    """ActgradHardtanhGrad: y = grad if min_val < result < max_val else 0.

    Adds an ActgradHardtanhGrad node; a Session runs it as the actgrad kernel on the twin
    (torch.ops.actgrad.hardtanh_grad).

    Args:
        result: TensorHolder or TensorLike object
        grad: TensorHolder or TensorLike object
        min_val: float value (optional): lower bound (exclusive).
        max_val: float value (optional): upper bound (exclusive).
    Returns:
        TensorHolder: y
    Note: at least one of the following input arguments should be TensorHolder object:
          result
          grad
    """
    return build('ActgradHardtanhGrad', (result, grad), {'min_val': min_val, 'max_val': max_val})


def ActgradHardsigmoidBackward(
    grad_output: Union[TensorHolder, TensorLike],
    self: Union[TensorHolder, TensorLike],
    *,
    alpha: float = 0.16666666666666666,
    beta: float = 0.5,
) -> TensorHolder:
    """ActgradHardsigmoidBackward: out = grad_output*alpha if 0 < alpha*self + beta < 1 else 0 (band bounds computed
    in double).

    Adds an ActgradHardsigmoidBackward node; a Session runs it as the actgrad kernel on the twin
    (torch.ops.actgrad.hardsigmoid_backward).

    Args:
        grad_output: TensorHolder or TensorLike object
        self: TensorHolder or TensorLike object
        alpha: float value (optional): slope.
        beta: float value (optional): offset.
    Returns:
        TensorHolder: out
    Note: at least one of the following input arguments should be TensorHolder object:
          grad_output
          self
    """
    return build('ActgradHardsigmoidBackward', (grad_output, self), {'alpha': alpha, 'beta': beta})


def ActgradClampBackward(
    src_or_dst: Union[TensorHolder, TensorLike],
    diff_dst: Union[TensorHolder, TensorLike],
    *,
    min: float,
    max: float,
    use_dst: bool = True,
) -> TensorHolder:
    """ActgradClampBackward: diff_src = diff_dst if min < src_or_dst < max else 0.

    Adds an ActgradClampBackward node; a Session runs it as the actgrad kernel on the twin
    (torch.ops.actgrad.clamp_backward).

    Args:
        src_or_dst: TensorHolder or TensorLike object
        diff_dst: TensorHolder or TensorLike object
        min: float value: lower bound (exclusive).
        max: float value: upper bound (exclusive).
        use_dst: boolean value (optional): src_or_dst is the forward output.
    Returns:
        TensorHolder: diff_src
    Note: at least one of the following input arguments should be TensorHolder object:
          src_or_dst
          diff_dst
    """
    return build('ActgradClampBackward', (src_or_dst, diff_dst), {'min': min, 'max': max, 'use_dst': use_dst})


def ActgradEluBackward(
    src_or_dst: Union[TensorHolder, TensorLike],
    diff_dst: Union[TensorHolder, TensorLike],
    *,
    alpha: float,
    use_dst: bool = True,
    scale: float = 1.0,
    input_scale: float = 1.0,
) -> TensorHolder:
    """ActgradEluBackward: x <= 0: diff_dst*input_scale*(x + alpha*scale) (dst) or
    diff_dst*input_scale*alpha*scale*exp(x*input_scale) (src); else diff_dst*scale.

    Adds an ActgradEluBackward node; a Session runs it as the actgrad kernel on the twin
    (torch.ops.actgrad.elu_backward).

    Args:
        src_or_dst: TensorHolder or TensorLike object
        diff_dst: TensorHolder or TensorLike object
        alpha: float value: negative-branch coefficient.
        use_dst: boolean value (optional): src_or_dst is the forward output.
        scale: float value (optional): ATen's scale (SELU).
        input_scale: float value (optional): ATen's input_scale (CELU).
    Returns:
        TensorHolder: diff_src
    Note: at least one of the following input arguments should be TensorHolder object:
          src_or_dst
          diff_dst
    """
    return build('ActgradEluBackward', (src_or_dst, diff_dst), {
        'alpha': alpha,
        'use_dst': use_dst,
        'scale': scale,
        'input_scale': input_scale,
    })


def ActgradSoftPlusBackward(
    src: Union[TensorHolder, TensorLike],
    diff_dst: Union[TensorHolder, TensorLike],
    *,
    beta: float = 1.0,
    threshold: float = math.inf,
) -> TensorHolder:
    """ActgradSoftPlusBackward: diff_src = diff_dst if beta*src > threshold else diff_dst*sigmoid(beta*src).

    Adds an ActgradSoftPlusBackward node; a Session runs it as the actgrad kernel on the twin
    (torch.ops.actgrad.soft_plus_backward).

    Args:
        src: TensorHolder or TensorLike object
        diff_dst: TensorHolder or TensorLike object
        beta: float value (optional): softplus beta.
        threshold: float value (optional): beta*src > threshold passes diff_dst through.
    Returns:
        TensorHolder: diff_src
    Note: at least one of the following input arguments should be TensorHolder object:
          src
          diff_dst
    """
    return build('ActgradSoftPlusBackward', (src, diff_dst), {'beta': beta, 'threshold': threshold})


def ActgradReluBackward(
    src_or_dst: Union[TensorHolder, TensorLike],
    diff_dst: Union[TensorHolder, TensorLike],
    *,
    use_dst: bool = True,
) -> TensorHolder:
    """ActgradReluBackward: diff_src = diff_dst if src_or_dst > 0 else 0.

    Adds an ActgradReluBackward node; a Session runs it as the actgrad kernel on the twin
    (torch.ops.actgrad.relu_backward).

    Args:
        src_or_dst: TensorHolder or TensorLike object
        diff_dst: TensorHolder or TensorLike object
        use_dst: boolean value (optional): src_or_dst is the forward output (the same test decides either).
    Returns:
        TensorHolder: diff_src
    Note: at least one of the following input arguments should be TensorHolder object:
          src_or_dst
          diff_dst
    """
    return build('ActgradReluBackward', (src_or_dst, diff_dst), {'use_dst': use_dst})


def ActgradThresholdGradV2D(
    gradients: Union[TensorHolder, TensorLike],
    features: Union[TensorHolder, TensorLike],
    *,
    threshold: float,
) -> TensorHolder:
    """ActgradThresholdGradV2D: backprops = gradients if features > threshold else 0.

    Adds an ActgradThresholdGradV2D node; a Session runs it as the actgrad kernel on the twin
    (torch.ops.actgrad.threshold_grad_v2_d).

    Args:
        gradients: TensorHolder or TensorLike object
        features: TensorHolder or TensorLike object
        threshold: float value: features <= threshold gives 0.
    Returns:
        TensorHolder: backprops
    Note: at least one of the following input arguments should be TensorHolder object:
          gradients
          features
    """
    return build('ActgradThresholdGradV2D', (gradients, features), {'threshold': threshold})


def ActgradLeakyReluGrad(
    gradients: Union[TensorHolder, TensorLike],
    features: Union[TensorHolder, TensorLike],
    *,
    negative_slope: float = 0.0,
) -> TensorHolder:
    """ActgradLeakyReluGrad: backprops = gradients if features > 0 else gradients*negative_slope.

    Adds an ActgradLeakyReluGrad node; a Session runs it as the actgrad kernel on the twin
    (torch.ops.actgrad.leaky_relu_grad).

    Args:
        gradients: TensorHolder or TensorLike object
        features: TensorHolder or TensorLike object
        negative_slope: float value (optional): slope for features <= 0.
    Returns:
        TensorHolder: backprops
    Note: at least one of the following input arguments should be TensorHolder object:
          gradients
          features
    """
    return build('ActgradLeakyReluGrad', (gradients, features), {'negative_slope': negative_slope})


def ActgradHardSwishBackward(
    src: Union[TensorHolder, TensorLike],
    diff_dst: Union[TensorHolder, TensorLike],
) -> TensorHolder:
    """ActgradHardSwishBackward: diff_src = 0 if src <= -3, diff_dst*(src/3 + 0.5) if -3 < src < 3, diff_dst if src
    >= 3.

    Adds an ActgradHardSwishBackward node; a Session runs it as the actgrad kernel on the twin
    (torch.ops.actgrad.hard_swish_backward).

    Args:
        src: TensorHolder or TensorLike object
        diff_dst: TensorHolder or TensorLike object
    Returns:
        TensorHolder: diff_src
    Note: at least one of the following input arguments should be TensorHolder object:
          src
          diff_dst
    """
    return build('ActgradHardSwishBackward', (src, diff_dst), {})


def ActgradSoftShrinkGrad(
    input_grad: Union[TensorHolder, TensorLike],
    input_x: Union[TensorHolder, TensorLike],
    *,
    lambd: float = 0.5,
) -> TensorHolder:
    """ActgradSoftShrinkGrad: output_y = 0 if -lambd <= input_x <= lambd else input_grad.

    Adds an ActgradSoftShrinkGrad node; a Session runs it as the actgrad kernel on the twin
    (torch.ops.actgrad.soft_shrink_grad).

    Args:
        input_grad: TensorHolder or TensorLike object
        input_x: TensorHolder or TensorLike object
        lambd: float value (optional): half-width of the closed zero band [-lambd, lambd].
    Returns:
        TensorHolder: output_y
    Note: at least one of the following input arguments should be TensorHolder object:
          input_grad
          input_x
    """
    return build('ActgradSoftShrinkGrad', (input_grad, input_x), {'lambd': lambd})


def ActgradHardShrinkGrad(
    gradients: Union[TensorHolder, TensorLike],
    features: Union[TensorHolder, TensorLike],
    *,
    lambd: float = 0.5,
) -> TensorHolder:
    """ActgradHardShrinkGrad: backprops = 0 if -lambd <= features <= lambd else gradients.

    Adds an ActgradHardShrinkGrad node; a Session runs it as the actgrad kernel on the twin
    (torch.ops.actgrad.hard_shrink_grad).

    Args:
        gradients: TensorHolder or TensorLike object
        features: TensorHolder or TensorLike object
        lambd: float value (optional): half-width of the closed zero band [-lambd, lambd].
    Returns:
        TensorHolder: backprops
    Note: at least one of the following input arguments should be TensorHolder object:
          gradients
          features
    """
    return build('ActgradHardShrinkGrad', (gradients, features), {'lambd': lambd})


def ActgradAbsBackward(src: Union[TensorHolder, TensorLike], diff_dst: Union[TensorHolder, TensorLike]) -> TensorHolder:
    """ActgradAbsBackward: diff_src = diff_dst if src > 0, -diff_dst if src < 0, 0 if src = 0.

    Adds an ActgradAbsBackward node; a Session runs it as the actgrad kernel on the twin
    (torch.ops.actgrad.abs_backward).

    Args:
        src: TensorHolder or TensorLike object
        diff_dst: TensorHolder or TensorLike object
    Returns:
        TensorHolder: diff_src
    Note: at least one of the following input arguments should be TensorHolder object:
          src
          diff_dst
    """
    return build('ActgradAbsBackward', (src, diff_dst), {})


def ActgradSigmoidBackward(
    src_or_dst: Union[TensorHolder, TensorLike],
    diff_dst: Union[TensorHolder, TensorLike],
    *,
    use_dst: bool = True,
) -> TensorHolder:
    """ActgradSigmoidBackward: diff_src = diff_dst*(d*(1-d)) (use_dst) or diff_dst*e/(1+e)^2 with e = exp(-|src|).

    Adds an ActgradSigmoidBackward node; a Session runs it as the actgrad kernel on the twin
    (torch.ops.actgrad.sigmoid_backward).

    Args:
        src_or_dst: TensorHolder or TensorLike object
        diff_dst: TensorHolder or TensorLike object
        use_dst: boolean value (optional): src_or_dst is the forward output.
    Returns:
        TensorHolder: diff_src
    Note: at least one of the following input arguments should be TensorHolder object:
          src_or_dst
          diff_dst
    """
    return build('ActgradSigmoidBackward', (src_or_dst, diff_dst), {'use_dst': use_dst})


def ActgradTanhBackward(
    src_or_dst: Union[TensorHolder, TensorLike],
    diff_dst: Union[TensorHolder, TensorLike],
    *,
    use_dst: bool = True,
) -> TensorHolder:
    """ActgradTanhBackward: diff_src = diff_dst*((1-d)*(1+d)) (use_dst) or diff_dst*4e/(1+e)^2 with e =
    exp(-2|src|).

    Adds an ActgradTanhBackward node; a Session runs it as the actgrad kernel on the twin
    (torch.ops.actgrad.tanh_backward).

    Args:
        src_or_dst: TensorHolder or TensorLike object
        diff_dst: TensorHolder or TensorLike object
        use_dst: boolean value (optional): src_or_dst is the forward output.
    Returns:
        TensorHolder: diff_src
    Note: at least one of the following input arguments should be TensorHolder object:
          src_or_dst
          diff_dst
    """
    return build('ActgradTanhBackward', (src_or_dst, diff_dst), {'use_dst': use_dst})


def ActgradSiluGrad(dy: Union[TensorHolder, TensorLike], x: Union[TensorHolder, TensorLike]) -> TensorHolder:
    """ActgradSiluGrad: dx = dy*sigmoid(x)*(1 + x*(1-sigmoid(x))).

    Adds an ActgradSiluGrad node; a Session runs it as the actgrad kernel on the twin
    (torch.ops.actgrad.silu_grad).

    Args:
        dy: TensorHolder or TensorLike object
        x: TensorHolder or TensorLike object
    Returns:
        TensorHolder: dx
    Note: at least one of the following input arguments should be TensorHolder object:
          dy
          x
    """
    return build('ActgradSiluGrad', (dy, x), {})


def ActgradLogSigmoidGrad(
    grads: Union[TensorHolder, TensorLike],
    features: Union[TensorHolder, TensorLike],
) -> TensorHolder:
    """ActgradLogSigmoidGrad: backprops = grads*sigmoid(-features).

    Adds an ActgradLogSigmoidGrad node; a Session runs it as the actgrad kernel on the twin
    (torch.ops.actgrad.log_sigmoid_grad).

    Args:
        grads: TensorHolder or TensorLike object
        features: TensorHolder or TensorLike object
    Returns:
        TensorHolder: backprops
    Note: at least one of the following input arguments should be TensorHolder object:
          grads
          features
    """
    return build('ActgradLogSigmoidGrad', (grads, features), {})


def ActgradSoftsignGrad(
    gradients: Union[TensorHolder, TensorLike],
    features: Union[TensorHolder, TensorLike],
) -> TensorHolder:
    """ActgradSoftsignGrad: output = gradients/(1+|features|)^2.

    Adds an ActgradSoftsignGrad node; a Session runs it as the actgrad kernel on the twin
    (torch.ops.actgrad.softsign_grad).

    Args:
        gradients: TensorHolder or TensorLike object
        features: TensorHolder or TensorLike object
    Returns:
        TensorHolder: output
    Note: at least one of the following input arguments should be TensorHolder object:
          gradients
          features
    """
    return build('ActgradSoftsignGrad', (gradients, features), {})


def ActgradSqrtBackward(
    src_or_dst: Union[TensorHolder, TensorLike],
    diff_dst: Union[TensorHolder, TensorLike],
    *,
    use_dst: bool = True,
) -> TensorHolder:
    """ActgradSqrtBackward: diff_src = diff_dst/(2*d) (use_dst) or diff_dst/(2*sqrt(src)).

    Adds an ActgradSqrtBackward node; a Session runs it as the actgrad kernel on the twin
    (torch.ops.actgrad.sqrt_backward).

    Args:
        src_or_dst: TensorHolder or TensorLike object
        diff_dst: TensorHolder or TensorLike object
        use_dst: boolean value (optional): src_or_dst is the forward output.
    Returns:
        TensorHolder: diff_src
    Note: at least one of the following input arguments should be TensorHolder object:
          src_or_dst
          diff_dst
    """
    return build('ActgradSqrtBackward', (src_or_dst, diff_dst), {'use_dst': use_dst})


def ActgradGeluBackward(
    src: Union[TensorHolder, TensorLike],
    diff_dst: Union[TensorHolder, TensorLike],
    *,
    mode: str = 'gelu_erf',
) -> TensorHolder:
    """ActgradGeluBackward: none: diff_src = diff_dst*(Phi(src) + src*phi(src)); tanh: diff_src = diff_dst*(0.5*(1 +
    tanh(u)) + 0.5*src*(1 - tanh(u)^2)*u'), u = sqrt(2/pi)*(src + 0.044715*src^3).

    Adds an ActgradGeluBackward node; a Session runs it as the actgrad kernel on the twin
    (torch.ops.actgrad.gelu_backward).

    Args:
        src: TensorHolder or TensorLike object
        diff_dst: TensorHolder or TensorLike object
        mode: string (optional): GELU form: the exact erf form or the tanh approximation. One of 'gelu_erf',
            'gelu_tanh'.
    Returns:
        TensorHolder: diff_src
    Note: at least one of the following input arguments should be TensorHolder object:
          src
          diff_dst
    """
    return build('ActgradGeluBackward', (src, diff_dst), {'mode': mode})


def ActgradFastGeluGrad(dy: Union[TensorHolder, TensorLike], x: Union[TensorHolder, TensorLike]) -> TensorHolder:
    """ActgradFastGeluGrad: z = dy*s*(1 + 1.702*x*(1 - s)), s = sigmoid(1.702*x) (1.702 as the f32 constant).

    Adds an ActgradFastGeluGrad node; a Session runs it as the actgrad kernel on the twin
    (torch.ops.actgrad.fast_gelu_grad).

    Args:
        dy: TensorHolder or TensorLike object
        x: TensorHolder or TensorLike object
    Returns:
        TensorHolder: z
    Note: at least one of the following input arguments should be TensorHolder object:
          dy
          x
    """
    return build('ActgradFastGeluGrad', (dy, x), {})


def ActgradMishBackward(
    src: Union[TensorHolder, TensorLike],
    diff_dst: Union[TensorHolder, TensorLike],
) -> TensorHolder:
    """ActgradMishBackward: diff_src = diff_dst*(tanh(sp) + src*sigmoid(src)*(1 - tanh(sp)^2)), sp = softplus(src).

    Adds an ActgradMishBackward node; a Session runs it as the actgrad kernel on the twin
    (torch.ops.actgrad.mish_backward).

    Args:
        src: TensorHolder or TensorLike object
        diff_dst: TensorHolder or TensorLike object
    Returns:
        TensorHolder: diff_src
    Note: at least one of the following input arguments should be TensorHolder object:
          src
          diff_dst
    """
    return build('ActgradMishBackward', (src, diff_dst), {})


def ActgradSoftMaxBackward(
    diff_dst: Union[TensorHolder, TensorLike],
    dst: Union[TensorHolder, TensorLike],
    *,
    axis: int = 1,
) -> TensorHolder:
    """ActgradSoftMaxBackward: diff_src = dst*(diff_dst - sum_axis(diff_dst*dst)).

    Adds an ActgradSoftMaxBackward node; a Session runs it as the actgrad kernel on the twin
    (torch.ops.actgrad.soft_max_backward).

    Args:
        diff_dst: TensorHolder or TensorLike object
        dst: TensorHolder or TensorLike object
        axis: integer value (optional): the softmax axis (negative counts from the back).
    Returns:
        TensorHolder: diff_src
    Note: at least one of the following input arguments should be TensorHolder object:
          diff_dst
          dst
    """
    return build('ActgradSoftMaxBackward', (diff_dst, dst), {'axis': axis})


def ActgradLogSoftmaxBackward(
    diff_dst: Union[TensorHolder, TensorLike],
    dst: Union[TensorHolder, TensorLike],
    *,
    axis: int = -1,
) -> TensorHolder:
    """ActgradLogSoftmaxBackward: diff_src = diff_dst - exp(dst)*sum_axis(diff_dst).

    Adds an ActgradLogSoftmaxBackward node; a Session runs it as the actgrad kernel on the twin
    (torch.ops.actgrad.log_softmax_backward).

    Args:
        diff_dst: TensorHolder or TensorLike object
        dst: TensorHolder or TensorLike object
        axis: integer value (optional): the log-softmax axis (negative counts from the back).
    Returns:
        TensorHolder: diff_src
    Note: at least one of the following input arguments should be TensorHolder object:
          diff_dst
          dst
    """
    return build('ActgradLogSoftmaxBackward', (diff_dst, dst), {'axis': axis})
