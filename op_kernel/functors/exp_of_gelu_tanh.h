// exp(-2u) of GELU's tanh form, 2u = t*(a + b*t^2) (t = |x|, a = 2*sqrt(2/pi), b = 0.044715*a), without the
// roundings of the f32 argument. exp turns an absolute error of its argument into that relative error of the result:
// the plain f32 2u (t^2, the product with b, the sum with a, the product with t, the constants) errs by up to about
// 2*2^-24*|2u|, 23 ulp of the derivative near t = 3.9 where the contract asks 8.
// Without a fused multiply-add the argument is carried as P + r, its leading products made exact by splits on fixed
// grids (adding and subtracting 1.5*2^k rounds to a multiple of 2^(k-23): two instructions, no Veltkamp product):
//   w = fl(t^2) = wh + wl with wh a multiple of 2^-3 (8 bits for t <= 4) and bh = b to 8 bits: bh*wh is exact, and
//   so is g = -(ah + bh*wh) with ah = a on the same 2^-14 grid (16 bits for t < 4.7);
//   t = th + tl with th a multiple of 2^-6 (8 bits for t < 4): g*th is exact;
//   -2u = g*th + (g*tl + g2*t) with g2 = -(bh*wl + bl*w + al) (bl, al the rest of b and a): the bracket is about
//   2^-6 of the argument, so its own roundings are far below an ulp of it; P = fl(g*th + bracket) and its rounding
//   error r (Fast2Sum: |g*th| >= |bracket|) give exp(P)*(1 + r).
// The rounding of w is left (b*t*|t^2 - w| <= 2.3*2^-24 at t = 4): the derivative is within 7 ulp for x in [-4, 0)
// away from its zero. Beyond t = 4 (the contract's absolute bound applies below x = -4) the products are not all
// exact, still within a few 2^-24 of the argument.
// The same assumptions as ExpOfProduct (exp_of_product.h): round-to-nearest f32 Adds/Sub/Mul.
#pragma once
#include "exp_of_product.h"

namespace actgrad {

struct GeluTanhArgument {
    static constexpr float kWGrid = 1572864.0f;            // 1.5*2^20: rounds w to a multiple of 2^-3
    static constexpr float kTGrid = 196608.0f;             // 1.5*2^17: rounds t to a multiple of 2^-6
    static constexpr float kBHi = 0.0712890625f;           // 146*2^-11, b to 8 bits
    static constexpr float kBLo = 6.575377483386546e-05f;  // b - kBHi
    static constexpr float kAHi = 1.59576416015625f;       // 26145*2^-14
    static constexpr float kALo = 4.961449576512678e-06f;  // a - kAHi
};

// dst = exp(-t*(a + b*t^2)) for the m lanes of t in [0, 16] (or NaN), given w = fl(t*t). t and w are consumed
// (overwritten); a is scratch; dst must differ from t, w and a.
__aicore__ inline void ExpOfMinusGeluTanhArgument(const AscendC::LocalTensor<float>& dst,
                                                  const AscendC::LocalTensor<float>& t,
                                                  const AscendC::LocalTensor<float>& w,
                                                  const AscendC::LocalTensor<float>& a, uint32_t lanes) {
    using C = GeluTanhArgument;
    const int32_t m = int32_t(lanes);
    // g = -(ah + bh*wh) in dst (exact), wl in a
    AscendC::Adds(dst, w, C::kWGrid, m);
    AscendC::Adds(dst, dst, -C::kWGrid, m);
    AscendC::Sub(a, w, dst, m);
    AscendC::Muls(dst, dst, -C::kBHi, m);
    AscendC::Adds(dst, dst, -C::kAHi, m);
    // g2*t = -(bh*wl + bl*w + al)*t in a
    AscendC::Muls(a, a, -C::kBHi, m);
    AscendC::Muls(w, w, -C::kBLo, m);
    AscendC::Add(a, a, w, m);
    AscendC::Adds(a, a, -C::kALo, m);
    AscendC::Mul(a, a, t, m);
    // th in w, tl in t; g*th in w (exact), the bracket g*tl + g2*t in t
    AscendC::Adds(w, t, C::kTGrid, m);
    AscendC::Adds(w, w, -C::kTGrid, m);
    AscendC::Sub(t, t, w, m);
    AscendC::Mul(w, dst, w, m);
    AscendC::Mul(t, dst, t, m);
    AscendC::Add(t, t, a, m);
    // P = fl(g*th + bracket) in dst, r = bracket - (P - g*th) in t
    AscendC::Add(dst, w, t, m);
    AscendC::Sub(a, dst, w, m);
    AscendC::Sub(t, t, a, m);
    AscendC::Exp(dst, dst, m);
    CorrectExp(dst, dst, t, m);
}

}  // namespace actgrad
