"""The GE converters actgrad registers with torchair (python/actgrad/graph.py), with a stand-in torchair
(tests/npu_stub/torchair_site/torchair) that records the registrations and the ge.custom_op calls: each functional
overload gets one converter, made from the spec, that emits the package's own OpType (never the PascalCase of the op
name, which is CANN's built-in operator) with the IR's inputs, attributes and output. The stand-in's registered GE IR
is read from the REG_OP prototypes the package installs (framework/actgrad_ops_proto.h), not from the spec."""
from __future__ import annotations

import importlib.util
import inspect
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import actgrad  # noqa: F401  (defines torch.ops.actgrad.*)
from actgrad import graph
from actgrad.schema import SCHEMA_INF
from actgrad.spec import OP_TYPE_PREFIX, OPS

ROOT = Path(__file__).resolve().parent.parent
TORCHAIR_STUB = ROOT / "tests" / "npu_stub" / "torchair_site"
OP_IDS = [op.name for op in OPS]
# REG_OP attribute types -> GE's value type names (what GetRegisteredIrDef reports) -> torchair's ge.attr builders
# (torchair.ge.attr._ATTR_TYPE_MAP)
GE_VALUE_TYPES = {"Float": "VT_FLOAT", "Bool": "VT_BOOL", "String": "VT_STRING", "Int": "VT_INT"}
TORCHAIR_ATTRS = {"VT_FLOAT": "Float", "VT_BOOL": "Bool", "VT_STRING": "Str", "VT_INT": "Int"}


def header_ir_defs() -> dict:
    """{OpType: (inputs, outputs, attrs)} as GE's GetRegisteredIrDef reports them once the package is installed, read
    from the REG_OP prototypes in framework/actgrad_ops_proto.h: [(name, "required")] for the inputs and outputs,
    [(name, GE value type)] for the attributes, in declaration order."""
    defs = {}
    for op_type, body in re.findall(r"REG_OP\((\w+)\)(.*?)\.OP_END_FACTORY_REG\(\1\)",
                                    (ROOT / "framework" / "actgrad_ops_proto.h").read_text(), re.S):
        items = re.findall(r"\.(INPUT|OUTPUT|ATTR|REQUIRED_ATTR)\((\w+),\s*(\w+)", body)
        defs[op_type] = ([(name, "required") for kind, name, _ in items if kind == "INPUT"],
                         [(name, "required") for kind, name, _ in items if kind == "OUTPUT"],
                         [(name, GE_VALUE_TYPES[t]) for kind, name, t in items if kind.endswith("ATTR")])
    return defs

pytestmark = pytest.mark.skipif(importlib.util.find_spec("torchair") is not None,
                                reason="a real torchair is installed; these tests use the stand-in")


def packet(op):
    return getattr(torch.ops.actgrad, op.name)


def _drop_torchair_modules():
    for name in [m for m in sys.modules if m == "torchair" or m.startswith("torchair.")]:
        del sys.modules[name]


@pytest.fixture
def torchair(monkeypatch):
    """The stand-in torchair, importable as `torchair` for the test, with empty records."""
    monkeypatch.syspath_prepend(str(TORCHAIR_STUB))
    monkeypatch.setattr(graph, "_REGISTERED", {})
    import torchair as stub

    stub.reset()
    stub.IR_DEFS.update(header_ir_defs())  # the package is installed
    yield stub
    _drop_torchair_modules()


@pytest.fixture
def converters(torchair):
    """{op name: its .default converter} after register_torchair_converters()."""
    graph.register_torchair_converters()
    return {op.name: next(fn for target, fn, _ in torchair.REGISTRATIONS if target == packet(op).default)
            for op in OPS}


def placeholders(op):
    """Stand-ins for the ge.Tensor inputs torchair passes, one per IR input."""
    return [type("GeTensor", (), {"__repr__": lambda self, n=name: f"<ge tensor {n}>"})() for name in op.inputs]


def explicit_value(attr):
    """A value for `attr` other than its default (derived from the spec, the same rule for every op)."""
    if attr.type == "bool":
        return False if attr.default is None else not attr.default
    if attr.type == "str":
        return next(c for c in attr.choices if c != attr.default)
    if attr.type == "int":  # a row operator's axis
        return 0 if attr.default != 0 else 1
    if attr.default is None:
        return 0.75
    return 20.0 if math.isinf(attr.default) else attr.default + 0.5


def ge_attr(torchair, attr, value):
    """The GE attribute a converter must emit for `value` of `attr` (a str one in the IR's spelling)."""
    if attr.type == "str":
        return torchair.GeAttr("Str", attr.ir_value(value))
    return torchair.GeAttr({"bool": "Bool", "int": "Int", "float": "Float"}[attr.type], value)


