"""The NPU bridge (actgrad._npu: op_host/npu/aclnn_bridge.cpp and the sources npu/CMakeLists.txt links into it)
compiles against torch's headers and leaves no actgrad symbol undefined, with a stand-in for torch_npu's
EXEC_NPU_CMD that binds its arguments as op-plugin does (tests/npu_stub/). The real build needs CANN and torch_npu
(scripts/build_npu_package.sh); this catches C++ and link errors in the bridge and its generated calls without them.

With stand-ins for torch_npu and the bridge (tests/npu_stub/), npu.register() gives the operators the bridge's
PrivateUse1 kernels only where torch_npu will find the installed CANN package; elsewhere they say how to get it."""
import json
import os
import pathlib
import re
import subprocess
import sys
import sysconfig

import torch
import torch.utils.cpp_extension as cpp_extension

from actgrad import npu
from actgrad.spec import OPS

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


# The PrivateUse1 kernels npu.register() gives with the bridge built, by where the CANN package is


STUB_BRIDGE_ERRORS = {f"actgrad::{op.name}{suffix}": f"stub actgrad._npu kernel of {op.op_type}"
                      for op in OPS for suffix in ("", ".out")}  # what tests/npu_stub/bridge/_npu.py's kernels raise
OVERLOADS = sorted(STUB_BRIDGE_ERRORS)
PACKAGE_VARIABLES = ("ASCEND_CUSTOM_OPP_PATH", "ASCEND_OPP_PATH")


def private_use1_errors(**package_env: str) -> dict[str, str]:
    """{overload: the error its PrivateUse1 kernel raises} after npu.register() with the stub torch_npu and bridge
    (tests/npu_stub/private_use1_errors.py), in a process whose CANN package variables are `package_env` only."""
    env = {k: v for k, v in os.environ.items() if k not in PACKAGE_VARIABLES}
    result = subprocess.run([sys.executable, str(STUB / "private_use1_errors.py"), "--bridge"], env=env | package_env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout)


def installed_package(vendors: pathlib.Path, vendor: str = "actgrad", api: str = npu.PACKAGE_API) -> pathlib.Path:
    """<vendors>/<vendor> laid out as the package's .run installs it, its aclnn library a stand-in whose string table
    names `api` among other exports."""
    library = vendors / vendor / "op_api" / "lib" / "libcust_opapi.so"
    library.parent.mkdir(parents=True)
    library.write_bytes(b"\x7fELF\0aclnnOtherGetWorkspaceSize\0" + f"{api}GetWorkspaceSize\0{api}\0".encode())
    return vendors / vendor


def assert_package_not_visible(errors: dict[str, str], custom_opp_path: str) -> None:
    assert sorted(errors) == OVERLOADS
    for message in errors.values():
        assert message.startswith("actgrad's NPU bridge actgrad._npu is built, but torch_npu cannot see actgrad's "
                                  "CANN operator package"), message
        assert (f"no op_api/lib/libcust_opapi.so exporting aclnnActgradHardtanhGrad is in a vendor directory on "
                f"ASCEND_CUSTOM_OPP_PATH ({custom_opp_path})") in message
        assert "source <install dir>/vendors/actgrad/bin/set_env.bash" in message
        assert message.endswith(npu.BUILD_STEPS)


def test_without_the_package_an_npu_call_says_how_to_make_it_visible():
    assert_package_not_visible(private_use1_errors(), "not set")


def test_other_vendors_and_an_incomplete_package_are_not_taken_for_it(tmp_path):
    other_vendor = installed_package(tmp_path / "custom" / "vendors", "customize", api="aclnnSomethingElse")
    no_library = tmp_path / "partial" / "vendors" / "actgrad"
    no_library.mkdir(parents=True)
    custom_opp_path = f"{other_vendor}:{no_library}"
    # installed into $ASCEND_OPP_PATH/vendors, but config.ini does not load it
    opp = tmp_path / "opp"
    installed_package(opp / "vendors")
    (opp / "vendors" / "config.ini").write_text("load_priority=customize\n")
    errors = private_use1_errors(ASCEND_CUSTOM_OPP_PATH=custom_opp_path, ASCEND_OPP_PATH=str(opp))
    assert_package_not_visible(errors, repr(custom_opp_path))


def test_with_the_package_on_ascend_custom_opp_path_the_bridge_registers_its_kernels(tmp_path):
    other_vendor = installed_package(tmp_path / "custom" / "vendors", "customize", api="aclnnSomethingElse")
    package = installed_package(tmp_path / "actgrad" / "vendors")
    # another vendor's first, a trailing '/', and the empty entry a set_env.bash prepending to an unset variable leaves
    assert private_use1_errors(ASCEND_CUSTOM_OPP_PATH=f"{other_vendor}:{package}/:") == STUB_BRIDGE_ERRORS


def test_with_the_package_loaded_from_ascend_opp_path_the_bridge_registers_its_kernels(tmp_path):
    opp = tmp_path / "opp"
    installed_package(opp / "vendors")
    (opp / "vendors" / "config.ini").write_text("load_priority=actgrad\n")
    assert private_use1_errors(ASCEND_OPP_PATH=str(opp)) == STUB_BRIDGE_ERRORS


def test_the_package_is_known_by_its_aclnn_api_not_its_directory_name(tmp_path):
    """A package built with another vendor_name (or installed under another directory) serves all the same."""
    package = installed_package(tmp_path / "vendors", "my_ops")
    assert private_use1_errors(ASCEND_CUSTOM_OPP_PATH=str(package)) == STUB_BRIDGE_ERRORS
