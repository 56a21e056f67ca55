"""The `dnnl` external codegen: partitioned relay functions run by oneDNN (TVM's DNNL BYOC).

TVM's DNNL offload describes a partitioned function as a JSON graph that a runtime executes
through oneDNN; so does this module. Three parts:

- predicates: `target.dnnl` op attributes (`register_op_attr("nn.conv2d", "target.dnnl")`) for
  the ops and attribute combinations the runtime supports, registered when this module is
  imported (`get_codegen("dnnl")` imports it); `partition_for_dnnl(mod, params)` is in
  xtvm/api/relay/op/contrib/dnnl.py;
- the codegen: the function's relay ops become JSON nodes (inputs, constants, kernels with
  attributes; a conv2d or dense absorbs the bias add, residual add and activation that follow
  it as oneDNN bias and post-ops) and the constants become one binary blob of weights;
- `dnnl_runtime.c`: a C runtime that parses that JSON once, builds the oneDNN primitives and
  runs them on every call (once more per OpenMP thread count: oneDNN fixes a primitive's
  threads when it creates it). The codegen's C translation unit embeds the JSON as a string and
  the weights with `.incbin` (the blob is written under the cache directory, named by its hash)
  and calls the runtime.

Ops taken (float32, NCHW/OIHW): nn.conv2d (groups, strides, padding, dilation), nn.dense,
nn.matmul and nn.batch_matmul (either side transposed), nn.relu, nn.leaky_relu, tanh, sigmoid,
clip, add, subtract, multiply, divide, maximum, minimum (one operand broadcasting into the
other), nn.bias_add, nn.batch_norm (inference), nn.max_pool2d, nn.avg_pool2d (ceil_mode,
dilation), the global pools, nn.softmax, concatenate.

    mod = partition_for_dnnl(mod, params)   # then relay.build(mod, target="llvm") as usual

Without oneDNN (`libdnnl-dev`: header and library) the predicates still register, and the
codegen raises `DnnlUnavailableError` saying what to install. `ONEDNN_VERBOSE=1` makes oneDNN
print the implementation and time of every primitive it runs.
"""

from __future__ import annotations

import ctypes.util
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from xtvm.backends.external import ExternalFunction, register_codegen
from xtvm.dialects import relay
from xtvm.ir import cache as user_cache
from xtvm.ir.numpy_types import numpy_dtype
from xtvm.ir.symbols import c_string_literal, check_symbol
from xtvm.ir.verify import located_error
from xtvm.passes.byoc_targets import OpView, register_op_attr
from xtvm.runtime.module import Param

RUNTIME_DIR = Path(__file__).parent
RUNTIME_SOURCE = RUNTIME_DIR / "dnnl_runtime.c"
HEADER = "oneapi/dnnl/dnnl.h"
INSTALL_HINT = "install oneDNN (Debian/Ubuntu: apt-get install libdnnl-dev)"
MAX_RANK = 6
MAX_INPUTS = 64  # the runtime's limit of inputs per kernel
WEIGHT_ALIGN = 64


class DnnlUnavailableError(RuntimeError):
    """oneDNN's header or library is missing."""


def include_dirs() -> list[Path]:
    """Where to look for oneDNN's header: $DNNLROOT/include, then the system's."""
    roots = [os.environ.get(v, "") for v in ("DNNLROOT", "DNNL_ROOT")]
    dirs = [Path(r) / "include" for r in roots if r]
    dirs += [Path(p) for p in os.environ.get("CPATH", "").split(":") if p]
    return [*dirs, Path("/usr/local/include"), Path("/usr/include")]


def header_dirs() -> list[str]:
    """The include directories the header is found in, less the compiler's own."""
    system = (Path("/usr/local/include"), Path("/usr/include"))
    return [str(d) for d in include_dirs() if d not in system and (d / HEADER).is_file()]


