// Level-2 (count form) vector arithmetic: tensor-tensor, tensor-scalar, unary and Duplicate.
// half/bf16 elements are widened, computed in float and rounded once (saturating while SaturationMode::FLOAT is on).
#pragma once
#include <cmath>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "fast_math.h"
#include "operand_checks.h"
#include "simd_avx2.h"

namespace actgrad_sim {

template <typename T, typename... Allowed>
constexpr bool OneOf = (std::is_same<T, Allowed>::value || ...);

template <typename T> inline float Widen(T v) { return float(v); }
template <typename T> inline T Narrow(float f, bool saturate) {
    if constexpr (std::is_same<T, half>::value) {
        const uint16_t b = FloatToHalfBitsRne(f);
        return half::FromBits(saturate ? SaturateHalfBits(b) : b);
    } else {
        const uint16_t b = FloatToBf16BitsRne(f);
        return bfloat16_t::FromBits(saturate ? SaturateBf16Bits(b) : b);
    }
}

#if defined(__SSE2__)
// float -> bf16 bits of 8 lanes: round half to even by integer add, NaN kept quiet. The arithmetic shift leaves each
// lane's 16-bit pattern sign-extended, so the signed saturating pack moves it unchanged.
inline __m128i Bf16Of4(__m128i x) {
    const __m128i lsb = _mm_and_si128(_mm_srli_epi32(x, 16), _mm_set1_epi32(1));
    const __m128i rounded = _mm_srai_epi32(_mm_add_epi32(_mm_add_epi32(x, _mm_set1_epi32(0x7fff)), lsb), 16);
    const __m128i quiet = _mm_or_si128(_mm_srai_epi32(x, 16), _mm_set1_epi32(0x40));
    const __m128i nan = _mm_cmpgt_epi32(_mm_and_si128(x, _mm_set1_epi32(0x7fffffff)), _mm_set1_epi32(0x7f800000));
    return _mm_or_si128(_mm_and_si128(nan, quiet), _mm_andnot_si128(nan, rounded));
}
// float -> half bits of 4 lanes, the same branch-free rounding as FloatToHalfBitsRne, sign-extended for the pack.
inline __m128i HalfOf4(__m128i x) {
    const __m128i sign = _mm_and_si128(_mm_srli_epi32(x, 16), _mm_set1_epi32(0x8000));
    const __m128i ax = _mm_and_si128(x, _mm_set1_epi32(0x7fffffff));
    const __m128i nanBits = _mm_or_si128(_mm_set1_epi32(0x7e00), _mm_and_si128(_mm_srli_epi32(ax, 13), _mm_set1_epi32(0x3ff)));
    const __m128i isNan = _mm_cmpgt_epi32(ax, _mm_set1_epi32(0x7f800000));
    const __m128i infOrNan = _mm_or_si128(_mm_and_si128(isNan, nanBits), _mm_andnot_si128(isNan, _mm_set1_epi32(0x7c00)));
    const __m128i sub = _mm_sub_epi32(_mm_castps_si128(_mm_add_ps(_mm_castsi128_ps(ax), _mm_set1_ps(0.5f))),
                                      _mm_set1_epi32(0x3f000000));
    const __m128i odd = _mm_and_si128(_mm_srli_epi32(ax, 13), _mm_set1_epi32(1));
    const __m128i normal = _mm_srli_epi32(
        _mm_add_epi32(_mm_add_epi32(ax, _mm_set1_epi32(int32_t((15u - 127u) << 23) + 0xfff)), odd), 13);
    const __m128i big = _mm_cmpgt_epi32(ax, _mm_set1_epi32(0x477fffff));     // ax >= 0x47800000
    const __m128i small = _mm_cmplt_epi32(ax, _mm_set1_epi32(113 << 23));
    const __m128i finite = _mm_or_si128(_mm_and_si128(small, sub), _mm_andnot_si128(small, normal));
    const __m128i mag = _mm_or_si128(_mm_and_si128(big, infOrNan), _mm_andnot_si128(big, finite));
    return _mm_srai_epi32(_mm_slli_epi32(_mm_or_si128(mag, sign), 16), 16);
}
// float -> 16-bit patterns, 8 at a time, through a 4-lane converter whose results are sign-extended for the pack.
template <__m128i (*Of4)(__m128i)>
inline uint32_t Narrow16Fast(uint16_t* out, const float* in, uint32_t n) {
    uint32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i a = Of4(_mm_castps_si128(_mm_loadu_ps(in + i)));
        const __m128i b = Of4(_mm_castps_si128(_mm_loadu_ps(in + i + 4)));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm_packs_epi32(a, b));
    }
    return i;
}
inline uint32_t NarrowHalfFast(uint16_t* out, const float* in, uint32_t n) { return Narrow16Fast<HalfOf4>(out, in, n); }
inline uint32_t NarrowBf16Fast(uint16_t* out, const float* in, uint32_t n) { return Narrow16Fast<Bf16Of4>(out, in, n); }
#else
inline uint32_t NarrowBf16Fast(uint16_t*, const float*, uint32_t) { return 0; }
inline uint32_t NarrowHalfFast(uint16_t*, const float*, uint32_t) { return 0; }
#endif

