"""The graph executor: runs TVM graph JSON by calling compiled kernels on planned buffers.

The graph (`relay.build`'s, TVM's format) lists `null` nodes (inputs, weights) and `tvm_op`
nodes (a kernel call: inputs, then one output buffer per result, written in place). At
creation every buffer is allocated once: inputs and weights each get their own, intermediates
share a pool planned by liveness (a buffer is free again after the last node reading it, and
taken by the next tensor of a fitting size), and each kernel's C argument list is converted
once, so `run()` is one native call walking a table of kernel calls (`call_list`; a loop of
ctypes calls without a C compiler).

A library written by `GraphExecutorFactory.export_library` embeds the graph JSON and the
params (`xtvm_graph_json`, `xtvm_graph_params`, see `xtvm.runtime.params`): `load_factory(path)`
reads them back, the params as views of the loaded library (copied once, into the executor).
"""

from __future__ import annotations

import bisect
import ctypes
import json
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from xtvm.runtime.call_list import CallList
from xtvm.runtime.module import (
    GRAPH_SYMBOL,
    PARAMS_SIZE_SYMBOL,
    PARAMS_SYMBOL,
    Module,
    PackedFunc,
    export_linker,
    load_library,
)
from xtvm.runtime.ndarray import Device, NDArray, cpu, entry_bytes, storage_arena
from xtvm.runtime.params import ParamsFormatError, read_params
from xtvm.runtime.profiling import time_calls


class GraphInputError(ValueError):
    """An input given to the graph executor does not exist or does not fit."""


# ---------------------------------------------------------------------------------------------
# Memory planning


@dataclass
class MemoryPlan:
    """A storage id per graph entry and the byte size of each storage."""

    storage_ids: list[int]
    storage_bytes: list[int]
    naive_bytes: int  # one buffer per entry

    @property
    def planned_bytes(self) -> int:
        return sum(self.storage_bytes)

    @property
    def saved_bytes(self) -> int:
        return self.naive_bytes - self.planned_bytes


NOP = "__nop"
"""The `func_name` of a node that runs nothing: its output is its input's buffer, reshaped
(TVM's graph executor does the same for a function of reshapes only)."""


def alias_roots(graph: Mapping[str, Any], sizes: Sequence[int]) -> list[int]:
    """For every entry, the entry whose buffer it is: itself, or for the output of a `__nop`
    node, the root of that node's input. ValueError for a `__nop` that is not one input and
    one output of the same byte size."""
    row_ptr = graph["node_row_ptr"]
    roots = list(range(len(sizes)))
    for nid, node in enumerate(graph["nodes"]):
        if node["op"] != "tvm_op" or node["attrs"]["func_name"] != NOP:
            continue
        inputs = node["inputs"]
        out = row_ptr[nid]
        if len(inputs) != 1 or row_ptr[nid + 1] - out != 1:
            raise ValueError(f"graph node {nid} ({NOP}) must have one input and one output")
        source = row_ptr[inputs[0][0]] + inputs[0][1]
        if sizes[source] != sizes[out]:
            raise ValueError(
                f"graph node {nid} ({NOP}) changes the size of its input: "
                f"{sizes[source]} -> {sizes[out]} bytes"
            )
        roots[out] = roots[source]
    return roots


