// Host tiling of the row-reduction grad kernel (op_kernel/row_grad.h) as a pure function: the CANN TilingFunc and
// the twin both call it.
#pragma once
#include <cstdint>

#include "../op_kernel/row_grad_tiling.h"
#include "elementwise_tiling.h"  // SocResources, DtypeSize, kMinBytesPerBlock

namespace actgrad {

// UB the kernel carves for this tiling (equals the twin's UB high-water mark).
uint64_t RowUbBytesUsed(const RowGradTiling& t);

// The [outer, rowLength, inner] view of the tensors, every size > 0 (empty tensors launch no kernel). Throws
// std::invalid_argument naming the size that is out of range.
RowGradTiling ComputeRowTiling(uint64_t outer, uint64_t rowLength, uint64_t inner, DtypeKey dtype,
                               const SocResources& soc);

}  // namespace actgrad
