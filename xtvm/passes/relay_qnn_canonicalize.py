"""`relay-qnn-canonicalize`: rewrite the quantized ops (`relay.qnn.*`) into ordinary relay ops,
as TVM's QNN Legalize and CanonicalizeOps do before a build.

Each becomes integer and float arithmetic with the same results as TVM's:
- quantize: `clip(round(x / scale) + zero_point)` cast to out_dtype, halves away from zero;
- dequantize: `(q - zero_point) * scale` in float32;
- requantize: `round((q - zp_in) * scale_in / scale_out) + zp_out`, clipped, computed in
  float64 (TVM's fixed-point multiply approximates the same ratio), halves upward (UPWARD,
  the default) or away from zero (TONEAREST);
- qnn.conv2d and qnn.dense: the float op's arithmetic on int32 tensors less their zero points
  (TVM's four-term expansion computes the same sum; padding the shifted data with zeros is
  padding the data with its zero point);
- qnn.concatenate: each input requantized to the output's parameters, then concatenated;
- qnn.add: both operands requantized to the output's parameters, summed, less one output
  zero point; qnn.mul: the product of the shifted operands requantized from the product of
  their scales.
A per-channel scale or zero point (a vector) broadcasts along its op's `axis`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import IntegerType, ModuleOp, StringAttr, TensorType, TupleType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from xtvm.dialects import relay
from xtvm.ir.numpy_types import numpy_dtype
from xtvm.passes.external_functions import host_functions


class Builder:
    """Inserts relay ops before the op being rewritten."""

    def __init__(self, rewriter: PatternRewriter) -> None:
        self.rewriter = rewriter

    def __call__(self, op: Operation) -> SSAValue:
        self.rewriter.insert(op)
        return op.results[0]

    def const(self, value: float, dtype: str) -> SSAValue:
        return self(relay.ConstOp(np.array(value, dtype=dtype)))

    def cast(self, value: SSAValue, dtype: str) -> SSAValue:
        if element_name(value) == dtype:
            return value
        return self(relay.CastOp(value, dtype=dtype))

    def along(self, value: SSAValue, axis: int, rank: int) -> SSAValue:
        """A scalar as it is; a per-channel vector shaped to broadcast along `axis`."""
        typ = value.type
        assert isinstance(typ, TensorType)
        if typ.get_num_dims() == 0 or rank <= 1:
            return value
        trailing = rank - 1 - axis % rank
        if not trailing:
            return value
        return self(relay.ExpandDimsOp(value, axis=1, num_newaxis=trailing))

    def fields(self, value: SSAValue) -> list[SSAValue]:
        """The fields of a tuple value: a tuple op's operands, or one get-item each."""
        owner = value.owner
        if isinstance(owner, relay.TupleOp):
            return list(owner.operands)
        typ = value.type
        assert isinstance(typ, TupleType)
        return [self(relay.TupleGetItemOp(value, i)) for i in range(len(typ.types))]

    def shifted(self, value: SSAValue, zero_point: SSAValue, axis: int) -> SSAValue:
        """`value - zero_point` in int32."""
        rank = tensor(value).get_num_dims()
        zp = self.along(self.cast(zero_point, "int32"), axis, rank)
        return self(relay.SubtractOp(self.cast(value, "int32"), zp))

    def rounded(self, value: SSAValue, mode: str) -> SSAValue:
        """Round to an integer value: halves upward (UPWARD) or away from zero (TONEAREST)."""
        half = self.const(0.5, element_name(value))
        if mode == "UPWARD":
            return self(relay.FloorOp(self(relay.AddOp(value, half))))
        magnitude = self(relay.FloorOp(self(relay.AddOp(self(relay.AbsOp(value)), half))))
        return self(relay.MultiplyOp(self(relay.SignOp(value)), magnitude))

    def saturated(self, value: SSAValue, dtype: str) -> SSAValue:
        """`value` clipped to the range of integer type `dtype` and cast to it."""
        info = np.iinfo(dtype)
        clipped = self(relay.ClipOp(value, a_min=float(info.min), a_max=float(info.max)))
        return self.cast(clipped, dtype)

    def requantized(
        self,
        data: SSAValue,
        scales: tuple[SSAValue, SSAValue],
        zero_points: tuple[SSAValue, SSAValue],
        axis: int,
        mode: str,
    ) -> SSAValue:
        """`data` moved from (scale, zero point) [0] to [1], rounded, as float64 values."""
        rank = tensor(data).get_num_dims()
        shifted = self.cast(self.shifted(data, zero_points[0], axis), "float64")
        scale_in = self.along(self.cast(scales[0], "float64"), axis, rank)
        scale_out = self.along(self.cast(scales[1], "float64"), axis, rank)
        ratio = self(relay.DivideOp(scale_in, scale_out))
        value = self.rounded(self(relay.MultiplyOp(shifted, ratio)), mode)
        zp_out = self.along(self.cast(zero_points[1], "float64"), axis, rank)
        return self(relay.AddOp(value, zp_out))


def tensor(value: SSAValue) -> TensorType:
    typ = value.type
    assert isinstance(typ, TensorType)
    return typ


