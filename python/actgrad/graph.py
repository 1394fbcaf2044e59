"""Graph mode on Ascend (torch.compile with torchair's GE backend): the GE converters of the operators.

torchair turns each node of the FX graph into GE IR with the converter registered for its OpOverload. When none is
registered it generates one: it PascalCases the op name (hardtanh_grad -> HardtanhGrad) and emits that OpType. The
OpTypes of this package carry its prefix (spec.OP_TYPE_PREFIX: ActgradHardtanhGrad), because the plain names are
CANN's own operators (HardtanhGrad is a built-in GE IR, a different operator), so that automatic mapping would build
graphs with CANN's built-in operators instead of actgrad's. register_torchair_converters() therefore registers an
explicit converter for every torch.ops.actgrad.<name>.default, made from the spec by one factory: it takes the torch
schema's arguments (same names, order and defaults) plus torchair's `meta_outputs`, and emits
torchair.ge.custom_op(op.op_type, inputs in IR order, attrs as ge.attr.Float/Bool, outputs=[op.output]).

The `.out` overloads have one tensor more than the IR (`out`), and the IR has no output that aliases an input, so
they cannot map onto it. torchair functionalizes a mutating op and converts it through its converter; the converter
registered for `.out` raises an error saying so (without it torchair would try to generate one for the PascalCase name,
a CANN built-in). In compiled code call the functional form, `actgrad.<name>(...)` without out=.

`import actgrad` calls register_torchair_converters() after the ops are defined; it registers nothing, and imports
neither torchair nor torch_npu, when torchair cannot be found. torch_npu bundles torchair and makes it importable as
`torchair` once torch_npu is imported (torch_npu 2.5 and later is imported by `import torch` itself, through torch's
device-backend autoload, unless TORCH_DEVICE_BACKEND_AUTOLOAD=0): if actgrad was imported first, call
actgrad.graph.register_torchair_converters() after `import torch_npu`. check_torchair_mapping() verifies the
registration and, against the installed CANN package, each OpType's IR (input and output names and kinds, attribute
names and GE value types, as GE's GetRegisteredIrDef reports them).
"""
from __future__ import annotations

import importlib.util
import inspect
import math
import numbers
import warnings

from .schema import NAMESPACE, SCHEMA_INF, attribute_values, has_infinite_default
from .spec import OPS, OpSpec

# {OpOverload name ("actgrad.hardtanh_grad.default"): OpType} of the converters registered in this process
_REGISTERED: dict[str, str] = {}


def automatic_op_type(op_name: str) -> str:
    """The OpType torchair's generated converter would emit for torch.ops.<ns>.<op_name> (PascalCase of the name):
    for actgrad's ops, a CANN built-in or nothing, never the package's OpType."""
    return "".join(word.capitalize() for word in op_name.split("_"))


def torchair_available() -> bool:
    """Whether `import torchair` would find a module, without importing it when there is none."""
    return importlib.util.find_spec("torchair") is not None


def converter_signature(op: OpSpec) -> inspect.Signature:
    """The torch schema's arguments (tensors, then attributes with the schema's defaults; the stand-in SCHEMA_INF for
    an infinite one) and torchair's keyword `meta_outputs`."""
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    params = [inspect.Parameter(name, positional) for name in op.inputs]
    for attr in op.attrs:
        if attr.required:
            default = inspect.Parameter.empty
        elif has_infinite_default(attr):
            default = math.copysign(SCHEMA_INF, attr.default)
        else:
            default = attr.default
        params.append(inspect.Parameter(attr.name, positional, default=default))
    params.append(inspect.Parameter("meta_outputs", inspect.Parameter.KEYWORD_ONLY, default=None))
    return inspect.Signature(params)


def _ir_value(attr, value: float):
    """An attribute as the GE IR takes it, from attribute_values' form (bools 0/1, str values as their index)."""
    if attr.type == "bool":
        return bool(value)
    if attr.type == "str":
        return attr.ir_value(attr.choices[int(value)])
    if attr.type == "int":
        return int(value)
    return value


