"""TVM's `tvm.contrib.graph_executor`: the Python face of the graph executor.

lib = relay.build(mod, target="llvm", params=params)
m = graph_executor.GraphModule(lib["default"](tvm.cpu()))
m.set_input("x", x); m.run(); y = m.get_output(0).numpy()
"""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Any

from xtvm.runtime.container import Map, ShapeTuple, String
from xtvm.runtime.graph_executor import GraphExecutor
from xtvm.runtime.module import Module
from xtvm.runtime.ndarray import Device, NDArray, converted

if TYPE_CHECKING:
    from xtvm.rpc.client import RemoteGraphExecutor


def create(graph_json_str: str, libmod: Module, device: Device | None = None) -> GraphModule:
    """A graph module from graph JSON and the kernel library (`relay.build`'s first two)."""
    if device is not None and device.device_type == "cuda":
        from xtvm.runtime.cuda import CUDAGraphExecutor, CUDAModule

        if not isinstance(libmod, CUDAModule):
            raise ValueError(f"a graph on {device} needs the library of a cuda relay.build")
        return GraphModule(CUDAGraphExecutor(graph_json_str, libmod, device))  # type: ignore[arg-type]
    return GraphModule(GraphExecutor(graph_json_str, libmod, device))


class GraphModule:
    """Wraps a `GraphExecutor` (what `factory["default"](dev)` returns) with TVM's methods.

    Threads may share one GraphModule: each thread other than the one that created it gets
    its own executor (its own input, intermediate and output buffers), made on its first call
    from copies of the inputs the creating thread has set by then (the params included). So
    `set_input`, `run`, `get_output` in one thread see only that thread's values, and an
    output stays valid until the same thread runs again. TVM's executor is not thread-safe and
    its users keep one per thread; this is that, done for them. The creating thread uses
    `module` itself, at the cost of one thread-id comparison per call.
    """

    def __init__(self, module: GraphExecutor | RemoteGraphExecutor) -> None:
        self.module = module
        self._owner = threading.get_ident()
        self._local = threading.local()
        self._lock = threading.Lock()  # the creating thread's inputs, while a thread copies them

    def _executor(self) -> GraphExecutor:
        """The executor of the calling thread (a remote one serves every thread in turn)."""
        if threading.get_ident() == self._owner or not isinstance(self.module, GraphExecutor):
            return self.module
        executor = getattr(self._local, "executor", None)
        if executor is None:
            base = self.module
            executor = type(base)(json.dumps(base.graph), base.lib, base.device)  # type: ignore[arg-type]
            with self._lock:
                for name in base.input_order:
                    executor.set_input(name, base.get_input(name))
            self._local.executor = executor
        return executor

    def set_input(self, key: str | int | None = None, value: Any = None, **params: Any) -> None:
        """Copy `value` into input `key` (a name or an index), keywords into theirs: arrays of
        another dtype are converted as TVM's `NDArray.copyfrom` converts them (the runtime's
        own executor takes its input dtypes only)."""
        if key is not None:
            value = self._converted(key, value)
        params = {k: self._converted(k, v) for k, v in params.items()}
        executor = self._executor()
        if executor is not self.module:
            executor.set_input(key, value, **params)
            return
        with self._lock:
            executor.set_input(key, value, **params)

    def _converted(self, key: str | int, value: Any) -> Any:
        """`value` in the dtype of input `key`; as it is where the graph has no such input
        (the executor names the error) or the executor is remote (its server converts)."""
        module = self.module
        if not hasattr(module, "entries") or value is None:  # a remote executor
            return value
        order = module.input_order
        name = order[key] if isinstance(key, int) and 0 <= key < len(order) else key
        if name not in module.inputs:
            return value
        entry = module.entries[module.inputs[name]]
        return converted(value, entry.dtype, f"input '{name}'")

    def run(self, **input_dict: Any) -> None:
        if input_dict:
            self.set_input(**input_dict)
        self._executor().run()

    def get_num_outputs(self) -> int:
        return self.module.get_num_outputs()

    def get_num_inputs(self) -> int:
        return self.module.get_num_inputs()

    def get_input_index(self, name: str) -> int:
        """The position of input `name`, -1 if the graph has none of that name."""
        order = self.module.input_order
        return order.index(name) if name in order else -1

    def get_input_info(self) -> tuple[Map, Map]:
        """The shape (`ShapeTuple`) and the dtype (`String`) of every input, weights
        included, by name: TVM's two `Map`s."""
        if not isinstance(self.module, GraphExecutor):
            return self.module.get_input_info()  # a remote executor (rpc)
        shapes, dtypes = Map(), Map()
        for name in self.module.input_order:
            entry = self.module.entries[self.module.inputs[name]]
            shapes[name], dtypes[name] = ShapeTuple(entry.shape), String(entry.dtype)
        return shapes, dtypes

    def get_input(self, key: str | int) -> NDArray:
        return self._executor().get_input(key)

    def get_output(self, index: int, out: NDArray | None = None) -> NDArray:
        return self._executor().get_output(index, out)

    def profile(self, runs: int = 10, fastest: bool = False) -> Any:
        """Seconds per run of each kernel call, the mean or with `fastest` the minimum of
        `runs` runs (`print(m.profile())` for a table)."""
        return self._executor().profile(runs, fastest)

    def benchmark(
        self,
        device: Device | None = None,
        func_name: str = "run",
        repeat: int = 5,
        number: int = 5,
        min_repeat_ms: float | None = None,
        limit_zero_time_iterations: int = 100,
        end_to_end: bool = False,
        cooldown_interval_ms: int = 0,
        repeats_to_cooldown: int = 1,
        **kwargs: Any,
    ) -> Any:
        """Seconds per `run()` (TVM's BenchmarkResult: mean, median, min, max, std), timed by
        the executor's `time_evaluator` as in TVM; keyword arguments are inputs, set once
        before timing (with `end_to_end`, set on every run)."""
        if func_name != "run":
            raise ValueError(f"benchmark: a graph module times 'run', not '{func_name}'")
        if end_to_end and kwargs:
            from xtvm.runtime.module import time_function

            return time_function(lambda: self.run(**kwargs), number, repeat, min_repeat_ms or 0)
        if kwargs:
            self.set_input(**kwargs)
        executor = self._executor()
        if not hasattr(executor, "time_evaluator"):  # a cuda graph's executor
            return executor.benchmark(number=number, repeat=repeat)
        evaluator = executor.time_evaluator(
            func_name, device, number=number, repeat=repeat, min_repeat_ms=min_repeat_ms or 0
        )
        return evaluator()

    def __getitem__(self, name: str) -> Any:
        return getattr(self, name)
