"""GE's enums with GE's numbers (metadef types.h, ge.graph.types): the IR stores these values."""
from enum import IntEnum


class DataType(IntEnum):
    DT_FLOAT = 0
    DT_FLOAT16 = 1
    DT_INT8 = 2
    DT_INT32 = 3
    DT_UINT8 = 4
    DT_INT16 = 6
    DT_UINT16 = 7
    DT_UINT32 = 8
    DT_INT64 = 9
    DT_UINT64 = 10
    DT_DOUBLE = 11
    DT_BOOL = 12
    DT_STRING = 13
    DT_COMPLEX64 = 16
    DT_COMPLEX128 = 17
    DT_BF16 = 27
    DT_UNDEFINED = 28


class Format(IntEnum):
    FORMAT_NCHW = 0
    FORMAT_NHWC = 1
    FORMAT_ND = 2
    FORMAT_NC1HWC0 = 3
    FORMAT_FRACTAL_Z = 4
    FORMAT_NCDHW = 30
    FORMAT_NDHWC = 27
    FORMAT_FRACTAL_NZ = 29
    FORMAT_RESERVED = 40
    FORMAT_ALL = 41
    FORMAT_NULL = 42


class Placement(IntEnum):
    PLACEMENT_HOST = 0
    PLACEMENT_DEVICE = 1
