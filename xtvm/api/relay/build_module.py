"""`relay.build`: a relay module compiled into kernels plus the graph that calls them.

TVM's `relay.build` runs the graph-level passes, lowers every fused function to a kernel and
turns `@main` into graph JSON for the graph executor. Here: relay-simplify-inference,
relay-fold-constant (after binding the given params as constants), relay-fuse-ops and
convert-relay-to-te; the te kernels move to a module of their own, go through
convert-te-to-tir and the tir passes, and are compiled by the LLVM backend. `@main` (now only
params, constants, tuples and `func.call`s of kernels) is walked into graph JSON: a `null`
node per input, weight and constant, a `tvm_op` node per call, and the constants join params.

    graph_json, lib, params = relay.build(mod, target="llvm", params=params)
    module = graph_executor.GraphModule(relay.build(mod, "llvm")["default"](tvm.cpu()))
"""

from __future__ import annotations

import json
import tempfile
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, FunctionType, ModuleOp, StringAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass

from xtvm.api.ir_module import IRModule, api_context
from xtvm.api.nd import Device, NDArray
from xtvm.dialects import relay, te
from xtvm.ir.numpy_types import numpy_dtype
from xtvm.ir.verify import located_error, refuse_multiple_blocks
from xtvm.passes.convert_relay_to_te import ConvertRelayToTePass
from xtvm.passes.convert_te_to_tir import ConvertTeToTirPass
from xtvm.passes.relay_alter_dense_layout import RelayAlterDenseLayoutPass
from xtvm.passes.relay_alter_op_layout import RelayAlterOpLayoutPass
from xtvm.passes.relay_combine_parallel_dense import RelayCombineParallelDensePass
from xtvm.passes.relay_convert_layout import RelayConvertLayoutPass
from xtvm.passes.relay_fold_constant import RelayFoldConstantPass
from xtvm.passes.relay_fuse_ops import RelayFuseOpsPass
from xtvm.passes.relay_simplify_inference import RelaySimplifyInferencePass
from xtvm.passes.tir_loop_partition import TirLoopPartitionPass
from xtvm.passes.tir_simplify import TirSimplifyPass
from xtvm.passes.tir_vector_accumulate import TirVectorAccumulatePass
from xtvm.passes.tir_vector_transpose import TirVectorTransposePass
from xtvm.passes.tir_vectorize import TirVectorizePass, VectorizeRemark
from xtvm.runtime.graph_executor import GraphExecutor, embed_graph, plan_memory
from xtvm.runtime.module import Module, Param, export_linker, metadata_json, signatures_of
from xtvm.topi.schedule import VECTOR_LANES

if TYPE_CHECKING:
    from xtvm.backends.external import ExternalFunction
    from xtvm.backends.external.library import ExternalLibrary

# Loops it cannot vectorize, tir-vectorize leaves scalar with a remark (silenced here).
TIR_PASSES: tuple[ModulePass, ...] = (
    TirSimplifyPass(),
    TirLoopPartitionPass(),
    TirSimplifyPass(),
    TirVectorizePass(),
    TirVectorTransposePass(),
    TirVectorAccumulatePass(),
)


FOLD_MAX_GROWTH = 4  # Winograd's kernel transform: 3x3 -> 6x6
NHWC_MIN_CHANNELS = 4


class BuildError(ValueError):
    """`relay.build` was given something it cannot compile."""


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


def bind_params(module: ModuleOp, params: Mapping[str, np.ndarray]) -> None:
    """Replace each `relay.param["name"]`, and each argument of `@main` named in `params` (TVM's
    bind_params_by_name), by a `relay.const` of the given value, so that passes fold them."""
    for op in list(module.walk()):
        if not isinstance(op, relay.ParamOp) or op.param_name.data not in params:
            continue
        name = op.param_name.data
        const = constant_for(name, np.asarray(params[name]), op.results[0].type)
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
    bound = [a for a in block.args if names[a] in params]
    if not bound:
        return
    kept = [a.index for a in block.args if a not in bound]
    for arg in bound:
        name = names[arg]
        const = constant_for(name, np.asarray(params[name]), arg.type)
        block.insert_op_before(const, block.first_op)  # type: ignore[arg-type]
        arg.replace_all_uses_with(const.results[0])
        block.erase_arg(arg)
    if main.arg_attrs is not None:
        main.arg_attrs = ArrayAttr([main.arg_attrs.data[i] for i in kept])
    main.function_type = FunctionType.from_lists(
        [a.type for a in block.args], list(main.function_type.outputs.data)
    )


def run_passes(module: ModuleOp, passes: tuple[ModulePass, ...] | list[ModulePass]) -> None:
    ctx = api_context()
    for p in passes:
        p.apply(ctx.xdsl_context, module)
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
    return main


