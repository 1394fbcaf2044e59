// Generated from python/actgrad/spec.py by scripts/gen_ops.py; do not edit, rerun the script.
// ActgradSigmoidBackward: diff_src = diff_dst*(d*(1-d)) (use_dst) or diff_dst*e/(1+e)^2 with e = exp(-|src|)
#include "kernel_operator.h"
#include "elementwise_grad.h"
#include "functors/sigmoid_family_grad.h"

extern "C" __global__ __aicore__ void actgrad_sigmoid_backward(GM_ADDR src_or_dst, GM_ADDR diff_dst, GM_ADDR diff_src, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    actgrad::RunElementwiseGrad<actgrad::SigmoidFamilyGrad>(src_or_dst, diff_dst, diff_src, tiling);
}
