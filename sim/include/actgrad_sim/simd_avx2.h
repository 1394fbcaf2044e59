// AVX2/F16C versions of the twin's hottest loops (compare to mask bits, select, f16/bf16 conversions; the float
// arithmetic loops get theirs in vec_arith.h), chosen at run time: the library is built for baseline x86-64, these
// functions are compiled for AVX2 on their own and run only when the CPU has it. Each returns how many leading
// elements it handled; callers (through ACTGRAD_SIM_IF_AVX2) finish the rest the portable way. Results are
// bit-identical to the portable loops (tests/sim/test_simd_paths.cpp, tests/test_simd_paths.py);
// ACTGRAD_SIM_NO_AVX2=1 turns them off.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "numeric.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ACTGRAD_SIM_AVX2 1
#endif

namespace actgrad_sim {

#if defined(ACTGRAD_SIM_AVX2)
inline bool UseAvx2() {
    static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c") &&
                            std::getenv("ACTGRAD_SIM_NO_AVX2") == nullptr;
    return has;
}

namespace avx2 {

#define ACTGRAD_AVX2 __attribute__((target("avx2,f16c")))

// 8 lanes as floats: f32 as they are, f16 (as its bits) widened exactly by F16C, bf16 by a shift; a NaN stays a NaN,
// so compares decide as on the narrow values.
ACTGRAD_AVX2 inline __m256 Lanes8(const float* p) { return _mm256_loadu_ps(p); }
ACTGRAD_AVX2 inline __m256 Lanes8(const uint16_t* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
// bf16 (the source of a deferred widening): its bits above 16 zero bits are the float
ACTGRAD_AVX2 inline __m256 Lanes8(const bfloat16_t* p) {
    const __m256i wide = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    return _mm256_castsi256_ps(_mm256_slli_epi32(wide, 16));
}
template <typename E> ACTGRAD_AVX2 inline __m256 Rhs8(const E* b, uint32_t i) { return Lanes8(b + i); }
ACTGRAD_AVX2 inline __m256 Rhs8(float b, uint32_t) { return _mm256_set1_ps(b); }
// dst byte k holds the compare bits of lanes 8k..8k+7; count is a multiple of 8. Pred is a _CMP_* immediate; E is
// float, uint16_t (f16 bits) or bfloat16_t; B is a tensor of E or a float scalar. 32 lanes go out as one 4-byte store: byte
// stores would keep the single store port of some cores as busy as the compares themselves.
template <int Pred, bool kSelf, typename E, typename B>
ACTGRAD_AVX2 inline uint32_t Bits8(const E* a, B b, uint32_t i) {
    const __m256 v = Lanes8(a + i);
    if constexpr (kSelf) return uint32_t(_mm256_movemask_ps(_mm256_cmp_ps(v, v, Pred)));  // load and widen once
    else return uint32_t(_mm256_movemask_ps(_mm256_cmp_ps(v, Rhs8(b, i), Pred)));
}
// f16 and bf16 decide NaN and order on their bits, 8 lanes per 128-bit integer operation, where widening would cost a
// conversion per 8 lanes (F16C's on some cores runs on one port). The infinity pattern of each: a larger magnitude
// is a NaN.
template <typename E> constexpr int16_t kInfBits = 0x7f80;  // bf16
template <> constexpr int16_t kInfBits<uint16_t> = 0x7c00;  // f16 (as its bits)
template <typename E>
ACTGRAD_AVX2 inline __m128i Load16(const E* a, uint32_t i) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i));
}
// Against itself only NaN decides: NE is true for it, EQ LE GE for the others, LT GT for none.
template <int Pred, typename E>
ACTGRAD_AVX2 inline uint32_t SelfBits16(const E* a, uint32_t i) {
    const __m128i magnitude = _mm_set1_epi16(0x7fff), inf = _mm_set1_epi16(kInfBits<E>);
    const __m128i nan = _mm_packs_epi16(_mm_cmpgt_epi16(_mm_and_si128(Load16(a, i), magnitude), inf),
                                        _mm_cmpgt_epi16(_mm_and_si128(Load16(a, i + 8), magnitude), inf));
    const uint32_t nanBits = uint32_t(_mm_movemask_epi8(nan));
    if constexpr (Pred == _CMP_NEQ_UQ) return nanBits;
    else if constexpr (Pred == _CMP_EQ_OQ || Pred == _CMP_LE_OQ || Pred == _CMP_GE_OQ) return ~nanBits & 0xffffu;
    else return 0;  // x < x, x > x
}
// An f16 scalar that is not a NaN, as the ordered key of its pattern (see Key16).
struct HalfKey {
    __m128i key;
};
// Sign-magnitude patterns as signed integers in the order of their values: (m ^ s) - s with m the magnitude and s
// the sign spread over the lane, so -0 and +0 are both 0 and every negative value is -m. nan: the lanes above inf.
ACTGRAD_AVX2 inline __m128i Key16(__m128i v, __m128i& nan) {
    const __m128i m = _mm_and_si128(v, _mm_set1_epi16(0x7fff)), s = _mm_srai_epi16(v, 15);
    nan = _mm_cmpgt_epi16(m, _mm_set1_epi16(kInfBits<uint16_t>));
    return _mm_sub_epi16(_mm_xor_si128(m, s), s);
}
// 8 f16 lanes against the scalar: all ones where Pred holds, for NE LE GE its negation (the caller flips the bits).
template <int Pred>
ACTGRAD_AVX2 inline __m128i KeyCompare8(__m128i v, __m128i c) {
    __m128i nan;
    const __m128i key = Key16(v, nan);
    if constexpr (Pred == _CMP_GT_OQ) return _mm_andnot_si128(nan, _mm_cmpgt_epi16(key, c));
    else if constexpr (Pred == _CMP_LT_OQ) return _mm_andnot_si128(nan, _mm_cmpgt_epi16(c, key));
    else if constexpr (Pred == _CMP_GE_OQ) return _mm_or_si128(nan, _mm_cmpgt_epi16(c, key));
    else if constexpr (Pred == _CMP_LE_OQ) return _mm_or_si128(nan, _mm_cmpgt_epi16(key, c));
    else return _mm_cmpeq_epi16(key, c);  // EQ, NE: a NaN key lies outside every number's, so never equal
}
template <int Pred>
ACTGRAD_AVX2 inline uint32_t KeyBits16(const uint16_t* a, HalfKey c, uint32_t i) {
    const uint32_t bits = uint32_t(_mm_movemask_epi8(
        _mm_packs_epi16(KeyCompare8<Pred>(Load16(a, i), c.key), KeyCompare8<Pred>(Load16(a, i + 8), c.key))));
    constexpr bool kNegated = Pred == _CMP_NEQ_UQ || Pred == _CMP_GE_OQ || Pred == _CMP_LE_OQ;
    return kNegated ? ~bits & 0xffffu : bits;
}
// 16 lanes: 16-bit patterns against themselves and f16 against an f16 scalar on their bits, otherwise as floats in
// two 256-bit compares (f16 against a tensor by F16C).
template <int Pred, bool kSelf, typename E, typename B>
ACTGRAD_AVX2 inline uint32_t Bits16(const E* a, B b, uint32_t i) {
    if constexpr (kSelf && !std::is_same<E, float>::value) return SelfBits16<Pred>(a, i);
    else if constexpr (std::is_same<B, HalfKey>::value) return KeyBits16<Pred>(a, b, i);
    else return Bits8<Pred, kSelf>(a, b, i) | Bits8<Pred, kSelf>(a, b, i + 8) << 8;
}
// 8 lanes compared as floats, each lane all ones or all zeros
template <int Pred, bool kSelf, typename E, typename B>
ACTGRAD_AVX2 inline __m256i Lanes8Mask(const E* a, B b, size_t i) {
    const __m256 v = Lanes8(a + i);
    if constexpr (kSelf) return _mm256_castps_si256(_mm256_cmp_ps(v, v, Pred));  // load and widen once
    else return _mm256_castps_si256(_mm256_cmp_ps(v, Rhs8(b, uint32_t(i)), Pred));
}
// 32 lanes compared as floats into one mask word: the four 8-lane masks packed to bytes by saturating packs (which
// keep all ones and zeros) and one byte movemask, in place of a movemask, a shift and an OR per 8 lanes. The packs work
// within 128-bit halves, so the byte quads come out as lanes 0-3, 8-11, 16-19, 24-27, 4-7, ...: one dword permute
// restores the order.
template <int Pred, bool kSelf, typename E, typename B>
ACTGRAD_AVX2 inline uint32_t Bits32(const E* a, B b, size_t i) {
    const __m256i lo = _mm256_packs_epi32(Lanes8Mask<Pred, kSelf>(a, b, i), Lanes8Mask<Pred, kSelf>(a, b, i + 8));
    const __m256i hi = _mm256_packs_epi32(Lanes8Mask<Pred, kSelf>(a, b, i + 16), Lanes8Mask<Pred, kSelf>(a, b, i + 24));
    const __m256i quads = _mm256_permutevar8x32_epi32(_mm256_packs_epi16(lo, hi), _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    return uint32_t(_mm256_movemask_epi8(quads));
}
template <int Pred, bool kSelf, typename E, typename B>
ACTGRAD_AVX2 inline void CompareLoop(uint8_t* dst, const E* a, B b, uint32_t count) {
    uint32_t i = 0;
    if constexpr ((kSelf && !std::is_same<E, float>::value) || std::is_same<B, HalfKey>::value) {
        for (; i + 32 <= count; i += 32) {
            const uint32_t bits = Bits16<Pred, kSelf>(a, b, i) | Bits16<Pred, kSelf>(a, b, i + 16) << 16;
            std::memcpy(dst + i / 8, &bits, sizeof(bits));
        }
    } else {
        const size_t whole = count / 32 * 32;
        for (size_t k = 0; k < whole; k += 32) {
            const uint32_t bits = Bits32<Pred, kSelf>(a, b, k);
            std::memcpy(dst + k / 8, &bits, sizeof(bits));
        }
        i = uint32_t(whole);
    }
    if constexpr (!std::is_same<B, HalfKey>::value) {  // HalfKey counts are whole multiples of 32
        for (; i < count; i += 8) dst[i / 8] = uint8_t(Bits8<Pred, kSelf>(a, b, i));
    }
}
template <int Pred, typename E, typename B>
ACTGRAD_AVX2 inline void Compare(uint8_t* dst, const E* a, B b, uint32_t count) {
    if constexpr (std::is_pointer<B>::value) {
        if (a == b) return CompareLoop<Pred, true>(dst, a, b, count);  // x against itself: the NaN test
    }
    if constexpr (std::is_same<E, uint16_t>::value && std::is_same<B, float>::value) {
        const uint16_t bits = FloatToHalfBitsRne(b);
        if (b == HalfBitsToFloat(bits)) {  // an f16 number (f16 tensors compare with f16 scalars): on the bits
            const uint32_t whole = count / 32 * 32;
            __m128i unused;
            CompareLoop<Pred, false>(dst, a, HalfKey{Key16(_mm_set1_epi16(int16_t(bits)), unused)}, whole);
            dst += whole / 8;
            a += whole;
            count -= whole;
        }
    }
    CompareLoop<Pred, false>(dst, a, b, count);
}

// The mask bits of the 8 (32-bit) or 16 (16-bit) lanes from element i, and those bits as lane masks (broadcast and
// tested one by one).
ACTGRAD_AVX2 inline uint32_t MaskBits(const uint32_t*, const uint8_t* mask, uint32_t i) { return mask[i / 8]; }
ACTGRAD_AVX2 inline uint32_t MaskBits(const uint16_t*, const uint8_t* mask, uint32_t i) {
    uint16_t bits;  // i is a multiple of 16: the two mask bytes as one load
    std::memcpy(&bits, mask + i / 8, sizeof(bits));
    return bits;
}
ACTGRAD_AVX2 inline __m256i LaneMask(const uint32_t*, uint32_t bits) {
    const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(int32_t(bits)), bit), bit);
}
ACTGRAD_AVX2 inline __m256i LaneMask(const uint16_t*, uint32_t bits) {
    const __m256i bit = _mm256_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384,
                                          int16_t(0x8000));
    return _mm256_cmpeq_epi16(_mm256_and_si256(_mm256_set1_epi16(int16_t(bits)), bit), bit);
}
// The false side: a tensor, or one pattern in every lane.
template <typename W> ACTGRAD_AVX2 inline __m256i FalseSide(const W* b, uint32_t i) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i));
}
ACTGRAD_AVX2 inline __m256i FalseSide(uint32_t b, uint32_t) { return _mm256_set1_epi32(int32_t(b)); }
ACTGRAD_AVX2 inline __m256i FalseSide(uint16_t b, uint32_t) { return _mm256_set1_epi16(int16_t(b)); }

