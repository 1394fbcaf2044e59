"""Loads a test build of actgrad._npu (argv[1]) linked with fake_npu_runtime.cpp and runs its launch on CPU tensors
against the fake package library of ASCEND_CUSTOM_OPP_PATH (argv[2] names the one expected to serve): a ClampBackward
that succeeds, one whose phase 1 fails, and a HardtanhGrad the fake package lacks. Prints what happened as JSON."""
import ctypes
import importlib.util
import json
import os
import sys

import torch

bridge_path, library_path = sys.argv[1:3]
spec = importlib.util.spec_from_file_location("_npu", bridge_path)
bridge = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bridge)
fake_runtime = ctypes.CDLL(bridge_path)  # the same loaded object
fake_library = ctypes.CDLL(library_path)
fake_library.fake_log.restype = ctypes.c_char_p

x = torch.tensor([[-2.0, -0.5, 0.5], [2.0, 0.9, -1.0]])
grad = torch.arange(1.0, 7.0).reshape(2, 3)
out = torch.full((2, 3), 99.0)
result = {}
bridge.launch("ActgradClampBackward", x, grad, out, [-1.0, 1.0, 1.0])
result["out"] = out.tolist()
result["log"] = fake_library.fake_log().decode()
result["destroyed"] = fake_runtime.fake_destroyed_tensors()

os.environ["FAKE_ACLNN_STATUS"] = "161002"
try:
    bridge.launch("ActgradClampBackward", x, grad, out, [-1.0, 1.0, 0.0])
except RuntimeError as error:
    result["phase1_error"] = str(error)
result["log_failed"] = fake_library.fake_log().decode()
result["destroyed_failed"] = fake_runtime.fake_destroyed_tensors()

try:
    bridge.launch("ActgradHardtanhGrad", x, grad, out, [-1.0, 1.0])
except RuntimeError as error:
    result["missing_error"] = str(error)
print(json.dumps(result))
