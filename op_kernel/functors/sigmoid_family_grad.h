// Derivatives of the logistic family from one exponential. With e = exp(-k|x|) (never overflows; -k|x| is exact for
// k = 1 and 2) and t = 1 + e:
//   sigmoid(x) = A/t and sigmoid(-x) = B/t, where A = e, B = 1 for x < 0 and A = 1, B = e otherwise (A*B = e), so
//   sigmoid'(x) = e/t^2, tanh'(x) = 4e/t^2 with k = 2, SiLU'(x) = sigmoid(x) + x*sigmoid'(x) = (A*t + x*e)/t^2,
//   logsigmoid'(x) = sigmoid(-x) = B/t,
// with no 1 - sigmoid cancellation, and the f32 value (a subnormal, not 0) where exp underflows. The dst forms of
// SigmoidBackward and TanhBackward are the polynomials d*(1-d) and (1-d)*(1+d) (1-d is exact near d = 1, so 1 - d*d's
// cancellation is avoided). From a 16-bit d the tanh form is 1 - d*d, one vector instruction fewer: d has 11
// significant bits (f16) or 8 (bf16), so d*d is exact in f32 (or, where a bf16 d's square underflows, far under half an
// ulp of 1; where it overflows, both forms give -inf) and 1 - d*d is the exact value rounded once, where (1-d)*(1+d)
// rounds 1-d and 1+d first for |d| below about 2^-13: the f32 derivatives then differ by an ulp, the 16-bit results
// not. The sigmoid form stays d*(1-d): d - d*d would be inf - inf = NaN at d = +inf, whose limit is -inf. The result is
// grad * derivative, one f32 product.
//
// The high-level Sigmoid/Tanh APIs are not used: their accuracy on A2/A3 is undocumented (the vendor's gate is 1e-4
// relative, ascendc-api.md), a derivative formed from their value (s*(1-s), 1 - tanh^2) loses its low bits where the
// value saturates, and they need a shared tmp buffer besides (on the twin they are also scalar loops).
//
// NaN propagates through e and t. An infinite x gives the derivative's limit through e = 0; SiLU clamps x to
// +-kSiluClamp first (e is 0 well before), so x*e is 0 rather than inf*0. An infinite grad where the f32 derivative is
// exactly 0 gives 0.
// params: [0] SigmoidFamilyForm, [1] k, [2] c (kLogisticOfSrc: c*e/t^2 with e = exp(-k|x|))
#pragma once
#include "scratch.h"
#include "tile_operands.h"
#include "zero_derivative.h"

namespace actgrad {

struct SigmoidFamilyGrad {
    static constexpr uint32_t kTmpTiles = kSigmoidFamilyGradNeeds.tmpTiles;
    static constexpr uint32_t kMaskTiles = kSigmoidFamilyGradNeeds.maskTiles;
    static constexpr float kSiluClamp = 200.0f;  // exp(-200) is 0 in f32 (below 2^-150): no e the clamp changes

