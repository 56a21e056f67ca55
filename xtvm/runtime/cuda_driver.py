"""The CUDA driver API through ctypes: `libcuda.so.1` loaded on first use, device count and
contexts, and device memory (`DeviceBuffer`). `device_count()` is 0 where the library is
missing or `cuInit` fails, so asking about a GPU never fails on a machine without one."""

from __future__ import annotations

import ctypes
from functools import cache

import numpy as np


class NoGPUError(RuntimeError):
    """CUDA code was asked to run where no CUDA GPU exists."""


class CUDAError(RuntimeError):
    """A CUDA driver call failed."""


# cuMemsetD<bits>: element size and value type
MEMSET: dict[str, tuple[int, type]] = {
    "cuMemsetD8_v2": (1, ctypes.c_uint8),
    "cuMemsetD16_v2": (2, ctypes.c_uint16),
    "cuMemsetD32_v2": (4, ctypes.c_uint32),
}


# ---------------------------------------------------------------------------------------------
# The driver


@cache
def driver() -> ctypes.CDLL | None:
    """libcuda, initialised; None where it is missing or cuInit fails."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    try:
        if lib.cuInit(0) != 0:
            return None
    except AttributeError:
        return None
    lib.cuLaunchKernel.argtypes = [
        ctypes.c_void_p,
        *[ctypes.c_uint] * 6,
        ctypes.c_uint,
        ctypes.c_void_p,
        ctypes.POINTER(ctypes.c_void_p),
        ctypes.POINTER(ctypes.c_void_p),
    ]
    lib.cuMemcpyHtoD_v2.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t]
    lib.cuMemcpyDtoH_v2.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t]
    lib.cuMemcpyDtoD_v2.argtypes = [ctypes.c_uint64, ctypes.c_uint64, ctypes.c_size_t]
    lib.cuMemAlloc_v2.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t]
    lib.cuMemFree_v2.argtypes = [ctypes.c_uint64]
    for name, (_, value_type) in MEMSET.items():
        getattr(lib, name).argtypes = [ctypes.c_uint64, value_type, ctypes.c_size_t]
    return lib


def device_count() -> int:
    """How many CUDA devices the driver sees (0 without a driver or a GPU); never raises."""
    lib = driver()
    if lib is None:
        return 0
    count = ctypes.c_int(0)
    return count.value if lib.cuDeviceGetCount(ctypes.byref(count)) == 0 else 0


def check(status: int, what: str) -> None:
    if status == 0:
        return
    name = ctypes.c_char_p()
    lib = driver()
    if lib is not None:
        lib.cuGetErrorName(status, ctypes.byref(name))
    raise CUDAError(f"{what} failed: {(name.value or b'CUDA error').decode()} ({status})")


def require(device_id: int = 0) -> ctypes.CDLL:
    """The driver with device `device_id`'s primary context current; NoGPUError without it."""
    lib = driver()
    if lib is None or device_id >= device_count():
        raise NoGPUError(
            f"no CUDA GPU cuda({device_id}) exists here (tvm.cuda({device_id}).exist is False)"
        )
    check(lib.cuCtxSetCurrent(primary_context(lib, device_id)), "cuCtxSetCurrent")
    return lib


PRIMARY_CONTEXTS: dict[int, ctypes.c_void_p] = {}


def primary_context(lib: ctypes.CDLL, device_id: int) -> ctypes.c_void_p:
    """The device's primary context (TVM's and the CUDA runtime's), retained once; made
    current on every call that needs it, so any thread may launch."""
    if device_id not in PRIMARY_CONTEXTS:
        device, ctx = ctypes.c_int(), ctypes.c_void_p()
        check(lib.cuDeviceGet(ctypes.byref(device), device_id), "cuDeviceGet")
        check(lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), device), "cuDevicePrimaryCtxRetain")
        PRIMARY_CONTEXTS[device_id] = ctx
    return PRIMARY_CONTEXTS[device_id]


def synchronize(device_id: int = 0) -> None:
    check(require(device_id).cuCtxSynchronize(), "cuCtxSynchronize")


def compute_capability(device_id: int = 0) -> tuple[int, int]:
    lib = require(device_id)
    major, minor = ctypes.c_int(), ctypes.c_int()
    for value, attribute in ((major, 75), (minor, 76)):  # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_*
        check(lib.cuDeviceGetAttribute(ctypes.byref(value), attribute, device_id), "attribute")
    return major.value, minor.value


# ---------------------------------------------------------------------------------------------
# Device memory


class DeviceBuffer:
    """`nbytes` of device memory, freed with the object."""

    def __init__(self, nbytes: int, device_id: int = 0) -> None:
        self.lib = require(device_id)
        self.nbytes = nbytes
        self.device_id = device_id
        pointer = ctypes.c_uint64()
        check(self.lib.cuMemAlloc_v2(ctypes.byref(pointer), max(nbytes, 1)), "cuMemAlloc")
        self.pointer = pointer.value

    def upload(self, array: np.ndarray, offset: int = 0) -> None:
        data = np.ascontiguousarray(array)
        check(
            self.lib.cuMemcpyHtoD_v2(self.pointer + offset, data.ctypes.data, data.nbytes), "HtoD"
        )

    def download(self, array: np.ndarray, offset: int = 0) -> None:
        assert array.flags.c_contiguous
        check(
            self.lib.cuMemcpyDtoH_v2(array.ctypes.data, self.pointer + offset, array.nbytes), "DtoH"
        )

    def __del__(self) -> None:
        if getattr(self, "pointer", None):
            self.lib.cuMemFree_v2(self.pointer)
