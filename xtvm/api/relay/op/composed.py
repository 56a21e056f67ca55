"""TVM's transform operators that xtvm builds from other ops: with static shapes, `stack`,
`repeat`, `reverse`, `reshape_like`, `reverse_reshape`, `meshgrid`, `arange`,
`broadcast_to_like`, `collapse_sum_like`/`collapse_sum_to`, `one_hot`, `sequence_mask`,
`sparse_to_dense`, `adv_index`, `matrix_set_diag`, `fixed_point_multiply` and
`sliding_window` are each a few expand_dims,
broadcasts, reshapes, takes, sums, selects, scatters or a constant. They type-check and
compute as TVM's; the printed program shows the ops they are made of."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from xtvm.api.relay.expr import Constant, Expr, Tuple, TupleGetItem, const
from xtvm.api.relay.op import tensor, transform
from xtvm.api.relay.op.reduce import sum as reduce_sum
from xtvm.api.relay.op.tensor import cast, equal, less
from xtvm.api.relay.op.transform import (
    broadcast_to,
    concatenate,
    expand_dims,
    reshape,
    resolve_codes,
    take,
    where,
)
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


def tensor_shape(data: Expr, op: str) -> tuple[Any, ...]:
    """The shape of tensor `data`, symbolic dimensions (`relay.Any`, size variables) included."""
    typ = data.checked_type
    if not isinstance(typ, TensorType):
        raise TypeError(f"{op}: expected a tensor, got {typ}")
    return typ.shape


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
    lhs, rhs = tensor_shape(data, "reshape_like"), tensor_shape(shape_like, "reshape_like")
    start, stop, _ = slice(lhs_begin, lhs_end).indices(len(lhs))
    # A symbolic size is copied (0) where it keeps its position, else inferred (-1): reshape
    # codes say what TVM's relation says with the size variable itself.
    kept = [d if isinstance(d, int) else 0 for d in lhs[:start]]
    moved = [d if isinstance(d, int) else -1 for d in (*rhs[rhs_begin:rhs_end], *lhs[stop:])]
    if moved.count(-1) > 1:
        raise TypeError(
            f"reshape_like: {lhs} reshaped like {rhs} has several symbolic sizes that move: "
            "xtvm infers one of them"
        )
    return reshape(data, [*kept, *moved])


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
    return const(values, dtype_name(dtype))


def broadcast_to_like(data: Expr, broadcast_type: Expr) -> Expr:
    """`data` broadcast to the shape of `broadcast_type`."""
    return broadcast_to(data, known_shape(broadcast_type, "broadcast_to_like"))


def collapse_sum_to(data: Expr, shape: Sequence[int] | Expr) -> Expr:
    """`data` summed down to `shape` (the inverse of broadcasting to its own shape)."""
    if isinstance(shape, Constant):
        shape = [int(s) for s in shape.data.numpy().reshape(-1)]
    elif isinstance(shape, Expr):
        raise TypeError("collapse_sum_to: the shape must be constant (xtvm needs static shapes)")
    source, target = known_shape(data, "collapse_sum_to"), tuple(int(s) for s in shape)
    lead = len(source) - len(target)
    if lead < 0 or any(t not in (1, s) for s, t in zip(source[lead:], target, strict=True)):
        raise ValueError(f"collapse_sum_to: {source} does not broadcast from {target}")
    axes = list(range(lead)) + [
        lead + i for i, (s, t) in enumerate(zip(source[lead:], target, strict=True)) if t != s
    ]
    return reshape(reduce_sum(data, axis=axes), target) if axes else data


def collapse_sum_like(data: Expr, collapse_type: Expr) -> Expr:
    """`data` summed down to the shape of `collapse_type`."""
    return collapse_sum_to(data, known_shape(collapse_type, "collapse_sum_like"))


def reverse_reshape(data: Expr, newshape: Sequence[int]) -> Expr:
    """reshape with its special codes (0 copies, -1 infers) read from the right."""
    dims = known_shape(data, "reverse_reshape")[::-1]
    return reshape(data, resolve_codes(dims, list(newshape)[::-1])[::-1])


def one_hot(
    indices: Expr, on_value: Expr, off_value: Expr, depth: int, axis: int, dtype: str
) -> Expr:
    """A tensor with a new axis `axis` of size `depth`: `on_value` where its position equals
    the index, `off_value` elsewhere."""
    rank = len(known_shape(indices, "one_hot"))
    axis = axis % (rank + 1) if axis < 0 else axis
    positions = [1] * (rank + 1)
    positions[axis] = int(depth)
    index_type = indices.checked_type.dtype  # type: ignore[union-attr]
    grid = const(np.arange(int(depth)).reshape(positions), index_type)
    hit = equal(expand_dims(indices, axis), grid)
    return where(hit, cast(on_value, dtype), cast(off_value, dtype))


def sequence_mask(data: Expr, valid_length: Expr, mask_value: float = 0.0, axis: int = 0) -> Expr:
    """`data` (time and batch on axes 0 and 1, `axis` the time one) with the steps at or
    beyond each batch's `valid_length` set to `mask_value`."""
    shape = known_shape(data, "sequence_mask")
    if axis not in (0, 1) or len(shape) < 2:
        raise ValueError(f"sequence_mask: axis must be 0 or 1 of a tensor of rank >= 2, got {axis}")
    steps = [1] * len(shape)
    steps[axis] = shape[axis]
    lengths = [1] * len(shape)
    lengths[1 - axis] = shape[1 - axis]
    length_type = valid_length.checked_type.dtype  # type: ignore[union-attr]
    time = const(np.arange(shape[axis]).reshape(steps), length_type)
    keep = less(time, reshape(valid_length, lengths))
    dtype = data.checked_type.dtype  # type: ignore[union-attr]
    return where(keep, data, const(mask_value, dtype))


