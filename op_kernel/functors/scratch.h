// UB scratch a compute functor may use for one tile: f32 temporaries and packed bit masks, each a whole tile long.
#pragma once
#include "kernel_operator.h"
#include "functor_needs.h"

namespace actgrad {

constexpr uint32_t kMaxTmpTiles = 2;
constexpr uint32_t kMaxMaskTiles = 2;

struct Scratch {
    AscendC::LocalTensor<float> tmp[kMaxTmpTiles];
    AscendC::LocalTensor<uint8_t> mask[kMaxMaskTiles];
};

// NaN in either input gives NaN (op-semantics A.2), whatever the branch logic chose: where saved or grad is NaN,
// dst = saved + grad. Uses mask[0], mask[1] and tmp[0].
__aicore__ inline void PropagateNan(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& saved,
                                    const AscendC::LocalTensor<float>& grad, const Scratch& s, uint32_t lanes) {
    AscendC::Compare(s.mask[0], saved, saved, AscendC::CMPMODE::NE, lanes);
    AscendC::Compare(s.mask[1], grad, grad, AscendC::CMPMODE::NE, lanes);
    AscendC::LocalTensor<uint16_t> either = s.mask[0].ReinterpretCast<uint16_t>();
    AscendC::Or(either, either, s.mask[1].ReinterpretCast<uint16_t>(), int32_t(lanes / 16));
    AscendC::Add(s.tmp[0], saved, grad, int32_t(lanes));
    AscendC::Select(dst, s.mask[0], s.tmp[0], dst, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, lanes);
}

}  // namespace actgrad
