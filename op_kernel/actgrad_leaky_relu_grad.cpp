// Generated from python/actgrad/spec.py by scripts/gen_ops.py; do not edit, rerun the script.
// ActgradLeakyReluGrad: backprops = gradients if features > 0 else gradients*negative_slope
#include "kernel_operator.h"
#include "elementwise_grad.h"
#include "functors/step_grad.h"

extern "C" __global__ __aicore__ void actgrad_leaky_relu_grad(GM_ADDR gradients, GM_ADDR features, GM_ADDR backprops, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    actgrad::RunElementwiseGrad<actgrad::StepGrad>(features, gradients, backprops, tiling);
}