def plan_memory(graph: Mapping[str, Any]) -> MemoryPlan:
    """Storage for every entry: inputs and outputs alone, intermediates pooled by liveness.

    Nodes run in order; after node k allocates its outputs, the entries it read for the last
    time are released. A request takes the smallest free storage that holds it, else grows
    the largest free one, else opens a new storage (TVM's GraphPlanMemory, without the size
    ratio cap). The output of a `__nop` node shares its input's storage, which then lives
    until the last use of either (and is an output's if either is one).
    """
    nodes = graph["nodes"]
    row_ptr = graph["node_row_ptr"]
    shapes = graph["attrs"]["shape"][1]
    dtypes = graph["attrs"]["dltype"][1]
    sizes = [entry_bytes(s, d) for s, d in zip(shapes, dtypes, strict=True)]
    roots = alias_roots(graph, sizes)
    heads = {roots[row_ptr[n] + i] for n, i, _ in graph["heads"]}
    last_use: dict[int, int] = {}  # by root
    for nid, node in enumerate(nodes):
        for n, i, _ in node["inputs"]:
            last_use[roots[row_ptr[n] + i]] = nid
    storage_ids = [-1] * len(sizes)
    storage_bytes: list[int] = []
    free: list[int] = []

    def new_storage(size: int) -> int:
        storage_bytes.append(size)
        return len(storage_bytes) - 1

    for nid, node in enumerate(nodes):
        outputs = range(row_ptr[nid], row_ptr[nid + 1])
        if node["op"] == "null":
            for eid in outputs:
                storage_ids[eid] = new_storage(sizes[eid])
            continue
        for eid in outputs:
            if roots[eid] != eid:  # a __nop's output: its input's storage
                storage_ids[eid] = storage_ids[roots[eid]]
                continue
            if eid in heads:
                storage_ids[eid] = new_storage(sizes[eid])
                continue
            fits = [s for s in free if storage_bytes[s] >= sizes[eid]]
            if fits:
                sid = min(fits, key=lambda s: storage_bytes[s])
            elif free:
                sid = max(free, key=lambda s: storage_bytes[s])
                storage_bytes[sid] = sizes[eid]
            else:
                sid = new_storage(sizes[eid])
            if sid in free:
                free.remove(sid)
            storage_ids[eid] = sid
        released = {
            roots[row_ptr[n] + i]
            for n, i, _ in node["inputs"]
            if last_use.get(roots[row_ptr[n] + i]) == nid
        }
        released |= {roots[eid] for eid in outputs if roots[eid] not in last_use}
        for root in sorted(released):
            if nodes[node_of(row_ptr, root)]["op"] == "null" or root in heads:
                continue
            if storage_ids[root] not in free:
                free.append(storage_ids[root])
    naive = sum(size for eid, size in enumerate(sizes) if roots[eid] == eid)
    return MemoryPlan(storage_ids, storage_bytes, naive)


def node_of(row_ptr: Sequence[int], eid: int) -> int:
    """The node whose output entry `eid` is."""
    return bisect.bisect_right(row_ptr, eid) - 1


# ---------------------------------------------------------------------------------------------
# The executor


def input_name(key: str, inputs: Mapping[str, int], order: Sequence[str]) -> str:
    """`key` if the graph has an input of exactly that name (an ONNX model's inputs keep their
    ONNX names), else GraphInputError listing the inputs: a name is never guessed."""
    if key not in inputs:
        raise GraphInputError(
            f"graph has no input '{key}' (inputs: {', '.join(repr(n) for n in order)})"
        )
    return key


def input_array(
    key: str, value: Any, shape: tuple[int, ...], dtype: np.dtype | str | None = None
) -> np.ndarray:
    """`value` for input `key`, which must have `shape` and, for arrays, exactly `dtype`.

    Arrays (numpy or NDArray) of another element type are refused, as onnxruntime refuses
    them, rather than cast; Python scalars and lists are converted when the kind fits
    (a float list into float32, not into int32).
    """
    if isinstance(value, NDArray):
        value = value.numpy()
    array = np.asarray(value)
    if dtype is not None and array.dtype != np.dtype(dtype):
        converts = not isinstance(value, np.ndarray | np.generic)
        if not (converts and np.can_cast(array.dtype, dtype, "same_kind")):
            raise GraphInputError(
                f"input '{key}': expected element type {np.dtype(dtype)}, got {array.dtype}"
            )
        array = array.astype(dtype)
    if array.shape != shape:
        raise GraphInputError(
            f"input '{key}': expected shape {list(shape)}, got {list(array.shape)}"
        )
    return array


