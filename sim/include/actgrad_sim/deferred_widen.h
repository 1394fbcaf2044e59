// Deferred bf16/f16 -> f32 widening. Cast(f32, bf16 or f16, CAST_NONE) is exact (for bf16 the bits followed by 16
// zero bits), and in a 16-bit kernel its result is mostly read by compares and scalar arithmetic that could widen as
// they load. So the twin records the Cast instead of storing 4 bytes per element; the readers that can
// (Compare/Compares, the float tensor-scalar and tensor-tensor ops) read the 16-bit source, and any other access to
// the f32 bytes, or any write to the source, materialises the widening first. Every UB byte an API or a host pointer can observe is therefore
// what the NPU would hold; only the twin's speed changes. ACTGRAD_SIM_NO_DEFER=1 turns it off.
#pragma once
#include <algorithm>
#include <cstdlib>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "block_context.h"
#include "deferred_copy.h"
#include "numeric.h"
#include "simd_avx2.h"

namespace actgrad_sim {

// Whether the twin defers widenings and GM -> UB copies (deferred_copy.h).
inline bool DeferStores() {
    static const bool on = std::getenv("ACTGRAD_SIM_NO_DEFER") == nullptr;
    return on;
}

#if defined(__SSE2__)
// half bits -> float of 4 zero-extended lanes, as HalfBitsToFloat.
inline __m128 FloatOfHalf4(__m128i h) {
    const __m128i sign = _mm_slli_epi32(_mm_and_si128(h, _mm_set1_epi32(0x8000)), 16);
    const __m128i expMant = _mm_slli_epi32(_mm_and_si128(h, _mm_set1_epi32(0x7fff)), 13);
    const __m128i exp = _mm_and_si128(expMant, _mm_set1_epi32(0x0f800000));
    const __m128i normal = _mm_add_epi32(expMant, _mm_set1_epi32((127 - 15) << 23));
    const __m128i infNan = _mm_add_epi32(expMant, _mm_set1_epi32((255 - 31) << 23));
    const __m128i sub = _mm_castps_si128(_mm_sub_ps(_mm_castsi128_ps(_mm_add_epi32(expMant, _mm_set1_epi32(113 << 23))),
                                                    _mm_castsi128_ps(_mm_set1_epi32(113 << 23))));
    const __m128i isInfNan = _mm_cmpeq_epi32(exp, _mm_set1_epi32(0x0f800000));
    const __m128i isSub = _mm_cmpeq_epi32(exp, _mm_setzero_si128());
    const __m128i other = _mm_or_si128(_mm_and_si128(isSub, sub), _mm_andnot_si128(isSub, normal));
    const __m128i mag = _mm_or_si128(_mm_and_si128(isInfNan, infNan), _mm_andnot_si128(isInfNan, other));
    return _mm_castsi128_ps(_mm_or_si128(mag, sign));
}
inline uint32_t WidenHalfFast(float* out, const uint16_t* in, uint32_t n) {
    uint32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
        _mm_storeu_ps(out + i, FloatOfHalf4(_mm_unpacklo_epi16(v, _mm_setzero_si128())));
        _mm_storeu_ps(out + i + 4, FloatOfHalf4(_mm_unpackhi_epi16(v, _mm_setzero_si128())));
    }
    return i;
}
#else
inline uint32_t WidenHalfFast(float*, const uint16_t*, uint32_t) { return 0; }
#endif

// The widening itself (the Cast when it runs at once, too): bf16 a loop the compiler vectorises, f16 by F16C where
// the machine has it, else SSE2 integer operations.
inline void Materialize(float* dst, const uint16_t* src, uint32_t count, bool half) {
    if (half) {
        uint32_t done = ACTGRAD_SIM_IF_AVX2(avx2::WidenHalf(dst, src, count));
        done += WidenHalfFast(dst + done, src + done, count - done);
        for (uint32_t i = done; i < count; ++i) dst[i] = HalfBitsToFloat(src[i]);
        return;
    }
    for (uint32_t i = 0; i < count; ++i) dst[i] = Bf16BitsToFloat(src[i]);
}

