"""Every kind of tensor a PyTorch user can pass, as an input and as out=, through every operator (run by
tests/test_tensor_kinds.py in a subprocess, so that a crash fails the test instead of killing pytest).

Prints one JSON object: {"<op>/<case>": "ok" | "<ExceptionType>: <message>"}. "ok" means the result equals the same
operator on plain contiguous copies of the inputs, bit for bit, and no input changed.
"""
import json
import sys

import numpy as np
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import harness as H  # noqa: E402

import actgrad  # noqa: E402

N = 8


class Tagged(torch.Tensor):
    """A tensor subclass as users write them (no __torch_function__ override)."""


def plain_inputs():
    return torch.linspace(-2.5, 2.5, N), torch.linspace(1.0, 2.0, N)


def run(op, saved, grad, out=None):
    # a row reduction along the last axis, which every kind here has (the 2-d column-major view's rows are its own)
    return H.call(op, saved, grad, out=out, **({"axis": -1} if op in H.R.ROW_OP_NAMES else {}))


def plain(t):
    """A plain contiguous tensor of t's values and shape."""
    return t.resolve_neg().as_subclass(torch.Tensor).contiguous().clone()


def same(a, b):
    return a.numel() == b.numel() and torch.equal(a.resolve_neg().reshape(-1), b.reshape(-1))


def neg_view(t):
    return torch._neg_view(-t)  # reads as t


def conj_imag(t):
    c = torch.complex(torch.zeros_like(t), -t)
    return c.conj().imag  # a negative-bit view that reads as t


def overlapping(t):
    base = torch.cat([t, t])
    return base.as_strided((N,), (1,))  # overlaps base: harmless as an input


INPUT_KINDS = {
    "neg_view": neg_view,
    "conj_imag": conj_imag,
    "expand_zero_stride": lambda t: t.unsqueeze(0).expand(3, N)[1],
    "as_strided_overlap": overlapping,
    "subclass": lambda t: t.clone().as_subclass(Tagged),
    "from_numpy": lambda t: torch.from_numpy(t.numpy().copy()),
    "dlpack": lambda t: torch.from_dlpack(np.ascontiguousarray(t.numpy())),
    "column_major": lambda t: t.reshape(N // 2, 2).t().contiguous().t(),  # non-contiguous 2-d view
}

OUT_KINDS = {
    "neg_view": lambda like: torch._neg_view(torch.zeros_like(like)),
    "conj_imag": lambda like: torch.zeros(like.shape, dtype=torch.complex64).conj().imag,
    "subclass": lambda like: torch.zeros_like(like).as_subclass(Tagged),
    "from_numpy": lambda like: torch.from_numpy(np.zeros(like.shape, dtype=np.float32)),
    "dlpack": lambda like: torch.from_dlpack(np.zeros(like.shape, dtype=np.float32)),
    "strided": lambda like: torch.zeros(2 * N)[::2],
    "expand_zero_stride": lambda like: torch.zeros(1).expand(N),
    "as_strided_overlap": lambda like: torch.zeros(N).as_strided((N,), (0,)),
}


def outcome(fn):
    try:
        return fn()
    except Exception as error:  # noqa: BLE001 - every error is reported to the parent
        return f"{type(error).__name__}: {str(error).splitlines()[0]}"


def main():
    results = {}
    for op in actgrad.__all__:
        if op not in H.R.SPEC.BY_NAME:
            continue
        saved, grad = plain_inputs()
        want = run(op, saved, grad)

        for kind, make in INPUT_KINDS.items():
            def case(make=make):
                s, g = make(saved), make(grad)
                before = (s.clone().resolve_neg(), g.clone().resolve_neg())
                got = run(op, s, g)
                unchanged = same(s, before[0]) and same(g, before[1])
                want_here = run(op, plain(s), plain(g))  # want, in the kind's shape
                return "ok" if same(got, want_here) and unchanged else f"wrong: {got} vs {want_here}"
            results[f"{op}/in:{kind}"] = outcome(case)

        for kind, make in OUT_KINDS.items():
            def case(make=make):
                out = make(want)
                before = out.clone().resolve_neg()
                try:
                    run(op, saved, grad, out=out)
                except Exception:
                    if not torch.equal(out.clone().resolve_neg(), before):
                        return "wrong: out written before the error"
                    raise
                return "ok" if same(out, want) else f"wrong: {out} vs {want}"
            results[f"{op}/out:{kind}"] = outcome(case)

        def in_place_neg_view():
            g = neg_view(grad)
            run(op, saved, g, out=g)
            return "ok" if same(g, want) else f"wrong: {g} vs {want}"
        results[f"{op}/out:neg_view_of_grad_in_place"] = outcome(in_place_neg_view)

        def inference_mode():
            with torch.inference_mode():
                s, g = saved.clone(), grad.clone()
                got = run(op, s, g)
                out = torch.empty_like(s)
                run(op, s, g, out=out)
            return "ok" if same(got, want) and same(out, want) else "wrong"
        results[f"{op}/inference_mode"] = outcome(inference_mode)

        def inference_tensor_as_out_outside():
            with torch.inference_mode():
                out = torch.zeros_like(saved)
            run(op, saved, grad, out=out)
            return "ok" if same(out, want) else "wrong"
        results[f"{op}/out:inference_tensor_outside_inference_mode"] = outcome(inference_tensor_as_out_outside)

        def meta():
            got = run(op, saved.to("meta"), grad.to("meta"))
            out = torch.empty(N, device="meta")
            run(op, saved.to("meta"), grad.to("meta"), out=out)
            return "ok" if got.device.type == "meta" and got.shape == want.shape else "wrong"
        results[f"{op}/meta"] = outcome(meta)

        def fake():
            with FakeTensorMode() as mode:
                got = run(op, mode.from_tensor(saved), mode.from_tensor(grad))
            return "ok" if got.shape == want.shape and got.dtype == want.dtype else "wrong"
        results[f"{op}/fake"] = outcome(fake)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
