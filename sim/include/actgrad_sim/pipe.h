// TPipe, TQue and TBuf: sequential UB carving and the FREE -> OCCUPIED -> ENQUE -> DEQUE -> FREE buffer machine.
// EnQue/DeQue stand for the hidden SetFlag/WaitFlag pair of the queue's pipes (VECIN: MTE2 -> V, VECOUT: V -> MTE3),
// FreeTensor/AllocTensor for the reverse pair (VECIN: V -> MTE2, VECOUT: MTE3 -> V); the sync tracker applies each
// to that buffer only.
#pragma once
#include <array>
#include <new>
#include <cstdint>

#include "tensor.h"

namespace actgrad_sim {

class TPipeState {
public:
    TPipeState() {
        BlockContext& ctx = Block("TPipe::TPipe");
        if (ctx.pipe != nullptr)
            Fail(ErrorKind::Launch, "TPipe::TPipe", "a second TPipe is alive in this block (the NPU would hang)");
        ctx.pipe = this;
    }
    ~TPipeState() {
        if (tlBlock != nullptr && tlBlock->pipe == this) {
            OrphanDeferred(*tlBlock);
            tlBlock->pipe = nullptr;
        }
    }
    TPipeState(const TPipeState&) = delete;
    TPipeState& operator=(const TPipeState&) = delete;

    BufferRecord* Carve(const char* api, AscendC::TPosition pos, uint32_t len, const void* queue, uint32_t slot) {
        BlockContext& ctx = Block(api);
        if (used_ >= kMaxBuffers)
            Fail(ErrorKind::UbOverflow, api, "more than ", kMaxBuffers, " buffers in one TPipe");
        const uint32_t rounded = (len + kBlockBytes - 1) / kBlockBytes * kBlockBytes;
        const uint64_t end = uint64_t(offset_) + rounded;
        if (end > ctx.soc().ubBytes)
            Fail(ErrorKind::UbOverflow, api, "buffer of ", rounded, " bytes at UB offset ", offset_, " ends at ", end,
                 ", beyond the ", ctx.soc().ubBytes, " bytes of UB on ", ctx.soc().name);
        BufferRecord& r = *new (&records_[used_++].record) BufferRecord{};
        r.offset = offset_;
        r.length = rounded;
        r.pos = pos;
        r.queue = queue;
        r.slot = slot;
        r.generation = generation_;
        offset_ = uint32_t(end);
        ctx.stats.ubHighWater = std::max(ctx.stats.ubHighWater, offset_);
        return &r;
    }
    void Reset() {
        OrphanDeferred(Block("TPipe::Reset"));  // the records below are carved again
        for (uint32_t i = 0; i < used_; ++i) {
            records_[i].record.generation++;
            records_[i].record.retired = true;
        }
        generation_ += 1u << 20;  // re-carved slots never match a handle from before the reset
        used_ = 0;
        offset_ = 0;
        for (uint32_t& n : Block("TPipe::Reset").queueEventsInFlight) n = 0;  // enqueued tensors give their IDs back
    }
    // Destroy: release everything and stop being the block's TPipe, so another may be created.
    void Release() {
        Reset();
        if (tlBlock != nullptr && tlBlock->pipe == this) tlBlock->pipe = nullptr;
    }
    void* owner = nullptr;  // the TPipe object, for GetTPipePtr
    uint32_t CarvedBytes() const { return offset_; }

private:
    // storage for the records Carve makes; the rest is never read: constructing all of them cost more per block
    // than a small block's vector work
    union Slot {
        Slot() {}
        BufferRecord record;
    };
    std::array<Slot, kMaxBuffers> records_;
    uint32_t used_ = 0;
    uint32_t offset_ = 0;
    uint32_t generation_ = 1;
};

inline TPipeState& CurrentPipe(const char* api) {
    BlockContext& ctx = Block(api);
    if (ctx.pipe == nullptr) Fail(ErrorKind::InvalidArgument, api, "no TPipe is alive in this block");
    return *ctx.pipe;
}

// The events a queue's EnQue/DeQue stand for.
constexpr AscendC::HardEvent QueueEvent(AscendC::TPosition pos) {
    return pos == AscendC::TPosition::VECIN ? AscendC::HardEvent::MTE2_V : AscendC::HardEvent::V_MTE3;
}
// The events a queue's FreeTensor/AllocTensor stand for: the reverse of its EnQue/DeQue pair.
constexpr AscendC::HardEvent FreeEvent(AscendC::TPosition pos) {
    return pos == AscendC::TPosition::VECIN ? AscendC::HardEvent::V_MTE2 : AscendC::HardEvent::MTE3_V;
}

}  // namespace actgrad_sim