@cache
def unavailable_reason() -> str | None:
    """Why oneDNN cannot be used here, or None when its header and library are present."""
    if not any((d / HEADER).is_file() for d in include_dirs()):
        return f"oneDNN header <{HEADER}> not found: {INSTALL_HINT}"
    name = ctypes.util.find_library("dnnl")
    try:
        ctypes.CDLL(name or "libdnnl.so")
    except OSError:
        return f"oneDNN library libdnnl cannot be loaded: {INSTALL_HINT}"
    return None


def require_dnnl() -> None:
    reason = unavailable_reason()
    if reason is not None:
        raise DnnlUnavailableError(reason)


# ---------------------------------------------------------------------------------------------
# Predicates: which ops and attributes the runtime takes

ELTWISE = ("nn.relu", "nn.leaky_relu", "tanh", "sigmoid", "clip")
BINARY = ("add", "subtract", "multiply", "divide", "maximum", "minimum")
COMMUTATIVE = ("add", "multiply", "maximum", "minimum")


def float32_tensors(expr: OpView) -> bool:
    """The results are float32 tensors of rank 1 to 6, the arguments of rank up to 6."""
    args = all(a.dtype == "float32" and len(a.shape) <= MAX_RANK for a in expr.args)
    return args and all(
        r.dtype == "float32" and 1 <= len(r.shape) <= MAX_RANK for r in expr.results
    )


def aligned(shape: Sequence[int], rank: int) -> tuple[int, ...]:
    """`shape` with leading 1s up to `rank` (numpy broadcasting's alignment)."""
    return (1,) * (rank - len(shape)) + tuple(shape)


def broadcasts_into(small: Sequence[int], full: Sequence[int]) -> bool:
    """Whether `small` broadcasts to `full` without `full` growing."""
    if len(small) > len(full):
        return False
    return all(s in (1, f) for s, f in zip(aligned(small, len(full)), full, strict=True))


def binary_operands(op: Operation) -> tuple[SSAValue, SSAValue] | None:
    """(full, broadcast) operands of a binary op as oneDNN takes them (src0 has the result's
    shape), swapping commutative ones; None when neither order works."""
    lhs, rhs = op.operands
    out = tuple(op.results[0].type.get_shape())  # type: ignore[attr-defined]
    lhs_shape = tuple(lhs.type.get_shape())  # type: ignore[attr-defined]
    rhs_shape = tuple(rhs.type.get_shape())  # type: ignore[attr-defined]
    if lhs_shape == out and broadcasts_into(rhs_shape, out):
        return lhs, rhs
    if rhs_shape == out and broadcasts_into(lhs_shape, out) and tvm_name(op) in COMMUTATIVE:
        return rhs, lhs
    return None


def tvm_name(op: Operation) -> str:
    return op.name.removeprefix("relay.")


def _binary(expr: OpView) -> bool:
    return float32_tensors(expr) and binary_operands(expr.op) is not None


def _eltwise(expr: OpView) -> bool:
    return float32_tensors(expr)


def _conv2d(expr: OpView) -> bool:
    op = expr.op
    assert isinstance(op, relay.Conv2dOp)
    return (
        float32_tensors(expr)
        and op.data_layout.data == "NCHW"
        and op.kernel_layout.data == "OIHW"
        and len(expr.args[0].shape) == 4
    )


def _dense(expr: OpView) -> bool:
    return float32_tensors(expr) and len(expr.args[0].shape) == 2


def _matmul(expr: OpView) -> bool:
    a, b = (arg.shape for arg in expr.args)
    return float32_tensors(expr) and len(a) == len(b) == 2


def _batch_matmul(expr: OpView) -> bool:
    """Batches equal, or b's a single one (oneDNN broadcasts the weights)."""
    a, b = (arg.shape for arg in expr.args)
    return float32_tensors(expr) and len(a) == len(b) == 3 and b[0] in (1, a[0])


def _batch_norm(expr: OpView) -> bool:
    op = expr.op
    assert isinstance(op, relay.BatchNormOp)
    data = expr.args[0]
    return (
        all(a.dtype == "float32" for a in expr.args)
        and 2 <= len(data.shape) <= 5
        and op.axis.value.data % len(data.shape) == 1
    )


