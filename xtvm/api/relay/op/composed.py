"""TVM's transform operators that xtvm builds from other ops: with static shapes, `stack`,
`repeat`, `reverse`, `reshape_like`, `meshgrid` and `arange` are each a few expand_dims,
broadcasts, reshapes, takes or a constant. They type-check and compute as TVM's; the printed
program shows the ops they are made of."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xtvm.api.relay.expr import Constant, Expr, Tuple, TupleGetItem, const
from xtvm.api.relay.op.transform import broadcast_to, concatenate, expand_dims, reshape, take
from xtvm.api.relay.ty import TensorType, TupleType, dtype_name


def known_shape(data: Expr, op: str) -> tuple[int, ...]:
    """The static shape of tensor `data`; a symbolic dimension is a `TypeError` naming `op`."""
    typ = data.checked_type
    if not isinstance(typ, TensorType):
        raise TypeError(f"{op}: expected a tensor, got {typ}")
    dims = []
    for dim in typ.shape:
        value = getattr(dim, "value", dim)
        if not isinstance(value, int | np.integer):
            raise TypeError(f"{op}: needs static shapes, got dimension {dim} of {typ}")
        dims.append(int(value))
    return tuple(dims)


def _fields(data: Expr | Sequence[Expr], op: str) -> list[Expr]:
    if isinstance(data, Tuple):
        return list(data.fields)
    if isinstance(data, Expr):
        typ = data.checked_type
        if not isinstance(typ, TupleType):
            raise TypeError(f"{op}: expected a tuple of tensors, got {typ}")
        return [TupleGetItem(data, i) for i in range(len(typ.fields))]
    return list(data)


def stack(data: Expr | Sequence[Expr], axis: int) -> Expr:
    """The tensors of `data` (a list, a tuple literal or a tuple-typed expression) joined
    along a new axis `axis`."""
    fields = _fields(data, "stack")
    if not fields:
        raise ValueError("stack: needs at least one tensor")
    rank = len(known_shape(fields[0], "stack"))
    if not -rank - 1 <= axis <= rank:
        raise ValueError(f"stack: axis {axis} is out of range for rank {rank} + 1")
    axis %= rank + 1
    return concatenate([expand_dims(f, axis) for f in fields], axis)


def repeat(data: Expr, repeats: int, axis: int) -> Expr:
    """Each element of `data` repeated `repeats` times along `axis` (numpy's repeat)."""
    shape = known_shape(data, "repeat")
    if repeats < 1:
        raise ValueError(f"repeat: repeats must be positive, got {repeats}")
    if not -len(shape) <= axis < len(shape):
        raise ValueError(f"repeat: axis {axis} is out of range for rank {len(shape)}")
    axis %= len(shape)
    wide = (*shape[: axis + 1], repeats, *shape[axis + 1 :])
    out = (*shape[:axis], shape[axis] * repeats, *shape[axis + 1 :])
    return reshape(broadcast_to(expand_dims(data, axis + 1), wide), out)


def reverse(data: Expr, axis: int) -> Expr:
    """`data` with the order of axis `axis` reversed."""
    shape = known_shape(data, "reverse")
    if not -len(shape) <= axis < len(shape):
        raise ValueError(f"reverse: axis {axis} is out of range for rank {len(shape)}")
    indices = const(np.arange(shape[axis] - 1, -1, -1, dtype="int32"))
    return take(data, indices, axis=axis % len(shape))


def reshape_like(
    data: Expr,
    shape_like: Expr,
    lhs_begin: int = 0,
    lhs_end: int | None = None,
    rhs_begin: int = 0,
    rhs_end: int | None = None,
) -> Expr:
    """`data` reshaped so that its dimensions [lhs_begin, lhs_end) become those of
    `shape_like` in [rhs_begin, rhs_end)."""
    lhs, rhs = known_shape(data, "reshape_like"), known_shape(shape_like, "reshape_like")
    lhs_cut = slice(lhs_begin, lhs_end)
    start, stop, _ = lhs_cut.indices(len(lhs))
    new = (*lhs[:start], *rhs[slice(rhs_begin, rhs_end)], *lhs[stop:])
    return reshape(data, new)


def meshgrid(data: Expr | Sequence[Expr], indexing: str = "ij") -> Expr:
    """Coordinate grids of the 1-d (or scalar) tensors of `data`, as numpy's meshgrid: a
    tuple of one tensor per input; `indexing` "xy" swaps the first two grid axes."""
    if indexing not in ("ij", "xy"):
        raise ValueError(f"meshgrid: indexing must be 'ij' or 'xy', got {indexing!r}")
    fields = _fields(data, "meshgrid")
    sizes = []
    for f in fields:
        shape = known_shape(f, "meshgrid")
        if len(shape) > 1:
            raise ValueError(f"meshgrid: inputs must be 0-d or 1-d, got shape {shape}")
        sizes.append(shape[0] if shape else 1)
    order = list(range(len(fields)))
    if indexing == "xy" and len(fields) >= 2:
        order[0], order[1] = 1, 0
    grid = tuple(sizes[i] for i in order)
    grids = []
    for i, f in enumerate(fields):
        at = order.index(i)
        along = [1] * len(grid)
        along[at] = sizes[i]
        grids.append(broadcast_to(reshape(f, along), grid))
    return Tuple(grids)


def _scalar(value: object, name: str) -> float | int:
    if isinstance(value, Constant):
        return value.data.numpy().item()
    if isinstance(value, Expr):
        raise TypeError(f"arange: {name} must be a constant (xtvm needs static shapes)")
    return value  # type: ignore[return-value]


def arange(
    start: object, stop: object = None, step: object = None, dtype: str = "float32"
) -> Constant:
    """The values start, start + step, ... below stop (numpy's arange), from constants."""
    if stop is None:
        start, stop = 0, start
    values = np.arange(
        _scalar(start, "start"), _scalar(stop, "stop"), 1 if step is None else _scalar(step, "step")
    )
    return const(values.astype(dtype_name(dtype)))
