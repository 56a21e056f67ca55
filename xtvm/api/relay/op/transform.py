"""Shape operators: `relay.reshape`, `relay.transpose`, `relay.concatenate`, `relay.split`, ...

The builder of an op whose TVM signature is the op's own (`relay.transpose(data, axes)`) comes
from the op's row in the relay dialect; those written here differ from their op's.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xtvm.api.relay.expr import Call, Constant, Expr, Tuple, const, derive_builders, make_call
from xtvm.api.relay.ty import TensorType, dtype_name
from xtvm.dialects import relay as d


def reshape(data: Expr, newshape: int | Sequence[int]) -> Call:
    """Reshape; 0 copies an input dimension and -1 is inferred, as in TVM."""
    shape = [newshape] if isinstance(newshape, int) else [int(s) for s in newshape]
    if any(s < -1 for s in shape):
        shape = expand_special(data, shape)
    return make_call(d.ReshapeOp, data, newshape=shape)


def expand_special(data: Expr, newshape: list[int]) -> list[int]:
    """TVM's reshape codes below -1 resolved against the input's static shape: -2 copies all
    remaining input dimensions, -3 merges the next two, -4 splits the next one into the two
    values that follow (one may be -1)."""
    typ = data.checked_type
    dims = [getattr(dim, "value", dim) for dim in typ.shape]  # type: ignore[union-attr]
    if not all(isinstance(dim, int) for dim in dims):
        raise ValueError(f"reshape: codes -2, -3 and -4 need a static input shape, got {typ}")
    return resolve_codes(dims, newshape)


def resolve_codes(dims: Sequence[int], newshape: Sequence[int]) -> list[int]:
    """`newshape` with TVM's codes 0, -2, -3 and -4 resolved against input shape `dims`
    (-1 is left for the op to infer)."""
    out: list[int] = []
    src, i = 0, 0
    while i < len(newshape):
        code = newshape[i]
        if code == -2:
            out += dims[src:]
            src = len(dims)
        elif code == -3:
            if src + 1 >= len(dims):
                raise ValueError(f"reshape: -3 needs two input dimensions at {src} of {dims}")
            out.append(dims[src] * dims[src + 1])
            src += 2
        elif code == -4:
            if i + 2 >= len(newshape) or src >= len(dims):
                raise ValueError(f"reshape: -4 needs two values after it, got {newshape}")
            first, second = newshape[i + 1], newshape[i + 2]
            first = dims[src] // second if first == -1 else first
            second = dims[src] // first if second == -1 else second
            if first * second != dims[src]:
                raise ValueError(f"reshape: -4 cannot split {dims[src]} into {first} x {second}")
            out += [first, second]
            src += 1
            i += 2
        elif code < -4:
            raise ValueError(f"reshape: unknown code {code} in {newshape}")
        else:  # a size, 0 (copy) or -1 (inferred): the op resolves them
            out.append(dims[src] if code == 0 else code)
            src += 1
        i += 1
    return out


def broadcast_to(data: Expr, shape: Sequence[int] | Expr) -> Call:
    """Broadcast to `shape`: numbers, or a constant tensor of them (as TVM's
    `relay.const([2, 3], "int64")`)."""
    from xtvm.api.relay.expr import Constant

    if isinstance(shape, Constant):
        shape = [int(s) for s in shape.data.numpy().reshape(-1)]
    elif isinstance(shape, Expr):
        raise TypeError(
            "broadcast_to: a shape computed at run time is dynamic; xtvm needs static shapes"
        )
    return make_call(d.BroadcastToOp, data, shape=[int(s) for s in shape])


def concatenate(data: Sequence[Expr] | Tuple, axis: int) -> Call:
    """Concatenate along `axis`; the call's arguments are the tensors themselves."""
    fields = data.fields if isinstance(data, Tuple) else list(data)
    return make_call(d.ConcatenateOp, fields, axis=axis)


def split(data: Expr, indices_or_sections: int | Sequence[int], axis: int = 0) -> Call:
    """A tuple of the pieces; index it (`[0]`) as TVM's TupleWrapper."""
    value = (
        indices_or_sections
        if isinstance(indices_or_sections, int)
        else [int(i) for i in indices_or_sections]
    )
    return make_call(d.SplitOp, data, indices_or_sections=value, axis=axis)


def strided_slice(
    data: Expr,
    begin: Sequence[int],
    end: Sequence[int],
    strides: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    slice_mode: str = "end",
) -> Call:
    """TVM's strided_slice: begin, end and strides may be shorter than the rank (without
    `axes`); in "size" mode `end` holds sizes (-1: to the end) and strides are 1."""
    begin, end = [int(b) for b in begin], [int(e) for e in end]
    if slice_mode == "size":
        starts = begin + [0] * (len(end) - len(begin))
        end = [b + e if e >= 0 else d.PAST_END for b, e in zip(starts, end, strict=False)]
        strides = None
    elif slice_mode != "end":
        raise ValueError(f"strided_slice: slice_mode must be 'end' or 'size', got {slice_mode!r}")
    return make_call(
        d.StridedSliceOp,
        data,
        begin=begin,
        end=end,
        strides=None if strides is None else [int(s) for s in strides],
        axes=None if axes is None else [int(a) for a in axes],
    )


def strided_set(
    data: Expr,
    v: Expr,
    begin: Sequence[int] | Expr,
    end: Sequence[int] | Expr,
    strides: Sequence[int] | Expr | None = None,
) -> Call:
    """`data` with its strided slice set to `v`; begin, end and strides are numbers or
    constant tensors of them, as TVM takes them (xtvm keeps them as attributes)."""
    return make_call(
        d.StridedSetOp,
        data,
        v,
        begin=constant_ints(begin, "begin"),
        end=constant_ints(end, "end"),
        strides=None if strides is None else constant_ints(strides, "strides"),
    )