def pool_padding(op: relay.Pool2dOp) -> tuple[int, int, int, int] | None:
    """The padding oneDNN gets: relay's, plus at the bottom and right the cells ceil_mode adds
    for a last partial window; None when oneDNN would compute another result."""
    data = op.data.type.get_shape()  # type: ignore[attr-defined]
    out = op.result.type.get_shape()  # type: ignore[attr-defined]
    pt, pl, pb, pr = op.padding.get_values()
    (kh, kw), (sh, sw) = op.pool_size.get_values(), op.strides.get_values()
    dh, dw = op.dilation.get_values()
    extra_b = (out[2] - 1) * sh + dh * (kh - 1) + 1 - (data[2] + pt + pb)
    extra_r = (out[3] - 1) * sw + dw * (kw - 1) + 1 - (data[3] + pl + pr)
    extra_b, extra_r = max(extra_b, 0), max(extra_r, 0)
    # relay counts the padding toward an average but never the cells ceil_mode adds.
    if isinstance(op, relay.AvgPool2dOp) and op.count_include_pad.value.data and extra_b + extra_r:
        return None
    return pt, pl, pb + extra_b, pr + extra_r


def has_empty_window(op: relay.Pool2dOp) -> bool:
    """Whether a window holds padding only: relay's max is -inf there, oneDNN's the lowest
    float; relay's average without the padding divides by zero."""
    data = op.data.type.get_shape()  # type: ignore[attr-defined]
    out = op.result.type.get_shape()  # type: ignore[attr-defined]
    pads = op.padding.get_values()[:2]
    for axis in range(2):
        size, pad = data[2 + axis], pads[axis]
        kernel, stride = op.pool_size.get_values()[axis], op.strides.get_values()[axis]
        dilation = op.dilation.get_values()[axis]
        for i in range(out[2 + axis]):
            taps = (i * stride - pad + j * dilation for j in range(kernel))
            if not any(0 <= t < size for t in taps):
                return True
    return False


def _pool2d(expr: OpView) -> bool:
    op = expr.op
    assert isinstance(op, relay.Pool2dOp)
    counts_padding = isinstance(op, relay.AvgPool2dOp) and op.count_include_pad.value.data
    return (
        float32_tensors(expr)
        and op.layout.data == "NCHW"
        and pool_padding(op) is not None
        and (counts_padding or not has_empty_window(op))
    )


def _global_pool2d(expr: OpView) -> bool:
    op = expr.op
    assert isinstance(op, relay.GlobalPool2dOp)
    return float32_tensors(expr) and op.layout.data == "NCHW"


def _concatenate(expr: OpView) -> bool:
    return float32_tensors(expr) and len(expr.args) <= MAX_INPUTS


PREDICATES = {
    "nn.conv2d": _conv2d,
    "nn.dense": _dense,
    "nn.matmul": _matmul,
    "nn.batch_matmul": _batch_matmul,
    "nn.bias_add": float32_tensors,
    "nn.batch_norm": _batch_norm,
    "nn.max_pool2d": _pool2d,
    "nn.avg_pool2d": _pool2d,
    "nn.global_max_pool2d": _global_pool2d,
    "nn.global_avg_pool2d": _global_pool2d,
    "nn.softmax": float32_tensors,
    "concatenate": _concatenate,
    **dict.fromkeys(ELTWISE, _eltwise),
    **dict.fromkeys(BINARY, _binary),
}


def register_dnnl_ops() -> None:
    """Register the `target.dnnl` predicates (again, after a test unregistered them)."""
    for name, predicate in PREDICATES.items():
        register_op_attr(name, "target.dnnl", predicate)


register_dnnl_ops()


# ---------------------------------------------------------------------------------------------
# The JSON graph


class DnnlCodegenError(ValueError):
    """The function holds an op the runtime cannot run (the predicates should prevent it)."""


