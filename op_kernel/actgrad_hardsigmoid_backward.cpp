// Generated from python/actgrad/spec.py by scripts/gen_ops.py; do not edit, rerun the script.
// ActgradHardsigmoidBackward: out = grad_output*alpha if 0 < alpha*self + beta < 1 else 0 (band bounds computed in double)
#include "kernel_operator.h"
#include "elementwise_grad.h"
#include "functors/band_grad.h"

extern "C" __global__ __aicore__ void actgrad_hardsigmoid_backward(GM_ADDR grad_output, GM_ADDR self, GM_ADDR out, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    actgrad::RunElementwiseGrad<actgrad::BandGrad>(self, grad_output, out, tiling);
}
