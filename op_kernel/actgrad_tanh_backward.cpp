// Generated from python/actgrad/spec.py by scripts/gen_ops.py; do not edit, rerun the script.
// ActgradTanhBackward: diff_src = diff_dst*((1-d)*(1+d)) (use_dst) or diff_dst*4e/(1+e)^2 with e = exp(-2|src|)
#include "kernel_operator.h"
#include "elementwise_grad.h"
#include "functors/sigmoid_family_grad.h"

extern "C" __global__ __aicore__ void actgrad_tanh_backward(GM_ADDR src_or_dst, GM_ADDR diff_dst, GM_ADDR diff_src, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    actgrad::RunElementwiseGrad<actgrad::SigmoidFamilyGrad>(src_or_dst, diff_dst, diff_src, tiling);
}
