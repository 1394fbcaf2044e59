// Mish backward: d = tanh(sp) + x*sigmoid(x)*sech^2(sp), sp = softplus(x), dx = dy*d, in a form without
// cancellation (except near the zero of d, x ~ -1.19): with e = exp(x), w = e*(e + 2) and n = w + 2,
// tanh(sp) = w/n, sech^2(sp) = 4*(w + 1)/n^2 = 4*(1 + e)^2/n^2 and sigmoid(x) = e/(1 + e), so
// d = (w*n + 4*x*e*(1 + e)) / n^2 = e*((e + 2)*n + 4*x*(1 + e)) / n^2: one exp of the exact x, one division.
// Above kDerivativeIsOne the f32 derivative is exactly 1 (d - 1 < 2^-31 there), and the lane passes dy through, so
// e = exp(x) may overflow there (x = +inf included). The linear factor takes x clamped at -kClampBelow, where e is
// exactly 0 already: x = -inf would give -inf*0. A NaN x propagates through e.
// An infinite dy where d is exactly 0 (e underflowed) gives 0.
#pragma once
#include "scratch.h"
#include "tile_operands.h"
#include "zero_derivative.h"

namespace actgrad {

struct MishGrad {
    static constexpr float kDerivativeIsOne = 16.0f;
    static constexpr float kClampBelow = 128.0f;
    static constexpr uint32_t kTmpTiles = kMishGradNeeds.tmpTiles;
    static constexpr uint32_t kMaskTiles = kMishGradNeeds.maskTiles;

    template <typename T>
    __aicore__ inline static void Compute(const TileOperands<T>& t, const Scratch& s, const float* params, uint32_t n) {
        (void)params;
        const uint32_t lanes = CompareLanes<float>(n);
        const int32_t m = int32_t(lanes);
        const AscendC::LocalTensor<float>& e = s.tmp[0];
        const AscendC::LocalTensor<float>& w = s.tmp[1];
        const AscendC::LocalTensor<float>& nn = t.outF;
        WidenSaved(t, n);
        WidenGrad(t, n);
        const AscendC::LocalTensor<uint8_t>& isOne = s.mask[2];
        AscendC::Compares(isOne, t.savedF, kDerivativeIsOne, AscendC::CMPMODE::GT, lanes);
        AscendC::Exp(e, t.savedF, m);
        AscendC::Maxs(t.savedF, t.savedF, -kClampBelow, m);
        AscendC::Muls(t.savedF, t.savedF, 4.0f, m);
        AscendC::Adds(w, e, 1.0f, m);
        AscendC::Mul(t.savedF, t.savedF, w, m);  // 4x*(1 + e)
        // d = e*A/n^2 with A = (e + 2)*n + 4x*(1 + e): the factor e of both terms is rounded once
        AscendC::Adds(w, e, 2.0f, m);
        AscendC::Mul(nn, w, e, m);       // e*(e + 2)
        AscendC::Adds(nn, nn, 2.0f, m);  // n
        AscendC::Mul(w, w, nn, m);       // (e + 2)*n
        AscendC::Mul(nn, nn, nn, m);     // n^2
        AscendC::Add(w, w, t.savedF, m); // A
        AscendC::Mul(w, w, e, m);
        AscendC::Div(w, w, nn, m);       // d
        AscendC::Mul(t.outF, t.gradF, w, m);
        AscendC::Select(t.outF, isOne, t.gradF, t.outF, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, lanes);
        MarkNonZeroDerivative(s.mask[0], w, false, t.gradF, s.mask[1], lanes);
        NarrowOut(t, n);
        ZeroUnlessKept(t.out, s.mask[0], lanes);
    }
};

}  // namespace actgrad
