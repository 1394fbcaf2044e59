// Generated from python/actgrad/spec.py by scripts/gen_ops.py; do not edit, rerun the script.
// ActgradSiluGrad: dx = dy*sigmoid(x)*(1 + x*(1-sigmoid(x)))
#include "kernel_operator.h"
#include "elementwise_grad.h"
#include "functors/sigmoid_family_grad.h"

extern "C" __global__ __aicore__ void actgrad_silu_grad(GM_ADDR dy, GM_ADDR x, GM_ADDR dx, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    actgrad::RunElementwiseGrad<actgrad::SigmoidFamilyGrad>(x, dy, dx, tiling);
}
