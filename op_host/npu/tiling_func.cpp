// The TilingFunc of every actgrad operator (CANN builds only). It runs the same ComputeTiling and LowerAttrs as the
// CPU twin (op_host/twin_launch.cpp), so a launch on the NPU gets the tiling the twin was tested with.
#include <cstdio>
#include <cstring>
#include <exception>

// Includes are file-relative: CANN's code generation compiles this file with -I<cann>/include only.
#include "op_hooks.h"
#include "tiling/platform/platform_ascendc.h"

#include "../elementwise_tiling.h"
#include "../lower_attrs.h"

namespace actgrad {
namespace npu {
namespace {

constexpr size_t kMaxRank = 8;
constexpr size_t kMaxAttrs = 8;

ge::graphStatus Fail(const char* opType, const char* message)
{
    std::fprintf(stderr, "[actgrad] %s tiling failed: %s\n", opType, message);
    return ge::GRAPH_FAILED;
}

bool DtypeKeyOf(ge::DataType dtype, DtypeKey& key)
{
    switch (dtype) {
        case ge::DT_FLOAT: key = kDtypeFloat; return true;
        case ge::DT_FLOAT16: key = kDtypeHalf; return true;
        case ge::DT_BF16: key = kDtypeBf16; return true;
        default: return false;
    }
}

// A kString attribute's value as LowerAttrs takes it: its index among the IR values; false if it is none of them.
bool ChoiceIndex(const char* const* choices, const char* value, double& index)
{
    for (size_t i = 0; choices[i] != nullptr; ++i) {
        if (std::strcmp(choices[i], value) == 0) {
            index = double(i);
            return true;
        }
    }
    return false;
}

// The attributes in IR order as LowerAttrs takes them: doubles, bools as 0/1, strings as the index of their value.
bool ReadAttrs(const gert::TilingContext* context, const char* opType, const AttrDesc* descs, size_t count,
               double* values)
{
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    if (attrs == nullptr) {
        return count == 0;
    }
    for (size_t i = 0; i < count; ++i) {
        if (descs[i].kind == AttrKind::kString) {
            const char* value = attrs->GetStr(i);
            if (value == nullptr) {
                return false;
            }
            if (!ChoiceIndex(descs[i].choices, value, values[i])) {
                std::fprintf(stderr, "[actgrad] %s: attribute '%s' = '%s' is not one of its values\n", opType,
                             descs[i].name, value);
                return false;
            }
        } else if (descs[i].kind == AttrKind::kBool) {
            const bool* value = attrs->GetAttrPointer<bool>(i);
            if (value == nullptr) {
                return false;
            }
            values[i] = *value ? 1.0 : 0.0;
        } else {
            const float* value = attrs->GetAttrPointer<float>(i);
            if (value == nullptr) {
                return false;
            }
            values[i] = *value;
        }
    }
    return true;
}

}  // namespace

ge::graphStatus ElementwiseGradTilingFunc(gert::TilingContext* context, const char* opType,
                                          const AttrDesc* attrDescs, size_t attrCount)
{
    const gert::StorageShape* shape0 = context->GetInputShape(0);
    const gert::StorageShape* shape1 = context->GetInputShape(1);
    const gert::CompileTimeTensorDesc* desc0 = context->GetInputDesc(0);
    const gert::CompileTimeTensorDesc* desc1 = context->GetInputDesc(1);
    if (shape0 == nullptr || shape1 == nullptr || desc0 == nullptr || desc1 == nullptr) {
        return Fail(opType, "missing input shape or description");
    }
    const gert::Shape& shape = shape0->GetStorageShape();
    if (shape != shape1->GetStorageShape()) {
        return Fail(opType, "the two inputs must have the same shape");
    }
    if (shape.GetDimNum() > kMaxRank) {
        return Fail(opType, "at most 8 dimensions are supported");
    }
    DtypeKey dtype;
    if (desc0->GetDataType() != desc1->GetDataType() || !DtypeKeyOf(desc0->GetDataType(), dtype)) {
        return Fail(opType, "the inputs must share one dtype among float32, float16, bfloat16");
    }
    double attrs[kMaxAttrs] = {};
    if (attrCount > kMaxAttrs || !ReadAttrs(context, opType, attrDescs, attrCount, attrs)) {
        return Fail(opType, "cannot read the attributes");
    }

    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubBytes = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubBytes);
    const SocResources soc{platform.GetCoreNumAiv(), ubBytes - kA2SelectScratchBytes};  // A2/A3: the only SoCs the OpDefs configure

    const int64_t numel = shape.GetShapeSize();
    ElementwiseGradTiling tiling{};
    try {
        if (numel > 0) {
            tiling = ComputeTiling(uint64_t(numel), dtype, soc, FunctorNeedsOf(opType));
        } else {  // empty tensors: one block that returns at once (totalLength 0)
            tiling.blockDim = 1;
            tiling.dtype = dtype;
        }
        LowerAttrs(opType, attrs, attrCount, tiling);
    } catch (const std::exception& error) {
        return Fail(opType, error.what());
    }

    gert::TilingData* raw = context->GetRawTilingData();
    if (raw == nullptr || raw->GetCapacity() < sizeof(tiling)) {
        return Fail(opType, "the tiling buffer is too small");
    }
    std::memcpy(raw->GetData(), &tiling, sizeof(tiling));
    raw->SetDataSize(sizeof(tiling));
    context->SetBlockDim(tiling.blockDim);  // no tiling key: one kernel binary per dtype, which reads tiling.dtype
    size_t* workspace = context->GetWorkspaceSizes(1);  // the kernel needs none of its own
    workspace[0] = platform.GetLibApiWorkSpaceSize();
    return ge::GRAPH_SUCCESS;
}

}  // namespace npu
}  // namespace actgrad
