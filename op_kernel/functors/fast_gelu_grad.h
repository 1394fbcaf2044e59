// FastGelu backward (CANN FastGeluGrad): z = 1.702*x, s = sigmoid(z), d = s*(1 + z*(1 - s)), dx = dy*d.
// s and 1 - s come from e = exp(-|z|) without cancellation: with q = e/(1 + e) and r = 1/(1 + e), s = q and 1 - s = r
// for x < 0, s = r and 1 - s = q otherwise, so neither tail overflows and d = s + q*r*z. In f32, exp(-1.702*|x|)
// does not inherit the rounding of the product (ExpOfProduct with the host's split of -1.702), which would cost up to
// |z| ulp where d ~ e*(1 + z).
// params: [0..2] -1.702 split for ExpOfProduct (hi, lo, xScale).
//
// The linear factor |z| is -p, the exp's argument, clamped at 1.702*128 (e is exactly 0 beyond, so d is 0 or 1
// either way): q*r*|z| at infinite x would be 0*inf. A NaN x propagates through e whatever the clamp does with it.
// An infinite dy where d is exactly 0 (e underflowed, x = -inf) gives 0.
#pragma once
#include "exp_of_product.h"
#include "scratch.h"
#include "sigmoid_gate.h"
#include "tile_operands.h"
#include "zero_derivative.h"

namespace actgrad {

struct FastGeluGrad {
    static constexpr float kCoef = 1.702f;     // CANN's f32 constant: 1.70200002193450927734375
    static constexpr float kClamp = 128.0f;    // exp(-1.702*128) is 0 in f32
    static constexpr uint32_t kTmpTiles = kFastGeluGradNeeds.tmpTiles;
    static constexpr uint32_t kMaskTiles = kFastGeluGradNeeds.maskTiles;

    template <typename T>
    __aicore__ inline static void Compute(const TileOperands<T>& t, const Scratch& s, const float* params, uint32_t n) {
        const uint32_t lanes = CompareLanes<float>(n);
        const int32_t m = int32_t(lanes);
        const AscendC::LocalTensor<float>& p = s.tmp[1];
        const AscendC::LocalTensor<float>& a = s.tmp[2];
        const AscendC::LocalTensor<float>& e = t.outF;
        WidenSaved(t, n);
        WidenGrad(t, n);
        // everything below comes from |x| (x's sign returns in the last select), so that every NaN lane carries one
        // NaN and its bits do not depend on operand order
        const AscendC::LocalTensor<uint8_t>& negative = s.mask[1];
        AscendC::Compares(negative, t.savedF, 0.0f, AscendC::CMPMODE::LT, lanes);
        AscendC::Abs(t.savedF, t.savedF, m);
        // e = exp(-1.702*|x|), p = fl(-1.702*|x|). An f16/bf16 result needs about 2^-12 relative, far more than
        // the product's rounding costs (|p|*2^-24 < 2^-17 wherever e is not 0): only f32 corrects it.
        AscendC::Muls(p, t.savedF, -kCoef, m);
        if constexpr (kIsWidened<T>) {
            AscendC::Exp(e, p, m);
        } else {
            const SplitCoefficient split{params[0], params[1], params[2]};
            ExpOfProduct<false>(e, t.savedF, p, a, s.mask[0], split, lanes);  // consumes savedF
        }
        // p = -|z|, clamped (e is 0 beyond)
        AscendC::Maxs(p, p, -kCoef * kClamp, m);
        const AscendC::LocalTensor<float>& sig = s.tmp[0];
        SigmoidGateDerivative(sig, e, p, negative, sig, a, lanes);  // d, with w = z
        AscendC::Mul(t.outF, t.gradF, sig, m);
        MarkNonZeroDerivative(s.mask[0], sig, false, t.gradF, s.mask[1], lanes);
        NarrowOut(t, n);
        ZeroUnlessKept(t.out, s.mask[0], lanes);
    }
};

}  // namespace actgrad
