"""TOPI's reductions over axes: sum, mean, max, min, prod, and argmax/argmin.

A reduction is one `te.compute` whose body is a `te.reduce` over the reduced axes (all of
them when `axes` is None), keeping them as size 1 with `keepdims`. Sums accumulate in
`accumulator(dtype)`; integer means truncate, as the interpreter's cast of numpy's mean does.
argmax is two stages, as te reductions combine one value: the extreme value, then the smallest
row-major position holding it (numpy's first occurrence).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xtvm import te
from xtvm.te.expr import PrimExpr
from xtvm.topi.nn import narrowed, summed
from xtvm.topi.tensor import TensorLike, is_float, ravel, static_shape

Index = PrimExpr | int


def reduced_shape(shape: Sequence[int], axes: Sequence[int], keepdims: bool) -> list[int]:
    return [1 if a in axes else d for a, d in enumerate(shape) if keepdims or a not in axes]


def reduce(
    x: TensorLike,
    axes: Sequence[int] | None,
    keepdims: bool,
    combine: Callable[[PrimExpr, list[te.IterVar]], PrimExpr],
    name: str,
) -> te.Tensor:
    """`combine(element, reduce_axes)` over `axes` of `x` (every axis when None)."""
    shape = static_shape(x)
    axes = tuple(range(len(shape))) if axes is None else tuple(a % len(shape) for a in axes)
    if not axes:  # nothing to reduce: numpy gives the elements themselves
        return te.compute(x.shape, lambda *i: x(*i), name=name, tag="injective")
    rv = {a: te.reduce_axis((0, shape[a]), f"k{a}") for a in axes}

    def body(*i: PrimExpr) -> PrimExpr:
        kept = iter(i)
        at: list[Index] = []
        for a in range(len(shape)):
            if a in rv:
                at.append(rv[a])
                if keepdims:
                    next(kept)
            else:
                at.append(next(kept))
        return combine(x(*at), list(rv.values()))

    return te.compute(reduced_shape(shape, axes, keepdims), body, name=name, tag="comm_reduce")


def sum(x: TensorLike, axes: Sequence[int] | None, keepdims: bool) -> te.Tensor:
    return narrowed(reduce(x, axes, keepdims, summed, "T_sum"), x.dtype)


def mean(x: TensorLike, axes: Sequence[int] | None, keepdims: bool) -> te.Tensor:
    shape = static_shape(x)
    count = 1
    for a in range(len(shape)) if axes is None else axes:
        count *= shape[a % len(shape)]
    total = reduce(x, axes, keepdims, summed, "T_mean_sum")
    divisor = float(count) if is_float(total.dtype) else count  # integers truncate
    return te.compute(
        total.shape,
        lambda *i: (total(*i) / divisor).astype(x.dtype),
        name="T_mean",
        tag="injective",
    )


def max(x: TensorLike, axes: Sequence[int] | None, keepdims: bool) -> te.Tensor:
    return reduce(x, axes, keepdims, lambda v, k: te.max(v, axis=k), "T_max")


def min(x: TensorLike, axes: Sequence[int] | None, keepdims: bool) -> te.Tensor:
    return reduce(x, axes, keepdims, lambda v, k: te.min(v, axis=k), "T_min")


def prod(x: TensorLike, axes: Sequence[int] | None, keepdims: bool) -> te.Tensor:
    return reduce(x, axes, keepdims, lambda v, k: te.prod(v, axis=k), "T_prod")


def arg_extreme(
    x: TensorLike, axes: Sequence[int] | None, keepdims: bool, largest: bool, last: bool = False
) -> te.Tensor:
    """argmax (largest) or argmin as i32 over `axes` (all when None): the row-major offset
    within the reduced axes, in increasing order, of the first extreme (the last with
    `last`)."""
    shape = static_shape(x)
    axes = (
        tuple(range(len(shape))) if axes is None else tuple(sorted({a % len(shape) for a in axes}))
    )
    extreme = reduce(
        x,
        axes,
        True,
        (lambda v, k: te.max(v, axis=k)) if largest else (lambda v, k: te.min(v, axis=k)),
        "T_argmax_value" if largest else "T_argmin_value",
    )
    rv = {a: te.reduce_axis((0, shape[a]), f"k{a}") for a in axes}
    positions = [shape[a] for a in axes]
    not_found = 1
    for d in positions:
        not_found *= d

    def body(*i: PrimExpr) -> PrimExpr:
        kept = iter(i)
        at: list[Index] = []
        at_extreme: list[Index] = []
        for a in range(len(shape)):
            if a in rv:
                at.append(rv[a])
                at_extreme.append(0)
                if keepdims:
                    next(kept)
            else:
                index = next(kept)
                at.append(index)
                at_extreme.append(index)
        position = ravel([rv[a] for a in axes], positions)
        hit = x(*at).equal(extreme(*at_extreme))
        if last:
            return te.max(te.if_then_else(hit, position, -1), axis=list(rv.values()))
        return te.min(te.if_then_else(hit, position, not_found), axis=list(rv.values()))

    name = "T_argmax" if largest else "T_argmin"
    return te.compute(reduced_shape(shape, axes, keepdims), body, name=name, tag="comm_reduce")
