"""Renderers of the files derived from python/actgrad/spec.py; each returns the full text of one file."""
from __future__ import annotations

from pathlib import Path

from . import attr_checks, ge_es, ge_proto, kernels, op_def, readme


def render_all(spec, root: Path) -> dict[str, str]:
    """{path relative to the repo root: expected content} for every generated file."""
    files = {
        ge_proto.PATH: ge_proto.render(spec),
        ge_es.PATH: ge_es.render(spec),
        op_def.PATH: op_def.render(spec),
        kernels.REGISTRY_PATH: kernels.render_registry(spec),
        kernels.ROW_REGISTRY_PATH: kernels.render_row_registry(spec),
        attr_checks.PATH: attr_checks.render(spec),
        kernels.ACLNN_CALLS_PATH: kernels.render_aclnn_calls(spec),
    }
    files.update({kernels.kernel_path(op): kernels.render_kernel(spec, op) for op in spec.OPS})
    files[readme.OPERATORS_DOC_PATH] = readme.render_operators_doc(spec)
    readme_file = root / readme.PATH
    files[readme.PATH] = readme.render(spec, readme_file.read_text() if readme_file.exists() else None)
    return files
