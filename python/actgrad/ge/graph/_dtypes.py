"""GE data types <-> torch dtypes: the ones the twin can hold (complex, string and quantised types have no use here)."""
from __future__ import annotations

import torch

from .types import DataType

TORCH_DTYPES: dict[DataType, torch.dtype] = {
    DataType.DT_FLOAT: torch.float32,
    DataType.DT_FLOAT16: torch.float16,
    DataType.DT_BF16: torch.bfloat16,
    DataType.DT_DOUBLE: torch.float64,
    DataType.DT_INT8: torch.int8,
    DataType.DT_INT16: torch.int16,
    DataType.DT_INT32: torch.int32,
    DataType.DT_INT64: torch.int64,
    DataType.DT_UINT8: torch.uint8,
    DataType.DT_BOOL: torch.bool,
}
GE_DTYPES: dict[torch.dtype, DataType] = {v: k for k, v in TORCH_DTYPES.items()}
FLOATING = (DataType.DT_FLOAT, DataType.DT_FLOAT16, DataType.DT_BF16, DataType.DT_DOUBLE)


def dtype_name(data_type: int) -> str:
    try:
        return DataType(data_type).name
    except ValueError:
        return f"data type {data_type}"


def to_torch(data_type: int, what: str) -> torch.dtype:
    """The torch dtype of a GE data type, or TypeError saying `what` has a type the twin cannot hold."""
    try:
        return TORCH_DTYPES[DataType(data_type)]
    except (KeyError, ValueError):
        raise TypeError(f"{what}: {dtype_name(data_type)} is not supported here; supported: "
                        + ", ".join(d.name for d in TORCH_DTYPES)) from None


def to_ge(dtype: torch.dtype, what: str) -> DataType:
    try:
        return GE_DTYPES[dtype]
    except KeyError:
        raise TypeError(f"{what}: torch dtype {dtype} has no GE data type here; supported: "
                        + ", ".join(str(d) for d in GE_DTYPES)) from None
