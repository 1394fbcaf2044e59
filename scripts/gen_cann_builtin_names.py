"""List the operator names CANN's built-in operator libraries already use, for tests/test_unique_names.py.

Every name a custom operator package registers must differ from the built-in ones, or it silently replaces them for
the whole process: a custom OpDef whose OpType is a built-in one (say HardtanhGrad) shadows the built-in operator in
GE for every graph, and op-plugin / torch_npu resolve aclnn symbols in the custom package's libcust_opapi.so before
CANN's own libopapi.so, so a custom aclnnEluBackward would answer every torch_npu call of the built-in one.

The built-in names come from the public sources of CANN's operator libraries (hicann/ops-nn, ops-math, ops-cv,
ops-transformer), read straight from local git directories (bare mirrors work: nothing is checked out):

  optype  every name registered as an operator type: REG_OP(X) (GE IR prototypes), OP_ADD(X) (OpDef),
          IMPL_OP*(X) (infershape/tiling/...), OP_TYPE_REGISTER(X) (op_api l0 ops), *REGISTER_*TILING_TEMPLATE*(X, ...),
          REGISTER_CUSTOM_OP("X") / REGISTER_CUSTOM_ONNX_OP(..., X, ...) (framework parsers), REGISTER_CPU_KERNEL(kX)
          (AI CPU kernels; kX resolved to its string in the same file)
  aclnn   every aclnnXxx function declared in an aclnn_*.h header or exported (ACLNN_API) from an op_api source
          (aclnnXxxGetWorkspaceSize is recorded as its base name aclnnXxx), and every API an operator documents as
          docs/aclnnXxx.md (a few documented APIs have no op_api source in the repository)

Sample, test, doc and code-generator template directories are skipped: their names (AddExample, AddCustom, test
stubs) are not shipped operators.

  python scripts/gen_cann_builtin_names.py --repo hicann/ops-nn=/path/to/ops-nn.git --repo hicann/ops-math=... \\
      [--out tests/data/cann_builtin_names.txt]
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "tests" / "data" / "cann_builtin_names.txt"

SOURCE_SUFFIXES = (".h", ".hpp", ".cpp", ".cc")
SKIPPED_DIRS = {"tests", "test", "examples", "example", "docs", "doc", "scripts"}

# Comments and preprocessor directives go first: doc comments mention names in passing, and #define bodies hold
# registration macros applied to parameter names (op_type), not to operators. String literals are kept whole.
STRING_OR_COMMENT = re.compile(r'("(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\')|/\*.*?\*/|//[^\n]*', re.S)
DIRECTIVE = re.compile(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.M)

NAME = r'"?([A-Za-z_]\w*)"?'
OPTYPE_PATTERNS = [  # each captures the op type
    re.compile(rf"(?<![\w.])(?:REG_OP|OP_ADD|IMPL_OP\w*|OP_TYPE_REGISTER|(?:\w+_)?REGISTER_\w*TILING_TEMPLATE\w*"
               rf"|REGISTER_CUSTOM_OP)\(\s*{NAME}\s*[,)]"),
    re.compile(rf"(?<![\w.])REGISTER_CUSTOM_ONNX_OP\([^,()]*,\s*{NAME}\s*,"),  # (onnx type, GE op type, suffix)
]
CPU_KERNEL = re.compile(r"(?<![\w.])\w*REGISTER_CPU_KERNEL\w*\(\s*(\w+|\"\w+\")\s*,")
CPU_KERNEL_NAME = r'\b{}\s*(?:=\s*\{{?|\{{)\s*"(\w+)"'  # kX = "X", kX{"X"} or kX = {"X"}
ACLNN_DECL = re.compile(r"\b(aclnn[A-Z]\w*)\s*\(")
ACLNN_EXPORT = re.compile(r"\bACLNN_API\s+[\w:]+\s*\**\s*(aclnn[A-Z]\w*)\s*\(")
API_DOC = re.compile(r"(?:^|/)docs/(aclnn[A-Z]\w*)\.md$")  # an operator's docs/aclnnXxx.md


def git(gitdir: str, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={gitdir}", *args], check=True, capture_output=True, text=True).stdout


def read_blobs(gitdir: str, paths: list[str]) -> dict[str, str]:
    """The HEAD contents of paths, via one `git cat-file --batch` (thousands of files; one process)."""
    request = "".join(f"HEAD:{path}\n" for path in paths).encode()
    out = subprocess.run(["git", f"--git-dir={gitdir}", "cat-file", "--batch"], input=request, check=True,
                         capture_output=True).stdout
    blobs, pos = {}, 0
    for path in paths:
        header_end = out.index(b"\n", pos)
        size = int(out[pos:header_end].split()[2])
        blobs[path] = out[header_end + 1:header_end + 1 + size].decode("utf-8", errors="replace")
        pos = header_end + 1 + size + 1
    return blobs


def code_only(text: str) -> str:
    text = STRING_OR_COMMENT.sub(lambda m: m.group(1) or " ", text)
    return DIRECTIVE.sub("", text)


def is_shipped_source(path: str) -> bool:
    parts = path.split("/")
    return path.endswith(SOURCE_SUFFIXES) and not SKIPPED_DIRS.intersection(parts[:-1])


def names_in_repo(gitdir: str) -> tuple[set[str], set[str], list[str]]:
    """(op types, aclnn APIs, warnings) of one repository's HEAD."""
    all_paths = git(gitdir, "ls-tree", "-r", "--name-only", "-z", "HEAD").split("\0")
    paths = [p for p in all_paths if is_shipped_source(p)]
    op_types, apis, warnings = set(), set(), []
    # Some documented APIs have no op_api source in the repository (generated, or not open-sourced yet).
    apis.update(m.group(1) for p in all_paths if (m := API_DOC.search(p)))
    for path, text in read_blobs(gitdir, paths).items():
        code = code_only(text)
        for pattern in OPTYPE_PATTERNS:
            op_types.update(pattern.findall(code))
        for arg in CPU_KERNEL.findall(code):
            if arg.startswith('"'):
                op_types.add(arg.strip('"'))
                continue
            # AI CPU kernels register under a constant: const char *const kZeta = "Zeta"; (or kZeta{"Zeta"})
            found = re.search(CPU_KERNEL_NAME.format(re.escape(arg)), text)
            if found:
                op_types.add(found.group(1))
            else:
                warnings.append(f"{path}: REGISTER_CPU_KERNEL({arg}, ...): cannot resolve {arg} in the same file")
        is_api_header = re.search(r"(^|/)aclnn_[^/]*\.h$", path)
        for name in (ACLNN_DECL if is_api_header else ACLNN_EXPORT).findall(code):
            apis.add(name.removesuffix("GetWorkspaceSize"))
    return op_types, apis, warnings


