// What every TilingFunc of the package does around its own tiling (CANN builds only): read and check the two inputs,
// read the SoC's resources, store the tiling and the launch parameters.
#ifndef ACTGRAD_OP_HOST_NPU_TILING_IO_H_
#define ACTGRAD_OP_HOST_NPU_TILING_IO_H_

#include <cstdio>
#include <cstring>

// Includes are file-relative: CANN's code generation compiles this file with -I<cann>/include only.
#include "op_hooks.h"
#include "tiling/platform/platform_ascendc.h"

#include "../elementwise_tiling.h"

namespace actgrad {
namespace npu {

constexpr size_t kMaxRank = 8;

inline ge::graphStatus Fail(const char* opType, const char* message)
{
    std::fprintf(stderr, "[actgrad] %s tiling failed: %s\n", opType, message);
    return ge::GRAPH_FAILED;
}

inline bool DtypeKeyOf(ge::DataType dtype, DtypeKey& key)
{
    switch (dtype) {
        case ge::DT_FLOAT: key = kDtypeFloat; return true;
        case ge::DT_FLOAT16: key = kDtypeHalf; return true;
        case ge::DT_BF16: key = kDtypeBf16; return true;
        default: return false;
    }
}

// The shape and dtype the two inputs share; GRAPH_FAILED (with a message) when they differ, the rank exceeds 8 or the
// dtype is not one of the package's.
inline ge::graphStatus ReadInputs(gert::TilingContext* context, const char* opType, gert::Shape& shape, DtypeKey& dtype)
{
    const gert::StorageShape* shape0 = context->GetInputShape(0);
    const gert::StorageShape* shape1 = context->GetInputShape(1);
    const gert::CompileTimeTensorDesc* desc0 = context->GetInputDesc(0);
    const gert::CompileTimeTensorDesc* desc1 = context->GetInputDesc(1);
    if (shape0 == nullptr || shape1 == nullptr || desc0 == nullptr || desc1 == nullptr) {
        return Fail(opType, "missing input shape or description");
    }
    shape = shape0->GetStorageShape();
    if (shape != shape1->GetStorageShape()) {
        return Fail(opType, "the two inputs must have the same shape");
    }
    if (shape.GetDimNum() > kMaxRank) {
        return Fail(opType, "at most 8 dimensions are supported");
    }
    if (desc0->GetDataType() != desc1->GetDataType() || !DtypeKeyOf(desc0->GetDataType(), dtype)) {
        return Fail(opType, "the inputs must share one dtype among float32, float16, bfloat16");
    }
    return ge::GRAPH_SUCCESS;
}

// The vector cores and the UB the kernel may carve: A2/A3 (the only SoCs the OpDefs configure) keep the top 8 KiB of
// UB for Select's scratch.
inline SocResources ReadSocResources(platform_ascendc::PlatformAscendC& platform)
{
    uint64_t ubBytes = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubBytes);
    return SocResources{platform.GetCoreNumAiv(), ubBytes - kA2SelectScratchBytes};
}

// Stores `tiling` (a plain struct the kernel reads with GET_TILING_DATA) and the launch parameters: no tiling key
// (one kernel binary per dtype, which reads tiling.dtype) and no workspace of the kernel's own.
template <typename Tiling>
ge::graphStatus StoreTiling(gert::TilingContext* context, const char* opType, const Tiling& tiling,
                            platform_ascendc::PlatformAscendC& platform)
{
    gert::TilingData* raw = context->GetRawTilingData();
    if (raw == nullptr || raw->GetCapacity() < sizeof(tiling)) {
        return Fail(opType, "the tiling buffer is too small");
    }
    std::memcpy(raw->GetData(), &tiling, sizeof(tiling));
    raw->SetDataSize(sizeof(tiling));
    context->SetBlockDim(tiling.blockDim);
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = platform.GetLibApiWorkSpaceSize();
    return ge::GRAPH_SUCCESS;
}

}  // namespace npu
}  // namespace actgrad

#endif  // ACTGRAD_OP_HOST_NPU_TILING_IO_H_
