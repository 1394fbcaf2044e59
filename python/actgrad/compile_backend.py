"""actgrad.compile_backend: a torch.compile backend that runs the actgrad operators of a compiled function as an
actgrad.ge graph through a Session, the way torchair hands them to GE on an NPU.

    torch.compile(fn, backend=actgrad.compile_backend)   # or backend="actgrad" once the package is installed

It works on AOTAutograd's graphs (forward and backward), not Dynamo's: there every operation is one ATen/actgrad
OpOverload with normalised arguments (x * 2 is aten.mul.Tensor(x, 2), x.to(torch.half) is aten._to_copy), so one
table lowers them. Lowered: the actgrad ops (torch.ops.actgrad.<name>.default, which the Python functions compile
to), aten add/sub/rsub (alpha 1), mul, div (true division), neg, _to_copy/convert_element_type (a dtype change only)
and clone. A Python number operand becomes a constant of the tensor's dtype, except beside a float16/bfloat16 tensor
in a mul or div, where the tensor is cast to float32 around the operation with a float32 constant: that is how ATen
computes these (it rounds the number to the tensor's dtype for add, sub and rsub, not for mul and div), so the results
stay bit-identical to eager. A node whose lowered dtype or shape would differ from ATen's
(e.g. ATen's lower priority of a 0-dim tensor in type promotion) is not lowered.

If any node of a graph cannot be lowered, the whole graph runs eagerly (its GraphModule), unchanged: one graph is
never split into partitions, so a graph either runs entirely as actgrad.ge or entirely as eager PyTorch.
`lowering_report(gm)` says why a graph was not lowered.
"""
from __future__ import annotations

import functools

import torch

from .spec import BY_NAME


class _Unlowerable(Exception):
    pass


def _scalar_operand(builder, number, tensor, fn_name: str):
    """(tensor operand, constant, dtype to cast the result back to or None) for `tensor <fn_name> number` computed
    as ATen does: on float16/bfloat16, ATen's add and sub round the number to the tensor's dtype, its mul and div keep
    it as float32 and compute in float32."""
    from .ge.es.builtins import Cast  # noqa: PLC0415
    from .ge.graph.types import DataType  # noqa: PLC0415
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        raise _Unlowerable(f"operand {number!r} is neither a tensor nor a number")
    data_type = tensor._desc().data_type
    if data_type in (DataType.DT_FLOAT16, DataType.DT_BF16) and fn_name in ("Mul", "Div"):
        return Cast(tensor, dst_type=DataType.DT_FLOAT), builder._scalar_of(number, DataType.DT_FLOAT), data_type
    return tensor, builder._scalar_of(number, data_type), None


def _binary(fn_name, reflected: bool = False):
    """The lowering of `a <fn_name> b`; reflected: of `b <fn_name> a` (aten.rsub(a, b) is b - a)."""
    def lower(builder, env, args, kwargs):
        from .ge.es import builtins  # noqa: PLC0415
        if kwargs.get("alpha", 1) != 1 or set(kwargs) - {"alpha"} or len(args) != 2:
            raise _Unlowerable("alpha, rounding_mode or extra arguments")
        a, b = (env[x] if isinstance(x, torch.fx.Node) else x for x in args)
        fn = getattr(builtins, fn_name)
        if isinstance(b, torch.fx.Node) or hasattr(b, "_node"):
            if not hasattr(a, "_node"):
                raise _Unlowerable("a number as the first operand")
            return fn(b, a) if reflected else fn(a, b)
        a, constant, back = _scalar_operand(builder, b, a, fn_name)
        result = fn(constant, a) if reflected else fn(a, constant)
        return builtins.Cast(result, dst_type=back) if back is not None else result
    return lower


def _cast(builder, env, args, kwargs):
    from .ge.es.builtins import Cast  # noqa: PLC0415
    from .ge.graph._dtypes import to_ge  # noqa: PLC0415
    dtype = args[1] if len(args) > 1 else kwargs.get("dtype")
    extra = {k: v for k, v in kwargs.items() if k != "dtype"}
    if dtype is None or len(args) > 2 or extra.get("layout", torch.strided) != torch.strided or \
            extra.get("device", torch.device("cpu")) != torch.device("cpu") or set(extra) - {"layout", "device"}:
        raise _Unlowerable("a conversion other than a dtype change")
    return Cast(env[args[0]], dst_type=to_ge(dtype, "cast"))


def _unary(fn_name):
    def lower(builder, env, args, kwargs):
        from .ge.es import builtins  # noqa: PLC0415
        if len(args) != 1 or kwargs:
            raise _Unlowerable("extra arguments")
        return getattr(builtins, fn_name)(env[args[0]])
    return lower


def _actgrad(op):
    def lower(builder, env, args, kwargs):
        from .ge.es import actgrad as es_actgrad  # noqa: PLC0415
        values = list(args[2:]) + [kwargs.get(a.name, a.default) for a in op.attrs[len(args) - 2:]]
        attrs = {a.ir: (a.ir_value(v) if a.type == "str" else v) for a, v in zip(op.attrs, values)}
        return getattr(es_actgrad, op.op_type)(env[args[0]], env[args[1]], **attrs)
    return lower


