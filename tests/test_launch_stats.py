"""The twin's launch statistics (actgrad.launch_stats) agree with the host tiling: every block moves exactly its range,
carves exactly the UB the tiling accounts for, and splits its range into the tiles the tiling record lists. The call
checks its arguments as the operator does; out may be the gradient itself or disjoint from the inputs, nothing else."""
import pytest
import torch

import actgrad
from actgrad import _C


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("numel", [1, 33, 4097, 48 * 4096 + 1, 1 << 20])
def test_stats_match_tiling(numel, dtype):
    x = torch.randn(numel).to(dtype)
    g = torch.randn(numel).to(dtype)
    stats = actgrad.launch_stats("hardtanh_grad", x, g, -1.0, 1.0)
    plan = actgrad.tiling("hardtanh_grad", x.shape, dtype, soc="Ascend910B2")
    size = x.element_size()

    assert (stats.op_type, stats.kernel, stats.soc) == ("ActgradHardtanhGrad", "actgrad_hardtanh_grad", "Ascend910B2")
    assert stats.dtype == str(dtype).removeprefix("torch.") and stats.numel == numel
    assert stats.block_dim == plan.block_dim == len(stats.blocks)
    for i, (block, planned) in enumerate(zip(stats.blocks, plan.blocks)):
        assert block.block == i
        assert block.gm_bytes_read == 2 * planned.length * size
        assert block.gm_bytes_written == planned.length * size
        assert block.dma_transfers == 3 * planned.tiles  # two copies in, one out, per tile
        assert block.dma_bytes_max == min(planned.length, plan.tile_length) * size
        assert block.ub_high_water == plan.ub_bytes_used <= plan.ub_bytes_available
        assert block.vector_instructions > 0
    assert sum(b.gm_bytes_written for b in stats.blocks) == numel * size
    assert torch.equal(stats.out, torch.ops.aten.hardtanh_backward(g, x, -1.0, 1.0))


def test_stats_of_every_operator_and_of_an_out_call():
    x, g = 3 * torch.randn(5000), torch.randn(5000)
    for op, attrs in [("hardsigmoid_backward", {}), ("clamp_backward", {"min": -0.5, "max": 0.5}),
                      ("elu_backward", {"alpha": 1.0, "use_dst": False}), ("soft_plus_backward", {"beta": 2.0})]:
        spec = actgrad.spec.BY_NAME[op]
        tensors = (x, g) if spec.saved_index == 0 else (g, x)
        functional = actgrad.launch_stats(op, *tensors, **attrs)
        assert torch.equal(functional.out, getattr(actgrad, op)(*tensors, **attrs))
        out = torch.empty_like(x)
        into = actgrad.launch_stats(spec.op_type, *tensors, **attrs, out=out)  # by OpType
        assert into.out is out and torch.equal(out, functional.out)
        assert into.blocks == functional.blocks
        assert into.block_dim == functional.block_dim == actgrad.tiling(op, x.shape, x.dtype).block_dim == 4


def test_in_place_into_the_gradient():
    x, g = 3 * torch.randn(9000), torch.randn(9000)
    want = torch.ops.aten.elu_backward(g, 0.5, 1.0, 1.0, False, x)
    stats = actgrad.launch_stats("elu_backward", x, g, 0.5, False, out=g)
    assert stats.out is g
    torch.testing.assert_close(g, want, rtol=4 * torch.finfo(torch.float32).eps, atol=1e-30)