// d[i] = bit i of mask ? a[i] : b[i] on W = uint32_t or uint16_t lanes (b a tensor or a pattern), lanes [begin, end).
template <typename W, typename B>
ACTGRAD_AVX2 inline void SelectRange(W* d, const uint8_t* mask, const W* a, B b, uint32_t begin, uint32_t end) {
    for (uint32_t i = begin; i < end; i += 32 / sizeof(W)) {
        const __m256i av = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i),
                            _mm256_blendv_epi8(FalseSide(b, i), av, LaneMask(d, MaskBits(d, mask, i))));
    }
}
// 32-bit lanes, 32 per step: one load of four mask bytes, and for each 8 lanes a variable shift that moves lane k's bit
// to the sign, which the float blend reads (lanes [begin, end), a multiple of 32 long).
template <typename B>
ACTGRAD_AVX2 inline void SelectRange32(uint32_t* d, const uint8_t* mask, const uint32_t* a, B b, uint32_t begin,
                                       uint32_t end) {
    const __m256i toSign = _mm256_setr_epi32(31, 30, 29, 28, 27, 26, 25, 24);
    for (uint32_t i = begin; i < end; i += 32) {
        uint32_t bits;
        std::memcpy(&bits, mask + i / 8, sizeof(bits));
        const __m256i word = _mm256_set1_epi32(int32_t(bits));
        for (uint32_t g = 0; g < 4; ++g) {
            const __m256i lanes = _mm256_sllv_epi32(word, _mm256_sub_epi32(toSign, _mm256_set1_epi32(int32_t(8 * g))));
            const __m256 av = _mm256_loadu_ps(reinterpret_cast<const float*>(a + i + 8 * g));
            const __m256 r = _mm256_blendv_ps(_mm256_castsi256_ps(FalseSide(b, i + 8 * g)), av, _mm256_castsi256_ps(lanes));
            _mm256_storeu_ps(reinterpret_cast<float*>(d + i + 8 * g), r);
        }
    }
}
// the 32-lane steps for 32-bit lanes, the rest by SelectRange
template <typename W, typename B>
ACTGRAD_AVX2 inline void SelectSpan(W* d, const uint8_t* mask, const W* a, B b, uint32_t begin, uint32_t end) {
    if constexpr (sizeof(W) == 4) {
        const uint32_t whole = begin + (end - begin) / 32 * 32;
        SelectRange32(d, mask, a, b, begin, whole);
        begin = whole;
    }
    SelectRange(d, mask, a, b, begin, end);
}
// In place (d == a) the lanes whose bit is set keep their values: 64 lanes whose bits are all set are skipped
// without a store, so a select that patches a few lanes (the NaN lanes of a band functor) costs about a read of its
// mask.
template <typename W, typename B>
ACTGRAD_AVX2 inline uint32_t SelectBits(W* d, const uint8_t* mask, const W* a, B b, uint32_t count) {
    const uint32_t whole = count / (32 / sizeof(W)) * (32 / sizeof(W));
    if (d != a) {
        SelectSpan(d, mask, a, b, 0, whole);
        return whole;
    }
    uint32_t i = 0;
    for (; i + 64 <= whole; i += 64) {
        uint64_t bits;
        std::memcpy(&bits, mask + i / 8, sizeof(bits));
        if (bits != ~uint64_t(0)) SelectSpan(d, mask, a, b, i, i + 64);
    }
    SelectSpan(d, mask, a, b, i, whole);
    return whole;
}

