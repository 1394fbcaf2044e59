// The derivative of a sigmoid gate x*sigmoid(z(x)), d = s + s*(1 - s)*w with s = sigmoid(z) and w = x*z'(x), from
// e = exp(-|z|) without cancellation or overflow: q = e/(1 + e) <= 1/2 and r = 1 - q = 1/(1 + e) (exact to an ulp of
// r >= 1/2) are s and 1 - s for x < 0 and the other way round otherwise, so d = q - q*r*|w| for x < 0 and
// r + q*r*|w| otherwise. FastGeluGrad and GeluGrad's tanh form share it.
#pragma once
#include "kernel_operator.h"

namespace actgrad {

// dst = d for the lanes; negSlope holds -|w|, negative the lanes where x < 0. e is consumed; q and r are scratch
// (dst may be q).
__aicore__ inline void SigmoidGateDerivative(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& e,
                                             const AscendC::LocalTensor<float>& negSlope,
                                             const AscendC::LocalTensor<uint8_t>& negative,
                                             const AscendC::LocalTensor<float>& q, const AscendC::LocalTensor<float>& r,
                                             uint32_t lanes) {
    const int32_t m = int32_t(lanes);
    AscendC::Adds(q, e, 1.0f, m);
    AscendC::Div(q, e, q, m);
    AscendC::Muls(r, q, -1.0f, m);
    AscendC::Adds(r, r, 1.0f, m);
    AscendC::Mul(e, q, r, m);
    AscendC::Mul(e, e, negSlope, m);  // -q*r*|w|
    AscendC::Add(q, q, e, m);
    AscendC::Sub(r, r, e, m);
    AscendC::Select(dst, negative, q, r, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, lanes);
}

}  // namespace actgrad
