// SetFlag / WaitFlag / PipeBarrier, the saturation switch and the block-identity queries.
#pragma once
#include "pipe.h"

// The pipes, at global scope where the vendor compiler declares them (kernels write PipeBarrier<PIPE_MTE3>());
// the values are the twin's own.
enum pipe_t { PIPE_S = 1, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_FIX, PIPE_ALL = 10 };

namespace AscendC {

enum class SaturationMode : uint8_t { FLOAT = 0, CAST, INT };

}  // namespace AscendC

namespace actgrad_sim {

// Events between the four AIV pipes; anything else belongs to the cube core.
constexpr bool IsVectorCoreEvent(AscendC::HardEvent e) {
    using E = AscendC::HardEvent;
    return e == E::MTE2_V || e == E::V_MTE2 || e == E::MTE3_V || e == E::V_MTE3 || e == E::V_V || e == E::MTE3_MTE2 ||
           e == E::MTE2_MTE3 || e == E::S_V || e == E::V_S || e == E::S_MTE2 || e == E::MTE2_S || e == E::S_MTE3 ||
           e == E::MTE3_S;
}

// The block, once event e and ID id are ones a vector core has.
inline BlockContext& FlagBlock(AscendC::HardEvent e, int32_t id, const char* api) {
    BlockContext& ctx = Block(api);
    if (!IsVectorCoreEvent(e))
        Fail(ErrorKind::Unsupported, api, "event ", int(e), " connects cube-core pipes; a vector core has S, V, MTE2, MTE3");
    if (id < 0 || uint32_t(id) >= ctx.soc().eventIds)
        Fail(ErrorKind::InvalidArgument, api, "event ID ", id, " is outside [0, ", ctx.soc().eventIds, ")");
    return ctx;
}

// Called by the launcher when a block returns: an unpaired SetFlag leaves state that corrupts later kernels.
inline void CheckFlagsDrained() {
    BlockContext& ctx = *tlBlock;
    for (int e = 0; e < kEventCount; ++e)
        for (uint32_t id = 0; id < kMaxEventIds; ++id)
            if (ctx.FlagIsSet(uint32_t(e), id))
                Fail(ErrorKind::MissingSync, "kernel end", "SetFlag on event ", e, " ID ", id, " was never waited for");
}

}  // namespace actgrad_sim

namespace AscendC {

template <HardEvent event>
void SetFlag(int32_t eventID) {
    actgrad_sim::BlockContext& ctx = actgrad_sim::FlagBlock(event, eventID, "SetFlag");
    if (ctx.FlagIsSet(uint32_t(event), uint32_t(eventID)))
        actgrad_sim::Fail(actgrad_sim::ErrorKind::MissingSync, "SetFlag", "event ", int(event), " ID ", eventID,
                          " is set twice without a WaitFlag in between");
    ctx.flagsSet[int(event)] = uint8_t(ctx.flagsSet[int(event)] | 1u << eventID);
    ctx.flagSeq[int(event)][eventID] = ctx.seq;
}

template <HardEvent event>
void WaitFlag(int32_t eventID) {
    actgrad_sim::BlockContext& ctx = actgrad_sim::FlagBlock(event, eventID, "WaitFlag");
    if (!ctx.FlagIsSet(uint32_t(event), uint32_t(eventID)))
        actgrad_sim::Fail(actgrad_sim::ErrorKind::MissingSync, "WaitFlag", "event ", int(event), " ID ", eventID,
                          " was never set (the NPU would hang)");
    ctx.flagsSet[int(event)] = uint8_t(ctx.flagsSet[int(event)] & ~(1u << eventID));
    uint64_t& synced = ctx.synced[int(event)];
    synced = std::max(synced, ctx.flagSeq[int(event)][eventID]);
}

template <pipe_t pipe>
void PipeBarrier() {
    static_assert(pipe != PIPE_S, "PipeBarrier<PIPE_S> is not allowed");
    auto& ctx = actgrad_sim::Block("PipeBarrier");
    if (pipe == PIPE_ALL)
        for (uint64_t& s : ctx.synced) s = ctx.seq;
}

template <SaturationMode mode>
void SetSaturationFlag(bool enableSat) {
    auto& ctx = actgrad_sim::Block("SetSaturationFlag");
    if (mode == SaturationMode::FLOAT) ctx.saturateFloat = enableSat;
    if (mode == SaturationMode::CAST) ctx.saturateCast = enableSat;
}
template <SaturationMode mode>
bool GetSaturationFlag() {
    auto& ctx = actgrad_sim::Block("GetSaturationFlag");
    return mode == SaturationMode::FLOAT ? ctx.saturateFloat : (mode == SaturationMode::CAST ? ctx.saturateCast : true);
}

inline int64_t GetBlockIdx() { return actgrad_sim::Block("GetBlockIdx").blockIdx; }
inline int64_t GetBlockNum() { return actgrad_sim::Block("GetBlockNum").launch->blockDim; }
inline int64_t GetSubBlockIdx() { return 0; }
inline int64_t GetSubBlockNum() { return 1; }
inline constexpr uint32_t GetDataBlockSizeInBytes() { return 32; }

}  // namespace AscendC