// How an API touches UB bytes (operand_checks.h), which decides what happens to the deferred widenings and copies
// there.
enum class Access {
    Read,          // reads the bytes: the deferred f32 elements and copies among them are stored first
    ReadCopy,      // reads the bytes from GM where a deferred copy holds them all (a widening Cast's source); else Read
    ReadWidening,  // a reader that widens as it loads: a widening or a copy holding all its bytes stays deferred
    Write,         // writes the bytes: also the elements whose 16-bit source it overwrites are stored first
    Overwrite,     // writes every byte before anything reads them (a Cast, a DMA into UB): deferrals there are dropped
    Rewrite,       // the dst of an in-place reader that widens as it loads: a widening holding all its bytes stays
                   // deferred until the instruction has read it, then is dropped (DropRewritten); else as Write
};
inline bool Writes(Access use) { return use == Access::Write || use == Access::Overwrite || use == Access::Rewrite; }
inline bool ReadsWidened(Access use) { return use == Access::ReadWidening || use == Access::Rewrite; }
inline bool ReadsCopies(Access use) { return ReadsWidened(use) || use == Access::ReadCopy; }

inline void AddRefs(const DeferredWiden& w) {
    ++w.dstRefs->dst;
    ++w.srcRefs->src;
}
inline void DropRefs(const DeferredWiden& w) {
    --w.dstRefs->dst;
    --w.srcRefs->src;
}

// Elements [a, b) of widening i leave the table (stored first unless `drop`); the rest stays deferred.
inline void Carve(BlockContext& ctx, uint32_t i, uint32_t a, uint32_t b, bool drop) {
    DeferredWiden& w = ctx.deferred[i];
    if (!drop) Materialize(w.dst + a, w.src + a, b - a, w.half);
    const DeferredWiden tail{w.dst + b, w.src + b, w.count - b, w.dstRefs, w.srcRefs, w.half};
    if (a == 0 && tail.count == 0) {
        DropRefs(w);
        ctx.deferred[i] = ctx.deferred[--ctx.deferredCount];
    } else if (a == 0) {
        w = tail;
    } else {
        w.count = a;
        if (tail.count == 0) return;
        if (ctx.deferredCount < kMaxDeferred) {
            ctx.deferred[ctx.deferredCount++] = tail;
            AddRefs(tail);
        } else {
            Materialize(tail.dst, tail.src, tail.count, tail.half);
        }
    }
}

// The elements [a, b) of an array at `base` (`size`-byte elements) that bytes [p, p + bytes) touch; a == b if none.
inline void Touched(const uint8_t* p, uint64_t bytes, const void* base, uint32_t size, uint32_t count, uint32_t& a,
                    uint32_t& b) {
    const int64_t lo = p - static_cast<const uint8_t*>(base), hi = lo + int64_t(bytes);
    a = uint32_t(std::min<int64_t>(std::max<int64_t>(lo, 0) / size, count));
    b = uint32_t(std::max<int64_t>(std::min<int64_t>((hi + size - 1) / size, count), a));
}

inline void SettleDeferred(BlockContext& ctx, const uint8_t* p, uint64_t bytes, Access use) {
    if (ctx.copyCount != 0) SettleCopies(ctx, p, bytes, ReadsCopies(use), use == Access::Overwrite);
    const bool writes = Writes(use);
    for (uint32_t i = 0; i < ctx.deferredCount;) {
        const DeferredWiden& w = ctx.deferred[i];
        const uint8_t* dst = reinterpret_cast<const uint8_t*>(w.dst);
        const uint8_t* dstEnd = dst + uint64_t(w.count) * sizeof(float);
        const uint8_t* src = reinterpret_cast<const uint8_t*>(w.src);
        const bool hitsResult = p < dstEnd && dst < p + bytes;
        const bool hitsSource = writes && p < src + uint64_t(w.count) * sizeof(uint16_t) && src < p + bytes;
        if ((!hitsResult || (ReadsWidened(use) && p >= dst && p + bytes <= dstEnd)) && !hitsSource) {
            ++i;  // untouched, or read by an instruction that widens as it loads
            continue;
        }
        uint32_t a, b;
        if (hitsResult) {
            Touched(p, bytes, dst, sizeof(float), w.count, a, b);
            // an Overwrite drops whole elements only (operands are 32-byte aligned, so it never meets a part of one)
            const bool whole = p <= dst + uint64_t(a) * sizeof(float) && p + bytes >= dst + uint64_t(b) * sizeof(float);
            Carve(ctx, i, a, b, use == Access::Overwrite && whole);
        } else {
            Touched(p, bytes, src, sizeof(uint16_t), w.count, a, b);
            Carve(ctx, i, a, b, false);
        }
        // slot i now holds what is left of the widening, or another one: look again
    }
}