def test_every_functional_overload_gets_one_converter(torchair):
    mapping = graph.register_torchair_converters()
    assert mapping == {f"actgrad.{op.name}.default": op.op_type for op in OPS}
    targets = [target for target, _, _ in torchair.REGISTRATIONS]
    for op in OPS:
        assert targets.count(packet(op).default) == 1, op.name
    # the only other registrations are the .out overloads' refusals
    assert sorted(map(str, targets)) == sorted(f"actgrad.{op.name}.{o}" for op in OPS for o in ("default", "out"))
    # torchair passes meta_outputs to a converter whose signature names it; the .default ones take it
    assert all(meta for target, _, meta in torchair.REGISTRATIONS if str(target).endswith(".default"))


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_converter_emits_the_package_op_type(torchair, converters, op):
    tensors = placeholders(op)
    values = [explicit_value(a) for a in op.attrs]
    assert all(v != a.default for v, a in zip(values, op.attrs))
    wanted = {"op_type": op.op_type,
              "inputs": dict(zip(op.inputs, tensors)),
              "attrs": {a.ir: ge_attr(torchair, a, v) for a, v in zip(op.attrs, values)},
              "outputs": [op.output]}
    by_keyword = {**dict(zip(op.inputs, tensors)), **{a.name: v for a, v in zip(op.attrs, values)}}
    calls = [lambda: converters[op.name](*tensors, *values),
             lambda: converters[op.name](*tensors, *values, meta_outputs=object()),
             lambda: converters[op.name](**by_keyword)]
    for call in calls:
        torchair.CUSTOM_OPS.clear()
        result = call()
        assert torchair.CUSTOM_OPS == [wanted]
        # dicts compare without order: the IR order of inputs and attributes is checked apart
        assert list(torchair.CUSTOM_OPS[0]["inputs"]) == list(op.inputs)
        assert list(torchair.CUSTOM_OPS[0]["attrs"]) == [a.ir for a in op.attrs]
        assert (result.op_type, result.name) == (op.op_type, op.output)
    assert op.op_type.startswith(OP_TYPE_PREFIX)


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_omitted_attributes_take_the_spec_defaults(torchair, converters, op):
    required = [explicit_value(a) for a in op.attrs if a.required]
    converters[op.name](*placeholders(op), *required)
    (call,) = torchair.CUSTOM_OPS
    given = iter(required)
    wanted = {a.ir: ge_attr(torchair, a, next(given) if a.required else a.default) for a in op.attrs}
    assert call["attrs"] == wanted


def test_an_infinite_default_reaches_ge_as_infinity(torchair, converters):
    # the torch schema's stand-in for +inf (DBL_MAX) is what torchair passes when the graph holds the default
    op = next(op for op in OPS if any(a.default == math.inf for a in op.attrs))
    attr = next(a for a in op.attrs if a.default == math.inf)
    for given in ({}, {attr.name: SCHEMA_INF}, {attr.name: math.inf}):
        torchair.CUSTOM_OPS.clear()
        converters[op.name](*placeholders(op), **given)
        assert torchair.CUSTOM_OPS[0]["attrs"][attr.name] == torchair.GeAttr("Float", math.inf)


@pytest.mark.parametrize("op", [op for op in OPS if any(a.required for a in op.attrs)],
                         ids=lambda op: op.name)
def test_a_missing_required_attribute_raises_type_error(torchair, converters, op):
    first_required = next(a.name for a in op.attrs if a.required)
    with pytest.raises(TypeError, match=f"missing a required argument: '{first_required}'"):
        converters[op.name](*placeholders(op))
    assert torchair.CUSTOM_OPS == []


def test_a_symbolic_attribute_is_refused(torchair, converters):
    op = OPS[0]
    with pytest.raises(TypeError, match=f"{op.op_type}: attribute {op.attrs[0].name} must be a constant float"):
        converters[op.name](*placeholders(op), object())
    assert torchair.CUSTOM_OPS == []


def test_no_converter_emits_a_name_without_the_prefix(torchair, converters):
    # the regression: torchair's automatic converter would have emitted HardtanhGrad, CANN's built-in operator
    for op in OPS:
        converters[op.name](*placeholders(op), *[explicit_value(a) for a in op.attrs if a.required])
    emitted = [call["op_type"] for call in torchair.CUSTOM_OPS]
    assert emitted == [op.op_type for op in OPS]
    assert all(name.startswith(OP_TYPE_PREFIX) for name in emitted)
    assert not set(emitted) & {graph.automatic_op_type(op.name) for op in OPS}


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_converter_signature_is_the_schema(converters, op):
    params = list(inspect.signature(converters[op.name]).parameters.values())
    assert params[-1].name == "meta_outputs" and params[-1].default is None
    assert params[-1].kind is inspect.Parameter.KEYWORD_ONLY
    schema = packet(op).default._schema.arguments
    assert [(p.name, p.kind, None if p.default is inspect.Parameter.empty else p.default) for p in params[:-1]] == \
        [(a.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, a.default_value) for a in schema]


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_out_overloads_are_refused_with_the_functional_form(torchair, op):
    graph.register_torchair_converters()
    (refuse,) = [fn for target, fn, _ in torchair.REGISTRATIONS if target == packet(op).out]
    with pytest.raises(RuntimeError, match=rf"actgrad\.{op.name}\.out cannot be converted .*call the functional "
                                           rf"form, actgrad\.{op.name}\(\.\.\.\) without out="):
        refuse(*placeholders(op), out=object())
    assert torchair.CUSTOM_OPS == []


