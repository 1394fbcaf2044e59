// GlobalTensor and LocalTensor with the vendor's interfaces. A LocalTensor remembers the UB buffer it came from, so
// every API can check that the buffer is still allocated and that the pipes touching it were synchronised.
#pragma once
#include <cstdint>
#include <type_traits>

#include "block_context.h"
#include "deferred_widen.h"
#include "numeric.h"

namespace AscendC {

enum class TPosition : uint8_t {
    GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM = SPM, TSCM,
    C2PIPE2GM, C2PIPE2LOCAL, MAX
};
using QuePosition = TPosition;

template <typename T> struct PrimTImpl { using type = T; };
template <typename T> using PrimT = typename PrimTImpl<T>::type;

}  // namespace AscendC

namespace actgrad_sim {

inline const char* PositionName(AscendC::TPosition p) {
    switch (p) {
        case AscendC::TPosition::VECIN: return "VECIN";
        case AscendC::TPosition::VECOUT: return "VECOUT";
        case AscendC::TPosition::VECCALC: return "VECCALC";
        case AscendC::TPosition::GM: return "GM";
        default: return "a non-vector position";
    }
}

enum class BufState : uint8_t { FREE, OCCUPIED, ENQUE, DEQUE };
inline const char* BufStateName(BufState s) {
    switch (s) {
        case BufState::FREE: return "FREE";
        case BufState::OCCUPIED: return "OCCUPIED";
        case BufState::ENQUE: return "ENQUE";
        case BufState::DEQUE: return "DEQUE";
    }
    return "?";
}

// One UB buffer carved by TPipe::InitBuffer: a queue slot or a TBuf.
struct BufferRecord {
    uint32_t offset = 0;  // bytes from the UB base
    uint32_t length = 0;  // bytes, rounded up to 32
    AscendC::TPosition pos = AscendC::TPosition::VECCALC;
    const void* queue = nullptr;  // owning TQue, null for a TBuf
    uint32_t slot = 0;
    BufState state = BufState::FREE;
    uint32_t generation = 0;  // bumped by FreeTensor and TPipe::Reset: older LocalTensor handles are stale
    uint64_t mte2Write = 0;   // seq of a GM->UB copy the vector pipe has not touched yet, it must be ordered after it
    uint64_t mte2Out = 0;     // seq of the last GM->UB copy, which a copy-out by MTE3 must be ordered after (0 = none)
    uint64_t mte2SeenByV = 0; // first vector access after that copy: a V -> MTE3 sync past it orders the copy too
    uint64_t vWrite = 0;      // seq of the last vector write, which a copy-out by MTE3 must be ordered after (0 = none)
    uint64_t vAccess = 0;     // seq of the last vector access, which a refill by MTE2 must wait for
    uint64_t mte3Read = 0;    // seq of the last copy-out, which a refill or vector write must wait for
    // a queue slot's own hidden syncs order one pipe pair for the accesses up to these seqs: the last DeQue
    // (VECIN MTE2 -> V, VECOUT V -> MTE3) and the last FreeTensor/AllocTensor (VECIN V -> MTE2, VECOUT MTE3 -> V)
    uint64_t deQued = 0;
    uint64_t reAllocated = 0;
    bool retired = false;     // released by TPipe::Reset
    DeferredRefs deferred;    // deferred widenings in this buffer (deferred_widen.h)
    bool IsQueue() const { return queue != nullptr; }
};

}  // namespace actgrad_sim

namespace AscendC {

template <typename T>
class LocalTensor {
public:
    using PrimType = PrimT<T>;
    LocalTensor() = default;

    LocalTensor operator[](const uint32_t offset) const {
        CheckLive("LocalTensor::operator[]");
        if (uint64_t(offset) * sizeof(T) >= bytes_)
            actgrad_sim::Fail(actgrad_sim::ErrorKind::OutOfBounds, "LocalTensor::operator[]", "offset ", offset,
                              " is not below the tensor size ", GetSize(), " elements");
        LocalTensor v = *this;
        v.addr_ += offset;
        v.bytes_ -= uint32_t(offset * sizeof(T));
        return v;
    }
    PrimType GetValue(const uint32_t index) const {
        CheckIndex("LocalTensor::GetValue", index);
        CheckScalarRead("LocalTensor::GetValue");
        actgrad_sim::SettleDeferred(BytePtr() + index * sizeof(T), sizeof(T), actgrad_sim::Access::Read);
        return addr_[index];
    }
    template <typename T1>
    void SetValue(const uint32_t index, const T1 value) const {
        CheckIndex("LocalTensor::SetValue", index);
        actgrad_sim::SettleDeferred(BytePtr() + index * sizeof(T), sizeof(T), actgrad_sim::Access::Write);
        addr_[index] = static_cast<PrimType>(value);
    }
    PrimType& operator()(const uint32_t index) const {
        CheckIndex("LocalTensor::operator()", index);
        actgrad_sim::SettleDeferred(BytePtr() + index * sizeof(T), sizeof(T), actgrad_sim::Access::Write);
        return addr_[index];
    }
    uint32_t GetSize() const { return bytes_ / sizeof(T); }
    void SetSize(const uint32_t size) {
        if (rec_ == nullptr || uint64_t(size) * sizeof(T) > uint64_t(rec_->length) - (BytePtr() - BufferBase()))
            actgrad_sim::Fail(actgrad_sim::ErrorKind::OutOfBounds, "LocalTensor::SetSize", "size ", size,
                              " elements exceeds the buffer");
        bytes_ = uint32_t(size * sizeof(T));
    }
    uint32_t GetLength() const { return bytes_; }
    int32_t GetPosition() const { return rec_ ? int32_t(rec_->pos) : int32_t(TPosition::MAX); }
    // a host pointer may read or write anything from here on: every deferred widening it could see is stored first
    PrimType* GetPhyAddr() const {
        actgrad_sim::SettleDeferred(BytePtr(), bytes_, actgrad_sim::Access::Write);
        return addr_;
    }
    PrimType* GetPhyAddr(const uint32_t offset) const { return GetPhyAddr() + offset; }

