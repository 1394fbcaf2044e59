// dst = grad * scale inside the open band (lo, hi) of the saved tensor, 0 outside (a select, so an infinite grad
// outside the band gives 0). HardtanhGrad, ClampBackward (scale 1) and HardsigmoidBackward (scale alpha) share it.
// params: [0] lo, [1] hi, [2] scale — f32 bounds the host chose so that the f32 compare decides like the contract.
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
        AscendC::Compares(s.mask[0], saved, lo, AscendC::CMPMODE::GT, lanes);
        AscendC::Compares(s.mask[1], saved, hi, AscendC::CMPMODE::LT, lanes);
        AscendC::LocalTensor<uint16_t> inBand = s.mask[0].ReinterpretCast<uint16_t>();
        AscendC::And(inBand, inBand, s.mask[1].ReinterpretCast<uint16_t>(), int32_t(lanes / 16));
        if (scale == 1.0f) {
            AscendC::Select(dst, s.mask[0], grad, 0.0f, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, lanes);
        } else {
            AscendC::Muls(s.tmp[0], grad, scale, int32_t(lanes));
            AscendC::Select(dst, s.mask[0], s.tmp[0], 0.0f, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, lanes);
        }
        PropagateNan(dst, saved, grad, s, lanes);
    }
};

}  // namespace actgrad