// f32 -> bf16 bits, round half to even by integer add (the kept lsb as a compare result, -1 or 0: shifts have one
// port on some cores); a NaN gets the quiet bit instead (rounding could carry it into infinity), on the rare
// vectors that hold one (one unordered compare of the two halves finds them). 16 lanes per step: the in-lane pack
// interleaves the two halves' quadwords, which one permute puts back in order.
ACTGRAD_AVX2 inline __m256i Bf16Rounded8(__m256i x) {
    const __m256i lsb = _mm256_set1_epi32(0x10000);
    return _mm256_sub_epi32(_mm256_add_epi32(x, _mm256_set1_epi32(0x7fff)), _mm256_cmpeq_epi32(_mm256_and_si256(x, lsb), lsb));
}
ACTGRAD_AVX2 inline uint32_t NarrowBf16(uint16_t* out, const float* in, uint32_t n) {
    uint32_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256 fa = _mm256_loadu_ps(in + i), fb = _mm256_loadu_ps(in + i + 8);
        __m256i a = Bf16Rounded8(_mm256_castps_si256(fa)), b = Bf16Rounded8(_mm256_castps_si256(fb));
        if (__builtin_expect(_mm256_movemask_ps(_mm256_cmp_ps(fa, fb, _CMP_UNORD_Q)) != 0, 0)) {
            const __m256 nanA = _mm256_cmp_ps(fa, fa, _CMP_UNORD_Q), nanB = _mm256_cmp_ps(fb, fb, _CMP_UNORD_Q);
            const __m256i quiet = _mm256_set1_epi32(0x400000);
            a = _mm256_blendv_epi8(a, _mm256_or_si256(_mm256_castps_si256(fa), quiet), _mm256_castps_si256(nanA));
            b = _mm256_blendv_epi8(b, _mm256_or_si256(_mm256_castps_si256(fb), quiet), _mm256_castps_si256(nanB));
        }
        const __m256i packed = _mm256_packus_epi32(_mm256_srli_epi32(a, 16), _mm256_srli_epi32(b, 16));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm256_permute4x64_epi64(packed, 0xD8));
    }
    return i;
}

