"""GE's data types and formats in the numberings the serialisers need.

A data type has four spellings: GE's C++/Python enum value (what the GraphIR holds: DT_FLOAT = 0, DT_FLOAT16 = 1,
DT_BF16 = 27, DT_UNDEFINED = 28), the ge_ir.proto enum value written in AIR files (DT_UNDEFINED = 0, DT_FLOAT = 1,
DT_FLOAT16 = 2), GE's serial string (TypeUtils::DataTypeToSerialString: "DT_FLOAT", but "DT_BFLOAT16" for DT_BF16)
and, where one exists, a torch dtype and an ONNX TensorProto element type. The builder, the tensors and the session
use the subset a graph on the twin can hold (TORCH_DTYPES).
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
from onnx import TensorProto

from .types import DataType


@dataclass(frozen=True)
class DType:
    name: str  # the enum member name, DT_*
    ge: int  # GE's C++/Python DataType value
    proto: int  # ge.proto.DataType value
    serial: str  # TypeUtils::DataTypeToSerialString
    torch: torch.dtype | None = None
    onnx: int | None = None


_T = TensorProto
# (name, GE value, proto value, torch dtype, ONNX element type); GE's types.h / types.py and ge_ir.proto.
_ROWS = (
    ("DT_FLOAT", 0, 1, torch.float32, _T.FLOAT),
    ("DT_FLOAT16", 1, 2, torch.float16, _T.FLOAT16),
    ("DT_INT8", 2, 3, torch.int8, _T.INT8),
    ("DT_INT32", 3, 7, torch.int32, _T.INT32),
    ("DT_UINT8", 4, 4, torch.uint8, _T.UINT8),
    ("DT_INT16", 6, 5, torch.int16, _T.INT16),
    ("DT_UINT16", 7, 6, torch.uint16, _T.UINT16),
    ("DT_UINT32", 8, 9, torch.uint32, _T.UINT32),
    ("DT_INT64", 9, 8, torch.int64, _T.INT64),
    ("DT_UINT64", 10, 10, torch.uint64, _T.UINT64),
    ("DT_DOUBLE", 11, 12, torch.float64, _T.DOUBLE),
    ("DT_BOOL", 12, 11, torch.bool, _T.BOOL),
    ("DT_STRING", 13, 13, None, _T.STRING),
    ("DT_DUAL_SUB_INT8", 14, 14, None, None),
    ("DT_DUAL_SUB_UINT8", 15, 15, None, None),
    ("DT_COMPLEX64", 16, 16, torch.complex64, _T.COMPLEX64),
    ("DT_COMPLEX128", 17, 17, torch.complex128, _T.COMPLEX128),
    ("DT_QINT8", 18, 18, None, None),
    ("DT_QINT16", 19, 19, None, None),
    ("DT_QINT32", 20, 20, None, None),
    ("DT_QUINT8", 21, 21, None, None),
    ("DT_QUINT16", 22, 22, None, None),
    ("DT_RESOURCE", 23, 23, None, None),
    ("DT_STRING_REF", 24, 24, None, None),
    ("DT_DUAL", 25, 25, None, None),
    ("DT_VARIANT", 26, 26, None, None),
    ("DT_BF16", 27, 27, torch.bfloat16, _T.BFLOAT16),
    ("DT_UNDEFINED", 28, 0, None, None),
    ("DT_INT4", 29, 28, None, None),
    ("DT_UINT1", 30, 29, None, None),
    ("DT_INT2", 31, 30, None, None),
    ("DT_UINT2", 32, 31, None, None),
    ("DT_COMPLEX32", 33, 32, None, None),
    ("DT_HIFLOAT8", 34, 33, None, None),
    ("DT_FLOAT8_E5M2", 35, 34, torch.float8_e5m2, _T.FLOAT8E5M2),
    ("DT_FLOAT8_E4M3FN", 36, 35, torch.float8_e4m3fn, _T.FLOAT8E4M3FN),
    ("DT_FLOAT8_E8M0", 37, 36, None, None),
    ("DT_FLOAT6_E3M2", 38, 37, None, None),
    ("DT_FLOAT6_E2M3", 39, 38, None, None),
    ("DT_FLOAT4_E2M1", 40, 39, None, None),
    ("DT_FLOAT4_E1M2", 41, 40, None, None),
    ("DT_HIFLOAT4", 42, 41, None, None),
)
DTYPES = tuple(DType(n, g, p, "DT_BFLOAT16" if n == "DT_BF16" else n, t, o) for n, g, p, t, o in _ROWS)
BY_GE = {d.ge: d for d in DTYPES}
BY_PROTO = {d.proto: d for d in DTYPES}
BY_TORCH = {d.torch: d for d in DTYPES if d.torch is not None}
DT_UNDEFINED = BY_GE[28]


def by_ge(value: int, what: str) -> DType:
    """The data type with GE enum value `value`; `what` names the tensor in the error."""
    try:
        return BY_GE[value]
    except KeyError:
        raise ValueError(f"{what}: data type {value!r} is not a GE DataType value (0..42)") from None


# Format enum value -> GE's serial string (TypeUtils::FormatToSerialString), for the formats GE's Python enum has.
FORMAT_NAMES = {
    0: "NCHW", 1: "NHWC", 2: "ND", 3: "NC1HWC0", 4: "FRACTAL_Z", 5: "NC1C0HWPAD", 6: "NHWC1C0", 7: "FSR_NCHW",
    8: "FRACTAL_DECONV", 9: "C1HWNC0", 10: "FRACTAL_DECONV_TRANSPOSE", 11: "FRACTAL_DECONV_SP_STRIDE_TRANS",
    12: "NC1HWC0_C04", 13: "FRACTAL_Z_C04", 14: "CHWN", 15: "DECONV_SP_STRIDE8_TRANS", 16: "HWCN",
    17: "NC1KHKWHWC0", 18: "BN_WEIGHT", 19: "FILTER_HWCK", 20: "LOOKUP_LOOKUPS", 21: "LOOKUP_KEYS",
    22: "LOOKUP_VALUE", 23: "LOOKUP_OUTPUT", 24: "LOOKUP_HITS", 25: "C1HWNCoC0", 26: "MD", 27: "NDHWC",
    29: "FRACTAL_NZ", 30: "NCDHW", 31: "DHWCN", 32: "NDC1HWC0", 33: "FRACTAL_Z_3D", 34: "CN", 35: "NC",
    36: "DHWNC", 37: "FRACTAL_Z_3D_TRANSPOSE", 38: "FRACTAL_ZN_LSTM", 39: "FRACTAL_Z_G", 40: "FORMAT_RESERVED",
    41: "ALL", 42: "NULL", 43: "ND_RNN_BIAS", 44: "FRACTAL_ZN_RNN", 45: "NYUV", 46: "NYUV_A", 47: "NCL",
    48: "FRACTAL_Z_WINO", 49: "C1HWC0", 50: "FRACTAL_NZ_C0_16", 51: "FRACTAL_NZ_C0_32", 52: "END", 53: "MAX",
}
# GE's reader also takes these spellings (kStringToFormatMap).
FORMAT_VALUES = {name: value for value, name in FORMAT_NAMES.items()} | {"RESERVED": 40, "UNDEFINED": 40}


def format_name(value: int, what: str) -> str:
    try:
        return FORMAT_NAMES[value]
    except KeyError:
        raise ValueError(f"{what}: format {value!r} is not a GE Format value with a serial name") from None


# The data types a graph on the twin can hold, and their torch dtypes (complex, string, quantised and 8-bit float types
# have no use here).
TORCH_DTYPES: dict[DataType, torch.dtype] = {
    DataType(d.ge): d.torch for d in DTYPES
    if d.name in ("DT_FLOAT", "DT_FLOAT16", "DT_BF16", "DT_DOUBLE", "DT_INT8", "DT_INT16", "DT_INT32", "DT_INT64",
                  "DT_UINT8", "DT_BOOL")}
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
