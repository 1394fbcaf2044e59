// Generated from python/actgrad/spec.py by scripts/gen_ops.py; do not edit, rerun the script.
// ActgradSoftShrinkGrad: output_y = 0 if -lambd <= input_x <= lambd else input_grad
#include "kernel_operator.h"
#include "elementwise_grad.h"
#include "functors/step_grad.h"

extern "C" __global__ __aicore__ void actgrad_soft_shrink_grad(GM_ADDR input_grad, GM_ADDR input_x, GM_ADDR output_y, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    actgrad::RunElementwiseGrad<actgrad::StepGrad>(input_x, input_grad, output_y, tiling);
}