    template <typename CAST_T>
    LocalTensor<CAST_T> ReinterpretCast() const {
        LocalTensor<CAST_T> out;
        out.Bind(reinterpret_cast<CAST_T*>(addr_), bytes_, rec_, gen_);
        return out;
    }

    // --- twin internals (not vendor API) ---
    void Bind(PrimType* addr, uint32_t bytes, actgrad_sim::BufferRecord* rec, uint32_t gen) {
        addr_ = addr;
        bytes_ = bytes;
        rec_ = rec;
        gen_ = gen;
    }
    actgrad_sim::BufferRecord* Record() const { return rec_; }
    uint32_t Generation() const { return gen_; }
    uint8_t* BytePtr() const { return reinterpret_cast<uint8_t*>(addr_); }
    PrimType* Data() const { return addr_; }  // for APIs whose operand checks settled the deferred widenings
    uint8_t* BufferBase() const { return actgrad_sim::tlBlock->ub + rec_->offset; }
    void CheckLive(const char* api) const {
        if (rec_ == nullptr)
            actgrad_sim::Fail(actgrad_sim::ErrorKind::InvalidArgument, api,
                              "the LocalTensor was never obtained from AllocTensor/DeQue/TBuf::Get");
        if (rec_->generation != gen_ || (rec_->IsQueue() && rec_->state == actgrad_sim::BufState::FREE))
            actgrad_sim::Fail(actgrad_sim::ErrorKind::UseAfterFree, api,
                              "the LocalTensor at UB offset ", rec_->offset,
                              " was released by FreeTensor or TPipe::Reset and is used again");
    }

private:
    // The scalar unit reads vector results only after a V -> S synchronisation (SetFlag/WaitFlag<V_S> or
    // PipeBarrier<PIPE_ALL>): without one, on the NPU the read races the vector unit. Buffer-wide, like the pipes'
    // other checks: a read of any element waits for the buffer's last vector write.
    void CheckScalarRead(const char* api) const {
        if (rec_ == nullptr || actgrad_sim::tlBlock == nullptr || rec_->vWrite == 0) return;
        if (actgrad_sim::SyncedAcross(AscendC::HardEvent::V_S, rec_->vWrite)) return;
        actgrad_sim::Fail(actgrad_sim::ErrorKind::MissingSync, api, "buffer at UB offset ", rec_->offset,
                          " was written by a vector instruction and is read by the scalar unit without a V -> S "
                          "synchronisation (SetFlag/WaitFlag<HardEvent::V_S>): on the NPU the read races the vector "
                          "unit");
    }

    void CheckIndex(const char* api, uint32_t index) const {
        CheckLive(api);
        if (uint64_t(index) * sizeof(T) >= bytes_)
            actgrad_sim::Fail(actgrad_sim::ErrorKind::OutOfBounds, api, "index ", index,
                              " is not below the tensor size ", GetSize(), " elements");
    }

    PrimType* addr_ = nullptr;
    uint32_t bytes_ = 0;
    actgrad_sim::BufferRecord* rec_ = nullptr;
    uint32_t gen_ = 0;
};

template <typename T>
class GlobalTensor {
public:
    using PrimType = PrimT<T>;
    GlobalTensor() = default;

