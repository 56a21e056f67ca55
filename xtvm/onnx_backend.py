"""xtvm as an ONNX backend (`onnx.backend.base.Backend`): import to relay, compile, run.

This is what `onnx.backend.test.BackendTest` drives:

    rep = XtvmBackend.prepare(model)
    outputs = rep.run([x])

As onnxruntime's backend does, `prepare` compiles: `relay.build` for LLVM (once per set of input
shapes) and the graph executor. `prepare(model, compiled=False)`, or the environment variable
`XTVM_ONNX_BACKEND=interpreter`, runs the relay reference interpreter instead (no compilation,
and much slower runs: a golden model for checking the compiler).

Models with dynamic input shapes are imported again for each new set of input shapes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import onnx
from onnx.backend.base import Backend, BackendRep, Device, DeviceType
from xdsl.dialects.builtin import ModuleOp

from xtvm.frontends.onnx import OnnxImportError, import_onnx
from xtvm.runtime.relay_interpreter import evaluate

Imported = tuple[ModuleOp, dict[str, np.ndarray]]

ENV_MODE = "XTVM_ONNX_BACKEND"


MODES = ("compiled", "interpreter")


def compiled_by_default() -> bool:
    """Whether `prepare` compiles when not told: yes, unless `XTVM_ONNX_BACKEND=interpreter`."""
    mode = os.environ.get(ENV_MODE, "compiled").strip().lower() or "compiled"
    if mode not in MODES:
        raise ValueError(f"{ENV_MODE}={mode!r}: expected one of {', '.join(MODES)}")
    return mode == "compiled"


class BackendInputError(ValueError):
    """Inputs given to a prepared model do not match its graph inputs."""


class XtvmBackendRep(BackendRep):
    """A prepared model: the imported module per input shapes, built by `relay.build` and run
    by the graph executor (or, not `compiled`, run by the relay interpreter)."""

    def __init__(
        self, model: onnx.ModelProto, compiled: bool = True, base_dir: str | None = None
    ) -> None:
        self.model = model
        self.compiled = compiled
        self.base_dir = base_dir  # where the model's external data is
        self.executors: dict[int, Any] = {}  # id of an import → its graph executor
        initializers = {t.name for t in model.graph.initializer}
        self.input_names = [i.name for i in model.graph.input if i.name not in initializers]
        self.output_names = [o.name for o in model.graph.output]
        self.imported: dict[bytes, Imported] = {}
        # Graph inputs that must be bound to their values (shapes, axes, pads fed as inputs).
        self.frozen: set[str] = set()

    def module_for(self, arrays: Sequence[np.ndarray]) -> Imported:
        """The import for these inputs' shapes, with inputs that must be static bound."""
        by_name = dict(zip(self.input_names, arrays, strict=True))
        while True:
            key = repr([(a.shape, a.dtype.str) for a in arrays]).encode() + b"".join(
                by_name[n].tobytes() for n in sorted(self.frozen)
            )
            if key in self.imported:
                return self.imported[key]
            model = self.model
            if self.frozen:
                model = onnx.ModelProto()
                model.CopyFrom(self.model)
                for name in sorted(self.frozen):
                    model.graph.initializer.append(
                        onnx.numpy_helper.from_array(by_name[name], name)
                    )
            shapes = {n: a.shape for n, a in by_name.items() if n not in self.frozen}
            try:
                self.imported[key] = import_onnx(model, shape=shapes, base_dir=self.base_dir)
            except OnnxImportError as exc:
                name = exc.needs_static
                if name is None:
                    raise
                # A static value computed from inputs: bind the integer inputs it may come from.
                names = (
                    {name}
                    if name in by_name
                    else {n for n, a in by_name.items() if a.dtype.kind in "iu"}
                )
                if names <= self.frozen:
                    raise
                self.frozen |= names
                continue
            return self.imported[key]

    def by_name(self, inputs: Mapping[str, Any]) -> list[Any]:
        """The inputs keyed by ONNX name, in graph order: each exactly once, no other name."""
        listed = ", ".join(repr(n) for n in self.input_names)
        unknown = [n for n in inputs if n not in self.input_names]
        if unknown:
            raise BackendInputError(f"the model has no input {unknown[0]!r} (inputs: {listed})")
        missing = [n for n in self.input_names if n not in inputs]
        if missing:
            raise BackendInputError(f"no value for input {missing[0]!r} (inputs: {listed})")
        return [inputs[n] for n in self.input_names]

    def run(self, inputs: Any, **kwargs: Any) -> tuple[Any, ...]:
        if isinstance(inputs, np.ndarray):
            inputs = [inputs]
        if isinstance(inputs, Mapping):
            inputs = self.by_name(inputs)
        arrays = [np.asarray(x) for x in inputs]
        if len(arrays) != len(self.input_names):
            raise BackendInputError(
                f"the model takes {len(self.input_names)} inputs, got {len(arrays)}"
            )
        module, params = self.module_for(arrays)
        free = [a for n, a in zip(self.input_names, arrays, strict=True) if n not in self.frozen]
        if self.compiled:
            return self.run_compiled(module, params, free)
        return tuple(evaluate(module, free, params=params))

    def run_compiled(
        self, module: ModuleOp, params: dict[str, np.ndarray], free: list[np.ndarray]
    ) -> tuple[np.ndarray, ...]:
        """Build `module` once (params folded in), then run it on the free inputs in order."""
        from xtvm.contrib.graph_executor import GraphModule
        from xtvm.driver.relay_build import build
        from xtvm.runtime.ndarray import cpu

        executor = self.executors.get(id(module))
        if executor is None:
            executor = GraphModule(build(module, target="llvm", params=params)["default"](cpu()))
            self.executors[id(module)] = executor
        for i, array in enumerate(free):
            executor.set_input(i, array)
        executor.run()
        return tuple(
            np.array(executor.get_output(i).numpy()) for i in range(executor.get_num_outputs())
        )


