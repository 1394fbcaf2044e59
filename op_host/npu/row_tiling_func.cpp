// The TilingFunc of the row operators (CANN builds only): the [outer, R, inner] view of the inputs around the axis
// attribute, then the same ComputeRowTiling as the CPU twin (op_host/twin_launch.cpp).
#include <exception>

// Includes are file-relative: CANN's code generation compiles this file with -I<cann>/include only.
#include "tiling_io.h"

#include "../row_tiling.h"

namespace actgrad {
namespace npu {

ge::graphStatus RowGradTilingFunc(gert::TilingContext* context, const char* opType)
{
    gert::Shape shape;
    DtypeKey dtype;
    if (ReadInputs(context, opType, shape, dtype) != ge::GRAPH_SUCCESS) {
        return ge::GRAPH_FAILED;
    }
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    const int64_t* axisAttr = attrs == nullptr ? nullptr : attrs->GetAttrPointer<int64_t>(0);
    if (axisAttr == nullptr) {
        return Fail(opType, "cannot read the attribute axis");
    }
    // a 0-dimensional tensor is one row of one element (axis -1 or 0), as ATen wraps a dim
    const int64_t rank = int64_t(shape.GetDimNum());
    const int64_t bound = rank > 0 ? rank : 1;
    if (*axisAttr < -bound || *axisAttr >= bound) {
        return Fail(opType, "the attribute axis is out of range for the inputs' rank");
    }
    const int64_t axis = *axisAttr < 0 ? *axisAttr + bound : *axisAttr;
    uint64_t outer = 1, rows = 1, inner = 1;
    for (int64_t d = 0; d < rank; ++d) {
        const uint64_t size = uint64_t(shape.GetDim(size_t(d)));
        (d < axis ? outer : d == axis ? rows : inner) *= size;
    }

    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    RowGradTiling tiling{};
    try {
        if (outer * rows * inner > 0) {
            tiling = ComputeRowTiling(outer, rows, inner, dtype, ReadSocResources(platform));
        } else {  // empty tensors: one block that returns at once
            tiling.blockDim = 1;
            tiling.dtype = dtype;
        }
    } catch (const std::exception& error) {
        return Fail(opType, error.what());
    }
    return StoreTiling(context, opType, tiling, platform);
}

}  // namespace npu
}  // namespace actgrad
