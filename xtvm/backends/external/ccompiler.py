"""The `ccompiler` codegen: a partitioned relay function lowered through TOPI and emitted as C.

TVM's C codegen prints add, subtract and multiply loops by hand. This one lowers the function
the way `relay.build` lowers `@main` — relay-simplify-inference, relay-fold-constant,
relay-fuse-ops, convert-relay-to-te with the CPU schedules, convert-te-to-tir and the tir
passes of the C target — and renders the kernels with the C backend, as `static` functions, so
any relay op with a TOPI strategy can be offloaded. A wrapper `void symbol(void *in0, ...,
void *out0, ...)` then calls the kernels in order: intermediates are heap buffers freed at the
end, a kernel producing an output writes it in place, constants hoisted out of the kernels are
`static const` arrays of the translation unit.

Which ops `relay-annotate-target{targets=ccompiler}` hands to it is the `target.ccompiler`
table: add, subtract and multiply by default (TVM's example, which the BYOC pass tests rely
on); `offload_to_ccompiler("nn.conv2d", "nn.relu")` adds ops, `offload_to_ccompiler()` every op
with a strategy, `reset_ccompiler_ops()` goes back to the default.
"""

from __future__ import annotations

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import Attribute, SSAValue

from xtvm.backends.c.codegen import CRenderer
from xtvm.backends.external import ExternalFunction, register_codegen
from xtvm.dialects import relay, te
from xtvm.dialects.registry import default_context
from xtvm.ir.numpy_types import numpy_dtype
from xtvm.ir.symbols import check_symbol
from xtvm.ir.verify import located_error
from xtvm.passes.byoc_targets import (
    CCOMPILER_DEFAULT_OPS,
    OpView,
    register_op_attr,
    unregister_target,
)
from xtvm.passes.convert_relay_to_te import ConvertRelayToTePass
from xtvm.passes.convert_te_to_tir import ConvertTeToTirPass
from xtvm.passes.relay_fold_constant import RelayFoldConstantPass
from xtvm.passes.relay_fuse_ops import RelayFuseOpsPass
from xtvm.passes.relay_simplify_inference import RelaySimplifyInferencePass
from xtvm.passes.tir_loop_partition import TirLoopPartitionPass
from xtvm.passes.tir_simplify import TirSimplifyPass
from xtvm.runtime.module import Param, signature_of
from xtvm.topi.strategy import STRATEGIES

NAME = "ccompiler"
C_DTYPES = frozenset({"float32", "float64", "int8", "int16", "int32", "int64", "bool"})
CCOMPILER_OPS: tuple[str, ...] = tuple(sorted(op.name.removeprefix("relay.") for op in STRATEGIES))
"""TVM's names of every relay op the codegen can lower (those with a TOPI strategy)."""


# ---------------------------------------------------------------------------------------------
# Which ops it takes


def c_compatible(expr: OpView) -> bool:
    """Static shapes and element types the C backend computes in, on every argument and result."""
    infos = [*expr.args, *expr.results]
    while any(i.fields for i in infos):
        infos = [f for i in infos for f in (i.fields or (i,))]
    return all(i.dtype in C_DTYPES and all(d >= 0 for d in i.shape) for i in infos)


def offload_to_ccompiler(*op_names: str) -> None:
    """Let ccompiler claim `op_names` (TVM names: "nn.conv2d"); every op it can lower if none."""
    unknown = sorted(set(op_names) - set(CCOMPILER_OPS))
    if unknown:
        raise ValueError(f"ccompiler cannot lower {', '.join(unknown)} (no TOPI strategy)")
    for name in op_names or CCOMPILER_OPS:
        register_op_attr(name, f"target.{NAME}", c_compatible)


def reset_ccompiler_ops() -> None:
    """Back to the default table: add, subtract and multiply."""
    unregister_target(NAME)
    for name in CCOMPILER_DEFAULT_OPS:
        register_op_attr(name, f"target.{NAME}", True)


# ---------------------------------------------------------------------------------------------
# Lowering


class StaticCRenderer(CRenderer):
    """The C backend with `static` kernels: only the wrapper leaves the translation unit."""

    kernel_prefix = "static "


def lower(function: func.FuncOp) -> tuple[func.FuncOp, ModuleOp]:
    """The function as a graph of kernel calls, and its kernels as tir (as relay.build does)."""
    body = function.clone()
    for key in ("compiler", "global_symbol", "primitive", "inline"):
        body.attributes.pop(key, None)
    body.sym_visibility = None  # relay-fuse-ops fuses public functions only
    module = ModuleOp([body])
    ctx = default_context().xdsl_context
    for p in (
        RelaySimplifyInferencePass(),
        RelayFoldConstantPass(),
        RelayFuseOpsPass(),
        ConvertRelayToTePass("llvm"),  # the CPU schedules: omp parallel and simd in C
    ):
        p.apply(ctx, module)
    return body, te_kernels_as_tir(module, ctx)


def te_kernels_as_tir(module: ModuleOp, ctx: Context) -> ModuleOp:
    """The functions of `module` holding te computations, detached from it and lowered to
    simplified tir (as relay.build lowers its kernels)."""
    kernels = [
        f
        for f in module.ops
        if isinstance(f, func.FuncOp) and any(isinstance(o, te.ComputeOp) for o in f.walk())
    ]
    for f in kernels:
        f.detach()
    tir = ModuleOp(kernels)
    for p in (ConvertTeToTirPass(), TirSimplifyPass(), TirLoopPartitionPass(), TirSimplifyPass()):
        p.apply(ctx, tir)
    return tir


