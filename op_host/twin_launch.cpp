#include "twin_launch.h"

#include <limits>
#include <stdexcept>
#include <string>

#include "lower_attrs.h"

#define ACTGRAD_OP(OpType, kernel, Functor, KnownAs) extern "C" void kernel(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
#define ACTGRAD_ROW_OP ACTGRAD_OP
#include "op_registry.inc"
#include "row_op_registry.inc"
#undef ACTGRAD_ROW_OP
#undef ACTGRAD_OP

namespace actgrad {
namespace {

using KernelFn = void (*)(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);

struct TwinKernel {
    const char* opType;
    const char* name;
    KernelFn kernel;
    bool rows;  // a row reduction (row_grad.h), else elementwise (elementwise_grad.h)
};

const TwinKernel kKernels[] = {
#define ACTGRAD_OP(OpType, kernel, Functor, KnownAs) {#OpType, #kernel, &kernel, false},
#define ACTGRAD_ROW_OP(OpType, kernel, Functor, KnownAs) {#OpType, #kernel, &kernel, true},
#include "op_registry.inc"
#include "row_op_registry.inc"
#undef ACTGRAD_ROW_OP
#undef ACTGRAD_OP
};

// The operator's kernel; `rows`: the launch is a row reduction's (RunRowsOnTwin), else an elementwise one's.
const TwinKernel& FindKernel(const std::string& opType, bool rows) {
    for (const auto& k : kKernels) {
        if (opType != k.opType) continue;
        if (k.rows != rows)
            throw std::invalid_argument("actgrad operator '" + opType + "' is " +
                                        (k.rows ? "a row reduction: launch it with launch_rows"
                                                : "elementwise: launch it with launch"));
        return k;
    }
    throw std::invalid_argument("unknown actgrad operator '" + opType + "'");
}

}  // namespace

SocResources TwinSocResources(const actgrad_sim::SocProfile& soc) {
    // what PlatformAscendC reports: on A2/A3 the UB size less the 256 B the system keeps
    const uint64_t platformUb = soc.npuArch == 2201 ? soc.ubBytes - 256 : soc.ubBytes;
    return SocResources{soc.aivCores, platformUb - soc.ubReservedBytes};
}

// The kernels move unaligned tails with DataCopyPad and widen bf16 with Cast: a SoC without them is not a target
// (the CANN OpDef configures ascend910b and ascend910_93 only). Reject before anything is written.
static void RequireKernelTarget(const actgrad_sim::SocProfile& soc, const std::string& opType) {
    if (!soc.dataCopyPad)
        throw actgrad_sim::SimError(actgrad_sim::ErrorKind::Unsupported,
                                    opType + ": actgrad's kernels need DataCopyPad, which " + soc.name +
                                        " lacks; run on an Atlas A2/A3 profile (Ascend910B1-B4, Ascend910_93) or Ascend950");
}

ElementwiseGradTiling PlanBlocksOnTwin(const std::string& opType, uint64_t numel, DtypeKey dtype,
                                       const std::string& soc) {
    const actgrad_sim::SocProfile& profile = actgrad_sim::FindSoc(soc);
    RequireKernelTarget(profile, opType);
    return ComputeTiling(numel, dtype, TwinSocResources(profile), FunctorNeedsOf(opType));
}

ElementwiseGradTiling PlanOnTwin(const std::string& opType, uint64_t numel, DtypeKey dtype, const std::string& soc,
                                 const std::vector<double>& attrs) {
    ElementwiseGradTiling t = PlanBlocksOnTwin(opType, numel, dtype, soc);
    LowerAttrs(opType, attrs.data(), attrs.size(), t);
    return t;
}

actgrad_sim::LaunchStats RunOnTwin(const std::string& opType, void* in0, void* in1, void* out, uint64_t numel,
                                   DtypeKey dtype, const std::vector<double>& attrs, const std::string& soc,
                                   actgrad_sim::LaunchOptions options) {
    const TwinKernel& k = FindKernel(opType, false);
    ElementwiseGradTiling tiling = PlanOnTwin(opType, numel, dtype, soc, attrs);
    const uint64_t bytes = numel * DtypeSize(dtype);
    options.soc = &actgrad_sim::FindSoc(soc);
    for (void* p : {in0, in1, out}) options.gmRegions.push_back({uintptr_t(p), uintptr_t(p) + bytes});
    return actgrad_sim::Launch(k.name, k.kernel, tiling.blockDim, options, GM_ADDR(in0), GM_ADDR(in1), GM_ADDR(out),
                               GM_ADDR(nullptr), reinterpret_cast<GM_ADDR>(&tiling));
}

RowGradTiling PlanRowsOnTwin(const std::string& opType, uint64_t outer, uint64_t rowLength, uint64_t inner,
                             DtypeKey dtype, const std::string& soc) {
    FindKernel(opType, true);
    const actgrad_sim::SocProfile& profile = actgrad_sim::FindSoc(soc);
    RequireKernelTarget(profile, opType);
    return ComputeRowTiling(outer, rowLength, inner, dtype, TwinSocResources(profile));
}

actgrad_sim::LaunchStats RunRowsOnTwin(const std::string& opType, void* in0, void* in1, void* out, uint64_t outer,
                                       uint64_t rowLength, uint64_t inner, DtypeKey dtype, const std::string& soc,
                                       actgrad_sim::LaunchOptions options) {
    const TwinKernel& k = FindKernel(opType, true);
    RowGradTiling tiling = PlanRowsOnTwin(opType, outer, rowLength, inner, dtype, soc);
    const uint64_t bytes = outer * rowLength * inner * DtypeSize(dtype);
    options.soc = &actgrad_sim::FindSoc(soc);
    for (void* p : {in0, in1, out}) options.gmRegions.push_back({uintptr_t(p), uintptr_t(p) + bytes});
    return actgrad_sim::Launch(k.name, k.kernel, tiling.blockDim, options, GM_ADDR(in0), GM_ADDR(in1), GM_ADDR(out),
                               GM_ADDR(nullptr), reinterpret_cast<GM_ADDR>(&tiling));
}

}  // namespace actgrad
