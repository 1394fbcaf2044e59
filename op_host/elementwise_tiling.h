// Host tiling of the elementwise-grad kernel as a pure function: the CANN TilingFunc and the twin both call it.
#pragma once
#include <cstdint>

#include "../op_kernel/elementwise_grad_tiling.h"
#include "../op_kernel/functors/functor_needs.h"

namespace actgrad {

struct SocResources {
    uint32_t aivCores;  // vector cores a launch may use (GetCoreNumAiv)
    uint64_t ubBytes;   // UB the kernel may carve into buffers, reserves already taken off
};

constexpr uint64_t kMinBytesPerBlock = 4096;  // below this a core costs more to start than it saves

// On A2/A3, Select modes 1/2 use the top 8 KiB of UB as scratch: the kernel's buffers must stay below it.
// (PlatformAscendC's UB size already excludes the 256 B the system keeps.)
constexpr uint64_t kA2SelectScratchBytes = 8192;

uint32_t DtypeSize(DtypeKey dtype);

// UB the kernel carves for this tiling (equals the twin's UB high-water mark).
uint64_t UbBytesUsed(const ElementwiseGradTiling& t);

// numel > 0. Throws std::invalid_argument when not even one granule of a tile fits in UB.
ElementwiseGradTiling ComputeTiling(uint64_t numel, DtypeKey dtype, const SocResources& soc, const FunctorNeeds& needs);

}  // namespace actgrad