def shape_of(value: SSAValue) -> list[int]:
    typ = value.type
    if not isinstance(typ, TensorType) or str(numpy_dtype(typ.get_element_type())) != "float32":
        raise DnnlCodegenError(f"dnnl takes float32 tensors only, got {typ}")
    return [int(d) for d in typ.get_shape()]


@dataclass
class Fusion:
    """A conv2d or dense with what it absorbs: a bias, then eltwise and binary post-ops."""

    anchor: Operation
    ops: list[Operation] = field(default_factory=list)  # absorbed ops, in order
    bias: SSAValue | None = None
    post_ops: list[dict[str, Any]] = field(default_factory=list)
    extra: list[SSAValue] = field(default_factory=list)  # binary post-ops' operands

    @property
    def last(self) -> Operation:
        return self.ops[-1] if self.ops else self.anchor


def single_user(value: SSAValue) -> Operation | None:
    uses = list(value.uses)
    return uses[0].operation if len(uses) == 1 else None


def channel_vector(op: Operation, value: SSAValue, channels: int, rank: int) -> SSAValue | None:
    """The other operand of an add or bias_add of `value` when it is one value per channel."""
    if isinstance(op, relay.BiasAddOp):
        axis = op.axis.value.data % rank
        return op.bias if op.data == value and axis == 1 else None
    if not isinstance(op, relay.AddOp):
        return None
    other = op.rhs if op.lhs == value else op.lhs
    shape = other.type.get_shape()  # type: ignore[attr-defined]
    expected = (1, channels, *([1] * (rank - 2)))
    return other if other != value and aligned(shape, rank) == expected else None


def eltwise_post_op(op: Operation) -> dict[str, Any] | None:
    if isinstance(op, relay.ReluOp | relay.TanhOp | relay.SigmoidOp):
        return {"op": tvm_name(op)}
    if isinstance(op, relay.LeakyReluOp):
        return {"op": "nn.leaky_relu", "alpha": op.alpha.value.data}
    if isinstance(op, relay.ClipOp):
        return {"op": "clip", "alpha": op.a_min.value.data, "beta": op.a_max.value.data}
    return None


def fuse(anchor: Operation) -> Fusion:
    """Follow `anchor`'s single-user chain: a per-channel bias add first, then activations and
    binary ops with the chain's value as the full-size operand."""
    fusion = Fusion(anchor)
    value = anchor.results[0]
    out = value.type.get_shape()  # type: ignore[attr-defined]
    while (user := single_user(value)) is not None and user.parent is anchor.parent:
        if fusion.bias is None and not fusion.post_ops:
            bias = channel_vector(user, value, out[1], len(out))
            if bias is not None:
                fusion.bias = bias
                fusion.ops.append(user)
                value = user.results[0]
                continue
        post = eltwise_post_op(user)
        if post is None and tvm_name(user) in BINARY:
            operands = binary_operands(user)
            if operands is None or operands[0] != value or operands[1] == value:
                break
            other = operands[1]
            post = {"op": tvm_name(user), "shape": list(aligned(shape_of(other), len(out)))}
            fusion.extra.append(other)
        if post is None or len(fusion.extra) + 3 > MAX_INPUTS:
            break
        fusion.post_ops.append(post)
        fusion.ops.append(user)
        value = user.results[0]
    return fusion


