"""GE's host Tensor (ge.graph.Tensor), held as a torch tensor on the CPU.

As GE, `data` is a flat Python list read as `data_type` and laid out as `shape` (None: a scalar). Here `data` may
also be a torch tensor or a NumPy array, taken as it is: its dtype must be `data_type` and `shape`, if given, its
shape (no silent cast or reshape). `file_path` reads the raw bytes of a file as GE does.
"""
from __future__ import annotations

import math
from typing import List, Optional, Union

import numpy as np
import torch

from ._dtypes import GE_DTYPES, dtype_name, to_ge, to_torch
from .types import DataType, Format, Placement


def _check_shape(shape) -> None:
    if shape is not None and (not isinstance(shape, list)
                              or not all(isinstance(d, int) and not isinstance(d, bool) for d in shape)):
        raise TypeError("Shape must be a list of integers")
    if shape is not None and any(d < 0 for d in shape):
        raise ValueError(f"Tensor shape {shape} has a negative dimension")


class Tensor:
    def __init__(
        self,
        data: Optional[Union[List[int], List[float], List[bool], torch.Tensor, np.ndarray]] = None,
        file_path: Optional[str] = None,
        data_type: Optional[DataType] = DataType.DT_FLOAT,
        format: Optional[Format] = Format.FORMAT_ND,
        shape: Optional[List[int]] = None,
        placement: Optional[Placement] = Placement.PLACEMENT_HOST,
    ) -> None:
        _check_shape(shape)
        if not isinstance(placement, Placement):
            raise TypeError("Placement must be a Placement")
        if placement != Placement.PLACEMENT_HOST:
            raise ValueError("Placement.PLACEMENT_DEVICE: the twin has no device memory; tensors live on the host")
        if not isinstance(data_type, DataType):
            raise TypeError(f"data_type must be a DataType, got {data_type!r}")
        if not isinstance(format, Format):
            raise TypeError(f"format must be a Format, got {format!r}")
        if data is not None and file_path is not None:
            raise RuntimeError("Tensor should be created either by data or by file")
        dtype = to_torch(data_type, "Tensor data_type")
        if isinstance(data, np.ndarray):
            data = torch.from_numpy(data)
        if isinstance(data, torch.Tensor):
            value = self._from_tensor(data, data_type, shape)
        elif data is not None:
            value = self._from_list(data, dtype, shape)
        elif file_path is not None:
            value = self._from_file(file_path, dtype, shape)
        else:
            value = torch.zeros((), dtype=dtype)  # GE's empty Tensor: a scalar with nothing set
        self._data = value
        self._format = Format(format)

    @staticmethod
    def _from_tensor(data: torch.Tensor, data_type: DataType, shape) -> torch.Tensor:
        if data.dtype not in GE_DTYPES or GE_DTYPES[data.dtype] != data_type:
            raise TypeError(f"Tensor data is a {data.dtype} tensor but data_type is {dtype_name(data_type)}; "
                            f"pass the data_type of the data (no cast is made)")
        if shape is not None and list(data.shape) != shape:
            raise ValueError(f"Tensor data has shape {list(data.shape)} but shape is {shape}")
        return data.detach().to("cpu")

    @staticmethod
    def _from_list(data, dtype: torch.dtype, shape) -> torch.Tensor:
        if not isinstance(data, list):
            raise TypeError("data should be List (or a torch tensor or NumPy array)")
        dims = shape if shape is not None else []
        if len(data) != math.prod(dims):
            raise ValueError(f"Tensor data has {len(data)} values but shape {dims} holds {math.prod(dims)}")
        if not all(isinstance(v, (int, float, bool)) for v in data):
            raise TypeError("Tensor data must be a flat list of int, float or bool")
        return torch.tensor(data, dtype=dtype).reshape(dims)

    @staticmethod
    def _from_file(file_path: str, dtype: torch.dtype, shape) -> torch.Tensor:
        if not isinstance(file_path, str):
            raise TypeError("file_path must be a string")
        dims = shape if shape is not None else []
        with open(file_path, "rb") as f:
            raw = bytearray(f.read())
        count = math.prod(dims)
        need = count * torch.empty((), dtype=dtype).element_size()
        if len(raw) != need:
            raise ValueError(f"{file_path} holds {len(raw)} bytes; shape {dims} of {dtype} needs {need}")
        return torch.frombuffer(raw, dtype=dtype, count=count).reshape(dims) if count else torch.empty(dims, dtype=dtype)

    @classmethod
    def _create_from(cls, value: torch.Tensor, format: Format = Format.FORMAT_ND) -> "Tensor":
        """A Tensor holding `value` itself (outputs of a run, Const values); no copy."""
        to_ge(value.dtype, "Tensor")
        instance = cls.__new__(cls)
        instance._data = value
        instance._format = Format(format)
        return instance

    def __copy__(self):
        raise RuntimeError("Tensor does not support copy")

    def __deepcopy__(self, memodict):
        raise RuntimeError("Tensor does not support deepcopy")

    def __str__(self) -> str:
        return (f"Tensor(format={self.get_format().name}, data_type={self.get_data_type().name}, "
                f"shape={self.get_shape()}, data={self.get_data()})")

    def get_data(self):
        """The values as nested lists of Python numbers in the tensor's shape (a number for a scalar), as GE's."""
        return self._data.tolist()

    @property
    def data(self):
        return self.get_data()

    def get_data_type(self) -> DataType:
        return to_ge(self._data.dtype, "Tensor")

    @property
    def data_type(self) -> DataType:
        return self.get_data_type()

    def get_format(self) -> Format:
        return self._format

    @property
    def format(self) -> Format:
        return self.get_format()

    def set_format(self, format: Format) -> "Tensor":
        if not isinstance(format, Format):
            raise TypeError("Format must be a Format")
        self._format = format
        return self

    def get_shape(self) -> List[int]:
        return list(self._data.shape)

    @property
    def shape(self) -> List[int]:
        return self.get_shape()

    def get_placement(self) -> Placement:
        return Placement.PLACEMENT_HOST

    @property
    def placement(self) -> Placement:
        return self.get_placement()
