// Compare / Compares produce a packed bit mask (element i -> byte i/8, bit i%8); Select consumes one.
#pragma once
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "operand_checks.h"
#include "simd_avx2.h"
#include "vec_arith.h"

namespace AscendC {
enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };
}  // namespace AscendC

namespace actgrad_sim {

inline const char* CmpModeName(AscendC::CMPMODE m) {
    static const char* names[] = {"LT", "GT", "EQ", "LE", "GE", "NE"};
    return uint8_t(m) < 6 ? names[uint8_t(m)] : "?";
}

template <typename T>
void CheckCompareOperands(uint32_t count, AscendC::CMPMODE mode, const char* api) {
    auto& ctx = Block(api);
    if (uint8_t(mode) > uint8_t(AscendC::CMPMODE::NE))
        Fail(ErrorKind::InvalidArgument, api, "cmpMode ", int(mode), " is not one of LT GT EQ LE GE NE");
    if (std::is_same<T, int32_t>::value && mode != AscendC::CMPMODE::EQ)
        Fail(ErrorKind::Unsupported, api, "int32_t compares only with EQ, got ", CmpModeName(mode));
    RequireBf16Math<T>(api);
    if (uint64_t(count) * sizeof(T) % kRepeatBytes != 0)
        Fail(ErrorKind::Alignment, api, "count ", count, " x sizeof(", TypeName<T>(), ") = ", uint64_t(count) * sizeof(T),
             " bytes is not a multiple of 256 (the NPU silently skips the partial repeat)");
    (void)ctx;
}

// Compares 64-lane chunks into bytes (a loop the compiler vectorises), then packs each 8 bytes of 0/1 into one
// mask byte with a multiply: byte k of v lands on bit 56+k of v * 0x0102040810204080. Counts are whole 256-byte
// repeats, so every chunk is full. `rhs(p)` gives the right operand for the chunk starting at element p.
template <typename T, typename Rhs, typename Op>
void CompareChunks(uint8_t* dst, const T* a, uint32_t count, Rhs rhs, Op op) {
    using C = std::conditional_t<IsHalfLike<T>, float, T>;
    uint8_t lanes[64];
    for (uint32_t base = 0; base < count; base += 64) {
        const T* ap = a + base;
        const auto r = rhs(base);
        for (int k = 0; k < 64; ++k) lanes[k] = op(C(ap[k]), C(r[k])) ? 1 : 0;
        for (int q = 0; q < 8; ++q) {
            uint64_t v;
            std::memcpy(&v, lanes + 8 * q, 8);
            dst[base / 8 + q] = uint8_t((v * 0x0102040810204080ull) >> 56);
        }
    }
}

// A scalar right operand indexed like a tensor.
template <typename T>
struct Broadcast {
    T value;
    T operator[](int) const { return value; }
};

#if defined(__SSE2__)
// float compares straight into mask bits: one compare and one movemask per 4 lanes (NaN-aware like IEEE: only
// NE is true for a NaN operand).
inline __m128 LoadPs(const float* p) { return _mm_loadu_ps(p); }
inline __m128 LoadPs(Broadcast<float> b) { return _mm_set1_ps(b.value); }
template <typename R> inline R Advance(R r, int) { return r; }
inline const float* Advance(const float* p, int i) { return p + i; }

template <typename Rhs, typename Cmp>
void CompareFloatSse(uint8_t* dst, const float* a, uint32_t count, Rhs rhs, Cmp cmp) {
    for (uint32_t base = 0; base < count; base += 8) {
        const auto r = rhs(base);
        const int lo = _mm_movemask_ps(cmp(_mm_loadu_ps(a + base), LoadPs(r)));
        const int hi = _mm_movemask_ps(cmp(_mm_loadu_ps(a + base + 4), LoadPs(Advance(r, 4))));
        dst[base / 8] = uint8_t(lo | (hi << 4));
    }
}

inline const float* RawRhs(const float* p) { return p; }
inline float RawRhs(Broadcast<float> b) { return b.value; }

template <typename Rhs>
bool CompareFloatFast(uint8_t* dst, const float* a, uint32_t count, AscendC::CMPMODE m, Rhs rhs) {
    if (ACTGRAD_SIM_IF_AVX2(avx2::CompareMode(dst, a, RawRhs(rhs(0)), count, int(m))) == count)
        return true;  // counts are whole repeats
    switch (m) {
        case AscendC::CMPMODE::LT: CompareFloatSse(dst, a, count, rhs, [](__m128 x, __m128 y) { return _mm_cmplt_ps(x, y); }); break;
        case AscendC::CMPMODE::GT: CompareFloatSse(dst, a, count, rhs, [](__m128 x, __m128 y) { return _mm_cmpgt_ps(x, y); }); break;
        case AscendC::CMPMODE::EQ: CompareFloatSse(dst, a, count, rhs, [](__m128 x, __m128 y) { return _mm_cmpeq_ps(x, y); }); break;
        case AscendC::CMPMODE::LE: CompareFloatSse(dst, a, count, rhs, [](__m128 x, __m128 y) { return _mm_cmple_ps(x, y); }); break;
        case AscendC::CMPMODE::GE: CompareFloatSse(dst, a, count, rhs, [](__m128 x, __m128 y) { return _mm_cmpge_ps(x, y); }); break;
        default: CompareFloatSse(dst, a, count, rhs, [](__m128 x, __m128 y) { return _mm_cmpneq_ps(x, y); }); break;
    }
    return true;
}
// f16 through F16C where the machine has it (RawRhs gives the other side as f16 bits or a float scalar)
inline const uint16_t* RawRhs(const half* p) { return reinterpret_cast<const uint16_t*>(p); }
inline float RawRhs(Broadcast<half> b) { return float(b.value); }
template <typename Rhs>
bool CompareFloatFast(uint8_t* dst, const half* a, uint32_t count, AscendC::CMPMODE m, Rhs rhs) {
    return ACTGRAD_SIM_IF_AVX2(avx2::CompareMode(dst, reinterpret_cast<const uint16_t*>(a), RawRhs(rhs(0)), count,
                                                 int(m))) == count;
}
// the bf16 source of a deferred widening (RawRhs gives the other side as itself or a float scalar)
inline const bfloat16_t* RawRhs(const bfloat16_t* p) { return p; }
template <typename Rhs>
bool CompareFloatFast(uint8_t* dst, const bfloat16_t* a, uint32_t count, AscendC::CMPMODE m, Rhs rhs) {
    return ACTGRAD_SIM_IF_AVX2(avx2::CompareMode(dst, a, RawRhs(rhs(0)), count, int(m))) == count;
}
template <typename T, typename Rhs>
bool CompareFloatFast(uint8_t*, const T*, uint32_t, AscendC::CMPMODE, Rhs) { return false; }
#else
template <typename T, typename Rhs>
bool CompareFloatFast(uint8_t*, const T*, uint32_t, AscendC::CMPMODE, Rhs) { return false; }
#endif

// One instantiation per mode, so each is a tight loop without a per-element switch.
template <typename T, typename Rhs>
void CompareInto(uint8_t* dst, const T* a, uint32_t count, AscendC::CMPMODE m, Rhs rhs) {
    if (CompareFloatFast(dst, a, count, m, rhs)) return;
    switch (m) {
        case AscendC::CMPMODE::LT: CompareChunks(dst, a, count, rhs, [](auto x, auto y) { return x < y; }); break;
        case AscendC::CMPMODE::GT: CompareChunks(dst, a, count, rhs, [](auto x, auto y) { return x > y; }); break;
        case AscendC::CMPMODE::EQ: CompareChunks(dst, a, count, rhs, [](auto x, auto y) { return x == y; }); break;
        case AscendC::CMPMODE::LE: CompareChunks(dst, a, count, rhs, [](auto x, auto y) { return x <= y; }); break;
        case AscendC::CMPMODE::GE: CompareChunks(dst, a, count, rhs, [](auto x, auto y) { return x >= y; }); break;
        default: CompareChunks(dst, a, count, rhs, [](auto x, auto y) { return x != y; }); break;
    }
}

// Load 8 (or 1) lanes' bit patterns from a tensor at element i, or from a broadcast scalar.
template <typename V, typename P> inline void LoadLanes(V& v, const P* p, uint32_t i) { std::memcpy(&v, p + i, sizeof(V)); }
template <typename V, typename W> inline void LoadLanes(V& v, Broadcast<W> b, uint32_t) { v = V{} + b.value; }
template <typename W, typename P> inline void LoadLane(W& w, const P* p, uint32_t i) { std::memcpy(&w, p + i, sizeof(W)); }
template <typename W> inline void LoadLane(W& w, Broadcast<W> b, uint32_t) { w = b.value; }

template <size_t Size> struct BitsOfSize;
template <> struct BitsOfSize<2> { using type = uint16_t; };
template <> struct BitsOfSize<4> { using type = uint32_t; };

template <typename W> inline uint32_t SelectFast(W* d, const uint8_t* mask, const W* a, const void* b, uint32_t count) {
    return ACTGRAD_SIM_IF_AVX2(avx2::SelectBits(d, mask, a, static_cast<const W*>(b), count));
}
template <typename W> inline uint32_t SelectFast(W* d, const uint8_t* mask, const W* a, Broadcast<W> b, uint32_t count) {
    return ACTGRAD_SIM_IF_AVX2(avx2::SelectBits(d, mask, a, b.value, count));
}

// d[i] = bit i of mask ? a[i] : b[i], on bit patterns so NaN payloads and half values pass unchanged;
// `b` is a pointer or a Broadcast of the scalar's bits; a vector blend per 16 bytes.
template <typename T, typename B>
void SelectInto(T* d, const uint8_t* mask, const T* a, B b, uint32_t count) {
    using W = typename BitsOfSize<sizeof(T)>::type;
    // 16-byte vectors (what every SIMD target has): 4 lanes of 32 bits or 8 of 16 bits
    constexpr uint32_t kLanes = 16 / sizeof(W);
    typedef W Lanes __attribute__((vector_size(16)));
    Lanes bit{};
    for (uint32_t k = 0; k < kLanes; ++k) bit[k] = W(1u << k);
    uint8_t* dp = reinterpret_cast<uint8_t*>(d);
    const uint8_t* ap = reinterpret_cast<const uint8_t*>(a);
    const uint32_t chunks = count / kLanes;
    for (uint32_t j = SelectFast(reinterpret_cast<W*>(d), mask, reinterpret_cast<const W*>(a), b, count) / kLanes;
         j < chunks; ++j) {
        const uint32_t first = j * kLanes;
        const W bits = W(mask[first >> 3] >> (first & 7));
        const Lanes take = ((Lanes{} + bits) & bit) != 0;
        Lanes av, bv;
        std::memcpy(&av, ap + j * sizeof(Lanes), sizeof(Lanes));
        LoadLanes(bv, b, first);
        const Lanes r = (av & take) | (bv & ~take);
        std::memcpy(dp + j * sizeof(Lanes), &r, sizeof(Lanes));
    }
    for (uint32_t i = chunks * kLanes; i < count; ++i) {
        W av, bv;
        std::memcpy(&av, ap + i * sizeof(W), sizeof(W));
        LoadLane(bv, b, i);
        const W r = ((mask[i >> 3] >> (i & 7)) & 1u) ? av : bv;
        std::memcpy(dp + i * sizeof(W), &r, sizeof(W));
    }
}

}  // namespace actgrad_sim

