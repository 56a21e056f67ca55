"""The ONNX gather/scatter family, scans and index ranges: GatherND, ScatterND,
GatherElements, ScatterElements (and its old name Scatter), CumSum, Trilu and Range.

ONNX lays an index tuple along the last axis of GatherND/ScatterND indices and TVM along the
first, so those indices are transposed; ONNX allows negative indices and the relay ops do not,
so they are wrapped first (in numpy when the indices are constants, which also checks their
range, else with `where`). Attributes that relay needs statically (CumSum's axis, Trilu's k,
Range's bounds) must be known at import time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from xtvm.dialects import relay
from xtvm.frontends.onnx.context import ConversionError, Converter, NodeContext
from xtvm.frontends.onnx.converters import Outputs, norm_axis, transpose

REDUCTIONS = {"none": "update", "add": "add", "mul": "mul", "max": "max", "min": "min"}


def wrapped_indices(c: NodeContext, i: int, sizes: Sequence[int]) -> SSAValue:
    """Input `i` with negative indices counted from the end of `sizes` (one size per entry
    of the last axis, or one for all); constant indices are also checked against the range."""
    bound = np.array(sizes, dtype=np.int64)
    indices = c.const(i)
    if indices is not None:
        if indices.dtype.kind not in "iu":
            raise ConversionError(f"indices must be integers, got {indices.dtype}")
        wide = indices.astype(np.int64)
        bad = (wide < -bound) | (wide >= bound)
        if indices.size and bad.any():
            position = tuple(int(p) for p in np.argwhere(bad)[0])
            limit = np.broadcast_to(bound, wide.shape)[position]
            raise ConversionError(
                f"index {int(wide[position])} at {list(position)} is out of range for a "
                f"dimension of size {int(limit)}"
            )
        return c.lift(np.where(wide < 0, wide + bound, wide).astype(indices.dtype))
    x, dtype = c.value(i), c.dtype(i)
    if dtype.kind not in "iu":
        raise ConversionError(f"indices must be integers, got {dtype}")
    if dtype.kind == "u":
        return x
    negative = c.emit(relay.LessOp(x, c.lift(np.zeros((), dtype))))
    shifted = c.emit(relay.AddOp(x, c.lift(bound.astype(dtype))))
    return c.emit(relay.WhereOp(negative, shifted, x))


def tuples_first(c: NodeContext, indices: SSAValue) -> SSAValue:
    """ONNX's (..., M) index tuples as TVM's (M, ...)."""
    rank = len(indices.type.get_shape())  # type: ignore[attr-defined]
    return transpose(c, indices, [rank - 1, *range(rank - 1)])


def nd_indices(c: NodeContext, batch_dims: int) -> SSAValue:
    """GatherND/ScatterND indices (input 1), wrapped and with the tuples on axis 0."""
    data, index_shape = c.shape(0), c.shape(1)
    if not index_shape:
        raise ConversionError("indices must have rank 1 or more")
    m = index_shape[-1]
    if not 0 <= batch_dims < min(len(index_shape), len(data) + 1) or batch_dims + m > len(data):
        raise ConversionError(
            f"indices of shape {list(index_shape)} with batch_dims {batch_dims} do not fit data "
            f"of shape {list(data)}"
        )
    if m == 0:
        raise ConversionError("index tuples of length 0 are not supported")
    return tuples_first(c, wrapped_indices(c, 1, data[batch_dims : batch_dims + m]))


def gather_nd(c: NodeContext) -> Outputs:
    batch_dims = c.int_attr("batch_dims", 0)
    indices = nd_indices(c, batch_dims)
    return [c.emit(relay.GatherNdOp(c.value(0), indices, batch_dims))]


def reduction(c: NodeContext) -> str:
    name = c.str_attr("reduction", "none")
    if name not in REDUCTIONS:
        raise ConversionError(
            f"reduction '{name}' is not supported (one of {', '.join(REDUCTIONS)})"
        )
    return REDUCTIONS[name]


def scatter_nd(c: NodeContext) -> Outputs:
    indices = nd_indices(c, 0)
    return [c.emit(relay.ScatterNdOp(c.value(0), indices, c.value(2), reduction(c)))]


def elements_axis(c: NodeContext) -> int:
    rank = c.rank(0)
    if c.rank(1) != rank:
        raise ConversionError(f"indices rank {c.rank(1)} differs from data rank {rank}")
    return norm_axis(c.int_attr("axis", 0), rank)


def gather_elements(c: NodeContext) -> Outputs:
    axis = elements_axis(c)
    indices = wrapped_indices(c, 1, [c.shape(0)[axis]])
    return [c.emit(relay.GatherOp(c.value(0), indices, axis))]


def scatter_elements(c: NodeContext) -> Outputs:
    axis = elements_axis(c)
    indices = wrapped_indices(c, 1, [c.shape(0)[axis]])
    op = relay.ScatterElementsOp(c.value(0), indices, c.value(2), axis, reduction(c))
    return [c.emit(op)]


def cumsum(c: NodeContext) -> Outputs:
    axis_value = c.static(1, "axis").reshape(-1)
    if axis_value.size != 1:
        raise ConversionError(f"axis must be a single integer, got {axis_value.tolist()}")
    shape = c.shape(0)
    axis = norm_axis(int(axis_value[0]), len(shape))
    exclusive = bool(c.int_attr("exclusive", 0))
    x = c.value(0)

    def flip(v: SSAValue) -> SSAValue:
        return c.emit(relay.StridedSliceOp(v, [-1], [-(shape[axis] + 1)], [-1], axes=[axis]))

    if c.int_attr("reverse", 0):
        return [flip(c.emit(relay.CumsumOp(flip(x), axis, exclusive)))]
    return [c.emit(relay.CumsumOp(x, axis, exclusive))]


def trilu(c: NodeContext) -> Outputs:
    if c.rank(0) < 2:
        raise ConversionError(f"input must have rank 2 or more, got {list(c.shape(0))}")
    k = c.static(1, "k").reshape(-1) if c.has(1) else np.zeros(1, np.int64)
    if k.size != 1:
        raise ConversionError(f"k must be a single integer, got {k.tolist()}")
    upper = bool(c.int_attr("upper", 1))
    # k beyond the matrix keeps everything or nothing; relay's k is an i64 like ONNX's.
    return [c.emit(relay.TriluOp(c.value(0), int(k[0]), upper))]


def range_op(c: NodeContext) -> Outputs:
    """A constant: shapes are static, so start, limit and delta must be known at import."""
    start, limit, delta = (c.static(i, name) for i, name in enumerate(("start", "limit", "delta")))
    if any(v.size != 1 for v in (start, limit, delta)):
        raise ConversionError("start, limit and delta must be scalars")
    if delta.item() == 0:
        raise ConversionError("delta must not be 0")
    count = max(math.ceil((limit.item() - start.item()) / delta.item()), 0)
    dtype = start.dtype
    return [(start.item() + np.arange(count) * delta.item()).astype(dtype)]


CONVERTERS: dict[str, Converter] = {
    "GatherND": gather_nd,
    "ScatterND": scatter_nd,
    "GatherElements": gather_elements,
    "ScatterElements": scatter_elements,
    "Scatter": scatter_elements,
    "CumSum": cumsum,
    "Trilu": trilu,
    "Range": range_op,
}
