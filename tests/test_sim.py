"""The CPU twin's own C++ tests (tests/sim/test_*.cpp), one pytest test per C++ test.

Each tests/sim/test_*.cpp is built once per session (in parallel, into a session tmp dir) with
`g++ -std=c++17 -O2 -pthread -Isim/include -Isim/examples`; every TEST(name) in it becomes the pytest test
`test_sim[<file>::<name>]`, which runs `<binary> <name>`. The names are read from the sources at collection time (no
compiler needed to collect) and `test_sim_listing` checks they match what `<binary> --list` registers.

KNOWN_BUG_TEST(name, "why") tests reproduce bugs in sim/include that are reported but not fixed yet: they are xfail
while they fail, and fail once they pass (so the marker gets removed when sim/include is fixed).

tests/sim/probes/*.cpp are compile/sanitizer probes: "// PROBE: compile" must compile (-fsyntax-only),
"// PROBE: ubsan" must build with -fsanitize=undefined and run clean; "// KNOWN_BUG: why" makes them xfail too.
"""
from __future__ import annotations

import concurrent.futures
import os
import pathlib
import re
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SIM_TESTS = ROOT / "tests" / "sim"
CXX = os.environ.get("CXX", "g++")
FLAGS = ["-std=c++17", "-O2", "-pthread", f"-I{ROOT / 'sim' / 'include'}", f"-I{ROOT / 'sim' / 'examples'}"]
SOURCES = sorted(SIM_TESTS.glob("test_*.cpp"))
PROBES = sorted((SIM_TESTS / "probes").glob("*.cpp"))
TEST_RE = re.compile(r"^\s*(?:TEST|KNOWN_BUG_TEST)\(\s*(\w+)", re.MULTILINE)
RUN_TIMEOUT = 300


def _declared_tests(source: pathlib.Path) -> list[str]:
    return TEST_RE.findall(source.read_text())


CASES = [(src.stem, name) for src in SOURCES for name in _declared_tests(src)]


def _probe_kind(src: pathlib.Path) -> tuple[str, str | None]:
    text = src.read_text()
    kind = re.search(r"^// PROBE: (\w+)", text, re.MULTILINE)
    bug = re.search(r"^// KNOWN_BUG: (.*)$", text, re.MULTILINE)
    return (kind.group(1) if kind else "compile"), (bug.group(1) if bug else None)


class SimBuild:
    """Builds every test source and probe once (in parallel) and hands out binaries, probe results or the compiler's
    complaint."""

    def __init__(self, outdir: pathlib.Path):
        self.outdir = outdir
        self.binaries: dict[str, pathlib.Path] = {}
        self.errors: dict[str, str] = {}
        self.probes: dict[str, tuple[bool, str]] = {}
        self._known: dict[str, dict[str, str]] = {}
        if shutil.which(CXX) is None:
            for src in SOURCES:
                self.errors[src.stem] = f"compiler {CXX!r} not found"
            for probe in PROBES:
                self.probes[probe.stem] = (False, f"compiler {CXX!r} not found")
            return
        # the biggest translation units first so the pool stays balanced
        jobs = sorted(SOURCES + PROBES, key=lambda p: -p.stat().st_size)
        workers = max(1, min(len(jobs), os.cpu_count() or 1))
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            for job, result in zip(jobs, pool.map(self._build, jobs)):
                if job in PROBES:
                    self.probes[job.stem] = result
                elif result[0]:
                    self.binaries[job.stem] = self.outdir / job.stem
                else:
                    self.errors[job.stem] = result[1]

    def _build(self, src: pathlib.Path) -> tuple[bool, str]:
        out = self.outdir / src.stem
        if src in PROBES:
            kind, _ = _probe_kind(src)
            if kind == "compile":
                cmd = [CXX, *FLAGS, "-fsyntax-only", str(src)]
            elif kind == "ubsan":
                cmd = [CXX, *FLAGS, "-O1", "-fsanitize=undefined", "-fno-sanitize-recover=undefined", str(src), "-o",
                       str(out)]
            else:
                return False, f"unknown probe kind {kind!r}"
        else:
            cmd = [CXX, *FLAGS, str(src), "-o", str(out)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            return False, f"$ {' '.join(cmd)}\n{proc.stderr[-6000:]}"
        if src in PROBES and kind == "ubsan":
            run = _run(out)
            return run.returncode == 0 and "runtime error" not in run.stderr, run.stdout + run.stderr
        return True, ""

    def binary(self, stem: str) -> pathlib.Path:
        if stem in self.errors:
            pytest.fail(f"tests/sim/{stem}.cpp does not build:\n{self.errors[stem]}", pytrace=False)
        return self.binaries[stem]

    def known_bugs(self, stem: str) -> dict[str, str]:
        if stem not in self._known:
            proc = _run(self.binary(stem), "--known-bugs")
            self._known[stem] = dict(line.split("\t", 1) for line in proc.stdout.splitlines() if "\t" in line)
        return self._known[stem]


@pytest.fixture(scope="session")
def sim_build(tmp_path_factory) -> SimBuild:
    return SimBuild(tmp_path_factory.mktemp("sim_tests"))


def _run(binary: pathlib.Path, *args: str, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()
           if k not in ("ACTGRAD_SOC", "ACTGRAD_SIM_THREADS", "ACTGRAD_SIM_NO_AVX2", "ACTGRAD_SIM_NO_DEFER")}
    env.update(env_extra or {})
    return subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=RUN_TIMEOUT, env=env)