namespace AscendC {

using event_t = int32_t;
using TEventID = int8_t;

template <TPosition pos, int32_t depth, auto mask = 0>
class TQue {
    static_assert(pos == TPosition::VECIN || pos == TPosition::VECOUT,
                  "the twin models vector queues only: TQue<VECIN> and TQue<VECOUT> (use TBuf<VECCALC> for temporaries)");
    static_assert(depth >= 1, "queue depth 0 (the in-place queue API) is outside the twin's subset");

public:
    template <typename T>
    LocalTensor<T> AllocTensor() {
        const char* api = "TQue::AllocTensor";
        if (num_ == 0) actgrad_sim::Fail(actgrad_sim::ErrorKind::QueueProtocol, api, "the queue has no buffers (InitBuffer not called)");
        for (uint32_t probe = 0; probe < num_; ++probe) {
            actgrad_sim::BufferRecord* r = bufs_[(cursor_ + probe) % num_];
            if (r->retired || r->queue != this) StaleQueue(api);
            if (r->state != actgrad_sim::BufState::FREE) continue;
            cursor_ = (cursor_ + probe + 1) % num_;
            r->state = actgrad_sim::BufState::OCCUPIED;
            // the hidden WaitFlag of the FreeTensor's event; the other pipe pairs keep their pending accesses
            r->reAllocated = actgrad_sim::tlBlock->seq;
            LocalTensor<T> t;
            t.Bind(reinterpret_cast<PrimT<T>*>(actgrad_sim::tlBlock->ub + r->offset), r->length, r, r->generation);
            return t;
        }
        actgrad_sim::Fail(actgrad_sim::ErrorKind::QueueProtocol, api, "no free buffer: all ", num_,
                          " buffers of the queue are allocated (the NPU would wait forever)");
    }

    template <typename T>
    bool EnQue(const LocalTensor<T>& tensor) {
        const char* api = "TQue::EnQue";
        actgrad_sim::BufferRecord* r = Own(api, tensor);
        if (count_ >= depth)
            actgrad_sim::Fail(actgrad_sim::ErrorKind::QueueProtocol, api, "the queue already holds ", count_,
                              " tensors, its depth is ", depth);
        if (r->state != actgrad_sim::BufState::OCCUPIED && r->state != actgrad_sim::BufState::DEQUE)
            actgrad_sim::Fail(actgrad_sim::ErrorKind::QueueProtocol, api, "buffer at UB offset ", r->offset,
                              " is ", actgrad_sim::BufStateName(r->state), ", expected OCCUPIED or DEQUE");
        auto& ctx = *actgrad_sim::tlBlock;
        uint32_t& inFlight = ctx.queueEventsInFlight[int(actgrad_sim::QueueEvent(pos))];
        if (inFlight >= ctx.soc().eventIds)
            actgrad_sim::Fail(actgrad_sim::ErrorKind::QueueProtocol, api, "more than ", ctx.soc().eventIds,
                              " tensors enqueued on one event type (no event ID left)");
        inFlight++;
        r->state = actgrad_sim::BufState::ENQUE;
        fifo_[(head_ + count_) % actgrad_sim::kMaxBuffers] = r;
        count_++;
        return true;
    }

