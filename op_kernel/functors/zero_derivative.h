// Select semantics where the derivative is exactly 0 (op-semantics A.2): a product grad * 0 is NaN for an infinite
// grad, but the result must be 0 there, as a select gives it; a NaN grad, or a NaN factor (from a NaN saved value),
// still gives NaN.
#pragma once
#include "kernel_operator.h"

namespace actgrad {

// product = grad * coefficient * factor, in place. coefficientIsZero: the host-known coefficient is 0, so the derivative
// is 0 whatever the factor. keep and gradIsNan are free mask tiles; gradIsNan holds grad's NaN lanes afterwards.
__aicore__ inline void ZeroWhereDerivativeIsZero(const AscendC::LocalTensor<float>& product,
                                                 const AscendC::LocalTensor<float>& factor, bool coefficientIsZero,
                                                 const AscendC::LocalTensor<float>& gradF,
                                                 const AscendC::LocalTensor<uint8_t>& keep,
                                                 const AscendC::LocalTensor<uint8_t>& gradIsNan, uint32_t lanes) {
    if (coefficientIsZero) {
        AscendC::Compare(keep, factor, factor, AscendC::CMPMODE::NE, lanes);
    } else {
        AscendC::Compares(keep, factor, 0.0f, AscendC::CMPMODE::NE, lanes);  // true for NaN
    }
    AscendC::Compare(gradIsNan, gradF, gradF, AscendC::CMPMODE::NE, lanes);
    const AscendC::LocalTensor<uint16_t> keepWords = keep.ReinterpretCast<uint16_t>();
    AscendC::Or(keepWords, keepWords, gradIsNan.ReinterpretCast<uint16_t>(), int32_t(lanes / 16));
    AscendC::Select(product, keep, product, 0.0f, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, lanes);
}

}  // namespace actgrad