@dataclass
class GraphBuilder:
    """The JSON nodes and the weights blob of one function, built op by op."""

    nodes: list[dict[str, Any]] = field(default_factory=list)
    weights: bytearray = field(default_factory=bytearray)
    ids: dict[SSAValue, int] = field(default_factory=dict)
    tuples: dict[SSAValue, list[int]] = field(default_factory=dict)  # batch_norm's 3 values

    def node(self, value: SSAValue) -> int:
        """The node of `value`; a constant becomes a node (and weights) where first used."""
        if value in self.ids:
            return self.ids[value]
        owner = value.owner
        if not isinstance(owner, relay.ConstOp):
            raise DnnlCodegenError(
                f"a value of '{getattr(owner, 'name', owner)}' is not in the graph"
            )
        return self.constant(relay.numpy_from_dense(owner.value), value)

    def constant(self, array: np.ndarray, value: SSAValue | None = None) -> int:
        """A const node of `array`, appended to the weights blob (64-byte aligned)."""
        array = np.ascontiguousarray(array, dtype=np.float32)
        self.weights.extend(b"\0" * (-len(self.weights) % WEIGHT_ALIGN))
        offset = len(self.weights)
        self.weights.extend(array.tobytes())
        name = f"const{len(self.nodes)}"
        shape = list(array.shape) or [1]
        return self.add(value, {"op": "const", "name": name, "shape": shape, "offset": offset})

    def add(self, value: SSAValue | None, node: dict[str, Any]) -> int:
        if value is not None:
            self.ids[value] = len(self.nodes)
        self.nodes.append(node)
        return len(self.nodes) - 1

    def kernel(
        self,
        name: str,
        inputs: Sequence[SSAValue | int],
        result: SSAValue | None,
        attrs: dict[str, Any],
        shape: Sequence[int] | None = None,
    ) -> int:
        """A kernel node computing `result` (of `shape`, default the result's) from `inputs`."""
        node = {
            "op": "kernel",
            "name": name,
            "inputs": [v if isinstance(v, int) else self.node(v) for v in inputs],
            "shape": list(shape if shape is not None else shape_of(SSAValue.get(result))) or [1],
            "dtype": "float32",
            "attrs": attrs,
        }
        return self.add(result, node)


def conv_attrs(op: relay.Conv2dOp) -> dict[str, Any]:
    return {
        "strides": list(op.strides.get_values()),
        "padding": list(op.padding.get_values()),
        "dilation": list(op.dilation.get_values()),
        "groups": op.groups.value.data,
    }


def emit_fusion(builder: GraphBuilder, fusion: Fusion) -> None:
    """A conv2d or dense node with its bias and post-ops, computing the chain's last value."""
    anchor = fusion.anchor
    attrs = conv_attrs(anchor) if isinstance(anchor, relay.Conv2dOp) else {}
    attrs["bias"] = fusion.bias is not None
    inputs = [*anchor.operands, *([fusion.bias] if fusion.bias is not None else [])]
    if fusion.post_ops:
        attrs["post_ops"] = fusion.post_ops
    builder.kernel(tvm_name(anchor), [*inputs, *fusion.extra], fusion.last.results[0], attrs)


def pool_attrs(op: relay.Pool2dOp) -> dict[str, Any]:
    padding = pool_padding(op)
    if padding is None:
        raise located_error(op, f"'{op.name}' op: ceil_mode with count_include_pad")
    attrs: dict[str, Any] = {
        "pool_size": list(op.pool_size.get_values()),
        "strides": list(op.strides.get_values()),
        "padding": list(padding),
        "dilation": list(op.dilation.get_values()),
    }
    if isinstance(op, relay.AvgPool2dOp):
        attrs["count_include_pad"] = bool(op.count_include_pad.value.data)
    return attrs


def emit_tuple_get_item(builder: GraphBuilder, op: relay.TupleGetItemOp) -> None:
    """No node: the item is one of a batch_norm's three values."""
    if op.tuple not in builder.tuples:
        raise located_error(op, f"'{op.name}' op: dnnl takes items of batch_norm only")
    builder.ids[op.results[0]] = builder.tuples[op.tuple][op.index.value.data]


def emit_batch_norm(builder: GraphBuilder, op: relay.BatchNormOp) -> None:
    attrs = {
        "epsilon": op.epsilon.value.data,
        "center": bool(op.center.value.data),
        "scale": bool(op.scale.value.data),
    }
    node = builder.kernel(tvm_name(op), op.operands, None, attrs, shape_of(op.data))
    # (out, mean, var): at inference the statistics pass through.
    builder.tuples[op.result] = [node, builder.node(op.moving_mean), builder.node(op.moving_var)]


