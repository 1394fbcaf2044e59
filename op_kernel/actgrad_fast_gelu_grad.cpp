// Generated from python/actgrad/spec.py by scripts/gen_ops.py; do not edit, rerun the script.
// ActgradFastGeluGrad: z = dy*s*(1 + 1.702*x*(1 - s)), s = sigmoid(1.702*x) (1.702 as the f32 constant)
#include "kernel_operator.h"
#include "elementwise_grad.h"
#include "functors/fast_gelu_grad.h"

extern "C" __global__ __aicore__ void actgrad_fast_gelu_grad(GM_ADDR dy, GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    actgrad::RunElementwiseGrad<actgrad::FastGeluGrad>(x, dy, z, tiling);
}