// float -> half/bf16 bits, round half to even, saturating when asked: a plain loop over 16-bit storage.
template <typename T>
void NarrowInto(T* out, const float* in, uint32_t n, bool saturate) {
    uint16_t bits[64];
    uint32_t done = 0;
    if (!saturate) {
        typedef uint16_t AliasU16 __attribute__((may_alias));
        AliasU16* bits16 = reinterpret_cast<AliasU16*>(out);
        if (std::is_same<T, bfloat16_t>::value) {
            done = ACTGRAD_SIM_IF_AVX2(avx2::NarrowBf16(bits16, in, n));
            done += NarrowBf16Fast(bits16 + done, in + done, n - done);
        } else {
            done = ACTGRAD_SIM_IF_AVX2(avx2::NarrowHalf(bits16, in, n));
            done += NarrowHalfFast(bits16 + done, in + done, n - done);
        }
    }
    out += done;
    in += done;
    n -= done;
    for (uint32_t base = 0; base < n; base += 64) {
        const uint32_t m = n - base < 64 ? n - base : 64;
        const float* src = in + base;
        if constexpr (std::is_same<T, half>::value) {
            if (saturate) {
                for (uint32_t i = 0; i < m; ++i) bits[i] = SaturateHalfBits(FloatToHalfBitsRne(src[i]));
            } else {
                for (uint32_t i = 0; i < m; ++i) bits[i] = FloatToHalfBitsRne(src[i]);
            }
        } else {
            if (saturate) {
                for (uint32_t i = 0; i < m; ++i) bits[i] = SaturateBf16Bits(FloatToBf16BitsRne(src[i]));
            } else {
                for (uint32_t i = 0; i < m; ++i) bits[i] = FloatToBf16BitsRne(src[i]);
            }
        }
        std::memcpy(out + base, bits, m * sizeof(uint16_t));
    }
}

// Integer lanes wrap (CTRL[53] default), so compute them unsigned.
template <typename T, typename Op>
inline T IntOp(T a, T b, Op op) {
    // types narrower than int would promote to (signed) int and could overflow: widen to unsigned first
    using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    return T(U(op(U(std::make_unsigned_t<T>(a)), U(std::make_unsigned_t<T>(b)))));
}

// A float operand as a loop reads it: float elements, or the bf16 or f16 source of a deferred widening
// (deferred_widen.h), widened as it is loaded.
inline float LoadFloat(const float* p, int32_t i) { return p[i]; }
inline float LoadFloat(const bfloat16_t* p, int32_t i) { return Bf16BitsToFloat(p[i].val); }
inline float LoadFloat(const half* p, int32_t i) { return HalfBitsToFloat(p[i].val); }

