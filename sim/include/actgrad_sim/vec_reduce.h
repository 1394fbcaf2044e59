// Sum reductions (kernel_operator_vec_reduce_intf.h): WholeReduceSum, BlockReduceSum (level 0) and ReduceSum (level 0
// and level 2) in the A2/A3 (dav_c220) summation order, which docs/twin.md ("Reductions") documents with its sources.
// Every sum goes through PairwiseTreeSum, the one place that fixes the order inside an instruction (float repeats of
// 64 lanes take TreeSum64, the same tree 8 lanes at a time, whenever no NaN meets it).
#pragma once
#include <cstring>

#include "vec_arith.h"

namespace actgrad_sim {

template <typename T> constexpr uint32_t kRepeatLanes = 256 / sizeof(T);         // 64 float, 128 half
template <typename T> constexpr uint32_t kBlockLanes = kBlockBytes / sizeof(T);  // 8 float, 16 half

// One addition of the vector unit in T, on values held as float: float rounds once; half rounds to half (saturating
// while SaturationMode::FLOAT is on), exact in float before that (24 >= 2*11+2 bits, so no double rounding).
template <typename T>
inline float VecAdd(float a, float b, bool sat) {
    const float s = KeepFirstNan(a, a + b);
    if constexpr (std::is_same<T, float>::value) return s;
    else return Widen(Narrow<T>(s, sat));
}

// The summation order of one vcadd/vcgadd: a binary tree over n lanes (n a power of two, disabled lanes hold +0)
// that adds neighbours, (v0+v1), (v2+v3), ..., then the neighbouring results, level by level. Destroys v.
template <typename T>
inline float PairwiseTreeSum(float* v, uint32_t n, bool sat) {
#if defined(__SSE2__)
    if constexpr (std::is_same<T, float>::value) {
        // the same IEEE additions and NaN rule as the scalar levels below, four per instruction
        for (; n >= 8; n /= 2) {
            for (uint32_t i = 0; i < n / 2; i += 4) {
                const __m128 a = _mm_loadu_ps(v + 2 * i);
                const __m128 b = _mm_loadu_ps(v + 2 * i + 4);
                const __m128 even = _mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
                const __m128 odd = _mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
                _mm_storeu_ps(v + i, KeepFirstNan(even, _mm_add_ps(even, odd)));
            }
        }
    }
#endif
    for (; n > 1; n /= 2)
        for (uint32_t i = 0; i < n / 2; ++i) v[i] = VecAdd<T>(v[2 * i], v[2 * i + 1], sat);
    return v[0];
}

#if defined(ACTGRAD_SIM_AVX2)
namespace avx2 {
// PairwiseTreeSum<float> of 64 lanes, 8 per instruction, without the NaN rule: an addition of two non-NaN floats does
// not depend on the order of its operands, so when no level meets a NaN this is the tree's sum, bit for bit. A NaN
// anywhere in the tree reaches the root, so a NaN result is the caller's cue to take the exact path.
// Per 32 lanes: level 1 leaves the pair sums p0,p1,p4,p5 | p2,p3,p6,p7 (and p8.. for the next 16 lanes), level 2
// the quad sums q0,q2,q4,q6 | q1,q3,q5,q7, level 3 adds the two 128-bit halves: the sums of blocks 0..3 in order.
__attribute__((target("avx2"))) inline float TreeSum64NoNan(const float* v) {
    __m128 blocks[2];
    for (int h = 0; h < 2; ++h) {
        __m256 level1[2];
        for (int q = 0; q < 2; ++q) {
            const __m256 a = _mm256_loadu_ps(v + 32 * h + 16 * q), b = _mm256_loadu_ps(v + 32 * h + 16 * q + 8);
            level1[q] = _mm256_add_ps(_mm256_shuffle_ps(a, b, 0x88), _mm256_shuffle_ps(a, b, 0xDD));
        }
        const __m256 level2 = _mm256_add_ps(_mm256_shuffle_ps(level1[0], level1[1], 0x88),
                                            _mm256_shuffle_ps(level1[0], level1[1], 0xDD));
        blocks[h] = _mm_add_ps(_mm256_castps256_ps128(level2), _mm256_extractf128_ps(level2, 1));
    }
    alignas(16) float b[8];  // the sums of the 8 blocks of 8 lanes, in order
    _mm_store_ps(b, blocks[0]);
    _mm_store_ps(b + 4, blocks[1]);
    return ((b[0] + b[1]) + (b[2] + b[3])) + ((b[4] + b[5]) + (b[6] + b[7]));
}
}  // namespace avx2
#endif

// The tree sum of one repeat of 64 float lanes at `src` (read only; `scratch` holds 64 floats).
inline float TreeSum64(const float* src, float* scratch) {
#if defined(ACTGRAD_SIM_AVX2)
    if (UseAvx2()) {
        const float sum = avx2::TreeSum64NoNan(src);
        if (sum == sum) return sum;
    }
#endif
    std::memcpy(scratch, src, 64 * sizeof(float));
    return PairwiseTreeSum<float>(scratch, 64, false);
}

// A sum the tree computed, stored as T (already representable: the tree rounded every addition to T).
template <typename T> inline T StoreAs(float v) {
    if constexpr (std::is_same<T, float>::value) return v;
    else return Narrow<T>(v, false);
}

// The lanes a level-0 mask enables in one repeat: bit k of hi:lo is lane k. `active` is 1 + the highest enabled lane
// (0: nothing enabled, a NOP); `prefix` says the enabled lanes are exactly 0..active-1 (a count mask, or bits like one).
struct RepeatMask {
    uint64_t lo = 0, hi = 0;
    uint32_t active = 0;
    bool prefix = true;
    bool Enabled(uint32_t k) const { return ((k < 64 ? lo >> k : hi >> (k - 64)) & 1u) != 0; }
};

template <typename T>
RepeatMask CountMask(int32_t mask, const char* api) {
    if (mask < 0 || uint32_t(mask) > kRepeatLanes<T>)
        Fail(ErrorKind::InvalidArgument, api, "mask ", mask, " is outside [0, ", kRepeatLanes<T>, "] for ", TypeName<T>());
    RepeatMask m;
    m.active = uint32_t(mask);
    m.lo = mask >= 64 ? ~0ull : (1ull << mask) - 1;
    m.hi = mask > 64 ? (1ull << (mask - 64)) - 1 : 0;
    return m;
}

// mask[0] lanes 0..63, mask[1] lanes 64..127; for 4-byte T the high word is ignored (as the CPU debug checks do).
template <typename T>
RepeatMask BitMask(const uint64_t mask[], const char* api) {
    if (mask == nullptr) Fail(ErrorKind::InvalidArgument, api, "mask[] is a null pointer");
    RepeatMask m;
    m.lo = mask[0];
    m.hi = sizeof(T) == 2 ? mask[1] : 0;
    m.active = m.hi != 0 ? 128 - uint32_t(__builtin_clzll(m.hi)) : m.lo != 0 ? 64 - uint32_t(__builtin_clzll(m.lo)) : 0;
    const bool loFull = m.active >= 64 ? m.lo == ~0ull : m.lo == (1ull << m.active) - 1;
    m.prefix = loFull && (m.active <= 64 || m.hi == (m.active == 128 ? ~0ull : (1ull << (m.active - 64)) - 1));
    return m;
}

// Elements a level-0 operand spans (the CPU debug extent rule): the last repeat's last enabled block, up to its
// last enabled lane.
template <typename T>
uint64_t Level0Extent(uint32_t active, uint32_t repeat, uint32_t blkStride, uint32_t repStride) {
    constexpr uint32_t E = kBlockLanes<T>;
    if (repeat == 0 || active == 0) return 0;
    const uint64_t blocks = (active + E - 1) / E;
    return ((uint64_t(repeat) - 1) * repStride + (blocks - 1) * blkStride) * E + (active % E ? active % E : E);
}

// One repeat's lanes as float, disabled lanes +0: lane k is element (k / E) * blkStride * E + k % E of `base`.
template <typename T>
inline void LoadRepeat(float* lanes, const T* base, const RepeatMask& m, uint32_t blkStride) {
    constexpr uint32_t N = kRepeatLanes<T>, E = kBlockLanes<T>;
    if (m.prefix && blkStride == 1) {
        for (uint32_t k = 0; k < m.active; ++k) lanes[k] = LoadFloat(base, int32_t(k));
        for (uint32_t k = m.active; k < N; ++k) lanes[k] = 0.0f;
        return;
    }
    for (uint32_t k = 0; k < N; ++k)
        lanes[k] = m.Enabled(k) ? LoadFloat(base, int32_t((k / E) * blkStride * E + k % E)) : 0.0f;
}

// The first n elements of `base` as one repeat's lanes (counter mode), the rest +0.
template <typename T>
inline void LoadCount(float* lanes, const T* base, uint32_t n) {
    for (uint32_t k = 0; k < n; ++k) lanes[k] = LoadFloat(base, int32_t(k));
    for (uint32_t k = n; k < kRepeatLanes<T>; ++k) lanes[k] = 0.0f;
}

inline void CheckRange(int64_t v, int64_t lo, int64_t hi, const char* api, const char* name) {
    if (v < lo || v > hi) Fail(ErrorKind::InvalidArgument, api, name, " ", v, " is outside [", lo, ", ", hi, "]");
}

// repeatTime and the strides of a level-0 reduction (repeatTime is 8 bits in the instruction, strides 16).
inline void CheckLevel0(int32_t repeat, int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, const char* api) {
    CheckRange(repeat, 0, 255, api, "repeatTime");
    CheckRange(dstRepStride, 0, 65535, api, "dstRepStride");
    CheckRange(srcBlkStride, 0, 65535, api, "srcBlkStride");
    CheckRange(srcRepStride, 0, 65535, api, "srcRepStride");
}

// vcadd: one sum per repeat, written to dst[r * dstRepStride]. Repeats run front to back, each read before its sum is
// written, as the hardware streams them (so an in-place reduction with dstRepStride <= its repeat length works).
template <typename T>
void WholeReduceSumRun(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, const RepeatMask& m,
                       int32_t repeat, int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, const char* api) {
    CheckLevel0(repeat, dstRepStride, srcBlkStride, srcRepStride, api);
    const uint32_t r = uint32_t(repeat);
    const uint64_t srcBytes = Level0Extent<T>(m.active, r, uint32_t(srcBlkStride), uint32_t(srcRepStride)) * sizeof(T);
    const uint64_t dstBytes = srcBytes == 0 ? 0 : ((uint64_t(r) - 1) * uint32_t(dstRepStride) + 1) * sizeof(T);
    if (srcBytes == 0) {  // mask or repeatTime 0: a NOP on A2/A3, nothing read or written
        CheckUbOperand(src, 0, api, "src");
        CheckUbOperand(dst, 0, api, "dst", sizeof(T));
        return;
    }
    CheckVectorOperand(src, srcBytes, api, "src", Access::Read);
    CheckVectorOperand(dst, dstBytes, api, "dst", Access::Write, sizeof(T));
    CountVectorInstruction();
    const bool sat = tlBlock->saturateFloat;
    const T* s = src.Data();
    T* d = dst.Data();
    float lanes[kRepeatLanes<T>], scratch[kRepeatLanes<T>];
    for (uint32_t i = 0; i < r; ++i) {
        const T* base = s + uint64_t(i) * uint32_t(srcRepStride) * kBlockLanes<T>;
        float sum;
        if constexpr (std::is_same<T, float>::value) {
            const bool whole = m.prefix && m.active == kRepeatLanes<T> && srcBlkStride == 1;
            if (!whole) LoadRepeat(lanes, base, m, uint32_t(srcBlkStride));
            sum = TreeSum64(whole ? base : lanes, scratch);
        } else {
            LoadRepeat(lanes, base, m, uint32_t(srcBlkStride));
            sum = PairwiseTreeSum<T>(lanes, kRepeatLanes<T>, sat);
        }
        d[uint64_t(i) * uint32_t(dstRepStride)] = StoreAs<T>(sum);
    }
}

// vcgadd: one sum per 32-byte block, the 8 sums of repeat r at dst[r * dstRepStride * 8]; a block with no enabled
// lane keeps its dst element (A2/A3).
template <typename T>
void BlockReduceSumRun(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, const RepeatMask& m,
                       int32_t repeat, int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, const char* api) {
    constexpr uint32_t E = kBlockLanes<T>;
    CheckLevel0(repeat, dstRepStride, srcBlkStride, srcRepStride, api);
    const uint32_t r = uint32_t(repeat);
    const uint64_t srcBytes = Level0Extent<T>(m.active, r, uint32_t(srcBlkStride), uint32_t(srcRepStride)) * sizeof(T);
    const uint32_t lastBlock = m.active == 0 ? 0 : (m.active - 1) / E;
    const uint64_t dstBytes = srcBytes == 0 ? 0 : ((uint64_t(r) - 1) * uint32_t(dstRepStride) * 8 + lastBlock + 1) * sizeof(T);
    if (srcBytes == 0) {
        CheckUbOperand(src, 0, api, "src");
        CheckUbOperand(dst, 0, api, "dst", 8 * sizeof(T));
        return;
    }
    CheckVectorOperand(src, srcBytes, api, "src", Access::Read);
    CheckVectorOperand(dst, dstBytes, api, "dst", Access::Write, 8 * sizeof(T));
    CountVectorInstruction();
    const bool sat = tlBlock->saturateFloat;
    const T* s = src.Data();
    T* d = dst.Data();
    float lanes[kRepeatLanes<T>];
    for (uint32_t i = 0; i < r; ++i) {
        LoadRepeat(lanes, s + uint64_t(i) * uint32_t(srcRepStride) * E, m, uint32_t(srcBlkStride));
        T* out = d + uint64_t(i) * uint32_t(dstRepStride) * 8;
        for (uint32_t b = 0; b <= lastBlock; ++b) {
            bool any = false;
            for (uint32_t k = b * E; k < (b + 1) * E; ++k) any = any || m.Enabled(k);
            if (any) out[b] = StoreAs<T>(PairwiseTreeSum<T>(lanes + b * E, E, sat));
        }
    }
}

// Level-2 ReduceSum on A2/A3: one vcadd in counter mode accumulating across repeats (ReduceSumImpl with the
// accumulate flag, result read back by get_acc_val): the tree sum of each repeat of the first `count` elements,
// added in repeat order ("方式一").
template <typename T>
float RepeatSumsInOrder(const T* src, uint32_t count, bool sat) {
    float lanes[kRepeatLanes<T>], scratch[kRepeatLanes<T>];
    float acc = 0.0f;
    for (uint32_t base = 0; base < count; base += kRepeatLanes<T>) {
        const uint32_t n = count - base < kRepeatLanes<T> ? count - base : kRepeatLanes<T>;
        float sum;
        if constexpr (std::is_same<T, float>::value) {
            if (n < kRepeatLanes<T>) LoadCount(lanes, src + base, n);
            sum = TreeSum64(n < kRepeatLanes<T> ? lanes : src + base, scratch);
        } else {
            LoadCount(lanes, src + base, n);
            sum = PairwiseTreeSum<T>(lanes, kRepeatLanes<T>, sat);
        }
        acc = base == 0 ? sum : VecAdd<T>(acc, sum, sat);
    }
    return acc;
}

// Level-0 ReduceSum on A2/A3 ("方式二"): vcadd of every repeat into work[0..R) (255 repeats per instruction), then one
// vcadd in counter mode over those R sums writing the sums of each group of kRepeatLanes to work[0..K), then, when
// K > 1, a vcadd of those K into dst[0] (else dst[0] = work[0]). The work contents are left as the hardware leaves them.
template <typename T>
void ReduceSumLevel0Run(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                        const AscendC::LocalTensor<T>& work, const RepeatMask& m, int32_t repeat, int32_t srcRepStride) {
    const char* api = "ReduceSum";
    CheckRange(repeat, 0, INT32_MAX, api, "repeatTime");
    CheckRange(srcRepStride, 0, 65535, api, "srcRepStride");
    const uint32_t r = uint32_t(repeat);
    const uint64_t srcBytes = Level0Extent<T>(m.active, r, 1, uint32_t(srcRepStride)) * sizeof(T);
    if (srcBytes == 0) {  // mask or repeatTime 0: a NOP
        CheckUbOperand(src, 0, api, "src");
        CheckUbOperand(work, 0, api, "sharedTmpBuffer");
        CheckUbOperand(dst, 0, api, "dst", sizeof(T));
        return;
    }
    CheckVectorOperand(src, srcBytes, api, "src", Access::Read);
    CheckVectorOperand(work, uint64_t(r) * sizeof(T), api, "sharedTmpBuffer", Access::Write);
    CheckVectorOperand(dst, sizeof(T), api, "dst", Access::Write, sizeof(T));
    constexpr uint32_t N = kRepeatLanes<T>;
    const uint32_t groups = (r + N - 1) / N;
    BlockContext& ctx = *tlBlock;
    ctx.stats.vectorInstructions += r == 1 ? 1 : (r + 254) / 255 + 1 + (groups > 1 ? 1 : 0);
    const bool sat = ctx.saturateFloat;
    const T* s = src.Data();
    T* w = work.Data();
    float lanes[N];
    for (uint32_t i = 0; i < r; ++i) {
        LoadRepeat(lanes, s + uint64_t(i) * uint32_t(srcRepStride) * kBlockLanes<T>, m, 1);
        w[i] = StoreAs<T>(PairwiseTreeSum<T>(lanes, N, sat));
    }
    if (r > 1) {
        for (uint32_t g = 0; g < groups; ++g) {
            LoadCount(lanes, w + g * N, r - g * N < N ? r - g * N : N);
            w[g] = StoreAs<T>(PairwiseTreeSum<T>(lanes, N, sat));
        }
    }
    if (groups == 1) {
        dst.Data()[0] = w[0];
        return;
    }
    LoadCount(lanes, w, groups);
    dst.Data()[0] = StoreAs<T>(PairwiseTreeSum<T>(lanes, N, sat));
}

}  // namespace actgrad_sim