    template <typename T>
    __aicore__ inline static void Compute(const TileOperands<T>& t, const Scratch& s, const float* params, uint32_t n) {
        const SigmoidFamilyForm form = SigmoidFamilyForm(uint32_t(params[0]));
        const uint32_t lanes = CompareLanes<float>(n);
        const int32_t m = int32_t(lanes);
        WidenSaved(t, n);
        WidenGrad(t, n);
        const AscendC::LocalTensor<float>& x = t.savedF;  // consumed by the SiLU form
        const AscendC::LocalTensor<float>& derivative = t.outF;
        if (form == SigmoidFamilyForm::kSigmoidOfDst || form == SigmoidFamilyForm::kTanhOfDst) {
            DstPolynomial<T>(form, x, s, derivative, m);
        } else {
            ExpOfNegAbs(x, params[1], s, lanes);
            DerivativeFromExp(form, x, params[2], s, derivative, lanes);
        }
        MarkNonZeroDerivative(s.mask[1], derivative, false, t.gradF, s.mask[2], lanes);
        AscendC::Mul(t.outF, t.gradF, derivative, m);
        NarrowOut(t, n);
        ZeroUnlessKept(t.out, s.mask[1], lanes);
    }

private:
    // derivative = d*(1-d) (sigmoid) or (1-d)*(1+d) (tanh, as 1 - d*d from a 16-bit d) of d = x (see the top)
    template <typename T>
    __aicore__ inline static void DstPolynomial(SigmoidFamilyForm form, const AscendC::LocalTensor<float>& x,
                                                const Scratch& s, const AscendC::LocalTensor<float>& derivative,
                                                int32_t m) {
        const bool sigmoid = form == SigmoidFamilyForm::kSigmoidOfDst;
        if (kIsWidened<T> && !sigmoid) {  // 1 - d*d
            const AscendC::LocalTensor<float>& negSquare = s.tmp[0];
            AscendC::Mul(negSquare, x, x, m);
            AscendC::Muls(negSquare, negSquare, -1.0f, m);
            AscendC::Adds(derivative, negSquare, 1.0f, m);
            return;
        }
        const AscendC::LocalTensor<float>& oneMinus = s.tmp[0];
        AscendC::Muls(oneMinus, x, -1.0f, m);
        AscendC::Adds(oneMinus, oneMinus, 1.0f, m);
        if (sigmoid) {
            AscendC::Mul(derivative, x, oneMinus, m);
        } else {
            AscendC::Adds(s.tmp[1], x, 1.0f, m);
            AscendC::Mul(derivative, oneMinus, s.tmp[1], m);
        }
    }

    // s.tmp[1] = e = exp(-k|x|), s.tmp[0] = t = 1 + e
    __aicore__ inline static void ExpOfNegAbs(const AscendC::LocalTensor<float>& x, float k, const Scratch& s,
                                              uint32_t lanes) {
        const int32_t m = int32_t(lanes);
        AscendC::Abs(s.tmp[0], x, m);
        AscendC::Muls(s.tmp[0], s.tmp[0], -k, m);
        AscendC::Exp(s.tmp[1], s.tmp[0], m);
        AscendC::Adds(s.tmp[0], s.tmp[1], 1.0f, m);
    }

    // derivative from e (s.tmp[1]) and t (s.tmp[0]); both are consumed
    __aicore__ inline static void DerivativeFromExp(SigmoidFamilyForm form, const AscendC::LocalTensor<float>& x, float c,
                                                    const Scratch& s, const AscendC::LocalTensor<float>& derivative,
                                                    uint32_t lanes) {
        const int32_t m = int32_t(lanes);
        const AscendC::LocalTensor<float>& onePlus = s.tmp[0];
        const AscendC::LocalTensor<float>& e = s.tmp[1];
        const AscendC::LocalTensor<uint8_t>& side = s.mask[0];
        if (form == SigmoidFamilyForm::kLogisticOfSrc) {
            AscendC::Mul(derivative, onePlus, onePlus, m);
            if (c != 1.0f) AscendC::Muls(e, e, c, m);  // a power of two: exact
            AscendC::Div(derivative, e, derivative, m);
        } else if (form == SigmoidFamilyForm::kLogSigmoid) {
            // B = e where x >= 0, else 1 (a NaN x has a NaN t already)
            AscendC::Compares(side, x, 0.0f, AscendC::CMPMODE::GE, lanes);
            AscendC::Select(e, side, e, 1.0f, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, lanes);
            AscendC::Div(derivative, e, onePlus, m);
        } else {  // kSilu
            AscendC::Compares(side, x, 0.0f, AscendC::CMPMODE::LT, lanes);
            // Max/Min's NaN behaviour does not matter: a NaN x has a NaN t, which reaches the result
            AscendC::Maxs(x, x, -kSiluClamp, m);
            AscendC::Mins(x, x, kSiluClamp, m);
            AscendC::Mul(x, x, e, m);  // x*e
            AscendC::Mul(derivative, e, onePlus, m);
            // A*t: e*t where x < 0, else t
            AscendC::Select(derivative, side, derivative, onePlus, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, lanes);
            AscendC::Add(derivative, derivative, x, m);
            AscendC::Mul(onePlus, onePlus, onePlus, m);
            AscendC::Div(derivative, derivative, onePlus, m);
        }
    }
};

}  // namespace actgrad