namespace AscendC {

template <typename T, typename U>
void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode, uint32_t count) {
    static_assert(actgrad_sim::OneOf<T, half, float, int32_t, bfloat16_t>, "Compare: src must be half, float or int32_t");
    static_assert(actgrad_sim::OneOf<U, int8_t, uint8_t>, "Compare: dst must be int8_t or uint8_t");
    const char* api = "Compare";
    actgrad_sim::CheckCompareOperands<T>(count, cmpMode, api);
    const uint64_t bytes = uint64_t(count) * sizeof(T);
    // a float tensor against itself (the NaN test) may be a deferred widening, compared as it is widened
    const bool self = src0.Data() == src1.Data();
    const actgrad_sim::Access read = self ? actgrad_sim::kSourceAccess<T> : actgrad_sim::Access::ReadCopy;
    actgrad_sim::CheckVectorOperand(src0, bytes, api, "src0", read);
    actgrad_sim::CheckVectorOperand(src1, bytes, api, "src1", read);
    actgrad_sim::CheckVectorOperand(dst, count / 8, api, "dst", actgrad_sim::Access::Write);
    actgrad_sim::CheckDisjoint(dst, count / 8, src0, bytes, api, "dst", "src0");
    actgrad_sim::CheckDisjoint(dst, count / 8, src1, bytes, api, "dst", "src1");
    actgrad_sim::CountVectorInstruction();
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.Data());
    if constexpr (std::is_same<T, float>::value) {
        if (self) {
            return actgrad_sim::WithFloatOperand<true>(src0, count, [&](auto a) {
                actgrad_sim::CompareInto(d, a, count, cmpMode, [a](uint32_t base) { return a + base; });
            });
        }
    }
    const T* b = actgrad_sim::ReadThroughCopy(src1, bytes);
    actgrad_sim::CompareInto(d, actgrad_sim::ReadThroughCopy(src0, bytes), count, cmpMode,
                             [b](uint32_t base) { return b + base; });
}

