// Generated from python/actgrad/spec.py by scripts/gen_ops.py; do not edit, rerun the script.
#include "kernel_operator.h"
#include "row_grad.h"
#include "functors/softmax_grad.h"

extern "C" __global__ __aicore__ void actgrad_soft_max_backward(GM_ADDR diff_dst, GM_ADDR dst, GM_ADDR diff_src, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    actgrad::RunRowGrad<actgrad::SoftmaxGrad>(diff_dst, dst, diff_src, tiling);
}