@functools.cache
def _lowerings() -> dict:
    aten, prims = torch.ops.aten, torch.ops.prims
    table = {
        aten.add.Tensor: _binary("Add"), aten.sub.Tensor: _binary("Sub"), aten.mul.Tensor: _binary("Mul"),
        aten.div.Tensor: _binary("Div"), aten.rsub.Scalar: _binary("Sub", reflected=True),
        aten.rsub.Tensor: _binary("Sub", reflected=True),
        aten.neg.default: _unary("Neg"), aten.clone.default: _unary("Identity"),
        aten._to_copy.default: _cast, prims.convert_element_type.default: _cast,
    }
    table.update({getattr(torch.ops.actgrad, op.name).default: _actgrad(op) for op in BY_NAME.values()})
    return table


def _lower(gm: torch.fx.GraphModule):
    """(gm as an actgrad.ge Graph, the positions of gm's arguments the graph takes, which of gm's outputs it
    computes (the others are None)), or _Unlowerable saying which node and why."""
    from .ge.es import GraphBuilder  # noqa: PLC0415
    from .ge.graph._dtypes import GE_DTYPES  # noqa: PLC0415
    builder = GraphBuilder(type(gm).__name__)
    env, tensor_args, position, outputs = {}, [], -1, None
    for node in gm.graph.nodes:
        val = node.meta.get("val")
        if node.op == "placeholder":
            position += 1
            if isinstance(val, (int, torch.SymInt)):
                continue  # a size under dynamic shapes: the graph takes shapes from the tensors fed
            if not isinstance(val, torch.Tensor) or val.dtype not in GE_DTYPES or val.device.type != "cpu":
                raise _Unlowerable(f"input {node.name} is not a CPU tensor of a supported dtype")
            shape = list(val.shape) if all(isinstance(d, int) for d in val.shape) else None
            env[node] = builder.create_input(len(tensor_args), name=node.name, data_type=GE_DTYPES[val.dtype],
                                             shape=shape)
            tensor_args.append(position)
        elif node.op == "call_function":
            lower = _lowerings().get(node.target)
            if lower is None:
                raise _Unlowerable(f"node {node.name}: {node.target} has no lowering")
            try:
                held = lower(builder, env, node.args, node.kwargs)
            except KeyError as error:
                raise _Unlowerable(f"node {node.name}: operand {error} is not a lowered tensor") from None
            except (TypeError, ValueError) as error:
                raise _Unlowerable(f"node {node.name}: {error}") from None
            desc = held._desc()
            if not isinstance(val, torch.Tensor) or GE_DTYPES.get(val.dtype) != desc.data_type or (
                    desc.shape is not None and all(isinstance(d, int) for d in val.shape)
                    and tuple(val.shape) != desc.shape):
                raise _Unlowerable(f"node {node.name}: the lowered result's dtype or shape differs from ATen's")
            env[node] = held
        elif node.op == "output":
            outputs = list(node.args[0]) if isinstance(node.args[0], (tuple, list)) else [node.args[0]]
        else:
            raise _Unlowerable(f"node {node.name}: {node.op} nodes are not lowered")
    if not tensor_args:
        raise _Unlowerable("the graph has no inputs")
    if not all(o is None or (isinstance(o, torch.fx.Node) and o in env) for o in outputs):
        raise _Unlowerable("an output is not a tensor computed by the graph")
    held = [env[o] for o in outputs if o is not None]
    for i, tensor in enumerate(held):
        builder.set_graph_output(tensor, i)
    return builder.build_and_reset(), tensor_args, [o is not None for o in outputs]


def lowering_report(gm: torch.fx.GraphModule) -> str | None:
    """None if `gm` lowers to an actgrad.ge graph, else why it runs eagerly."""
    from torch._subclasses.fake_tensor import unset_fake_temporarily  # noqa: PLC0415
    try:
        with unset_fake_temporarily():
            _lower(gm)
    except _Unlowerable as reason:
        return str(reason)
    return None


def _compile(gm: torch.fx.GraphModule, example_inputs):
    from torch._subclasses.fake_tensor import unset_fake_temporarily  # noqa: PLC0415

    from .ge.session import Session  # noqa: PLC0415
    try:
        with unset_fake_temporarily():  # AOTAutograd compiles under FakeTensorMode; the constants must be real
            graph, tensor_args, present = _lower(gm)
    except _Unlowerable:
        return gm  # the whole graph eagerly
    session = Session()
    session.add_graph(0, graph)

    def run(*args):
        results = iter(session.run_graph(0, [args[i] for i in tensor_args]))
        return tuple(next(results) if p else None for p in present)

    run.actgrad_graph = graph  # for inspection (tests, debugging)
    return run


@functools.cache
def _backend():
    from torch._dynamo.backends.common import aot_autograd  # noqa: PLC0415 (1.5 s: only when compiling)
    return aot_autograd(fw_compiler=_compile, bw_compiler=_compile)


def compile_backend(gm: torch.fx.GraphModule, example_inputs):
    """The torch.compile backend (see the module docstring)."""
    return _backend()(gm, example_inputs)
