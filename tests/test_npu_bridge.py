"""The NPU bridge actgrad._npu, without CANN or torch_npu.

setup.py builds it only where torch_npu imports and ASCEND_HOME_PATH is a CANN toolkit, with the flags it needs, and a
failed bridge build only warns. Its sources (op_host/torch_npu/ and the twin's torch kernels) compile, with the flags
setup.py gives them, against torch's headers and the stand-ins of tests/npu_stub/ for exactly the torch_npu and CANN
APIs they use (declared as the real headers declare them); they leave no actgrad symbol undefined and need no other
NPU-side symbol. Linked with fakes of those functions (tests/npu_stub/fake_runtime/), its launch runs on CPU tensors
against a fake package library: how it finds the library, the arguments it passes, its errors. Only an NPU runs the
real thing.

With stand-ins for torch_npu and the bridge (tests/npu_stub/), npu.register() gives the operators the bridge's
PrivateUse1 kernels only where the bridge will find the installed CANN package; elsewhere they say how to get it."""
import json
import os
import pathlib
import subprocess
import sys
import sysconfig

import pytest
import torch

from actgrad import npu
from actgrad.spec import OPS

ROOT = pathlib.Path(__file__).resolve().parent.parent
CXX = os.environ.get("CXX", "g++")
STUB = ROOT / "tests" / "npu_stub"
STUB_SITE = STUB / "site_packages"  # the stand-in torch_npu, with include/ and utils/cpp_extension.py
STUB_CANN = STUB / "cann"  # the stand-in CANN toolkit: include/aclnn/acl_meta.h

# Runs setup.py with setuptools.setup replaced, and prints its extensions (and, with --build-fails, what its
# build_ext command does when building each of them fails) as JSON.
SETUP_PROBE = r"""
import json, runpy, sys
import setuptools
from setuptools import Distribution

captured = {}
setuptools.setup = lambda **kwargs: captured.update(kwargs)
runpy.run_path("setup.py")
extensions = captured["ext_modules"]
result = {"extensions": [{key: getattr(e, key) for key in ("name", "sources", "include_dirs", "library_dirs",
                                                             "libraries", "extra_compile_args", "optional")}
                         for e in extensions]}
if "--build-fails" in sys.argv:
    build = captured["cmdclass"]["build_ext"]

    def fail(self, ext):
        raise RuntimeError(f"Error compiling objects for extension {ext.name}")

    build.__mro__[1].build_extension = fail  # torch's BuildExtension: what Build.build_extension calls
    command = build(Distribution({"name": "actgrad", "ext_modules": extensions}))
    warnings = []
    command.warn = warnings.append
    result["build"] = {}
    for extension in extensions:
        try:
            command.build_extension(extension)
            result["build"][extension.name] = warnings[-1] if warnings else "no warning"
        except RuntimeError as error:
            result["build"][extension.name] = f"raised: {error}"
print(json.dumps(result))
"""


def setup_probe(*args: str, torch_npu: bool, cann: pathlib.Path | None) -> tuple[dict, str]:
    """(the probe's JSON, setup.py's stderr) with the stand-in torch_npu importable or not, ASCEND_HOME_PATH `cann`."""
    env = {k: v for k, v in os.environ.items() if k not in ("ASCEND_HOME_PATH", "PYTHONPATH")}
    if torch_npu:
        env["PYTHONPATH"] = str(STUB_SITE)
    if cann is not None:
        env["ASCEND_HOME_PATH"] = str(cann)
    result = subprocess.run([sys.executable, "-c", SETUP_PROBE, *args], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout), result.stderr


def extension_names(probe: dict) -> list[str]:
    return [e["name"] for e in probe["extensions"]]


def test_without_torch_npu_setup_builds_the_twin_only():
    probe, stderr = setup_probe(torch_npu=False, cann=STUB_CANN)
    assert extension_names(probe) == ["actgrad._C"] and stderr == ""