def emit_matmul(builder: GraphBuilder, op: relay.MatmulOp | relay.BatchMatmulOp) -> None:
    """A `matmul` node; a transposed constant is stored transposed, a transposed value is
    read through a strided view by the runtime."""
    inputs: list[SSAValue | int] = []
    attrs: dict[str, Any] = {}
    flags = {"transpose_a": op.transpose_a.value.data, "transpose_b": op.transpose_b.value.data}
    for operand, (key, transpose) in zip(op.operands, flags.items(), strict=True):
        owner = operand.owner
        if transpose and isinstance(owner, relay.ConstOp):
            inputs.append(
                builder.constant(np.swapaxes(relay.numpy_from_dense(owner.value), -1, -2))
            )
            continue
        inputs.append(operand)
        if transpose:
            attrs[key] = True
    builder.kernel("matmul", inputs, op.result, attrs)


def emit_bias_add(builder: GraphBuilder, op: relay.BiasAddOp) -> None:
    """A binary add whose second operand is viewed with the bias along `axis`."""
    out = shape_of(op.result)
    rhs = [1] * len(out)
    rhs[op.axis.value.data % len(out)] = shape_of(op.bias)[0]
    builder.kernel("add", [op.data, op.bias], op.result, {"lhs_shape": out, "rhs_shape": rhs})


def emit_binary(builder: GraphBuilder, op: Operation) -> None:
    """The full-size operand first (oneDNN's src0), the other aligned to the result's rank."""
    operands = binary_operands(op)
    if operands is None:
        raise located_error(op, f"'{op.name}' op: the operands do not broadcast one way")
    out = shape_of(op.results[0])
    rhs = list(aligned(shape_of(operands[1]), len(out)))
    attrs = {"lhs_shape": out, "rhs_shape": rhs}
    builder.kernel(tvm_name(op), operands, op.results[0], attrs)


def emit_eltwise(builder: GraphBuilder, op: Operation) -> None:
    attrs = {k: v for k, v in (eltwise_post_op(op) or {}).items() if k != "op"}
    builder.kernel(tvm_name(op), op.operands, op.results[0], attrs)


def emit_pool2d(builder: GraphBuilder, op: relay.Pool2dOp) -> None:
    builder.kernel(tvm_name(op), op.operands, op.result, pool_attrs(op))


def emit_global_pool2d(builder: GraphBuilder, op: relay.GlobalPool2dOp) -> None:
    """A pooling whose window is the whole image."""
    h, w = shape_of(op.data)[2:]
    pool = "nn.max_pool2d" if isinstance(op, relay.GlobalMaxPool2dOp) else "nn.avg_pool2d"
    attrs = {"pool_size": [h, w], "strides": [1, 1], "padding": [0] * 4, "dilation": [1, 1]}
    builder.kernel(pool, op.operands, op.result, attrs)


def emit_axis_op(builder: GraphBuilder, op: relay.SoftmaxOp | relay.ConcatenateOp) -> None:
    rank = len(shape_of(op.result))
    builder.kernel(tvm_name(op), op.operands, op.result, {"axis": op.axis.value.data % rank})


BINARY_OPS = (
    relay.AddOp,
    relay.SubtractOp,
    relay.MultiplyOp,
    relay.DivideOp,
    relay.MaximumOp,
    relay.MinimumOp,
)
ELTWISE_OPS = (relay.ReluOp, relay.LeakyReluOp, relay.TanhOp, relay.SigmoidOp, relay.ClipOp)

