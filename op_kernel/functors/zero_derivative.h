// Select semantics where the derivative is exactly 0 (op-semantics A.2): a product grad * 0 is NaN for an infinite
// grad, but the result must be 0 there, as a select gives it; a NaN grad, or a NaN factor (from a NaN saved value),
// still gives NaN. The functor marks the lanes whose product stands and selects 0 in the others at the end, on the
// storage type (Select moves bits, so after narrowing it moves half the bytes of f16/bf16 tiles).
// Assumes, like IEEE, that CMPMODE::NE is true for a NaN operand and that Exp keeps subnormal results; 910B documents
// neither (ascendc-api.md, known unknowns): check both on hardware.
#pragma once
#include "kernel_operator.h"
#include "tile_operands.h"

namespace actgrad {

// keep |= lanes (whole 16-bit mask words: lanes is a CompareLanes count)
__aicore__ inline void KeepAlso(const AscendC::LocalTensor<uint8_t>& keep, const AscendC::LocalTensor<uint8_t>& lanesToKeep,
                                uint32_t lanes) {
    const AscendC::LocalTensor<uint16_t> keepWords = keep.ReinterpretCast<uint16_t>();
    AscendC::Or(keepWords, keepWords, lanesToKeep.ReinterpretCast<uint16_t>(), int32_t(lanes / 16));
}

// keep: factor != 0 (true for NaN) or grad is NaN; with a host-known zero coefficient (the derivative is 0 whatever
// the factor) only the NaN lanes. gradIsNan is a free mask tile; it holds grad's NaN lanes afterwards.
__aicore__ inline void MarkNonZeroDerivative(const AscendC::LocalTensor<uint8_t>& keep,
                                             const AscendC::LocalTensor<float>& factor, bool coefficientIsZero,
                                             const AscendC::LocalTensor<float>& gradF,
                                             const AscendC::LocalTensor<uint8_t>& gradIsNan, uint32_t lanes) {
    if (coefficientIsZero) {
        AscendC::Compare(keep, factor, factor, AscendC::CMPMODE::NE, lanes);
    } else {
        AscendC::Compares(keep, factor, 0.0f, AscendC::CMPMODE::NE, lanes);
    }
    AscendC::Compare(gradIsNan, gradF, gradF, AscendC::CMPMODE::NE, lanes);
    KeepAlso(keep, gradIsNan, lanes);
}

// out = keep ? out : 0, on the storage type
template <typename T>
__aicore__ inline void ZeroUnlessKept(const AscendC::LocalTensor<T>& out, const AscendC::LocalTensor<uint8_t>& keep,
                                      uint32_t lanes) {
    using S = typename SelectLane<T>::type;
    const AscendC::LocalTensor<S> view = SelectView(out);
    AscendC::Select(view, keep, view, S(0.0f), AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, lanes);
}

}  // namespace actgrad