def split_kernels(module: ModuleOp) -> tuple[func.FuncOp, ModuleOp]:
    """`@main` of a lowered module and the te kernels it calls, moved to a module of their own."""
    main: func.FuncOp | None = None
    kernels: list[Operation] = []
    for f in list(module.ops):
        if not isinstance(f, func.FuncOp):
            continue
        if f.sym_name.data == "main":
            main = f
        elif any(isinstance(o, te.ComputeOp) for o in f.walk()):
            f.detach()
            kernels.append(f)
    if main is None:
        raise BuildError("relay.build: the module has no @main")
    # Kernels are public: the runtime module exposes public functions only.
    for k in kernels:
        assert isinstance(k, func.FuncOp)
        k.sym_visibility = None
    return main, ModuleOp(kernels)


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
            constants[name] = relay.numpy_from_dense(op.value)
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
                        "func_name": name,
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


# ---------------------------------------------------------------------------------------------
# External codegens (BYOC)


@dataclass
class ExternalBuild:
    """The external functions of a module, compiled: by relay function name, and as a library."""

    by_function: dict[str, ExternalFunction]
    library: ExternalLibrary

    @property
    def signatures(self) -> dict[str, list[Param]]:
        return self.library.signatures


def build_external(mod: IRModule | ModuleOp, target: str) -> ExternalBuild | None:
    """Run the codegen of every function with a `compiler` attribute and compile their C.

    None when the module has no such function. The codegens get copies of the functions.
    """
    from xtvm.backends.external import UnknownCodegenError, get_codegen
    from xtvm.backends.external.library import compile_external
    from xtvm.backends.toolchain import CompileError

    module = mod.xdsl if isinstance(mod, IRModule) else mod
    by_function: dict[str, ExternalFunction] = {}
    for function in module.ops:
        if not isinstance(function, func.FuncOp) or "compiler" not in function.attributes:
            continue
        name = function.sym_name.data
        compiler = function.attributes["compiler"]
        compiler_name = compiler.data if isinstance(compiler, StringAttr) else str(compiler)
        try:
            codegen = get_codegen(compiler_name)
        except UnknownCodegenError as exc:
            raise BuildError(
                f"relay.build: function @{name} (compiler = '{compiler_name}'): {exc}"
            ) from None
        built = codegen(function.clone(), target)
        arity = len(function.function_type.inputs.data) + len(function.function_type.outputs.data)
        if len(built.params) != arity:
            raise BuildError(
                f"relay.build: codegen '{compiler_name}' gave @{name} {len(built.params)} "
                f"params; its inputs and outputs are {arity}"
            )
        by_function[name] = built
    if not by_function:
        return None
    try:
        library = compile_external(list(by_function.values()))
    except CompileError as exc:
        raise BuildError(f"relay.build: compiling the external functions failed: {exc}") from None
    return ExternalBuild(by_function, library)


# ---------------------------------------------------------------------------------------------
# The driver


def lower_for_build(
    mod: IRModule | ModuleOp, params: Mapping[str, Any] | None = None, target: str = "llvm"
) -> tuple[func.FuncOp, ModuleOp]:
    """@main as a graph of kernel calls and the kernels as tir (the module is not changed)."""
    module = (mod.xdsl if isinstance(mod, IRModule) else mod).clone()
    checked_main(module)
    bind_params(module, {k: np.asarray(getattr(v, "_data", v)) for k, v in (params or {}).items()})
    kind = target.split()[0]
    # On the CPU, conv2d runs NHWC: its schedule vectorizes output channels, which stay
    # contiguous at any stride (NCHW vectorizes columns, strided loads when the stride is 2).
    # Grouped and depthwise conv2d, with few channels per group, stay NCHW, and so does a
    # conv2d of fewer than NHWC_MIN_CHANNELS input channels (an RGB image) whose output
    # channels do not fill whole vectors: NHWC would pay a transform of the input for a tile
    # of half vectors (shufflenet's 24 channels), where 64 channels pay it back.
    # Their constant kernels are then packed into the register tile's blocks of channels.
    cpu = kind in ("llvm", "cpu")
    run_passes(
        module,
        [
            RelaySimplifyInferencePass(),
            *(
                [
                    RelayConvertLayoutPass(
                        "NHWC",
                        grouped=False,
                        min_channels=NHWC_MIN_CHANNELS,
                        out_block=VECTOR_LANES,
                    )
                ]
                if cpu
                else []
            ),
            # Weights are constants now: fold their transforms whatever their size, but not
            # an expansion of a small constant into a large one (it is computed in its kernel).
            RelayFoldConstantPass(max_growth=FOLD_MAX_GROWTH),
            *(
                [
                    RelayCombineParallelDensePass(),
                    RelayAlterOpLayoutPass(),
                    RelayAlterDenseLayoutPass(),
                ]
                if cpu
                else []
            ),
            RelayFuseOpsPass(),
            ConvertRelayToTePass(kind),
        ],
    )
    main, kernels = split_kernels(module)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VectorizeRemark)
        run_passes(kernels, [ConvertTeToTirPass(), *TIR_PASSES])
    return main, kernels


