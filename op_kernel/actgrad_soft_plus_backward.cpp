// Generated from python/actgrad/spec.py by scripts/gen_ops.py; do not edit, rerun the script.
// ActgradSoftPlusBackward: diff_src = diff_dst if beta*src > threshold else diff_dst*sigmoid(beta*src)
#include "kernel_operator.h"
#include "elementwise_grad.h"
#include "functors/softplus_grad.h"

extern "C" __global__ __aicore__ void actgrad_soft_plus_backward(GM_ADDR src, GM_ADDR diff_dst, GM_ADDR diff_src, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    actgrad::RunElementwiseGrad<actgrad::SoftplusGrad>(src, diff_dst, diff_src, tiling);
}
