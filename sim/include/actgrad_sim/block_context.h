// Per-launch and per-block state of the twin: which SoC, which block, the UB arena, pipe sync counters, statistics.
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "error.h"
#include "soc.h"

namespace AscendC {
enum class HardEvent : uint8_t {
    MTE2_MTE1, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V, MTE3_MTE1, MTE1_MTE3,
    MTE1_V, MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_MTE2, MTE2_MTE3, S_V, V_S, S_MTE2, MTE2_S, S_MTE3, MTE3_S,
    MTE2_FIX, FIX_MTE2, FIX_S, M_S, FIX_MTE3, MTE1_FIX, FIX_MTE1, FIX_FIX, MAX
};
}  // namespace AscendC

namespace actgrad_sim {

constexpr uint32_t kBlockBytes = 32;    // one DataBlock
constexpr uint32_t kRepeatBytes = 256;  // one vector repeat
constexpr uint32_t kMaxUbBytes = 262144;
constexpr uint32_t kMaxBuffers = 64;    // QBUF_MAX_LEN
constexpr int kEventCount = int(AscendC::HardEvent::MAX);
constexpr uint32_t kMaxEventIds = 8;    // IDs per event on every profile (a bit each in BlockContext::flagsSet)

struct BlockStats {
    uint32_t block = 0;
    uint64_t gmBytesRead = 0;
    uint64_t gmBytesWritten = 0;
    uint64_t dmaTransfers = 0;       // DataCopy / DataCopyPad calls that moved bytes between GM and UB
    uint64_t dmaBytesMin = 0;
    uint64_t dmaBytesMax = 0;
    uint64_t vectorInstructions = 0;
    uint32_t ubHighWater = 0;        // bytes of UB the pipe had carved at its peak
};

struct GmRegion {
    uintptr_t begin;
    uintptr_t end;
};

// Allocations the launcher knows: GmAlloc'd buffers plus regions a caller registers for one launch.
class GmRegistry {
public:
    static GmRegistry& Instance() { static GmRegistry r; return r; }
    void Add(const void* p, size_t bytes) {
        std::lock_guard<std::mutex> lock(mutex_);
        regions_[uintptr_t(p)] = bytes;
    }
    bool Remove(const void* p) {
        std::lock_guard<std::mutex> lock(mutex_);
        return regions_.erase(uintptr_t(p)) == 1;
    }
    std::vector<GmRegion> Snapshot() const {
        std::lock_guard<std::mutex> lock(mutex_);
        std::vector<GmRegion> out;
        for (const auto& kv : regions_) out.push_back({kv.first, kv.first + kv.second});
        return out;
    }

private:
    mutable std::mutex mutex_;
    std::map<uintptr_t, size_t> regions_;
};

struct LaunchContext {
    const SocProfile* soc = nullptr;
    std::string kernel;
    uint32_t blockDim = 0;
    std::vector<GmRegion> regions;  // sorted by begin

