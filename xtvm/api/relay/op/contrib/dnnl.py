"""TVM's `relay.op.contrib.dnnl`: partitioning a relay module for the oneDNN codegen
(xtvm/backends/external/dnnl.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from xtvm.api.relay import transform
from xtvm.api.relay.dataflow_pattern import DFPattern, is_op, wildcard
from xtvm.api.relay.expr import Call, Expr, Op
from xtvm.api.relay.op.contrib.register import register_pattern_table
from xtvm.api.relay.ty import TensorType
from xtvm.api.transform import PassContext, Sequential
from xtvm.backends.external.dnnl import register_dnnl_ops
from xtvm.driver.relay_build import bind_params


def partition_for_dnnl(mod: Any, params: Any = None, simplify: bool = True) -> Any:
    """TVM's `partition_for_dnnl`: bind `params`, then annotate, merge and partition for dnnl.

    With `simplify` (the default) batch norms become a multiply and an add first, folded into
    the convolution weights and biases (SimplifyInference, FoldConstant, FoldScaleAxis), so a
    conv2d-batch_norm-relu is one oneDNN convolution with a bias and a relu post-op.
    """
    register_dnnl_ops()  # again, in case a test unregistered the target
    mod = mod.copy()
    if params:
        bind_params(mod.xdsl, {k: np.asarray(getattr(v, "_data", v)) for k, v in params.items()})
    passes = []
    if simplify:
        passes += [
            transform.SimplifyInference(),
            transform.FoldConstant(),
            transform.FoldScaleAxis(),
            transform.FoldConstant(),
        ]
    passes += [
        transform.AnnotateTarget(["dnnl"]),
        transform.MergeCompilerRegions(),
        transform.PartitionGraph(),
    ]
    # As TVM's helper: at opt_level 3, where FoldScaleAxis runs.
    with PassContext(opt_level=3):
        return Sequential(passes)(mod)


# ---------------------------------------------------------------------------------------------
# TVM's dnnl pattern table (MergeComposite): a conv2d or dense with its bias (an `add`, after
# CanonicalizeOps), a residual sum, and an element-wise post-op, each one composite function


POST_OPS = ("nn.relu", "tanh", "sigmoid", "clip", "gelu", "swish", "mish", None)


def append_eltwise_ops(op: DFPattern, eltwise: str | None) -> DFPattern:
    """`op` followed by the post-op `eltwise` (gelu, swish and mish as their formulas)."""
    if eltwise == "gelu":
        div = is_op("divide")(op, wildcard())
        added = is_op("add")(is_op("erf")(div), wildcard())
        return is_op("multiply")(is_op("multiply")(op, added), wildcard())
    if eltwise == "swish":
        return is_op("multiply")(op, is_op("sigmoid")(op))
    if eltwise == "mish":
        softplus = is_op("log")(is_op("add")(is_op("exp")(op), wildcard()))
        return is_op("multiply")(op, is_op("tanh")(softplus))
    return op if eltwise is None else is_op(eltwise)(op)


def make_conv_pattern(
    conv_name: str, with_bias: bool = True, with_eltwise: str | None = None
) -> DFPattern:
    out = is_op(conv_name)(wildcard(), wildcard())
    if with_bias:
        out = is_op("add")(out, wildcard())
    return append_eltwise_ops(out, with_eltwise)


def make_dense_pattern(with_bias: bool = True, with_eltwise: str | None = None) -> DFPattern:
    out = is_op("nn.dense")(wildcard(), wildcard())
    if with_bias:
        out = is_op("add")(out, wildcard())
    return append_eltwise_ops(out, with_eltwise)


def make_conv_bias_sum_relu_pattern(conv_type: str, has_relu: bool = True) -> DFPattern:
    out = is_op("add")(is_op(conv_type)(wildcard(), wildcard()), wildcard())
    out = is_op("add")(out, wildcard())
    return is_op("nn.relu")(out) if has_relu else out


def _shape(expr: Expr) -> tuple[int, ...]:
    typ = expr.checked_type
    return tuple(int(d) for d in typ.shape) if isinstance(typ, TensorType) else ()


def _is_call_of(expr: Expr, name: str) -> bool:
    return isinstance(expr, Call) and isinstance(expr.op, Op) and expr.op.name == name


def _is_bias(add: Expr) -> bool:
    """TVM's add_checker for a bias: the add's first operand is a conv2d and its second has
    one value per output channel."""
    if not (isinstance(add, Call) and add.args and _is_call_of(add.args[0], "nn.conv2d")):
        return False
    conv = add.args[0]
    assert isinstance(conv, Call)
    layout = str(conv.attrs.get("data_layout", "NCHW"))
    channels = _shape(conv)[layout.index("C")]
    return channels == int(np.prod(_shape(add.args[1]), dtype=np.int64))


def _bias_check(expr: Expr) -> bool:
    if _is_call_of(expr, "nn.relu"):
        expr = expr.args[0]  # type: ignore[attr-defined]
    return not _is_call_of(expr, "add") or _is_bias(expr)


def _sum_check(expr: Expr) -> bool:
    """The residual add sums two tensors of one shape, after the bias add."""
    if _is_call_of(expr, "nn.relu"):
        expr = expr.args[0]  # type: ignore[attr-defined]
    assert isinstance(expr, Call)
    inner = expr.args[0]
    return _is_call_of(inner, "add") and _shape(inner) == _shape(expr.args[1]) and _is_bias(inner)


def make_dnnl_pattern(op_name: str, with_bias: bool, with_eltwise: str | None) -> tuple[Any, ...]:
    """`(name, pattern[, check])`, named as TVM does (`dnnl.conv2d_bias_relu`)."""
    name = op_name.replace("nn", "dnnl")
    if "_transpose" in op_name:
        name = "dnnl.deconv" + op_name.split("_")[0][-2:]
    name += "_bias" if with_bias else ""
    name += ("_" + with_eltwise.split(".")[-1]) if with_eltwise else ""
    if "conv" in op_name:
        return (name, make_conv_pattern(op_name, with_bias, with_eltwise), _bias_check)
    return (name, make_dense_pattern(with_bias, with_eltwise))


@register_pattern_table("dnnl")
def pattern_table() -> list[tuple[Any, ...]]:
    """TVM's dnnl patterns for the ops xtvm's dnnl codegen takes (conv2d, conv2d_transpose,
    dense; not conv1d, conv3d or the quantized ones), in TVM's order."""
    patterns: list[tuple[Any, ...]] = [
        ("dnnl.conv2d_bias_sum_relu", make_conv_bias_sum_relu_pattern("nn.conv2d"), _sum_check),
        ("dnnl.conv2d_bias_sum", make_conv_bias_sum_relu_pattern("nn.conv2d", False), _sum_check),
    ]
    for with_bias in (True, False):
        for elt in POST_OPS:
            if not with_bias and not elt:
                continue
            for conv_name in ("nn.conv2d", "nn.conv2d_transpose"):
                patterns.append(make_dnnl_pattern(conv_name, with_bias, elt))
            patterns.append(make_dnnl_pattern("nn.dense", with_bias, elt))
    return patterns
