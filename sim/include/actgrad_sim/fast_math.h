// Branch-free float math the compiler vectorises. Like the vector unit's own Exp, these are not correctly
// rounded: ExpF is within 2 ulp over the whole float range (subnormal results included).
#pragma once
#include <cmath>
#include <cstdint>

#include "numeric.h"
#include "simd_avx2.h"

namespace actgrad_sim {

// ExpF's constants, shared with its 8-lane form
namespace exp_f {
constexpr float kHi = 89.0f, kLo = -104.0f;  // the argument clamp
constexpr float kShifter = 12582912.0f;      // 1.5 * 2^23: adding it rounds to an integer
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693145751953125f, kLn2Lo = 1.42860682030941723212e-6f;
constexpr float kC3 = 1.0f / 6.0f, kC4 = 1.0f / 24.0f, kC5 = 1.0f / 120.0f, kC6 = 1.0f / 720.0f, kC7 = 1.0f / 5040.0f;
}  // namespace exp_f

inline float ExpF(float x) {
    using namespace exp_f;
    // clamp so 2^k stays representable as a product of two normal scale factors; NaN is restored at the end. Each
    // bound is a select of this form (the first operand where the compare holds) so it compiles to one min/max.
    float xc = x < kHi ? x : kHi;
    xc = xc > kLo ? xc : kLo;
    const float kf = (xc * kLog2e + kShifter) - kShifter;
    // Cody-Waite: ln2 split so k*ln2Hi is exact
    const float r = (xc - kf * kLn2Hi) - kf * kLn2Lo;
    // degree-7 Taylor polynomial in Estrin's form: a short dependency chain, so iterations overlap
    const float r2 = r * r;
    const float r4 = r2 * r2;
    const float p23 = 0.5f + r * kC3;
    const float p45 = kC4 + r * kC5;
    const float p67 = kC6 + r * kC7;
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

// The Exp instruction's lanes: ExpF, and an 8-lane loop for the leading elements where the machine has AVX2
// (LeadingLanes in vec_arith.h).
struct ExpOp {
    float operator()(float x) const { return ExpF(x); }
};

#if defined(ACTGRAD_SIM_AVX2)
namespace avx2 {

// ExpF of 8 lanes, the same operations in the same order (no FMA), so the same bits. Where every |x| <= 86.5 (and no
// lane is NaN) the clamps do nothing and p*2^k is normal, |k| <= 125: the product of the two scale factors is then
// exact, so adding k to p's exponent field gives the same result in two integer operations. k's bits are the low
// bits of kf + shifter's pattern, and shifting them up to the exponent drops the shifter's.
//
// The polynomial p of the clamped lanes xc; `shifted` gets xc*log2e + shifter, whose low bits are k.
__attribute__((target("avx2,f16c"))) inline __m256 ExpPoly8(__m256 xc, __m256& shifted) {
    using namespace exp_f;
    shifted = _mm256_add_ps(_mm256_mul_ps(xc, _mm256_set1_ps(kLog2e)), _mm256_set1_ps(kShifter));
    const __m256 kf = _mm256_sub_ps(shifted, _mm256_set1_ps(kShifter));
    const __m256 r = _mm256_sub_ps(_mm256_sub_ps(xc, _mm256_mul_ps(kf, _mm256_set1_ps(kLn2Hi))),
                                   _mm256_mul_ps(kf, _mm256_set1_ps(kLn2Lo)));
    const __m256 r2 = _mm256_mul_ps(r, r);
    const __m256 r4 = _mm256_mul_ps(r2, r2);
    const __m256 p23 = _mm256_add_ps(_mm256_set1_ps(0.5f), _mm256_mul_ps(r, _mm256_set1_ps(kC3)));
    const __m256 p45 = _mm256_add_ps(_mm256_set1_ps(kC4), _mm256_mul_ps(r, _mm256_set1_ps(kC5)));
    const __m256 p67 = _mm256_add_ps(_mm256_set1_ps(kC6), _mm256_mul_ps(r, _mm256_set1_ps(kC7)));
    const __m256 sum = _mm256_add_ps(_mm256_mul_ps(r2, p23), _mm256_mul_ps(r4, _mm256_add_ps(p45, _mm256_mul_ps(r2, p67))));
    return _mm256_add_ps(_mm256_set1_ps(1.0f), _mm256_add_ps(r, sum));
}
// The lanes' magnitudes as integers (a NaN's above every number's)
__attribute__((target("avx2,f16c"))) inline __m256i Magnitude8(__m256 x) {
    return _mm256_and_si256(_mm256_castps_si256(x), _mm256_set1_epi32(0x7fffffff));
}
__attribute__((target("avx2,f16c"))) inline bool InExpRange(__m256i magnitude) {
    return _mm256_movemask_epi8(_mm256_cmpgt_epi32(magnitude, _mm256_set1_epi32(0x42ad0000))) == 0;
}
// ExpF of lanes that are all within |x| <= 86.5
__attribute__((target("avx2,f16c"))) inline __m256 ExpInRange8(__m256 x) {
    __m256 shifted;
    const __m256 p = ExpPoly8(x, shifted);
    return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(p), _mm256_slli_epi32(_mm256_castps_si256(shifted), 23)));
}
__attribute__((target("avx2,f16c"))) inline __m256 ExpF8(__m256 x) {
    using namespace exp_f;
    if (InExpRange(Magnitude8(x))) return ExpInRange8(x);
    const __m256 xc = _mm256_max_ps(_mm256_min_ps(x, _mm256_set1_ps(kHi)), _mm256_set1_ps(kLo));
    __m256 shifted;
    const __m256 p = ExpPoly8(xc, shifted);
    const __m256i k = _mm256_cvttps_epi32(_mm256_sub_ps(shifted, _mm256_set1_ps(kShifter)));
    const __m256i k1 = _mm256_srai_epi32(k, 1);
    const __m256i k2 = _mm256_sub_epi32(k, k1);
    const __m256i bias = _mm256_set1_epi32(127);
    const __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k1, bias), 23));
    const __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k2, bias), 23));
    const __m256 result = _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
    return _mm256_blendv_ps(result, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

// d = ExpF(a) for the leading multiples of 8 elements of a (f32, or the bf16 source of a deferred widening); returns
// how many it did. 16 lanes per step, their range tested at once (the larger magnitude of each lane pair).
template <typename A>
__attribute__((target("avx2,f16c"))) inline uint32_t ExpInto(float* d, const A* a, uint32_t n) {
    const size_t pairs = n / 16 * 16;
    for (size_t i = 0; i < pairs; i += 16) {
        const __m256 x0 = Lanes8(a + i), x1 = Lanes8(a + i + 8);
        if (InExpRange(_mm256_max_epu32(Magnitude8(x0), Magnitude8(x1)))) {
            _mm256_storeu_ps(d + i, ExpInRange8(x0));
            _mm256_storeu_ps(d + i + 8, ExpInRange8(x1));
        } else {
            _mm256_storeu_ps(d + i, ExpF8(x0));
            _mm256_storeu_ps(d + i + 8, ExpF8(x1));
        }
    }
    uint32_t i = uint32_t(pairs);
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(d + i, ExpF8(Lanes8(a + i)));
    return i;
}

}  // namespace avx2
#endif

template <typename A>
inline uint32_t LeadingLanes(const ExpOp&, float* d, const A* a, uint32_t n) {
    return ACTGRAD_SIM_IF_AVX2(avx2::ExpInto(d, a, n));
}

}  // namespace actgrad_sim
