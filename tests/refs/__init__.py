"""What the tests know of each operator beyond its spec, one OpRef per operator, grouped by math family.

tests/reference.py gathers them into ``REFS`` (op name -> OpRef); every test that needs per-operator knowledge (the
reference values, the attribute sets it sweeps, the saved values around which the derivative changes form, PyTorch's
counterpart) reads it from there, so adding an operator adds one record here and nothing in the test files.

Conventions of the callables: ``x`` is the saved tensor's values and ``g`` the incoming gradient's, as NumPy arrays
(float64 for ``f64``, float32 for ``f32``), whatever the operator's IR order; attributes come as keywords, every
one of them (spec defaults filled in, required ones from ``required``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class OpRef:
    op: str  # the spec's op name
    # the contract's value in float64: NaN in x or g gives NaN; infinite x gives g times the derivative's limit; an
    # infinite g where the f32 derivative is exactly 0 gives 0
    f64: Callable[..., np.ndarray]
    cases: tuple[dict, ...]  # attribute sets of the exhaustive sweeps (tests/sweeps.py); the first is the defaults
    typical: dict  # attributes under which random N(0, 3) saved values cross every change of form
    bounds: Callable[[dict], list[float]]  # saved values where the derivative changes form
    required: dict = field(default_factory=dict)  # values of required attributes when a test does not choose them
    # the float32 steps of a bit-exact (piecewise-linear) form, rounded once to the output dtype by the tests
    f32: Callable[..., np.ndarray] | None = None
    # whether attrs select the bit-exact form (f32); None: exactly when f32 is given
    exact: Callable[[dict], bool] | None = None
    # f32 ulp target of a transcendental form: 4 for one transcendental factor, 8 for compound ones; a callable of
    # the attributes where the forms differ (SigmoidBackward: 4 from the forward output, 8 from the input)
    f32_ulp: int | Callable[[dict], int] = 4
    # absolute error allowed besides the ulp target, per element (float64 array, 0 where none): 1e-6*|g| where terms
    # of the derivative cancel, 4*|g*coef|*2**-149 where exp underflows (contract A.2)
    abs_bound: Callable[..., np.ndarray] | None = None
    # PyTorch's result for (saved, grad) tensors and the attributes, where PyTorch has the operator
    torch: Callable | None = None
    # a hand-written accuracy check replacing the generic one (the founding transcendental operators)
    check: Callable | None = None

    def ulp_f32(self, attrs: dict) -> int:
        """The f32 ulp target for these (complete) attributes."""
        return self.f32_ulp(attrs) if callable(self.f32_ulp) else self.f32_ulp

    def is_exact(self, attrs: dict) -> bool:
        return self.exact(attrs) if self.exact is not None else self.f32 is not None