template <typename T, typename U>
void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode, uint32_t count) {
    static_assert(actgrad_sim::OneOf<T, half, float, int32_t, bfloat16_t>, "Compares: src must be half, float or int32_t");
    static_assert(std::is_same<U, uint8_t>::value, "Compares: dst must be uint8_t");
    const char* api = "Compares";
    actgrad_sim::CheckCompareOperands<T>(count, cmpMode, api);
    const uint64_t bytes = uint64_t(count) * sizeof(T);
    const actgrad_sim::Access read = std::is_same<T, float>::value ? actgrad_sim::kSourceAccess<T> : actgrad_sim::Access::ReadCopy;
    actgrad_sim::CheckVectorOperand(src0, bytes, api, "src0", read);
    actgrad_sim::CheckVectorOperand(dst, (count + 7) / 8, api, "dst", actgrad_sim::Access::Write);
    actgrad_sim::CheckDisjoint(dst, (count + 7) / 8, src0, bytes, api, "dst", "src0");
    actgrad_sim::CountVectorInstruction();
    const T s = src1Scalar;
    const auto scalar = [s](uint32_t) { return actgrad_sim::Broadcast<T>{s}; };
    if constexpr (std::is_same<T, float>::value) {
        actgrad_sim::WithFloatOperand<true>(src0, count, [&](auto a) { actgrad_sim::CompareInto(dst.Data(), a, count, cmpMode, scalar); });
    } else {
        actgrad_sim::CompareInto(dst.Data(), actgrad_sim::ReadThroughCopy(src0, bytes), count, cmpMode, scalar);
    }
}

}  // namespace AscendC