# How each relay op (not absorbed by a conv2d or dense) becomes nodes.
EMITTERS: dict[type[Operation], Callable[[GraphBuilder, Any], None]] = {
    relay.ConstOp: lambda builder, op: None,  # a node where first used
    relay.TupleGetItemOp: emit_tuple_get_item,
    relay.BatchNormOp: emit_batch_norm,
    relay.BiasAddOp: emit_bias_add,
    relay.MatmulOp: emit_matmul,
    relay.BatchMatmulOp: emit_matmul,
    relay.MaxPool2dOp: emit_pool2d,
    relay.AvgPool2dOp: emit_pool2d,
    relay.GlobalMaxPool2dOp: emit_global_pool2d,
    relay.GlobalAvgPool2dOp: emit_global_pool2d,
    relay.SoftmaxOp: emit_axis_op,
    relay.ConcatenateOp: emit_axis_op,
    **dict.fromkeys(BINARY_OPS, emit_binary),
    **dict.fromkeys(ELTWISE_OPS, emit_eltwise),
}


def emit_op(builder: GraphBuilder, op: Operation) -> None:
    """One relay op that no conv2d or dense absorbed, as a kernel node."""
    emit = EMITTERS.get(type(op))
    if emit is None:
        raise located_error(op, f"'{op.name}' op is not supported by the dnnl codegen")
    emit(builder, op)


def check_supported(function: func.FuncOp) -> None:
    """Every op is one the predicates accept (or a constant, an item of a batch_norm)."""
    for op in function.body.block.ops:
        if isinstance(op, func.ReturnOp | relay.ConstOp | relay.TupleGetItemOp):
            continue
        predicate = PREDICATES.get(tvm_name(op))
        if not isinstance(op, relay.RelayOp) or predicate is None or not predicate(OpView(op)):
            raise located_error(
                op, f"'{op.name}' op is not supported by the dnnl codegen (see target.dnnl)"
            )


def graph_of(function: func.FuncOp) -> tuple[dict[str, Any], bytes]:
    """The JSON graph of a partitioned function and its weights blob."""
    check_supported(function)
    builder = GraphBuilder()
    block = function.body.block
    args = [
        builder.add(
            a,
            {
                "op": "input",
                "name": a.name_hint or f"input{i}",
                "shape": shape_of(a) or [1],
                "dtype": "float32",
            },
        )
        for i, a in enumerate(block.args)
    ]
    delayed: dict[Operation, Fusion] = {}  # the last op of a fusion -> the fusion
    absorbed: set[Operation] = set()
    heads: list[int] = []
    for op in block.ops:
        if op in delayed:
            emit_fusion(builder, delayed[op])
        elif op in absorbed:
            continue
        elif isinstance(op, func.ReturnOp):
            heads = [builder.node(v) for v in op.operands]
        elif isinstance(op, relay.Conv2dOp | relay.DenseOp):
            fusion = fuse(op)
            if not fusion.ops:
                emit_fusion(builder, fusion)
                continue
            # Emitted at the chain's last op, when every operand of the chain exists.
            absorbed.update(fusion.ops)
            delayed[fusion.last] = fusion
        else:
            emit_op(builder, op)
    graph = {"nodes": builder.nodes, "arg_nodes": args, "heads": heads}
    return graph, bytes(builder.weights)


# ---------------------------------------------------------------------------------------------
# The C translation unit


def weights_file(blob: bytes) -> Path:
    """`blob` as a file for `.incbin`: in the per-user cache, named by its hash (reused only when
    it holds exactly `blob`), else in a private temporary directory of this process."""
    name = f"dnnl-{hashlib.sha256(blob).hexdigest()[:32]}.bin"
    if user_cache.read(name) == blob:
        return user_cache.cache_dir() / name
    path = user_cache.write(name, blob)
    if path is None:
        path = Path(tempfile.mkdtemp(prefix="xtvm-dnnl-")) / name
        path.write_bytes(blob)
    return path


def assembler_string(text: str) -> str:
    """`text` as a GNU assembler string: `\\`, `"` and every byte outside printable ASCII
    escaped."""
    escaped = "".join(
        f"\\{chr(b)}" if chr(b) in '"\\' else chr(b) if 0x20 <= b < 0x7F else f"\\{b:03o}"
        for b in text.encode()
    )
    return f'"{escaped}"'


