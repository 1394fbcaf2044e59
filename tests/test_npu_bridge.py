"""The NPU bridge (op_host/npu/aclnn_bridge.cpp) compiles against torch's headers, with a stand-in for torch_npu's
EXEC_NPU_CMD that binds its arguments as op-plugin does (tests/npu_stub/). The real build needs CANN and torch_npu
(scripts/build_npu_package.sh); this catches C++ errors in the bridge and its generated calls without them."""
import os
import pathlib
import subprocess
import sysconfig

import torch.utils.cpp_extension as cpp_extension

ROOT = pathlib.Path(__file__).resolve().parent.parent
CXX = os.environ.get("CXX", "g++")


def syntax_check(source: pathlib.Path, stub: pathlib.Path) -> subprocess.CompletedProcess:
    includes = [*cpp_extension.include_paths(), sysconfig.get_paths()["include"], stub, ROOT / "op_host",
                ROOT / "op_kernel"]
    cmd = [CXX, "-std=c++20", "-fsyntax-only", *(f"-I{p}" for p in includes), str(source)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600)


def test_the_bridge_compiles():
    result = syntax_check(ROOT / "op_host" / "npu" / "aclnn_bridge.cpp", ROOT / "tests" / "npu_stub")
    assert result.returncode == 0, result.stderr[-4000:]


def test_the_stub_refuses_a_temporary_argument(tmp_path):
    # the check above can fail: a call with a temporary (as `attrs[2] != 0.0` was) does not compile
    source = tmp_path / "temporary.cpp"
    source.write_text('#include "op_plugin/utils/op_api_common.h"\n'
                      "void Call(double a) { EXEC_NPU_CMD(aclnnX, a, a != 0.0); }\n")
    result = syntax_check(source, ROOT / "tests" / "npu_stub")
    assert result.returncode != 0 and "non-const lvalue reference" in result.stderr