def read_inputs(graph: Mapping[str, Any]) -> set[str]:
    """The names of the inputs that a node reads or that are outputs: a run needs a value
    for these (an input nothing reads may stay unset)."""
    nodes = graph["nodes"]
    read = {n for node in nodes for n, _, _ in node["inputs"]}
    read |= {n for n, _, _ in graph["heads"]}
    return {nodes[n]["name"] for n in graph["arg_nodes"] if n in read}


def check_all_set(unset: set[str], order: Sequence[str]) -> None:
    """Refuse to run while inputs (or weights) have never been given a value."""
    if unset:
        missing = ", ".join(repr(n) for n in order if n in unset)
        raise GraphInputError(
            f"graph input{'s' if len(unset) > 1 else ''} without a value: {missing} (call "
            "set_input before run(); weights come from the params given to relay.build)"
        )


@dataclass
class Profile:
    """Seconds per run spent in each kernel call of a graph, in call order.

    `str(profile)` is a table by kernel, slowest first: calls per run, total milliseconds per
    run and share of the graph's kernel time (identical functions share one kernel, so a
    kernel may be called several times).
    """

    names: list[str]
    seconds: list[float]

    def by_kernel(self) -> list[tuple[str, int, float]]:
        """(kernel, calls per run, seconds per run), slowest first."""
        totals: dict[str, list[float]] = {}
        for name, seconds in zip(self.names, self.seconds, strict=True):
            totals.setdefault(name, []).append(seconds)
        rows = [(name, len(times), sum(times)) for name, times in totals.items()]
        return sorted(rows, key=lambda row: -row[2])

    @property
    def total(self) -> float:
        return sum(self.seconds)

    def __str__(self) -> str:
        rows = self.by_kernel()
        width = max([len("kernel"), *(len(name) for name, _, _ in rows)])
        lines = [f"{'kernel':<{width}}  calls        ms       %"]
        for name, calls, seconds in rows:
            share = 100 * seconds / self.total if self.total else 0.0
            lines.append(f"{name:<{width}}  {calls:5d}  {seconds * 1e3:8.3f}  {share:6.1f}")
        lines.append(f"{'total':<{width}}  {len(self.names):5d}  {self.total * 1e3:8.3f}  100.0")
        return "\n".join(lines)


class ExecutorBase(Module):
    """TVM's graph executor interface over buffers by entry: `set_input`, `run`, `get_output`,
    `get_input` (views of the buffers, as TVM's). A subclass fills `entries` (one array per
    entry), `inputs` (input name -> entry), `input_order`, `outputs` (entries) and defines
    `execute` (one run on the buffers).

    It is a runtime `Module` as TVM's executor is: `m.module["run"]` is its function, and
    `m.module.time_evaluator("run", dev)` times it through `Module.time_evaluator`."""

    entries: list[np.ndarray]
    inputs: dict[str, int]
    input_order: list[str]
    outputs: list[int]
    device: Device
    FUNCTIONS = ("run", "set_input", "get_output", "get_input", "get_num_inputs")
    FUNCTIONS += ("get_num_outputs",)

    def __init__(self, needed: set[str] | None = None) -> None:
        """`needed`: the inputs a run reads (all if None); only those must be set."""
        super().__init__({}, self._no_address, type_key="GraphExecutor")
        self.unset = set(self.input_order) if needed is None else needed & set(self.input_order)

    @staticmethod
    def _no_address(name: str) -> int:
        raise AttributeError(f"a graph executor has no compiled function '{name}'")

    def get_function(self, name: str) -> Any:  # type: ignore[override]
        """The executor's functions by TVM's names (`run`, `set_input`, `get_output`, ...)."""
        if name not in self.FUNCTIONS:
            known = ", ".join(self.FUNCTIONS)
            raise AttributeError(f"a graph executor has no function '{name}' (functions: {known})")
        return getattr(self, name)

    def __contains__(self, name: str) -> bool:
        return name in self.FUNCTIONS

    def set_input(self, key: str | int | None = None, value: Any = None, **params: Any) -> None:
        """Copy `value` into input `key` (a name or an index); keywords set several."""
        if key is not None:
            self._set(key, value)
        for name, array in params.items():
            self._set(name, array)

    def _set(self, key: str | int, value: Any) -> None:
        if isinstance(key, int):
            if not 0 <= key < len(self.input_order):
                raise GraphInputError(f"input index {key} out of range ({len(self.input_order)})")
            key = self.input_order[key]
        key = input_name(key, self.inputs, self.input_order)
        target = self.entries[self.inputs[key]]
        np.copyto(target, input_array(key, value, target.shape, target.dtype))
        self.unset.discard(key)

    def run(self, **inputs: Any) -> None:
        if inputs:
            self.set_input(**inputs)
        check_all_set(self.unset, self.input_order)
        self.execute()

    def execute(self) -> None:
        raise NotImplementedError

    def get_input(self, key: str | int) -> NDArray:
        name = self.input_order[key] if isinstance(key, int) else key
        if name not in self.inputs:
            raise GraphInputError(f"graph has no input '{name}'")
        return NDArray(self.entries[self.inputs[name]], self.device)

    def get_num_inputs(self) -> int:
        return len(self.input_order)

    def get_num_outputs(self) -> int:
        return len(self.outputs)

    def get_output(self, index: int, out: NDArray | None = None) -> NDArray:
        if not 0 <= index < len(self.outputs):
            raise IndexError(f"output index {index} out of range ({len(self.outputs)} outputs)")
        value = self.entries[self.outputs[index]]
        if out is not None:
            return out.copyfrom(value)
        return NDArray(value, self.device)

    def __repr__(self) -> str:
        return f"GraphExecutor({len(self.input_order)} inputs, {len(self.outputs)} outputs)"


