"""Stand-in for torchair, for tests/test_torchair_converters.py: records what actgrad registers and emits.

Only the API actgrad.graph uses, with the real one's names and call forms (Ascend/torchair, python/torchair/):
register_fx_node_ge_converter(op)(converter), ge.custom_op(op_type, inputs=, outputs=, attrs=), ge.attr.Float/Bool/Str
and core._torchair.get_registered_ir_def(op_type). As the real custom_op, it refuses an op_type GE has not registered
(IR_DEFS here: what the installed package would register). Put this directory on sys.path to make it `torchair`; it
imports neither torch_npu nor anything of CANN."""
import inspect
import sys
import types

REGISTRATIONS = []  # (OpOverload, converter, whether torchair would pass meta_outputs), in registration order
CUSTOM_OPS = []  # the keyword arguments of every ge.custom_op call
IR_DEFS = {}  # OpType: (inputs, outputs, attrs), each [(name, type)], as the installed CANN package would register


def reset():
    REGISTRATIONS.clear()
    CUSTOM_OPS.clear()
    IR_DEFS.clear()


class Converter:
    """What register_fx_node_ge_converter returns: calling it with the converter registers that and returns itself
    (not the converter), as torchair's fx2ge_converter.Converter."""

    def __init__(self, aten_op):
        self.aten_op = aten_op

    def __call__(self, converter):
        # torchair passes meta_outputs only to a converter whose signature names it
        REGISTRATIONS.append((self.aten_op, converter, "meta_outputs" in inspect.signature(converter).parameters))
        return self


def register_fx_node_ge_converter(aten_op):
    return Converter(aten_op)


class GeAttr:
    """What a ge.attr builder returns: the GE attribute type (cls) and the value; equal when both are."""

    def __init__(self, cls, value):
        self.cls, self.value = cls, value

    def __eq__(self, other):
        return isinstance(other, GeAttr) and (self.cls, self.value) == (other.cls, other.value)

    def __repr__(self):
        return f"ge.attr.{self.cls}({self.value!r})"


class GeOutput:
    """The tensor custom_op returns (a single output gives one tensor, not a tuple)."""

    def __init__(self, op_type, name):
        self.op_type, self.name = op_type, name


def custom_op(op_type, *args, inputs=None, outputs=None, attrs=None, node_name=None):
    if args:
        raise AssertionError("the stand-in takes the inputs=/attrs=/outputs= form only")
    if get_registered_ir_def(op_type)[0] != "SUCCESS":
        raise RuntimeError(f"No AscendIR {op_type} was found to be registered.")
    CUSTOM_OPS.append({"op_type": op_type, "inputs": inputs, "outputs": outputs, "attrs": attrs})
    return GeOutput(op_type, outputs[0])


def get_registered_ir_def(op_type):
    if op_type not in IR_DEFS:
        return "FAILED", [], [], []
    return ("SUCCESS", *IR_DEFS[op_type])


ge = types.ModuleType("torchair.ge")
ge.custom_op = custom_op
ge.attr = types.ModuleType("torchair.ge.attr")
ge.attr.Float = lambda value: GeAttr("Float", value)
ge.attr.Bool = lambda value: GeAttr("Bool", value)
ge.attr.Str = lambda value: GeAttr("Str", value)
ge.attr.Int = lambda value: GeAttr("Int", value)
core = types.ModuleType("torchair.core")
core._torchair = types.ModuleType("torchair.core._torchair")
core._torchair.get_registered_ir_def = get_registered_ir_def
for _module in (ge, ge.attr, core, core._torchair):
    sys.modules[_module.__name__] = _module
