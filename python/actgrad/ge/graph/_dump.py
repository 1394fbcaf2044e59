"""Graph dumps: GE's Graph::DumpToFile / Graph::Dump (graph_metadef/graph/normal_graph/graph.cc) for a GraphIR.

- kReadable: GE's readable text (_readable.py).
- kTxt: the protobuf text format of the ge.proto ModelDef GE dumps (_ge_model.py, for_dump=True), as GE's
  TextFormat::Print writes it (map entries sorted by key).
- kOnnx: a binary ONNX ModelProto (_onnx.py) in the file; dump_to_stream returns the protobuf text format of the same
  ModelProto, which is what GE's Dump returns for kOnnx (TextFormat::Print of its onnx::ModelProto).

File names are GE's (graph_utils.cc GenDumpOnnxFileName / GenDumpTxtFileName / GenDumpReadableTxtFileName):
ge_onnx_<n>_graph_<graph id>_<suffix>.onnx (GE: .pbtxt, as its file is text), ge_proto_<n>_graph_<graph id>_<suffix>.txt
and ge_readable_<n>_graph_<graph id>_<suffix>.txt, with <n> a per-format counter of this process from 0, eight digits,
and / \\ : * ? " < > | in the suffix replaced by "_". The directory: $DUMP_GRAPH_PATH/pid_<pid>_deviceid_0/ when
DUMP_GRAPH_PATH is set (created if needed), else the working directory. GE also honours NPU_COLLECT_PATH and
ASCEND_WORK_PATH and fixes the directory at its first dump; this looks at DUMP_GRAPH_PATH on every call.
"""
from __future__ import annotations

import itertools
import os
import threading

from google.protobuf import text_format

from . import _onnx, _readable
from ._ge_model import to_model_def
from ._ir import GraphIR
from .graph import DumpFormat




_PREFIX = {DumpFormat.kOnnx: "ge_onnx_", DumpFormat.kTxt: "ge_proto_", DumpFormat.kReadable: "ge_readable_"}
_EXTENSION = {DumpFormat.kOnnx: ".onnx", DumpFormat.kTxt: ".txt", DumpFormat.kReadable: ".txt"}
_COUNTERS = {f: itertools.count() for f in DumpFormat}  # GE: one static atomic index per file-name generator
_LOCK = threading.Lock()
_ILLEGAL = str.maketrans({c: "_" for c in '/\\:*?"<>|'})  # GetSanitizedName
_NAME_MAX = 255  # kNameMax: longer names are cut (GE does it for the ONNX name; a longer one cannot be opened)


def _check_format(format) -> DumpFormat:
    if not isinstance(format, DumpFormat):
        raise TypeError("format must be a DumpFormat (kOnnx, kTxt or kReadable), got " + repr(format))
    return format


def dump_to_stream(graph: GraphIR, format: DumpFormat) -> str:
    format = _check_format(format)
    if format is DumpFormat.kReadable:
        return _readable.render(graph)
    if format is DumpFormat.kTxt:
        return text_format.MessageToString(to_model_def(graph, for_dump=True))
    return text_format.MessageToString(_onnx.to_model(graph))


def dump_directory() -> str:
    """Where GE writes dumps: $DUMP_GRAPH_PATH/pid_<pid>_deviceid_<device>/ or the working directory."""
    base = os.environ.get("DUMP_GRAPH_PATH")
    if base is None:
        return os.getcwd()
    # An empty DUMP_GRAPH_PATH gives GE a relative pid_... directory, i.e. one in the working directory.
    return os.path.abspath(os.path.join(base, f"pid_{os.getpid()}_deviceid_0"))


def file_name(graph: GraphIR, format: DumpFormat, suffix: str, index: int) -> str:
    name = f"{_PREFIX[format]}{index:08d}_{f'graph_{graph.graph_id}_{suffix}'.translate(_ILLEGAL)}"
    ext = _EXTENSION[format]
    if len(name) + len(ext) >= _NAME_MAX:
        name = name[:_NAME_MAX - 1 - len(ext)]
    return name + ext


def dump_to_file(graph: GraphIR, format: DumpFormat, suffix: str) -> str:
    format = _check_format(format)
    if not isinstance(suffix, str):
        raise TypeError(f"suffix must be a str, got {type(suffix).__name__}")
    # Render first: a graph that cannot be dumped leaves no file and uses no file number.
    data = (_onnx.to_model(graph).SerializeToString() if format is DumpFormat.kOnnx
            else dump_to_stream(graph, format).encode())
    directory = dump_directory()
    os.makedirs(directory, exist_ok=True)
    with _LOCK:
        path = os.path.join(directory, file_name(graph, format, suffix, next(_COUNTERS[format])))
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # GE's FILE_AUTHORITY 0600
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    return path
