// ELU family backward with ATen's coefficients: negative branch (x <= 0) by the forward output
// (grad*input_scale)*(x + alpha*scale), or by the forward input ((grad*input_scale)*(alpha*scale))*exp(x*input_scale);
// positive branch grad*scale. EluBackward's src and dst forms share it. A product with a coefficient of exactly 1
// (the defaults) is skipped: it would return its operand unchanged.
// params: [0] use_dst (1 or 0), [1] negcoef = alpha*scale, [2] poscoef = scale, [3] negiptcoef = input_scale,
// [4..6] input_scale split for ExpOfProduct (hi, lo, xScale), so exp(x*input_scale) does not inherit the product's
// rounding.
//
// NaN policy: a NaN saved value takes the negative branch (x > 0 is false), which carries it into the result; a NaN
// grad makes both branches NaN. An infinite grad where a branch's derivative is exactly 0 gives 0.
#pragma once
#include "exp_of_product.h"
#include "scratch.h"
#include "tile_operands.h"
#include "zero_derivative.h"

namespace actgrad {

struct EluGrad {
    static constexpr uint32_t kTmpTiles = kEluGradNeeds.tmpTiles;
    static constexpr uint32_t kMaskTiles = kEluGradNeeds.maskTiles;

    template <typename T>
    __aicore__ inline static void Compute(const TileOperands<T>& t, const Scratch& s, const float* params, uint32_t n) {
        const bool useDst = params[0] != 0.0f;
        const float negcoef = params[1], poscoef = params[2], negiptcoef = params[3];
        const SplitCoefficient iptSplit{params[4], params[5], params[6]};
        const uint32_t lanes = CompareLanes<float>(n);
        const int32_t m = int32_t(lanes);
        const AscendC::LocalTensor<float>& negTmp = s.tmp[0];
        const AscendC::LocalTensor<float>& aux = s.tmp[1];
        WidenSaved(t, n);
        WidenGrad(t, n);
        // x > 0 is false for NaN, so a NaN saved value takes the negative branch, which carries it
        const AscendC::LocalTensor<uint8_t>& positive = s.mask[0];
        AscendC::Compares(positive, t.savedF, 0.0f, AscendC::CMPMODE::GT, lanes);
        // the x-dependent factor of the negative branch: x + alpha*scale (dst form) or exp(x*input_scale)
        AscendC::LocalTensor<float> xFactor = aux;
        if (useDst) {
            AscendC::Adds(aux, t.savedF, negcoef, m);
        } else {
            AscendC::LocalTensor<float> product = t.savedF;  // x * 1 would return x unchanged
            if (negiptcoef != 1.0f) {
                AscendC::Muls(aux, t.savedF, negiptcoef, m);
                product = aux;
            }
            // consumes savedF; negTmp is free until the gradient factor below, outF until the positive branch
            ExpOfProduct<kIsWidened<T>>(t.outF, t.savedF, product, negTmp, s.mask[1], iptSplit, lanes);
            xFactor = t.outF;
        }
        AscendC::LocalTensor<float> negFactor = t.gradF;  // grad * input_scale (* alpha*scale for the src form)
        if (negiptcoef != 1.0f) {
            AscendC::Muls(negTmp, t.gradF, negiptcoef, m);
            negFactor = negTmp;
        }
        if (!useDst && negcoef != 1.0f) {
            AscendC::Muls(negTmp, negFactor, negcoef, m);
            negFactor = negTmp;
        }
        // lanes whose result stands: the positive branch (scale 0 is handled there) and negative lanes whose
        // derivative is not exactly 0
        const bool negCoefficientIsZero = negiptcoef == 0.0f || (!useDst && negcoef == 0.0f);
        const AscendC::LocalTensor<uint8_t>& keep = s.mask[1];
        const AscendC::LocalTensor<uint8_t>& gradIsNan = s.mask[2];
        MarkNonZeroDerivative(keep, xFactor, negCoefficientIsZero, t.gradF, gradIsNan, lanes);
        KeepAlso(keep, positive, lanes);
        // the dst form multiplies in place, so its tiles stay fewer
        const AscendC::LocalTensor<float> neg = useDst ? aux : negTmp;
        AscendC::Mul(neg, negFactor, xFactor, m);
        if constexpr (kIsWidened<T>) {
            if (poscoef == 1.0f) {
                // the positive branch is grad itself: narrow the negative branch only and select on the storage type
                AscendC::Cast(t.out, neg, AscendC::RoundMode::CAST_RINT, n);
                const auto out = SelectView(t.out);
                AscendC::Select(out, positive, SelectView(t.grad), out, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, lanes);
                ZeroUnlessKept(t.out, keep, lanes);
                return;
            }
        }
        AscendC::LocalTensor<float> pos = t.gradF;
        if (poscoef != 1.0f) {
            AscendC::Muls(t.outF, t.gradF, poscoef, m);
            pos = t.outF;
            // scale 0: grad*0 is NaN for an infinite grad, 0 is the derivative's answer
            if (poscoef == 0.0f) AscendC::Select(pos, gradIsNan, pos, 0.0f, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, lanes);
        }
        AscendC::Select(t.outF, positive, pos, neg, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, lanes);
        NarrowOut(t, n);
        ZeroUnlessKept(t.out, keep, lanes);
    }
};

}  // namespace actgrad
