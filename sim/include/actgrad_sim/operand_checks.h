// The per-call checks every UB operand goes through, and the pipe-ownership tracker behind the sync checks:
// a vector instruction may not touch data a DataCopy wrote until a DeQue (or WaitFlag<MTE2_V>) made it visible,
// a DataCopy to GM may not read what a vector instruction wrote until a DeQue (or WaitFlag<V_MTE3>), nor what a
// DataCopy from GM wrote until an MTE2 -> MTE3 ordering (direct, or through the vector pipe); a refill or a vector
// write must wait for the last copy-out and a refill for the last vector access (FreeTensor/AllocTensor orders
// one of these pairs, the queue's EnQue pair reversed).
#pragma once
#include "pipe.h"

namespace actgrad_sim {

template <typename T>
uint32_t UbOffset(const AscendC::LocalTensor<T>& t) {
    return uint32_t(t.BytePtr() - tlBlock->ub);
}

// Live, in UB, `align`-byte aligned (32 for all but a few reduction outputs), and at least `bytes` long.
template <typename T>
void CheckUbOperand(const AscendC::LocalTensor<T>& t, uint64_t bytes, const char* api, const char* name,
                    uint32_t align = kBlockBytes) {
    t.CheckLive(api);
    const BufferRecord* r = t.Record();
    if (r->pos != AscendC::TPosition::VECIN && r->pos != AscendC::TPosition::VECOUT && r->pos != AscendC::TPosition::VECCALC)
        Fail(ErrorKind::InvalidArgument, api, name, " is in position ", PositionName(r->pos), ", expected VECIN/VECOUT/VECCALC");
    const uint32_t off = UbOffset(t);
    if (off % align != 0)
        Fail(ErrorKind::Alignment, api, name, " starts at UB offset ", off, ", which is not ", align, "-byte aligned");
    if (bytes > t.GetLength())
        Fail(ErrorKind::OutOfBounds, api, name, " needs ", bytes, " bytes but the tensor has only ", t.GetLength(),
             " (", t.GetSize(), " elements of ", TypeName<T>(), ")");
}

// Accesses to `r` up to `seq` (0 = none) are ordered before the later pipe of `e`: by a flag or barrier, or by
// the buffer's own queue sync.
inline bool Ordered(const BufferRecord& r, AscendC::HardEvent e, uint64_t seq) {
    if (SyncedAcross(e, seq)) return true;
    return r.IsQueue() && ((e == QueueEvent(r.pos) && seq <= r.deQued) || (e == FreeEvent(r.pos) && seq <= r.reAllocated));
}

template <typename T>
void CheckVectorOperand(const AscendC::LocalTensor<T>& t, uint64_t bytes, const char* api, const char* name, Access access,
                        uint32_t align = kBlockBytes) {
    CheckUbOperand(t, bytes, api, name, align);
    BlockContext& ctx = *tlBlock;
    BufferRecord* r = t.Record();
    if (r->IsQueue() && r->state == BufState::ENQUE)
        Fail(ErrorKind::MissingSync, api, name, " (UB offset ", r->offset, ") is enqueued: DeQue it before the vector unit touches it");
    // the vector pipe waited for the last copy-out, which itself was ordered after any earlier copy-in
    const bool afterCopyOut = r->mte3Read != 0 && Ordered(*r, AscendC::HardEvent::MTE3_V, r->mte3Read);
    if (!Ordered(*r, AscendC::HardEvent::MTE2_V, r->mte2Write) && !(afterCopyOut && r->mte3Read > r->mte2Write))
        Fail(ErrorKind::MissingSync, api, name, " (", PositionName(r->pos), " buffer at UB offset ", r->offset,
             ") was filled by DataCopy and not yet EnQue'd/DeQue'd: the MTE2 -> V synchronisation is missing, "
             "on the NPU the vector unit races the copy");
    const bool writes = Writes(access);
    if (writes && r->mte3Read != 0 && !afterCopyOut)
        Fail(ErrorKind::MissingSync, api, name, " (", PositionName(r->pos), " buffer at UB offset ", r->offset,
             ") is still being copied out: a vector write needs an MTE3 -> V flag or a VECOUT FreeTensor/AllocTensor "
             "first");
    SettleDeferredIn(ctx, r->deferred, t.BytePtr(), bytes, access);
    const uint64_t seq = ctx.NextSeq();
    if (writes) r->vWrite = seq;
    if (r->mte2Out != 0 && r->mte2SeenByV == 0) r->mte2SeenByV = seq;
    r->mte2Write = 0;
    if (afterCopyOut) r->mte3Read = 0;  // a refill must wait for this access, so for the copy-out too
    r->vAccess = seq;
}

// A DataCopy into UB (pipe MTE2) writes `t` (every byte of the range: use Access::Overwrite).
template <typename T>
void CheckDmaDestination(const AscendC::LocalTensor<T>& t, uint64_t bytes, const char* api, Access use = Access::Write) {
    CheckUbOperand(t, bytes, api, "dst");
    BlockContext& ctx = *tlBlock;
    BufferRecord* r = t.Record();
    if (r->IsQueue() && r->state != BufState::OCCUPIED)
        Fail(ErrorKind::QueueProtocol, api, "dst buffer at UB offset ", r->offset, " is ", BufStateName(r->state),
             ": copy into a tensor fresh from AllocTensor, before EnQue");
    if (!Ordered(*r, AscendC::HardEvent::MTE3_MTE2, r->mte3Read))
        Fail(ErrorKind::MissingSync, api, "dst (", PositionName(r->pos), " buffer at UB offset ", r->offset,
             ") is refilled while MTE3 may still be copying it out: the MTE3 -> MTE2 synchronisation is missing (a "
             "FreeTensor/AllocTensor orders V -> MTE2 for VECIN, MTE3 -> V for VECOUT)");
    if (!Ordered(*r, AscendC::HardEvent::V_MTE2, r->vAccess))
        Fail(ErrorKind::MissingSync, api, "dst (", PositionName(r->pos), " buffer at UB offset ", r->offset,
             ") is refilled while the vector unit may still use it: the V -> MTE2 synchronisation is missing");
    SettleDeferredIn(ctx, r->deferred, t.BytePtr(), bytes, use);
    // ordered after every earlier access: only the new copy is pending
    r->mte2Write = r->mte2Out = ctx.NextSeq();
    r->mte2SeenByV = r->vWrite = r->vAccess = r->mte3Read = 0;
}

// A DataCopy out of UB (pipe MTE3) reads `t`.
template <typename T>
void CheckDmaSource(const AscendC::LocalTensor<T>& t, uint64_t bytes, const char* api) {
    CheckUbOperand(t, bytes, api, "src");
    BlockContext& ctx = *tlBlock;
    BufferRecord* r = t.Record();
    if (r->IsQueue() && r->state == BufState::ENQUE)
        Fail(ErrorKind::MissingSync, api, "src buffer at UB offset ", r->offset, " is enqueued: DeQue it before copying it out");
    if (!Ordered(*r, AscendC::HardEvent::V_MTE3, r->vWrite))
        Fail(ErrorKind::MissingSync, api, "src (", PositionName(r->pos), " buffer at UB offset ", r->offset,
             ") was written by a vector instruction and not yet EnQue'd/DeQue'd: the V -> MTE3 synchronisation is "
             "missing, on the NPU the copy races the vector unit");
    // MTE3 waited for MTE2 directly, or for a vector access that itself waited for MTE2
    const bool viaVector = r->mte2SeenByV != 0 && Ordered(*r, AscendC::HardEvent::V_MTE3, r->mte2SeenByV);
    if (!Ordered(*r, AscendC::HardEvent::MTE2_MTE3, r->mte2Out) && !viaVector)
        Fail(ErrorKind::MissingSync, api, "src (", PositionName(r->pos), " buffer at UB offset ", r->offset,
             ") was filled by DataCopy and is copied out without an MTE2 -> MTE3 synchronisation (a VECIN DeQue "
             "orders MTE2 -> V only), on the NPU the copy may read stale UB");
    SettleDeferredIn(ctx, r->deferred, t.BytePtr(), bytes, Access::Read);
    // a refill must wait for this read, so for the vector accesses ordered before it too
    if (Ordered(*r, AscendC::HardEvent::V_MTE3, r->vAccess)) r->vAccess = 0;
    r->mte3Read = ctx.NextSeq();
}

inline void CountVectorInstruction() { tlBlock->stats.vectorInstructions++; }

// The first `bytes` of `t` as a reader that reads them as they are finds them, after its operand check used
// Access::ReadCopy: in GM where a deferred copy holds them all, else in UB (what is deferred there stored first).
template <typename T>
const T* ReadThroughCopy(const AscendC::LocalTensor<T>& t, uint64_t bytes) {
    if (const uint8_t* gm = CopySource(t.BytePtr(), bytes)) return reinterpret_cast<const T*>(gm);
    SettleDeferred(t.BytePtr(), bytes, Access::Read);
    return t.Data();
}

inline void CheckCount(int64_t count, const char* api) {
    if (count < 0) Fail(ErrorKind::InvalidArgument, api, "count ", count, " is negative");
}

// In place (same start) or disjoint; anything else is a partial overlap the vector unit does not support.
template <typename D, typename S>
void CheckNoPartialOverlap(const AscendC::LocalTensor<D>& dst, uint64_t dstBytes, const AscendC::LocalTensor<S>& src,
                           uint64_t srcBytes, const char* api, const char* name) {
    const uint8_t* d = dst.BytePtr();
    const uint8_t* s = src.BytePtr();
    if (d == s || d + dstBytes <= s || s + srcBytes <= d) return;
    Fail(ErrorKind::Overlap, api, "dst [UB ", UbOffset(dst), ", +", dstBytes, ") partially overlaps ", name, " [UB ",
         UbOffset(src), ", +", srcBytes, "): operands must coincide exactly or not overlap");
}

// Any overlap at all (high-level APIs forbid even in-place use).
template <typename D, typename S>
void CheckDisjoint(const AscendC::LocalTensor<D>& a, uint64_t aBytes, const AscendC::LocalTensor<S>& b, uint64_t bBytes,
                   const char* api, const char* aName, const char* bName) {
    const uint8_t* pa = a.BytePtr();
    const uint8_t* pb = b.BytePtr();
    if (pa + aBytes <= pb || pb + bBytes <= pa) return;
    Fail(ErrorKind::Overlap, api, aName, " [UB ", UbOffset(a), ", +", aBytes, ") overlaps ", bName, " [UB ", UbOffset(b),
         ", +", bBytes, "): this API forbids any overlap");
}

template <typename T>
void RequireBf16Math(const char* api) {
    if (std::is_same<T, bfloat16_t>::value && !tlBlock->soc().bf16Math)
        Fail(ErrorKind::Unsupported, api, "bfloat16_t arithmetic is not available on ", tlBlock->soc().name,
             " (widen to float with Cast first)");
    if (std::is_same<T, bfloat16_t>::value && !tlBlock->soc().bf16Storage)
        Fail(ErrorKind::Unsupported, api, "bfloat16_t does not exist on ", tlBlock->soc().name);
}

template <typename T>
void RequireStorageType(const char* api) {
    if (std::is_same<T, bfloat16_t>::value && !tlBlock->soc().bf16Storage)
        Fail(ErrorKind::Unsupported, api, "bfloat16_t does not exist on ", tlBlock->soc().name);
}

}  // namespace actgrad_sim
