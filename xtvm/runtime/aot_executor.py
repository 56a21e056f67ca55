"""The executor of an AOT library (`xtvm.driver.aot.export_aot`), with the graph executor's
interface: `load_module("model.so")["default"](dev)` runs its `xtvm_model_run` entry point as
`set_input`, `run` and `get_output` run a graph, so tools written for graph executors (the
RPC server, `graph_executor.GraphModule`) drive AOT libraries unchanged.

The library describes its inputs and outputs in `xtvm_model_metadata` (JSON: `{"inputs":
[{"name", "dtype", "shape"}], "outputs": [...]}`); the executor keeps one aligned buffer for
each and passes them to the entry point. Intermediates live in the library's static arena, so
runs of one library are not concurrent (one at a time per process, as its header says).
"""

from __future__ import annotations

import ctypes
import json
from typing import Any

from xtvm.runtime.graph_executor import ExecutorBase
from xtvm.runtime.module import MODEL_RUN_SYMBOL, KernelError, Module, symbol_address
from xtvm.runtime.ndarray import Device, aligned_storage, cpu, entry_bytes

# The element types an AOT library's tensors may have (numpy's names).
DTYPES = frozenset(
    "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64".split()
)
MAX_TENSORS = 1 << 16  # inputs, or outputs, a model may declare
KEYS = ("name", "dtype", "shape")


def model_tensors(metadata: Any, kind: str) -> list[tuple[str, str, list[int]]]:
    """The (name, dtype, shape) of each of the model's `kind` ("inputs" or "outputs")."""
    tensors = metadata.get(kind) if isinstance(metadata, dict) else None
    if not isinstance(tensors, list) or len(tensors) > MAX_TENSORS:
        raise ValueError(f"the library's model metadata has no list of {kind}")
    found = []
    for t in tensors:
        name, dtype, shape = (t.get(k) if isinstance(t, dict) else None for k in KEYS)
        if not (
            isinstance(name, str)
            and dtype in DTYPES
            and isinstance(shape, list)
            and all(isinstance(d, int) and d >= 0 for d in shape)
        ):
            raise ValueError(f"the library's model metadata has a malformed {kind} entry")
        found.append((name, dtype, shape))
    return found


class AOTExecutor(ExecutorBase):
    """Runs an AOT library's entry point on buffers of its inputs and outputs."""

    def __init__(self, lib: Module, dev: Device | None = None) -> None:
        if lib.model_metadata is None:
            raise ValueError("the library has no AOT entry point (not written by export_aot)")
        library = lib._keepalive
        assert isinstance(library, ctypes.CDLL)
        metadata = json.loads(lib.model_metadata)
        inputs = model_tensors(metadata, "inputs")
        outputs = model_tensors(metadata, "outputs")
        self.lib = lib
        self.device = dev or cpu()
        self.entries = [
            aligned_storage(entry_bytes(shape, dtype)).view(dtype).reshape(shape)
            for _, dtype, shape in [*inputs, *outputs]
        ]
        self.input_order = [name for name, _, _ in inputs]
        self.inputs = {name: index for index, name in enumerate(self.input_order)}
        self.outputs = list(range(len(inputs), len(self.entries)))
        pointers = [e.ctypes.data for e in self.entries]
        self._inputs = (ctypes.c_void_p * (len(inputs) + 1))(*pointers[: len(inputs)])
        self._outputs = (ctypes.c_void_p * (len(outputs) + 1))(*pointers[len(inputs) :])
        entry = symbol_address(library, MODEL_RUN_SYMBOL)
        if not entry:
            raise ValueError(f"the library has no {MODEL_RUN_SYMBOL} (not written by export_aot)")
        self._run = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)(entry)
        super().__init__()

    def execute(self) -> None:
        status = self._run(self._inputs, self._outputs)
        if status != 0:
            detail = self.lib._last_error() if self.lib._last_error else ""
            raise KernelError(detail or f"the model's run failed with status {status}")


def aot_factory(lib: Module | None) -> Any:
    """What `lib["default"]` gives for an AOT library: a creator of executors (per device)."""
    assert lib is not None
    return lambda dev=None: AOTExecutor(lib, dev)
