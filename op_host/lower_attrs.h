// Attribute validation (op-semantics A.3) and lowering to the functor parameters of the tiling struct.
// Shared by the CANN TilingFunc and the twin, so both reject the same attributes with the same message.
#pragma once
#include <cstddef>
#include <string>

#include "../op_kernel/elementwise_grad_tiling.h"
#include "../op_kernel/functors/functor_needs.h"

namespace actgrad {

// attrs in spec order (bools as 0/1), judged as float32 like the IR. Throws std::invalid_argument naming the attribute.
void LowerAttrs(const std::string& opType, const double* attrs, size_t count, ElementwiseGradTiling& tiling);

// The scratch the op's functor needs; throws std::invalid_argument for an unknown OpType.
FunctorNeeds FunctorNeedsOf(const std::string& opType);

}  // namespace actgrad
