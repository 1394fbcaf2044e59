"""Graph mode on Ascend (torch.compile with torchair's GE backend) needs no converter code from actgrad.

When torchair meets `torch.ops.actgrad.<op>.default` without a registered converter it generates one: it
PascalCases the op name (hardtanh_grad -> HardtanhGrad), looks that GE IR up among the registered prototypes (the
installed CANN package's op_proto, from the OpDef in op_host/actgrad_op_def.cpp; framework/actgrad_ops_proto.h is
the same declaration as a header) and passes the tensors as IR inputs and the other arguments as IR attributes, in
order. spec.py makes the names, the argument order and the types (float/bool, never Scalar) match. The `.out`
overloads have one tensor more than the IR, so torchair cannot map them: call the functional form in compiled code.
"""
from __future__ import annotations

import importlib.util

from .spec import OPS


def torchair_ir_name(op_name: str) -> str:
    """The GE OpType torchair's automatic converter looks up for torch.ops.<ns>.<op_name>."""
    return "".join(word.capitalize() for word in op_name.split("_"))


def check_torchair_mapping() -> dict[str, str]:
    """Verify that every operator maps onto a registered GE IR with the spec's inputs, output and attributes.

    Returns {torch op: OpType}. Needs torchair and the installed CANN package; raises RuntimeError otherwise or
    when a prototype differs from the spec.
    """
    if importlib.util.find_spec("torchair") is None:
        raise RuntimeError("torchair not installed: graph mode needs torch_npu (which bundles torchair) and CANN")
    from torchair.core import _torchair

    mapping = {}
    for op in OPS:
        ir_name = torchair_ir_name(op.name)
        status, inputs, outputs, attrs = _torchair.get_registered_ir_def(ir_name)
        if status != "SUCCESS":
            raise RuntimeError(f"GE IR {ir_name} is not registered ({status}); install the package built by "
                               "scripts/build_npu_package.sh")
        found = ([name for name, _ in inputs], [name for name, _ in outputs], [name for name, _ in attrs])
        wanted = (list(op.inputs), [op.output], [a.name for a in op.attrs])
        if found != wanted:
            raise RuntimeError(f"GE IR {ir_name} has inputs/outputs/attrs {found}, the spec says {wanted}")
        mapping[f"actgrad.{op.name}.default"] = ir_name
    return mapping