namespace actgrad_sim {

template <typename T, typename U>
void CheckSelect(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<U>& mask, uint32_t count,
                 AscendC::SELMODE mode, const char* api) {
    static_assert(OneOf<T, half, float, bfloat16_t>, "Select: dst/src must be half or float");
    static_assert(OneOf<U, uint8_t, uint16_t, uint32_t, uint64_t>, "Select: selMask must be uint8/16/32/64");
    auto& ctx = Block(api);
    RequireBf16Math<T>(api);
    const uint64_t bytes = uint64_t(count) * sizeof(T);
    CheckVectorOperand(dst, bytes, api, "dst", Access::Write);
    const uint64_t maskBytes = mode == AscendC::SELMODE::VSEL_CMPMASK_SPR ? kRepeatBytes / sizeof(T) / 8 : (uint64_t(count) + 7) / 8;
    CheckVectorOperand(mask, maskBytes, api, "selMask", Access::Read);
    if (mode != AscendC::SELMODE::VSEL_CMPMASK_SPR && ctx.soc().ubReservedBytes != 0 && ctx.pipe != nullptr &&
        ctx.pipe->CarvedBytes() > ctx.soc().ubBytes - ctx.soc().ubReservedBytes)
        Fail(ErrorKind::UbOverflow, api, "modes 1/2 use the top ", ctx.soc().ubReservedBytes, " bytes of UB as scratch on ",
             ctx.soc().name, ", but the TPipe carved UB up to offset ", ctx.pipe->CarvedBytes());
    CountVectorInstruction();
}

}  // namespace actgrad_sim

