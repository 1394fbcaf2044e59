#!/usr/bin/env python
"""Write the files derived from python/actgrad/spec.py (or, with --check, list the stale ones and exit 1).

Loads spec.py by file path, so it runs without the compiled extension or an installed actgrad.
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC_PATH = ROOT / "python" / "actgrad" / "spec.py"

sys.path.insert(0, str(Path(__file__).resolve().parent))
from codegen import render_all  # noqa: E402


def load_spec():
    module_spec = importlib.util.spec_from_file_location("actgrad_spec_for_codegen", SPEC_PATH)
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[module_spec.name] = module  # dataclasses resolve the module's annotations through sys.modules
    module_spec.loader.exec_module(module)
    return module


def stale_files(root: Path, expected: dict[str, str]) -> list[str]:
    def current(path: str) -> str | None:
        file = root / path
        return file.read_text() if file.exists() else None
    return [path for path, text in expected.items() if current(path) != text]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="only report stale files; exit 1 if any")
    parser.add_argument("--root", type=Path, default=ROOT, help="tree to write or check (default: this repo)")
    args = parser.parse_args(argv)

    expected = render_all(load_spec(), args.root)
    stale = stale_files(args.root, expected)
    if args.check:
        for path in stale:
            print(f"stale: {path}")
        if stale:
            print("run: python scripts/gen_ops.py", file=sys.stderr)
        return 1 if stale else 0
    for path in stale:
        file = args.root / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(expected[path])
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
