"""Threads of compiled CPU code: libgomp loaded once into the process, and its thread count.

The OpenMP runtime (libgomp) that parallel loops call is loaded into the process once, and
its thread count is set from `XTVM_NUM_THREADS` (default: all cores); `set_num_threads`
changes it later for the calling thread.

Its threads sleep between parallel loops instead of spinning (`OMP_WAIT_POLICY=passive`,
unless the environment chooses a policy or GOMP_SPINCOUNT): libgomp's default spins for
about 300,000 iterations at every barrier, and when another process holds a core, a spinning
thread burns the slice its descheduled partner needs; light ResNet-50 at 2 threads then took
0.65-1.35 s where 1 thread took 0.1 s (PERFORMANCE.md). libgomp reads the policy once, when
it is loaded: a process that loaded it earlier (through another library) keeps its own.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import operator
import os
from functools import cache

import llvmlite.binding as llb

WAIT_POLICY_VARIABLES = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")


@cache
def openmp_runtime() -> ctypes.CDLL:
    """libgomp, loaded into the process (JIT code resolves GOMP_parallel from it).

    It reads its settings from the environment as it loads: the thread count every thread
    starts with (`num_threads()`) and, unless the environment chooses a wait policy or spin
    count, the passive policy. The environment is restored afterwards (child processes do
    not inherit these).
    """
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
    set_num_threads(num_threads(), library)  # where libgomp was loaded before
    return library


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


def set_num_threads(count: int, library: ctypes.CDLL | None = None) -> None:
    """Set the size of the thread pool parallel loops run on, from the next parallel loop on
    (`xtvm.runtime.set_num_threads`, `xtvm-run --threads`). OpenMP keeps the count per
    thread: it applies to the kernels this thread calls; other threads keep theirs."""
    try:
        value = -1 if isinstance(count, bool) else operator.index(count)  # numpy ints too
    except TypeError:
        value = -1
    if value < 1:
        raise ValueError(f"the number of threads must be a positive integer, got {count!r}")
    (library or openmp_runtime()).omp_set_num_threads(ctypes.c_int(value))
