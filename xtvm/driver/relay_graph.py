"""What the relay pipelines share: the module a build takes (`ModuleLike`), params bound as
constants, the pass runner, `@main` checked and split from its kernels, and `@main` as graph
JSON for the graph executor (xtvm/runtime/graph_executor.py)."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    FunctionType,
    ModuleOp,
    TensorType,
    TupleType,
    UnitAttr,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass

from xtvm.dialects import relay, te
from xtvm.dialects.registry import shared_context
from xtvm.ir.errors import TVMError
from xtvm.ir.numpy_types import numpy_dtype
from xtvm.ir.verify import located_error, refuse_multiple_blocks
from xtvm.passes.relay_inline import callees, inline_call, reaches
from xtvm.passes.tir_loop_partition import TirLoopPartitionPass
from xtvm.passes.tir_simplify import TirSimplifyPass
from xtvm.passes.tir_vector_accumulate import TirVectorAccumulatePass
from xtvm.passes.tir_vector_transpose import TirVectorTransposePass
from xtvm.passes.tir_vectorize import TirVectorizePass
from xtvm.runtime.graph_executor import NOP, GraphExecutorFactory, plan_memory
from xtvm.runtime.params import write_embedding

if TYPE_CHECKING:
    from xtvm.backends.external.library import ExternalLibrary
    from xtvm.runtime.module import Module

# Loops it cannot vectorize, tir-vectorize leaves scalar with a remark (silenced here).
TIR_PASSES: tuple[ModulePass, ...] = (
    TirSimplifyPass(),
    TirLoopPartitionPass(),
    TirSimplifyPass(),
    TirVectorizePass(),
    TirVectorTransposePass(),
    TirVectorAccumulatePass(),
)


class BuildError(ValueError):
    """`relay.build` was given something it cannot compile."""


class DynamicShapeError(BuildError, TVMError):
    """`relay.build` met a dynamic dimension (`relay.Any`, a `te.size_var`): the graph
    executor plans static storage (TVM's graph executor refuses them too)."""


class ControlFlowError(BuildError, TVMError):
    """`relay.build` met recursion: the graph executor runs a fixed graph of kernels, with no
    control flow (TVM's neither; TVM users run such programs on its VM)."""


class HasModule(Protocol):
    """A wrapper of a module, such as TVM's `IRModule` (`xtvm/api/ir_module.py`)."""

    @property
    def xdsl(self) -> ModuleOp: ...


ModuleLike = ModuleOp | HasModule


def module_of(mod: ModuleLike) -> ModuleOp:
    """The xDSL module of `mod`: itself, or the one a wrapper holds."""
    return mod if isinstance(mod, ModuleOp) else mod.xdsl


# ---------------------------------------------------------------------------------------------
# Passes


def constant_for(name: str, value: np.ndarray, typ: Attribute) -> relay.ConstOp:
    """A `relay.const` of the param `name`, checked against the type it replaces."""
    assert isinstance(typ, TensorType)
    expected = numpy_dtype(typ.get_element_type())
    if tuple(value.shape) != tuple(typ.get_shape()) or value.dtype != expected:
        raise BuildError(
            f"param '{name}': expected {expected}{list(typ.get_shape())}, "
            f"got {value.dtype}{list(value.shape)}"
        )
    return relay.ConstOp(value)


def bind_params(
    module: ModuleOp, params: Mapping[str, np.ndarray], *, consume: bool = False
) -> None:
    """Replace each `relay.param["name"]`, and each argument of `@main` named in `params` (TVM's
    bind_params_by_name), by a `relay.const` of the given value, so that passes fold them.

    With `consume`, `params` (a dict) loses each value as it is bound: a weight the constant
    copies (one not viewing whole `bytes`) is then held once, not beside its copy."""
    bound: dict[str, np.ndarray] = {}  # views of the constants' bytes: shared by later uses

    def constant(name: str, typ: Attribute) -> relay.ConstOp:
        value = bound.get(name)
        if value is None:
            value = np.asarray(params.pop(name) if consume else params[name])  # type: ignore[attr-defined]
        const = constant_for(name, value, typ)
        bound[name] = relay.numpy_from_dense(const.value, copy=False)
        return const

    for op in list(module.walk()):
        if not isinstance(op, relay.ParamOp):
            continue
        name = op.param_name.data
        if name not in params and name not in bound:
            continue
        const = constant(name, op.results[0].type)
        assert op.parent is not None
        op.parent.insert_op_before(const, op)
        op.results[0].replace_all_uses_with(const.results[0])
        op.detach()
        op.erase()
    main = next(
        (f for f in module.ops if isinstance(f, func.FuncOp) and f.sym_name.data == "main"), None
    )
    if main is None or not main.body.blocks:
        return
    block = main.body.block
    names = dict(zip(block.args, relay.input_names(main), strict=True))
    arguments = [a for a in block.args if names[a] in params or names[a] in bound]
    if not arguments:
        return
    kept = [a.index for a in block.args if a not in arguments]
    for arg in arguments:
        const = constant(names[arg], arg.type)
        block.insert_op_before(const, block.first_op)  # type: ignore[arg-type]
        arg.replace_all_uses_with(const.results[0])
        block.erase_arg(arg)
    if main.arg_attrs is not None:
        main.arg_attrs = ArrayAttr([main.arg_attrs.data[i] for i in kept])
    main.function_type = FunctionType.from_lists(
        [a.type for a in block.args], list(main.function_type.outputs.data)
    )


def verify_each_pass() -> bool:
    """Whether `run_passes` verifies the module after every pass (`XTVM_VERIFY_EACH_PASS=1`,
    as the tests run), not only after the last: verifying was a third of an LSTM's build."""
    return os.environ.get("XTVM_VERIFY_EACH_PASS", "") not in ("", "0")


def run_passes(module: ModuleOp, passes: tuple[ModulePass, ...] | list[ModulePass]) -> None:
    """Apply `passes` in order; the module is verified after the last (after each one with
    `verify_each_pass`, so that a broken invariant names the pass that broke it)."""
    ctx = shared_context()
    each = verify_each_pass()
    for p in passes:
        p.apply(ctx.xdsl_context, module)
        if each:
            module.verify()
    if passes and not each:
        module.verify()


def checked_main(module: ModuleOp) -> func.FuncOp:
    """`@main` of `module`, the function relay.build compiles: BuildError if there is none, a
    located error if it is a declaration or has several blocks (a graph is one block)."""
    main = next(
        (f for f in module.ops if isinstance(f, func.FuncOp) and f.sym_name.data == "main"), None
    )
    if main is None:
        raise BuildError("relay.build: the module has no @main")
    if not main.body.blocks:
        raise located_error(main, "relay.build: @main is a declaration, with no body to compile")
    refuse_multiple_blocks(main, "relay.build")
    refuse_recursion(module)
    refuse_dynamic_shapes(main)
    return main


def refuse_dynamic_shapes(main: func.FuncOp) -> None:
    """DynamicShapeError, at the first value of @main whose type has a `?` dimension."""
    values = [*main.body.block.args, *(r for op in main.walk() for r in op.results)]
    for value in values:
        types = value.type.types.data if isinstance(value.type, TupleType) else (value.type,)
        if any(isinstance(t, TensorType) and DYNAMIC_INDEX in t.get_shape() for t in types):
            raise DynamicShapeError(
                f"relay.build: {(value.name_hint and '%' + value.name_hint) or 'a value'} of "
                f"@main has type {value.type} with a dynamic dimension (relay.Any or a "
                "te.size_var); the graph executor compiles static shapes: give the inputs "
                "concrete shapes (relay.create_executor evaluates it as it is)"
            )


def refuse_recursion(module: ModuleOp) -> None:
    """ControlFlowError if @main reaches a function that calls itself (directly or not)."""
    functions = {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}
    graph = {name: callees(f) & functions.keys() for name, f in functions.items()}
    reached = {"main"}
    stack = ["main"]
    while stack:
        for callee in graph.get(stack.pop(), ()):
            if callee not in reached:
                reached.add(callee)
                stack.append(callee)
    for name in sorted(reached):
        if reaches(graph, name, name):
            raise ControlFlowError(
                f"relay.build: @{name} is recursive; the graph executor runs no control flow "
                "(an If of @main is computed as a select of both branches, so recursion would "
                "not end). Evaluate it with relay.create_executor(mod=mod).evaluate(), which "
                "runs the branch an If takes (where TVM users use its VM)"
            )


def inline_global_calls(module: ModuleOp) -> None:
    """Inline into @main every call of a module function with a body (not an external
    codegen's): the graph executor runs kernels only. `refuse_recursion` ran first."""
    functions = {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}
    main = functions["main"]
    while True:
        calls = [
            c
            for c in main.walk()
            if isinstance(c, func.CallOp)
            and (callee := functions.get(c.callee.root_reference.data)) is not None
            and callee.body.blocks
            and "compiler" not in callee.attributes
        ]
        if not calls:
            return
        for call in calls:
            inline_call(call, functions[call.callee.root_reference.data])


def split_kernels(module: ModuleOp) -> tuple[func.FuncOp, ModuleOp]:
    """`@main` of a lowered module and the te kernels it calls, moved to a module of their own."""
    main: func.FuncOp | None = None
    kernels: list[Operation] = []
    for f in list(module.ops):
        if not isinstance(f, func.FuncOp):
            continue
        if f.sym_name.data == "main":
            main = f
        elif any(isinstance(o, te.ComputeOp | te.ExternOp) for o in f.walk()):
            f.detach()
            kernels.append(f)
    if main is None:
        raise BuildError("relay.build: the module has no @main")
    mark_nops(main, kernels)
    # Kernels are public: the runtime module exposes public functions only.
    for k in kernels:
        assert isinstance(k, func.FuncOp)
        k.sym_visibility = None
    return main, ModuleOp(kernels)


def mark_nops(main: func.FuncOp, kernels: list[Operation]) -> None:
    """Mark `reshape_only` each call of @main to a kernel that only reshapes: its graph node
    becomes a `__nop` whose output shares its input's storage. (The kernel stays compiled,
    for whoever calls it by name.)"""
    nops = {
        k.sym_name.data
        for k in kernels
        if isinstance(k, func.FuncOp) and "reshape_only" in k.attributes
    }
    for call in main.walk():
        if (
            isinstance(call, func.CallOp)
            and call.callee.string_value() in nops
            and len(call.operands) == 1
            and len(call.results) == 1
        ):
            call.attributes["reshape_only"] = UnitAttr()


# ---------------------------------------------------------------------------------------------
# @main as graph JSON


def graph_of(main: func.FuncOp) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """TVM's graph JSON for `@main` and the values of its constants (named `p0`, `p1`, ...)."""
    nodes: list[dict[str, Any]] = []
    shapes: list[list[int]] = []
    dtypes: list[str] = []
    arg_nodes: list[int] = []
    constants: dict[str, np.ndarray] = {}
    entries: dict[SSAValue, list[list[int]]] = {}

    def entry_info(typ: object) -> None:
        assert isinstance(typ, TensorType)
        shapes.append([int(d) for d in typ.get_shape()])
        dtypes.append(numpy_dtype(typ.get_element_type()).name)

    def null_node(name: str, value: SSAValue) -> None:
        arg_nodes.append(len(nodes))
        entries[value] = [[len(nodes), 0, 0]]
        nodes.append({"op": "null", "name": name, "inputs": []})
        entry_info(value.type)

    used_names: set[str] = set()
    for arg, name in zip(main.body.block.args, relay.input_names(main), strict=True):
        used_names.add(name)
        null_node(name, arg)
    for op in main.body.block.ops:
        if isinstance(op, func.ReturnOp):
            heads = [e for v in op.operands for e in entries[v]]
            break
        if isinstance(op, relay.ParamOp):
            if op.param_name.data not in used_names:
                used_names.add(op.param_name.data)
                null_node(op.param_name.data, op.results[0])
            else:  # the same weight read twice: one node
                first = next(n for n in arg_nodes if nodes[n]["name"] == op.param_name.data)
                entries[op.results[0]] = [[first, 0, 0]]
        elif isinstance(op, relay.ConstOp):
            name = f"p{len(constants)}"
            while name in used_names:
                name = "_" + name
            used_names.add(name)
            constants[name] = relay.numpy_from_dense(op.value, copy=False)  # not written
            null_node(name, op.results[0])
        elif isinstance(op, relay.TupleOp):
            entries[op.results[0]] = [e for v in op.operands for e in entries[v]]
        elif isinstance(op, relay.TupleGetItemOp):
            entries[op.results[0]] = [entries[op.tuple][op.index.value.data]]
        elif isinstance(op, func.CallOp):
            inputs = [e for v in op.operands for e in entries[v]]
            nid = len(nodes)
            name = op.callee.string_value()
            nodes.append(
                {
                    "op": "tvm_op",
                    "name": name,
                    "attrs": {
                        "func_name": NOP if "reshape_only" in op.attributes else name,
                        "num_inputs": str(len(inputs)),
                        "num_outputs": str(len(op.results)),
                        "flatten_data": "0",
                    },
                    "inputs": inputs,
                }
            )
            for k, result in enumerate(op.results):
                entries[result] = [[nid, k, 0]]
                entry_info(result.type)
        else:
            raise BuildError(f"relay.build: '{op.name}' left in @main after lowering")
    else:
        raise BuildError("relay.build: @main has no func.return")
    row_ptr = [0]
    for node in nodes:
        row_ptr.append(row_ptr[-1] + int(node.get("attrs", {}).get("num_outputs", 1)))
    graph: dict[str, Any] = {
        "nodes": nodes,
        "arg_nodes": arg_nodes,
        "heads": heads,
        "attrs": {"shape": ["list_shape", shapes], "dltype": ["list_str", dtypes]},
        "node_row_ptr": row_ptr,
    }
    plan = plan_memory(graph)
    graph["attrs"]["storage_id"] = ["list_int", plan.storage_ids]
    return graph, constants


def graph_factory(
    graph: dict[str, Any],
    constants: dict[str, np.ndarray],
    lib: Module,
    params: Mapping[str, Any] | None,
    link: Callable[[Path, list[Path]], None],
    kernels: ModuleOp,
    external: ExternalLibrary | None,
) -> GraphExecutorFactory:
    """The factory `relay.build` returns: the graph, its kernels' library `lib` (`external` the
    external codegens' one), the weights the graph reads (of `params` and the folded
    `constants`), and an exporter that `link`s graph and weights into the library as an
    embedded object (`.incbin`), never through the IR."""

    def export(path: Path, graph_json: str, weights: Mapping[str, np.ndarray]) -> None:
        with tempfile.TemporaryDirectory(prefix="xtvm-graph-") as tmp:
            link(path, [write_embedding(Path(tmp), graph_json, weights)])

    unbound = {k: np.asarray(getattr(v, "_data", v)) for k, v in (params or {}).items()}
    graph_inputs = {n["name"] for n in graph["nodes"] if n["op"] == "null"}
    all_params = {k: v for k, v in unbound.items() if k in graph_inputs} | constants
    factory = GraphExecutorFactory(json.dumps(graph), lib, all_params, export, kernels)
    factory.external = external
    return factory
