#!/usr/bin/env bash
# Installs actgrad for the CPU twin into the current Python: the pinned CPU torch, the test tools, and the package
# itself (editable, built against that torch, so no other torch is fetched). Safe to run again: when the installed
# build is up to date with the sources it only checks that, in seconds.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

usage() {
    cat <<'USAGE'
Usage: bash scripts/install.sh [--force] [--help]

Installs into the Python that `python` (or $PYTHON) runs:
  1. torch==2.13.0, the CPU build (pip's local wheels if they hold it, else PyTorch's CPU index;
     ACTGRAD_TORCH_INDEX overrides the index), numpy, pytest, setuptools, wheel, ninja, and onnx and protobuf
     (graph mode's ONNX dump and AIR file);
  2. actgrad itself, editable (pip install --no-build-isolation -e .), which compiles its C++ extension
     (about 2-4 minutes on 2 cores, MAX_JOBS compile jobs in parallel, default: the number of cores).
When the installed build is up to date with the sources (and torch and Python are the same), step 2 is skipped.

  --force   rebuild and reinstall even when the build is up to date
  --help    print this and exit
USAGE
}

FORCE=0
for arg in "$@"; do
    case "$arg" in
        -h|--help) usage; exit 0 ;;
        --force) FORCE=1 ;;
        *) usage >&2; echo "install.sh: unknown argument '$arg'" >&2; exit 2 ;;
    esac
done

PYTHON="${PYTHON:-python}"
PIP=("$PYTHON" -m pip install --quiet --disable-pip-version-check)
STAMP=build/install-stamp  # what the last successful install was built from
step() { printf '[install %s] %s\n' "$(date +%H:%M:%S)" "$*"; }

# What the extensions are built from: their sources, the build files, the Python and torch they compile against, and
# whether setup.py builds the torch_npu bridge (torch_npu importable, a CANN toolkit at ASCEND_HOME_PATH).
build_fingerprint() {
    "$PYTHON" - <<'PY'
import hashlib, importlib.util, os, pathlib, sys
import torch
cann = os.environ.get("ASCEND_HOME_PATH", "")
bridge = importlib.util.find_spec("torch_npu") is not None and pathlib.Path(cann, "include/aclnn/acl_meta.h").is_file()
h = hashlib.sha256(f"{sys.version} {torch.__version__} bridge={bridge} {cann}".encode())
files = [pathlib.Path(p) for p in ("setup.py", "pyproject.toml")]
for folder in ("op_kernel", "op_host", "sim/include"):  # python/ is live in an editable install
    files += sorted(p for p in pathlib.Path(folder).rglob("*") if p.is_file())
for path in files:
    h.update(str(path).encode() + b"\0" + path.read_bytes())
print(h.hexdigest())
PY
}

# The installed actgrad is this checkout's, importable from elsewhere, with its compiled extension.
installed_here() {
    local here="$PWD/python/actgrad/__init__.py"  # before the cd: run from elsewhere, so the checkout is not on sys.path
    (cd / && "$PYTHON" -c "import actgrad, pathlib, sys; sys.exit(pathlib.Path(actgrad.__file__).resolve() != \
pathlib.Path(sys.argv[1]).resolve())" "$here") >/dev/null 2>&1
}

# The requirements already installed at the pinned versions: pip would only confirm it, which costs seconds.
requirements_present() {
    "$PYTHON" -c "
import importlib.metadata as m, sys
need = {'torch': '2.13.0', 'numpy': None, 'pytest': None, 'setuptools': None, 'wheel': None, 'ninja': None,
        'onnx': None, 'protobuf': None}
for name, version in need.items():
    try:
        found = m.version(name)
    except m.PackageNotFoundError:
        sys.exit(1)
    if version and found.split('+')[0] != version:
        sys.exit(1)
" >/dev/null 2>&1
}

if requirements_present; then
    step "torch 2.13.0 and the test tools are installed"
else
    step "installing torch 2.13.0 (CPU) and the test tools"
    # PyPI's Linux wheel of torch 2.13.0 is the CUDA build (gigabytes): unless it is installed already or pip's local
    # wheels (find-links) hold it, it comes from PyTorch's CPU index. The probe only resolves, it fetches nothing.
    torch_index=()
    if ! "${PIP[@]}" --dry-run --no-index --no-deps "torch==2.13.0" >/dev/null 2>&1; then
        torch_index=(--extra-index-url "${ACTGRAD_TORCH_INDEX:-https://download.pytorch.org/whl/cpu}")
    fi
    # ${a[@]+...}: an empty array under set -u, which bash before 4.4 calls unbound
    "${PIP[@]}" ${torch_index[@]+"${torch_index[@]}"} "torch==2.13.0" numpy pytest setuptools wheel ninja onnx protobuf
fi

fingerprint="$(build_fingerprint)"
if [[ "$FORCE" == 0 && -f "$STAMP" && "$(cat "$STAMP")" == "$fingerprint" ]] && installed_here; then
    step "actgrad is installed and up to date with the sources: nothing to build (--force rebuilds)"
    exit 0
fi

jobs="${MAX_JOBS:-$(nproc 2>/dev/null || echo 2)}"
step "building actgrad's C++ extension (the kernels on the CPU twin; $jobs parallel jobs, about 2-4 minutes on 2 cores)"
rm -f "$STAMP"
start=$SECONDS
# pip prints the compiler's lines only with -v; the step lines here say what is happening meanwhile
MAX_JOBS="$jobs" "${PIP[@]}" --no-build-isolation -e . &
pip_pid=$!
next_report=$((start + 30))
while kill -0 "$pip_pid" 2>/dev/null; do
    sleep 1
    if (( SECONDS >= next_report )); then
        step "still building ($((SECONDS - start)) s)"
        next_report=$((next_report + 30))
    fi
done
wait "$pip_pid"
mkdir -p "$(dirname "$STAMP")"
echo "$fingerprint" >"$STAMP"
step "actgrad installed ($((SECONDS - start)) s to build)"