@pytest.mark.parametrize("cann", [None, ROOT], ids=["no-ASCEND_HOME_PATH", "not-a-toolkit"])
def test_without_cann_setup_builds_the_twin_only_and_says_why(cann):
    probe, stderr = setup_probe(torch_npu=True, cann=cann)
    assert extension_names(probe) == ["actgrad._C"]
    assert (f"torch_npu is installed but ASCEND_HOME_PATH ({cann or 'not set'}) is not a CANN toolkit with the aclnn "
            f"headers (include/aclnn/acl_meta.h): actgrad._npu is not built") in stderr
    assert "pip install -v --no-build-isolation -e ." in stderr


def bridge_extension() -> dict:
    probe, _ = setup_probe(torch_npu=True, cann=STUB_CANN)
    assert extension_names(probe) == ["actgrad._C", "actgrad._npu"]
    return probe["extensions"][1]


def test_with_torch_npu_and_cann_setup_builds_the_bridge_with_what_it_needs():
    bridge = bridge_extension()
    torch_npu_include = STUB_SITE / "torch_npu" / "include"
    assert bridge["include_dirs"][:4] == [str(torch_npu_include / "third_party" / "acl" / "inc"),
                                          str(STUB_CANN / "include"), str(torch_npu_include),
                                          str(torch_npu_include / "third_party" / "acl" / "inc")]
    assert bridge["library_dirs"][0] == str(STUB_CANN / "lib64")
    assert {"ascendcl", "nnopbase", "torch_npu", "torch_python"} <= set(bridge["libraries"])
    assert bridge["extra_compile_args"] == ["-O3", f"-D_GLIBCXX_USE_CXX11_ABI={int(torch._C._GLIBCXX_USE_CXX11_ABI)}"]
    assert bridge["optional"]


def test_a_failed_bridge_build_warns_how_to_retry_and_the_twin_still_fails_loudly():
    probe, _ = setup_probe("--build-fails", torch_npu=True, cann=STUB_CANN)
    assert probe["build"]["actgrad._C"] == "raised: Error compiling objects for extension actgrad._C"
    warning = probe["build"]["actgrad._npu"]
    assert warning.startswith("actgrad._npu (the NPU bridge) was not built: Error compiling objects for extension "
                              "actgrad._npu. The CPU twin is built and installs")
    assert "rerun `pip install -v --no-build-isolation -e .` in the repository root" in warning


def run(cmd: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600)


def compile_cmd(bridge: dict, source: pathlib.Path, *flags: str) -> list[str]:
    """The compile command of `source` as BuildExtension runs it for `bridge` (its -std and extension-name
    defines included), then `flags`."""
    includes = [*bridge["include_dirs"], sysconfig.get_paths()["include"]]
    return [CXX, "-std=c++20", "-fPIC", *(f"-I{d}" for d in includes), *bridge["extra_compile_args"],
            "-DTORCH_API_INCLUDE_EXTENSION_H", "-DTORCH_EXTENSION_NAME=_npu", *flags, str(source)]


def symbols(obj: pathlib.Path, undefined: bool, demangle: bool = False) -> set[str]:
    """The symbols `obj` defines (or needs): mangled, or demangled without their parameters."""
    listing = run(["nm", *(["-C"] if demangle else []), "--undefined-only" if undefined else "--defined-only",
                   str(obj)]).stdout
    names = {line.split(maxsplit=1 if undefined else 2)[-1] for line in listing.splitlines()}
    return {name.split("(")[0] for name in names} if demangle else names


# What the bridge needs from torch_npu and CANN: exactly what tests/npu_stub's headers declare
NPU_SYMBOLS = {"aclCreateTensor", "aclDestroyTensor", "aclGetRecentErrMsg", "c10_npu::getCurrentNPUStream",
               "c10_npu::NPUStream::stream", "at_npu::native::OpCommand::OpCommand",
               "at_npu::native::OpCommand::Name", "at_npu::native::OpCommand::SetCustomHandler",
               "at_npu::native::OpCommand::Run"}


