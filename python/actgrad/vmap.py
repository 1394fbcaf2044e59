"""Batching rules: torch.vmap (torch.func.vmap) over the operators, nested or not, runs them once on the whole batch.

Without a rule PyTorch falls back to running the operator once per sample, with a warning asking to report the
missing rule, and refuses the .out overloads outright. The operators are elementwise or reduce along one axis, so a
batch is one call (a row operator's axis moved past the batch dimension):

- functional: torch.library.register_vmap. The vmapped inputs get their batch dimension in front (an input that is
  not vmapped is expanded to the batch), the operator runs once and the result is vmapped along dimension 0.
- .out (a mutable op, which torch.library.register_vmap does not take: `out` is keyword-only): a FuncTorchBatched
  kernel that writes every sample's result into its sample of `out`, which must then be vmapped too. An `out`
  without the batch dimension while an input has it would receive every sample's result; that is refused with a
  RuntimeError naming the operator, the input and `out` (as ATen refuses an in-place write of a batched value into
  an unbatched tensor).

Arguments are checked per sample first (the checks of checks.py, with their messages), so an error reads as it
would in the per-sample loop. A per-sample rank of MAX_RANK is still accepted: the batch dimension is merged into
the next one for the call.
"""
from __future__ import annotations

from collections.abc import Iterable

import torch
from torch._functorch.pyfunctorch import retrieve_current_functorch_interpreter

from .checks import check_inputs, check_out, reduction_axis
from .schema import NAMESPACE
from .spec import MAX_RANK, OPS, OpSpec

_registered: set[str] = set()  # qualified names whose rules are registered (register() is idempotent)


def _sample(t: torch.Tensor, bdim: int | None, batch: int) -> torch.Tensor:
    """One sample of t (all of t when it is not vmapped), for the per-sample checks."""
    if bdim is None:
        return t
    if batch > 0:
        return t.select(bdim, 0)
    shape = list(t.shape)
    del shape[bdim]
    return torch.empty(shape, dtype=t.dtype, device="meta")


def _batched(t: torch.Tensor, bdim: int | None, batch: int) -> torch.Tensor:
    """t with the batch dimension in front: moved there, or added by expanding."""
    if bdim is None:
        return t.unsqueeze(0).expand(batch, *t.shape)
    return t.movedim(bdim, 0)


def _merge(t: torch.Tensor) -> torch.Tensor:
    return t.flatten(0, 1) if t.dim() > MAX_RANK else t


def _batched_attrs(op: OpSpec, attrs: tuple, sample: torch.Tensor, merged: bool) -> tuple | None:
    """The attributes of the call on the whole batch: a row operator's axis moves past the batch dimension in front
    (or, merged into the sample's first dimension, stays), after the per-sample check of the axis. None: the batch
    cannot be one call (the axis is the sample dimension the batch was merged into)."""
    if op.family != "row":
        return attrs
    axis = reduction_axis(op, attrs[0] if attrs else op.attrs[0].default, sample.dim())
    if merged:
        return None if axis == 0 else (axis,)
    return (axis + 1,)


def _run_batched(packet, op: OpSpec, b0: torch.Tensor, b1: torch.Tensor, attrs: tuple, sample: torch.Tensor,
                 out: torch.Tensor | None = None) -> torch.Tensor:
    """The operator on two batched inputs (batch dimension in front), into `out` when given (also batched)."""
    merged = b0.dim() > MAX_RANK
    batch_attrs = _batched_attrs(op, attrs, sample, merged)
    if batch_attrs is None:  # one call per sample: a rank-MAX_RANK sample reduced along its first dimension
        result = torch.stack([packet.default(x, y, *attrs) for x, y in zip(b0, b1)])
    elif merged:
        result = packet.default(_merge(b0), _merge(b1), *batch_attrs).unflatten(0, b0.shape[:2])
    elif out is not None:
        packet.out(b0, b1, *batch_attrs, out=out)
        return out
    else:
        result = packet.default(b0, b1, *batch_attrs)
    if out is not None:
        out.copy_(result)
    return result


def functional_rule(op: OpSpec):
    packet = getattr(getattr(torch.ops, NAMESPACE), op.name)

    def rule(info, in_dims, in0, in1, *attrs):
        d0, d1 = in_dims[0], in_dims[1]
        batch = info.batch_size
        sample0 = _sample(in0, d0, batch)
        check_inputs(op, sample0, _sample(in1, d1, batch))
        b0, b1 = _batched(in0, d0, batch), _batched(in1, d1, batch)
        return _run_batched(packet, op, b0, b1, attrs, sample0), 0

    return rule


def out_kernel(op: OpSpec):
    packet = getattr(getattr(torch.ops, NAMESPACE), op.name)
    fn = f"actgrad.{op.name}"
    exclude_batched = torch._C.DispatchKeySet(torch._C.DispatchKey.FuncTorchBatched)

    def kernel(keyset, in0, in1, *attrs, out):
        interpreter = retrieve_current_functorch_interpreter()
        level, batch = interpreter.level(), interpreter.batch_size()

        def unwrap(t):
            if isinstance(t, torch.Tensor):
                return torch._C._functorch._unwrap_batched(t, level)
            return t, None

        (p0, d0), (p1, d1), (po, do) = unwrap(in0), unwrap(in1), unwrap(out)
        with torch._C._ExcludeDispatchKeyGuard(exclude_batched):
            if d0 is None and d1 is None and do is None:
                packet.out(p0, p1, *attrs, out=po)
                return
            sample0 = _sample(p0, d0, batch)
            check_inputs(op, sample0, _sample(p1, d1, batch))
            if do is None:
                vmapped = op.inputs[0] if d0 is not None else op.inputs[1]
                raise RuntimeError(
                    f"{fn}: vmap over a call with out= needs out to be vmapped when an input is: {vmapped} has the "
                    f"batch dimension and out does not, so every sample would write its result into the same out. "
                    f"Vmap out too, or call {fn} without out= and use the result it returns.")
            check_out(op, _sample(po, do, batch), _sample(p0, d0, batch))
            target = po.movedim(do, 0)  # a view: writing it writes out
            b0, b1 = _batched(p0, d0, batch), _batched(p1, d1, batch)
            # merging out's first two dimensions may copy: then the result is computed beside it and copied in
            _run_batched(packet, op, b0, b1, attrs, sample0, target)

    return kernel


def register(lib_or_ops: torch.library.Library | Iterable[OpSpec] = OPS, ops: Iterable[OpSpec] | None = None) -> None:
    """Register the batching rules of `ops` (default: every operator of the spec), functional and .out, in `lib`
    (a torch.library.Library of the operators' namespace), or in a library of their own when given the ops alone.
    Registering an operator a second time does nothing."""
    if isinstance(lib_or_ops, torch.library.Library):
        lib, chosen = lib_or_ops, OPS if ops is None else ops
    else:
        lib, chosen = None, lib_or_ops
    for op in chosen:
        name = f"{NAMESPACE}::{op.name}"
        if name in _registered:
            continue
        if lib is None:
            lib = torch.library.Library(NAMESPACE, "FRAGMENT")
            _libraries.append(lib)
        torch.library.register_vmap(name, functional_rule(op), lib=lib)
        lib.impl(f"{op.name}.out", out_kernel(op), "FuncTorchBatched", with_keyset=True)
        _registered.add(name)


_libraries: list[torch.library.Library] = []  # the libraries register() made, kept alive with their registrations
