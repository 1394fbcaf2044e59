// Generated from python/actgrad/spec.py by scripts/gen_ops.py; do not edit, rerun the script.
// ActgradLogSigmoidGrad: backprops = grads*sigmoid(-features)
#include "kernel_operator.h"
#include "elementwise_grad.h"
#include "functors/sigmoid_family_grad.h"

extern "C" __global__ __aicore__ void actgrad_log_sigmoid_grad(GM_ADDR grads, GM_ADDR features, GM_ADDR backprops, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    actgrad::RunElementwiseGrad<actgrad::SigmoidFamilyGrad>(features, grads, backprops, tiling);
}