@pytest.fixture(scope="module")
def bridge_objects(tmp_path_factory) -> tuple[dict, list[pathlib.Path]]:
    """setup.py's bridge extension, and its sources compiled with its flags against the stand-ins."""
    bridge = bridge_extension()
    build = tmp_path_factory.mktemp("bridge")
    objects = []
    for source in bridge["sources"]:
        obj = build / (pathlib.Path(source).stem + ".o")
        # -O0 after setup.py's -O3: the objects are only inspected and run on fakes
        result = run(compile_cmd(bridge, ROOT / source, "-c", "-O0", "-Wall", "-o", str(obj)))
        assert result.returncode == 0, result.stderr[-4000:]
        assert not [line for line in result.stderr.splitlines() if "/op_host/" in line and "warning:" in line]
        objects.append(obj)
    return bridge, objects


def test_the_bridge_compiles_against_the_stand_ins_and_links(bridge_objects):
    bridge, objects = bridge_objects
    assert bridge["sources"][0] == "op_host/torch_npu/aclnn_bridge.cpp"
    defined = set().union(*(symbols(o, undefined=False) for o in objects))
    undefined = set().union(*(symbols(o, undefined=True) for o in objects)) - defined
    assert "PyInit__npu" in defined
    assert not {s for s in undefined if "7actgrad" in s}, "the bridge would not link"
    needs = set().union(*(symbols(o, undefined=True, demangle=True) for o in objects))
    assert {s for s in needs if s.startswith(("acl", "c10_npu::", "at_npu::", "op_api"))} == NPU_SYMBOLS


FAKES = STUB / "fake_runtime"


def fake_package(vendor: pathlib.Path, *sources: pathlib.Path, link: tuple[str, ...] = ()) -> pathlib.Path:
    """vendor/op_api/lib/libcust_opapi.so built from `sources`."""
    library = vendor / npu.CUSTOM_OPAPI
    library.parent.mkdir(parents=True)
    result = run([CXX, "-std=c++20", "-shared", "-fPIC", f"-I{STUB_CANN / 'include'}",
                  f"-I{STUB_SITE / 'torch_npu' / 'include' / 'third_party' / 'acl' / 'inc'}", *map(str, sources),
                  *link, "-o", str(library)])
    assert result.returncode == 0, result.stderr[-4000:]
    return library


