// Generated from python/actgrad/spec.py by scripts/gen_ops.py; do not edit, rerun the script.
// ActgradMishBackward: diff_src = diff_dst*(tanh(sp) + src*sigmoid(src)*(1 - tanh(sp)^2)), sp = softplus(src)
#include "kernel_operator.h"
#include "elementwise_grad.h"
#include "functors/mish_grad.h"

extern "C" __global__ __aicore__ void actgrad_mish_backward(GM_ADDR src, GM_ADDR diff_dst, GM_ADDR diff_src, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    actgrad::RunElementwiseGrad<actgrad::MishGrad>(src, diff_dst, diff_src, tiling);
}
