// ELU family backward with ATen's coefficients: negative branch (x <= 0) by the forward output
// (grad*input_scale)*(x + alpha*scale), or by the forward input ((grad*input_scale)*(alpha*scale))*exp(x*input_scale);
// positive branch grad*scale. EluBackward's src and dst forms share it. A product with a coefficient of exactly 1
// (the defaults) is skipped: it would return its operand unchanged.
// params: [0] use_dst (1 or 0), [1] negcoef = alpha*scale, [2] poscoef = scale, [3] negiptcoef = input_scale.
//
// NaN policy: a NaN saved value takes the negative branch (x > 0 is false), which carries it into the result; a NaN
// grad makes both branches NaN.
#pragma once
#include "scratch.h"
#include "tile_operands.h"

namespace actgrad {

struct EluGrad {
    static constexpr uint32_t kTmpTiles = kEluGradNeeds.tmpTiles;
    static constexpr uint32_t kMaskTiles = kEluGradNeeds.maskTiles;

    template <typename T>
    __aicore__ inline static void Compute(const TileOperands<T>& t, const Scratch& s, const float* params, uint32_t n) {
        const bool useDst = params[0] != 0.0f;
        const float negcoef = params[1], poscoef = params[2], negiptcoef = params[3];
        const uint32_t lanes = CompareLanes<float>(n);
        const int32_t m = int32_t(lanes);
        const AscendC::LocalTensor<float>& neg = s.tmp[0];
        const AscendC::LocalTensor<float>& aux = s.tmp[1];
        WidenSaved(t, n);
        WidenGrad(t, n);
        AscendC::LocalTensor<float> negFactor = t.gradF;  // grad * input_scale (* alpha*scale for the src form)
        if (negiptcoef != 1.0f) {
            AscendC::Muls(neg, t.gradF, negiptcoef, m);
            negFactor = neg;
        }
        if (useDst) {
            AscendC::Adds(aux, t.savedF, negcoef, m);
        } else {
            if (negcoef != 1.0f) {
                AscendC::Muls(neg, negFactor, negcoef, m);
                negFactor = neg;
            }
            if (negiptcoef != 1.0f) {
                AscendC::Muls(aux, t.savedF, negiptcoef, m);
                AscendC::Exp(aux, aux, m);
            } else {
                AscendC::Exp(aux, t.savedF, m);
            }
        }
        AscendC::Mul(neg, negFactor, aux, m);
        // x > 0 is false for NaN, so a NaN saved value takes the negative branch, which carries it
        const AscendC::LocalTensor<uint8_t>& positive = s.mask[0];
        AscendC::Compares(positive, t.savedF, 0.0f, AscendC::CMPMODE::GT, lanes);
        if constexpr (kIsWidened<T>) {
            if (poscoef == 1.0f) {
                // the positive branch is grad itself: narrow the negative branch only and select on the storage type
                AscendC::Cast(t.out, neg, AscendC::RoundMode::CAST_RINT, n);
                const auto out = SelectView(t.out);
                AscendC::Select(out, positive, SelectView(t.grad), out, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, lanes);
                return;
            }
        }
        AscendC::LocalTensor<float> pos = t.gradF;
        if (poscoef != 1.0f) {
            AscendC::Muls(t.outF, t.gradF, poscoef, m);
            pos = t.outF;
        }
        AscendC::Select(t.outF, positive, pos, neg, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, lanes);
        NarrowOut(t, n);
    }
};

}  // namespace actgrad
