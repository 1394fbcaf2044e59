"""AIR files: GE's own serialised graph (Graph::SaveToFile / Graph::LoadFromFile), a binary ge.proto ModelDef.

GE serialises with deterministic map order (ModelSerializeImp::SerializeToBuffer), so does this. What the ModelDef
holds is described in _ge_model.py. GE moves constants out to files beside the AIR only when the model passes 2 GB;
this writes everything into the one file and refuses a graph that large.
"""
from __future__ import annotations

import os

from google.protobuf.message import DecodeError

from . import _ge_ir_proto as pb
from ._ge_model import from_model_def, to_model_def
from ._ir import GraphIR

_MAX_BYTES = 2**31 - 1  # protobuf's message size limit, which GE's reader sets too (SetTotalBytesLimit(INT32_MAX))


def save_to_air(graph: GraphIR, file_path: str) -> None:
    data = to_model_def(graph).SerializeToString(deterministic=True)
    if len(data) > _MAX_BYTES:
        raise ValueError(f"graph {graph.name!r}: {len(data)} bytes, more than an AIR file can hold (2 GB)")
    directory = os.path.dirname(file_path)
    if directory:
        os.makedirs(directory, exist_ok=True)  # as Model::SaveToFile (CreateDir)
    with open(file_path, "wb") as f:
        f.write(data)


def load_from_air(file_path: str) -> GraphIR:
    with open(file_path, "rb") as f:
        data = f.read()
    model = pb.ModelDef()
    try:
        model.ParseFromString(data)
    except DecodeError as e:
        raise ValueError(f"{file_path}: not an AIR file (a ge.proto ModelDef): {e}") from None
    return from_model_def(model, file_path)
