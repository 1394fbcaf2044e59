// Runs an actgrad operator's Ascend C kernel on the CPU twin: tiling, attribute lowering, launch.
#pragma once
#include <string>
#include <vector>

#include "elementwise_tiling.h"
#include "row_tiling.h"
#include "kernel_operator.h"

namespace actgrad {

// The block split and tile size on `soc` (no functor parameters); throws for a SoC the kernels do not target.
ElementwiseGradTiling PlanBlocksOnTwin(const std::string& opType, uint64_t numel, DtypeKey dtype,
                                       const std::string& soc);

// The tiling the kernel gets on `soc` (attributes lowered and validated).
ElementwiseGradTiling PlanOnTwin(const std::string& opType, uint64_t numel, DtypeKey dtype, const std::string& soc,
                                 const std::vector<double>& attrs);

// in0/in1 in IR order, out: numel elements of `dtype` each, out may alias the gradient input.
actgrad_sim::LaunchStats RunOnTwin(const std::string& opType, void* in0, void* in1, void* out, uint64_t numel,
                                   DtypeKey dtype, const std::vector<double>& attrs, const std::string& soc,
                                   actgrad_sim::LaunchOptions options);

// The tiling of a row-reduction operator (row_op_registry.inc) over the [outer, rowLength, inner] view of its
// tensors on `soc`; throws for a SoC the kernels do not target, an elementwise operator or a size out of range.
RowGradTiling PlanRowsOnTwin(const std::string& opType, uint64_t outer, uint64_t rowLength, uint64_t inner,
                             DtypeKey dtype, const std::string& soc);

// in0/in1 in IR order (diff_dst, dst), out: outer * rowLength * inner elements of `dtype` each. out may be in0
// itself (the kernel reads every tile before it writes that tile's results) or share no memory with the inputs.
actgrad_sim::LaunchStats RunRowsOnTwin(const std::string& opType, void* in0, void* in1, void* out, uint64_t outer,
                                       uint64_t rowLength, uint64_t inner, DtypeKey dtype, const std::string& soc,
                                       actgrad_sim::LaunchOptions options);

// UB the kernel may carve on this SoC: the reserved top (Select scratch) and the 256 B system reserve are taken off.
SocResources TwinSocResources(const actgrad_sim::SocProfile& soc);

}  // namespace actgrad