def build(
    mod: IRModule | ModuleOp,
    target: str | None = "llvm",
    params: Mapping[str, Any] | None = None,
    **_: Any,
) -> GraphExecutorFactory:
    """Compile `mod` for `target`: `graph_json, lib, params = relay.build(mod, "llvm", params)`."""
    from xtvm.backends.llvm import compile_module
    from xtvm.backends.llvm.compile import jit_last_error

    target = target or "llvm"
    checked_main(mod.xdsl if isinstance(mod, IRModule) else mod)
    if target.split()[0] == "cuda":
        from xtvm.api.relay.build_cuda import build_cuda

        return build_cuda(mod, target, params)
    if target.split()[0] not in ("llvm", "cpu"):
        raise BuildError(f"relay.build: unknown target '{target}' (targets: llvm, cuda)")
    external = build_external(mod, target)
    main, kernels = lower_for_build(mod, params, target)
    graph, constants = graph_of(main)
    signatures = signatures_of(kernels)
    status = set(signatures)  # the kernels return a status, external functions nothing
    if external is not None:
        signatures |= external.signatures
        symbols = {name: f.symbol for name, f in external.by_function.items()}
        for node in graph["nodes"]:
            if node["op"] == "tvm_op" and node["name"] in symbols:
                node["attrs"]["func_name"] = symbols[node["name"]]
    compiled = compile_module(kernels, target, metadata_json(signatures, status))

    def source(fmt: str) -> str:
        if fmt in ("ll", "llvm", ""):
            return compiled.llvm_ir()
        if fmt in ("asm", "s"):
            return compiled.assembly()
        raise ValueError(f"unknown source format '{fmt}' (known: ll, asm)")

    def address(name: str) -> int:
        if external is not None and name in external.signatures:
            return external.library.module._address(name)
        return compiled.address(name)

    def export_kernels(path: Path, extra_objects: list[Path] | None = None) -> None:
        if external is None:
            compiled.export_library(path, extra_objects)
            return
        from xtvm.backends.toolchain import link_shared

        with tempfile.TemporaryDirectory(prefix="xtvm-export-") as tmp:
            kernels_object = Path(tmp) / "kernels.o"
            kernels_object.write_bytes(compiled.object_code())
            objects = [
                kernels_object,
                *(extra_objects or []),
                *external.library.write_objects(Path(tmp)),
            ]
            link_shared(path, objects, external.library.libraries)

    lib = Module(
        signatures,
        address,
        keepalive=compiled,
        source=source,
        exporter=export_kernels,
        status=status,
        last_error=jit_last_error(compiled),
    )
    if external is not None:
        lib.imported_modules.append(external.library.module)

    def export(path: Path, graph_json: str, weights: Mapping[str, np.ndarray]) -> None:
        obj = path.with_name(path.name + ".graph.o")
        obj.write_bytes(embed_graph(compiled.machine, compiled.target.triple, graph_json, weights))
        try:
            export_kernels(path, [obj])
        finally:
            obj.unlink(missing_ok=True)

    unbound = {k: np.asarray(getattr(v, "_data", v)) for k, v in (params or {}).items()}
    graph_inputs = {n["name"] for n in graph["nodes"] if n["op"] == "null"}
    all_params = {k: v for k, v in unbound.items() if k in graph_inputs} | constants
    factory = GraphExecutorFactory(json.dumps(graph), lib, all_params, export, kernels)
    factory.external = None if external is None else external.library
    return factory


def bind_params_by_name(fn: Any, params: Mapping[str, Any]) -> Any:
    """`fn` (a relay.Function) with the parameters named in `params` replaced by constants of
    their values and dropped from its parameter list, as TVM's `bind_params_by_name`."""
    from xtvm.api.relay.expr import Function, Var, const
    from xtvm.api.relay.expr_functor import ExprMutator

    names = [p.name_hint for p in fn.params]
    repeated = {n for n in params if names.count(n) > 1}
    if repeated:
        raise ValueError(f"bind_params_by_name: several parameters are named {sorted(repeated)}")
    bound = {
        id(p): const(np.asarray(getattr(params[p.name_hint], "_data", params[p.name_hint])))
        for p in fn.params
        if p.name_hint in params
    }

    class Bind(ExprMutator):
        def visit_var(self, var: Var) -> Any:
            return bound.get(id(var), var)

    body = Bind().visit(fn.body)
    kept = [p for p in fn.params if id(p) not in bound]
    return Function(kept, body, fn.ret_type, fn.type_params, fn.attrs)
