// Generated from python/actgrad/spec.py by scripts/gen_ops.py; do not edit, rerun the script.
// ActgradEluBackward: x <= 0: diff_dst*input_scale*(x + alpha*scale) (dst) or diff_dst*input_scale*alpha*scale*exp(x*input_scale) (src); else diff_dst*scale
#include "kernel_operator.h"
#include "elementwise_grad.h"
#include "functors/elu_grad.h"

extern "C" __global__ __aicore__ void actgrad_elu_backward(GM_ADDR src_or_dst, GM_ADDR diff_dst, GM_ADDR diff_src, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    actgrad::RunElementwiseGrad<actgrad::EluGrad>(src_or_dst, diff_dst, diff_src, tiling);
}
