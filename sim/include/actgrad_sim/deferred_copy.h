// Deferred GM -> UB copies. A contiguous DataCopy/DataCopyPad into UB is mostly followed by vector instructions that
// read the tile once or twice; storing it first is a pass over memory that a bandwidth-bound kernel pays on top of
// reading GM. So the twin records the copy (UB bytes [ub, ub + bytes) hold GM [gm, gm + bytes)) instead of storing
// it; the float readers that widen as they load (deferred_widen.h) read such an operand from GM, and a deferred
// widening of copied 16-bit values keeps GM as its source. Every other access to the bytes stores them first; a
// write by this block to the GM bytes stores them first too (SettleGmWrite), so what any reader sees is GM as it
// was at the copy, as on the NPU. Only the twin's speed changes; ACTGRAD_SIM_NO_DEFER=1 turns this off with the
// deferred widening. A block's deferred copies do not see GM written by other blocks: on the NPU such a read would
// race the write anyway, unordered (the twin has no cross-block synchronisation). Raw-pointer GM writes by kernel
// code are not seen either; no kernel here makes them.
#pragma once
#include <algorithm>
#include <cstring>

#include "block_context.h"

namespace actgrad_sim {

// Shorter copies are stored at once: a deferral costs a table entry and a look at it by every access to the buffer.
constexpr uint64_t kMinDeferredCopy = 1024;

// Records a copy of `bytes` GM bytes to UB; false if the twin stores it at once instead (the caller copies).
inline bool DeferCopy(BlockContext& ctx, uint8_t* ub, DeferredRefs& refs, const void* gm, uint64_t bytes) {
    if (bytes < kMinDeferredCopy || ctx.copyCount == kMaxDeferred) return false;
    ctx.copies[ctx.copyCount++] = DeferredCopy{ub, static_cast<const uint8_t*>(gm), bytes, &refs};
    ++refs.copies;
    return true;
}

// Bytes [from, to) of copy c, stored.
inline void StoreCopyRange(const DeferredCopy& c, uint64_t from, uint64_t to) {
    if (to > from) std::memcpy(c.ub + from, c.gm + from, to - from);
}

inline void DropCopy(BlockContext& ctx, uint32_t i) {
    --ctx.copies[i].refs->copies;
    ctx.copies[i] = ctx.copies[--ctx.copyCount];
}

inline bool Overlaps(const uint8_t* a, uint64_t aBytes, const uint8_t* b, uint64_t bBytes) {
    return a < b + bBytes && b < a + aBytes;
}

// An access to UB bytes [p, p + bytes). A reader that reads through (readsThrough) leaves a copy holding all of them
// deferred; a write of every byte (overwrites) stores only the copy's bytes outside them; anything else stores the
// copies it touches. Stored copies leave the table.
inline void SettleCopies(BlockContext& ctx, const uint8_t* p, uint64_t bytes, bool readsThrough, bool overwrites) {
    for (uint32_t i = 0; i < ctx.copyCount;) {
        const DeferredCopy& c = ctx.copies[i];
        if (!Overlaps(p, bytes, c.ub, c.bytes) || (readsThrough && p >= c.ub && p + bytes <= c.ub + c.bytes)) {
            ++i;
            continue;
        }
        if (overwrites) {
            StoreCopyRange(c, 0, p > c.ub ? uint64_t(p - c.ub) : 0);
            StoreCopyRange(c, std::min<uint64_t>(uint64_t(p + bytes - c.ub), c.bytes), c.bytes);
        } else {
            StoreCopyRange(c, 0, c.bytes);
        }
        DropCopy(ctx, i);  // slot i now holds another copy: look again
    }
}

// This block writes GM bytes [g, g + bytes): the deferred copies of any of them are stored first.
inline void SettleCopiesOfGm(BlockContext& ctx, const uint8_t* g, uint64_t bytes) {
    for (uint32_t i = 0; i < ctx.copyCount;) {
        const DeferredCopy& c = ctx.copies[i];
        if (!Overlaps(g, bytes, c.gm, c.bytes)) {
            ++i;
            continue;
        }
        StoreCopyRange(c, 0, c.bytes);
        DropCopy(ctx, i);
    }
}

// Every deferred copy stored (a TPipe's buffer records end, so do the references to them).
inline void StoreCopies(BlockContext& ctx) {
    while (ctx.copyCount > 0) {
        StoreCopyRange(ctx.copies[0], 0, ctx.copies[0].bytes);
        DropCopy(ctx, 0);
    }
}

// The GM bytes of UB bytes [p, p + bytes) when one deferred copy holds them all, else null.
inline const uint8_t* CopySource(const void* ptr, uint64_t bytes) {
    if (tlBlock == nullptr) return nullptr;
    const BlockContext& ctx = *tlBlock;
    const uint8_t* p = static_cast<const uint8_t*>(ptr);
    for (uint32_t i = 0; i < ctx.copyCount; ++i) {
        const DeferredCopy& c = ctx.copies[i];
        if (p >= c.ub && p + bytes <= c.ub + c.bytes) return c.gm + (p - c.ub);
    }
    return nullptr;
}

}  // namespace actgrad_sim
