#include "twin_launch.h"

#include <stdexcept>

#include "lower_attrs.h"

#define ACTGRAD_OP(OpType, name, Functor) extern "C" void name(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
#include "op_registry.inc"
#undef ACTGRAD_OP

namespace actgrad {
namespace {

using KernelFn = void (*)(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);

struct TwinKernel {
    const char* opType;
    const char* name;
    KernelFn kernel;
};

const TwinKernel kKernels[] = {
#define ACTGRAD_OP(OpType, name, Functor) {#OpType, #name, &name},
#include "op_registry.inc"
#undef ACTGRAD_OP
};

const TwinKernel& FindKernel(const std::string& opType) {
    for (const auto& k : kKernels)
        if (opType == k.opType) return k;
    throw std::invalid_argument("unknown actgrad operator '" + opType + "'");
}

constexpr uint64_t kSystemUbReserve = 256;

}  // namespace

SocResources TwinSocResources(const actgrad_sim::SocProfile& soc) {
    return SocResources{soc.aivCores, uint64_t(soc.ubBytes) - soc.ubReservedBytes - kSystemUbReserve};
}

ElementwiseGradTiling PlanOnTwin(const std::string& opType, uint64_t numel, DtypeKey dtype, const std::string& soc,
                                 const std::vector<double>& attrs) {
    ElementwiseGradTiling t =
        ComputeTiling(numel, dtype, TwinSocResources(actgrad_sim::FindSoc(soc)), FunctorNeedsOf(opType));
    LowerAttrs(opType, attrs.data(), attrs.size(), t);
    return t;
}

actgrad_sim::LaunchStats RunOnTwin(const std::string& opType, void* in0, void* in1, void* out, uint64_t numel,
                                   DtypeKey dtype, const std::vector<double>& attrs, const std::string& soc,
                                   uint32_t threads) {
    const TwinKernel& k = FindKernel(opType);
    ElementwiseGradTiling tiling = PlanOnTwin(opType, numel, dtype, soc, attrs);
    const uint64_t bytes = numel * DtypeSize(dtype);
    actgrad_sim::LaunchOptions options;
    options.threads = threads;
    options.soc = &actgrad_sim::FindSoc(soc);
    for (void* p : {in0, in1, out}) options.gmRegions.push_back({uintptr_t(p), uintptr_t(p) + bytes});
    return actgrad_sim::Launch(k.name, k.kernel, tiling.blockDim, options, GM_ADDR(in0), GM_ADDR(in1), GM_ADDR(out),
                               GM_ADDR(nullptr), reinterpret_cast<GM_ADDR>(&tiling));
}

}  // namespace actgrad
