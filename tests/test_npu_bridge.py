"""The NPU bridge (actgrad._npu: op_host/npu/aclnn_bridge.cpp and the sources npu/CMakeLists.txt links into it)
compiles against torch's headers and leaves no actgrad symbol undefined, with a stand-in for torch_npu's
EXEC_NPU_CMD that binds its arguments as op-plugin does (tests/npu_stub/). The real build needs CANN and torch_npu
(scripts/build_npu_package.sh); this catches C++ and link errors in the bridge and its generated calls without them."""
import os
import pathlib
import re
import subprocess
import sysconfig

import torch
import torch.utils.cpp_extension as cpp_extension

ROOT = pathlib.Path(__file__).resolve().parent.parent
CXX = os.environ.get("CXX", "g++")
STUB = ROOT / "tests" / "npu_stub"


def bridge_sources() -> list[pathlib.Path]:
    """The sources of the actgrad_npu_bridge target, as npu/CMakeLists.txt lists them."""
    cmake = (ROOT / "npu" / "CMakeLists.txt").read_text()
    body = re.search(r"Python3_add_library\(actgrad_npu_bridge MODULE WITH_SOABI(.*?)\)", cmake, re.S).group(1)
    return [ROOT / p.replace("${ACTGRAD_ROOT}/", "") for p in body.split()]


def compile_cmd(source: pathlib.Path, *flags: str) -> list[str]:
    includes = [*cpp_extension.include_paths(), sysconfig.get_paths()["include"], STUB, ROOT / "op_host",
                ROOT / "op_kernel"]
    abi = f"-D_GLIBCXX_USE_CXX11_ABI={int(torch._C._GLIBCXX_USE_CXX11_ABI)}"
    return [CXX, "-std=c++20", abi, *flags, *(f"-I{p}" for p in includes), str(source)]


def run(cmd: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600)


def actgrad_symbols(obj: pathlib.Path, undefined: bool) -> set[str]:
    """The mangled names of namespace actgrad's symbols that `obj` defines (or needs)."""
    listing = run(["nm", "--undefined-only" if undefined else "--defined-only", str(obj)]).stdout
    return {line.split()[-1] for line in listing.splitlines() if "7actgrad" in line}


def test_the_bridge_compiles_and_links(tmp_path):
    sources = bridge_sources()
    assert [s.name for s in sources][:1] == ["aclnn_bridge.cpp"] and all(s.exists() for s in sources)
    objects = []
    for source in sources:
        obj = tmp_path / (source.stem + ".o")
        result = run(compile_cmd(source, "-c", "-O0", "-fPIC", "-o", str(obj)))
        assert result.returncode == 0, result.stderr[-4000:]
        objects.append(obj)
    defined = set().union(*(actgrad_symbols(o, undefined=False) for o in objects))
    undefined = set().union(*(actgrad_symbols(o, undefined=True) for o in objects)) - defined
    assert not undefined, f"the bridge would not link: {sorted(undefined)}"


def test_the_stub_refuses_a_temporary_argument(tmp_path):
    # the compile above can fail: a call with a temporary (as `attrs[2] != 0.0` was) does not compile
    source = tmp_path / "temporary.cpp"
    source.write_text('#include "op_plugin/utils/op_api_common.h"\n'
                      "void Call(double a) { EXEC_NPU_CMD(aclnnX, a, a != 0.0); }\n")
    result = run(compile_cmd(source, "-fsyntax-only"))
    assert result.returncode != 0 and "non-const lvalue reference" in result.stderr
