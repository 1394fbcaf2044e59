// dst = grad * scale inside the open band (lo, hi) of the saved tensor, 0 outside (a select, so an infinite grad
// outside the band gives 0). HardtanhGrad, ClampBackward (scale 1) and HardsigmoidBackward (scale alpha) share it.
// params: [0] lo, [1] hi, [2] scale — f32 bounds the host chose so that the f32 compare decides like the contract.
//
// NaN policy in one select: a lane is zeroed only when saved is outside the band (x <= lo or x >= hi, both false
// for NaN) and grad is not NaN; every other lane takes grad*scale + (saved - saved), which is grad*scale in the band
// (saved is finite there) and NaN when either input is NaN.
#pragma once
#include "scratch.h"

namespace actgrad {

struct BandGrad {
    static constexpr uint32_t kTmpTiles = kBandGradNeeds.tmpTiles;
    static constexpr uint32_t kMaskTiles = kBandGradNeeds.maskTiles;

    __aicore__ inline static void Compute(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& saved,
                                          const AscendC::LocalTensor<float>& grad, const Scratch& s, const float* params,
                                          uint32_t lanes) {
        const float lo = params[0], hi = params[1], scale = params[2];
        const int32_t n = int32_t(lanes);
        AscendC::LocalTensor<uint16_t> keep = s.mask[0].ReinterpretCast<uint16_t>();
        AscendC::LocalTensor<uint16_t> other = s.mask[1].ReinterpretCast<uint16_t>();
        const int32_t maskWords = int32_t(lanes / 16);
        AscendC::Compares(s.mask[0], saved, lo, AscendC::CMPMODE::LE, lanes);
        AscendC::Compares(s.mask[1], saved, hi, AscendC::CMPMODE::GE, lanes);
        AscendC::Or(keep, keep, other, maskWords);                              // outside the band
        AscendC::Compare(s.mask[1], grad, grad, AscendC::CMPMODE::EQ, lanes);  // grad is not NaN
        AscendC::And(keep, keep, other, maskWords);                             // lanes to zero ...
        AscendC::Not(keep, keep, maskWords);                                    // ... and the ones to keep
        AscendC::Sub(s.tmp[0], saved, saved, n);
        if (scale == 1.0f) {
            AscendC::Add(s.tmp[0], grad, s.tmp[0], n);
        } else {
            AscendC::Muls(dst, grad, scale, n);
            AscendC::Add(s.tmp[0], dst, s.tmp[0], n);
        }
        AscendC::Select(dst, s.mask[0], s.tmp[0], 0.0f, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, lanes);
    }
};

}  // namespace actgrad