@pytest.mark.parametrize(("source", "name"), CASES, ids=[f"{s}::{n}" for s, n in CASES])
def test_sim(sim_build: SimBuild, source: str, name: str):
    _check_case(sim_build, source, name)


# The API tests again with the twin's AVX2 loops switched off, so the portable loops are checked on AVX2 machines too.
PORTABLE_CASES = [(s, n) for s, n in CASES if s.startswith("test_api")]


@pytest.mark.parametrize(("source", "name"), PORTABLE_CASES, ids=[f"{s}::{n}" for s, n in PORTABLE_CASES])
def test_sim_portable_loops(sim_build: SimBuild, source: str, name: str):
    _check_case(sim_build, source, name, {"ACTGRAD_SIM_NO_AVX2": "1"})


def _check_case(sim_build: SimBuild, source: str, name: str, env_extra: dict[str, str] | None = None):
    binary = sim_build.binary(source)
    proc = _run(binary, name, env_extra=env_extra)
    lines = proc.stdout.splitlines()
    verdict = next((line for line in lines if line == f"PASS {name}" or line.startswith(f"FAIL {name}: ")), None)
    if verdict is None or proc.returncode not in (0, 1):
        pytest.fail(f"{binary.name} {name} exited with {proc.returncode} without a verdict\n"
                    f"stdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-3000:]}", pytrace=False)
    passed = verdict == f"PASS {name}"
    assert lines[-1] == ("1 passed, 0 failed" if passed else "0 passed, 1 failed"), proc.stdout
    known = sim_build.known_bugs(source).get(name)
    if known is not None:
        if passed:
            pytest.fail(f"KNOWN_BUG_TEST {name} passes now (sim/include fixed?): make it a plain TEST. Bug was: {known}",
                        pytrace=False)
        pytest.xfail(f"known sim/include bug: {known}")
    if not passed:
        pytest.fail(verdict + ("\n" + proc.stderr[-2000:] if proc.stderr else ""), pytrace=False)


@pytest.mark.parametrize("source", [s.stem for s in SOURCES])
def test_sim_listing(sim_build: SimBuild, source: str):
    """Every C++ test is a pytest test: the registered names equal the TEST(...) declarations read at collection."""
    listed = _run(sim_build.binary(source), "--list").stdout.split()
    declared = [n for s, n in CASES if s == source]
    assert listed == declared
    assert len(set(listed)) == len(listed), "duplicate test names"


@pytest.mark.parametrize("probe", PROBES, ids=[p.stem for p in PROBES])
def test_sim_probe(sim_build: SimBuild, probe: pathlib.Path):
    _, bug = _probe_kind(probe)
    ok, detail = sim_build.probes[probe.stem]
    if bug is not None:
        if ok:
            pytest.fail(f"probe {probe.name} passes now (sim/include fixed?): drop its KNOWN_BUG line. Bug was: {bug}",
                        pytrace=False)
        pytest.xfail(f"known sim/include bug: {bug}")
    assert ok, detail[-4000:]