// Operands either coincide exactly (in place) or do not overlap (partial overlap was rejected before), and
// element i only reads element i: no loop-carried dependence, which `ivdep` tells the vectoriser. Without it an
// in-place call fails the compiler's runtime alias check and runs scalar.
#if defined(ACTGRAD_SIM_AVX2)
// The float loops compiled again for AVX2: without FMA every operation rounds as in the baseline build, so the bits
// are the same, in fewer instructions (the polynomial of Exp gains most); unrolled 4 times, as the loop's own three
// instructions were a third of a simple operation's. Loops that widen bf16 as they load use
// 256-bit vectors like the others (a zero-extension and a shift per 8 bf16 lanes): on cores where the lane-crossing
// extension is slow, 128-bit ones paid twice the instructions for it.
template <typename F>
__attribute__((target("avx2"))) void ApplyBinaryAvx2(float* d, const float* a, const float* b, int32_t n, F f) {
#pragma GCC ivdep
#pragma GCC unroll 4
    for (int32_t i = 0; i < n; ++i) d[i] = f(a[i], b[i]);
}
template <typename F>
__attribute__((target("avx2"))) void ApplyUnaryAvx2(float* d, const float* a, int32_t n, F f) {
#pragma GCC ivdep
#pragma GCC unroll 4
    for (int32_t i = 0; i < n; ++i) d[i] = f(a[i]);
}
template <typename A, typename B, typename F>
__attribute__((target("avx2,f16c"))) void ApplyBinaryWidenAvx2(float* d, const A* a, const B* b, int32_t n, F f) {
#pragma GCC ivdep
#pragma GCC unroll 4
    for (int32_t i = 0; i < n; ++i) d[i] = f(LoadFloat(a, i), LoadFloat(b, i));
}
template <typename A, typename F>
__attribute__((target("avx2,f16c"))) void ApplyUnaryWidenAvx2(float* d, const A* a, int32_t n, F f) {
#pragma GCC ivdep
#pragma GCC unroll 4
    for (int32_t i = 0; i < n; ++i) d[i] = f(LoadFloat(a, i));
}
// Operations that are one IEEE operation per lane (f also takes __m256 lanes) get explicit 8-lane loops in 256-bit
// registers, unrolled twice (the loop's own instructions are a third of a simple operation's): bf16 widens by a
// zero-extension and a shift, f16 by F16C. f32 operands keep the vectoriser's loops (routed here they ran fewer
// instructions but 3-7% slower in wall-clock A/Bs on the development machine), but for Add and Mul (kLanesAlways),
// whose NaN rule is one instruction here and a compare, an OR and a blend there. F16C quiets a signalling NaN, which the exact
// widening keeps; these loops run one IEEE operation per lane, which quiets it the same way, so their results do not
// change.
__attribute__((target("avx2,f16c"))) inline __m256 Load8(const float* p, int32_t i) { return avx2::Lanes8(p + i); }
__attribute__((target("avx2,f16c"))) inline __m256 Load8(const bfloat16_t* p, int32_t i) { return avx2::Lanes8(p + i); }
__attribute__((target("avx2,f16c"))) inline __m256 Load8(const half* p, int32_t i) {
    return avx2::Lanes8(reinterpret_cast<const uint16_t*>(p + i));
}
template <typename A, typename B, typename F>
__attribute__((target("avx2,f16c"))) void ApplyBinaryLanes8(float* d, const A* a, const B* b, int32_t n, F f) {
    int32_t i = 0;
#pragma GCC unroll 2
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(d + i, f(Load8(a, i), Load8(b, i)));
    for (; i < n; ++i) d[i] = f(LoadFloat(a, i), LoadFloat(b, i));
}
template <typename A, typename F>
__attribute__((target("avx2,f16c"))) void ApplyUnaryLanes8(float* d, const A* a, int32_t n, F f) {
    int32_t i = 0;
#pragma GCC unroll 2
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(d + i, f(Load8(a, i)));
    for (; i < n; ++i) d[i] = f(LoadFloat(a, i));
}
#endif

// 256-bit lanes in functions compiled without AVX (Splat, KeepFirstNan and the lane lambdas below, which take them
// by reference): they are only ever inlined into the AVX2 loops, so GCC's warning on the ABI of a vector return does
// not concern them. GCC gives it at the end of the translation unit, so it stays off from here on.
#pragma GCC diagnostic ignored "-Wpsabi"

