"""cmake/es_plugin.cmake, the ES graph-building API in the package build, configured and built here with CANN's real ES
CMake module (include/ge/cmake/FindGenerateEsPackage.cmake and generate_es_package.cmake from hicann/ge, taken from the
fidelity tool's tree $FID_ROOT/ge) over tests/es_plugin_harness: stand-ins for the ASC modules' targets, and a
gen_esb that records how it is run and writes one operator's files. Checked: the gen_esb command line and the op_proto
library it is pointed at, what the package installs, the wheel's `ge.es.plugins` entry point, and that GE's own
plugin loader (api/python/ge/ge/es/_plugin_loader.py) loads it as ge.es.actgrad. Not checked here (needs CANN): the
real gen_esb's output for actgrad's prototypes and that output compiling against CANN's ES base library."""
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HARNESS = ROOT / "tests" / "es_plugin_harness"
FID_ROOT = Path(os.environ.get("FID_ROOT", Path.home() / ".cache" / "actgrad-fidelity"))
GE_TREE = FID_ROOT / "ge"
ES_CMAKE = GE_TREE / "cmake"
PLUGIN_LOADER = GE_TREE / "api" / "python" / "ge" / "ge" / "es" / "_plugin_loader.py"
WHEEL = "es_actgrad-1.0.0-py3-none-any.whl"
OP_API = Path("packages") / "vendors" / "actgrad" / "op_api"

pytestmark = pytest.mark.skipif(
    not all(shutil.which(tool) for tool in ("cmake", "g++"))
    or not (ES_CMAKE / "generate_es_package.cmake").is_file() or not PLUGIN_LOADER.is_file(),
    reason="needs cmake, g++ and hicann/ge's ES CMake module and plugin loader (the fidelity tool's $FID_ROOT/ge)")


def fake_cann(root: Path, module=True, gen_esb=True) -> Path:
    """A CANN tree with what the ES build uses: the ES CMake module, gen_esb, lib64/libeager_style_graph_builder_base."""
    cann = root / "cann"
    (cann / "lib64").mkdir(parents=True)
    if module:
        (cann / "include" / "ge" / "cmake").mkdir(parents=True)
        for name in ("FindGenerateEsPackage.cmake", "generate_es_package.cmake"):
            shutil.copy(ES_CMAKE / name, cann / "include" / "ge" / "cmake")
    if gen_esb:
        (cann / "bin").mkdir()
        shutil.copy(HARNESS / "gen_esb", cann / "bin" / "gen_esb")
    source = root / "es_base.cpp"
    source.write_text('extern "C" int es_base_standin() { return 0; }\n')
    subprocess.run(["g++", "-shared", "-fPIC", str(source), "-o",
                    str(cann / "lib64" / "libeager_style_graph_builder_base.so")], check=True)
    return cann


