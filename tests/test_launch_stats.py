"""The twin's launch statistics agree with the host tiling: every block moves exactly its range, carves exactly the
UB the tiling accounts for, and splits its range into the tiles the tiling record lists."""
import pytest
import torch

import actgrad
from actgrad import _C


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("numel", [1, 33, 4097, 48 * 4096 + 1, 1 << 20])
def test_stats_match_tiling(numel, dtype):
    x = torch.randn(numel).to(dtype)
    g = torch.randn(numel).to(dtype)
    out = torch.empty_like(x)
    stats = _C.launch("ActgradHardtanhGrad", x, g, out, [-1.0, 1.0], "Ascend910B2", 0, True)
    plan = _C.tiling("ActgradHardtanhGrad", numel, str(dtype).removeprefix("torch."), "Ascend910B2")
    size = x.element_size()

    assert stats["block_dim"] == plan["block_dim"] == len(stats["blocks"])
    for block, planned in zip(stats["blocks"], plan["blocks"]):
        assert block["gm_bytes_read"] == 2 * planned["length"] * size
        assert block["gm_bytes_written"] == planned["length"] * size
        assert block["dma_transfers"] == 3 * planned["tiles"]  # two copies in, one out, per tile
        assert block["dma_bytes_max"] == min(planned["length"], plan["tile_length"]) * size
        assert block["ub_high_water"] == plan["ub_bytes_used"] <= plan["ub_bytes_available"]
        assert block["vector_instructions"] > 0
    assert sum(b["gm_bytes_written"] for b in stats["blocks"]) == numel * size
    assert torch.equal(out, torch.ops.aten.hardtanh_backward(g, x, -1.0, 1.0))


def test_stats_only_when_asked():
    x = torch.randn(100)
    assert _C.launch("ActgradHardtanhGrad", x, x, torch.empty_like(x), [-1.0, 1.0], "Ascend910B2") is None


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
    out = torch.empty_like(x)
    stats = _C.launch("ActgradHardtanhGrad", x, x, out, [-1.0, 1.0], "Ascend910B2", 0, True)
    expected = 1 if numel < 32768 else min(torch.get_num_threads(), stats["block_dim"])
    assert stats["threads"] == expected
    assert torch.equal(out, torch.ops.aten.hardtanh_backward(x, x, -1.0, 1.0))