def element_name(value: SSAValue) -> str:
    return str(numpy_dtype(tensor(value).get_element_type()))


def dtype_name(attr: Attribute) -> str:
    assert isinstance(attr, IntegerType)
    return str(numpy_dtype(attr))


def rounding_mode(op: relay.RelayOp) -> str:
    attr = op.properties["rounding"]
    assert isinstance(attr, StringAttr)
    return "UPWARD" if attr.data == "None" else attr.data


def integer(op: relay.RelayOp, name: str) -> int:
    value = op.attr_values()[name]
    assert isinstance(value, int)
    return value


class CanonicalizeQnn(RewritePattern):
    """One quantized op as ordinary relay ops."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        b = Builder(rewriter)
        if isinstance(op, relay.QuantizeOp):
            data, scale, zero_point = op.operands
            rank, axis = tensor(data).get_num_dims(), integer(op, "axis")
            scaled = b(relay.DivideOp(data, b.along(b.cast(scale, element_name(data)), axis, rank)))
            zp = b.along(b.cast(zero_point, element_name(data)), axis, rank)
            value = b(relay.AddOp(b.rounded(scaled, "TONEAREST"), zp))
            result = b.saturated(value, dtype_name(op.properties["out_dtype"]))
        elif isinstance(op, relay.DequantizeOp):
            data, scale, zero_point = op.operands
            rank, axis = tensor(data).get_num_dims(), integer(op, "axis")
            shifted = b.cast(b.shifted(data, zero_point, axis), "float32")
            result = b(relay.MultiplyOp(shifted, b.along(scale, axis, rank)))
        elif isinstance(op, relay.RequantizeOp):
            data, in_scale, in_zp, out_scale, out_zp = op.operands
            value = b.requantized(
                data, (in_scale, out_scale), (in_zp, out_zp), integer(op, "axis"), rounding_mode(op)
            )
            result = b.saturated(value, dtype_name(op.properties["out_dtype"]))
        elif isinstance(op, relay.QnnAddOp | relay.QnnMulOp):
            result = self.binary(b, op)
        elif isinstance(op, relay.QnnConcatenateOp):
            data, scales, zero_points = (b.fields(v) for v in op.operands[:3])
            out_scale, out_zp = op.operands[3:]
            parts = [
                b.saturated(
                    b.requantized(x, (s, out_scale), (z, out_zp), -1, "UPWARD"), element_name(x)
                )
                for x, s, z in zip(data, scales, zero_points, strict=True)
            ]
            result = b(relay.ConcatenateOp(parts, axis=integer(op, "axis")))
        elif isinstance(op, relay.QnnConv2dOp | relay.QnnDenseOp):
            data, weight, in_zp, kernel_zp = op.operands[:4]
            out_dtype = dtype_name(op.properties["out_dtype"])
            lhs = b.shifted(data, in_zp, 1)
            kernel_axis = 0
            if isinstance(op, relay.QnnConv2dOp):
                layout = op.attr_values()["kernel_layout"]
                assert isinstance(layout, str)
                kernel_axis = layout.index("O")
            rhs = b.shifted(weight, kernel_zp, kernel_axis)
            if isinstance(op, relay.QnnConv2dOp):
                values = op.attr_values()
                attrs = {k: values[k] for k in (a.name for a in relay.Conv2dOp.ATTRS)}
                product = b(relay.Conv2dOp(lhs, rhs, **attrs))
            else:
                product = b(relay.DenseOp(lhs, rhs))
            result = b.cast(product, out_dtype)
        else:
            return
        rewriter.replace(op, [], [result])

    @staticmethod
    def binary(b: Builder, op: relay.RelayOp) -> SSAValue:
        lhs, rhs, lhs_scale, lhs_zp, rhs_scale, rhs_zp, out_scale, out_zp = op.operands
        lhs_axis, rhs_axis = integer(op, "lhs_axis"), integer(op, "rhs_axis")
        out_dtype = element_name(lhs)
        if isinstance(op, relay.QnnAddOp):
            left = b.requantized(lhs, (lhs_scale, out_scale), (lhs_zp, out_zp), lhs_axis, "UPWARD")
            right = b.requantized(rhs, (rhs_scale, out_scale), (rhs_zp, out_zp), rhs_axis, "UPWARD")
            total = b(relay.AddOp(left, right))
            value = b(relay.SubtractOp(total, b.cast(out_zp, "float64")))
            return b.saturated(value, out_dtype)
        product = b(
            relay.MultiplyOp(b.shifted(lhs, lhs_zp, lhs_axis), b.shifted(rhs, rhs_zp, rhs_axis))
        )
        scale = b(relay.MultiplyOp(lhs_scale, rhs_scale))
        zero = b.const(0, "int32")
        value = b.requantized(product, (scale, out_scale), (zero, out_zp), -1, "UPWARD")
        return b.saturated(value, out_dtype)


@dataclass(frozen=True)
class RelayQnnCanonicalizePass(ModulePass):
    """Rewrite every `relay.qnn.*` op into ordinary relay ops."""

    name = "relay-qnn-canonicalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in host_functions(op):
            PatternRewriteWalker(CanonicalizeQnn()).rewrite_region(function.body)
