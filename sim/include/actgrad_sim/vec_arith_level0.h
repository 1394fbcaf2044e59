// Level-0 (mask / repeat / strides) form of the float tensor-tensor arithmetic Add, Sub, Mul, Div
// (kernel_operator_vec_binary_intf.h). Repeat r, lane k of the mask (block b = k / 8, lane e = k % 8) reads src0 and
// src1 and writes dst at (r * repStride + b * blkStride) * 8 + e elements, each operand with its own strides
// (BinaryRepeatParams, in 32-byte blocks); lanes the mask leaves out are not written. A block stride of 0 re-reads
// block 0 of the repeat, so src1BlkStride 0 applies one 8-lane block to the whole repeat (a per-row scalar, as the
// row kernel uses it). The element operation is the count form's, with its NaN rule, so both forms give the same bits.
//
// Checks (ascendc-api.md, "Common vector-API rules"): the mask range (a count 0..64, or bits; an empty mask or
// repeatTime 0 is a no-op), each operand's extent (the CPU-debug rule, Level0Extent) within its tensor, UB position
// and 32-byte alignment, the pipe order; dstBlkStride 0 (undefined on the hardware) and mask registers
// (isSetMask = false: not modelled) are rejected. Overlaps: an operand that coincides with dst (same address and
// strides) is in place; the one overlap across repeats the hardware defines, an Add/Sub/Mul whose src1 overlaps dst
// with src1RepStride or dstRepStride 0 (accumulation), runs repeat by repeat as there; every other overlap of dst
// with a source is rejected (the hardware leaves a partial one undefined; the twin does not try to tell the legal
// disjoint-per-repeat layouts apart). The twin implements this form for float only: a kernel that needs another
// dtype uses the count form.
#pragma once
#include <cstdint>

#include "operand_checks.h"
#include "vec_arith.h"
#include "vec_reduce.h"

namespace AscendC {

struct BinaryRepeatParams {
    BinaryRepeatParams() {}
    BinaryRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t src0BlkStrideIn, const uint8_t src1BlkStrideIn,
                       const uint8_t dstRepStrideIn, const uint8_t src0RepStrideIn, const uint8_t src1RepStrideIn)
        : dstBlkStride(dstBlkStrideIn), src0BlkStride(src0BlkStrideIn), src1BlkStride(src1BlkStrideIn),
          dstRepStride(dstRepStrideIn), src0RepStride(src0RepStrideIn), src1RepStride(src1RepStrideIn) {}

    uint32_t blockNumber = 8;
    uint8_t dstBlkStride = 1;  // blocks between the 8 blocks of a repeat
    uint8_t src0BlkStride = 1;
    uint8_t src1BlkStride = 1;
    uint8_t dstRepStride = 8;  // blocks between repeats
    uint8_t src0RepStride = 8;
    uint8_t src1RepStride = 8;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
};

}  // namespace AscendC

