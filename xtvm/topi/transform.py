"""TOPI's data-movement computes: every output element reads one input element.

Reshapes (and squeeze, expand_dims, batch_flatten) go through the row-major linear index;
concatenate and the modes of take select between reads, which lower to `scf.if`, so that only
the element taken is read.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from xtvm import te
from xtvm.dialects.relay import Layout
from xtvm.te.expr import PrimExpr
from xtvm.topi.tensor import TensorLike, broadcast_index, ravel, static_shape, unravel

Index = PrimExpr | int


def injective(shape: Sequence[int], body: object, name: str) -> te.Tensor:
    return te.compute(list(shape), body, name=name, tag="injective")  # type: ignore[arg-type]


def reshape(x: TensorLike, shape: Sequence[int], name: str = "T_reshape") -> te.Tensor:
    """Each run of output axes reads the run of input axes with the same number of elements
    (`aligned_runs`), so an axis both shapes keep is read as it is: ShuffleNet's channel
    shuffle, 112 channels split as 4 x 28 over 56 x 56 pixels, keeps its rows contiguous
    (vectorized), where one linear index divided back for every element was scalar."""
    source = static_shape(x)
    if list(source) == list(shape):
        return injective(shape, lambda *i: x(*i), name)
    runs = aligned_runs(source, shape)

    def body(*i: PrimExpr) -> PrimExpr:
        at: list[Index] = []
        for src, dst in runs:
            if len(src) == len(dst) == 1:
                at.append(i[dst.start])
            else:
                at += unravel(
                    ravel(i[dst.start : dst.stop], shape[dst.start : dst.stop]),
                    source[src.start : src.stop],
                )
        return x(*at)

    return injective(shape, body, name)


def aligned_runs(source: Sequence[int], shape: Sequence[int]) -> list[tuple[range, range]]:
    """Consecutive (input axes, output axes) runs of a reshape with equal element counts,
    each as short as can be; one run of all axes where the shapes share no boundary (or hold
    no element)."""
    whole = [(range(len(source)), range(len(shape)))]
    if 0 in source or 0 in shape:
        return whole
    runs: list[tuple[range, range]] = []
    i = j = 0
    while i < len(source) and j < len(shape):
        start_i, start_j = i, j
        have, want = source[i], shape[j]
        i, j = i + 1, j + 1
        while have != want:
            if have < want and i < len(source):
                have, i = have * source[i], i + 1
            elif have > want and j < len(shape):
                want, j = want * shape[j], j + 1
            else:
                return whole
        runs.append((range(start_i, i), range(start_j, j)))
    if not runs:
        return whole
    # trailing axes of one element join the last run
    last_src, last_dst = runs[-1]
    runs[-1] = (range(last_src.start, len(source)), range(last_dst.start, len(shape)))
    return runs


def transpose(x: TensorLike, perm: Sequence[int]) -> te.Tensor:
    source = static_shape(x)
    shape = [source[a] for a in perm]

    def body(*i: PrimExpr) -> PrimExpr:
        at: list[Index] = [0] * len(perm)
        for out_axis, in_axis in enumerate(perm):
            at[in_axis] = i[out_axis]
        return x(*at)

    return injective(shape, body, "T_transpose")


def concatenate(inputs: Sequence[TensorLike], axis: int) -> te.Tensor:
    shapes = [static_shape(x) for x in inputs]
    axis %= len(shapes[0])
    ends: list[int] = []
    for shape in shapes:
        ends.append((ends[-1] if ends else 0) + shape[axis])
    out = list(shapes[0])
    out[axis] = ends[-1]

    def read(k: int, i: Sequence[PrimExpr]) -> PrimExpr:
        start = ends[k] - shapes[k][axis]
        at = list(i)
        at[axis] = i[axis] - start if start else i[axis]
        return inputs[k](*at)

    def body(*i: PrimExpr) -> PrimExpr:
        value = read(len(inputs) - 1, i)
        for k in reversed(range(len(inputs) - 1)):
            value = te.if_then_else(i[axis] < ends[k], read(k, i), value)
        return value

    return injective(out, body, "T_concat")


def split(x: TensorLike, points: Sequence[int], axis: int) -> tuple[te.Tensor, ...]:
    """The pieces between consecutive `points` (0 ... size) along `axis`."""
    shape = static_shape(x)
    pieces = []
    for start, stop in itertools.pairwise(points):
        out = list(shape)
        out[axis] = stop - start

        def body(*i: PrimExpr, start: int = start) -> PrimExpr:
            at = list(i)
            at[axis] = i[axis] + start if start else i[axis]
            return x(*at)

        pieces.append(injective(out, body, "T_split"))
    return tuple(pieces)


def strided_slice(x: TensorLike, slices: Sequence[slice]) -> te.Tensor:
    """`x[slices]` with Python's slice rules (the relay op has resolved them)."""
    shape = static_shape(x)
    ranges = [range(*s.indices(d)) for s, d in zip(slices, shape, strict=True)]

    def body(*i: PrimExpr) -> PrimExpr:
        at: list[Index] = []
        for index, r in zip(i, ranges, strict=True):
            scaled = index * r.step if r.step != 1 else index
            at.append(scaled + r.start if r.start else scaled)
        return x(*at)

    return injective([len(r) for r in ranges], body, "T_strided_slice")


