// Generated from python/actgrad/spec.py by scripts/gen_ops.py; do not edit, rerun the script.
// ActgradHardtanhGrad: y = grad if min_val < result < max_val else 0
#include "kernel_operator.h"
#include "elementwise_grad.h"
#include "functors/band_grad.h"

extern "C" __global__ __aicore__ void actgrad_hardtanh_grad(GM_ADDR result, GM_ADDR grad, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    actgrad::RunElementwiseGrad<actgrad::BandGrad>(result, grad, y, tiling);
}
