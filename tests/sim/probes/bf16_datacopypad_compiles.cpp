// PROBE: compile
// A bf16 kernel's unaligned tail: DataCopyPad with bfloat16_t, as op_kernel/elementwise_grad.h writes it.
#include "kernel_operator.h"

void CopyTail(AscendC::LocalTensor<bfloat16_t>& dst, const AscendC::GlobalTensor<bfloat16_t>& src, uint32_t n) {
    const AscendC::DataCopyExtParams copy{1, uint32_t(n * sizeof(bfloat16_t)), 0, 0, 0};
    const AscendC::DataCopyPadExtParams<bfloat16_t> noPad{};
    AscendC::DataCopyPad(dst, src, copy, noPad);
    AscendC::DataCopyPad(dst, src, copy, AscendC::DataCopyPadExtParams<bfloat16_t>{true, 0, 1, bfloat16_t(0)});
    dst.SetValue(0, 0);
}
