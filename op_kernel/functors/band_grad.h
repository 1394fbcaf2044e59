// dst = grad * scale inside the open band (lo, hi) of the saved tensor, 0 outside (a select, so an infinite grad
// outside the band gives 0). HardtanhGrad, ClampBackward (scale 1) and HardsigmoidBackward (scale alpha) share it.
// params: [0] lo, [1] hi, [2] scale — f32 bounds the host chose so that the f32 compare decides like the contract;
// [3] loF16, [4] hiF16 — the same decision for f16 values, as f16 bounds (f16 tiles compare in f16, unwidened).
//
// NaN policy in two selects: a lane keeps grad*scale when saved is inside the band or grad is NaN (so a NaN grad is
// never zeroed), the others get 0; then a NaN saved value replaces the lane. With scale 1 both selects run on the
// storage type, so a tile is converted only where a compare needs f32 (bf16, which has no compare on A2/A3).
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
        uint32_t lanes;
        if constexpr (kComparesInStorage<T>) {
            lanes = CompareLanes<T>(n);
            Classify(s, t.saved, t.grad, T(params[3]), T(params[4]), lo < hi, lanes);
        } else {
            lanes = CompareLanes<float>(n);
            WidenSaved(t, n);
            WidenGrad(t, n);
            Classify(s, t.savedF, t.gradF, lo, hi, lo < hi, lanes);
        }
        const AscendC::LocalTensor<S> out = SelectView(t.out);
        if (scale == 1.0f) {
            AscendC::Select(out, s.mask[0], SelectView(t.grad), S(0.0f), AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, lanes);
        } else {
            if constexpr (kComparesInStorage<T>) WidenGrad(t, n);
            AscendC::Muls(t.outF, t.gradF, scale, int32_t(lanes));
            NarrowOut(t, n);
            AscendC::Select(out, s.mask[0], out, S(0.0f), AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, lanes);
        }
        AscendC::Select(out, s.mask[2], out, SelectView(t.saved), AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, lanes);
    }

private:
    // mask[0]: lanes that keep the gradient (inside the band, or a NaN grad); mask[2]: saved is a number.
    template <typename C>
    __aicore__ inline static void Classify(const Scratch& s, const AscendC::LocalTensor<C>& saved,
                                           const AscendC::LocalTensor<C>& grad, C lo, C hi, bool nonEmpty,
                                           uint32_t lanes) {
        const int32_t maskWords = int32_t(lanes / 16);
        AscendC::LocalTensor<uint16_t> keepWords = s.mask[0].ReinterpretCast<uint16_t>();
        AscendC::LocalTensor<uint16_t> work = s.mask[1].ReinterpretCast<uint16_t>();
        if (nonEmpty) {
            // x > lo and x < hi are both false only for NaN, so two compares classify every lane
            AscendC::Compares(s.mask[0], saved, lo, AscendC::CMPMODE::GT, lanes);
            AscendC::Compares(s.mask[1], saved, hi, AscendC::CMPMODE::LT, lanes);
            AscendC::Or(s.mask[2].ReinterpretCast<uint16_t>(), keepWords, work, maskWords);
            AscendC::And(keepWords, keepWords, work, maskWords);  // inside the band
            AscendC::Compare(s.mask[1], grad, grad, AscendC::CMPMODE::NE, lanes);
            AscendC::Or(keepWords, keepWords, work, maskWords);
        } else {  // empty band: only a NaN grad survives
            AscendC::Compare(s.mask[0], grad, grad, AscendC::CMPMODE::NE, lanes);
            AscendC::Compare(s.mask[2], saved, saved, AscendC::CMPMODE::EQ, lanes);
        }
    }
};

}  // namespace actgrad
