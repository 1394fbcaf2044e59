// dst = grad * scale inside the open band (lo, hi) of the saved tensor, 0 outside (a select, so an infinite grad
// outside the band gives 0). HardtanhGrad, ClampBackward (scale 1) and HardsigmoidBackward (scale alpha) share it.
// params: [0] lo, [1] hi, [2] scale — f32 bounds the host chose so that the f32 compare decides like the contract.
//
// NaN policy in two selects: a lane keeps grad*scale when saved is inside the band or grad is NaN (so a NaN grad is
// never zeroed), the others get 0; then a NaN saved value replaces the lane. With scale 1 both selects run on the
// storage type, so f16/bf16 tiles are widened only for the compares and never narrowed.
#pragma once
#include "scratch.h"
#include "tile_operands.h"

namespace actgrad {

struct BandGrad {
    static constexpr uint32_t kTmpTiles = kBandGradNeeds.tmpTiles;
    static constexpr uint32_t kMaskTiles = kBandGradNeeds.maskTiles;

    template <typename T>
    __aicore__ inline static void Compute(const TileOperands<T>& t, const Scratch& s, const float* params, uint32_t n) {
        using S = typename SelectLane<T>::type;
        const float lo = params[0], hi = params[1], scale = params[2];
        const uint32_t lanes = CompareLanes(n);
        const int32_t maskWords = int32_t(lanes / 16);
        const AscendC::LocalTensor<uint8_t>& keepGrad = s.mask[0];
        const AscendC::LocalTensor<uint8_t>& savedIsNumber = s.mask[2];
        AscendC::LocalTensor<uint16_t> keepWords = s.mask[0].ReinterpretCast<uint16_t>();
        AscendC::LocalTensor<uint16_t> work = s.mask[1].ReinterpretCast<uint16_t>();
        WidenSaved(t, n);
        WidenGrad(t, n);
        if (lo < hi) {
            // x > lo and x < hi are both false only for NaN, so two compares classify every lane
            AscendC::Compares(s.mask[0], t.savedF, lo, AscendC::CMPMODE::GT, lanes);
            AscendC::Compares(s.mask[1], t.savedF, hi, AscendC::CMPMODE::LT, lanes);
            AscendC::Or(savedIsNumber.ReinterpretCast<uint16_t>(), keepWords, work, maskWords);
            AscendC::And(keepWords, keepWords, work, maskWords);  // inside the band
            AscendC::Compare(s.mask[1], t.gradF, t.gradF, AscendC::CMPMODE::NE, lanes);
            AscendC::Or(keepWords, keepWords, work, maskWords);
        } else {  // empty band: only a NaN grad survives
            AscendC::Compare(s.mask[0], t.gradF, t.gradF, AscendC::CMPMODE::NE, lanes);
            AscendC::Compare(savedIsNumber, t.savedF, t.savedF, AscendC::CMPMODE::EQ, lanes);
        }
        const AscendC::LocalTensor<S> out = SelectView(t.out);
        if (scale == 1.0f) {
            AscendC::Select(out, keepGrad, SelectView(t.grad), S(0.0f), AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, lanes);
        } else {
            AscendC::Muls(t.outF, t.gradF, scale, int32_t(lanes));
            NarrowOut(t, n);
            AscendC::Select(out, keepGrad, out, S(0.0f), AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, lanes);
        }
        AscendC::Select(out, savedIsNumber, out, SelectView(t.saved), AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, lanes);
    }
};

}  // namespace actgrad
