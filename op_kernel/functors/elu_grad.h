// ELU family backward with ATen's coefficients: negative branch (x <= 0) by the forward output
// (grad*input_scale)*(x + alpha*scale), or by the forward input ((grad*input_scale)*(alpha*scale))*exp(x*input_scale);
// positive branch grad*scale. EluBackward's src and dst forms share it.
// params: [0] use_dst (1 or 0), [1] negcoef = alpha*scale, [2] poscoef = scale, [3] negiptcoef = input_scale.
//
// NaN policy: a NaN saved value takes the negative branch, which carries it into the result; a NaN grad
// makes both branches NaN.
#pragma once
#include "scratch.h"

namespace actgrad {

struct EluGrad {
    static constexpr uint32_t kTmpTiles = kEluGradNeeds.tmpTiles;
    static constexpr uint32_t kMaskTiles = kEluGradNeeds.maskTiles;

    __aicore__ inline static void Compute(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& saved,
                                          const AscendC::LocalTensor<float>& grad, const Scratch& s, const float* params,
                                          uint32_t lanes) {
        const bool useDst = params[0] != 0.0f;
        const float negcoef = params[1], poscoef = params[2], negiptcoef = params[3];
        const int32_t n = int32_t(lanes);
        const AscendC::LocalTensor<float>& neg = s.tmp[0];
        const AscendC::LocalTensor<float>& aux = s.tmp[1];
        AscendC::Muls(neg, grad, negiptcoef, n);
        if (useDst) {
            AscendC::Adds(aux, saved, negcoef, n);
        } else {
            AscendC::Muls(neg, neg, negcoef, n);
            AscendC::Muls(aux, saved, negiptcoef, n);
            AscendC::Exp(aux, aux, n);
        }
        AscendC::Mul(neg, neg, aux, n);
        AscendC::Muls(dst, grad, poscoef, n);
        AscendC::Compares(s.mask[0], saved, 0.0f, AscendC::CMPMODE::LE, lanes);
        AscendC::Compare(s.mask[1], saved, saved, AscendC::CMPMODE::NE, lanes);
        AscendC::LocalTensor<uint16_t> negative = s.mask[0].ReinterpretCast<uint16_t>();
        AscendC::Or(negative, negative, s.mask[1].ReinterpretCast<uint16_t>(), int32_t(lanes / 16));
        AscendC::Select(dst, s.mask[0], neg, dst, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, lanes);
    }
};

}  // namespace actgrad
