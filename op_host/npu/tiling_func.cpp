// The TilingFunc of every actgrad operator (CANN builds only). It runs the same ComputeTiling and LowerAttrs as the
// CPU twin (op_host/twin_launch.cpp), so a launch on the NPU gets the tiling the twin was tested with.
#include <cstring>
#include <exception>

// Includes are file-relative: CANN's code generation compiles this file with -I<cann>/include only.
#include "tiling_io.h"

#include "../lower_attrs.h"

namespace actgrad {
namespace npu {
namespace {

constexpr size_t kMaxAttrs = 8;

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
    gert::Shape shape;
    DtypeKey dtype;
    if (ReadInputs(context, opType, shape, dtype) != ge::GRAPH_SUCCESS) {
        return ge::GRAPH_FAILED;
    }
    double attrs[kMaxAttrs] = {};
    if (attrCount > kMaxAttrs || !ReadAttrs(context, opType, attrDescs, attrCount, attrs)) {
        return Fail(opType, "cannot read the attributes");
    }

    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const SocResources soc = ReadSocResources(platform);

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

    return StoreTiling(context, opType, tiling, platform);
}

}  // namespace npu
}  // namespace actgrad