namespace actgrad_sim {

// One operand's layout in a level-0 call, in float elements.
struct Level0Layout {
    const uint8_t* base;
    uint64_t blk, rep, bytes;
    bool Coincides(const Level0Layout& o) const { return base == o.base && blk == o.blk && rep == o.rep; }
    bool Overlaps(const Level0Layout& o) const { return base < o.base + o.bytes && o.base < base + bytes; }
};

// Whether a call in place over `l` writes every element of its extent: only then may a deferred widening or copy
// there stay deferred until the results replace it (Access::Rewrite, then DropRewritten); else it is stored first.
inline bool RewritesExtent(const Level0Layout& l, const RepeatMask& m, uint8_t repeatTime) {
    return m.prefix && m.active == kRepeatLanes<float> && l.blk == 1 && (repeatTime == 1 || l.rep == 8);
}

// The mask of a level-0 float call: a count (the first `mask` lanes of each repeat), or bits (mask[0]).
template <bool isSetMask>
void RequireMaskArgument(const char* api) {
    Block(api);
    if (!isSetMask)
        Fail(ErrorKind::Unsupported, api, "isSetMask = false reads the mask registers (SetVectorMask), which the twin "
             "does not model: pass the mask to the call");
}
template <bool isSetMask>
RepeatMask Level0Mask(uint64_t mask, const char* api) {
    RequireMaskArgument<isSetMask>(api);
    if (mask > kRepeatLanes<float>) Fail(ErrorKind::InvalidArgument, api, "mask ", mask, " is outside [0, 64] for float");
    return CountMask<float>(int32_t(mask), api);
}
template <bool isSetMask>
RepeatMask Level0Mask(const uint64_t mask[], const char* api) {
    RequireMaskArgument<isSetMask>(api);
    return BitMask<float>(mask, api);
}

// The three operands' layouts of a level-0 call (extents 0 for a no-op).
struct Level0Operands {
    Level0Layout d, a, b;
    bool rewrites;  // in place over every element of dst's extent (RewritesExtent): Access::Rewrite, then DropRewritten
};
inline Level0Operands Level0Layouts(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& src0,
                                    const AscendC::LocalTensor<float>& src1, const RepeatMask& m, uint8_t repeatTime,
                                    const AscendC::BinaryRepeatParams& p) {
    const auto layout = [&](const AscendC::LocalTensor<float>& t, uint8_t blk, uint8_t rep) {
        return Level0Layout{t.BytePtr(), blk, rep, Level0Extent<float>(m.active, repeatTime, blk, rep) * sizeof(float)};
    };
    const Level0Layout d = layout(dst, p.dstBlkStride, p.dstRepStride), a = layout(src0, p.src0BlkStride, p.src0RepStride),
                       b = layout(src1, p.src1BlkStride, p.src1RepStride);
    return Level0Operands{d, a, b, (d.Coincides(a) || d.Coincides(b)) && RewritesExtent(d, m, repeatTime)};
}

// Checks a level-0 float binary call laid out as l; returns whether it does anything (an empty mask or repeatTime 0
// does not).
inline bool CheckBinaryLevel0(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& src0,
                              const AscendC::LocalTensor<float>& src1, const RepeatMask& m, uint8_t repeatTime,
                              const AscendC::BinaryRepeatParams& p, const Level0Operands& l, bool accumulates,
                              const char* api) {
    if (repeatTime == 0 || m.active == 0) {  // a no-op on A2/A3: nothing read or written
        CheckUbOperand(src0, 0, api, "src0");
        CheckUbOperand(src1, 0, api, "src1");
        CheckUbOperand(dst, 0, api, "dst");
        return false;
    }
    if (p.dstBlkStride == 0)
        Fail(ErrorKind::InvalidArgument, api, "dstBlkStride 0 is not supported (undefined on the hardware; expected 1 or more)");
    const Level0Layout &d = l.d, &a = l.a, &b = l.b;
    // in place: the same address and strides, and no repeat writes a block an earlier one wrote
    const uint64_t repeatBlocks = (uint64_t(m.active) + kBlockLanes<float> - 1) / kBlockLanes<float>;
    const bool repeatsApart = repeatTime == 1 || d.rep >= (repeatBlocks - 1) * d.blk + 1;
    const auto inPlace = [&](const Level0Layout& s) { return d.Coincides(s) && repeatsApart; };
    if (d.Overlaps(a) && !inPlace(a))
        Fail(ErrorKind::Overlap, api, "dst and src0 overlap, other than in place (the same address and strides, "
             "no repeat reading what an earlier one wrote)");
    const bool accumulation = accumulates && (p.src1RepStride == 0 || p.dstRepStride == 0);
    if (d.Overlaps(b) && !inPlace(b) && !accumulation)
        Fail(ErrorKind::Overlap, api, "dst and src1 overlap, other than in place (the same address and strides, "
             "no repeat reading what an earlier one wrote)",
             accumulates ? ", and neither src1RepStride nor dstRepStride is 0 (accumulation)" : "");
    // float sources may stay deferred widenings (read through their 16-bit source, as the count form does)
    CheckVectorOperand(src0, a.bytes, api, "src0", kSourceAccess<float>);
    CheckVectorOperand(src1, b.bytes, api, "src1", kSourceAccess<float>);
    CheckVectorOperand(dst, d.bytes, api, "dst", l.rewrites ? kInPlaceAccess<float> : Access::Write);
    CountVectorInstruction();
    return true;
}

// Element index of lane e of block k of repeat r of an operand laid out as l.
inline int32_t Level0Index(uint64_t r, uint32_t k, uint32_t e, const Level0Layout& l) {
    return int32_t((r * l.rep + k * l.blk) * kBlockLanes<float> + e);
}

#if defined(ACTGRAD_SIM_AVX2)
// The first `blocks` blocks of every repeat, all lanes enabled, in 256-bit lanes (f takes __m256 lanes). A src1 block
// stride of 0 (one block per repeat, the row kernel's sums) is loaded once per repeat.
template <typename A, typename B, typename F>
__attribute__((target("avx2,f16c"))) void Level0BlocksAvx2(float* d, const A* a, const B* b, uint8_t repeatTime,
                                                           uint32_t blocks, const Level0Layout& dl,
                                                           const Level0Layout& al, const Level0Layout& bl, F f) {
    constexpr int32_t E = int32_t(kBlockLanes<float>);
    const int32_t dBlk = int32_t(dl.blk) * E, aBlk = int32_t(al.blk) * E, bBlk = int32_t(bl.blk) * E;
    const int32_t dRep = int32_t(dl.rep) * E, aRep = int32_t(al.rep) * E, bRep = int32_t(bl.rep) * E;
    for (int32_t r = 0; r < int32_t(repeatTime); ++r) {
        float* o = d + r * dRep;
        const A* x = a + r * aRep;
        const B* y = b + r * bRep;
        if (bBlk == 0) {
            const __m256 rhs = Load8(y, 0);
            for (uint32_t k = 0; k < blocks; ++k, o += dBlk, x += aBlk) _mm256_storeu_ps(o, f(Load8(x, 0), rhs));
        } else {
            for (uint32_t k = 0; k < blocks; ++k, o += dBlk, x += aBlk, y += bBlk)
                _mm256_storeu_ps(o, f(Load8(x, 0), Load8(y, 0)));
        }
    }
}
#endif

// f over the enabled lanes of every repeat, from float sources or the 16-bit sources of deferred widenings (A, B).
// Every element is read before it is written and the allowed overlaps are element for element (in place, or an
// accumulation across repeats), so the repeats can run block by block, whole enabled blocks first.
template <typename A, typename B, typename F>
void Level0Lanes(float* d, const A* a, const B* b, const RepeatMask& m, uint8_t repeatTime, const Level0Layout& dl,
                 const Level0Layout& al, const Level0Layout& bl, F f) {
    constexpr uint32_t E = kBlockLanes<float>;
    uint32_t done = 0;  // whole blocks of each repeat done in 256-bit lanes
#if defined(ACTGRAD_SIM_AVX2)
    if (m.prefix && UseAvx2()) {
        done = m.active / E;
        Level0BlocksAvx2(d, a, b, repeatTime, done, dl, al, bl, f);
    }
#endif
    const uint32_t blocks = (m.active + E - 1) / E;
    for (uint64_t r = 0; r < repeatTime; ++r)
        for (uint32_t k = done; k < blocks; ++k)
            for (uint32_t e = 0; e < E; ++e)
                if (m.Enabled(k * E + e))
                    d[Level0Index(r, k, e, dl)] = f(LoadFloat(a, Level0Index(r, k, e, al)), LoadFloat(b, Level0Index(r, k, e, bl)));
}

template <typename F>
void ApplyBinaryLevel0(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& src0,
                       const AscendC::LocalTensor<float>& src1, const RepeatMask& m, uint8_t repeatTime,
                       const Level0Operands& l, F f) {
    const Level0Layout &dl = l.d, &al = l.a, &bl = l.b;
    WithFloatOperand<true>(src0, uint32_t(al.bytes / sizeof(float)), [&](auto a) {
        WithFloatOperand<true>(src1, uint32_t(bl.bytes / sizeof(float)),
                               [&](auto b) { Level0Lanes(dst.Data(), a, b, m, repeatTime, dl, al, bl, f); });
    });
    if (l.rewrites) DropRewritten(dst.BytePtr(), dl.bytes);
}

// A level-0 float binary call: its mask (a count or bits), checks, then f over its lanes.
template <bool isSetMask, typename Mask, typename F>
void BinaryLevel0(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& src0,
                  const AscendC::LocalTensor<float>& src1, Mask mask, uint8_t repeatTime,
                  const AscendC::BinaryRepeatParams& p, bool accumulates, const char* api, F f) {
    const RepeatMask m = Level0Mask<isSetMask>(mask, api);
    const Level0Operands l = Level0Layouts(dst, src0, src1, m, repeatTime, p);
    if (CheckBinaryLevel0(dst, src0, src1, m, repeatTime, p, l, accumulates, api))
        ApplyBinaryLevel0(dst, src0, src1, m, repeatTime, l, f);
}

}  // namespace actgrad_sim

