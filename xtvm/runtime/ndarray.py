"""TVM's `tvm.nd` arrays and devices, over numpy.

An `NDArray` holds a numpy array on the CPU, the array being the storage itself; on a CUDA GPU
(`tvm.nd.array(x, tvm.cuda(0))`) it is a `DeviceArray` of `xtvm.runtime.cuda`, in device
memory. `tvm.nd.array(x)`, `tvm.nd.empty(shape, dtype)`, `.numpy()`, `tvm.cpu(0)` and
`tvm.cuda(0)` behave as in TVM.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from xtvm.runtime.cuda_driver import DeviceBuffer, device_count


@dataclass(frozen=True)
class Device:
    """A device: its type name (`cpu`) and index."""

    device_type: str = "cpu"
    device_id: int = 0

    @property
    def exist(self) -> bool:
        if self.device_type == "cuda":
            return self.device_id < device_count()
        return self.device_type == "cpu"

    def __str__(self) -> str:
        return f"{self.device_type}({self.device_id})"

    def array_from(self, values: np.ndarray) -> NDArray:
        """A new array on this device holding `values` (remote devices override it)."""
        if self.device_type == "cuda":
            return DeviceArray.from_numpy(values, self)
        return NDArray(aligned_copy(values), self)

    def empty_array(self, shape: tuple[int, ...], dtype: str) -> NDArray:
        """A new uninitialized array on this device (remote devices override it)."""
        if self.device_type == "cuda":
            return DeviceArray(shape, dtype, self)
        return NDArray(aligned_empty(shape, dtype), self)


def cpu(dev_id: int = 0) -> Device:
    return Device("cpu", dev_id)


def cuda(dev_id: int = 0) -> Device:
    """An NVIDIA GPU (`exist` is False where there is no driver or no such GPU)."""
    return Device("cuda", dev_id)


def cuda_available() -> bool:
    """Whether a CUDA GPU exists: libcuda.so.1 loads, cuInit succeeds and counts a device."""
    return cuda(0).exist


def enabled(target: object) -> bool:
    """TVM's `tvm.runtime.enabled`: whether kernels for `target` ("llvm", "cuda", a Target's
    text) run here: CPU targets always, CUDA ones where a GPU exists."""
    kind = str(target).split()[0] if str(target).strip() else ""
    if kind in ("llvm", "cpu", "c"):
        return True
    if kind in ("cuda", "gpu", "nvptx"):
        return cuda_available()
    return False


class ConversionError(TypeError):
    """Values that cannot become an array of the dtype asked for without being made up."""


def converted(value: object, dtype: np.dtype | str, what: str = "array") -> np.ndarray:
    """`value` (numpy, NDArray, a Python number or list) as a numpy array of `dtype`, converted
    as TVM's `NDArray.copyfrom` converts what a user sets (numpy's cast: floats truncate
    into integers, wider types narrow). Refused, as a `ConversionError` naming `what`, where
    the result would not be the values given: non-numeric or complex data, NaN, infinities
    or values out of range for an integer dtype, and an NDArray of another dtype (TVM copies
    its bytes unconverted, refusing only when their sizes differ)."""
    want = np.dtype(dtype)
    if isinstance(value, NDArray):
        if np.dtype(value.dtype) != want:
            raise ConversionError(
                f"{what}: an NDArray of {value.dtype} for {want} (an NDArray is copied as it "
                f"is: convert it with .numpy().astype('{want}'))"
            )
        return value.numpy()
    try:
        array = np.asarray(value)
    except ValueError as exc:  # ragged lists
        raise ConversionError(f"{what}: {exc}") from None
    if array.dtype == want:
        return array
    kinds = "biuf" + ("c" if want.kind == "c" else "")
    if array.dtype.kind not in kinds or want.kind not in "biufc":
        raise ConversionError(f"{what}: {array.dtype} data cannot become {want}")
    if want.kind in "iu" and array.size:
        info = np.iinfo(want)
        finite = array.dtype.kind not in "f" or bool(np.isfinite(array).all())
        if not finite or array.min() < info.min or array.max() > info.max:
            raise ConversionError(
                f"{what}: {array.dtype} values outside {want}'s range [{info.min}, {info.max}]"
                + ("" if finite else " (NaN or infinity)")
            )
    return array.astype(want)


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

    def copyto(self, target: NDArray | Device) -> NDArray:
        """Copy into `target` (an array of the same shape and dtype), or into a new array on
        device `target`; returns the array copied into."""
        if isinstance(target, Device):
            return target.array_from(self.numpy())
        if target.shape != self.shape or target.dtype != self.dtype:
            raise ValueError(
                f"copyto: {self.shape} {self.dtype} into {target.shape} {target.dtype}: "
                "shapes and dtypes must be equal"
            )
        return target.copyfrom(self)

    def copyfrom(self, source: np.ndarray | NDArray) -> NDArray:
        """Copy `source` (same shape) into this array, converted to its dtype as TVM's."""
        values = converted(source, self.dtype, "copyfrom")
        if values.shape != self.shape:
            raise ValueError(f"copyfrom: shape {values.shape} differs from {self.shape}")
        self._data[...] = values
        return self

    def __array__(self, dtype: np.dtype | None = None, copy: bool | None = None) -> np.ndarray:
        return self._data if dtype is None else self._data.astype(dtype)

    def __repr__(self) -> str:
        return f"<tvm.nd.NDArray shape={self.shape}, {self.device}>\n{self._data!r}"


class OffHostNDArray(NDArray):
    """An NDArray whose values live off the host's numpy memory (on a GPU, in a remote
    session): subclasses set `_shape` and `device` and define `numpy`, which copies them here."""

    _shape: tuple[int, ...]

    @property
    def _data(self) -> np.ndarray:  # type: ignore[override]
        return self.numpy()

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape


