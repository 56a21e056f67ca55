"""TVM's `tvm.nd` arrays and devices, over numpy.

An `NDArray` holds a numpy array on a device; only the CPU exists so far, so the array is the
storage itself. `tvm.nd.array(x)`, `tvm.nd.empty(shape, dtype)`, `.numpy()` and `tvm.cpu(0)`
behave as in TVM.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Device:
    """A device: its type name (`cpu`) and index."""

    device_type: str = "cpu"
    device_id: int = 0

    @property
    def exist(self) -> bool:
        if self.device_type == "cuda":
            return cuda_available()
        return self.device_type == "cpu"

    def __str__(self) -> str:
        return f"{self.device_type}({self.device_id})"


def cpu(dev_id: int = 0) -> Device:
    return Device("cpu", dev_id)


def cuda(dev_id: int = 0) -> Device:
    """An NVIDIA GPU (`exist` is False where there is no driver)."""
    return Device("cuda", dev_id)


def cuda_available() -> bool:
    """Whether an NVIDIA driver is installed: `nvidia-smi` on PATH or libcuda loadable."""
    import ctypes.util
    import shutil

    return shutil.which("nvidia-smi") is not None or ctypes.util.find_library("cuda") is not None


class NDArray:
    """An n-dimensional array on a device; `.numpy()` gives a numpy copy."""

    def __init__(self, data: np.ndarray, device: Device | None = None) -> None:
        self._data = data
        self.device = device or cpu()

    @property
    def shape(self) -> tuple[int, ...]:
        return self._data.shape

    @property
    def dtype(self) -> str:
        return str(self._data.dtype)

    def numpy(self) -> np.ndarray:
        return self._data.copy()

    asnumpy = numpy

    def copyfrom(self, source: np.ndarray | NDArray) -> NDArray:
        """Copy `source` (same shape) into this array."""
        values = source.numpy() if isinstance(source, NDArray) else np.asarray(source)
        if values.shape != self.shape:
            raise ValueError(f"copyfrom: shape {values.shape} differs from {self.shape}")
        self._data[...] = values
        return self

    def __array__(self, dtype: np.dtype | None = None, copy: bool | None = None) -> np.ndarray:
        return self._data if dtype is None else self._data.astype(dtype)

    def __repr__(self) -> str:
        return f"<tvm.nd.NDArray shape={self.shape}, {self.device}>\n{self._data!r}"


def array(data: object, device: Device | None = None) -> NDArray:
    """An NDArray holding a copy of `data` (a numpy array, NDArray or nested list)."""
    values = data.numpy() if isinstance(data, NDArray) else np.array(data)
    return NDArray(values, device)


def empty(shape: Sequence[int], dtype: str = "float32", device: Device | None = None) -> NDArray:
    return NDArray(np.empty(tuple(shape), dtype=dtype), device)
