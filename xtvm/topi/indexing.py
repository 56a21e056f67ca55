"""TOPI's gathers, scatters and scans: gather_nd, gather, scatter_nd, scatter_elements,
segment_sum, cumsum, trilu and sparse_reshape, each as plain `te.compute` stages (a default
schedule suffices).

Gathers read the data at an index read from the indices tensor. A scatter is a reduction over
the update positions: each output element combines the updates whose index hits it (sum,
product, max or min, then with the data); plain update keeps the last write, so it first finds
the largest position that hits (a max reduction), then reads that update. cumsum sums the
prefix of the axis under a `where`, quadratic in the axis length but a single reduction.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xtvm import te
from xtvm.te.expr import PrimExpr
from xtvm.topi.nn import wide
from xtvm.topi.tensor import TensorLike, ravel, static_shape, unravel

Index = PrimExpr | int


def as_index(value: PrimExpr) -> PrimExpr:
    """An index read from a tensor, in the int32 of loop variables."""
    return value if value.dtype == "int32" else value.astype("int32")


def injective(shape: Sequence[int], body: object, name: str) -> te.Tensor:
    return te.compute(list(shape), body, name=name, tag="injective")  # type: ignore[arg-type]


def gather_nd(data: TensorLike, indices: TensorLike, batch_dims: int) -> te.Tensor:
    """out[b.., y.., t..] = data[b.., indices[0, b.., y..], ..., indices[M-1, b.., y..], t..]."""
    shape, index_shape = static_shape(data), static_shape(indices)
    m, lead = index_shape[0], index_shape[1:]
    tail = shape[batch_dims + m :]

    def body(*i: PrimExpr) -> PrimExpr:
        at, rest = i[: len(lead)], i[len(lead) :]
        picked = [as_index(indices(k, *at)) for k in range(m)]
        return data(*at[:batch_dims], *picked, *rest)

    return injective([*lead, *tail], body, "T_gather_nd")


def gather(data: TensorLike, indices: TensorLike, axis: int) -> te.Tensor:
    """out[i..] = data[i.. with indices[i..] on axis]."""

    def body(*i: PrimExpr) -> PrimExpr:
        at = list(i)
        at[axis] = as_index(indices(*i))
        return data(*at)

    return injective(static_shape(indices), body, "T_gather")


def combine_scatter(
    data: TensorLike,
    updates: TensorLike,
    mode: str,
    positions: Sequence[int],
    hit: object,
    read_update: object,
    name: str,
) -> te.Tensor:
    """The scatter of `updates` into `data`: out[i] combines data[i] with the updates at the
    positions p (a reduction over `positions`) where `hit(i, p)` holds; `read_update(i, p)`
    reads the update at p for output element i."""
    shape = static_shape(data)
    p = [te.reduce_axis((0, n), f"p{k}") for k, n in enumerate(positions)]
    if mode == "update":
        last = te.compute(
            shape,
            lambda *i: te.max(te.if_then_else(hit(i, p), ravel(p, positions), -1), axis=p),  # type: ignore[operator]
            name=f"{name}_last",
            tag="comm_reduce",
        )

        def body(*i: PrimExpr) -> PrimExpr:
            where = unravel(te.max(last(*i), 0), positions)  # in range even where unread
            return te.if_then_else(last(*i) >= 0, read_update(i, where), data(*i))  # type: ignore[operator]

        return injective(shape, body, name)
    reducer = {"add": te.sum, "mul": te.prod, "max": te.max, "min": te.min}[mode]
    combined = te.compute(
        shape,
        lambda *i: reducer(read_update(i, p), axis=p, where=hit(i, p)),  # type: ignore[operator]
        name=f"{name}_{mode}",
        tag="comm_reduce",
    )

    def merge(*i: PrimExpr) -> PrimExpr:
        if mode == "add":
            return data(*i) + combined(*i)
        if mode == "mul":
            return data(*i) * combined(*i)
        return (te.max if mode == "max" else te.min)(data(*i), combined(*i))

    return injective(shape, merge, name)


def scatter_nd(data: TensorLike, indices: TensorLike, updates: TensorLike, mode: str) -> te.Tensor:
    """Updates (Y.., t..) combined into data at the index tuples indices[:, y..]."""
    index_shape = static_shape(indices)
    m, lead = index_shape[0], index_shape[1:]

    def hit(i: Sequence[PrimExpr], p: Sequence[Index]) -> PrimExpr:
        return te.all(*(as_index(indices(k, *p)).equal(i[k]) for k in range(m)))

    def read_update(i: Sequence[PrimExpr], p: Sequence[Index]) -> PrimExpr:
        return updates(*p, *i[m:])

    return combine_scatter(data, updates, mode, lead, hit, read_update, "T_scatter_nd")


def scatter_elements(
    data: TensorLike, indices: TensorLike, updates: TensorLike, axis: int, mode: str
) -> te.Tensor:
    """Updates combined into data along `axis` at indices, elementwise."""
    shape, index_shape = static_shape(data), static_shape(indices)
    # Off the axis, indices may be smaller than data: reads there are clamped into range (a
    # select evaluates both sides) and the hit test excludes them.
    short = [k for k in range(len(shape)) if k != axis and index_shape[k] < shape[k]]

    def at(i: Sequence[PrimExpr], p: Sequence[Index]) -> list[Index]:
        out: list[Index] = [
            te.min(v, index_shape[k] - 1) if k in short else v for k, v in enumerate(i)
        ]
        out[axis] = p[0]
        return out

    def hit(i: Sequence[PrimExpr], p: Sequence[Index]) -> PrimExpr:
        inside = [i[k] < index_shape[k] for k in short]
        index = as_index(indices(*at(i, p)))
        index = te.if_then_else(index < 0, index + shape[axis], index)  # from the end, as TVM
        return te.all(*inside, index.equal(i[axis]))

    def read_update(i: Sequence[PrimExpr], p: Sequence[Index]) -> PrimExpr:
        return updates(*at(i, p))

    return combine_scatter(
        data, updates, mode, [index_shape[axis]], hit, read_update, "T_scatter_elements"
    )


def cumsum(data: TensorLike, axis: int | None, exclusive: bool, name: str = "cumsum") -> te.Tensor:
    """The running sum along `axis` (of the flattened data when None), accumulated wide
    (`name` "cumprod": the running product)."""
    shape = static_shape(data)
    if axis is None:
        flat = injective([math.prod(shape)], lambda j: data(*unravel(j, shape)), f"T_{name}_flat")
        return cumsum(flat, 0, exclusive, name)
    k = te.reduce_axis((0, shape[axis]), "k")
    reducer = te.prod if name == "cumprod" else te.sum

    def body(*i: PrimExpr) -> PrimExpr:
        at = list(i)
        at[axis] = k
        before = k < i[axis] if exclusive else k <= i[axis]
        return reducer(wide(data(*at)), axis=k, where=before)

    total = te.compute(list(shape), body, name=f"T_{name}", tag="comm_reduce")
    if total.dtype == data.dtype:
        return total
    return injective(shape, lambda *i: total(*i).astype(data.dtype), f"T_{name}_cast")


def trilu(data: TensorLike, k: int, upper: bool) -> te.Tensor:
    """The triangle on or above (upper) or below diagonal k of the last two axes."""

    def body(*i: PrimExpr) -> PrimExpr:
        row, col = i[-2], i[-1]
        keep = col - row >= k if upper else col - row <= k
        return te.if_then_else(keep, data(*i), te.const(0, data.dtype))

    return injective(static_shape(data), body, "T_trilu")


def reverse_sequence(
    data: TensorLike, lengths: TensorLike, seq_axis: int, batch_axis: int
) -> te.Tensor:
    """TVM's: position j along seq_axis reads length - 1 - j when j < length (length being
    seq_lengths of the batch entry, capped at the axis size), itself otherwise or when the
    length is 1 or less."""
    shape = static_shape(data)

    def body(*i: PrimExpr) -> PrimExpr:
        j = i[seq_axis]
        length = te.min(as_index(lengths(i[batch_axis])), shape[seq_axis])
        at = list(i)
        at[seq_axis] = te.if_then_else(te.any(length <= 1, length <= j), j, length - 1 - j)
        return data(*at)

    return injective(shape, body, "T_reverse_sequence")


def unravel_index(indices: TensorLike, shape: TensorLike) -> te.Tensor:
    """Row i: (index // the product of shape[i + 1:]) floor-mod shape[i]."""
    rank = static_shape(shape)[0]
    lead = static_shape(indices)
    dims = [shape(k) for k in range(rank)]

    def body(i: PrimExpr, *n: PrimExpr) -> PrimExpr:
        index = indices(*n)
        out = index
        for k in range(rank - 1, -1, -1):
            stride = product([te.const(1, index.dtype), *dims[k + 1 :]])
            out = te.if_then_else(i.equal(k), te.floormod(te.floordiv(index, stride), dims[k]), out)
        return out

    return injective([rank, *lead], body, "T_unravel_index")


def segment_sum(data: TensorLike, segment_ids: TensorLike, num_segments: int) -> te.Tensor:
    """out[s, t..] = the sum of data[p, t..] over the positions p with segment_ids[p] = s."""
    shape = static_shape(data)
    p = te.reduce_axis((0, static_shape(segment_ids)[0]), "p")
    return te.compute(
        [num_segments, *shape[1:]],
        lambda s, *t: te.sum(data(p, *t), axis=p, where=as_index(segment_ids(p)).equal(s)),  # type: ignore[operator]
        name="T_segment_sum",
        tag="comm_reduce",
    )


def product(values: Sequence[PrimExpr]) -> PrimExpr:
    """The product of a non-empty list of expressions."""
    return math.prod(values[1:], start=values[0])


def sparse_reshape(
    indices: TensorLike, prev_shape: TensorLike, new_shape: TensorLike
) -> tuple[te.Tensor, te.Tensor]:
    """TVM's sparse_reshape, with the ranks known: the new shape with its -1 filled in, and
    each index row's row-major offset in prev_shape split along the new shape (the indices
    unchanged where the two shapes are equal). Offsets are computed in int64."""
    rows, rank = static_shape(indices)
    new_rank = static_shape(new_shape)[0]
    one = te.const(1, "int64")
    prev = [prev_shape(j).astype("int64") for j in range(rank)]
    new = [new_shape(j).astype("int64") for j in range(new_rank)]
    total = product([one, *prev])
    known = product([one, *(te.if_then_else(v.equal(-1), one, v) for v in new)])
    filled = [te.if_then_else(v.equal(-1), total // te.max(known, one), v) for v in new]

    def pick(at: PrimExpr, values: Sequence[PrimExpr]) -> PrimExpr:
        out = values[-1]
        for k in range(len(values) - 2, -1, -1):
            out = te.if_then_else(at.equal(k), values[k], out)
        return out

    out_shape = injective(
        [new_rank], lambda i: pick(i, filled).astype(new_shape.dtype), "T_sparse_reshape_shape"
    )
    strides = [product([one, *filled[k + 1 :]]) for k in range(new_rank)]

    def body(r: PrimExpr, i: PrimExpr) -> PrimExpr:
        offset = sum(
            (indices(r, j).astype("int64") * product([one, *prev[j + 1 :]]) for j in range(rank)),
            start=one * 0,
        )
        # the i-th coordinate: the offset modulo the stride of dimension i - 1 (none for the
        # first, as TVM), divided by the stride of dimension i
        outer = te.max(pick(i, [one, *strides[:-1]]), one)
        remainder = te.if_then_else(i.equal(0), offset, offset % outer)
        split = remainder // te.max(pick(i, strides), one)
        if rank == new_rank:
            same = te.all(*(a.equal(b) for a, b in zip(prev, filled, strict=True)))
            split = te.if_then_else(same, indices(r, i).astype("int64"), split)
        return split.astype(indices.dtype)

    return injective([rows, new_rank], body, "T_sparse_reshape"), out_shape


def unique(data: TensorLike, is_sorted: bool, counts: bool) -> tuple[te.Tensor, ...]:
    """(unique, indices, inverse_indices, num_unique[, counts]) of a vector, each padded with
    0 to its length, by comparing every pair of elements (quadratic in the length: xtvm has no
    sort kernel). An element is a first occurrence when no earlier one equals it; its rank
    (its position in unique) counts the first occurrences of smaller values (sorted) or
    before its value's first occurrence (unsorted)."""
    (n,) = static_shape(data)
    one = te.const(1, "int32")

    def axis(name: str) -> te.IterVar:
        return te.reduce_axis((0, n), name)

    def count(name: str, condition: object) -> te.Tensor:
        """int32 (n,): at i, the j < n meeting condition(i, j)."""

        def body(i: PrimExpr) -> PrimExpr:
            j = axis("j")
            return te.sum(one, axis=j, where=condition(i, j))  # type: ignore[operator]

        return te.compute([n], body, name=f"T_unique_{name}")

    earlier = count("earlier", lambda i, j: te.all(j < i, data(j).equal(data(i))))
    first = injective([n], lambda i: earlier(i).equal(0), "T_unique_first")
    if is_sorted:
        rank = count("rank", lambda i, j: te.all(first(j), data(j) < data(i)))
    else:

        def position(i: PrimExpr) -> PrimExpr:
            j = axis("j")
            return te.min(j, axis=j, where=data(j).equal(data(i)))

        at = te.compute([n], position, name="T_unique_position")
        rank = count("rank", lambda i, j: te.all(first(j), j < at(i)))

    def pick(name: str, value: object, dtype: str) -> te.Tensor:
        """At k: value(j) of the first occurrence j of rank k (0 past the last)."""

        def body(k: PrimExpr) -> PrimExpr:
            j = axis("j")
            where = te.all(first(j), rank(j).equal(k))
            return te.sum(value(j), axis=j, where=where)  # type: ignore[operator]

        out = te.compute([n], body, name=f"T_unique_{name}")
        return out if out.dtype == dtype else injective([n], lambda k: out(k).astype(dtype), name)

    values = pick("values", lambda j: data(j), data.dtype)
    indices = pick("indices", lambda j: j.astype("int32"), "int32")

    def found_body(i: PrimExpr) -> PrimExpr:
        j = axis("j")
        return te.sum(one, axis=j, where=first(j))

    found = te.compute([1], found_body, name="T_unique_num")
    fields = (values, indices, rank, found)  # an element's rank is its inverse index
    if not counts:
        return fields
    tally = count("counts", lambda k, j: rank(j).equal(k))
    return (*fields, tally)