    void SetGlobalBuffer(__gm__ PrimType* buffer, uint64_t bufferSize) {
        addr_ = buffer;
        size_ = bufferSize;
        sized_ = true;
    }
    void SetGlobalBuffer(__gm__ PrimType* buffer) {
        addr_ = buffer;
        size_ = 0;
        sized_ = false;  // GetSize() == 0; only the allocation bounds the accesses
    }
    GlobalTensor operator[](const uint64_t offset) const {
        if (sized_ && offset > size_)
            actgrad_sim::Fail(actgrad_sim::ErrorKind::OutOfBounds, "GlobalTensor::operator[]", "offset ", offset,
                              " is beyond the global buffer of ", size_, " elements");
        GlobalTensor v = *this;
        v.addr_ = addr_ + offset;
        v.size_ = sized_ ? size_ - offset : 0;
        return v;
    }
    PrimType GetValue(const uint64_t offset) const {
        CheckAccess("GlobalTensor::GetValue", offset, 1);
        actgrad_sim::Block("GlobalTensor::GetValue").stats.gmBytesRead += sizeof(T);
        return addr_[offset];
    }
    void SetValue(const uint64_t offset, PrimType value) const {
        CheckAccess("GlobalTensor::SetValue", offset, 1);
        actgrad_sim::BlockContext& ctx = actgrad_sim::Block("GlobalTensor::SetValue");
        actgrad_sim::SettleGmWrite(ctx, addr_ + offset, sizeof(T));
        ctx.RecordGmWrite(uintptr_t(addr_ + offset), sizeof(T));
        addr_[offset] = value;
    }
    uint64_t GetSize() const { return size_; }
    PrimType* GetPhyAddr() const { return addr_; }
    PrimType* GetPhyAddr(const uint64_t offset) const { return addr_ + offset; }
    template <typename CAST_T>
    GlobalTensor<CAST_T> ReinterpretCast() const {
        GlobalTensor<CAST_T> out;
        if (sized_) out.SetGlobalBuffer(reinterpret_cast<CAST_T*>(addr_), size_ * sizeof(T) / sizeof(CAST_T));
        else out.SetGlobalBuffer(reinterpret_cast<CAST_T*>(addr_));
        return out;
    }

    // Twin internal: elements [offset, offset+count) must lie in this tensor (when sized) and in a known GM
    // allocation; GM addresses of element copies must be aligned to sizeof(T).
    void CheckAccess(const char* api, uint64_t offset, uint64_t count) const {
        RequireBuffer(api);
        if (uintptr_t(addr_) % alignof(PrimType) != 0)
            actgrad_sim::Fail(actgrad_sim::ErrorKind::Alignment, api, "GM address ", (const void*)addr_,
                              " is not aligned to sizeof(T) = ", sizeof(T));
        if (sized_ && offset + count > size_)
            actgrad_sim::Fail(actgrad_sim::ErrorKind::OutOfBounds, api, "elements [", offset, ", ", offset + count,
                              ") exceed the global tensor size ", size_);
        RequireAllocation(api, offset * sizeof(T), count * sizeof(T));
    }
    // Twin internal: the byte range [byteOffset, byteOffset+bytes) (DataCopyPad moves bytes, GM is byte-addressed).
    void CheckBytes(const char* api, uint64_t byteOffset, uint64_t bytes) const {
        RequireBuffer(api);
        if (sized_ && byteOffset + bytes > size_ * sizeof(T))
            actgrad_sim::Fail(actgrad_sim::ErrorKind::OutOfBounds, api, "bytes [", byteOffset, ", ", byteOffset + bytes,
                              ") exceed the global tensor size ", size_, " (", size_ * sizeof(T), " bytes)");
        RequireAllocation(api, byteOffset, bytes);
    }
    // Twin internal: `count` byte ranges of `bytes`, `pitch` bytes apart from the start (DataCopyPad's blocks). One
    // check of the whole span covers them when it lies in one allocation; otherwise each block is checked alone
    // (blocks may sit in different allocations), which also reports the first block out of bounds.
    void CheckByteBlocks(const char* api, uint64_t count, uint64_t bytes, uint64_t pitch) const {
        if (count == 0) return;
        RequireBuffer(api);
        const uint64_t span = (count - 1) * pitch + bytes;
        if (!(sized_ && span > size_ * sizeof(T)) &&
            actgrad_sim::Block(api).launch->FindRegion(uintptr_t(addr_), span) != nullptr)
            return;
        for (uint64_t b = 0; b < count; ++b) CheckBytes(api, b * pitch, bytes);
    }

private:
    void RequireBuffer(const char* api) const {
        if (addr_ == nullptr)
            actgrad_sim::Fail(actgrad_sim::ErrorKind::InvalidArgument, api, "GlobalTensor has no buffer (SetGlobalBuffer not called)");
    }
    void RequireAllocation(const char* api, uint64_t byteOffset, uint64_t bytes) const {
        const uintptr_t p = uintptr_t(addr_) + byteOffset;
        if (actgrad_sim::Block(api).launch->FindRegion(p, bytes) == nullptr)
            actgrad_sim::Fail(actgrad_sim::ErrorKind::OutOfBounds, api, "GM bytes [", (const void*)p, ", +", bytes,
                              ") are outside every allocation the launcher knows");
    }

    PrimType* addr_ = nullptr;
    uint64_t size_ = 0;
    bool sized_ = false;
};

}  // namespace AscendC
