// GELU backward, both forms of oneDNN's GELUBackward / ATen's gelu_backward; dx = dy*d.
// params: [0] the approximate attribute's index: 0 "none" (erf, oneDNN gelu_erf), 1 "tanh" (gelu_tanh).
//
// erf: d = Phi(x) + x*phi(x). Phi(x) = (1 + erf(x/sqrt2))/2 cancels for x < 0 (so the Erf API cannot give the
// contract's accuracy there: at x = -3, 1 + erf(-2.12) loses 8 bits), so the kernel uses Mills' ratio instead:
// with t = |x|,
// F(t) = (1 - Phi(t))/(sqrt(2 pi) phi(t)) = erfcx(t/sqrt2)/2 and M = F(t) - t/sqrt(2 pi),
// d = exp(-t^2/2)*M for x < 0 and 1 - exp(-t^2/2)*M otherwise: no cancellation but near the zero of d (x ~ -0.75).
// F is a (3,4) rational in t fitted on [0, 14.5] (evaluated in f32, M is within 2.6*2^-24 of
// max(F, t/sqrt(2 pi)) up to t = 4.3, 1.8e-7 beyond; (2,3) for f16/bf16); t is clamped at 14.5, where exp(-t^2/2)
// is 0 in f32.
// exp(-t^2/2) carries the square's rounding error (ExpOfMinusHalfSquare).
//
// tanh: with 2u = x*(a + b*x^2) (a = 2*sqrt(2/pi), b = a*0.044715) and s = sigmoid(2u),
// d = 0.5*(1 + tanh(u)) + 0.5*x*(1 - tanh(u)^2)*u' = s*(1 + (1 - s)*w), w = x*(a + 3*b*x^2); s and 1 - s come from
// e = exp(-|2u|) as in FastGeluGrad (no overflow, no cancellation; d = s + q*r*w). An absolute error of the argument
// 2u is that relative error of s for x < 0: in f32, e carries the roundings of 2u (ExpOfMinusGeluTanhArgument), from
// |x| clamped at 16 (e is 0 beyond), which also keeps q*r*|w| from 0*inf at infinite x; f16/bf16 (which need far
// less) take the plain f32 argument and clamp |w| at 65536 instead.
//
// Both: a NaN x propagates through exp; an infinite dy where the f32 d is exactly 0 (exp underflowed) gives 0.
#pragma once
#include "exp_of_gelu_tanh.h"
#include "exp_of_square.h"
#include "scratch.h"
#include "sigmoid_gate.h"
#include "tile_operands.h"
#include "zero_derivative.h"

namespace actgrad {

struct GeluGrad {
    static constexpr uint32_t kTmpTiles = kGeluGradNeeds.tmpTiles;
    static constexpr uint32_t kMaskTiles = kGeluGradNeeds.maskTiles;

    template <typename T>
    __aicore__ inline static void Compute(const TileOperands<T>& t, const Scratch& s, const float* params, uint32_t n) {
        const uint32_t lanes = CompareLanes<float>(n);
        WidenSaved(t, n);
        WidenGrad(t, n);
        const bool erf = params[0] == 0.0f;
        const AscendC::LocalTensor<float> d =
            erf ? ErfForm<kIsWidened<T>>(t, s, lanes) : TanhForm<kIsWidened<T>>(t, s, lanes);
        AscendC::Mul(t.outF, t.gradF, d, int32_t(lanes));
        MarkNonZeroDerivative(s.mask[0], d, false, t.gradF, s.mask[1], lanes);
        NarrowOut(t, n);
        ZeroUnlessKept(t.out, s.mask[0], lanes);
    }

private:
    // F(t) = P(t)/Q(t), Q monic; coefficients from the lowest power. f32: (3,4). An f16/bf16 result needs about
    // 2^-12 relative: a (2,3) rational (within 29*2^-24) is plenty and four vector passes shorter.
    static constexpr float kP[4] = {14.77865982055664f, 9.882987976074219f, 3.076164960861206f, 0.3987516164779663f};
    static constexpr float kQ[4] = {29.557321548461914f, 43.3492546081543f, 25.961946487426758f, 7.696079254150391f};
    static constexpr float kP16[3] = {4.101834297180176f, 1.9962817430496216f, 0.40122848749160767f};
    static constexpr float kQ16[3] = {8.203657150268555f, 10.538775444030762f, 5.104313373565674f};
    static constexpr float kMillsClamp = 14.5f;
    static constexpr float kInvSqrt2Pi = 0.3989422804014327f;
    static constexpr float kTanhA = 1.5957691216057308f;          // 2*sqrt(2/pi)
    static constexpr float kTanhB = 0.07135481627159712f;         // 2*sqrt(2/pi)*0.044715
    static constexpr float kTanhW = 65536.0f;             // f16/bf16: |w| clamp
    static constexpr float kTanhClamp = 16.0f;            // f32: |x| clamp