    template <typename T>
    LocalTensor<T> DeQue() {
        const char* api = "TQue::DeQue";
        if (count_ == 0)
            actgrad_sim::Fail(actgrad_sim::ErrorKind::QueueProtocol, api, "the queue is empty (the NPU would hang)");
        actgrad_sim::BufferRecord* r = fifo_[head_];
        if (r->retired || r->queue != this) StaleQueue(api);
        head_ = (head_ + 1) % actgrad_sim::kMaxBuffers;
        count_--;
        actgrad_sim::tlBlock->queueEventsInFlight[int(actgrad_sim::QueueEvent(pos))]--;
        r->state = actgrad_sim::BufState::DEQUE;
        r->deQued = actgrad_sim::tlBlock->seq;  // the hidden WaitFlag of the EnQue's event
        LocalTensor<T> t;
        t.Bind(reinterpret_cast<PrimT<T>*>(actgrad_sim::tlBlock->ub + r->offset), r->length, r, r->generation);
        return t;
    }

    template <typename T>
    void FreeTensor(LocalTensor<T>& tensor) {
        const char* api = "TQue::FreeTensor";
        actgrad_sim::BufferRecord* r = Own(api, tensor);
        if (r->state == actgrad_sim::BufState::ENQUE)
            actgrad_sim::Fail(actgrad_sim::ErrorKind::QueueProtocol, api, "buffer at UB offset ", r->offset,
                              " is still enqueued (DeQue it first)");
        r->state = actgrad_sim::BufState::FREE;
        r->generation++;
    }

    bool VacantInQue() const { return count_ < depth; }
    bool HasTensorInQue() const { return count_ > 0; }
    int32_t GetTensorCountInQue() const { return int32_t(count_); }
    bool HasIdleBuffer() const {
        for (uint32_t i = 0; i < num_; ++i)
            if (bufs_[i]->state == actgrad_sim::BufState::FREE) return true;
        return false;
    }
    void FreeAllEvent() {}

    // twin internal, called by TPipe::InitBuffer
    void Attach(actgrad_sim::TPipeState& pipe, uint8_t num, uint32_t len) {
        const char* api = "TPipe::InitBuffer";
        if (num < 1 || num > actgrad_sim::kMaxBuffers)
            actgrad_sim::Fail(actgrad_sim::ErrorKind::InvalidArgument, api, "buffer count ", int(num), " is outside [1, 64]");
        if (len == 0) actgrad_sim::Fail(actgrad_sim::ErrorKind::InvalidArgument, api, "buffer length is 0");
        num_ = 0;
        for (uint32_t i = 0; i < num; ++i) bufs_[num_++] = pipe.Carve(api, pos, len, this, i);
        cursor_ = head_ = count_ = 0;
    }

private:
    template <typename T>
    actgrad_sim::BufferRecord* Own(const char* api, const LocalTensor<T>& tensor) {
        actgrad_sim::BufferRecord* r = tensor.Record();
        if (r == nullptr || r->queue != this)
            actgrad_sim::Fail(actgrad_sim::ErrorKind::QueueProtocol, api, "the tensor does not belong to this queue");
        if (r->retired) StaleQueue(api);
        if (r->generation != tensor.Generation() || r->state == actgrad_sim::BufState::FREE)
            actgrad_sim::Fail(actgrad_sim::ErrorKind::QueueProtocol, api, "buffer at UB offset ", r->offset,
                              " is already FREE (FreeTensor twice, or use after FreeTensor)");
        return r;
    }
    [[noreturn]] void StaleQueue(const char* api) {
        actgrad_sim::Fail(actgrad_sim::ErrorKind::UseAfterFree, api, "the queue's buffers were released by TPipe::Reset");
    }

