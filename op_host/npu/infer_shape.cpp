// Graph-mode shape/dtype inference for the elementwise backward ops (CANN builds only).
#include "op_hooks.h"  // file-relative: code generation compiles with -I<cann>/include only

namespace actgrad {
namespace npu {

ge::graphStatus InferShapeSameAsInput0(gert::InferShapeContext* context)
{
    const gert::Shape* input = context->GetInputShape(0);
    gert::Shape* output = context->GetOutputShape(0);
    if (input == nullptr || output == nullptr) {
        return ge::GRAPH_FAILED;
    }
    *output = *input;
    return ge::GRAPH_SUCCESS;
}

ge::graphStatus InferDataTypeSameAsInput0(gert::InferDataTypeContext* context)
{
    return context->SetOutputDataType(0, context->GetInputDataType(0));
}

}  // namespace npu
}  // namespace actgrad