def cmake(*args, cwd: Path, record: Path):
    # no gen_esb but the fake CANN's; pip builds the wheel from what is installed (no index)
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "gen_esb").exists())
    env = {**os.environ, "PATH": path, "GEN_ESB_RECORD": str(record), "PIP_NO_INDEX": "1"}
    return subprocess.run(["cmake", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def configure(root: Path, cann: Path, *extra):
    return cmake("-S", str(HARNESS), "-B", str(root / "build"), f"-DASCEND_CANN_PACKAGE_PATH={cann}",
                 f"-DACTGRAD_ROOT={ROOT}", f"-DASCEND_PYTHON_EXECUTABLE={sys.executable}", *extra,
                 cwd=root, record=root / "gen_esb.jsonl")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The harness configured, built and installed into stage/ once: (root, the gen_esb records)."""
    root = tmp_path_factory.mktemp("es_plugin")
    cann = fake_cann(root)
    record = root / "gen_esb.jsonl"
    for step in (configure(root, cann),
                 cmake("--build", str(root / "build"), cwd=root, record=record),
                 cmake("--install", str(root / "build"), "--prefix", str(root / "stage"), cwd=root, record=record)):
        assert step.returncode == 0, step.stdout[-3000:] + step.stderr[-3000:]
    return root, [json.loads(line) for line in record.read_text().splitlines()]


def test_gen_esb_runs_once_with_module_actgrad_over_the_package_prototypes(built):
    root, records = built
    (run,) = records
    out = root / "build" / "es_actgrad_build" / "generated_code"
    assert run["argv"].split(" ") == [f"--output_dir={out}", "--module_name=actgrad", "--exclude_ops="]
    # ASCEND_OPP_PATH holds exactly the op_proto library linked from the package's GRAPH objects
    assert run["opp"] == str(root / "build" / "es_opp")
    assert run["protos"] == "libactgrad_es_proto.so"
    proto = root / "build" / "es_opp" / "op_proto" / "custom" / "libactgrad_es_proto.so"
    symbols = subprocess.run(["nm", "-D", "--defined-only", str(proto)], capture_output=True, text=True).stdout
    assert "actgrad_es_harness_proto" in symbols


def test_the_package_installs_the_library_the_headers_and_the_wheel(built):
    root, _ = built
    op_api = root / "stage" / OP_API
    installed = sorted(str(p.relative_to(op_api)) for p in op_api.rglob("*") if p.is_file())
    assert installed == ["include/es_actgrad/es_ActgradHardtanhGrad.h", "include/es_actgrad/es_ActgradHardtanhGrad_c.h",
                         "include/es_actgrad/es_actgrad_ops.h", "include/es_actgrad/es_actgrad_ops_c.h",
                         "lib/libes_actgrad.so", f"python/{WHEEL}"]
    symbols = subprocess.run(["nm", "-D", "--defined-only", str(op_api / "lib" / "libes_actgrad.so")],
                             capture_output=True, text=True).stdout
    assert "EsActgradHardtanhGrad" in symbols  # the generated sources compiled into it


def test_the_wheel_registers_ge_es_plugin_actgrad(built):
    root, _ = built
    with zipfile.ZipFile(root / "stage" / OP_API / "python" / WHEEL) as wheel:
        names = set(wheel.namelist())
        entry_points = wheel.read("es_actgrad-1.0.0.dist-info/entry_points.txt").decode()
        init = wheel.read("es_actgrad/__init__.py").decode()
    assert {"es_actgrad/__init__.py", "es_actgrad/es_actgrad_ops.py", "es_actgrad/es_ActgradHardtanhGrad.py"} <= names
    assert entry_points.split() == ["[ge.es.plugins]", "actgrad", "=", "es_actgrad:get_module"]
    assert "def get_module" in init and "from .es_actgrad_ops import *" in init


def test_ge_plugin_loader_loads_it_as_ge_es_actgrad(built, tmp_path):
    root, _ = built
    site = tmp_path / "site"
    with zipfile.ZipFile(root / "stage" / OP_API / "python" / WHEEL) as wheel:
        wheel.extractall(site)  # what pip install puts in site-packages
    code = f"""
import importlib.util, json, sys
sys.path.insert(0, {str(site)!r})
spec = importlib.util.spec_from_file_location("ge_es_plugin_loader", {str(PLUGIN_LOADER)!r})
loader = importlib.util.module_from_spec(spec)
spec.loader.exec_module(loader)
plugins = loader.load_all_plugins()
print(json.dumps({{"plugins": sorted(plugins), "module": sys.modules["ge.es.actgrad"].__name__,
                  "call": plugins["actgrad"].ActgradHardtanhGrad("z", "dy")}}))
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    loaded = json.loads(result.stdout.splitlines()[-1])
    assert loaded == {"plugins": ["actgrad"], "module": "es_actgrad",
                      "call": ["ActgradHardtanhGrad", "z", "dy", -1.0, 1.0]}


def test_off_builds_nothing_of_it(tmp_path):
    result = configure(tmp_path, fake_cann(tmp_path), "-DACTGRAD_ES_PLUGIN=OFF")
    assert result.returncode == 0, result.stderr
    assert "ES plugin not built (ACTGRAD_ES_PLUGIN=OFF)" in result.stdout
    targets = cmake("--build", str(tmp_path / "build"), "--target", "help", cwd=tmp_path,
                    record=tmp_path / "gen_esb.jsonl").stdout
    assert "actgrad_es_plugin" not in targets and "es_actgrad" not in targets


@pytest.mark.parametrize("module, gen_esb, missing", [
    (False, True, "has no ES code generator module"),
    (True, False, "gen_esb is neither on PATH nor in"),
])
def test_a_cann_without_es_is_refused_naming_the_version_and_the_way_out(tmp_path, module, gen_esb, missing):
    result = configure(tmp_path, fake_cann(tmp_path, module=module, gen_esb=gen_esb))
    assert result.returncode != 0
    message = " ".join(result.stderr.split())
    assert missing in message
    assert "first shipped with CANN 8.5.0" in message and "bash build.sh --without-es-plugin" in message
    assert not (tmp_path / "gen_esb.jsonl").exists()