def sparse_to_dense(
    sparse_indices: Expr,
    output_shape: Sequence[int],
    sparse_values: Expr,
    default_value: Expr | None = None,
) -> Expr:
    """A dense tensor of `output_shape` filled with `default_value` (0 when absent), with
    `sparse_values` (one per index, or a scalar for all) at `sparse_indices` (a scalar, a
    vector of indices of a 1-d output, or one row of coordinates per value): a scatter_nd."""
    if isinstance(output_shape, Expr):
        raise TypeError("sparse_to_dense: output_shape must be a list of ints (static)")
    shape = [int(d) for d in output_shape]
    index_shape = known_shape(sparse_indices, "sparse_to_dense")
    count = index_shape[0] if index_shape else 1
    if len(index_shape) > 2:
        raise TypeError(
            f"sparse_to_dense: sparse_indices must have rank 2 or less, got {index_shape}"
        )
    if len(index_shape) == 2:
        indices = transform.transpose(sparse_indices, [1, 0])  # scatter_nd's (M, N) layout
    else:
        indices = reshape(sparse_indices, [1, count])
    values = sparse_values
    if known_shape(sparse_values, "sparse_to_dense") != (count,):
        values = broadcast_to(sparse_values, [count])
    dtype = values.checked_type.dtype  # type: ignore[attr-defined]
    fill = const(0, dtype) if default_value is None else default_value
    return transform.scatter_nd(broadcast_to(fill, shape), indices, values, "update")


def adv_index(inputs: Sequence[Expr]) -> Expr:
    """numpy's advanced indexing `data[i_0, ..., i_{k-1}]`: the index tensors broadcast
    together, each point's row-major offset into data's first k axes taken from data viewed
    as (their product, the other axes...)."""
    data, *indices = list(inputs)
    if not indices:
        raise ValueError("adv_index: needs data and at least one index tensor")
    shape = known_shape(data, "adv_index")
    if len(indices) > len(shape):
        raise ValueError(f"adv_index: {len(indices)} index tensors for data of rank {len(shape)}")
    lead = np.broadcast_shapes(*(known_shape(i, "adv_index") for i in indices))
    offset: Expr | None = None
    for axis, index in enumerate(indices):
        stride = int(np.prod(shape[axis + 1 : len(indices)], dtype=np.int64))
        wide = broadcast_to(cast(index, "int64"), list(lead))
        term = wide if stride == 1 else wide * const(stride, "int64")
        offset = term if offset is None else offset + term
    assert offset is not None
    rows = reshape(data, [-1, *shape[len(indices) :]])
    return take(rows, offset, axis=0)


