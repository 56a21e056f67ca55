"""Reductions: `relay.sum`, `relay.mean`, `relay.max`, `relay.min`, `relay.prod`,
`relay.argmax`, `relay.argmin`, with TVM's `axis`, `keepdims` and `exclude`."""

from __future__ import annotations

from collections.abc import Callable, Sequence

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
    op_class: type[d.ReduceOp],
    data: Expr,
    axis: Axis,
    keepdims: bool,
    exclude: bool,
    **attrs: object,
) -> Call:
    axes = reduce_axes(data, axis, exclude)
    return make_call(op_class, data, axis=axes, keepdims=keepdims, **attrs)


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
    return _reduce(
        d.ArgmaxOp, data, axis, keepdims, exclude, select_last_index=bool(select_last_index)
    )


def argmin(
    data: Expr,
    axis: Axis = None,
    keepdims: bool = False,
    exclude: bool = False,
    select_last_index: bool = False,
) -> Call:
    return _reduce(
        d.ArgminOp, data, axis, keepdims, exclude, select_last_index=bool(select_last_index)
    )


# TVM's statistical and boolean reductions, composed of the ops above: they type-check and
# compute as TVM's do (a `variance` call is a mean of squared deviations, and so on).


def _reduced_count(data: Expr, axis: Axis, exclude: bool) -> Expr:
    """How many elements each output of a reduction over `axis` takes, as a float scalar."""
    from xtvm.api.relay.op.tensor import cast, divide, ndarray_size

    dtype = _dtype(data)
    kept = sum(data, axis, keepdims=True, exclude=exclude)
    return divide(cast(ndarray_size(data), dtype), cast(ndarray_size(kept), dtype))


def _dtype(data: Expr) -> str:
    typ = data.checked_type
    if not isinstance(typ, TensorType):
        raise TypeError(f"a reduction needs a tensor, got {typ}")
    return typ.dtype


def variance(
    data: Expr,
    axis: Axis = None,
    keepdims: bool = False,
    exclude: bool = False,
    unbiased: bool = False,
    with_mean: Expr | None = None,
) -> Expr:
    """The mean squared deviation from the mean (from `with_mean` where given); `unbiased`
    divides by n - 1 in place of n."""
    from xtvm.api.relay.expr import const
    from xtvm.api.relay.op.tensor import divide, multiply, subtract

    m = mean(data, axis, keepdims=True, exclude=exclude) if with_mean is None else with_mean
    deviation = subtract(data, m)
    result = mean(multiply(deviation, deviation), axis, keepdims, exclude)
    if unbiased:
        n = _reduced_count(data, axis, exclude)
        result = multiply(result, divide(n, subtract(n, const(1.0, _dtype(data)))))
    return result


def std(
    data: Expr,
    axis: Axis = None,
    keepdims: bool = False,
    exclude: bool = False,
    unbiased: bool = False,
) -> Expr:
    """The square root of `variance`."""
    from xtvm.api.relay.op.tensor import sqrt

    return sqrt(variance(data, axis, keepdims, exclude, unbiased))


def mean_variance(
    data: Expr,
    axis: Axis = None,
    keepdims: bool = False,
    exclude: bool = False,
    unbiased: bool = False,
) -> Expr:
    """(mean, variance) of `data` over `axis`, as a tuple."""
    from xtvm.api.relay.expr import Tuple

    m = mean(data, axis, keepdims, exclude)
    return Tuple([m, variance(data, axis, keepdims, exclude, unbiased)])


def mean_std(
    data: Expr,
    axis: Axis = None,
    keepdims: bool = False,
    exclude: bool = False,
    unbiased: bool = False,
) -> Expr:
    """(mean, standard deviation) of `data` over `axis`, as a tuple."""
    from xtvm.api.relay.expr import Tuple

    m = mean(data, axis, keepdims, exclude)
    return Tuple([m, std(data, axis, keepdims, exclude, unbiased)])


def _boolean(
    reduce: Callable[..., Expr], data: Expr, axis: Axis, keepdims: bool, exclude: bool
) -> Expr:
    from xtvm.api.relay.op.tensor import cast

    if _dtype(data) != "bool":
        raise TypeError(f"all/any reduce booleans, got {_dtype(data)}")
    return cast(reduce(cast(data, "int8"), axis, keepdims, exclude), "bool")


def all(data: Expr, axis: Axis = None, keepdims: bool = False, exclude: bool = False) -> Expr:
    """Whether every element over `axis` is true (a logical and)."""
    return _boolean(min, data, axis, keepdims, exclude)


def any(data: Expr, axis: Axis = None, keepdims: bool = False, exclude: bool = False) -> Expr:
    """Whether some element over `axis` is true (a logical or)."""
    return _boolean(max, data, axis, keepdims, exclude)


def logsumexp(data: Expr, axis: Axis = None, keepdims: bool = False) -> Expr:
    """log(sum(exp(data))) over `axis`, computed from the maximum so that it does not
    overflow."""
    from xtvm.api.relay.op.tensor import add, exp, log, subtract
    from xtvm.api.relay.op.transform import squeeze

    peak = max(data, axis, keepdims=True)
    result = add(log(sum(exp(subtract(data, peak)), axis, keepdims=True)), peak)
    if keepdims:
        return result
    axes = None if axis is None else [axis] if isinstance(axis, int) else list(axis)
    return squeeze(result, axes)
