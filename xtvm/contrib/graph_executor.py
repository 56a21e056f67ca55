"""TVM's `tvm.contrib.graph_executor`: the Python face of the graph executor.

lib = relay.build(mod, target="llvm", params=params)
m = graph_executor.GraphModule(lib["default"](tvm.cpu()))
m.set_input("x", x); m.run(); y = m.get_output(0).numpy()
"""

from __future__ import annotations

from typing import Any

from xtvm.api.nd import Device, NDArray
from xtvm.runtime.graph_executor import GraphExecutor
from xtvm.runtime.module import Module


def create(graph_json_str: str, libmod: Module, device: Device | None = None) -> GraphModule:
    """A graph module from graph JSON and the kernel library (`relay.build`'s first two)."""
    if device is not None and device.device_type == "cuda":
        from xtvm.runtime.cuda import CUDAGraphExecutor, CUDAModule

        if not isinstance(libmod, CUDAModule):
            raise ValueError(f"a graph on {device} needs the library of a cuda relay.build")
        return GraphModule(CUDAGraphExecutor(graph_json_str, libmod, device))  # type: ignore[arg-type]
    return GraphModule(GraphExecutor(graph_json_str, libmod, device))


class GraphModule:
    """Wraps a `GraphExecutor` (what `factory["default"](dev)` returns) with TVM's methods."""

    def __init__(self, module: GraphExecutor) -> None:
        self.module = module

    def set_input(self, key: str | int | None = None, value: Any = None, **params: Any) -> None:
        self.module.set_input(key, value, **params)

    def run(self, **input_dict: Any) -> None:
        self.module.run(**input_dict)

    def get_num_outputs(self) -> int:
        return self.module.get_num_outputs()

    def get_num_inputs(self) -> int:
        return self.module.get_num_inputs()

    def get_input(self, key: str | int) -> NDArray:
        return self.module.get_input(key)

    def get_output(self, index: int, out: NDArray | None = None) -> NDArray:
        return self.module.get_output(index, out)

    def profile(self, runs: int = 10) -> Any:
        """Seconds per run of each kernel call (`print(m.profile())` for a table)."""
        return self.module.profile(runs)

    def benchmark(self, device: Device | None = None, number: int = 10, repeat: int = 3) -> Any:
        return self.module.benchmark(number=number, repeat=repeat)

    def __getitem__(self, name: str) -> Any:
        return getattr(self, name)