// A float scalar as an operand of the lanes of `a`'s type (float, or __m256 in the 8-lane loops; GCC's generic
// vector operations, so the lambdas need no target of their own).
template <typename V> inline V Splat(float s) {
    typedef int32_t Bits8 __attribute__((vector_size(32)));
    if constexpr (std::is_same<V, float>::value) return s;
    else return reinterpret_cast<V>(Bits8{} + int32_t(FloatBits(s)));  // bits: 0 + s would turn -0 into +0
}

// How an operation's lambda may run: element by element only, also on __m256 lanes (one IEEE operation per lane), or
// on __m256 lanes for f32 operands too (Add and Mul, whose lane form is one instruction, AddKeepFirstNan).
enum LaneForm : int { kElements = 0, kLanes = 1, kLanesAlways = 2 };

// float results from float operands or deferred widenings
template <int kForm, typename A, typename B, typename F>
void ApplyBinaryFloat(float* d, const A* a, const B* b, int32_t n, F f) {
#if defined(ACTGRAD_SIM_AVX2)
    if (UseAvx2()) {
        constexpr bool kF32 = std::is_same<A, float>::value && std::is_same<B, float>::value;
        if constexpr (kF32 && kForm != kLanesAlways) return ApplyBinaryAvx2(d, a, b, n, f);
        else if constexpr (kForm != kElements) return ApplyBinaryLanes8(d, a, b, n, f);
        else return ApplyBinaryWidenAvx2(d, a, b, n, f);
    }
#endif
#pragma GCC ivdep
    for (int32_t i = 0; i < n; ++i) d[i] = f(LoadFloat(a, i), LoadFloat(b, i));
}
// How many leading elements an operation's own vector loop did (fast_math.h): none but for the ones that have one.
template <typename F, typename A>
inline uint32_t LeadingLanes(const F&, float*, const A*, uint32_t) { return 0; }

template <int kForm, typename A, typename F>
void ApplyUnaryFloat(float* d, const A* a, int32_t n, F f) {
    const int32_t done = int32_t(LeadingLanes(f, d, a, uint32_t(n)));
    d += done;
    a += done;
    n -= done;
#if defined(ACTGRAD_SIM_AVX2)
    if (UseAvx2()) {
        if constexpr (std::is_same<A, float>::value && kForm != kLanesAlways) return ApplyUnaryAvx2(d, a, n, f);
        else if constexpr (kForm != kElements) return ApplyUnaryLanes8(d, a, n, f);
        else return ApplyUnaryWidenAvx2(d, a, n, f);
    }
#endif
#pragma GCC ivdep
    for (int32_t i = 0; i < n; ++i) d[i] = f(LoadFloat(a, i));
}

template <typename T, typename F>
void ApplyBinary(T* d, const T* a, const T* b, int32_t n, F f) {
    if constexpr (std::is_same<T, float>::value) {
        ApplyBinaryFloat<kElements>(d, a, b, n, f);
    } else if constexpr (IsHalfLike<T>) {
        const bool sat = tlBlock->saturateFloat;
#pragma GCC ivdep
        for (int32_t i = 0; i < n; ++i) d[i] = Narrow<T>(f(Widen(a[i]), Widen(b[i])), sat);
    } else {
#pragma GCC ivdep
        for (int32_t i = 0; i < n; ++i) d[i] = f(a[i], b[i]);
    }
}

template <typename T, typename F>
void ApplyUnary(T* d, const T* a, int32_t n, F f) {
    if constexpr (std::is_same<T, float>::value) {
        ApplyUnaryFloat<kElements>(d, a, n, f);
    } else if constexpr (IsHalfLike<T>) {
        const bool sat = tlBlock->saturateFloat;
#pragma GCC ivdep
        for (int32_t i = 0; i < n; ++i) d[i] = Narrow<T>(f(Widen(a[i])), sat);
    } else {
#pragma GCC ivdep
        for (int32_t i = 0; i < n; ++i) d[i] = f(a[i]);
    }
}

