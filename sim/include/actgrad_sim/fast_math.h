// Branch-free float math the compiler vectorises. Like the vector unit's own Exp, these are not correctly
// rounded: ExpF is within 2 ulp over the whole float range (subnormal results included).
#pragma once
#include <cmath>
#include <cstdint>

#include "numeric.h"

namespace actgrad_sim {

inline float ExpF(float x) {
    // clamp so 2^k stays representable as a product of two normal scale factors; NaN is restored at the end. Each
    // bound is a select of this form (the first operand where the compare holds) so it compiles to one min/max.
    float xc = x < 89.0f ? x : 89.0f;
    xc = xc > -104.0f ? xc : -104.0f;
    const float shifter = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
    const float kf = (xc * 1.44269504088896341f + shifter) - shifter;
    // Cody-Waite: ln2 split so k*ln2Hi is exact
    const float r = (xc - kf * 0.693145751953125f) - kf * 1.42860682030941723212e-6f;
    // degree-7 Taylor polynomial in Estrin's form: a short dependency chain, so iterations overlap
    const float r2 = r * r;
    const float r4 = r2 * r2;
    const float p23 = 0.5f + r * (1.0f / 6.0f);
    const float p45 = (1.0f / 24.0f) + r * (1.0f / 120.0f);
    const float p67 = (1.0f / 720.0f) + r * (1.0f / 5040.0f);
    // the small terms are summed first and 1 is added last, so one rounding dominates
    const float p = 1.0f + (r + (r2 * p23 + r4 * (p45 + r2 * p67)));
    const int32_t k = int32_t(kf);
    const int32_t k1 = k >> 1;
    const int32_t k2 = k - k1;
    const float s1 = BitsFloat(uint32_t(k1 + 127) << 23);
    const float s2 = BitsFloat(uint32_t(k2 + 127) << 23);
    const float result = (p * s1) * s2;
    return x != x ? x : result;
}

}  // namespace actgrad_sim