def array(data: object, device: Device | None = None) -> NDArray:
    """An NDArray holding a copy of `data` (a numpy array, NDArray or nested list)."""
    values = data.numpy() if isinstance(data, NDArray) else np.array(data)
    return (device or cpu()).array_from(values)


def empty(shape: Sequence[int], dtype: str = "float32", device: Device | None = None) -> NDArray:
    return (device or cpu()).empty_array(tuple(shape), dtype)


def entry_bytes(shape: Sequence[int], dtype: str) -> int:
    """The size in bytes of a dense tensor."""
    return int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize


ALLOC_ALIGNMENT = 64  # bytes: a cache line, and an AVX-512 vector (TVM's kAllocAlignment)


def aligned_storage(size: int) -> np.ndarray:
    """`size` bytes starting on an ALLOC_ALIGNMENT boundary. numpy aligns to 16 bytes only: a
    weight at 16 or 48 mod 64 splits every other 64-byte vector load across two cache lines
    (a 128x768x3072 product measured 2.4 ms aligned, 3.3 to 5.4 ms not)."""
    raw = np.empty(size + ALLOC_ALIGNMENT, np.uint8)
    start = -raw.ctypes.data % ALLOC_ALIGNMENT
    return raw[start : start + size]


HUGE_PAGE_BYTES = 2 << 20  # an x86-64 transparent huge page
MADV_HUGEPAGE = 14  # Linux's madvise advice


def storage_arena(sizes: Sequence[int]) -> list[np.ndarray]:
    """A buffer of each of `sizes` bytes, on ALLOC_ALIGNMENT boundaries, all in one allocation
    that starts on a huge page and is advised to Linux as transparent huge pages (a graph
    executor's weights and intermediates). A product's weight panel steps a whole weight row
    (2 to 6 KB) per k step, a new 4 KB page each time: as separate allocations of 1 to 3 MB
    (under numpy's own 4 MB huge page threshold), a small Llama's weights, read from memory
    at every run, cost a TLB miss per step (33.2 -> 32.3 ms at 1 thread on huge pages)."""
    padded = [-(-size // ALLOC_ALIGNMENT) * ALLOC_ALIGNMENT for size in sizes]
    offsets = np.cumsum([0, *padded[:-1]], dtype=np.int64) if padded else []
    total = sum(padded)
    align = HUGE_PAGE_BYTES if total >= HUGE_PAGE_BYTES else ALLOC_ALIGNMENT
    raw = np.empty(total + align, np.uint8)
    start = -raw.ctypes.data % align
    arena = raw[start : start + total]
    if align == HUGE_PAGE_BYTES:
        advise_huge_pages(arena)
    return [arena[int(o) : int(o) + size] for o, size in zip(offsets, sizes, strict=True)]


def advise_huge_pages(buffer: np.ndarray) -> bool:
    """Ask Linux to back `buffer` (page-aligned, not yet touched) with transparent huge pages;
    False where that is not possible (another system, THP disabled)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        madvise = ctypes.CDLL(None, use_errno=True).madvise
    except (OSError, AttributeError):
        return False
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    madvise.restype = ctypes.c_int
    return madvise(buffer.ctypes.data, buffer.nbytes, MADV_HUGEPAGE) == 0


def aligned_empty(shape: Sequence[int], dtype: object) -> np.ndarray:
    """An uninitialized array on an ALLOC_ALIGNMENT boundary (numeric dtypes; others as numpy
    gives them)."""
    kind = np.dtype(dtype)
    if kind.kind not in "biufc":
        return np.empty(tuple(shape), kind)
    return aligned_storage(entry_bytes(shape, str(kind))).view(kind).reshape(tuple(shape))


def aligned_copy(values: np.ndarray) -> np.ndarray:
    """A copy of `values` on an ALLOC_ALIGNMENT boundary (what `tvm.nd.array` holds)."""
    out = aligned_empty(values.shape, values.dtype)
    out[...] = values
    return out


class DeviceArray(OffHostNDArray):
    """An NDArray in GPU memory (`tvm.nd.array(x, tvm.cuda(0))`); `.numpy()` copies it back."""

    def __init__(
        self, shape: Sequence[int], dtype: str, device: Device, buffer: DeviceBuffer | None = None
    ) -> None:
        self._shape = tuple(int(d) for d in shape)
        self._dtype = np.dtype(dtype)
        self.device = device
        self.buffer = buffer or DeviceBuffer(
            entry_bytes(list(self._shape), dtype), device.device_id
        )
        self.offset = 0

    @staticmethod
    def from_numpy(values: np.ndarray, device: Device) -> DeviceArray:
        array = DeviceArray(values.shape, str(values.dtype), device)
        array.buffer.upload(values)
        return array

    @property
    def pointer(self) -> int:
        return self.buffer.pointer + self.offset

    @property
    def dtype(self) -> str:
        return str(self._dtype)

    def numpy(self) -> np.ndarray:
        out = np.empty(self._shape, self._dtype)
        self.buffer.download(out, self.offset)
        return out

    asnumpy = numpy

    def copyfrom(self, source: np.ndarray | NDArray) -> NDArray:
        values = converted(source, self._dtype, "copyfrom")
        if values.shape != self.shape:
            raise ValueError(f"copyfrom: shape {values.shape} differs from {self.shape}")
        self.buffer.upload(values.astype(self._dtype, copy=False), self.offset)
        return self

    def __array__(self, dtype: np.dtype | None = None, copy: bool | None = None) -> np.ndarray:
        values = self.numpy()
        return values if dtype is None else values.astype(dtype)

    def __repr__(self) -> str:
        return f"<tvm.nd.NDArray shape={self.shape}, {self.device}>\n{self.numpy()!r}"
