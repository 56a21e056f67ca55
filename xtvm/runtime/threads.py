"""Threads of compiled CPU code: xtvm's thread pool (`runtime/c/threadpool.c`) and its count.

A parallel loop of a compiled kernel calls `xtvm_parallel_for`, which runs chunks of the loop
on the calling thread and the pool's workers. The pool is xtvm's own rather than libgomp's
because of shared machines: libgomp's team waits at the end of every parallel loop for all its
threads, so when another process holds a core, each kernel waited a whole time slice for a
descheduled worker (light ResNet-50 took 0.65-2.3 s at 2 threads against 0.1 s at 1; even a
quiet MobileNetV3 ran 9x slower at 2 threads, PERFORMANCE.md). xtvm's pool waits only for the
chunks its workers claimed, spins for a bounded 0.1 ms between loops and then sleeps.

The JIT uses one pool per process, built from its C source with the system compiler on first
use (kept in the per-user cache). A library written by `export_library` carries its own copy
(it runs without Python); `load_library` registers it here so that `set_num_threads` reaches
it. The count is process-wide: `XTVM_NUM_THREADS` at start (default: all cores this process
may use), `set_num_threads` (`xtvm.runtime.set_num_threads`, `xtvm-run --threads`) later.
"""

from __future__ import annotations

import _ctypes
import ctypes
import ctypes.util
import operator
import os
import threading
import weakref
from collections.abc import Callable
from contextlib import suppress
from functools import cache
from pathlib import Path

import llvmlite.binding as llb

from xtvm.runtime.native import NativeBuildError, build_c_library

POOL_SOURCE = Path(__file__).parent / "c" / "threadpool.c"
POOL_FLAGS = ("-O2", "-fPIC", "-shared", "-pthread")
SetCount = Callable[[int], None]
GetCount = Callable[[], int]
# The count's setter and getter of the pool of each loaded library (and the JIT's).
POOLS: weakref.WeakKeyDictionary[ctypes.CDLL, tuple[SetCount, GetCount]] = (
    weakref.WeakKeyDictionary()
)
POOLS_LOCK = threading.Lock()
_count: int | None = None  # what set_num_threads chose last (None: num_threads())


WAIT_POLICY_VARIABLES = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")


class ThreadPoolError(NativeBuildError):
    """The thread pool's C source could not be compiled (no C compiler)."""


def build_pool_library() -> Path:
    """The pool's shared library: from the per-user cache when it holds one built from this
    source, else compiled now (and cached)."""
    return build_c_library(POOL_SOURCE, POOL_FLAGS, "xtvm's thread pool", ThreadPoolError)


@cache
def pool_runtime() -> ctypes.CDLL:
    """The JIT's thread pool, loaded into the process (JIT code resolves xtvm_parallel_for
    from it)."""
    path = str(build_pool_library())
    llb.load_library_permanently(path)
    library = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    register_pool(library)
    return library


@cache
def openmp_runtime() -> ctypes.CDLL:
    """libgomp, loaded into the process for the code that still runs on OpenMP (oneDNN, the C
    backend's `omp` pragmas), with `num_threads()` threads and, unless the environment chooses
    a wait policy or spin count, the passive policy (libgomp reads both as it loads; the
    environment is restored afterwards). `set_num_threads` sets its count too."""
    settings = {"OMP_NUM_THREADS": str(num_threads())}
    if not any(os.environ.get(name, "").strip() for name in WAIT_POLICY_VARIABLES):
        settings["OMP_WAIT_POLICY"] = "passive"
    saved = {name: os.environ.get(name) for name in settings}
    os.environ.update(settings)
    try:
        path = ctypes.util.find_library("gomp") or "libgomp.so.1"
        llb.load_library_permanently(path)
        library = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    finally:
        for name, value in saved.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value
    library.omp_set_num_threads(ctypes.c_int(_count or num_threads()))  # if loaded before
    return library


def register_pool(library: ctypes.CDLL) -> None:
    """Let `set_num_threads` reach the pool of `library` (given the current count now), for
    as long as the library is loaded: only its functions are kept, not the library, which
    the RPC server unloads once unused (the pool's workers stop as it goes)."""
    dlsym = _ctypes.dlsym  # type: ignore[attr-defined]
    setter = ctypes.CFUNCTYPE(None, ctypes.c_int32)(dlsym(library._handle, "xtvm_set_num_threads"))
    getter = ctypes.CFUNCTYPE(ctypes.c_int32)(dlsym(library._handle, "xtvm_get_num_threads"))
    with POOLS_LOCK:
        POOLS[library] = (setter, getter)
        setter(_count if _count is not None else num_threads())


def num_threads() -> int:
    """`XTVM_NUM_THREADS` if set, else the number of cores this process may use."""
    value = os.environ.get("XTVM_NUM_THREADS", "")
    if value.strip():
        try:
            count = int(value)
        except ValueError:
            raise ValueError(
                f"XTVM_NUM_THREADS must be a positive integer, got '{value}'"
            ) from None
        if count < 1:
            raise ValueError(f"XTVM_NUM_THREADS must be a positive integer, got '{value}'")
        return count
    return len(os.sched_getaffinity(0))


def get_num_threads() -> int:
    """The threads parallel loops run on now (the calling thread included)."""
    with POOLS_LOCK:
        for _, getter in POOLS.values():
            return int(getter())
    return _count if _count is not None else num_threads()


def set_num_threads(count: int) -> None:
    """Run parallel loops on `count` threads (the calling one included) from the next parallel
    loop on, in every thread of the process (`xtvm-run --threads`); OpenMP code (oneDNN) gets
    the count for the calling thread."""
    global _count
    try:
        value = -1 if isinstance(count, bool) else operator.index(count)  # numpy ints too
    except TypeError:
        value = -1
    if value < 1:
        raise ValueError(f"the number of threads must be a positive integer, got {count!r}")
    with suppress(ThreadPoolError):  # no compiler: exported libraries' pools still count
        pool_runtime()
    with POOLS_LOCK:
        _count = value
        for setter, _ in POOLS.values():
            setter(value)
    openmp_runtime().omp_set_num_threads(ctypes.c_int(value))
