"""Calls from compiled kernels into functions registered with `tvm.register_func`.

TVM's `tvm.tir.call_packed("name", buf, ..., x)`: the kernel calls a generated C symbol with
one uniform argument per value (a buffer's data pointer, an integer as int64, a float as
double); the JIT binds that symbol to a ctypes callback that wraps each pointer as a
`tvm.nd.NDArray` viewing the kernel's memory (shape and dtype as the call declared them),
looks the function up by name when called (as TVM does) and calls it. The callback returns
0, or 1 when the function raised (the kernel then fails with the exception's message).
"""

from __future__ import annotations

import ctypes
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

# Names a registered function may have to be called from a kernel: TVM's dotted ones.
PACKED_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
MAX_NAME = 256
HANDLE = "handle"  # a raw data pointer argument (`buffer.data`), passed as ctypes.c_void_p


def check_packed_name(name: object) -> str:
    """`name` when it can name a registered function called from a kernel, else ValueError."""
    if not isinstance(name, str) or len(name) > MAX_NAME or not PACKED_NAME.fullmatch(name):
        raise ValueError(
            f"call_packed: {name!r} is not a function name (letters, digits, '_' and '.')"
        )
    return name


@dataclass(frozen=True)
class PackedCall:
    """One call site: the function's name and each argument's kind: a buffer's (shape,
    numpy dtype), "int" / "float" for a scalar, "handle" for a raw pointer."""

    callee: str
    args: tuple[tuple[tuple[int, ...], str] | str, ...]


def packed_callback(call: PackedCall, errors: dict[str, str]) -> Any:
    """The ctypes callback of `call`; the message of a failure goes into `errors[callee]`."""
    from xtvm.runtime.ndarray import NDArray
    from xtvm.runtime.registry import get_global_func

    types: list[Any] = []
    for arg in call.args:
        types.append(
            ctypes.c_void_p
            if isinstance(arg, tuple)
            else ctypes.c_int64
            if arg == "int"
            else ctypes.c_void_p
            if arg == HANDLE
            else ctypes.c_double
        )

    def wrap(arg: tuple[tuple[int, ...], str] | str, value: Any) -> Any:
        if arg == HANDLE:
            return ctypes.c_void_p(value)
        if not isinstance(arg, tuple):
            return value
        shape, dtype = arg
        count = int(np.prod(shape, dtype=np.int64))
        raw = (ctypes.c_byte * (count * np.dtype(dtype).itemsize)).from_address(value)
        return NDArray(np.frombuffer(raw, dtype=dtype, count=count).reshape(shape))

    def callback(*values: Any) -> int:
        try:
            function = get_global_func(call.callee, allow_missing=True)
            if function is None:
                raise ValueError(f"no global function '{call.callee}' is registered")
            function(*(wrap(a, v) for a, v in zip(call.args, values, strict=True)))
        except Exception as error:
            errors[call.callee] = f"{type(error).__name__}: {error}"
            return 1
        return 0

    return ctypes.CFUNCTYPE(ctypes.c_int32, *types)(callback)


def bind_packed_calls(
    calls: dict[str, PackedCall], add_symbol: Callable[[str, int], None]
) -> tuple[list[Any], dict[str, str]]:
    """Bind each call site's symbol to its callback; the callbacks (to keep alive with the
    code) and the dict of failure messages they fill."""
    errors: dict[str, str] = {}
    callbacks = []
    for symbol, call in calls.items():
        callback = packed_callback(call, errors)
        add_symbol(symbol, ctypes.cast(callback, ctypes.c_void_p).value or 0)
        callbacks.append(callback)
    return callbacks, errors