def diagonal_layout(
    rows: int, cols: int, k: int | tuple[int, int], align: str
) -> tuple[np.ndarray, np.ndarray]:
    """Where each (row, col) of a matrix reads its new value in the diagonals array flattened
    over its last axes (TensorFlow's MatrixSetDiagV3 layout: diagonals from the highest k
    down, each padded to the longest, super/subdiagonals aligned as `align` says), and which
    of them lie on a set diagonal."""
    low, high = (k, k) if isinstance(k, int) else (int(k[0]), int(k[1]))
    if align not in ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"):
        raise ValueError(f"matrix_set_diag: unknown align '{align}'")
    longest = max(min(rows + min(0, d), cols - max(0, d)) for d in range(low, high + 1))
    index = np.zeros((rows, cols), np.int64)
    on = np.zeros((rows, cols), bool)
    for i, j in np.ndindex(rows, cols):
        d = j - i
        if low <= d <= high:
            length = min(rows + min(0, d), cols - max(0, d))
            right = align.split("_")[0 if d >= 0 else 1] == "RIGHT"
            offset = longest - length if right else 0
            index[i, j] = (high - d) * longest + offset + (i if d >= 0 else j)
            on[i, j] = True
    return index, on


def matrix_set_diag(
    data: Expr, diagonal: Expr, k: int | tuple[int, int] = 0, align: str = "RIGHT_LEFT"
) -> Expr:
    """`data` with its diagonal k (or the band of diagonals k = (low, high)) replaced by
    `diagonal`, composed as a take from the flattened diagonals and a select."""
    shape = known_shape(data, "matrix_set_diag")
    index, on = diagonal_layout(shape[-2], shape[-1], k, align)
    flat = reshape(diagonal, [*shape[:-2], -1])  # data's batch axes, then the diagonals
    values = take(flat, const(index), axis=-1)
    return where(const(on), values, data)


def fixed_point_multiply(data: Expr, multiplier: int, shift: int) -> Expr:
    """TVM's fixed_point_multiply (tir's q_multiply_shift with 31 fraction bits): in int64,
    data shifted left by max(shift, 0), times `multiplier`, plus half of 2^(31 + max(-shift,
    0)) and shifted right by that power (rounding half up), then cast back."""
    dtype = data.checked_type.dtype  # type: ignore[attr-defined]
    if dtype != "int32":
        raise TypeError(f"fixed_point_multiply: data must be int32, got {dtype}")
    if not 0 <= int(multiplier) < 2**31 or not -31 <= int(shift) <= 31:
        raise ValueError(
            f"fixed_point_multiply: multiplier {multiplier} or shift {shift} is out of range"
        )
    wide = cast(data, "int64")
    if shift > 0:
        wide = tensor.left_shift(wide, const(int(shift), "int64"))
    total = 31 + max(-int(shift), 0)
    product = tensor.multiply(wide, const(int(multiplier), "int64"))
    rounded = tensor.add(product, const(1 << (total - 1), "int64"))
    return cast(tensor.right_shift(rounded, const(total, "int64")), "int32")


def sliding_window(
    data: Expr, axis: int, window_shape: Sequence[int], strides: Sequence[int]
) -> Expr:
    """TVM's sliding_window: every placement of a window over data's axes from `axis` on,
    shaped (data's axes before `axis`, placements per axis, window_shape); composed as one
    take of constant offsets from data flattened from `axis` on."""
    shape = known_shape(data, "sliding_window")
    axis = axis + len(shape) if axis < 0 else axis
    window, step = [int(w) for w in window_shape], [int(s) for s in strides]
    tail = shape[axis:]
    if not 0 <= axis < len(shape) or not len(window) == len(step) == len(tail):
        raise ValueError(
            f"sliding_window: window_shape and strides need one entry per axis from {axis} of "
            f"a rank-{len(shape)} tensor, got {window} and {step}"
        )
    if any(s < 1 or w < 1 or w > n for w, s, n in zip(window, step, tail, strict=True)):
        raise ValueError(f"sliding_window: window {window}, strides {step} do not fit {tail}")
    places = [(n - w) // s + 1 for n, w, s in zip(tail, window, step, strict=True)]
    starts = np.ix_(*(np.arange(p) * s for p, s in zip(places, step, strict=True)))
    offsets = np.ix_(*(np.arange(w) for w in window))
    grid = [
        start.reshape(start.shape + (1,) * len(window))
        + offset.reshape((1,) * len(places) + offset.shape)
        for start, offset in zip(starts, offsets, strict=True)
    ]
    flat = np.ravel_multi_index(grid, tail).astype(np.int64)
    return take(reshape(data, [*shape[:axis], -1]), const(flat), axis=axis)