// Calls use(p) with p the first `count` elements of float tensor t as a loop reads them: its own, the GM bytes of the
// deferred copy that holds them, or the bf16 or f16 source of the deferred widening that holds them. kF16Lanes: the
// loop widens f16 8 lanes at a time (F16C); other loops get an f16 widening stored first, as widening f16 element by
// element costs more than storing it.
template <bool kF16Lanes, typename Use>
void WithFloatOperand(const AscendC::LocalTensor<float>& t, uint32_t count, Use use) {
    const uint64_t bytes = uint64_t(count) * sizeof(float);
    const WideningSource source = DeferredSource(t.Data(), count);
    if (source.bits == nullptr) return use(ReadThroughCopy(t, bytes));
    if (!source.half) return use(reinterpret_cast<const bfloat16_t*>(source.bits));
    if constexpr (kF16Lanes) {
        use(reinterpret_cast<const half*>(source.bits));
    } else {
        SettleDeferred(t.BytePtr(), bytes, Access::Read);
        use(static_cast<const float*>(t.Data()));
    }
}

template <typename T> inline bool InPlace(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src) {
    return dst.BytePtr() == src.BytePtr();
}

// Tensor forms of ApplyBinary/ApplyUnary: float sources may be deferred widenings, whose operand checks used
// Access::ReadWidening (an in-place dst Access::Rewrite: the widening goes once the results are written);
// kForm: a LaneForm.
template <int kForm, typename T, typename F>
void ApplyBinaryTo(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0,
                   const AscendC::LocalTensor<T>& src1, int32_t n, F f) {
    if constexpr (std::is_same<T, float>::value) {
        WithFloatOperand<kForm != kElements>(src0, uint32_t(n), [&](auto a) {
            WithFloatOperand<kForm != kElements>(src1, uint32_t(n), [&](auto b) { ApplyBinaryFloat<kForm>(dst.Data(), a, b, n, f); });
        });
        if (InPlace(dst, src0) || InPlace(dst, src1)) DropRewritten(dst.BytePtr(), uint64_t(n) * sizeof(float));
    } else {
        ApplyBinary(dst.Data(), src0.Data(), src1.Data(), n, f);
    }
}
template <int kForm, typename T, typename F>
void ApplyUnaryTo(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, int32_t n, F f) {
    if constexpr (std::is_same<T, float>::value) {
        WithFloatOperand<kForm != kElements>(src, uint32_t(n), [&](auto a) { ApplyUnaryFloat<kForm>(dst.Data(), a, n, f); });
        if (InPlace(dst, src)) DropRewritten(dst.BytePtr(), uint64_t(n) * sizeof(float));
    } else {
        ApplyUnary(dst.Data(), src.Data(), n, f);
    }
}

// Float sources are read through ApplyBinaryTo/ApplyUnaryTo, which widen deferred widenings themselves.
template <typename T> constexpr Access kSourceAccess = std::is_same<T, float>::value ? Access::ReadWidening : Access::Read;
// ... and so is a float dst that is also a source: the widening there need not be stored before it is overwritten.
template <typename T> constexpr Access kInPlaceAccess = std::is_same<T, float>::value ? Access::Rewrite : Access::Write;

template <typename T>
void CheckBinary(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0, const AscendC::LocalTensor<T>& src1,
                 int32_t count, const char* api) {
    Block(api);
    CheckCount(count, api);
    RequireBf16Math<T>(api);
    const uint64_t bytes = uint64_t(count) * sizeof(T);
    CheckVectorOperand(src0, bytes, api, "src0", kSourceAccess<T>);
    CheckVectorOperand(src1, bytes, api, "src1", kSourceAccess<T>);
    CheckVectorOperand(dst, bytes, api, "dst", InPlace(dst, src0) || InPlace(dst, src1) ? kInPlaceAccess<T> : Access::Write);
    CheckNoPartialOverlap(dst, bytes, src0, bytes, api, "src0");
    CheckNoPartialOverlap(dst, bytes, src1, bytes, api, "src1");
    CountVectorInstruction();
}