namespace AscendC {

template <typename T, typename U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
            SELMODE selMode, uint32_t count) {
    const char* api = "Select";
    if (selMode == SELMODE::VSEL_TENSOR_SCALAR_MODE)
        actgrad_sim::Fail(actgrad_sim::ErrorKind::InvalidArgument, api, "VSEL_TENSOR_SCALAR_MODE needs a scalar src1");
    const uint64_t bytes = uint64_t(count) * sizeof(T);
    actgrad_sim::Block(api);
    actgrad_sim::CheckVectorOperand(src0, bytes, api, "src0", actgrad_sim::Access::ReadCopy);
    actgrad_sim::CheckVectorOperand(src1, bytes, api, "src1", actgrad_sim::Access::ReadCopy);
    actgrad_sim::CheckSelect(dst, selMask, count, selMode, api);
    actgrad_sim::CheckNoPartialOverlap(dst, bytes, src0, bytes, api, "src0");
    actgrad_sim::CheckNoPartialOverlap(dst, bytes, src1, bytes, api, "src1");
    const uint8_t* m = reinterpret_cast<const uint8_t*>(selMask.Data());
    const T* a = actgrad_sim::ReadThroughCopy(src0, bytes);
    const T* b = actgrad_sim::ReadThroughCopy(src1, bytes);
    T* d = dst.Data();
    const T* bw = b;
    if (selMode == SELMODE::VSEL_TENSOR_TENSOR_MODE) {
        actgrad_sim::SelectInto(d, m, a, bw, count);
    } else {  // mode 0: every repeat reuses the first repeat's mask bits
        const uint32_t lanes = actgrad_sim::kRepeatBytes / sizeof(T);
        for (uint32_t base = 0; base < count; base += lanes) {
            const uint32_t n = count - base < lanes ? count - base : lanes;
            actgrad_sim::SelectInto(d + base, m, a + base, bw + base, n);
        }
    }
}

template <typename T, typename U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, T src1, SELMODE selMode,
            uint32_t count) {
    const char* api = "Select";
    if (selMode != SELMODE::VSEL_TENSOR_SCALAR_MODE)
        actgrad_sim::Fail(actgrad_sim::ErrorKind::InvalidArgument, api, "a scalar src1 needs VSEL_TENSOR_SCALAR_MODE");
    const uint64_t bytes = uint64_t(count) * sizeof(T);
    actgrad_sim::Block(api);
    actgrad_sim::CheckVectorOperand(src0, bytes, api, "src0", actgrad_sim::Access::ReadCopy);
    actgrad_sim::CheckSelect(dst, selMask, count, selMode, api);
    actgrad_sim::CheckNoPartialOverlap(dst, bytes, src0, bytes, api, "src0");
    const uint8_t* m = reinterpret_cast<const uint8_t*>(selMask.Data());
    const T* a = actgrad_sim::ReadThroughCopy(src0, bytes);
    T* d = dst.Data();
    using W = typename actgrad_sim::BitsOfSize<sizeof(T)>::type;
    W scalarBits;
    std::memcpy(&scalarBits, &src1, sizeof(T));
    actgrad_sim::SelectInto(d, m, a, actgrad_sim::Broadcast<W>{scalarBits}, count);
}

}  // namespace AscendC