class GraphExecutor(ExecutorBase):
    """Runs a graph: `set_input`, `run`, `get_output` (TVM's GraphExecutor module)."""

    def __init__(self, graph_json: str, lib: Module, dev: Device | None = None) -> None:
        self.graph = json.loads(graph_json)
        self.lib = lib
        self.device = dev or cpu()
        graph = self.graph
        nodes = graph["nodes"]
        row_ptr = graph["node_row_ptr"]
        shapes = graph["attrs"]["shape"][1]
        dtypes = graph["attrs"]["dltype"][1]
        self.plan = plan_memory(graph)
        storages = storage_arena(self.plan.storage_bytes)
        self.entries = [
            storages[sid][: entry_bytes(shape, dtype)].view(dtype).reshape(shape)
            for sid, shape, dtype in zip(self.plan.storage_ids, shapes, dtypes, strict=True)
        ]
        self.inputs = {nodes[n]["name"]: row_ptr[n] for n in graph["arg_nodes"]}
        self.input_order = [nodes[n]["name"] for n in graph["arg_nodes"]]
        self.outputs = [row_ptr[n] + i for n, i, _ in graph["heads"]]
        # (raw C function, its converted arguments, the kernel that checks its status)
        self.calls: list[tuple[Callable[..., int | None], list[Any], PackedFunc]] = []
        self.call_names: list[str] = []  # the kernel each call runs
        for nid, node in enumerate(nodes):
            if node["op"] != "tvm_op" or node["attrs"]["func_name"] == NOP:
                continue
            self.call_names.append(node["attrs"]["func_name"])
            kernel = lib.get_function(node["attrs"]["func_name"])
            args = [self.entries[row_ptr[n] + i] for n, i, _ in node["inputs"]]
            args += self.entries[row_ptr[nid] : row_ptr[nid + 1]]
            self.calls.append((kernel._raw, kernel.convert(args), kernel))
        # The buffers never move (set_input copies into them): the calls run from one table.
        self.call_list = CallList(self.calls)
        super().__init__(read_inputs(graph))
        linked = lib.linked_params or {}
        self.set_input(**{name: linked[name] for name in self.input_order if name in linked})

    def execute(self) -> None:
        self.call_list.run()

    def profile(self, runs: int = 10, fastest: bool = False) -> Profile:
        """Time every kernel call over `runs` runs of the graph (after one warm-up run): its
        mean, or with `fastest` its minimum (on a machine other processes share, the time
        of the runs none of them interrupted)."""
        self.run()  # also refuses inputs without a value
        if runs < 1:
            raise ValueError(f"profile needs at least one run, got {runs}")
        runs_times = [time_calls(self, time.perf_counter) for _ in range(runs)]
        samples = list(zip(*runs_times, strict=True))
        return Profile(self.call_names, [min(s) if fastest else sum(s) / runs for s in samples])