N = 10000
# (saved, grad, out) over one buffer `base` of 4N floats, and the input out is refused for
OVERLAPS = {
    "out_overlaps_grad": (lambda b: (torch.randn(N), b[:N], b[1:N + 1]), "grad"),
    "out_overlaps_saved": (lambda b: (b[:N], torch.randn(N), b[N // 2:N // 2 + N]), "result"),
    "out_is_saved": (lambda b: (b[:N], torch.randn(N), b[:N]), "result"),
    "out_is_grad_with_other_strides": (lambda b: (torch.randn(N), b[:2 * N:2], b[:N]), "grad"),
    "out_interleaved_with_grad": (lambda b: (torch.randn(N), b[:2 * N:2], b[1:2 * N:2]), "grad"),  # by its span
    "out_2d_overlapping_grad": (lambda b: (torch.randn(100, 100), b[:N].view(100, 100),
                                           b[50:N + 50].view(100, 100)), "grad"),
}


@pytest.mark.parametrize("case", list(OVERLAPS))
def test_out_sharing_memory_with_an_input_is_refused(case):
    base = torch.randn(4 * N)
    make, name = OVERLAPS[case]
    saved, grad, out = make(base)
    before = base.clone(), saved.clone(), grad.clone()
    with pytest.raises(RuntimeError, match=rf"actgrad\.hardtanh_grad: out shares memory with {name}; out may be grad "
                                           r"itself \(in place\) or share no memory with result and grad"):
        actgrad.launch_stats("hardtanh_grad", saved, grad, out=out)
    assert torch.equal(base, before[0]) and torch.equal(saved, before[1]) and torch.equal(grad, before[2])


def test_out_next_to_the_inputs_is_accepted():
    base = torch.randn(3 * N)
    saved, grad, out = base[:N], base[N:2 * N], base[2 * N:]
    want = torch.ops.aten.hardtanh_backward(grad, saved, -1.0, 1.0)
    assert actgrad.launch_stats("hardtanh_grad", saved, grad, out=out).out is out
    assert torch.equal(out, want)


def test_the_raw_launch_refuses_partial_overlap_too():
    base = torch.randn(3000)
    saved, grad, out = torch.randn(2000), base[:2000], base[1:2001]
    before = base.clone()
    with pytest.raises(RuntimeError, match=r"out shares memory with grad; out may be grad itself \(in place\)"):
        _C.launch("ActgradHardtanhGrad", saved, grad, out, [-1.0, 1.0], "Ascend910B2")
    assert torch.equal(base, before)
    # exactly the gradient is in place; exactly the saved tensor is refused
    _C.launch("ActgradHardtanhGrad", saved, grad, grad, [-1.0, 1.0], "Ascend910B2")
    assert torch.equal(grad, torch.ops.aten.hardtanh_backward(before[:2000], saved, -1.0, 1.0))
    with pytest.raises(RuntimeError, match="out shares memory with result"):
        _C.launch("ActgradHardtanhGrad", saved, grad, saved, [-1.0, 1.0], "Ascend910B2")


def test_launch_stats_checks_its_arguments_as_the_operator_does():
    x, g = torch.randn(64), torch.randn(64)
    for bad in [lambda f: f(x, g.double()), lambda f: f(x, torch.randn(65)), lambda f: f(x, g, float("nan")),
                lambda f: f(x, g, True), lambda f: f(x, g, -1.0, 1.0, out=torch.empty(64, dtype=torch.half))]:
        with pytest.raises(Exception) as theirs:
            bad(actgrad.hardtanh_grad)
        with pytest.raises(type(theirs.value)) as ours:
            bad(lambda *a, **k: actgrad.launch_stats("hardtanh_grad", *a, **k))
        assert str(ours.value) == str(theirs.value)
    with pytest.raises(TypeError, match=r"actgrad\.elu_backward: missing a required argument: 'alpha'"):
        actgrad.launch_stats("elu_backward", x, g)
    with pytest.raises(ValueError, match="unknown operator 'relu_grad'"):
        actgrad.launch_stats("relu_grad", x, g)
    with pytest.raises(ValueError, match="an empty tensor launches no kernel"):
        actgrad.launch_stats("hardtanh_grad", x[:0], g[:0])
    with pytest.raises(RuntimeError, match="launch_stats runs the kernel on the CPU twin; result is on meta"):
        actgrad.launch_stats("hardtanh_grad", x.to("meta"), g.to("meta"))
    with pytest.raises(ValueError, match="unknown SoC 'Ascend000'"):
        actgrad.launch_stats("hardtanh_grad", x, g, soc="Ascend000")


def test_soc_argument_runs_as_that_soc_for_this_call_only():
    x = torch.randn(1 << 20)
    stats = actgrad.launch_stats("hardtanh_grad", x, x, soc="Ascend950")
    assert stats.soc == "Ascend950" and stats.block_dim == actgrad.tiling("hardtanh_grad", x.shape, x.dtype,
                                                                          soc="Ascend950").block_dim == 72
    assert actgrad.default_soc() == "Ascend910B2"
    assert actgrad.launch_stats("hardtanh_grad", x, x).soc == "Ascend910B2"
    with pytest.raises(RuntimeError, match="Ascend310P"):  # not a kernel target, refused as its launches are
        actgrad.launch_stats("hardtanh_grad", x, x, soc="Ascend310P")


def test_block_ranges_are_aligned_and_balanced():
    plan = actgrad.tiling("hardtanh_grad", (48 * 4096 + 1,), torch.float32)
    raw = _C.tiling("ActgradHardtanhGrad", 48 * 4096 + 1, "float32", "Ascend910B2")
    starts = [b["start"] for b in raw["blocks"]]
    lengths = [b["length"] for b in raw["blocks"]]
    assert all(s * 4 % 32 == 0 for s in starts)
    assert max(lengths) - min(lengths) <= raw["unit_elems"]
    assert plan.block_dim == raw["block_dim"] == 48


@pytest.mark.parametrize("numel", [4096, 32767, 32768, 1 << 20])
def test_small_launches_stay_on_the_calling_thread(numel):
    # as ATen's elementwise kernels: below its grain size (32768 elements) no worker is woken
    x = torch.randn(numel)
    stats = actgrad.launch_stats("hardtanh_grad", x, x)
    expected = 1 if numel < 32768 else min(torch.get_num_threads(), stats.block_dim)
    assert stats.threads == expected
    assert torch.equal(stats.out, torch.ops.aten.hardtanh_backward(x, x, -1.0, 1.0))
