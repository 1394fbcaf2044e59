// Generated from python/actgrad/spec.py by scripts/gen_ops.py; do not edit, rerun the script.
// ActgradGeluBackward: none: diff_src = diff_dst*(Phi(src) + src*phi(src)); tanh: diff_src = diff_dst*(0.5*(1 + tanh(u)) + 0.5*src*(1 - tanh(u)^2)*u'), u = sqrt(2/pi)*(src + 0.044715*src^3)
#include "kernel_operator.h"
#include "elementwise_grad.h"
#include "functors/gelu_grad.h"

extern "C" __global__ __aicore__ void actgrad_gelu_backward(GM_ADDR src, GM_ADDR diff_dst, GM_ADDR diff_src, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    actgrad::RunElementwiseGrad<actgrad::GeluGrad>(src, diff_dst, diff_src, tiling);
}
