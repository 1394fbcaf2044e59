// Generated from python/actgrad/spec.py by scripts/gen_ops.py; do not edit, rerun the script.
#ifndef ACTGRAD_OPS_PROTO_H_
#define ACTGRAD_OPS_PROTO_H_

#include <limits>

#include "graph/operator_reg.h"

namespace ge {

// y = grad if min_val < result < max_val else 0
REG_OP(ActgradHardtanhGrad)
    .INPUT(result, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(grad, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OUTPUT(y, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .ATTR(min_val, Float, -1.0)
    .ATTR(max_val, Float, 1.0)
    .OP_END_FACTORY_REG(ActgradHardtanhGrad)

// out = grad_output*alpha if 0 < alpha*self + beta < 1 else 0 (band bounds computed in double)
REG_OP(ActgradHardsigmoidBackward)
    .INPUT(grad_output, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(self, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OUTPUT(out, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .ATTR(alpha, Float, 0.16666666666666666)
    .ATTR(beta, Float, 0.5)
    .OP_END_FACTORY_REG(ActgradHardsigmoidBackward)

// diff_src = diff_dst if min < src_or_dst < max else 0
REG_OP(ActgradClampBackward)
    .INPUT(src_or_dst, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(diff_dst, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OUTPUT(diff_src, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .REQUIRED_ATTR(min, Float)
    .REQUIRED_ATTR(max, Float)
    .ATTR(use_dst, Bool, true)
    .OP_END_FACTORY_REG(ActgradClampBackward)

// x <= 0: diff_dst*input_scale*(x + alpha*scale) (dst) or diff_dst*input_scale*alpha*scale*exp(x*input_scale) (src); else diff_dst*scale
REG_OP(ActgradEluBackward)
    .INPUT(src_or_dst, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(diff_dst, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OUTPUT(diff_src, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .REQUIRED_ATTR(alpha, Float)
    .ATTR(use_dst, Bool, true)
    .ATTR(scale, Float, 1.0)
    .ATTR(input_scale, Float, 1.0)
    .OP_END_FACTORY_REG(ActgradEluBackward)

// diff_src = diff_dst if beta*src > threshold else diff_dst*sigmoid(beta*src)
REG_OP(ActgradSoftPlusBackward)
    .INPUT(src, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(diff_dst, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OUTPUT(diff_src, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .ATTR(beta, Float, 1.0)
    .ATTR(threshold, Float, std::numeric_limits<float>::infinity())
    .OP_END_FACTORY_REG(ActgradSoftPlusBackward)

// diff_src = diff_dst if src_or_dst > 0 else 0
REG_OP(ActgradReluBackward)
    .INPUT(src_or_dst, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(diff_dst, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OUTPUT(diff_src, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .ATTR(use_dst, Bool, true)
    .OP_END_FACTORY_REG(ActgradReluBackward)

// backprops = gradients if features > threshold else 0
REG_OP(ActgradThresholdGradV2D)
    .INPUT(gradients, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(features, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OUTPUT(backprops, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .REQUIRED_ATTR(threshold, Float)
    .OP_END_FACTORY_REG(ActgradThresholdGradV2D)

// backprops = gradients if features > 0 else gradients*negative_slope
REG_OP(ActgradLeakyReluGrad)
    .INPUT(gradients, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(features, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OUTPUT(backprops, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .ATTR(negative_slope, Float, 0.0)
    .OP_END_FACTORY_REG(ActgradLeakyReluGrad)

// diff_src = 0 if src <= -3, diff_dst*(src/3 + 0.5) if -3 < src < 3, diff_dst if src >= 3
REG_OP(ActgradHardSwishBackward)
    .INPUT(src, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(diff_dst, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OUTPUT(diff_src, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OP_END_FACTORY_REG(ActgradHardSwishBackward)

// output_y = 0 if -lambd <= input_x <= lambd else input_grad
REG_OP(ActgradSoftShrinkGrad)
    .INPUT(input_grad, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(input_x, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OUTPUT(output_y, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .ATTR(lambd, Float, 0.5)
    .OP_END_FACTORY_REG(ActgradSoftShrinkGrad)

// backprops = 0 if -lambd <= features <= lambd else gradients
REG_OP(ActgradHardShrinkGrad)
    .INPUT(gradients, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(features, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OUTPUT(backprops, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .ATTR(lambd, Float, 0.5)
    .OP_END_FACTORY_REG(ActgradHardShrinkGrad)

// diff_src = diff_dst if src > 0, -diff_dst if src < 0, 0 if src = 0
REG_OP(ActgradAbsBackward)
    .INPUT(src, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(diff_dst, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OUTPUT(diff_src, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OP_END_FACTORY_REG(ActgradAbsBackward)

// diff_src = diff_dst*(d*(1-d)) (use_dst) or diff_dst*e/(1+e)^2 with e = exp(-|src|)
REG_OP(ActgradSigmoidBackward)
    .INPUT(src_or_dst, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(diff_dst, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OUTPUT(diff_src, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .ATTR(use_dst, Bool, true)
    .OP_END_FACTORY_REG(ActgradSigmoidBackward)

// diff_src = diff_dst*((1-d)*(1+d)) (use_dst) or diff_dst*4e/(1+e)^2 with e = exp(-2|src|)
REG_OP(ActgradTanhBackward)
    .INPUT(src_or_dst, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(diff_dst, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OUTPUT(diff_src, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .ATTR(use_dst, Bool, true)
    .OP_END_FACTORY_REG(ActgradTanhBackward)

// dx = dy*sigmoid(x)*(1 + x*(1-sigmoid(x)))
REG_OP(ActgradSiluGrad)
    .INPUT(dy, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(x, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OUTPUT(dx, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OP_END_FACTORY_REG(ActgradSiluGrad)

// backprops = grads*sigmoid(-features)
REG_OP(ActgradLogSigmoidGrad)
    .INPUT(grads, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(features, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OUTPUT(backprops, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OP_END_FACTORY_REG(ActgradLogSigmoidGrad)

// output = gradients/(1+|features|)^2
REG_OP(ActgradSoftsignGrad)
    .INPUT(gradients, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(features, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OUTPUT(output, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OP_END_FACTORY_REG(ActgradSoftsignGrad)

// diff_src = diff_dst/(2*d) (use_dst) or diff_dst/(2*sqrt(src))
REG_OP(ActgradSqrtBackward)
    .INPUT(src_or_dst, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(diff_dst, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OUTPUT(diff_src, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .ATTR(use_dst, Bool, true)
    .OP_END_FACTORY_REG(ActgradSqrtBackward)

// none: diff_src = diff_dst*(Phi(src) + src*phi(src)); tanh: diff_src = diff_dst*(0.5*(1 + tanh(u)) + 0.5*src*(1 - tanh(u)^2)*u'), u = sqrt(2/pi)*(src + 0.044715*src^3)
REG_OP(ActgradGeluBackward)
    .INPUT(src, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(diff_dst, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OUTPUT(diff_src, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .ATTR(mode, String, "gelu_erf")
    .OP_END_FACTORY_REG(ActgradGeluBackward)

// z = dy*s*(1 + 1.702*x*(1 - s)), s = sigmoid(1.702*x) (1.702 as the f32 constant)
REG_OP(ActgradFastGeluGrad)
    .INPUT(dy, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(x, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OUTPUT(z, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OP_END_FACTORY_REG(ActgradFastGeluGrad)

// diff_src = diff_dst*(tanh(sp) + src*sigmoid(src)*(1 - tanh(sp)^2)), sp = softplus(src)
REG_OP(ActgradMishBackward)
    .INPUT(src, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(diff_dst, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OUTPUT(diff_src, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OP_END_FACTORY_REG(ActgradMishBackward)

// diff_src = dst*(diff_dst - sum_axis(diff_dst*dst))
REG_OP(ActgradSoftMaxBackward)
    .INPUT(diff_dst, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(dst, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OUTPUT(diff_src, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .ATTR(axis, Int, 1)
    .OP_END_FACTORY_REG(ActgradSoftMaxBackward)

// diff_src = diff_dst - exp(dst)*sum_axis(diff_dst)
REG_OP(ActgradLogSoftmaxBackward)
    .INPUT(diff_dst, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(dst, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OUTPUT(diff_src, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .ATTR(axis, Int, -1)
    .OP_END_FACTORY_REG(ActgradLogSoftmaxBackward)

}  // namespace ge

#endif  // ACTGRAD_OPS_PROTO_H_
