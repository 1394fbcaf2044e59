"""The kernel entry points (op_kernel/<op>.cpp) and the per-op tables the C++ host code includes."""
from __future__ import annotations

from .common import CPP_BANNER, cpp_string

REGISTRY_PATH = "op_host/op_registry.inc"
ROW_REGISTRY_PATH = "op_host/row_op_registry.inc"
ACLNN_CALLS_PATH = "op_host/torch_npu/aclnn_calls.inc"


def kernel_path(op) -> str:
    return f"op_kernel/{op.kernel_name}.cpp"


# Each family's generic kernel: its header, its entry, and the order it takes the tensors in.
FAMILY_KERNELS = {
    "elementwise": ("elementwise_grad.h", "RunElementwiseGrad", lambda op: (op.saved, op.grad, op.output)),
    "row": ("row_grad.h", "RunRowGrad", lambda op: (op.grad, op.saved, op.output)),
}
# The functor header of a row operator is its family's (the two softmax functors share one file).
ROW_FUNCTOR_HEADER = "softmax_grad"


def render_kernel(spec, op) -> str:
    params = ", ".join(f"GM_ADDR {name}" for name in (*op.inputs, op.output, "workspace", "tiling"))
    header, run, tensors = FAMILY_KERNELS[op.family]
    functor_header = ROW_FUNCTOR_HEADER if op.family == "row" else spec.snake(op.functor)
    return (
        CPP_BANNER
        + f"// {op.op_type}: {op.formula}\n"
        + f"#include \"kernel_operator.h\"\n#include \"{header}\"\n"
        + f"#include \"functors/{functor_header}.h\"\n\n"
        + f"extern \"C\" __global__ __aicore__ void {op.kernel_name}({params})\n"
        + "{\n"
        + "    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);\n"
        + f"    actgrad::{run}<actgrad::{op.functor}>({', '.join(tensors(op))}, tiling);\n"
        + "}\n"
    )


def render_registry(spec) -> str:
    """ACTGRAD_OP(OpType, kernel, Functor, KnownAs): the host's operator table (kernel entry, functor, and the
    KnownAs that names the op's lowering and attribute checks in op_host/lower_attrs.cpp)."""
    return CPP_BANNER + "".join(f"ACTGRAD_OP({op.op_type}, {op.kernel_name}, {op.functor}, {op.known_as})\n"
                                for op in spec.ELEMENTWISE_OPS)


def render_row_registry(spec) -> str:
    """ACTGRAD_ROW_OP(OpType, kernel, Functor, KnownAs): the row operators' table (op_host/twin_launch.cpp)."""
    return CPP_BANNER + "".join(f"ACTGRAD_ROW_OP({op.op_type}, {op.kernel_name}, {op.functor}, {op.known_as})\n"
                                for op in spec.ROW_REDUCTIONS)


def _aclnn_arg(attr, index: int) -> str:
    # The bridge receives every attribute as a double (bools as 0.0/1.0, str values as their index, as for _C.launch);
    # the generated aclnn API takes Float attributes as double, Bool as bool, String as char* (the IR's value) and Int
    # as int64_t, the types op_host/torch_npu/aclnn_call.h passes on.
    if attr.type == "int":
        return f"int64_t(attrs[{index}])"
    if attr.type == "bool":
        return f"attrs[{index}] != 0.0"
    if attr.type == "str":
        values = [attr.ir_value(c) for c in attr.choices]
        chain = "".join(f"attrs[{index}] == {i}.0 ? {cpp_string(v)} : " for i, v in enumerate(values[:-1]))
        return f"const_cast<char*>({chain}{cpp_string(values[-1])})"
    return f"attrs[{index}]"


def render_aclnn_calls(spec) -> str:
    """ACTGRAD_ACLNN_CALL(OpType, aclnn<OpType>, attribute count, args...): how the torch_npu bridge
    (op_host/torch_npu/aclnn_bridge.cpp) calls each generated aclnn API.

    The custom package's aclnn API is named after the OpType and takes inputs, attributes, output in OpDef order.
    """
    lines = []
    for op in spec.OPS:
        args = ["in0", "in1", *(_aclnn_arg(a, i) for i, a in enumerate(op.attrs)), "out"]
        lines.append(f"ACTGRAD_ACLNN_CALL({op.op_type}, {op.aclnn_api}, {len(op.attrs)}, {', '.join(args)})\n")
    return CPP_BANNER + "".join(lines)