// half <-> f32 by F16C. Narrowing rounds to nearest even exactly like FloatToHalfBitsRne, NaN payloads included;
// widening quiets signalling NaNs, so vectors holding a NaN take the exact scalar conversion.
ACTGRAD_AVX2 inline uint32_t WidenHalf(float* out, const uint16_t* in, uint32_t n) {
    uint32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 f = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i)));
        if (_mm256_movemask_ps(_mm256_cmp_ps(f, f, _CMP_UNORD_Q)) != 0) {
            for (uint32_t k = 0; k < 8; ++k) out[i + k] = HalfBitsToFloat(in[i + k]);
        } else {
            _mm256_storeu_ps(out + i, f);
        }
    }
    return i;
}
ACTGRAD_AVX2 inline uint32_t NarrowHalf(uint16_t* out, const float* in, uint32_t n) {
    uint32_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    return i;
}

// The large GM copies of data_copy.h in 256-bit vectors (the same loads, stores and hints; half the instructions):
// GM -> UB asks for the lines 1 KiB ahead, non-temporally; UB -> GM streams to a 32-byte aligned destination. Each
// returns how many leading bytes it copied (CopyToGm: bytes >= 32).
ACTGRAD_AVX2 inline void CopyLine(uint8_t* d, const uint8_t* s) {
    __builtin_prefetch(s + 1024, 0, 0);
    const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s));
    const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 32));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), lo);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + 32), hi);
}
ACTGRAD_AVX2 inline size_t CopyFromGm(uint8_t* d, const uint8_t* s, size_t bytes) {
    size_t i = 0;
    for (; i + 128 <= bytes; i += 128) {  // two lines per step: the loop's own instructions were a third
        CopyLine(d + i, s + i);
        CopyLine(d + i + 64, s + i + 64);
    }
    if (i + 64 <= bytes) {
        CopyLine(d + i, s + i);
        i += 64;
    }
    return i;
}
ACTGRAD_AVX2 inline size_t CopyToGm(uint8_t* d, const uint8_t* s, size_t bytes) {
    const size_t head = (32 - uintptr_t(d) % 32) % 32;
    std::memcpy(d, s, head);
    size_t i = head;
    for (; i + 32 <= bytes; i += 32)
        _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i)));
    return i;  // the caller finishes the rest and fences
}