# ---------------------------------------------------------------------------------------------
# Graph and params inside a shared library


def load_factory(path: str | Path) -> Any:
    """The `GraphExecutorFactory` of a library written by its `export_library`."""
    return factory_of(load_library(path), path)


def factory_of(lib: Module, path: str | Path = "the library") -> Any:
    """The `GraphExecutorFactory` of `lib`, a library `export_library` wrote and
    `load_library` loaded (the graph and params it embeds)."""
    library = lib._keepalive
    assert isinstance(library, ctypes.CDLL)
    try:
        graph_json = ctypes.c_char_p(ctypes.addressof(ctypes.c_char.in_dll(library, GRAPH_SYMBOL)))
        size = ctypes.c_int64.in_dll(library, PARAMS_SIZE_SYMBOL).value
        ctypes.c_uint8.in_dll(library, PARAMS_SYMBOL)
    except ValueError:
        raise ValueError(f"{path} holds no graph (not written by relay.build)") from None
    if not 0 <= size < 1 << 48:
        raise ParamsFormatError(f"{path}: the embedded params claim {size} bytes")
    blob = (ctypes.c_uint8 * size).in_dll(library, PARAMS_SYMBOL)
    try:
        params = read_params(np.frombuffer(blob, np.uint8)) if size else {}
    except ParamsFormatError as exc:
        raise ParamsFormatError(f"{path}: {exc}") from None
    return GraphExecutorFactory((graph_json.value or b"").decode(), lib, params)


class GraphExecutorFactory:
    """What `relay.build` returns: graph JSON, the kernel library and the params.

    Unpacks as `graph_json, lib, params`; `factory["default"](dev)` creates a graph executor;
    `export_library(path)` writes one shared library holding kernels, graph and params.
    """

    def __init__(
        self,
        graph_json: str,
        lib: Module,
        params: dict[str, np.ndarray],
        exporter: Any = None,
        kernels: ModuleOp | None = None,
    ) -> None:
        self.graph_json = graph_json
        self.lib = lib
        self.params = params
        lib.linked_params = params  # an executor made from `lib` alone has them too
        self.kernels = kernels  # the tir module compiled into `lib` (None once loaded)
        self.external: Any = None  # the compiled external functions (BYOC), linked on export
        self._exporter = exporter

    def __iter__(self) -> Iterator[Any]:
        return iter((self.graph_json, self.lib, self.params))

    def __getitem__(self, name: str) -> Any:
        if name != "default":
            raise KeyError(f"graph executor factory has only 'default', not '{name}'")
        return self.create

    def create(self, dev: Device | None = None) -> GraphExecutor:
        executor = GraphExecutor(self.graph_json, self.lib, dev)
        if self.lib.linked_params is not self.params:  # else set on creation
            executor.set_input(**self.params)
        return executor

    def get_graph_json(self) -> str:
        return self.graph_json

    def get_lib(self) -> Module:
        return self.lib

    def get_params(self) -> dict[str, NDArray]:
        return {k: NDArray(v) for k, v in self.params.items()}

    def export_library(
        self, path: str | Path, fcompile: Callable[..., object] | None = None, **_: object
    ) -> None:
        """A shared library with the kernels, the graph JSON and the params embedded, linked
        by `fcompile` if given (`contrib.cc.cross_compiler(...)`)."""
        if self._exporter is None:
            raise ValueError("this factory was loaded from a library and cannot be exported")
        with export_linker(fcompile):
            self._exporter(Path(path), self.graph_json, self.params)