    // d of the erf form, in one of the scratch tiles (returned); savedF and outF are used as scratch
    template <bool kShortX, typename T>
    __aicore__ inline static AscendC::LocalTensor<float> ErfForm(const TileOperands<T>& t, const Scratch& s,
                                                                 uint32_t lanes) {
        const int32_t m = int32_t(lanes);
        const AscendC::LocalTensor<uint8_t>& negative = s.mask[0];
        AscendC::Compares(negative, t.savedF, 0.0f, AscendC::CMPMODE::LT, lanes);
        const AscendC::LocalTensor<float>& ax = s.tmp[0];
        const AscendC::LocalTensor<float>& e = t.outF;
        AscendC::Abs(ax, t.savedF, m);
        ExpOfMinusHalfSquare<kShortX>(e, ax, s.tmp[1], s.tmp[2], s.tmp[3], s.mask[1], lanes);
        // M = P(t)/Q(t) - t/sqrt(2 pi), t clamped (a NaN t has a NaN e)
        AscendC::Mins(ax, ax, kMillsClamp, m);
        const AscendC::LocalTensor<float>& num = s.tmp[1];
        const AscendC::LocalTensor<float>& den = s.tmp[2];
        if constexpr (kShortX) {
            Horner(num, ax, kP16, 3, false, m);
            Horner(den, ax, kQ16, 3, true, m);
        } else {
            Horner(num, ax, kP, 4, false, m);
            Horner(den, ax, kQ, 4, true, m);
        }
        AscendC::Div(num, num, den, m);
        AscendC::Muls(den, ax, kInvSqrt2Pi, m);
        AscendC::Sub(num, num, den, m);
        // v = e*M; d = v for x < 0, 1 - v otherwise
        AscendC::Mul(num, num, e, m);
        AscendC::Muls(den, num, -1.0f, m);
        AscendC::Adds(den, den, 1.0f, m);
        AscendC::Select(num, negative, num, den, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, lanes);
        return num;
    }

    // dst = c[n-1]*t^(n-1) + ... + c[0], or with monic, t^n + c[n-1]*t^(n-1) + ... + c[0] (n >= 2)
    __aicore__ inline static void Horner(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& t,
                                         const float* c, uint32_t n, bool monic, int32_t m) {
        uint32_t i = n - 1;
        if (monic) {
            AscendC::Adds(dst, t, c[i], m);
        } else {
            AscendC::Muls(dst, t, c[i], m);
            AscendC::Adds(dst, dst, c[--i], m);
        }
        while (i > 0) {
            AscendC::Mul(dst, dst, t, m);
            AscendC::Adds(dst, dst, c[--i], m);
        }
    }

    // d of the tanh form, in one of the scratch tiles (returned); savedF and outF are used as scratch
    template <bool kShortX, typename T>
    __aicore__ inline static AscendC::LocalTensor<float> TanhForm(const TileOperands<T>& t, const Scratch& s,
                                                                  uint32_t lanes) {
        const int32_t m = int32_t(lanes);
        const AscendC::LocalTensor<float>& x = t.savedF;
        // everything from |x| (w(x) is odd: its sign comes back in the last select), so that every NaN lane
        // carries one NaN and its bits do not depend on operand order
        const AscendC::LocalTensor<float>& ax = s.tmp[0];
        const AscendC::LocalTensor<float>& xx = s.tmp[1];
        const AscendC::LocalTensor<float>& w = s.tmp[2];
        const AscendC::LocalTensor<float>& e = s.tmp[3];
        const AscendC::LocalTensor<uint8_t>& negative = s.mask[0];
        AscendC::Compares(negative, x, 0.0f, AscendC::CMPMODE::LT, lanes);
        AscendC::Abs(ax, x, m);
        if constexpr (!kShortX) {
            // |x| clamped for the exact splits (e is 0 beyond the clamp), NaN kept whatever Mins does with it
            const AscendC::LocalTensor<uint8_t>& isNumber = s.mask[1];
            AscendC::Compare(isNumber, ax, ax, AscendC::CMPMODE::EQ, lanes);
            AscendC::Mins(x, ax, kTanhClamp, m);
            AscendC::Select(ax, isNumber, x, ax, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, lanes);
        }
        AscendC::Mul(xx, ax, ax, m);
        // -|w| = |x|*(-a - 3*b*x^2) (every step the exact negation of the one for |w|)
        AscendC::Muls(w, xx, -3.0f * kTanhB, m);
        AscendC::Adds(w, w, -kTanhA, m);
        AscendC::Mul(w, w, ax, m);
        if constexpr (kShortX) {
            // e = exp(-|x|*(a + b*x^2)): an f16/bf16 result needs about 2^-12 relative, far more than the rounded
            // argument costs (2*2^-24*|2u| wherever e is not 0). |w| clamped so that q*r*|w| is never 0*inf.
            AscendC::Maxs(w, w, -kTanhW, m);
            AscendC::Muls(e, xx, -kTanhB, m);
            AscendC::Adds(e, e, -kTanhA, m);
            AscendC::Mul(e, e, ax, m);
            AscendC::Exp(e, e, m);
        } else {
            ExpOfMinusGeluTanhArgument(e, ax, xx, t.outF, lanes);  // consumes ax and xx
        }
        const AscendC::LocalTensor<float>& sig = x;
        SigmoidGateDerivative(sig, e, w, negative, ax, xx, lanes);  // d
        return sig;
    }
};

}  // namespace actgrad