namespace AscendC {

#define ACTGRAD_SIM_REDUCE_TYPES(API, SET_MASK)                                                             \
    static_assert(actgrad_sim::OneOf<T, half, float>, API ": unsupported dtype (half and float on A2/A3)"); \
    static_assert(SET_MASK, API ": the twin does not model SetVectorMask; keep isSetMask = true")

template <typename T, bool isSetMask = true>
void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask, const int32_t repeatTime,
                    const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride) {
    ACTGRAD_SIM_REDUCE_TYPES("WholeReduceSum", isSetMask);
    const char* api = "WholeReduceSum";
    actgrad_sim::Block(api);
    actgrad_sim::WholeReduceSumRun(dst, src, actgrad_sim::CountMask<T>(mask, api), repeatTime, dstRepStride,
                                   srcBlkStride, srcRepStride, api);
}

template <typename T, bool isSetMask = true>
void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], const int32_t repeatTime,
                    const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride) {
    ACTGRAD_SIM_REDUCE_TYPES("WholeReduceSum", isSetMask);
    const char* api = "WholeReduceSum";
    actgrad_sim::Block(api);
    actgrad_sim::WholeReduceSumRun(dst, src, actgrad_sim::BitMask<T>(mask, api), repeatTime, dstRepStride, srcBlkStride,
                                   srcRepStride, api);
}