inline void SettleDeferred(const uint8_t* p, uint64_t bytes, Access use) {
    if (tlBlock != nullptr && (tlBlock->deferredCount != 0 || tlBlock->copyCount != 0))
        SettleDeferred(*tlBlock, p, bytes, use);
}

// SettleDeferred for an operand in the buffer counted by `refs`: the tables are read only if a widening or a copy
// lives there (or a widening lost its buffer).
inline void SettleDeferredIn(BlockContext& ctx, const DeferredRefs& refs, const uint8_t* p, uint64_t bytes, Access use) {
    if (ctx.deferredCount == 0 && ctx.copyCount == 0) return;
    if (refs.dst != 0 || refs.copies != 0 || (Writes(use) && refs.src != 0) || ctx.orphanRefs.dst != 0)
        SettleDeferred(ctx, p, bytes, use);
}

// This block writes GM bytes [g, g + bytes) (DataCopy out, GlobalTensor::SetValue): the deferred copies of them, and
// the deferred widenings whose source a copy left there, are stored first.
inline void SettleGmWrite(BlockContext& ctx, const void* gm, uint64_t bytes) {
    const uint8_t* g = static_cast<const uint8_t*>(gm);
    if (ctx.copyCount != 0) SettleCopiesOfGm(ctx, g, bytes);
    if (ctx.gmRefs.src == 0) return;
    for (uint32_t i = 0; i < ctx.deferredCount;) {
        const DeferredWiden& w = ctx.deferred[i];
        if (!Overlaps(g, bytes, reinterpret_cast<const uint8_t*>(w.src), uint64_t(w.count) * sizeof(uint16_t))) {
            ++i;
            continue;
        }
        uint32_t a, b;
        Touched(g, bytes, w.src, sizeof(uint16_t), w.count, a, b);
        Carve(ctx, i, a, b, false);  // slot i now holds what is left of the widening, or another one: look again
    }
}

// After an in-place instruction wrote its results over a widening its dst check (Access::Rewrite) left deferred: the
// f32 bytes now hold them, so the record goes.
inline void DropRewritten(const uint8_t* p, uint64_t bytes) { SettleDeferred(p, bytes, Access::Overwrite); }

// Records Cast(dst, src, CAST_NONE) of `count` bf16 (or, `half`, f16) elements, or runs it when the table is full. The
// operand checks have settled every widening the Cast's operands touch, so recorded ranges never overlap one
// another's.
inline void DeferWiden(BlockContext& ctx, float* dst, DeferredRefs& dstRefs, const uint16_t* src, DeferredRefs& srcRefs,
                       uint32_t count, bool half) {
    if (ctx.deferredCount == kMaxDeferred) return Materialize(dst, src, count, half);
    ctx.deferred[ctx.deferredCount++] = DeferredWiden{dst, src, count, &dstRefs, &srcRefs, half};
    AddRefs(ctx.deferred[ctx.deferredCount - 1]);
}

// A TPipe's buffer records end (TPipe::Reset, or the TPipe's end) while UB keeps its bytes: the deferred copies are
// stored, the deferred widenings stay, counted as orphans (a source in GM stays counted as such), so that every
// operand check looks at them until they are settled.
inline void OrphanDeferred(BlockContext& ctx) {
    StoreCopies(ctx);
    ctx.orphanRefs.dst = ctx.orphanRefs.src = 0;
    for (uint32_t i = 0; i < ctx.deferredCount; ++i) {
        DeferredWiden& w = ctx.deferred[i];
        w.dstRefs = &ctx.orphanRefs;
        ++ctx.orphanRefs.dst;
        if (w.srcRefs == &ctx.gmRefs) continue;
        w.srcRefs = &ctx.orphanRefs;
        ++ctx.orphanRefs.src;
    }
}

// The 16-bit source of f32 elements [p, p + count) when a deferred widening holds them all (bits null if none).
struct WideningSource {
    const uint16_t* bits;
    bool half;  // f16 patterns, else bf16
};
inline WideningSource DeferredSource(const float* p, uint32_t count) {
    if (tlBlock == nullptr) return {nullptr, false};
    const BlockContext& ctx = *tlBlock;
    for (uint32_t i = 0; i < ctx.deferredCount; ++i) {
        const DeferredWiden& w = ctx.deferred[i];
        if (p >= w.dst && p + count <= w.dst + w.count) return {w.src + (p - w.dst), w.half};
    }
    return {nullptr, false};
}

}  // namespace actgrad_sim
