// The hooks every OpDef in op_host/actgrad_op_def.cpp (generated) registers. CANN builds only
// (build.sh, op_host/CMakeLists.txt); setup.py never compiles op_host/npu/.
#ifndef ACTGRAD_OP_HOST_NPU_OP_HOOKS_H_
#define ACTGRAD_OP_HOST_NPU_OP_HOOKS_H_

#include <cstddef>

#include "register/op_def_registry.h"

namespace actgrad {
namespace npu {

// How an attribute is stored in gert::RuntimeAttrs; it cannot be queried there, so the generated OpDef says it.
enum class AttrKind { kFloat, kBool, kString };

// One attribute of an OpDef: its IR name, kind, and for a kString attribute its IR values (nullptr-terminated), whose
// index LowerAttrs takes.
struct AttrDesc {
    const char* name;
    AttrKind kind;
    const char* const* choices;
};

// Every op of the package: the output has input 0's shape and dtype (the inputs are checked equal at tiling).
ge::graphStatus InferShapeSameAsInput0(gert::InferShapeContext* context);
ge::graphStatus InferDataTypeSameAsInput0(gert::InferDataTypeContext* context);

// The one TilingFunc of the family: validates shapes/dtypes, lowers the attributes (actgrad::LowerAttrs) and
// splits the work (actgrad::ComputeTiling) exactly as the CPU twin does.
ge::graphStatus ElementwiseGradTilingFunc(gert::TilingContext* context, const char* opType,
                                          const AttrDesc* attrs, size_t attrCount);

// The TilingFunc of the row operators (SoftMaxBackward, LogSoftmaxBackward): reads the Int attribute 0, the axis, and
// views the inputs as [outer, R, inner] around it for actgrad::ComputeRowTiling, exactly as the CPU twin does.
ge::graphStatus RowGradTilingFunc(gert::TilingContext* context, const char* opType);

}  // namespace npu
}  // namespace actgrad

#endif  // ACTGRAD_OP_HOST_NPU_OP_HOOKS_H_