def test_every_prototype_is_declared_once_per_operator():
    assert sorted(header_ir_defs()) == sorted(op.op_type for op in OPS)


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_converter_call_matches_the_registered_prototype(torchair, converters, op):
    # names in IR order and attribute builders of the GE value types, against the REG_OP header GE registers
    converters[op.name](*placeholders(op), *[explicit_value(a) for a in op.attrs if a.required])
    (call,) = torchair.CUSTOM_OPS
    inputs, outputs, attrs = torchair.IR_DEFS[call["op_type"]]
    assert list(call["inputs"]) == [name for name, _ in inputs]
    assert call["outputs"] == [name for name, _ in outputs]
    assert [(name, value.cls) for name, value in call["attrs"].items()] == \
        [(name, TORCHAIR_ATTRS[value_type]) for name, value_type in attrs]
    assert graph.registered_ir_def(op) == torchair.IR_DEFS[op.op_type]


def test_converting_before_the_package_is_installed_fails_in_custom_op(torchair, converters):
    torchair.IR_DEFS.clear()
    with pytest.raises(RuntimeError, match="No AscendIR ActgradHardtanhGrad was found to be registered"):
        converters["hardtanh_grad"](*placeholders(OPS[0]))


def test_check_torchair_mapping_keys_on_the_op_type(torchair):
    with pytest.raises(RuntimeError, match=r"no converter registered for torch\.ops\.actgrad\.hardtanh_grad\.default: "
                                           r"torchair would map it to HardtanhGrad, not ActgradHardtanhGrad"):
        graph.check_torchair_mapping()
    graph.register_torchair_converters()
    assert graph.check_torchair_mapping() == {f"actgrad.{op.name}.default": op.op_type for op in OPS}


def test_check_torchair_mapping_refuses_the_builtin_names(torchair):
    # only CANN's built-in operators registered (the plain names): the package is not installed
    graph.register_torchair_converters()
    installed = header_ir_defs()
    torchair.IR_DEFS.clear()
    torchair.IR_DEFS.update({graph.automatic_op_type(op.name): installed[op.op_type] for op in OPS})
    with pytest.raises(RuntimeError, match=r"GE IR ActgradHardtanhGrad is not registered \(FAILED\)"):
        graph.check_torchair_mapping()


@pytest.mark.parametrize("change", ["inputs reversed", "attribute type", "output kind"])
def test_check_torchair_mapping_compares_the_prototype(torchair, change):
    graph.register_torchair_converters()
    op = OPS[0]
    inputs, outputs, attrs = torchair.IR_DEFS[op.op_type]
    if change == "inputs reversed":
        inputs = inputs[::-1]
    elif change == "attribute type":  # e.g. min_val registered as an Int
        attrs = [(attrs[0][0], "VT_INT"), *attrs[1:]]
    else:
        outputs = [(outputs[0][0], "dynamic")]
    torchair.IR_DEFS[op.op_type] = (inputs, outputs, attrs)
    with pytest.raises(RuntimeError, match=rf"GE IR {op.op_type} has inputs/outputs/attrs"):
        graph.check_torchair_mapping()


def test_nothing_is_registered_or_imported_without_torchair(monkeypatch):
    monkeypatch.setattr(graph, "_REGISTERED", {})
    assert graph.register_torchair_converters() == {}
    assert "torchair" not in sys.modules and "torch_npu" not in sys.modules
    assert graph._REGISTERED == {}


def _import_actgrad(*path: Path) -> dict:
    """What `import actgrad` registers with the stand-in torchair, in a fresh process with `path` on PYTHONPATH."""
    code = ("import json, sys, actgrad\n"
            "stub = sys.modules.get('torchair')\n"
            "print(json.dumps({'torchair': None if stub is None else [str(t) for t, _, _ in stub.REGISTRATIONS],"
            " 'torch_npu': 'torch_npu' in sys.modules}))")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*map(str, path), *filter(None, [env.get("PYTHONPATH")])])
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout)


def test_import_registers_the_converters_when_torchair_is_importable():
    imported = _import_actgrad(TORCHAIR_STUB)
    assert imported["torchair"] is not None, "import actgrad did not import the findable torchair"
    assert sorted(imported["torchair"]) == sorted(f"actgrad.{op.name}.{o}" for op in OPS for o in ("default", "out"))
    assert imported["torch_npu"] is False


def test_import_does_not_import_torchair_when_it_is_not_there():
    assert _import_actgrad() == {"torchair": None, "torch_npu": False}