template <typename T>
void CheckUnary(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, int32_t count, const char* api) {
    Block(api);
    CheckCount(count, api);
    RequireBf16Math<T>(api);
    const uint64_t bytes = uint64_t(count) * sizeof(T);
    CheckVectorOperand(src, bytes, api, "src", kSourceAccess<T>);
    CheckVectorOperand(dst, bytes, api, "dst", InPlace(dst, src) ? kInPlaceAccess<T> : Access::Write);
    CheckNoPartialOverlap(dst, bytes, src, bytes, api, "src");
    CountVectorInstruction();
}

// IEEE 754 leaves open which payload a NaN result of two NaN operands carries; x86 keeps the first operand's, but for
// a commutative + or * the compiler may put either operand first, so two loop versions could disagree. The twin's
// rule, on every path: src0's NaN (quieted) wins, as the first operand's does where the order is fixed (Sub, Div).
inline float KeepFirstNan(float a, float r) { return a != a ? BitsFloat(FloatBits(a) | 0x00400000u) : r; }
#if defined(__SSE2__)
inline __m128 KeepFirstNan(__m128 a, __m128 r) {  // the reductions' 4-lane tree (vec_reduce.h)
    const __m128 nan = _mm_cmpunord_ps(a, a);
    const __m128 quieted = _mm_or_ps(a, _mm_castsi128_ps(_mm_set1_epi32(0x00400000)));
    return _mm_or_ps(_mm_and_ps(nan, quieted), _mm_andnot_ps(nan, r));
}
#endif
#if defined(ACTGRAD_SIM_AVX2)
inline __m256 KeepFirstNan(const __m256& a, const __m256& r) {
    typedef int32_t Bits8 __attribute__((vector_size(32)));
    const Bits8 nan = a != a;
    const Bits8 quieted = reinterpret_cast<Bits8>(a) | 0x00400000;
    return reinterpret_cast<__m256>((nan & quieted) | (~nan & reinterpret_cast<Bits8>(r)));
}
#endif

// a + b and a * b with the NaN rule above. On 8 lanes it is the x86 instruction itself with a as its first source: SSE/AVX
// return the first source's NaN (quieted) when both are NaN, and the NaN operand (quieted) when one is. Written as asm
// because the compiler may swap the operands of a commutative intrinsic. They reach the AVX2 loops through a generic
// lambda (no target attribute of its own, so always_inline is refused) and are inlined there by the optimiser, as the
// twin is built (-O2 or higher); tests/sim/test_simd_paths.cpp checks their NaN rule in that build.
inline float AddKeepFirstNan(float a, float b) { return KeepFirstNan(a, a + b); }
inline float MulKeepFirstNan(float a, float b) { return KeepFirstNan(a, a * b); }
#if defined(ACTGRAD_SIM_AVX2)
inline __m256 AddKeepFirstNan(const __m256& a, const __m256& b) {
    __m256 r;
    asm("vaddps %2, %1, %0" : "=x"(r) : "x"(a), "xm"(b));
    return r;
}
inline __m256 MulKeepFirstNan(const __m256& a, const __m256& b) {
    __m256 r;
    asm("vmulps %2, %1, %0" : "=x"(r) : "x"(a), "xm"(b));
    return r;
}
#endif

template <typename T> inline T MaxNan(T a, T b) { return (a > b || a != a) ? a : b; }
template <typename T> inline T MinNan(T a, T b) { return (a < b || a != a) ? a : b; }

}  // namespace actgrad_sim