def take(data: TensorLike, indices: TensorLike, axis: int | None, mode: str) -> te.Tensor:
    """Gather along `axis` (of the flattened data if None); clip clamps indices, wrap takes
    them modulo the size, fast lets negative ones count from the end."""
    shape = static_shape(data)
    index_shape = static_shape(indices)
    size = 1
    for d in shape if axis is None else (shape[axis],):
        size *= d

    def position(index: PrimExpr) -> PrimExpr:
        if index.dtype not in ("int32", "int64"):  # uint8, int8: `size - 1` may not fit them
            index = index.astype("int64")
        if mode == "clip":
            return te.min(te.max(index, 0), size - 1)
        if mode == "wrap":
            return index % size
        return te.if_then_else(index < 0, index + size, index)

    if axis is None:
        return injective(
            index_shape,
            lambda *i: data(*unravel(position(indices(*i)), shape)),
            "T_take",
        )
    rank = len(index_shape)
    out = [*shape[:axis], *index_shape, *shape[axis + 1 :]]

    def body(*i: PrimExpr) -> PrimExpr:
        where = position(indices(*i[axis : axis + rank]))
        return data(*i[:axis], where, *i[axis + rank :])

    return injective(out, body, "T_take")


def broadcast_to(x: TensorLike, shape: Sequence[int]) -> te.Tensor:
    source = static_shape(x)
    return injective(shape, lambda *i: x(*broadcast_index(i, source)), "T_broadcast_to")


def tile(x: TensorLike, reps: Sequence[int]) -> te.Tensor:
    source = static_shape(x)
    rank = max(len(source), len(reps))
    padded = [1] * (rank - len(source)) + list(source)
    full = [1] * (rank - len(reps)) + list(reps)
    out = [d * r for d, r in zip(padded, full, strict=True)]
    lead = rank - len(source)

    def body(*i: PrimExpr) -> PrimExpr:
        return x(*(i[lead + k] % d if d > 1 else 0 for k, d in enumerate(source)))

    return injective(out, body, "T_tile")


def layout_transform(x: TensorLike, src: str, dst: str) -> te.Tensor:
    """Between layouts such as NCHW, NHWC and NCHW8c: each primal axis is rebuilt from the
    destination indices, then split again as the source lays it out."""
    source, target = Layout.parse(src), Layout.parse(dst)
    sizes = source.primal_sizes(static_shape(x))
    out = target.shape(sizes)

    def body(*i: PrimExpr) -> PrimExpr:
        primal: dict[str, Index] = {}
        for axis in target.primal:
            outer = i[target.axes.index(axis)]
            factor = target.factors.get(axis)
            primal[axis] = (
                outer if factor is None else outer * factor + i[target.axes.index(axis.lower())]
            )
        return x(*source.indices(primal))

    return injective(out, body, "T_layout_trans")


def depth_to_space(x: TensorLike, block: int, nhwc: bool, mode: str) -> te.Tensor:
    """Channels into block x block spatial blocks (DCR: block-major channels, CDR:
    channel-major)."""
    shape = static_shape(x)
    c_axis, h_axis, w_axis = (3, 1, 2) if nhwc else (1, 2, 3)
    per_block = shape[c_axis] // (block * block)
    out = list(shape)
    out[c_axis], out[h_axis], out[w_axis] = per_block, shape[h_axis] * block, shape[w_axis] * block

    def body(*i: PrimExpr) -> PrimExpr:
        c, y, xx = i[c_axis], i[h_axis], i[w_axis]
        offset = (y % block) * block + xx % block
        channel = offset * per_block + c if mode == "DCR" else c * (block * block) + offset
        at = list(i)
        at[c_axis], at[h_axis], at[w_axis] = channel, y // block, xx // block
        return x(*at)

    return te.compute(out, body, name="T_depth_to_space", tag="injective")