class XtvmBackend(Backend):
    """The ONNX backend API over xtvm's importer, relay.build and graph executor (CPU only).

    `prepare(..., compiled=False)` or `XTVM_ONNX_BACKEND=interpreter` runs the relay
    interpreter instead.
    """

    @classmethod
    def is_compatible(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> bool:
        return cls.supports_device(device)

    @classmethod
    def prepare(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> XtvmBackendRep:
        """Prepare `model` to run compiled by relay.build; `compiled=False` runs the relay
        interpreter instead (the default follows `XTVM_ONNX_BACKEND`: `compiled` unless it says
        `interpreter`); `base_dir` is the directory of the model's external data, if any."""
        compiled = kwargs.get("compiled")
        return XtvmBackendRep(
            model,
            compiled_by_default() if compiled is None else bool(compiled),
            kwargs.get("base_dir"),
        )

    @classmethod
    def run_model(
        cls, model: onnx.ModelProto, inputs: Any, device: str = "CPU", **kwargs: Any
    ) -> tuple[Any, ...]:
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(
        cls,
        node: onnx.NodeProto,
        inputs: Any,
        device: str = "CPU",
        outputs_info: Sequence[tuple[np.dtype, tuple[int, ...]]] | None = None,
        **kwargs: Any,
    ) -> tuple[Any, ...]:
        """Run one node on `inputs` (numpy arrays, in the node's input order)."""
        arrays = [np.asarray(x) for x in inputs]
        names = [n for n in node.input if n]
        graph_inputs = [
            onnx.helper.make_tensor_value_info(
                n, onnx.helper.np_dtype_to_tensor_dtype(a.dtype), a.shape
            )
            for n, a in zip(names, arrays, strict=True)
        ]
        outputs = [onnx.helper.make_empty_tensor_value_info(o) for o in node.output if o]
        graph = onnx.helper.make_graph([node], "run_node", graph_inputs, outputs)
        opset = kwargs.get("opset_version", onnx.defs.onnx_opset_version())
        model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", opset)])
        return cls.run_model(model, arrays, device, **kwargs)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return Device(device).type == DeviceType.CPU


prepare = XtvmBackend.prepare
run_model = XtvmBackend.run_model
run_node = XtvmBackend.run_node
supports_device = XtvmBackend.supports_device


def node_test_ops(model: onnx.ModelProto) -> set[str]:
    """The op types of a node test's graph (`test_<op>_*` cases hold one node, mostly)."""
    return {n.op_type for n in model.graph.node if n.domain in ("", "ai.onnx")} | {
        f"{n.domain}.{n.op_type}" for n in model.graph.node if n.domain not in ("", "ai.onnx")
    }


def supported_node_tests() -> dict[str, str]:
    """ONNX node tests using only supported op types: test name → the op type it tests.

    The op is the graph's single node, or for expanded (function body) tests the op named by
    the test; tests on element types relay lacks (strings, bfloat16, float8, int4) are left out.
    """
    from onnx.backend.test.loader import load_model_tests

    from xtvm.frontends.onnx import CONVERTERS

    by_snake = {snake(op): op for op in CONVERTERS}
    out: dict[str, str] = {}
    for case in load_model_tests(kind="node"):
        model = case.model
        if model is None:
            continue
        ops = node_test_ops(model)
        if not ops <= set(CONVERTERS) or not supported_types(model):
            continue
        if len(model.graph.node) == 1:
            out[case.name] = model.graph.node[0].op_type
            continue
        stem = case.name.removeprefix("test_")
        matches = [s for s in by_snake if stem.startswith((s, s.replace("_", "")))]
        out[case.name] = by_snake[max(matches, key=len)] if matches else "(composite)"
    return out


def snake(op: str) -> str:
    """`ReduceMean` → `reduce_mean`, `LRN` → `lrn`, `ConvTranspose` → `convtranspose`."""
    special = {"ConvTranspose": "convtranspose", "LRN": "lrn", "PRelu": "prelu"}
    if op in special:
        return special[op]
    out = ""
    for i, ch in enumerate(op):
        if ch.isupper() and i and not op[i - 1].isupper():
            out += "_"
        out += ch.lower()
    return out


SUPPORTED_ELEMENT_TYPES = frozenset(
    getattr(onnx.TensorProto, n)
    for n in (
        "FLOAT",
        "DOUBLE",
        "FLOAT16",
        "INT8",
        "INT16",
        "INT32",
        "INT64",
        "UINT8",
        "UINT16",
        "UINT32",
        "UINT64",
        "BOOL",
    )
)


def supported_types(model: onnx.ModelProto) -> bool:
    g = model.graph
    return all(
        v.type.tensor_type.elem_type in SUPPORTED_ELEMENT_TYPES for v in [*g.input, *g.output]
    )
