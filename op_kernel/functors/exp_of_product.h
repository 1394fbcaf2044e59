// exp(c*x) without the rounding of the product c*x. exp turns an argument error d into a relative error d, so half an
// ulp of the f32 product p = fl(c*x) costs up to |p| ulp of the result (about 60 near the f32 range of exp). Where c
// is not a power of two the product's own rounding error r (c*x = p + r exactly: Dekker's product with Veltkamp
// splits, as the vector unit has no fused multiply-add) corrects the result: exp(p + r) = exp(p)*(1 + r) to within
// r^2, far below an ulp. On the NPU this relies on round-to-nearest f32 Muls/Sub (flushing subnormal partial
// products only matters where c*x is so small that the correction is below an ulp anyway) and on Compare EQ being
// false for NaN; 910B documents neither (ascendc-api.md, known unknowns): check both on hardware.
#pragma once
#include "kernel_operator.h"

namespace actgrad {

// dst = exp(p + r) from e = exp(p) and a correction r of the argument below an ulp of p: exp(p)*(1 + r), to within
// r^2, far below an ulp. r is consumed; dst may be e or r.
__aicore__ inline void CorrectExp(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& e,
                                  const AscendC::LocalTensor<float>& r, int32_t m) {
    AscendC::Mul(r, e, r, m);
    AscendC::Add(dst, e, r, m);
}

// c split on the host. xScale: 0 when c*x is exact (c a power of two or 0: nothing to correct); else the power of two
// x is scaled by before its split, 1 or, for a tiny c (where x up to the f32 limit still gives a moderate p), 2^-13
// so that x*4097 cannot overflow. hi keeps the top 12 significand bits of c/xScale, lo is the rest (exact).
struct SplitCoefficient {
    float hi, lo, xScale;
};

// dst = exp(c*x) for the m lanes of x, given p = fl(c*x). x is consumed (overwritten), p kept, a is scratch, mask a
// bit-mask tile. kShortX: x holds widened f16/bf16 values (at most 11 significand bits), whose products with the
// 12-bit halves of c are exact without splitting x. A lane whose correction is not a number keeps exp(p): there p
// is NaN (as x is) or so far outside exp's range that exp(p) is exactly 0 or inf.
template <bool kShortX>
__aicore__ inline void ExpOfProduct(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& x,
                                    const AscendC::LocalTensor<float>& p, const AscendC::LocalTensor<float>& a,
                                    const AscendC::LocalTensor<uint8_t>& mask, SplitCoefficient c, uint32_t lanes) {
    const int32_t m = int32_t(lanes);
    if (c.xScale == 0.0f) {
        AscendC::Exp(dst, p, m);
        return;
    }
    if (c.xScale != 1.0f) AscendC::Muls(x, x, c.xScale, m);  // exact: a power of two (x is tiny where it is not)
    if constexpr (kShortX) {
        // r = (x*hi - p) + x*lo
        AscendC::Muls(dst, x, c.hi, m);
        AscendC::Sub(dst, dst, p, m);
        AscendC::Muls(x, x, c.lo, m);
        AscendC::Add(dst, dst, x, m);
    } else {
        // x = xh + xl, 12 significand bits each (Veltkamp: t = x*(2^12+1), xh = t - (t - x))
        AscendC::Muls(a, x, 4097.0f, m);
        AscendC::Sub(dst, a, x, m);
        AscendC::Sub(a, a, dst, m);  // xh
        AscendC::Sub(x, x, a, m);    // xl
        // r = ((xh*hi - p) + xh*lo + xl*hi) + xl*lo; every product is exact (12 x 12 bits)
        AscendC::Muls(dst, a, c.hi, m);
        AscendC::Sub(dst, dst, p, m);
        AscendC::Muls(a, a, c.lo, m);
        AscendC::Add(dst, dst, a, m);
        AscendC::Muls(a, x, c.hi, m);
        AscendC::Add(dst, dst, a, m);
        AscendC::Muls(x, x, c.lo, m);
        AscendC::Add(dst, dst, x, m);
    }
    AscendC::Exp(a, p, m);
    CorrectExp(dst, a, dst, m);
    AscendC::Compare(mask, dst, dst, AscendC::CMPMODE::EQ, lanes);
    AscendC::Select(dst, mask, dst, a, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, lanes);
}

}  // namespace actgrad
