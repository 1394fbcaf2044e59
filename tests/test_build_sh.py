"""build.sh (the CANN package build) refuses, before anything is built, what cannot build: no CANN, a CANN older
than 8.3, a CANN without its CMake modules. (The build itself needs CANN; it is not run here.)"""
import os
import subprocess
from pathlib import Path

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