    // The allocation that holds [p, p+bytes), or null.
    const GmRegion* FindRegion(uintptr_t p, uint64_t bytes) const {
        auto it = std::upper_bound(regions.begin(), regions.end(), p,
                                   [](uintptr_t v, const GmRegion& r) { return v < r.begin; });
        if (it == regions.begin()) return nullptr;
        --it;
        if (p >= it->begin && p + bytes <= it->end) return &*it;
        return nullptr;
    }
};

class TPipeState;

// How many deferred widenings have their f32 result (dst) or their bf16/f16 source (src) in one UB buffer, and how
// many deferred GM -> UB copies land in it: an operand check looks at the tables only where one does (a read where dst
// or a copy does, a write where any does).
struct DeferredRefs {
    uint32_t dst = 0;
    uint32_t src = 0;
    uint32_t copies = 0;
};

// A bf16 or f16 -> f32 Cast the twin has not stored yet (deferred_widen.h).
struct DeferredWiden {
    float* dst;
    const uint16_t* src;
    uint32_t count;
    DeferredRefs* dstRefs;  // of the buffer holding dst
    DeferredRefs* srcRefs;  // of the buffer holding src
    bool half;              // src holds f16 patterns, else bf16
};
constexpr uint32_t kMaxDeferred = 8;

// A GM -> UB copy the twin has not stored yet (deferred_copy.h): UB bytes [ub, ub + bytes) hold GM [gm, gm + bytes).
struct DeferredCopy {
    uint8_t* ub;
    const uint8_t* gm;
    uint64_t bytes;
    DeferredRefs* refs;  // of the buffer holding ub
};

struct BlockContext {
    const LaunchContext* launch = nullptr;
    uint32_t blockIdx = 0;
    uint8_t* ub = nullptr;          // this block's unified buffer
    TPipeState* pipe = nullptr;     // the one live TPipe
    bool saturateFloat = true;      // SaturationMode::FLOAT: half/bf16 results of float compute
    bool saturateCast = true;       // SaturationMode::CAST: float -> half/bf16 conversions
    uint64_t seq = 0;               // ordinal of the last pipe operation, for the sync tracker
    uint64_t synced[kEventCount] = {};  // every write with seq <= synced[e] is visible across event e
    // SetFlag/WaitFlag: bit id of flagsSet[e] is set from SetFlag<e>(id) until its WaitFlag, and flagSeq[e][id] holds
    // that SetFlag's seq. flagSeq is read only while its bit is set, so a block starts with 35 bytes to clear, not 4 KiB.
    uint8_t flagsSet[kEventCount] = {};
    uint64_t flagSeq[kEventCount][kMaxEventIds];
    bool FlagIsSet(uint32_t event, uint32_t id) const { return (flagsSet[event] >> id & 1u) != 0; }
    uint32_t queueEventsInFlight[kEventCount] = {};  // event IDs held by EnQue'd buffers
    DeferredWiden deferred[kMaxDeferred];  // the first deferredCount are live
    uint32_t deferredCount = 0;
    DeferredRefs orphanRefs;  // widenings whose buffers a TPipe::Reset or the TPipe's end took away
    DeferredRefs gmRefs;      // widenings whose 16-bit source a deferred copy left in GM
    DeferredCopy copies[kMaxDeferred];  // the first copyCount are live
    uint32_t copyCount = 0;
    BlockStats stats;
    std::vector<GmRegion> gmWrites;  // merged write ranges, checked across blocks after the launch

    const SocProfile& soc() const { return *launch->soc; }
    uint64_t NextSeq() { return ++seq; }

    void RecordDma(uint64_t bytes, uint64_t transfers = 1) {
        if (transfers == 0) return;
        stats.dmaBytesMin = stats.dmaTransfers == 0 ? bytes : std::min(stats.dmaBytesMin, bytes);
        stats.dmaTransfers += transfers;
        stats.dmaBytesMax = std::max(stats.dmaBytesMax, bytes);
    }
    void RecordGmWrite(uintptr_t p, uint64_t bytes) {
        stats.gmBytesWritten += bytes;
        if (!gmWrites.empty() && gmWrites.back().end == p) {
            gmWrites.back().end = p + bytes;
        } else {
            gmWrites.push_back({p, p + bytes});
        }
    }
};

// Every API call reads the block pointer; in a shared object the default TLS model makes each read a call to
// __tls_get_addr, initial-exec makes it one load (glibc keeps static TLS room for a pointer of a dlopen'ed library).
#if defined(__GNUC__)
inline thread_local BlockContext* tlBlock __attribute__((tls_model("initial-exec"))) = nullptr;
#else
inline thread_local BlockContext* tlBlock = nullptr;
#endif

// Every access of this block with a sequence number up to `seq` is visible across event e: a SetFlag/WaitFlag of e or
// a barrier came after it (operand_checks.h's Ordered adds a buffer's own queue synchronisation).
inline bool SyncedAcross(AscendC::HardEvent e, uint64_t seq) { return seq <= tlBlock->synced[int(e)]; }

inline std::string CurrentLocation() {
    if (tlBlock == nullptr || tlBlock->launch == nullptr) return "outside a kernel launch";
    return "kernel '" + tlBlock->launch->kernel + "' block " + std::to_string(tlBlock->blockIdx) + "/" +
           std::to_string(tlBlock->launch->blockDim) + " on " + tlBlock->launch->soc->name;
}

inline BlockContext& Block(const char* api) {
    if (tlBlock == nullptr) Fail(ErrorKind::Launch, api, "called outside a kernel launch (use ICPU_RUN_KF or actgrad_sim::Launch)");
    return *tlBlock;
}

}  // namespace actgrad_sim