// Compare with a CMPMODE (LT GT EQ LE GE NE, as its int): NE is true for NaN, the others false (IEEE).
template <typename E, typename B>
inline uint32_t CompareMode(uint8_t* dst, const E* a, B b, uint32_t count, int mode) {
    switch (mode) {
        case 0: Compare<_CMP_LT_OQ>(dst, a, b, count); break;
        case 1: Compare<_CMP_GT_OQ>(dst, a, b, count); break;
        case 2: Compare<_CMP_EQ_OQ>(dst, a, b, count); break;
        case 3: Compare<_CMP_LE_OQ>(dst, a, b, count); break;
        case 4: Compare<_CMP_GE_OQ>(dst, a, b, count); break;
        default: Compare<_CMP_NEQ_UQ>(dst, a, b, count); break;
    }
    return count / 8 * 8;
}

#undef ACTGRAD_AVX2

}  // namespace avx2
#endif

// Runs an AVX2 loop (an avx2:: call) when the machine has it and gives the number of elements it handled, 0 when it
// has not; without x86-64 GCC/Clang the call is not even compiled.
#if defined(ACTGRAD_SIM_AVX2)
#define ACTGRAD_SIM_IF_AVX2(call) (::actgrad_sim::UseAvx2() ? uint32_t(call) : 0u)
#else
#define ACTGRAD_SIM_IF_AVX2(call) 0u
#endif

}  // namespace actgrad_sim