def space_to_depth(x: TensorLike, block: int, nhwc: bool) -> te.Tensor:
    """block x block spatial blocks into channels, block-major."""
    shape = static_shape(x)
    c_axis, h_axis, w_axis = (3, 1, 2) if nhwc else (1, 2, 3)
    channels = shape[c_axis]
    out = list(shape)
    out[c_axis] = channels * block * block
    out[h_axis], out[w_axis] = shape[h_axis] // block, shape[w_axis] // block

    def body(*i: PrimExpr) -> PrimExpr:
        oc, h, w = i[c_axis], i[h_axis], i[w_axis]
        k = oc // channels
        at = list(i)
        at[c_axis] = oc % channels
        at[h_axis], at[w_axis] = h * block + k // block, w * block + k % block
        return x(*at)

    return te.compute(out, body, name="T_space_to_depth", tag="injective")


def strided_set(x: TensorLike, v: TensorLike, slices: Sequence[slice]) -> te.Tensor:
    """x, except at the elements of its strided slice, which read v (broadcast to the slice):
    position i of an axis is the slice's k-th element when i = start + k * step, k < count."""
    shape = static_shape(x)
    value_shape = static_shape(v)
    steps = [s.indices(d) for s, d in zip(slices, shape, strict=True)]
    counts = [len(range(*r)) for r in steps]

    def body(*i: PrimExpr) -> PrimExpr:
        conditions, ks = [], []
        for at, (start, _, step), count in zip(i, steps, counts, strict=True):
            offset = at - start if step > 0 else start - at  # non-negative inside
            conditions += [offset >= 0, offset < count * abs(step)]
            if abs(step) != 1:
                conditions.append((offset % abs(step)).equal(0))
            ks.append(offset // abs(step))
        lead = len(shape) - len(value_shape)
        source = [0 if d == 1 else k for k, d in zip(ks[lead:], value_shape, strict=True)]
        clamped = [te.min(te.max(k, 0), d - 1) for k, d in zip(source, value_shape, strict=True)]
        inside = te.all(*conditions) if 0 not in counts else te.const(False, "bool")
        return te.if_then_else(inside, v(*clamped), x(*i))

    return injective(shape, body, "T_strided_set")


def space_to_batch_nd(
    x: TensorLike, block: Sequence[int], paddings: Sequence[int], pad_value: float
) -> te.Tensor:
    """Output batch offset * N + n (offset row-major over `block`) at spatial p reads the
    padded input at (n, p * block + offset); pad_value where that falls in the padding."""
    shape = static_shape(x)
    n, m = shape[0], len(block)
    befores = paddings[::2]
    sizes = [
        (shape[1 + i] + paddings[2 * i] + paddings[2 * i + 1]) // b for i, b in enumerate(block)
    ]
    out = [n * math.prod(block), *sizes, *shape[m + 1 :]]

    def body(*i: PrimExpr) -> PrimExpr:
        offset_flat, batch = i[0] // n, i[0] % n
        at, inside = [batch], []
        for k, b in enumerate(block):
            stride = math.prod(block[k + 1 :])
            offset = offset_flat // stride % b
            source = i[1 + k] * b + offset - befores[k]
            inside += [source >= 0, source < shape[1 + k]]
            at.append(te.min(te.max(source, 0), shape[1 + k] - 1))
        value = x(*at, *i[m + 1 :])
        return te.if_then_else(te.all(*inside), value, te.const(pad_value, x.dtype))

    return injective(out, body, "T_space_to_batch_nd")


def batch_to_space_nd(x: TensorLike, block: Sequence[int], crops: Sequence[int]) -> te.Tensor:
    """Output (n, p) reads input batch offset * N + n at (p + crop_begin) // block, with
    offset = (p + crop_begin) % block (row-major over `block`)."""
    shape = static_shape(x)
    m = len(block)
    n = shape[0] // math.prod(block)
    sizes = [shape[1 + i] * b - crops[2 * i] - crops[2 * i + 1] for i, b in enumerate(block)]
    out = [n, *sizes, *shape[m + 1 :]]

    def body(*i: PrimExpr) -> PrimExpr:
        offset_flat: PrimExpr | int = 0
        at = []
        for k, b in enumerate(block):
            full = i[1 + k] + crops[2 * k]
            offset_flat = offset_flat * b + full % b
            at.append(full // b)
        return x(offset_flat * n + i[0], *at, *i[m + 1 :])

    return injective(out, body, "T_batch_to_space_nd")