    // read only below num_ (bufs_) and where EnQue wrote (fifo_): left uninitialized, as zeroing them cost a small
    // block more than its vector work
    std::array<actgrad_sim::BufferRecord*, actgrad_sim::kMaxBuffers> bufs_;
    std::array<actgrad_sim::BufferRecord*, actgrad_sim::kMaxBuffers> fifo_;
    uint32_t num_ = 0, cursor_ = 0, head_ = 0, count_ = 0;
};

template <TPosition pos = TPosition::LCM>
class TBuf {
    static_assert(pos == TPosition::VECCALC || pos == TPosition::VECIN || pos == TPosition::VECOUT,
                  "the twin models UB buffers only");

public:
    template <typename T>
    LocalTensor<T> Get() {
        actgrad_sim::BufferRecord* r = Live("TBuf::Get");
        return Make<T>(r, 0, r->length);
    }
    template <typename T>
    LocalTensor<T> Get(uint32_t len) {
        const char* api = "TBuf::Get";
        actgrad_sim::BufferRecord* r = Live(api);
        const uint64_t bytes = uint64_t(len) * sizeof(T);
        if (len == 0 || bytes % actgrad_sim::kBlockBytes != 0 || bytes > r->length)
            actgrad_sim::Fail(actgrad_sim::ErrorKind::InvalidArgument, api, "len ", len, " elements (", bytes,
                              " bytes) must be > 0, a multiple of 32 bytes and at most the buffer's ", r->length, " bytes");
        return Make<T>(r, 0, uint32_t(bytes));
    }
    template <typename T>
    LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset) {
        const char* api = "TBuf::GetWithOffset";
        actgrad_sim::BufferRecord* r = Live(api);
        const uint64_t bytes = uint64_t(size) * sizeof(T);
        if (bufOffset % actgrad_sim::kBlockBytes != 0 || bufOffset + bytes > r->length)
            actgrad_sim::Fail(actgrad_sim::ErrorKind::OutOfBounds, api, "view of ", bytes, " bytes at byte offset ", bufOffset,
                              " must be 32-byte aligned and inside the buffer's ", r->length, " bytes");
        return Make<T>(r, bufOffset, uint32_t(bytes));
    }

    void Attach(actgrad_sim::TPipeState& pipe, uint32_t len) {
        if (len == 0) actgrad_sim::Fail(actgrad_sim::ErrorKind::InvalidArgument, "TPipe::InitBuffer", "buffer length is 0");
        rec_ = pipe.Carve("TPipe::InitBuffer", pos, len, nullptr, 0);
        gen_ = rec_->generation;
    }

private:
    actgrad_sim::BufferRecord* Live(const char* api) {
        if (rec_ == nullptr) actgrad_sim::Fail(actgrad_sim::ErrorKind::InvalidArgument, api, "InitBuffer was not called for this TBuf");
        if (rec_->generation != gen_)
            actgrad_sim::Fail(actgrad_sim::ErrorKind::UseAfterFree, api, "the TBuf was released by TPipe::Reset");
        return rec_;
    }
    template <typename T>
    LocalTensor<T> Make(actgrad_sim::BufferRecord* r, uint32_t off, uint32_t bytes) {
        LocalTensor<T> t;
        t.Bind(reinterpret_cast<PrimT<T>*>(actgrad_sim::tlBlock->ub + r->offset + off), bytes, r, r->generation);
        return t;
    }
    actgrad_sim::BufferRecord* rec_ = nullptr;
    uint32_t gen_ = 0;
};

class TPipe {
public:
    TPipe() { state_.owner = this; }
    template <class T>
    bool InitBuffer(T& que, uint8_t num, uint32_t len) {
        que.Attach(state_, num, len);
        return true;
    }
    template <TPosition bufPos>
    bool InitBuffer(TBuf<bufPos>& buf, uint32_t len) {
        buf.Attach(state_, len);
        return true;
    }
    void Reset() { state_.Reset(); }
    void Destroy() { state_.Release(); }

    // A free event ID of `evt` (the manual SetFlag/WaitFlag idiom); IDs are not reserved.
    TEventID FetchEventID(HardEvent evt) {
        const actgrad_sim::BlockContext& ctx = actgrad_sim::Block("TPipe::FetchEventID");
        for (uint32_t id = 0; id < ctx.soc().eventIds; ++id)
            if (!ctx.FlagIsSet(uint32_t(evt), id)) return TEventID(id);
        actgrad_sim::Fail(actgrad_sim::ErrorKind::QueueProtocol, "TPipe::FetchEventID", "every event ID of event ",
                          int(evt), " is set and not yet waited for");
    }
    template <HardEvent evt>
    TEventID FetchEventID() { return FetchEventID(evt); }
    template <HardEvent evt>
    TEventID AllocEventID() { return FetchEventID(evt); }
    template <HardEvent evt>
    void ReleaseEventID(TEventID) {}

private:
    actgrad_sim::TPipeState state_;
};

inline TPipe* GetTPipePtr() { return static_cast<TPipe*>(actgrad_sim::CurrentPipe("GetTPipePtr").owner); }

}  // namespace AscendC
