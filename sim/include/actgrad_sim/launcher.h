// Runs a kernel on blockDim simulated vector cores. Blocks are spread over a persistent worker pool (the calling
// thread takes part), each with its own UB arena and pipe state, so results do not depend on the thread count.
// The first error of the lowest failing block reaches the caller; GM writes of different blocks may not overlap.
#pragma once
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "sync.h"

namespace actgrad_sim {

struct LaunchStats {
    std::string kernel;
    std::string soc;
    uint32_t blockDim = 0;
    uint32_t threads = 0;
    std::vector<BlockStats> blocks;
};

struct LaunchOptions {
    uint32_t threads = 0;              // 0: DefaultThreads(); 1: sequential on the calling thread
    std::vector<GmRegion> gmRegions;   // GM the caller owns for this launch, besides GmAlloc'd memory
    const SocProfile* soc = nullptr;   // null: CurrentSoc()
    // Runs job(worker) for worker in [0, workers) in parallel and returns when all are done; null: the twin's
    // own WorkerPool. A host framework passes its thread pool here, so the twin does not compete with it.
    std::function<void(uint32_t workers, const std::function<void(uint32_t)>& job)> runWorkers;
};

class WorkerPool {
public:
    static WorkerPool& Instance() {
        static WorkerPool pool;
        return pool;
    }
    // Runs job(worker) on `n` workers, worker 0 being the calling thread; returns when all are done.
    void Run(uint32_t n, const std::function<void(uint32_t)>& job) {
        std::unique_lock<std::mutex> runLock(runMutex_);  // one launch at a time uses the pool
        {
            std::lock_guard<std::mutex> lock(mutex_);
            while (threads_.size() + 1 < n) {
                const uint32_t id = uint32_t(threads_.size()) + 1;
                threads_.emplace_back([this, id] { Loop(id); });
            }
            job_ = &job;
            active_ = n;
            pending_ = n - 1;
            generation_++;
        }
        wake_.notify_all();
        job(0);
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [this] { return pending_ == 0; });
        job_ = nullptr;
    }
    ~WorkerPool() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        wake_.notify_all();
        for (auto& t : threads_) t.join();
    }

private:
    void Loop(uint32_t id) {
        uint64_t seen = 0;
        for (;;) {
            const std::function<void(uint32_t)>* job;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [&] { return stop_ || (generation_ != seen && id < active_); });
                if (stop_) return;
                seen = generation_;
                job = job_;
            }
            (*job)(id);
            {
                std::lock_guard<std::mutex> lock(mutex_);
                if (--pending_ == 0) done_.notify_all();
            }
        }
    }
    std::mutex runMutex_, mutex_;
    std::condition_variable wake_, done_;
    std::vector<std::thread> threads_;
    const std::function<void(uint32_t)>* job_ = nullptr;
    uint32_t active_ = 0, pending_ = 0;
    uint64_t generation_ = 0;
    bool stop_ = false;
};

inline uint8_t* ThreadUbArena() {
    struct Arena {
        uint8_t* p = static_cast<uint8_t*>(std::aligned_alloc(64, kMaxUbBytes));
        ~Arena() { std::free(p); }
    };
    static thread_local Arena arena;
    return arena.p;
}

inline LaunchStats& LastLaunchStatsRef() {
    static thread_local LaunchStats stats;
    return stats;
}
// Statistics of the calling thread's most recent launch.
inline const LaunchStats& LastLaunchStats() { return LastLaunchStatsRef(); }

// `regions` sorted by start and merged where they touch or overlap.
inline void SortAndMergeRegions(std::vector<GmRegion>& regions) {
    const auto byBegin = [](const GmRegion& a, const GmRegion& b) { return a.begin < b.begin; };
    if (!std::is_sorted(regions.begin(), regions.end(), byBegin)) std::sort(regions.begin(), regions.end(), byBegin);
    size_t kept = 0;
    for (const GmRegion& r : regions) {
        if (kept > 0 && r.begin <= regions[kept - 1].end) regions[kept - 1].end = std::max(regions[kept - 1].end, r.end);
        else regions[kept++] = r;
    }
    regions.resize(kept);
}

// `writes` holds each block's write ranges merged (SortAndMergeRegions, in the block's worker, so that a column-chunk
// row kernel's one range per DMA burst is not sorted here): two ranges that overlap belong to two blocks.
inline void CheckGmWriteConflicts(const LaunchContext& launch, const std::vector<std::vector<GmRegion>>& writes) {
    struct W { GmRegion r; uint32_t block; };
    std::vector<W> all;
    for (uint32_t b = 0; b < writes.size(); ++b)
        for (const auto& r : writes[b]) all.push_back({r, b});
    std::sort(all.begin(), all.end(), [](const W& a, const W& b) { return a.r.begin < b.r.begin; });
    uintptr_t maxEnd = 0;
    uint32_t owner = 0;
    for (const auto& w : all) {
        if (w.r.begin < maxEnd) {
            std::ostringstream os;
            os << "[actgrad-sim] kernel '" << launch.kernel << "' on " << launch.soc->name << ": blocks " << owner
               << " and " << w.block << " both write GM bytes [" << (const void*)w.r.begin << ", "
               << (const void*)std::min(maxEnd, w.r.end) << ") in one launch (" << ErrorKindName(ErrorKind::GmWriteConflict) << ")";
            throw SimError(ErrorKind::GmWriteConflict, os.str());
        }
        if (w.r.end > maxEnd) {
            maxEnd = w.r.end;
            owner = w.block;
        }
    }
}