def test_the_bridge_calls_the_package_api_as_its_generated_header_declares_it(bridge_objects, tmp_path):
    """The bridge's launch, built with fakes of the torch_npu and CANN functions it calls, on CPU tensors against a
    fake package library: the API found where torch_npu would look, its arguments as CANN's generated signature takes
    them, the workspace, phase 2 on the current stream, the aclTensors destroyed; and the errors."""
    bridge, objects = bridge_objects
    runtime = tmp_path / "fake_npu_runtime.o"
    result = run(compile_cmd(bridge, FAKES / "fake_npu_runtime.cpp", "-c", "-O0", "-o", str(runtime)))
    assert result.returncode == 0, result.stderr[-4000:]
    bridge_so = tmp_path / "_npu.so"
    torch_lib = pathlib.Path(torch.__file__).parent / "lib"
    result = run([CXX, "-shared", *map(str, objects), str(runtime), f"-L{torch_lib}", "-lc10", "-ltorch",
                  "-ltorch_cpu", "-ltorch_python", f"-Wl,-rpath,{torch_lib}", "-o", str(bridge_so)])
    assert result.returncode == 0, result.stderr[-4000:]

    served = fake_package(tmp_path / "actgrad", FAKES / "fake_cust_opapi.cpp")
    empty = tmp_path / "empty.cpp"
    empty.write_text("")
    # a library that only depends on one exporting the API does not export it itself
    dependent = fake_package(tmp_path / "dependent", empty, link=(str(served), f"-Wl,-rpath,{served.parent}"))
    absent = tmp_path / "absent"
    entries = [absent, dependent.parents[2]]
    if os.getuid() == 0:  # root uses only its own libraries
        foreign = fake_package(tmp_path / "foreign", FAKES / "fake_cust_opapi.cpp")
        os.chown(foreign, 4321, 4321)
        entries.append(foreign.parents[2])
    opp = tmp_path / "opp"
    (opp / "vendors").mkdir(parents=True)
    (opp / "vendors" / "config.ini").write_text("load_priority=other\n")
    env = {k: v for k, v in os.environ.items() if k not in PACKAGE_VARIABLES}
    env |= {"ASCEND_CUSTOM_OPP_PATH": ":".join(map(str, [*entries, served.parents[2]])), "ASCEND_OPP_PATH": str(opp)}
    result = subprocess.run([sys.executable, str(FAKES / "launch.py"), str(bridge_so), str(served)], env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    report = json.loads(result.stdout)

    tensor = "float32[2,3] strides [3,1] offset 0 of 6 ND"
    assert report["log"] == (f"GetWorkspaceSize({tensor}; {tensor}; min=-1 max=1 use_dst=true; {tensor}) then "
                             f"run(a workspace of 256 bytes, the current stream)")
    assert report["out"] == [[0.0, 2.0, 3.0], [0.0, 5.0, 0.0]]
    assert report["destroyed"] == 3
    # phase 1 fails: named with its status, the library and CANN's message; its aclTensors destroyed all the same
    assert report["log_failed"] == f"GetWorkspaceSize({tensor}; {tensor}; min=-1 max=1 use_dst=false; {tensor})"
    assert report["phase1_error"].startswith(
        f"actgrad._npu: aclnnActgradClampBackwardGetWorkspaceSize failed with aclnn status 161002 ({served}): "
        f"the fake CANN's message")
    assert report["destroyed_failed"] == 6
    # an API no library exports: every library searched, and why each was passed over
    lib = npu.CUSTOM_OPAPI
    searched = [f"{absent / lib} (via ASCEND_CUSTOM_OPP_PATH): absent",
                f"{dependent} (via ASCEND_CUSTOM_OPP_PATH): does not export aclnnActgradHardtanhGradGetWorkspaceSize"]
    if os.getuid() == 0:
        searched.append(f"{foreign} (via ASCEND_CUSTOM_OPP_PATH): owned by uid 4321, neither this user (uid 0) nor "
                        f"root: skipped, as torch_npu skips it")
    searched += [f"{served} (via ASCEND_CUSTOM_OPP_PATH): does not export aclnnActgradHardtanhGradGetWorkspaceSize",
                 f"{opp / 'vendors' / 'other' / lib} (via $ASCEND_OPP_PATH/vendors/config.ini): absent"]
    assert report["missing_error"].startswith(
        "actgrad._npu: no libcust_opapi.so exporting aclnnActgradHardtanhGrad was found; searched:\n  "
        + "\n  ".join(searched) + "\nInstall actgrad's CANN package (bash build.sh")


def test_an_argument_aclnn_has_no_type_for_does_not_compile(tmp_path):
    # the generated calls pass tensors, double and bool attributes: an int (or a float) would not reach the aclnn API
    # as the double its generated signature takes, so it must not compile
    source = tmp_path / "int_attribute.cpp"
    source.write_text(f'#include "{ROOT}/op_host/torch_npu/aclnn_call.h"\n'
                      "void Call(const actgrad::aclnn::Api& api, const at::Tensor& t) {\n"
                      "    actgrad::aclnn::Run(api, t.device(), t, 1, t);\n}\n")
    result = run(compile_cmd(bridge_extension(), source, "-fsyntax-only"))
    assert result.returncode != 0 and "Param<int>" in result.stderr


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
        assert message.startswith("actgrad's NPU bridge actgrad._npu is built, but it cannot find actgrad's CANN "
                                  "operator package"), message
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


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to give the package to another user")
def test_a_package_another_user_owns_is_skipped_as_torch_npu_skips_it(tmp_path):
    package = installed_package(tmp_path / "vendors")
    library = package / npu.CUSTOM_OPAPI
    os.chown(library, 4321, 4321)  # root uses only its own libraries
    errors = private_use1_errors(ASCEND_CUSTOM_OPP_PATH=str(package))
    assert_package_not_visible(errors, repr(str(package)))
    for message in errors.values():
        assert (f"{library} exports them, but it is owned by uid 4321, neither this user (uid 0) nor root, so "
                f"torch_npu and actgrad skip it: {npu.OWNER_FIX}.") in message


def test_the_owner_check_is_torch_npus():
    assert npu.owner_check_passes(1000, 1000) and npu.owner_check_passes(0, 1000) and npu.owner_check_passes(0, 0)
    assert not npu.owner_check_passes(1001, 1000) and not npu.owner_check_passes(1000, 0)


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
