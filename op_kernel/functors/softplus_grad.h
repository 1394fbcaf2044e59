// Softplus backward: grad where beta*x > threshold, else grad*sigmoid(beta*x), with sigmoid in the stable form
// e/(1+e) (x < 0) or 1/(1+e) (x >= 0), e = exp(-|beta*x|), so neither tail overflows. NaN propagates by itself; an
// infinite grad where the sigmoid is 0 gives 0.
// params: [0] beta, [1] threshold, [2..4] -|beta| split for ExpOfProduct (hi, lo, xScale), so exp(-|beta*x|)
// does not inherit the product's rounding.
//
// A threshold at or above kSigmoidIsOne changes no result, so its test is skipped (ATen's 20 and the default inf):
// above it e = exp(-beta*x) < 2.6e-8, below half an ulp of 1 (2^-24) even with exp a few ulp off, so the f32
// sigmoid 1/(1+e) is exactly 1 and grad*1 is grad, as the threshold would give (for inf and NaN x and grad too).
// That grad*1 keeps a subnormal f32/bf16 grad (and a NaN's payload) is the same assumption as every product of the
// formula; 910B documents no flushing of subnormal results (ascendc-api.md, known unknowns): check on hardware.
#pragma once
#include "exp_of_product.h"
#include "scratch.h"
#include "tile_operands.h"
#include "zero_derivative.h"

namespace actgrad {

struct SoftplusGrad {
    static constexpr float kSigmoidIsOne = 17.5f;
    static constexpr uint32_t kTmpTiles = kSoftplusGradNeeds.tmpTiles;
    static constexpr uint32_t kMaskTiles = kSoftplusGradNeeds.maskTiles;

    template <typename T>
    __aicore__ inline static void Compute(const TileOperands<T>& t, const Scratch& s, const float* params, uint32_t n) {
        const float beta = params[0], threshold = params[1];
        const uint32_t lanes = CompareLanes<float>(n);
        const int32_t m = int32_t(lanes);
        const AscendC::LocalTensor<float>& e = s.tmp[1];
        WidenSaved(t, n);
        WidenGrad(t, n);
        AscendC::LocalTensor<float> bx = t.savedF;  // x * 1 would return x unchanged
        if (beta != 1.0f) {
            AscendC::Muls(s.tmp[0], t.savedF, beta, m);
            bx = s.tmp[0];
        }
        const bool thresholdMatters = threshold < kSigmoidIsOne;
        AscendC::Compares(s.mask[0], bx, 0.0f, AscendC::CMPMODE::LT, lanes);
        if (thresholdMatters) AscendC::Compares(s.mask[1], bx, threshold, AscendC::CMPMODE::GT, lanes);
        // -|beta*x| is the product -|beta| * |x| (rounding is symmetric), so ExpOfProduct can undo its rounding
        const AscendC::LocalTensor<float>& negAbs = s.tmp[0];
        AscendC::Abs(negAbs, bx, m);
        AscendC::Muls(negAbs, negAbs, -1.0f, m);
        const SplitCoefficient split{params[2], params[3], params[4]};
        if (split.xScale != 0.0f) AscendC::Abs(t.savedF, t.savedF, m);
        ExpOfProduct<kIsWidened<T>>(e, t.savedF, negAbs, t.outF, s.mask[2], split, lanes);  // consumes savedF; outF is free
        AscendC::Adds(t.outF, e, 1.0f, m);  // outF holds the denominator for a moment
        AscendC::Select(e, s.mask[0], e, 1.0f, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, lanes);
        AscendC::Div(e, e, t.outF, m);
        AscendC::Mul(t.outF, t.gradF, e, m);
        MarkNonZeroDerivative(s.mask[0], e, false, t.gradF, s.mask[2], lanes);  // the sigmoid may be 0
        if (thresholdMatters) {
            KeepAlso(s.mask[0], s.mask[1], lanes);
            AscendC::Select(t.outF, s.mask[1], t.gradF, t.outF, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, lanes);
        }
        NarrowOut(t, n);
        ZeroUnlessKept(t.out, s.mask[0], lanes);
    }
};

}  // namespace actgrad
