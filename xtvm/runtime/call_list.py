"""A graph's kernel calls run in one native call (`runtime/c/call_list.c`).

Calling a compiled kernel from Python through ctypes costs about 3 us; a graph of a thousand
small kernels (an LSTM unrolled over its sequence, a mobile CNN) spent a fifth of its run on
it. `CallList` turns the executor's calls, whose arguments are fixed once the buffers are
planned, into a table of {function, argument count, arguments} that the C runner walks; a call
the runner cannot make (arguments other than pointers and int64s, more than its maximum, a
function without an int32 status) runs from Python between the native stretches. Without a C
compiler the whole list runs from Python.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from xtvm.runtime.native import NativeBuildError, build_c_library

CALL_LIST_SOURCE = Path(__file__).parent / "c" / "call_list.c"
CALL_LIST_FLAGS = ("-O2", "-fPIC", "-shared")
# Argument types the runner passes as a pointer-sized integer.
WORD_TYPES = (ctypes.c_void_p, ctypes.c_int64)


class Checker(Protocol):
    def check(self, status: int | None) -> None: ...


Call = tuple[Callable[..., int | None], list[Any], Checker]
"""A raw C function (a ctypes function), its converted arguments, and what checks its status
(a `PackedFunc`)."""


class CallRecord(ctypes.Structure):
    _fields_ = [
        ("function", ctypes.c_void_p),
        ("count", ctypes.c_int64),
        ("args", ctypes.POINTER(ctypes.c_int64)),
    ]


@cache
def call_runner() -> tuple[Callable[..., int], int] | None:
    """The C runner (`xtvm_run_calls`) and its maximum number of arguments per call, or None
    where it cannot be built (no C compiler) or the platform's pointers are not 64-bit."""
    if ctypes.sizeof(ctypes.c_void_p) != ctypes.sizeof(ctypes.c_int64):
        return None
    try:
        path = build_c_library(CALL_LIST_SOURCE, CALL_LIST_FLAGS, "the graph's call runner")
    except NativeBuildError:
        return None
    library = ctypes.CDLL(str(path))
    run = library.xtvm_run_calls
    run.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.POINTER(ctypes.c_int32)]
    run.restype = ctypes.c_int64
    run._library = library  # type: ignore[attr-defined]  # kept loaded with the function
    return run, int(library.xtvm_max_call_args())


def native_call(raw: Any, args: Sequence[Any], max_args: int) -> bool:
    """Whether the runner can make this call: a C function returning an int32 status whose
    arguments are all pointers or int64s, at most `max_args` of them."""
    argtypes = getattr(raw, "argtypes", None)
    return (
        getattr(raw, "restype", None) is ctypes.c_int32
        and argtypes is not None
        and len(argtypes) == len(args) <= max_args
        and all(t in WORD_TYPES for t in argtypes)
        and all(isinstance(a, int) for a in args)
    )


class CallList:
    """Runs `calls` in order, stopping at the first error status, which the call's checker
    raises (the message is the kernel's, as from Python). Stretches of calls the runner can
    make run as one native call each, the others from Python."""

    def __init__(self, calls: Sequence[Call]) -> None:
        self.calls = list(calls)
        runner = call_runner()
        self.native = runner is not None
        # (first call, native table or None for a Python call, the table's length)
        self.segments: list[tuple[int, Any, int]] = []
        self._keep: list[Any] = []  # the argument arrays the tables point to
        if runner is None:
            self.segments = [(i, None, 1) for i in range(len(self.calls))]
            return
        self._run, max_args = runner
        stretch: list[CallRecord] = []
        for position, (raw, args, _) in enumerate(self.calls):
            if native_call(raw, args, max_args):
                values = (ctypes.c_int64 * max(len(args), 1))(*args)
                self._keep.append(values)
                address = ctypes.cast(raw, ctypes.c_void_p).value
                stretch.append(CallRecord(address, len(args), values))
                continue
            self._close(stretch, position)
            stretch = []
            self.segments.append((position, None, 1))
        self._close(stretch, len(self.calls))

    def _close(self, stretch: list[CallRecord], end: int) -> None:
        if stretch:
            table = (CallRecord * len(stretch))(*stretch)
            self.segments.append((end - len(stretch), table, len(stretch)))

    def run(self) -> None:
        calls = self.calls
        for first, table, count in self.segments:
            if table is None:
                raw, args, checker = calls[first]
                status = raw(*args)
                if status:
                    checker.check(status)
                continue
            status = ctypes.c_int32(0)  # per run: threads may share the list
            done = 0
            while done < count:
                start = ctypes.addressof(table) + done * ctypes.sizeof(CallRecord)
                failed = self._run(start, count - done, status)
                if failed < 0:
                    break
                done += failed + 1
                calls[first + done - 1][2].check(status.value)