def constant_ints(value: Sequence[int] | Expr, what: str) -> list[int]:
    """The integers of a list or of a constant tensor; a tensor computed at run time is
    refused (xtvm's shapes are static)."""
    from xtvm.api.relay.expr import Constant

    if isinstance(value, Constant):
        return [int(v) for v in value.data.numpy().reshape(-1)]
    if isinstance(value, Expr):
        raise TypeError(f"{what} must be numbers or a constant tensor; xtvm needs static shapes")
    return [int(v) for v in value]


def unique(data: Expr, is_sorted: bool = True, return_counts: bool = False) -> Call:
    """(unique, indices, inverse_indices, num_unique[, counts]) of a vector, each padded to
    its length; index the result or take `.astuple()`, as TVM's TupleWrapper."""
    return make_call(d.UniqueOp, data, sorted=bool(is_sorted), return_counts=bool(return_counts))


def take(
    data: Expr, indices: Expr, axis: int | None = None, batch_dims: int = 0, mode: str = "clip"
) -> Call:
    if batch_dims:
        raise ValueError("take: batch_dims is not supported")
    return make_call(d.TakeOp, data, indices, axis=axis, mode=mode)


def gather_nd(
    data: Expr, indices: Expr, batch_dims: int = 0, index_rank: int | None = None
) -> Call:
    """Gather at index tuples laid along axis 0 of `indices` (TVM's layout)."""
    return make_call(d.GatherNdOp, data, indices, batch_dims=batch_dims)


def gather(data: Expr, axis: int, indices: Expr) -> Call:
    """TVM's argument order: data, axis, indices."""
    return make_call(d.GatherOp, data, indices, axis=axis)


def cumsum(
    data: Expr, axis: int | None = None, dtype: str | None = None, exclusive: bool = False
) -> Call:
    """Running sum, in `dtype` (the data's by default)."""
    return _running(d.CumsumOp, data, axis, dtype, exclusive)


def cumprod(
    data: Expr, axis: int | None = None, dtype: str | None = None, exclusive: bool = False
) -> Call:
    """Running product, in `dtype` (the data's by default)."""
    return _running(d.CumprodOp, data, axis, dtype, exclusive)


def _running(
    op: type[d.RelayOp], data: Expr, axis: int | None, dtype: str | None, exclusive: bool
) -> Call:
    if dtype is not None and dtype_name(dtype) != data.checked_type.dtype:  # type: ignore[union-attr]
        data = make_call(d.CastOp, data, dtype=dtype_name(dtype))
    return make_call(op, data, axis=axis, exclusive=exclusive)


def sparse_reshape(sparse_indices: Expr, prev_shape: Expr, new_shape: Expr) -> Call:
    """(new sparse indices, new shape) of a COO tensor reshaped; index the result with [0],
    [1] or take `.astuple()`, as in TVM."""
    return make_call(d.SparseReshapeOp, sparse_indices, prev_shape, new_shape)


def segment_sum(data: Expr, segment_ids: Expr, num_segments: int | None = None) -> Call:
    """Sums of data's rows by segment id; max(segment_ids) + 1 segments when not given."""
    count = None if num_segments is None else int(num_segments)
    return make_call(d.SegmentSumOp, data, segment_ids, num_segments=count)


def stft(
    data: Expr,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Expr | None = None,
    normalized: bool = False,
    onesided: bool = True,
) -> Call:
    """TVM's STFT: hop_length n_fft / 4, win_length n_fft and a window of ones by default."""
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    ones = window if window is not None else const(np.ones(n_fft, "int32"))
    return make_call(
        d.StftOp,
        data,
        ones,
        n_fft=int(n_fft),
        hop_length=int(hop),
        win_length=int(win),
        normalized=bool(normalized),
        onesided=bool(onesided),
    )


def trilu(data: Expr, k: int | Expr = 0, upper: bool = True) -> Call:
    """The upper (or lower) triangle of the last two axes from diagonal `k`, zeros elsewhere.
    A constant `k` is the op's attribute; one known only at run time (a scalar tensor, as TVM
    takes it) keeps where the column minus the row is >= k (<= k for the lower triangle)."""
    if isinstance(k, Constant) and k.data.shape == ():
        k = int(k.data.numpy())
    if not isinstance(k, Expr):
        return make_call(d.TriluOp, data, k=int(k), upper=bool(upper))
    typ, k_type = data.checked_type, k.checked_type
    if not isinstance(typ, TensorType) or len(typ.shape) < 2 or not typ.is_static:
        raise TypeError(
            f"trilu: with a tensor k, data must be a static tensor of rank 2 or more, got {typ}"
        )
    if not isinstance(k_type, TensorType) or k_type.shape != () or "int" not in k_type.dtype:
        raise TypeError(f"trilu: k must be an integer scalar, got {k_type}")
    rows, cols = typ.concrete_shape[-2:]
    offsets = np.arange(cols, dtype="int64")[None, :] - np.arange(rows, dtype="int64")[:, None]
    diagonal = k if k_type.dtype == "int64" else make_call(d.CastOp, k, dtype="int64")
    keep = make_call(
        d.GreaterEqualOp if upper else d.LessEqualOp, const(offsets, "int64"), diagonal
    )
    return make_call(d.WhereOp, keep, data, const(np.zeros((), typ.dtype)))


derive_builders(globals(), "", skip=(d.ElementwiseBinaryOp, d.UnaryOp, d.ShapeQueryOp, d.ReduceOp))
