"""Per-kernel timing of a graph executor's calls (TVM's debug executor times per node).

A graph executor keeps its kernel calls in a table (`GraphExecutor.calls`: raw function,
converted arguments, the kernel that checks the status), in call order; `call_names` says
which kernel each call runs. Timing each call of a run by itself gives each kernel's time as
the model runs it: its inputs left in cache by the kernel before, its weights as cold as the
rest of the run leaves them, which a kernel timed alone in a loop does not see.

- `time_calls(executor)`: one run of the graph, each call timed;
- `kernel_seconds(executor, runs)`: each call's median over `runs` runs;
- `interleaved_kernel_seconds(executors, runs)`: the same of several executors (a default
  and a tuned build of one model) timed in alternating rounds, so that a shared machine's
  drifting load falls on all of them alike.

The default clock is `time.thread_time`, the calling thread's CPU time: at one thread (the
kernels run in the calling thread) what other processes' load leaves alone. With a thread
pool the kernels' work is done by other threads too: time by `time.perf_counter` then.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

Clock = Callable[[], float]
ROUNDS = 4  # interleaved rounds at least, where the runs allow


def executor_of(module: Any) -> Any:
    """The executor holding the call table: `module` itself, or the calling thread's
    executor of a `GraphModule`."""
    if hasattr(module, "calls"):
        return module
    inner = getattr(module, "_executor", None)
    executor = inner() if callable(inner) else None
    if executor is None or not hasattr(executor, "calls"):
        raise TypeError(f"{type(module).__name__} is not a local graph executor: no kernel calls")
    return executor


def time_calls(module: Any, clock: Clock = time.thread_time) -> list[float]:
    """Seconds of each kernel call of one run of the graph, in call order (the inputs must
    have been set: run it once first)."""
    seconds = []
    for raw, args, kernel in executor_of(module).calls:
        start = clock()
        kernel.check(raw(*args))
        seconds.append(clock() - start)
    return seconds


def kernel_seconds(module: Any, runs: int, clock: Clock = time.thread_time) -> list[float]:
    """The median seconds of each kernel call (in call order) over `runs` runs, after one
    untimed run (which also refuses inputs without a value)."""
    return interleaved_kernel_seconds([module], runs, clock=clock)[0]


def interleaved_kernel_seconds(
    modules: Sequence[Any],
    runs: int,
    block: int = 0,
    clock: Clock = time.thread_time,
    pause: float = 0.0,
) -> list[list[float]]:
    """For each executor of `modules`, the median seconds of each kernel call over `runs`
    runs, the executors taking turns in blocks of `block` runs (0: about 0.05 s of the
    slowest, and at least `ROUNDS` turns each; the order reversed every round), each block
    after `pause` seconds and one untimed run (its caches warm again after the other's)."""
    if runs < 1:
        raise ValueError(f"timing kernels needs at least one run, got {runs}")
    executors = [executor_of(m) for m in modules]
    slowest = 0.0
    for executor in executors:
        start = time.perf_counter()
        executor.run()  # refuses inputs without a value
        slowest = max(slowest, time.perf_counter() - start)
    if block < 1:
        block = max(1, min(runs // ROUNDS, int(0.05 / max(slowest, 1e-6))))
    samples: list[list[list[float]]] = [[[] for _ in e.calls] for e in executors]
    done, turn = 0, list(zip(executors, samples, strict=True))
    while done < runs:
        count = min(block, runs - done)
        for executor, calls in turn:
            if pause:
                time.sleep(pause)
            executor.run()
            for _ in range(count):
                for call, seconds in zip(calls, time_calls(executor, clock), strict=True):
                    call.append(seconds)
        done += count
        turn.reverse()  # none always goes first (after the pause) or last
    return [[statistics.median(call) for call in calls] for calls in samples]


__all__ = ["executor_of", "interleaved_kernel_seconds", "kernel_seconds", "time_calls"]