def c_source(symbol: str, graph: dict[str, Any], weights: Path, inputs: int, outputs: int) -> str:
    """A translation unit defining `void symbol(void *in0, ..., void *out0, ...)`."""
    incbin = c_string_literal(f"\t.incbin {assembler_string(str(weights.resolve()))}\n")
    blob = f"{symbol}_weights"
    params = [f"void *in{i}" for i in range(inputs)] + [f"void *out{i}" for i in range(outputs)]
    in_list = ", ".join(f"in{i}" for i in range(inputs)) or "0"
    out_list = ", ".join(f"out{i}" for i in range(outputs)) or "0"
    text = json.dumps(graph, separators=(",", ":"))
    chunks = [c_string_literal(text[i : i + 100]) for i in range(0, len(text), 100)] or ['""']
    return "\n".join(
        [
            f"/* oneDNN subgraph {symbol}: the graph JSON, its weights and a call into the",
            "   runtime (xtvm/backends/external/dnnl_runtime.c). */",
            "#include <stddef.h>",
            '#include "dnnl_runtime.h"',
            "",
            "__asm__(",
            '    "\\t.section .rodata.xtvm_dnnl,\\"a\\"\\n"',
            f'    "\\t.balign {WEIGHT_ALIGN}\\n"',
            f'    "\\t.globl {blob}\\n"',
            f'    "\\t.hidden {blob}\\n"',
            f'    "{blob}:\\n"',
            f"    {incbin}",
            '    "\\t.byte 0\\n"',
            '    "\\t.previous\\n");',
            f'extern const unsigned char {blob}[] __attribute__((visibility("hidden")));',
            "",
            "static const char graph_json[] =\n    " + "\n    ".join(chunks) + ";",
            "static xtvm_dnnl_graph *graph;",
            "",
            f"void {symbol}({', '.join(params) or 'void'}) {{",
            f"  void *inputs[] = {{{in_list}}};",
            f"  void *outputs[] = {{{out_list}}};",
            f'  xtvm_dnnl_run_or_abort("{symbol}", &graph, graph_json, {blob}, inputs, {inputs},',
            f"                         outputs, {outputs});",
            "}",
            "",
        ]
    )


def describe(graph: dict[str, Any]) -> str:
    """The graph JSON with one node per line, for `get_source()`."""
    nodes = ",\n".join(f"  {json.dumps(n)}" for n in graph["nodes"])
    rest = ", ".join(f'"{k}": {json.dumps(graph[k])}' for k in ("arg_nodes", "heads"))
    return f'{{"nodes": [\n{nodes}\n ],\n {rest}}}\n'


def symbol_of(function: func.FuncOp) -> str:
    attr = function.attributes.get("global_symbol")
    return getattr(attr, "data", None) or function.sym_name.data


@register_codegen("dnnl")
def dnnl_codegen(function: func.FuncOp, target: str) -> ExternalFunction:
    """The `dnnl` codegen: the function as a oneDNN JSON graph run by `dnnl_runtime.c`."""
    require_dnnl()
    symbol = check_symbol(symbol_of(function), "dnnl: the external function's symbol", function)
    graph, weights = graph_of(function)
    block = function.body.block
    results = function.function_type.outputs.data
    params = [
        Param(node["name"], "float32", tuple(shape_of(arg)))
        for node, arg in zip(
            (graph["nodes"][i] for i in graph["arg_nodes"]), block.args, strict=True
        )
    ]
    for i, typ in enumerate(results):
        if not isinstance(typ, TensorType):
            raise located_error(function, f"dnnl: result {i} is not a tensor")
        params.append(Param(f"out{i}", "float32", tuple(typ.get_shape())))
    source = c_source(symbol, graph, weights_file(weights), len(block.args), len(results))
    description = f"// {symbol}: oneDNN graph ({len(weights)} bytes of weights)\n"
    return ExternalFunction(
        symbol=symbol,
        params=params,
        c_source=source,
        include_dirs=(str(RUNTIME_DIR), *header_dirs()),
        extra_sources=(RUNTIME_SOURCE,),
        libraries=("dnnl",),
        description=description + describe(graph),
    )
