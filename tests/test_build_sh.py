"""build.sh (the CANN package build) refuses, before anything is built, what cannot build: no CANN, a CANN older
than 8.3, a CANN without its CMake modules, a CANN without the ES code generator (gen_esb, CANN 8.5) unless
--without-es-plugin; and configures the package with or without the ES plugin (a recording cmake on PATH stops it
there). (The build itself needs CANN; it is not run here.)"""
import os
import platform
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def build_sh(*args, cann=None):
    env = {k: v for k, v in os.environ.items() if k not in ("ASCEND_HOME_PATH", "CANN_VERSION")}
    if cann is not None:
        env["ASCEND_HOME_PATH"] = str(cann)
    return subprocess.run(["bash", str(ROOT / "build.sh"), *args], capture_output=True, text=True, env=env,
                          timeout=120)


def fake_cann(tmp_path, version_line, modules=False):
    info = tmp_path / "share" / "info" / "asc-devkit"
    info.mkdir(parents=True)
    (info / "version.info").write_text(version_line + "\n")
    if modules:
        cmake = tmp_path / "compiler" / "tikcpp" / "ascendc_kernel_cmake"
        cmake.mkdir(parents=True)
        (cmake / "asc-config.cmake").write_text("")
    return tmp_path


def test_help_prints_usage():
    result = build_sh("--help")
    assert result.returncode == 0 and "custom_opp_<os>_<arch>.run" in result.stdout and "8.3" in result.stdout


def test_without_cann_nothing_is_built():
    result = build_sh()
    assert result.returncode == 2
    assert "ASCEND_HOME_PATH is not set" in result.stderr and "Nothing was built" in result.stderr


def test_cann_older_than_8_3_is_refused(tmp_path):
    result = build_sh(cann=fake_cann(tmp_path, "Version=8.2.RC1", modules=True))
    assert result.returncode == 2 and "CANN 8.2" in result.stderr and "8.3 or later" in result.stderr


def test_cann_without_its_cmake_modules_is_refused(tmp_path):
    result = build_sh(cann=fake_cann(tmp_path, "version=9.0.0"))
    assert result.returncode == 2 and "asc-config.cmake" in result.stderr


def test_unknown_argument_is_refused():
    result = build_sh("--bogus")
    assert result.returncode == 2 and "unknown argument '--bogus'" in result.stderr


def test_a_version_file_without_a_version_line_is_passed_over(tmp_path):
    cann = fake_cann(tmp_path, "nothing here", modules=True)
    compiler = tmp_path / "share" / "info" / "compiler"
    compiler.mkdir(parents=True)
    (compiler / "version.info").write_text("Version=8.2.0\n")
    result = build_sh(cann=cann)
    assert result.returncode == 2 and "CANN 8.2" in result.stderr


def es_ready(cann, gen_esb_in="bin"):
    """Give the fake CANN the ES code generator: include/ge/cmake/FindGenerateEsPackage.cmake and gen_esb."""
    module = cann / "include" / "ge" / "cmake"
    module.mkdir(parents=True)
    (module / "FindGenerateEsPackage.cmake").write_text("")
    tool = cann / gen_esb_in / "gen_esb"
    tool.parent.mkdir(parents=True, exist_ok=True)
    tool.write_text("#!/bin/sh\nexit 0\n")
    tool.chmod(0o755)
    return cann


def recording_cmake(tmp_path):
    """A cmake on PATH that records its arguments and fails, so that build.sh stops at its first cmake call."""
    bin_dir = tmp_path / "fake_bin"
    bin_dir.mkdir()
    record = tmp_path / "cmake_args"
    (bin_dir / "cmake").write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{record}"\nexit 3\n')
    (bin_dir / "cmake").chmod(0o755)
    return bin_dir, record


def build_sh_with_cmake(tmp_path, cann, *args):
    bin_dir, record = recording_cmake(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("ASCEND_HOME_PATH", "CANN_VERSION")}
    env.update(ASCEND_HOME_PATH=str(cann), PATH=f"{bin_dir}{os.pathsep}{env['PATH']}")
    result = subprocess.run(["bash", str(ROOT / "build.sh"), *args], capture_output=True, text=True, env=env,
                            timeout=120)
    return result, (record.read_text().splitlines() if record.exists() else None)


def test_cann_without_gen_esb_is_refused_with_the_way_out(tmp_path):
    result = build_sh(cann=fake_cann(tmp_path, "version=8.3.0", modules=True))
    assert result.returncode == 2
    message = " ".join(result.stderr.split())
    assert "CANN 8.3 at" in message and "has no include/ge/cmake/FindGenerateEsPackage.cmake and gen_esb" in message
    assert "needs CANN 8.5 or later" in message and "--without-es-plugin" in message


def test_cann_with_the_module_but_no_gen_esb_names_what_is_missing(tmp_path):
    cann = es_ready(fake_cann(tmp_path, "version=9.0.0", modules=True))
    (cann / "bin" / "gen_esb").unlink()
    result = build_sh(cann=cann)
    assert result.returncode == 2 and "has no gen_esb:" in result.stderr


@pytest.mark.parametrize("gen_esb_in", ["bin", f"{platform.machine()}-linux/bin"])
def test_with_es_the_package_is_configured_with_the_plugin(tmp_path, gen_esb_in):
    cann = es_ready(fake_cann(tmp_path, "version=9.0.0", modules=True), gen_esb_in)
    result, cmake_args = build_sh_with_cmake(tmp_path, cann)
    assert result.returncode == 3, result.stderr  # the recording cmake's exit status: configuration was reached
    assert cmake_args[:2] == ["--preset=default", f"-DASCEND_CANN_PACKAGE_PATH={cann}"]
    assert "-DACTGRAD_ES_PLUGIN=ON" in cmake_args


def test_without_es_plugin_an_older_cann_is_configured_without_it(tmp_path):
    result, cmake_args = build_sh_with_cmake(tmp_path, fake_cann(tmp_path, "version=8.3.0", modules=True),
                                             "--without-es-plugin")
    assert result.returncode == 3, result.stderr
    assert "-DACTGRAD_ES_PLUGIN=OFF" in cmake_args


def test_help_names_the_es_option_and_the_wheel():
    result = build_sh("--help")
    assert "--without-es-plugin" in result.stdout and "es_actgrad-*.whl" in result.stdout
