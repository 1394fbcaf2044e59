// Generated from python/actgrad/spec.py by scripts/gen_ops.py; do not edit, rerun the script.
// ActgradAbsBackward: diff_src = diff_dst if src > 0, -diff_dst if src < 0, 0 if src = 0
#include "kernel_operator.h"
#include "elementwise_grad.h"
#include "functors/step_grad.h"

extern "C" __global__ __aicore__ void actgrad_abs_backward(GM_ADDR src, GM_ADDR diff_dst, GM_ADDR diff_src, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    actgrad::RunElementwiseGrad<actgrad::StepGrad>(src, diff_dst, diff_src, tiling);
}
