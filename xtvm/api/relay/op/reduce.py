"""Reductions: `relay.sum`, `relay.mean`, `relay.max`, `relay.min`, `relay.prod`,
`relay.argmax`, `relay.argmin`, with TVM's `axis`, `keepdims` and `exclude`."""

from __future__ import annotations

from collections.abc import Sequence

from xtvm.api.relay.expr import Call, Expr, make_call
from xtvm.api.relay.ty import TensorType
from xtvm.dialects import relay as d

Axis = int | Sequence[int] | None


def reduce_axes(data: Expr, axis: Axis, exclude: bool) -> int | Sequence[int] | None:
    """The axes to reduce; with `exclude`, every axis not named."""
    if not exclude:
        return axis
    typ = data.checked_type
    assert isinstance(typ, TensorType)
    rank = len(typ.shape)
    named = {a % rank for a in ([] if axis is None else [axis] if isinstance(axis, int) else axis)}
    return [a for a in range(rank) if a not in named]


def _reduce(
    op_class: type[d.ReduceOp], data: Expr, axis: Axis, keepdims: bool, exclude: bool
) -> Call:
    axes = reduce_axes(data, axis, exclude)
    return make_call(op_class, data, axis=axes, keepdims=keepdims)


def sum(data: Expr, axis: Axis = None, keepdims: bool = False, exclude: bool = False) -> Call:
    return _reduce(d.SumOp, data, axis, keepdims, exclude)


def mean(data: Expr, axis: Axis = None, keepdims: bool = False, exclude: bool = False) -> Call:
    return _reduce(d.MeanOp, data, axis, keepdims, exclude)


def max(data: Expr, axis: Axis = None, keepdims: bool = False, exclude: bool = False) -> Call:
    return _reduce(d.MaxOp, data, axis, keepdims, exclude)


def min(data: Expr, axis: Axis = None, keepdims: bool = False, exclude: bool = False) -> Call:
    return _reduce(d.MinOp, data, axis, keepdims, exclude)


def prod(data: Expr, axis: Axis = None, keepdims: bool = False, exclude: bool = False) -> Call:
    return _reduce(d.ProdOp, data, axis, keepdims, exclude)


def argmax(
    data: Expr,
    axis: Axis = None,
    keepdims: bool = False,
    exclude: bool = False,
    select_last_index: bool = False,
) -> Call:
    if select_last_index:
        raise ValueError("argmax: select_last_index is not supported")
    return _reduce(d.ArgmaxOp, data, axis, keepdims, exclude)


def argmin(
    data: Expr,
    axis: Axis = None,
    keepdims: bool = False,
    exclude: bool = False,
    select_last_index: bool = False,
) -> Call:
    if select_last_index:
        raise ValueError("argmin: select_last_index is not supported")
    return _reduce(d.ArgminOp, data, axis, keepdims, exclude)