def tensor_of(value: SSAValue, what: func.FuncOp) -> tuple[str, tuple[int, ...]]:
    typ: Attribute = value.type
    if not isinstance(typ, TensorType) or any(d < 0 for d in typ.get_shape()):
        raise located_error(what, f"ccompiler takes tensors of static shape, not {typ}")
    return numpy_dtype(typ.get_element_type()).name, tuple(int(d) for d in typ.get_shape())


def nbytes(dtype: str, shape: tuple[int, ...]) -> int:
    return int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize


def c_bytes(name: str, data: bytes) -> list[str]:
    """`static const unsigned char name[]` holding `data`, 64-byte aligned."""
    rows = [
        "  " + ", ".join(f"0x{b:02x}" for b in data[k : k + 24]) + ","
        for k in range(0, len(data), 24)
    ]
    return [
        f"static const unsigned char {name}[{max(len(data), 1)}] __attribute__((aligned(64))) = {{",
        *(rows or ["  0"]),
        "};",
    ]


def wrapper(symbol: str, graph: func.FuncOp, kernels: ModuleOp) -> tuple[list[str], list[Param]]:
    """The C of `void symbol(in..., out...)` calling the kernels of `graph`, and its params."""
    signatures = {
        f.sym_name.data: signature_of(f) for f in kernels.ops if isinstance(f, func.FuncOp)
    }
    block = graph.body.block
    params: list[Param] = []
    arguments: list[str] = []
    entries: dict[SSAValue, list[str]] = {}
    for k, arg in enumerate(block.args):
        dtype, shape = tensor_of(arg, graph)
        params.append(Param(arg.name_hint or f"in{k}", dtype, shape))
        arguments.append(f"void *in{k}")
        entries[arg] = [f"in{k}"]
    returned = block.last_op
    assert isinstance(returned, func.ReturnOp)
    written_in_place: dict[SSAValue, str] = {}
    for k, value in enumerate(returned.operands):
        dtype, shape = tensor_of(value, graph)
        params.append(Param(f"out{k}", dtype, shape))
        arguments.append(f"void *out{k}")
        if isinstance(value.owner, func.CallOp) and value not in written_in_place:
            written_in_place[value] = f"out{k}"

    data: list[str] = []
    constants = 0
    lines: list[str] = []
    heap: list[str] = []
    for op in block.ops:
        if isinstance(op, relay.ConstOp):
            name = f"const{constants}"
            constants += 1
            data += c_bytes(name, np.ascontiguousarray(relay.numpy_from_dense(op.value)).tobytes())
            entries[op.result] = [f"(void *){name}"]
        elif isinstance(op, relay.TupleOp):
            entries[op.results[0]] = [e for v in op.operands for e in entries[v]]
        elif isinstance(op, relay.TupleGetItemOp):
            entries[op.results[0]] = [entries[op.tuple][op.index.value.data]]
        elif isinstance(op, func.CallOp):
            callee = op.callee.string_value()
            args = [e for v in op.operands for e in entries[v]]
            for result in op.results:
                buffer = written_in_place.get(result)
                if buffer is None:
                    buffer = f"t{len(heap)}"
                    heap.append(buffer)
                    size = nbytes(*tensor_of(result, graph))
                    lines.append(f"  void *{buffer} = NULL;")
                    lines.append(f"  if (posix_memalign(&{buffer}, 64, {max(size, 1)})) abort();")
                entries[result] = [buffer]
                args.append(buffer)
            expected = signatures.get(callee)
            if (
                expected is None
                or len(expected) != len(args)
                or any(p.shape is None for p in expected)
            ):
                raise located_error(
                    op, f"ccompiler: kernel '{callee}' is not a kernel of static shapes"
                )
            # Kernels of static shapes fail only when out of memory, as the wrapper's own
            # allocations do (the external function has no status to return).
            lines.append(f"  if ({callee}({', '.join(args)}) != 0) abort();")
        elif isinstance(op, func.ReturnOp):
            for k, value in enumerate(op.operands):
                if written_in_place.get(value) != f"out{k}":
                    (source,) = entries[value]
                    size = nbytes(*tensor_of(value, graph))
                    lines.append(f"  memcpy(out{k}, {source}, {size});")
        else:
            raise located_error(op, f"ccompiler: '{op.name}' op left after lowering")
    lines += [f"  free({b});" for b in heap]
    code = [
        *data,
        "",
        f"void {symbol}({', '.join(arguments) or 'void'}) {{",
        *lines,
        "}",
    ]
    return code, params


@register_codegen(NAME)
def ccompiler(function: func.FuncOp, target: str) -> ExternalFunction:
    """C for `function` (the host `target` does not matter: the C is built with -march=native)."""
    symbol_attr = function.attributes.get("global_symbol")
    symbol = symbol_attr.data if isinstance(symbol_attr, StringAttr) else function.sym_name.data
    check_symbol(symbol, "ccompiler: the external function's symbol", function)
    graph, kernels = lower(function)
    code, params = wrapper(symbol, graph, kernels)
    kernel_source = StaticCRenderer().render(kernels)
    source = "\n".join(
        [
            f"/* Generated by xtvm's ccompiler codegen for @{symbol}. */",
            "#include <string.h>",
            kernel_source,
            *code,
            "",
        ]
    )
    return ExternalFunction(symbol, params, source)
