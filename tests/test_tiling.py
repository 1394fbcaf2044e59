"""actgrad.tiling(): the invariants of the block/tile split, and kernel runs at the numels where the split changes
(one unit, one tile, one block's worth, all cores, several tiles per block with a tail)."""
import math

import pytest
import torch

import harness as H
import reference as R
from test_shapes import ATTRS, data

# vector cores (GetCoreNumAiv) and UB bytes of each SoC: the platform numbers the twin models
SOC_CORES = {"Ascend910B1": 48, "Ascend910B2": 48, "Ascend910B3": 40, "Ascend910B4": 40, "Ascend910_93": 48,
             "Ascend950": 72}  # Ascend310P is not a kernel target: no tiling (test_tiling_bad_arguments)
SOC_UB = {"Ascend910B1": 196608, "Ascend910B2": 196608, "Ascend910B3": 196608, "Ascend910B4": 196608,
          "Ascend910_93": 196608, "Ascend950": 253952}
DT = [pytest.param(d, id=H.DTYPE_IDS[d]) for d in H.DTYPES]
NUMELS = [1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 255, 256, 257, 1023, 1024, 1025, 4095, 4096, 4097, 10000, 65537,
          48 * 4096 + 1, 10 ** 6 + 3, 2 ** 24 + 1, 2 ** 31 + 7, 2 ** 33 + 5, 3 * 10 ** 11 + 1]


def check_invariants(t, numel, dtype, soc):
    elem = torch.empty((), dtype=dtype).element_size()
    assert t.numel == numel and t.soc == soc
    assert 1 <= t.block_dim <= SOC_CORES[soc] and len(t.blocks) == t.block_dim
    assert t.unit_elems * elem == 32
    assert t.tile_length > 0 and t.tile_length % 256 == 0
    assert 0 < t.ub_bytes_used <= t.ub_bytes_available <= SOC_UB[soc]
    pos = 0
    lengths = []
    for i, b in enumerate(t.blocks):
        assert b.start == pos, (i, b)
        assert b.start % t.unit_elems == 0  # GM offsets 32-byte aligned
        assert b.length > 0
        assert b.tiles == math.ceil(b.length / t.tile_length)
        assert b.tail == b.length - (b.tiles - 1) * t.tile_length and 0 < b.tail <= t.tile_length
        pos += b.length
        lengths.append(b.length)
    assert pos == numel
    # whole units for every block but the last; sizes differ by at most one unit
    assert all(n % t.unit_elems == 0 for n in lengths[:-1])
    assert max(lengths[:-1] or lengths) - min(lengths[:-1] or lengths) <= t.unit_elems
    assert lengths[-1] <= max(lengths)
    if numel >= SOC_CORES[soc] * t.tile_length:
        assert t.block_dim == SOC_CORES[soc], "a large launch must use every vector core"


@pytest.mark.parametrize("soc", list(SOC_CORES))
@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("op", R.OP_NAMES)
def test_tiling_invariants(op, dtype, soc):
    for numel in NUMELS:
        t = H.ag().tiling(op, (numel,), dtype, soc=soc)
        check_invariants(t, numel, dtype, soc)
    # shape only matters through numel; dtype by name works too
    a = H.ag().tiling(op, (3, 5, 7), dtype, soc=soc)
    b = H.ag().tiling(op, (105,), R.DTYPE_NAMES[dtype], soc=soc)
    assert (a.block_dim, a.tile_length, a.blocks) == (b.block_dim, b.tile_length, b.blocks)


def test_tiling_bad_arguments():
    ag = H.ag()
    with pytest.raises(ValueError, match="empty"):
        ag.tiling("hardtanh_grad", (0,), torch.float32)
    with pytest.raises(ValueError, match="no_such_op"):
        ag.tiling("no_such_op", (5,), torch.float32)
    with pytest.raises(ValueError, match="Ascend123"):
        ag.tiling("hardtanh_grad", (5,), torch.float32, soc="Ascend123")
    with pytest.raises((ValueError, TypeError), match="float64|dtype"):
        ag.tiling("hardtanh_grad", (5,), torch.float64)
    for shape in [(-4, -2), (-4,), (2.5, 2), (True, 3), 12, "12", (1,) * 9]:
        with pytest.raises(ValueError, match="shape"):
            ag.tiling("hardtanh_grad", shape, torch.float32)
    with pytest.raises(RuntimeError, match="Ascend310P"):  # as a launch there is refused
        ag.tiling("hardtanh_grad", (4096,), torch.float32, soc="Ascend310P")
    # OpType accepted as well as the function name
    assert ag.tiling("HardtanhGrad", (5,), torch.float32).op_type == "HardtanhGrad"


def boundary_numels(op, dtype, soc=None):
    t = H.ag().tiling(op, (10 ** 8,), dtype, soc=soc)
    T, C, U = t.tile_length, t.block_dim, t.unit_elems
    return sorted({U - 1, U + 1, T - 1, T, T + 1, 2 * T + 3, C * U - 1, C * U + 1, C * T - 1, C * T + U + 1,
                   2 * C * T + 5 * U + 3})


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("op", R.OP_NAMES)
def test_kernel_at_tiling_boundaries(op, dtype):
    for n in boundary_numels(op, dtype):
        saved, grad = data((n,), dtype, seed=n % 1000)
        got = H.call(op, saved, grad, **ATTRS[op])
        H.check_op(op, got, saved, grad, ATTRS[op], f"{op} n={n}")
        # the whole range is written: in-place must also give the result everywhere
        g2 = grad.clone()
        H.call(op, saved, g2, out=g2, **ATTRS[op])
        assert R.same_values(g2, got).all(), f"in-place differs at n={n}"


@pytest.mark.parametrize("soc", ["Ascend910B3", "Ascend950"])
@pytest.mark.parametrize("dtype", DT)
def test_kernel_at_tiling_boundaries_other_socs(soc, dtype):
    for op in ("hardsigmoid_backward", "elu_backward", "soft_plus_backward"):
        with H.soc(soc):
            for n in boundary_numels(op, dtype, soc)[-3:]:
                saved, grad = data((n,), dtype, seed=n % 1000)
                got = H.call(op, saved, grad, **ATTRS[op])
                H.check_op(op, got, saved, grad, ATTRS[op], f"{op} {soc} n={n}")