namespace AscendC {

// FLOAT_EXPR: the count form's lane operation (vec_arith.h); ACCUMULATES: the hardware defines dst overlapping src1
// with a repeat stride of 0.
#define ACTGRAD_SIM_BINARY_LEVEL0(NAME, FLOAT_EXPR, ACCUMULATES)                                                   \
    template <typename T, bool isSetMask = true>                                                                  \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint64_t mask,   \
              const uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {                                 \
        static_assert(std::is_same<T, float>::value, #NAME ": the twin implements the level-0 form for float only"); \
        actgrad_sim::BinaryLevel0<isSetMask>(dst, src0, src1, mask, repeatTime, repeatParams, ACCUMULATES, #NAME, \
                                             [](const auto& a, const auto& b) { return FLOAT_EXPR; });            \
    }                                                                                                             \
    template <typename T, bool isSetMask = true>                                                                  \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint64_t mask[], \
              const uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {                                 \
        static_assert(std::is_same<T, float>::value, #NAME ": the twin implements the level-0 form for float only"); \
        actgrad_sim::BinaryLevel0<isSetMask>(dst, src0, src1, mask, repeatTime, repeatParams, ACCUMULATES, #NAME, \
                                             [](const auto& a, const auto& b) { return FLOAT_EXPR; });            \
    }

ACTGRAD_SIM_BINARY_LEVEL0(Add, actgrad_sim::AddKeepFirstNan(a, b), true)
ACTGRAD_SIM_BINARY_LEVEL0(Sub, a - b, true)
ACTGRAD_SIM_BINARY_LEVEL0(Mul, actgrad_sim::MulKeepFirstNan(a, b), true)
ACTGRAD_SIM_BINARY_LEVEL0(Div, a / b, false)
#undef ACTGRAD_SIM_BINARY_LEVEL0

}  // namespace AscendC
