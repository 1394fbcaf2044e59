// Derivatives that are the gradient divided by a denominator: Softsign g/(1+|x|)^2, evaluated as (g/(1+|x|))/(1+|x|)
// so the square cannot overflow, and Sqrt g/(2*d) with d the forward output or sqrt(src) (2*d is exact; it overflows
// only for |d| >= 2^127, which no f32 square root reaches). A zero d is made +0 first, so -0 gives the derivative at
// 0, +inf, as +0 does.
//
// NaN propagates by itself (a negative src through sqrt). An infinite grad where the f32 derivative is exactly 0 (an
// infinite denominator) gives 0, not inf/inf.
// params: [0] QuotientForm
#pragma once
#include "scratch.h"
#include "tile_operands.h"
#include "zero_derivative.h"

namespace actgrad {

struct QuotientGrad {
    static constexpr uint32_t kTmpTiles = kQuotientGradNeeds.tmpTiles;
    static constexpr uint32_t kMaskTiles = kQuotientGradNeeds.maskTiles;
    static constexpr float kFloatMax = 3.40282347e+38f;

    template <typename T>
    __aicore__ inline static void Compute(const TileOperands<T>& t, const Scratch& s, const float* params, uint32_t n) {
        const QuotientForm form = QuotientForm(uint32_t(params[0]));
        const uint32_t lanes = CompareLanes<float>(n);
        const int32_t m = int32_t(lanes);
        WidenSaved(t, n);
        WidenGrad(t, n);
        const AscendC::LocalTensor<float>& den = s.tmp[0];
        AscendC::LocalTensor<float> denMagnitude = den;  // |den|, for the infinity test
        if (form == QuotientForm::kSoftsign) {
            AscendC::Abs(den, t.savedF, m);
            AscendC::Adds(den, den, 1.0f, m);
            AscendC::Div(t.outF, t.gradF, den, m);
            AscendC::Div(t.outF, t.outF, den, m);
        } else {
            if (form == QuotientForm::kSqrtOfSrc) {
                AscendC::Sqrt(den, t.savedF, m);
                AscendC::Adds(den, den, 0.0f, m);  // -0 + 0 = +0
            } else {
                AscendC::Adds(den, t.savedF, 0.0f, m);
            }
            AscendC::Muls(den, den, 2.0f, m);
            AscendC::Div(t.outF, t.gradF, den, m);
            if (form == QuotientForm::kSqrtOfDst) {  // a negative dst gives the formula's value, -inf included
                AscendC::Abs(s.tmp[1], den, m);
                denMagnitude = s.tmp[1];
            }
        }
        // keep: a finite denominator (or a NaN one), or a NaN grad
        const AscendC::LocalTensor<uint8_t>& keep = s.mask[0];
        AscendC::Compares(keep, denMagnitude, kFloatMax, AscendC::CMPMODE::GT, lanes);
        const AscendC::LocalTensor<uint16_t> keepWords = keep.ReinterpretCast<uint16_t>();
        AscendC::Not(keepWords, keepWords, int32_t(lanes / 16));
        AscendC::Compare(s.mask[1], t.gradF, t.gradF, AscendC::CMPMODE::NE, lanes);
        KeepAlso(keep, s.mask[1], lanes);
        NarrowOut(t, n);
        ZeroUnlessKept(t.out, keep, lanes);
    }
};

}  // namespace actgrad