namespace AscendC {

#define ACTGRAD_SIM_PACK(...) __VA_ARGS__
// LANES: FLOAT_EXPR works lane by lane (one IEEE operation, with the NaN rule), so also on __m256 lanes
#define ACTGRAD_SIM_BINARY(NAME, TYPES, FLOAT_EXPR, INT_EXPR, LANES)                                              \
    template <typename T>                                                                                         \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, const int32_t& count) { \
        static_assert(actgrad_sim::OneOf<T, TYPES>, #NAME ": unsupported dtype (see the A2/A3 dtype table)");     \
        actgrad_sim::CheckBinary(dst, src0, src1, count, #NAME);                                                  \
        if constexpr (std::is_integral<T>::value) {                                                               \
            actgrad_sim::ApplyBinaryTo<actgrad_sim::kElements>(dst, src0, src1, count, [](T a, T b) { return INT_EXPR; });         \
        } else {                                                                                                  \
            actgrad_sim::ApplyBinaryTo<LANES>(dst, src0, src1, count, [](const auto& a, const auto& b) { return FLOAT_EXPR; }); \
        }                                                                                                         \
    }

#define ACTGRAD_SIM_ARITH_TYPES half, float, int16_t, int32_t, bfloat16_t
ACTGRAD_SIM_BINARY(Add, ACTGRAD_SIM_ARITH_TYPES, actgrad_sim::AddKeepFirstNan(a, b), actgrad_sim::IntOp(a, b, [](auto x, auto y) { return x + y; }), actgrad_sim::kLanesAlways)
ACTGRAD_SIM_BINARY(Sub, ACTGRAD_SIM_ARITH_TYPES, a - b, actgrad_sim::IntOp(a, b, [](auto x, auto y) { return x - y; }), actgrad_sim::kLanes)
ACTGRAD_SIM_BINARY(Mul, ACTGRAD_SIM_ARITH_TYPES, actgrad_sim::MulKeepFirstNan(a, b), actgrad_sim::IntOp(a, b, [](auto x, auto y) { return x * y; }), actgrad_sim::kLanesAlways)
ACTGRAD_SIM_BINARY(Max, ACTGRAD_SIM_ARITH_TYPES, actgrad_sim::MaxNan(a, b), (a > b ? a : b), actgrad_sim::kElements)
ACTGRAD_SIM_BINARY(Min, ACTGRAD_SIM_ARITH_TYPES, actgrad_sim::MinNan(a, b), (a < b ? a : b), actgrad_sim::kElements)
ACTGRAD_SIM_BINARY(Div, ACTGRAD_SIM_PACK(half, float), a / b, a, actgrad_sim::kLanes)
ACTGRAD_SIM_BINARY(And, ACTGRAD_SIM_PACK(int16_t, uint16_t), a, T(a & b), actgrad_sim::kElements)
ACTGRAD_SIM_BINARY(Or, ACTGRAD_SIM_PACK(int16_t, uint16_t), a, T(a | b), actgrad_sim::kElements)
#undef ACTGRAD_SIM_BINARY

#define ACTGRAD_SIM_SCALAR(NAME, TYPES, EXPR, LANES)                                                             \
    template <typename T, bool isSetMask = true>                                                                 \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, const int32_t& count) { \
        static_assert(actgrad_sim::OneOf<T, TYPES>, #NAME ": unsupported dtype (see the A2/A3 dtype table)");    \
        actgrad_sim::CheckUnary(dst, src, count, #NAME);                                                         \
        if constexpr (std::is_integral<T>::value) {                                                              \
            const T s = scalarValue;                                                                             \
            actgrad_sim::ApplyUnaryTo<actgrad_sim::kElements>(dst, src, count, [s](T a) {                                         \
                const T b = s;                                                                                   \
                return EXPR;                                                                                     \
            });                                                                                                  \
        } else {                                                                                                 \
            /* read through volatile: a scalar the compiler knew would let it fold x * -1 into -x, which flips a \
               NaN's sign, so builds and loop versions would disagree on NaN bits */                            \
            const volatile float opaque = float(scalarValue);                                                    \
            const float s = opaque;                                                                              \
            actgrad_sim::ApplyUnaryTo<LANES>(dst, src, count, [s](const auto& a) {                               \
                using V = std::decay_t<decltype(a)>;                                                             \
                const V b = actgrad_sim::Splat<V>(s);                                                            \
                return EXPR;                                                                                     \
            });                                                                                                  \
        }                                                                                                        \
    }

// the tensor is the first operand: where it and the scalar are both NaN, the tensor's NaN wins on every path
template <typename T> inline T ActgradSimAdd(const T& a, const T& b) {
    if constexpr (std::is_integral<T>::value) return actgrad_sim::IntOp(a, b, [](auto x, auto y) { return x + y; });
    else return actgrad_sim::AddKeepFirstNan(a, b);
}
template <typename T> inline T ActgradSimMul(const T& a, const T& b) {
    if constexpr (std::is_integral<T>::value) return actgrad_sim::IntOp(a, b, [](auto x, auto y) { return x * y; });
    else return actgrad_sim::MulKeepFirstNan(a, b);
}
ACTGRAD_SIM_SCALAR(Adds, ACTGRAD_SIM_ARITH_TYPES, ActgradSimAdd(a, b), actgrad_sim::kLanesAlways)
ACTGRAD_SIM_SCALAR(Muls, ACTGRAD_SIM_ARITH_TYPES, ActgradSimMul(a, b), actgrad_sim::kLanesAlways)
ACTGRAD_SIM_SCALAR(Maxs, ACTGRAD_SIM_ARITH_TYPES, actgrad_sim::MaxNan(a, b), actgrad_sim::kElements)
ACTGRAD_SIM_SCALAR(Mins, ACTGRAD_SIM_ARITH_TYPES, actgrad_sim::MinNan(a, b), actgrad_sim::kElements)
ACTGRAD_SIM_SCALAR(LeakyRelu, ACTGRAD_SIM_PACK(half, float), (a >= 0 ? a : b * a), actgrad_sim::kElements)
#undef ACTGRAD_SIM_SCALAR

#define ACTGRAD_SIM_UNARY(NAME, TYPES, EXPR)                                                                      \
    template <typename T>                                                                                         \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {                       \
        static_assert(actgrad_sim::OneOf<T, TYPES>, #NAME ": unsupported dtype (see the A2/A3 dtype table)");     \
        actgrad_sim::CheckUnary(dst, src, count, #NAME);                                                          \
        actgrad_sim::ApplyUnaryTo<actgrad_sim::kElements>(dst, src, count, [](auto a) { return EXPR; });                           \
    }

ACTGRAD_SIM_UNARY(Ln, ACTGRAD_SIM_PACK(half, float), std::log(a))
ACTGRAD_SIM_UNARY(Abs, ACTGRAD_SIM_PACK(half, float), std::fabs(a))
ACTGRAD_SIM_UNARY(Reciprocal, ACTGRAD_SIM_PACK(half, float), 1.0f / a)
ACTGRAD_SIM_UNARY(Sqrt, ACTGRAD_SIM_PACK(half, float), std::sqrt(a))
ACTGRAD_SIM_UNARY(Rsqrt, ACTGRAD_SIM_PACK(half, float), 1.0f / std::sqrt(a))
ACTGRAD_SIM_UNARY(Relu, ACTGRAD_SIM_PACK(half, float, int32_t), (a > 0 || a != a) ? a : decltype(a)(0))
ACTGRAD_SIM_UNARY(Not, ACTGRAD_SIM_PACK(int16_t, uint16_t), decltype(a)(~a))
#undef ACTGRAD_SIM_UNARY

template <typename T>
void Exp(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {
    static_assert(actgrad_sim::OneOf<T, half, float>, "Exp: unsupported dtype (see the A2/A3 dtype table)");
    actgrad_sim::CheckUnary(dst, src, count, "Exp");
    actgrad_sim::ApplyUnaryTo<actgrad_sim::kElements>(dst, src, count, actgrad_sim::ExpOp{});
}
#undef ACTGRAD_SIM_ARITH_TYPES
#undef ACTGRAD_SIM_PACK

template <typename T>
void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, const int32_t& count) {
    static_assert(actgrad_sim::OneOf<T, half, int16_t, uint16_t, int32_t, uint32_t, float, bfloat16_t>,
                  "Duplicate: unsupported dtype");
    const char* api = "Duplicate";
    actgrad_sim::Block(api);
    actgrad_sim::CheckCount(count, api);
    actgrad_sim::RequireStorageType<T>(api);
    actgrad_sim::CheckVectorOperand(dst, uint64_t(count) * sizeof(T), api, "dst", actgrad_sim::Access::Write);
    actgrad_sim::CountVectorInstruction();
    T* d = dst.Data();
    for (int32_t i = 0; i < count; ++i) d[i] = scalarValue;
}

}  // namespace AscendC
