// Softplus backward: grad where beta*x > threshold, else grad*sigmoid(beta*x), with sigmoid in the stable form
// e/(1+e) (x < 0) or 1/(1+e) (x >= 0), e = exp(-|beta*x|), so neither tail overflows. NaN propagates by itself.
// params: [0] beta, [1] threshold.
#pragma once
#include "scratch.h"

namespace actgrad {

struct SoftplusGrad {
    static constexpr uint32_t kTmpTiles = kSoftplusGradNeeds.tmpTiles;
    static constexpr uint32_t kMaskTiles = kSoftplusGradNeeds.maskTiles;

    __aicore__ inline static void Compute(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& saved,
                                          const AscendC::LocalTensor<float>& grad, const Scratch& s, const float* params,
                                          uint32_t lanes) {
        const float beta = params[0], threshold = params[1];
        const int32_t n = int32_t(lanes);
        const AscendC::LocalTensor<float>& bx = s.tmp[0];
        const AscendC::LocalTensor<float>& e = s.tmp[1];
        AscendC::Muls(bx, saved, beta, n);
        AscendC::Compares(s.mask[0], bx, 0.0f, AscendC::CMPMODE::LT, lanes);
        AscendC::Compares(s.mask[1], bx, threshold, AscendC::CMPMODE::GT, lanes);
        AscendC::Abs(e, bx, n);
        AscendC::Muls(e, e, -1.0f, n);
        AscendC::Exp(e, e, n);
        AscendC::Adds(dst, e, 1.0f, n);  // dst holds the denominator for a moment
        AscendC::Select(e, s.mask[0], e, 1.0f, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, lanes);
        AscendC::Div(e, e, dst, n);
        AscendC::Mul(dst, grad, e, n);
        AscendC::Select(dst, s.mask[1], grad, dst, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, lanes);
    }
};

}  // namespace actgrad
