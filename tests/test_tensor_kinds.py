"""Every kind of tensor a PyTorch user can legally pass works, or raises a clear error naming the argument; none
crashes the interpreter (a negative-bit view as out= used to abort it in ATen's math-bit fallback)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

import harness as H

PROBE = Path(__file__).with_name("tensor_kinds_probe.py")
OPS = list(H.R.SPEC.BY_NAME)
# out= tensors ATen refuses as well; the error names out and leaves it untouched (the probe checks that)
REFUSED_OUT = {
    "expand_zero_stride": "out has elements that share memory",
    "as_strided_overlap": "out has elements that share memory",
    "inference_tensor_outside_inference_mode": "out is an inference tensor",
}


@pytest.fixture(scope="module")
def results():
    run = subprocess.run([sys.executable, str(PROBE)], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"the probe died (status {run.returncode}):\n{run.stderr[-3000:]}"
    return json.loads(run.stdout)


def test_every_case_of_every_operator_ran(results):
    assert {key.split("/")[0] for key in results} == set(OPS)
    assert len(results) == len(OPS) * len({key.split("/")[1] for key in results})


@pytest.mark.parametrize("op", OPS)
def test_each_kind_computes_the_plain_result_or_is_refused_naming_out(results, op):
    for key, outcome in results.items():
        name, case = key.split("/")
        if name != op:
            continue
        refused = REFUSED_OUT.get(case.removeprefix("out:"))
        if refused is None:
            assert outcome == "ok", f"{key}: {outcome}"
        else:
            assert outcome.startswith(f"RuntimeError: actgrad.{op}: {refused}"), f"{key}: {outcome}"
