// Generated from python/actgrad/spec.py by scripts/gen_ops.py; do not edit, rerun the script.
// ActgradSoftsignGrad: output = gradients/(1+|features|)^2
#include "kernel_operator.h"
#include "elementwise_grad.h"
#include "functors/quotient_grad.h"

extern "C" __global__ __aicore__ void actgrad_softsign_grad(GM_ADDR gradients, GM_ADDR features, GM_ADDR output, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    actgrad::RunElementwiseGrad<actgrad::QuotientGrad>(features, gradients, output, tiling);
}
