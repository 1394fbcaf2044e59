// The vendor's CPU-debug entry points (ICPU_RUN_KF and friends) on top of the twin's launcher, so kernel unit
// tests written for the vendor CPU mode run unchanged. Unlike the vendor's, a failing block throws to the caller.
#pragma once
#include <cstdlib>
#include <string>

#include "kernel_operator.h"

enum class KernelMode { MIX_MODE = 0, AIC_MODE, AIV_MODE };

namespace actgrad_sim {

inline KernelMode& CurrentKernelMode() {
    static KernelMode mode = KernelMode::MIX_MODE;
    return mode;
}

template <typename Kernel, typename... Args>
void RunKernelFunction(const char* name, Kernel kernel, uint32_t blockDim, Args... args) {
    const SocProfile& soc = CurrentSoc();
    auto reject = [&](const auto&... why) {
        std::ostringstream os;
        os << "[actgrad-sim] kernel '" << name << "' on " << soc.name << ": ";
        (os << ... << why);
        os << " (" << ErrorKindName(ErrorKind::Launch) << ")";
        throw SimError(ErrorKind::Launch, os.str());
    };
    if (soc.npuArch != 2002 && CurrentKernelMode() != KernelMode::AIV_MODE)
        reject("the twin runs vector kernels only; call AscendC::SetKernelMode(KernelMode::AIV_MODE) before ICPU_RUN_KF");
    if (soc.cpuDebugAivBlocks != 0 && blockDim > soc.cpuDebugAivBlocks)
        reject("blockDim ", blockDim, " exceeds the max core num of ", soc.name, ": the vendor's CPU-debug launcher "
               "(ICPU_RUN_KF) takes at most ", soc.cpuDebugAivBlocks, " blocks for an AIV kernel");
    Launch(name, kernel, blockDim, LaunchOptions{}, args...);
}

}  // namespace actgrad_sim

namespace AscendC {

inline void SetKernelMode(KernelMode mode) { actgrad_sim::CurrentKernelMode() = mode; }

// GM for a kernel test: registered with the launcher, so accesses past `size` bytes are caught.
inline void* GmAlloc(size_t size) {
    void* p = std::aligned_alloc(64, (size + 63) / 64 * 64 + 64);
    if (p == nullptr) throw std::bad_alloc();
    actgrad_sim::GmRegistry::Instance().Add(p, size);
    return p;
}

inline void GmFree(void* ptr) {
    if (!actgrad_sim::GmRegistry::Instance().Remove(ptr))
        throw actgrad_sim::SimError(actgrad_sim::ErrorKind::Launch, "[actgrad-sim] GmFree: pointer was not returned by GmAlloc (or freed twice)");
    std::free(ptr);
}

}  // namespace AscendC

#define ICPU_SET_TILING_KEY(tilingKey) (g_tilingKey = uint64_t(tilingKey))
#define ICPU_RUN_KF(func, blockDim, ...) actgrad_sim::RunKernelFunction(#func, func, blockDim, __VA_ARGS__)