def make_converter(op: OpSpec, ge):
    """The converter of torch.ops.actgrad.<op.name>.default, emitting GE IR op.op_type through `ge` (torchair.ge)."""
    signature = converter_signature(op)
    attr_types = {"float": ge.attr.Float, "bool": ge.attr.Bool, "str": ge.attr.Str, "int": ge.attr.Int}
    python_types = {"float": numbers.Real, "bool": bool, "str": str, "int": numbers.Integral}

    def converter(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)  # TypeError for a missing required attribute, as the schema
        bound.apply_defaults()
        given = bound.arguments
        for attr in op.attrs:  # GE attributes are constants of the graph: a symbolic value cannot be one
            value = given[attr.name]
            if not isinstance(value, python_types[attr.type]):
                raise TypeError(f"{op.op_type}: attribute {attr.name} must be a constant {attr.type} in the graph, "
                                f"got {type(value).__name__}")
        values = attribute_values(op, [given[a.name] for a in op.attrs])  # the stand-in SCHEMA_INF back to inf
        attrs = {a.ir: attr_types[a.type](_ir_value(a, v)) for a, v in zip(op.attrs, values)}
        return ge.custom_op(op.op_type, inputs={name: given[name] for name in op.inputs}, attrs=attrs,
                            outputs=[op.output])

    converter.__name__ = converter.__qualname__ = f"convert_{op.name}"
    converter.__signature__ = signature
    converter.__doc__ = f"torch.ops.{NAMESPACE}.{op.name}.default -> GE IR {op.op_type}"
    return converter


def make_out_converter(op: OpSpec):
    """The converter of torch.ops.actgrad.<op.name>.out: refuses, naming the functional form."""
    def converter(*args, **kwargs):
        raise RuntimeError(f"torch.ops.{NAMESPACE}.{op.name}.out cannot be converted to GE IR: {op.op_type} has no "
                           f"`out` tensor. In compiled code call the functional form, {NAMESPACE}.{op.name}(...) "
                           "without out=")

    converter.__name__ = converter.__qualname__ = f"refuse_{op.name}_out"
    return converter


def register_torchair_converters() -> dict[str, str]:
    """Register the converter of every operator with torchair, when torchair can be found.

    Returns {OpOverload name: OpType} of the functional overloads, {} when torchair is not there (then nothing is
    imported). Registering again replaces the converters.
    """
    try:
        if not torchair_available():
            return {}
    except Exception as error:  # noqa: BLE001  torch_npu's lazy `torchair` imports torchair to answer find_spec
        warnings.warn(f"actgrad registers no torchair converters: torchair does not import ({error!r})")
        return {}
    import torch
    import torchair

    for op in OPS:
        packet = getattr(getattr(torch.ops, NAMESPACE), op.name)
        torchair.register_fx_node_ge_converter(packet.default)(make_converter(op, torchair.ge))
        torchair.register_fx_node_ge_converter(packet.out)(make_out_converter(op))
        _REGISTERED[f"{NAMESPACE}.{op.name}.default"] = op.op_type
    return dict(_REGISTERED)


def check_torchair_mapping() -> dict[str, str]:
    """Verify that every operator's converter is registered and that its OpType is a registered GE IR with the
    spec's inputs, output and attributes.

    Returns {OpOverload name: OpType}. Needs torchair and the installed CANN package; raises RuntimeError otherwise or
    when a prototype differs from the spec.
    """
    if not torchair_available():
        raise RuntimeError("torchair not installed: graph mode needs torch_npu (which bundles torchair) and CANN")
    from torchair.core import _torchair

    mapping = {}
    for op in OPS:
        overload = f"{NAMESPACE}.{op.name}.default"
        if _REGISTERED.get(overload) != op.op_type:
            raise RuntimeError(f"no converter registered for torch.ops.{overload}: torchair would map it to "
                               f"{automatic_op_type(op.name)}, not {op.op_type}; call "
                               "actgrad.graph.register_torchair_converters() after importing torch_npu")
        status, inputs, outputs, attrs = _torchair.get_registered_ir_def(op.op_type)
        if status != "SUCCESS":
            raise RuntimeError(f"GE IR {op.op_type} is not registered ({status}); install the package that build.sh "
                               "builds and source its vendors/actgrad/bin/set_env.bash")
        found = (list(map(tuple, inputs)), list(map(tuple, outputs)), list(map(tuple, attrs)))
        if found != registered_ir_def(op):
            raise RuntimeError(f"GE IR {op.op_type} has inputs/outputs/attrs {found}, the spec says "
                               f"{registered_ir_def(op)}")
        mapping[overload] = op.op_type
    return mapping


# GE's names for the attribute value types (AttrUtils::ValueTypeToSerialString), as GetRegisteredIrDef reports them
_GE_ATTR_TYPES = {"float": "VT_FLOAT", "bool": "VT_BOOL", "str": "VT_STRING", "int": "VT_INT"}


def registered_ir_def(op: OpSpec) -> tuple[list, list, list]:
    """The (inputs, outputs, attrs) GE's GetRegisteredIrDef (torchair.core._torchair.get_registered_ir_def) gives
    for op.op_type once the package is installed: [(name, "required")] for the inputs and the output, [(name, GE value
    type)] for the attributes, in IR order."""
    return ([(name, "required") for name in op.inputs], [(op.output, "required")],
            [(a.ir, _GE_ATTR_TYPES[a.type]) for a in op.attrs])