// Largest $ACTGRAD_SIM_THREADS: no launch has more blocks (SocProfile::maxAivBlocks), so no more workers are used.
constexpr uint32_t kMaxSimThreads = 65535;

// $ACTGRAD_SIM_THREADS: the worker count of a launch given none (LaunchOptions::threads == 0). Unset or empty: no
// setting (0 here). Otherwise a decimal integer from 1 to kMaxSimThreads, digits only; anything else (0, -3, abc, 2x)
// throws std::invalid_argument naming the variable and its value, at the launch that reads it.
inline uint32_t EnvThreads() {
    const char* env = std::getenv("ACTGRAD_SIM_THREADS");
    if (env == nullptr || *env == '\0') return 0;
    uint64_t n = 0;
    bool valid = true;
    for (const char* c = env; *c != '\0' && valid; ++c) {
        valid = *c >= '0' && *c <= '9';
        n = n * 10 + uint64_t(*c - '0');
        valid = valid && n <= kMaxSimThreads;
    }
    if (!valid || n == 0)
        throw std::invalid_argument(std::string("$ACTGRAD_SIM_THREADS='") + env +
                                    "' is not a thread count: expected an integer from 1 to " +
                                    std::to_string(kMaxSimThreads) + " (unset or empty for the default)");
    return uint32_t(n);
}

// Workers of a launch given none: $ACTGRAD_SIM_THREADS, else one per hardware thread.
inline uint32_t DefaultThreads() {
    if (const uint32_t n = EnvThreads()) return n;
    return std::max(1u, std::thread::hardware_concurrency());
}

// Runs `body(blockIdx)` as the kernel body of every block.
inline LaunchStats LaunchBlocks(const std::string& kernel, uint32_t blockDim, const LaunchOptions& options,
                                const std::function<void()>& body) {
    LaunchContext launch;
    launch.soc = options.soc != nullptr ? options.soc : &CurrentSoc();
    launch.kernel = kernel;
    launch.blockDim = blockDim;
    if (blockDim == 0 || blockDim > launch.soc->maxAivBlocks) {
        std::ostringstream os;
        os << "[actgrad-sim] kernel '" << kernel << "': blockDim " << blockDim << " is outside [1, "
           << launch.soc->maxAivBlocks << "] (" << ErrorKindName(ErrorKind::Launch) << ")";
        throw SimError(ErrorKind::Launch, os.str());
    }
    launch.regions = GmRegistry::Instance().Snapshot();
    launch.regions.insert(launch.regions.end(), options.gmRegions.begin(), options.gmRegions.end());
    // a caller's region may lie inside (or overlap) a GmAlloc'd one: merge, so lookups see the whole allocation
    SortAndMergeRegions(launch.regions);

    const uint32_t threads = std::min(blockDim, options.threads == 0 ? DefaultThreads() : options.threads);
    std::vector<BlockStats> stats(blockDim);
    std::vector<std::vector<GmRegion>> writes(blockDim);
    std::vector<std::exception_ptr> errors(blockDim);
    std::atomic<uint32_t> next{0};
    std::atomic<bool> failed{false};

    auto worker = [&](uint32_t) {
        uint8_t* ub = ThreadUbArena();
        // once a block failed no new block is claimed, but a claimed one always runs: every block below the
        // lowest failing one has run, so that block's error is the one reported whatever the thread count
        for (;;) {
            if (failed) break;
            const uint32_t b = next++;
            if (b >= blockDim) break;
            BlockContext ctx;
            ctx.launch = &launch;
            ctx.blockIdx = b;
            ctx.ub = ub;
            ctx.saturateFloat = ctx.saturateCast = launch.soc->saturationDefault;
            ctx.stats.block = b;
            BlockContext* saved = tlBlock;
            tlBlock = &ctx;
            try {
                body();
                CheckFlagsDrained();
            } catch (...) {
                errors[b] = std::current_exception();
                failed = true;
            }
            tlBlock = saved;
            stats[b] = ctx.stats;
            writes[b] = std::move(ctx.gmWrites);
            SortAndMergeRegions(writes[b]);
        }
    };
    if (threads <= 1) {
        worker(0);
    } else if (options.runWorkers) {
        options.runWorkers(threads, worker);
    } else {
        WorkerPool::Instance().Run(threads, worker);
    }
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);
    CheckGmWriteConflicts(launch, writes);

    LaunchStats result;
    result.kernel = kernel;
    result.soc = launch.soc->name;
    result.blockDim = blockDim;
    result.threads = threads;
    result.blocks = std::move(stats);
    LastLaunchStatsRef() = result;
    return result;
}

template <typename Kernel, typename... Args>
LaunchStats Launch(const std::string& name, Kernel kernel, uint32_t blockDim, const LaunchOptions& options, Args... args) {
    return LaunchBlocks(name, blockDim, options, [&] { kernel(args...); });
}

}  // namespace actgrad_sim