// note the vendor's argument order: repeatTime before mask (unlike WholeReduceSum)
template <typename T, bool isSetMask = true>
void BlockReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime, const int32_t mask,
                    const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride) {
    ACTGRAD_SIM_REDUCE_TYPES("BlockReduceSum", isSetMask);
    const char* api = "BlockReduceSum";
    actgrad_sim::Block(api);
    actgrad_sim::BlockReduceSumRun(dst, src, actgrad_sim::CountMask<T>(mask, api), repeatTime, dstRepStride,
                                   srcBlkStride, srcRepStride, api);
}

template <typename T, bool isSetMask = true>
void BlockReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime, const uint64_t mask[],
                    const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride) {
    ACTGRAD_SIM_REDUCE_TYPES("BlockReduceSum", isSetMask);
    const char* api = "BlockReduceSum";
    actgrad_sim::Block(api);
    actgrad_sim::BlockReduceSumRun(dst, src, actgrad_sim::BitMask<T>(mask, api), repeatTime, dstRepStride, srcBlkStride,
                                   srcRepStride, api);
}

// Level 2: the sum of the first `count` elements into dst[0]. On A2/A3 sharedTmpBuffer is not used (any size will do).
template <typename T, bool isSetMask = true>
void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
               const int32_t count) {
    ACTGRAD_SIM_REDUCE_TYPES("ReduceSum", isSetMask);
    const char* api = "ReduceSum";
    actgrad_sim::BlockContext& ctx = actgrad_sim::Block(api);
    actgrad_sim::CheckRange(count, 1, ctx.soc().ubBytes / sizeof(T), api, "count");
    actgrad_sim::CheckUbOperand(sharedTmpBuffer, 0, api, "sharedTmpBuffer");
    actgrad_sim::CheckVectorOperand(src, uint64_t(count) * sizeof(T), api, "src", actgrad_sim::Access::Read);
    actgrad_sim::CheckVectorOperand(dst, sizeof(T), api, "dst", actgrad_sim::Access::Write, sizeof(T));
    actgrad_sim::CountVectorInstruction();
    const float sum = actgrad_sim::RepeatSumsInOrder(src.Data(), uint32_t(count), ctx.saturateFloat);
    dst.Data()[0] = actgrad_sim::StoreAs<T>(sum);
}

template <typename T>
void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
               const int32_t mask, const int32_t repeatTime, const int32_t srcRepStride) {
    ACTGRAD_SIM_REDUCE_TYPES("ReduceSum", true);
    actgrad_sim::Block("ReduceSum");
    actgrad_sim::ReduceSumLevel0Run(dst, src, sharedTmpBuffer, actgrad_sim::CountMask<T>(mask, "ReduceSum"), repeatTime,
                                    srcRepStride);
}

template <typename T>
void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
               const uint64_t mask[], const int32_t repeatTime, const int32_t srcRepStride) {
    ACTGRAD_SIM_REDUCE_TYPES("ReduceSum", true);
    actgrad_sim::Block("ReduceSum");
    actgrad_sim::ReduceSumLevel0Run(dst, src, sharedTmpBuffer, actgrad_sim::BitMask<T>(mask, "ReduceSum"), repeatTime,
                                    srcRepStride);
}
#undef ACTGRAD_SIM_REDUCE_TYPES

}  // namespace AscendC
