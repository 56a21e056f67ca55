"""TVM's `tvm.contrib.debugger.debug_executor`: a graph module that times each kernel call.

    m = debug_executor.create(lib.get_graph_json(), lib.get_lib(), tvm.cpu())
    m.set_input("x", x)
    per_call = m.run_individual(number=10, repeat=3)   # seconds, [call][repeat]
    medians = m.kernel_seconds(runs=20)                # thread clock, in call order

It is a `GraphModule` (set_input, run, get_output as usual); `kernel_names` says which kernel
each call runs. TVM's times cover every node; here the kernel calls only (inputs, params and
views cost nothing at run time). TVM's per-node output dumps (`dump_root`) are not written.
"""

from __future__ import annotations

import time
from typing import Any

from xtvm.contrib.graph_executor import GraphModule
from xtvm.runtime.graph_executor import GraphExecutor
from xtvm.runtime.module import Module
from xtvm.runtime.ndarray import Device
from xtvm.runtime.profiling import Clock, kernel_seconds, time_calls


def create(
    graph_json_str: str, libmod: Module, device: Device | None = None, dump_root: Any = None
) -> GraphModuleDebug:
    """A debug graph module from `relay.build`'s graph JSON and kernel library (its params
    linked into the library are set, as TVM sets them)."""
    if dump_root is not None:
        raise ValueError("debug_executor: per-node output dumps (dump_root) are not supported")
    if device is not None and device.device_type != "cpu":
        raise ValueError(f"debug_executor: kernels are timed on the CPU only, not on {device}")
    return GraphModuleDebug(GraphExecutor(graph_json_str, libmod, device))


class GraphModuleDebug(GraphModule):
    """A `GraphModule` whose kernel calls can be timed one by one."""

    @property
    def kernel_names(self) -> list[str]:
        """The kernel each call runs, in call order."""
        return list(self._executor().call_names)

    def run_individual(
        self,
        number: int,
        repeat: int = 1,
        min_repeat_ms: float = 0,
        limit_zero_time_iterations: int = 100,
        cooldown_interval_ms: float = 0,
        repeats_to_cooldown: int = 1,
    ) -> list[list[float]]:
        """Seconds of each kernel call (in call order) in each of `repeat` measurements, a
        measurement the mean of `number` runs of the graph (more where `min_repeat_ms` asks
        for longer ones), after one warm-up run; a pause of `cooldown_interval_ms` follows
        every `repeats_to_cooldown` measurements. Wall clock, as TVM's."""
        if number < 1 or repeat < 1:
            raise ValueError(f"run_individual needs number and repeat >= 1, got {number}, {repeat}")
        executor = self._executor()
        executor.run()  # warm-up; refuses inputs without a value
        results: list[list[float]] = [[] for _ in executor.calls]
        for measurement in range(repeat):
            runs, totals, elapsed = 0, [0.0] * len(executor.calls), 0.0
            while runs < number or (
                elapsed * 1e3 < min_repeat_ms and runs < number * limit_zero_time_iterations
            ):
                times = time_calls(executor, time.perf_counter)
                totals = [t + s for t, s in zip(totals, times, strict=True)]
                elapsed += sum(times)
                runs += 1
            for call, total in zip(results, totals, strict=True):
                call.append(total / runs)
            if cooldown_interval_ms > 0 and (measurement + 1) % max(1, repeats_to_cooldown) == 0:
                time.sleep(cooldown_interval_ms / 1e3)
        return results

    def kernel_seconds(self, runs: int = 10, clock: Clock = time.thread_time) -> list[float]:
        """The median seconds of each kernel call (in call order) over `runs` runs, by the
        thread's CPU clock by default (at one thread: what other processes leave alone)."""
        return kernel_seconds(self._executor(), runs, clock)


__all__ = ["GraphModuleDebug", "create"]