def render(repos: dict[str, str], op_types: set[str], apis: set[str]) -> str:
    lines = [
        "# CANN built-in operator names: GE OpTypes and aclnn APIs of CANN's operator libraries.",
        "# Custom operator packages must not reuse them (tests/test_unique_names.py checks actgrad's names).",
        "# Generated by: python scripts/gen_cann_builtin_names.py "
        + " ".join(f"--repo {name}=<git dir>" for name in repos) + "  -- do not edit by hand.",
        "# Format: 'optype <OpType>' or 'aclnn <aclnnApi>', sorted, one name a line.",
    ]
    for name, gitdir in repos.items():
        commit = git(gitdir, "rev-parse", "HEAD").strip()
        date = git(gitdir, "log", "-1", "--format=%cI", "HEAD").strip()
        lines.append(f"# repo {name} commit {commit} date {date}")
    lines += sorted({f"optype {n}" for n in op_types} | {f"aclnn {n}" for n in apis})
    return "\n".join(lines) + "\n"


def parse_repo(parser: argparse.ArgumentParser, value: str) -> tuple[str, str]:
    name, sep, gitdir = value.partition("=")
    if not sep or not name or not gitdir:
        parser.error(f"--repo {value!r}: expected OWNER/NAME=GIT_DIR")
    probe = subprocess.run(["git", f"--git-dir={gitdir}", "rev-parse", "--verify", "-q", "HEAD^{commit}"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        parser.error(f"--repo {value!r}: {gitdir} is not a git directory with a HEAD commit")
    return name, gitdir


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", action="append", required=True, metavar="OWNER/NAME=GIT_DIR",
                        help="an operator library and its local git directory (bare is fine); repeat per repository")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help=f"output file (default: {DEFAULT_OUT.relative_to(ROOT)})")
    args = parser.parse_args(argv)

    repos = dict(parse_repo(parser, value) for value in args.repo)
    op_types, apis = set(), set()
    for name, gitdir in repos.items():
        repo_types, repo_apis, warnings = names_in_repo(gitdir)
        for warning in warnings:
            print(f"warning: {name}: {warning}", file=sys.stderr)
        print(f"{name}: {len(repo_types)} op types, {len(repo_apis)} aclnn APIs", file=sys.stderr)
        op_types |= repo_types
        apis |= repo_apis

    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(repos, op_types, apis))
    print(f"wrote {args.out}: {len(op_types)} op types, {len(apis)} aclnn APIs", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
