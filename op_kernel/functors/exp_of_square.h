// exp(-t^2/2) without the rounding of the square. Half an ulp of the f32 square p = fl(t*t) would cost up to t^2/2
// ulp of the result; Dekker's exact error r of the square (t*t = p + r, one Veltkamp split of t, as the vector unit
// has no fused multiply-add) corrects it: exp(-(p + r)/2) = exp(-p/2)*(1 - r/2) to within r^2, far below an ulp.
// The same assumptions as ExpOfProduct (exp_of_product.h): round-to-nearest f32 Muls/Sub/Add, Compare EQ false for
// NaN.
#pragma once
#include "kernel_operator.h"

namespace actgrad {

// dst = exp(-t*t/2) for the m lanes of t (kept). p, a, b are scratch tiles, mask a bit-mask tile; dst must differ
// from them. kShortX: t holds widened f16/bf16 values (at most 11 significand bits), whose square is exact. A lane
// whose correction is not a number keeps exp(-p/2): t is infinite or NaN there, or so large that exp is 0.
template <bool kShortX>
__aicore__ inline void ExpOfMinusHalfSquare(const AscendC::LocalTensor<float>& dst,
                                            const AscendC::LocalTensor<float>& t,
                                            const AscendC::LocalTensor<float>& p, const AscendC::LocalTensor<float>& a,
                                            const AscendC::LocalTensor<float>& b,
                                            const AscendC::LocalTensor<uint8_t>& mask, uint32_t lanes) {
    const int32_t m = int32_t(lanes);
    AscendC::Mul(p, t, t, m);
    if constexpr (kShortX) {
        AscendC::Muls(p, p, -0.5f, m);  // exact: a power of two
        AscendC::Exp(dst, p, m);
        return;
    }
    // t = th + tl, 12 significand bits each (Veltkamp: u = t*(2^12+1), th = u - (u - t))
    AscendC::Muls(a, t, 4097.0f, m);
    AscendC::Sub(b, a, t, m);
    AscendC::Sub(a, a, b, m);  // th
    AscendC::Sub(b, t, a, m);  // tl
    // r = (th*th - p) + tl*(th + t): th*th is exact and so is its difference with p; the last term is small, so its
    // own roundings stay far below an ulp of the result
    AscendC::Mul(dst, a, a, m);
    AscendC::Sub(dst, dst, p, m);
    AscendC::Add(a, a, t, m);
    AscendC::Mul(a, a, b, m);
    AscendC::Add(dst, dst, a, m);
    // exp(-p/2) * (1 - r/2)
    AscendC::Muls(p, p, -0.5f, m);
    AscendC::Exp(a, p, m);
    AscendC::Mul(b, dst, a, m);
    AscendC::Muls(b, b, -0.5f, m);
    AscendC::Add(dst, a, b, m);
    AscendC::Compare(mask, dst, dst, AscendC::CMPMODE::EQ, lanes);
    AscendC::Select(dst, mask, dst, a, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, lanes);
}

}  // namespace actgrad
