"""TOPI's neural-network computes: convolution, matrix products, normalisation, pooling,
padding and resizing, each a few `te.compute` stages mirroring the relay interpreter's rule.

Convolutions read their input through a padding stage (`pad_temp`), which a fused kernel
inlines; products and reductions accumulate in `accumulator(dtype)` (float16 in float32) and
a last stage narrows back. Each op's main stage carries a tag (`conv2d_nchw`, `dense`, ...)
that the default schedules recognise.
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Callable, Sequence

import numpy as np

from xtvm import te
from xtvm.dialects.relay import Layout
from xtvm.te.expr import ClampedSelect, PrimExpr, as_expr
from xtvm.topi.elementwise import elementwise, round_half_even
from xtvm.topi.tensor import TensorLike, accumulator, is_float, lowest, static_shape

Index = PrimExpr | int


def wide(value: PrimExpr) -> PrimExpr:
    """`value` in the type sums of its type accumulate in (float16 widens to float32)."""
    acc = accumulator(value.dtype)
    return value if acc == value.dtype else value.astype(acc)


def narrow(value: PrimExpr, dtype: str) -> PrimExpr:
    """`value` back in `dtype` after a widened computation."""
    return value if value.dtype == dtype else value.astype(dtype)


def summed(expr: PrimExpr, axes: Sequence[te.IterVar]) -> PrimExpr:
    """The sum of `expr` over `axes`, accumulated in the wider type where there is one."""
    return te.sum(wide(expr), axis=list(axes))


def dot(a: PrimExpr, b: PrimExpr, axes: Sequence[te.IterVar]) -> PrimExpr:
    """The sum of products over `axes`, each factor widened first (as the interpreter's
    products of widened arrays)."""
    return te.sum(wide(a) * wide(b), axis=list(axes))


def narrowed(t: te.Tensor, dtype: str) -> te.Tensor:
    """`t` in `dtype`: itself, or a cast stage after a widened accumulation."""
    return t if t.dtype == dtype else elementwise(t, lambda v: v.astype(dtype), f"{t.name}_cast")


def pad(
    x: TensorLike,
    before: Sequence[int],
    after: Sequence[int],
    value: float = 0.0,
    mode: str = "constant",
    name: str = "pad_temp",
    clamped: bool = False,
) -> te.Tensor:
    """`x` padded by `before`/`after` per axis (negative amounts crop), numpy's modes.

    `clamped` (constant mode): the read of `x` is clamped into bounds and the fill chosen by
    a `te.ClampedSelect`, so that a consumer computing the padding inline selects instead of
    branching around each read."""
    shape = static_shape(x)
    out = [d + b + a for d, b, a in zip(shape, before, after, strict=True)]
    fill = np.array(value).astype(x.dtype).item()

    def source(i: PrimExpr, b: int, d: int) -> Index:
        j = i - b if b else i
        if mode == "edge" or (clamped and b):
            return te.min(te.max(j, 0), d - 1)
        if mode == "reflect":
            return te.if_then_else(j < 0, -j, te.if_then_else(j >= d, 2 * (d - 1) - j, j))
        return j

    def body(*i: PrimExpr) -> object:
        sources = [source(v, b, d) for v, b, d in zip(i, before, shape, strict=True)]
        value = x(*sources)
        if mode != "constant":
            return value
        unclamped = [v - b if b else v for v, b in zip(i, before, strict=True)]
        inside = [j >= 0 for j, b in zip(unclamped, before, strict=True) if b > 0]
        inside += [j < d for j, d, a in zip(unclamped, shape, after, strict=True) if a > 0]
        if not inside:
            return value
        if clamped:
            return ClampedSelect(te.all(*inside), value, as_expr(fill, value.dtype))
        return te.if_then_else(te.all(*inside), value, fill)

    return te.compute(out, body, name=name, tag="injective,pad")


# ---------------------------------------------------------------------------------------------
# Convolution


def tap(out: PrimExpr, stride: int, k: PrimExpr, dilation: int) -> PrimExpr:
    """The input coordinate `out * stride + k * dilation` of a window tap (no unit factors)."""
    return (out * stride if stride != 1 else out) + (k * dilation if dilation != 1 else k)


def conv2d(
    data: TensorLike,
    kernel: TensorLike,
    strides: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
    data_layout: str = "NCHW",
    kernel_layout: str = "OIHW",
) -> te.Tensor:
    """Grouped, dilated 2-d cross-correlation, NCHW or NHWC data; the kernel in any layout of
    O, I, H, W, blocked ones included (`OHWI16o`: output-channel blocks, each a contiguous
    slab the register tile walks)."""
    pt, pl, pb, pr = padding
    nhwc = data_layout == "NHWC"
    before = (0, pt, pl, 0) if nhwc else (0, 0, pt, pl)
    after = (0, pb, pr, 0) if nhwc else (0, 0, pb, pr)
    layout = Layout.parse(kernel_layout)
    k_sizes = layout.primal_sizes(static_shape(kernel))
    out_channels, in_per_group, kh, kw = (k_sizes[a] for a in "OIHW")
    per_group_out = out_channels // groups
    n, *rest = static_shape(data)
    h, w = (rest[0], rest[1]) if nhwc else (rest[1], rest[2])
    oh = (h + pt + pb - dilation[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (w + pl + pr - dilation[1] * (kw - 1) - 1) // strides[1] + 1
    rc = te.reduce_axis((0, in_per_group), "rc") if in_per_group > 1 else None
    ry = te.reduce_axis((0, kh), "ry")
    rx = te.reduce_axis((0, kw), "rx")
    axes = [a for a in (rc, ry, rx) if a is not None]

    def weight(f: PrimExpr, c: Index, y: PrimExpr, x: PrimExpr) -> PrimExpr:
        return kernel(*layout.indices({"O": f, "I": c, "H": y, "W": x}))

    def channel(f: PrimExpr) -> Index:
        base = (f // per_group_out) * in_per_group if groups > 1 else 0
        if rc is None:
            return base
        return rc if isinstance(base, int) else base + rc

    def window(y: PrimExpr, x: PrimExpr) -> tuple[PrimExpr, PrimExpr]:
        return tap(y, strides[0], ry, dilation[0]), tap(x, strides[1], rx, dilation[1])

    kind = "depthwise_conv2d" if groups > 1 and in_per_group == 1 else "conv2d"
    # An NHWC depthwise conv2d reads its padding inline (`schedule.reads_padding_inline`):
    # clamped reads and a select, one copy of the loop nest instead of partitioned ones.
    clamped = kind == "depthwise_conv2d" and nhwc
    padded = pad(data, before, after, clamped=clamped) if any(padding) else data
    workload = (
        "conv2d",
        static_shape(data),
        static_shape(kernel),
        tuple(strides),
        tuple(padding),
        tuple(dilation),
        groups,
        data_layout,
        kernel_layout,
        data.dtype,
    )
    if nhwc:

        def body_nhwc(n: PrimExpr, y: PrimExpr, x: PrimExpr, f: PrimExpr) -> PrimExpr:
            iy, ix = window(y, x)
            k = weight(f, rc if rc is not None else 0, ry, rx)
            return dot(padded(n, iy, ix, channel(f)), k, axes)

        out = te.compute(
            (n, oh, ow, out_channels),
            body_nhwc,
            name=f"{kind}_nhwc",
            tag=f"{kind}_nhwc",
            attrs={"per_group_out": per_group_out, "workload": workload},
        )
    else:

        def body_nchw(n: PrimExpr, f: PrimExpr, y: PrimExpr, x: PrimExpr) -> PrimExpr:
            iy, ix = window(y, x)
            k = weight(f, rc if rc is not None else 0, ry, rx)
            return dot(padded(n, channel(f), iy, ix), k, axes)

        out = te.compute(
            (n, out_channels, oh, ow),
            body_nchw,
            name=f"{kind}_nchw",
            tag=f"{kind}_nchw",
            attrs={"per_group_out": per_group_out, "workload": workload},
        )
    return narrowed(out, data.dtype)


def converted(t: TensorLike, dtype: str) -> TensorLike:
    """`t` read in `dtype` (a convolution's out_dtype): itself, or a cast stage the kernel
    inlines."""
    if not dtype or t.dtype == dtype:
        return t
    return elementwise(t, lambda v: v.astype(dtype), f"{t.name}_{dtype}")


def layout_axes(layout: str) -> tuple[int, list[int]]:
    """The channel axis and the spatial axes (depth, height, width order) of a data layout."""
    return layout.index("C"), [layout.index(a) for a in "DHW" if a in layout]


def kernel_window(
    kernel: TensorLike, kernel_layout: str, dims: int
) -> tuple[str, Layout, dict[str, int], list[int]]:
    """A convolution kernel's spatial letters (`DHW`, `HW`, `W`), parsed layout, size per
    letter and window extent per spatial axis."""
    letters = "DHW"[3 - dims :]
    layout = Layout.parse(kernel_layout)
    sizes = layout.primal_sizes(static_shape(kernel))
    return letters, layout, sizes, [sizes[a] for a in letters]


def conv_nd(
    data: TensorLike,
    kernel: TensorLike,
    strides: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
    data_layout: str,
    kernel_layout: str,
    out_dtype: str = "",
) -> te.Tensor:
    """Grouped, dilated cross-correlation over 1 to 3 spatial axes: data channels first or
    last (NCDHW, NDHWC, ...), the kernel in any order of O, I and the spatial letters;
    padding is every spatial axis's before, then every after. With out_dtype both operands
    are converted to it first (TVM's)."""
    data, kernel = converted(data, out_dtype), converted(kernel, out_dtype)
    dims = len(strides)
    spatial_letters, layout, sizes, kernel_size = kernel_window(kernel, kernel_layout, dims)
    c_axis, axes = layout_axes(data_layout)
    out_channels, in_per_group = sizes["O"], sizes["I"]
    shape = static_shape(data)
    before, after = [0] * len(shape), [0] * len(shape)
    out_shape = list(shape)
    out_shape[c_axis] = out_channels
    for j, a in enumerate(axes):
        before[a], after[a] = padding[j], padding[dims + j]
        span = dilation[j] * (kernel_size[j] - 1) + 1
        out_shape[a] = (shape[a] + padding[j] + padding[dims + j] - span) // strides[j] + 1
    padded = pad(data, before, after) if any(padding) else data
    rc = te.reduce_axis((0, in_per_group), "rc")
    taps = [
        te.reduce_axis((0, k), f"r{a.lower()}")
        for k, a in zip(kernel_size, spatial_letters, strict=True)
    ]
    per_group_out = out_channels // groups

    def body(*i: PrimExpr) -> PrimExpr:
        f = i[c_axis]
        at = list(i)
        at[c_axis] = (f // per_group_out) * in_per_group + rc if groups > 1 else rc
        for j, a in enumerate(axes):
            at[a] = tap(i[a], strides[j], taps[j], dilation[j])
        w = kernel(
            *layout.indices({"O": f, "I": rc, **dict(zip(spatial_letters, taps, strict=True))})
        )
        return dot(padded(*at), w, [rc, *taps])

    name = f"conv{dims}d_{data_layout.lower()}"
    out = te.compute(out_shape, body, name=name, tag=name)
    return narrowed(out, data.dtype)


def conv_transpose(
    data: TensorLike,
    kernel: TensorLike,
    strides: Sequence[int],
    padding: Sequence[int],
    output_padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
    data_layout: str = "NCHW",
    kernel_layout: str = "IOHW",
    out_dtype: str = "",
) -> te.Tensor:
    """Transposed convolution over 1 to 3 spatial axes (kernel letter I: all input channels,
    O: output channels per group): the stride-dilated input, channels first, padded by
    dilation * (k - 1) - padding (negative crops), convolved with the flipped kernel."""
    data, kernel = converted(data, out_dtype), converted(kernel, out_dtype)
    dims = len(strides)
    spatial_letters, layout, sizes, kernel_size = kernel_window(kernel, kernel_layout, dims)
    c_axis, axes = layout_axes(data_layout)
    cin, per_group_out = sizes["I"], sizes["O"]
    shape = static_shape(data)
    size = [shape[a] for a in axes]
    dilated: TensorLike = data
    if any(s > 1 for s in strides) or c_axis != 1:

        def spread(n: PrimExpr, c: PrimExpr, *p: PrimExpr) -> PrimExpr:
            at: list[PrimExpr] = [n] * len(shape)
            at[c_axis] = c
            on_grid = []
            for j, a in enumerate(axes):
                at[a] = p[j] // strides[j] if strides[j] > 1 else p[j]
                if strides[j] > 1:
                    on_grid.append((p[j] % strides[j]).equal(0))
            value = data(*at)
            return te.if_then_else(te.all(*on_grid), value, 0) if on_grid else value

        grid = [(d - 1) * s + 1 for d, s in zip(size, strides, strict=True)]
        dilated = te.compute(
            (shape[0], shape[c_axis], *grid), spread, name="dilate", tag="injective"
        )
    extent = [d * (k - 1) for d, k in zip(dilation, kernel_size, strict=True)]
    lo = [e - p for e, p in zip(extent, padding[:dims], strict=True)]
    hi = [e - p + o for e, p, o in zip(extent, padding[dims:], output_padding, strict=True)]
    padded = pad(dilated, (0, 0, *lo), (0, 0, *hi))
    in_per_group = cin // groups

    def flipped(o: PrimExpr, i: PrimExpr, *k: PrimExpr) -> PrimExpr:
        group_in = (o // per_group_out) * in_per_group + i if groups > 1 else i
        at = {a: ks - 1 - t for a, ks, t in zip(spatial_letters, kernel_size, k, strict=True)}
        return kernel(*layout.indices({"I": group_in, "O": o % per_group_out, **at}))

    flipped_kernel = te.compute(
        (groups * per_group_out, in_per_group, *kernel_size),
        flipped,
        name="kernel_flip",
        tag="injective",
    )
    first = "NC" + spatial_letters
    if dims == 2:
        out = conv2d(padded, flipped_kernel, (1, 1), (0, 0, 0, 0), dilation, groups)
    else:
        zero = (0,) * (2 * dims)
        out = conv_nd(
            padded, flipped_kernel, (1,) * dims, zero, dilation, groups, first, "OI" + first[2:]
        )
    if c_axis == 1:
        return out
    out_shape = [static_shape(out)[first.index(a)] for a in data_layout]
    return te.compute(
        out_shape,
        lambda *i: out(*(i[data_layout.index(a)] for a in first)),
        name="T_transpose",
        tag="injective",
    )


def bitpack(
    data: TensorLike, bits: int, pack_axis: int, bit_axis: int, pack_type: str
) -> te.Tensor:
    """Bit planes of integer data packed into pack_type words along pack_axis, the plane a
    new axis at bit_axis; an element's bit is floor(v / 2^b) mod 2 (two's complement)."""
    shape = list(static_shape(data))
    width = int(np.dtype(pack_type).itemsize * 8)
    pack_axis %= len(shape)
    out_shape = list(shape)
    out_shape[pack_axis] //= width
    out_shape.insert(bit_axis, bits)
    wide = "int64"

    def body(*i: PrimExpr) -> PrimExpr:
        plane = i[bit_axis]
        rest = list(i[:bit_axis]) + list(i[bit_axis + 1 :])
        divisor: PrimExpr = te.const(1, wide)  # 2 ** plane
        for b in range(1, bits):
            divisor = te.if_then_else(plane.equal(b), te.const(1 << b, wide), divisor)
        word: PrimExpr | None = None
        for j in range(width):
            at = list(rest)
            at[pack_axis] = rest[pack_axis] * width + j
            value = data(*at).astype(wide)
            bit = te.floormod(te.floordiv(value, divisor), 2)
            term = bit.astype(pack_type) * te.const(1 << (width - 1 - j), pack_type)
            word = term if word is None else word + term
        assert word is not None
        return word

    return te.compute(out_shape, body, name="bitpack", tag="injective")


def dense(data: TensorLike, weight: TensorLike) -> te.Tensor:
    """data [..., k] times weight [units, k] transposed."""
    *lead, k_extent = static_shape(data)
    units = static_shape(weight)[0]
    k = te.reduce_axis((0, k_extent), "k")

    def body(*i: PrimExpr) -> PrimExpr:
        return dot(data(*i[:-1], k), weight(i[-1], k), [k])

    workload = ("dense", static_shape(data), static_shape(weight), data.dtype)
    out = te.compute(
        (*lead, units), body, name="T_dense", tag="dense", attrs={"workload": workload}
    )
    return narrowed(out, data.dtype)


def matmul(a: TensorLike, b: TensorLike, transpose_a: bool, transpose_b: bool) -> te.Tensor:
    """a [..., m, k] (or [..., k, m]) times b [k, n] (or [n, k])."""
    a_shape, b_shape = static_shape(a), static_shape(b)
    k_extent = a_shape[-2] if transpose_a else a_shape[-1]
    n = b_shape[0] if transpose_b else b_shape[1]
    lead = [*a_shape[:-2], a_shape[-1]] if transpose_a else list(a_shape[:-1])
    k = te.reduce_axis((0, k_extent), "k")

    def body(*i: PrimExpr) -> PrimExpr:
        *rows, j = i
        left = a(*rows[:-1], k, rows[-1]) if transpose_a else a(*rows, k)
        right = b(j, k) if transpose_b else b(k, j)
        return dot(left, right, [k])

    workload = ("matmul", a_shape, b_shape, transpose_a, transpose_b, a.dtype)
    out = te.compute((*lead, n), body, name="T_matmul", tag="matmul", attrs={"workload": workload})
    return narrowed(out, a.dtype)


def batch_matmul(x: TensorLike, y: TensorLike, transpose_a: bool, transpose_b: bool) -> te.Tensor:
    """x [b, m, k] times y [b, n, k] transposed (TVM's default), batches broadcast."""
    bx, *x_rest = static_shape(x)
    by, *y_rest = static_shape(y)
    m, k_extent = (x_rest[1], x_rest[0]) if transpose_a else (x_rest[0], x_rest[1])
    n = y_rest[0] if transpose_b else y_rest[1]
    k = te.reduce_axis((0, k_extent), "k")

    def body(b: PrimExpr, i: PrimExpr, j: PrimExpr) -> PrimExpr:
        xb, yb = (b if bx > 1 else 0), (b if by > 1 else 0)
        left = x(xb, k, i) if transpose_a else x(xb, i, k)
        right = y(yb, j, k) if transpose_b else y(yb, k, j)
        return dot(left, right, [k])

    workload = (
        "batch_matmul",
        static_shape(x),
        static_shape(y),
        transpose_a,
        transpose_b,
        x.dtype,
    )
    out = te.compute(
        (max(bx, by), m, n),
        body,
        name="T_batch_matmul",
        tag="batch_matmul",
        attrs={"workload": workload},
    )
    return narrowed(out, x.dtype)


# ---------------------------------------------------------------------------------------------
# Channel vectors, normalisation


def along(vector: TensorLike, indices: Sequence[PrimExpr], axis: int) -> PrimExpr:
    """The element of a 1-d vector laid along `axis`, at output `indices`."""
    return vector(indices[axis])


def bias_add(data: TensorLike, bias: TensorLike, axis: int) -> te.Tensor:
    return te.compute(
        data.shape, lambda *i: data(*i) + along(bias, i, axis), name="T_bias_add", tag="broadcast"
    )


def prelu(data: TensorLike, alpha: TensorLike, axis: int) -> te.Tensor:
    def body(*i: PrimExpr) -> PrimExpr:
        x = data(*i)
        return te.max(x, 0.0) + along(alpha, i, axis) * te.min(x, 0.0)

    return te.compute(data.shape, body, name="T_prelu", tag="broadcast")


def batch_norm(
    data: TensorLike,
    gamma: TensorLike,
    beta: TensorLike,
    mean: TensorLike,
    var: TensorLike,
    axis: int,
    epsilon: float,
    center: bool,
    scale: bool,
) -> tuple[TensorLike, ...]:
    """Inference batch norm: (out, mean, var), as TVM's 3-tuple."""

    def body(*i: PrimExpr) -> PrimExpr:
        c = i[axis]
        factor = 1.0 / te.sqrt(var(c) + epsilon)
        if scale:
            factor = factor * gamma(c)
        out = (data(*i) - mean(c)) * factor
        return out + beta(c) if center else out

    out = te.compute(data.shape, body, name="T_batch_norm", tag="broadcast")
    return out, mean, var


def drop_axis(indices: Sequence[PrimExpr], axis: int) -> tuple[PrimExpr, ...]:
    return (*indices[:axis], *indices[axis + 1 :])


def with_axis(indices: Sequence[Index], axis: int, value: Index) -> tuple[Index, ...]:
    return (*indices[:axis], value, *indices[axis:])


LAYER_NORM_TAG = "injective,layer_norm"  # its CPU schedule computes the statistics per row


def layer_norm(
    data: TensorLike,
    gamma: TensorLike,
    beta: TensorLike,
    axis: int,
    epsilon: float,
    center: bool,
    scale: bool,
) -> te.Tensor:
    """(x - mean) / sqrt(var + epsilon) along `axis`, scaled and shifted, in the wider type.

    The statistics are two independent sums over the row, of `x - s` and of its square, `s`
    being the row's first element (the shift keeps E[d^2] - E[d]^2 from cancelling when the
    mean is large against the spread): no stage reads another, so a schedule may compute both
    per row and normalise the row while it is in cache (`cpu_layer_norm`)."""
    shape = static_shape(data)
    size = shape[axis]
    reduced = shape[:axis] + shape[axis + 1 :]

    def element(*i: Index) -> PrimExpr:
        return wide(data(*i))

    def shifted(i: Sequence[PrimExpr], k: Index) -> PrimExpr:
        return element(*with_axis(i, axis, k)) - element(*with_axis(i, axis, 0))

    k = te.reduce_axis((0, size), "k")
    total = te.compute(
        reduced, lambda *i: te.sum(shifted(i, k), axis=k), name="T_ln_sum", tag="comm_reduce"
    )
    k2 = te.reduce_axis((0, size), "k")

    def squares(*i: PrimExpr) -> PrimExpr:
        d = shifted(i, k2)
        return te.sum(d * d, axis=k2)

    square_sum = te.compute(reduced, squares, name="T_ln_square_sum", tag="comm_reduce")

    def body(*i: PrimExpr) -> PrimExpr:
        rest = drop_axis(i, axis)
        mean = total(*rest) / float(size)
        variance = te.max(square_sum(*rest) / float(size) - mean * mean, 0.0)
        # one division per row, a product per element (a vector division is 10x slower)
        out = (shifted(rest, i[axis]) - mean) * (1.0 / te.sqrt(variance + epsilon))
        if scale:
            out = out * wide(gamma(i[axis]))
        if center:
            out = out + wide(beta(i[axis]))
        return narrow(out, data.dtype)

    return te.compute(shape, body, name="T_layer_norm", tag=LAYER_NORM_TAG)


def softmax(data: TensorLike, axis: int, log: bool = False) -> te.Tensor:
    """exp(x - max) / sum(exp(x - max)) along `axis`, or its logarithm."""
    shape = static_shape(data)
    reduced = shape[:axis] + shape[axis + 1 :]
    k = te.reduce_axis((0, shape[axis]), "k")
    max_elem = te.compute(
        reduced,
        lambda *i: te.max(data(*with_axis(i, axis, k)), axis=k),
        name="T_softmax_maxelem",
        tag="comm_reduce",
    )
    k2 = te.reduce_axis((0, shape[axis]), "k")

    def shifted(i: Sequence[Index], rest: Sequence[Index]) -> PrimExpr:
        return wide(data(*i) - max_elem(*rest))

    exp_sum = te.compute(
        reduced,
        lambda *i: te.sum(te.exp(shifted(with_axis(i, axis, k2), i)), axis=k2),
        name="T_softmax_expsum",
        tag="comm_reduce",
    )

    def body(*i: PrimExpr) -> PrimExpr:
        rest = drop_axis(i, axis)
        value = shifted(i, rest)
        out = value - te.log(exp_sum(*rest)) if log else te.exp(value) / exp_sum(*rest)
        return narrow(out, data.dtype)

    name = "T_log_softmax" if log else "T_softmax_norm"
    return te.compute(shape, body, name=name, tag="injective")


def lrn(
    data: TensorLike, size: int, axis: int, alpha: float, beta: float, bias: float
) -> te.Tensor:
    """x / (bias + alpha / size * sum of squares over `size` neighbours) ** beta."""
    shape = static_shape(data)
    before = size // 2
    r = te.reduce_axis((0, size), "r")

    def squares(*i: PrimExpr) -> PrimExpr:
        c = i[axis] + r - before
        value = wide(data(*(*i[:axis], c, *i[axis + 1 :])))
        inside = te.all(c >= 0, c < shape[axis])
        return te.sum(te.if_then_else(inside, value * value, 0.0), axis=r)

    sq_sum = te.compute(shape, squares, name="T_lrn_sqsum", tag="comm_reduce")

    def body(*i: PrimExpr) -> PrimExpr:
        out = wide(data(*i)) / te.power(bias + (alpha / size) * sq_sum(*i), beta)
        return narrow(out, data.dtype)

    return te.compute(shape, body, name="T_lrn", tag="injective")


# ---------------------------------------------------------------------------------------------
# Pooling


def spatial(layout: str) -> tuple[int, int]:
    return (1, 2) if layout == "NHWC" else (2, 3)


def padding_lowest(dtype: str) -> float | int | bool:
    """The padding of a max pool: the lowest finite value of `dtype` (TVM's `min_value`)."""
    return float(np.finfo(dtype).min) if is_float(dtype) else lowest(dtype)


def pool_nd(
    data: TensorLike,
    out_shape: Sequence[int],
    kind: str,
    pool_size: Sequence[int],
    strides: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    layout: str,
    count_include_pad: bool = False,
) -> te.Tensor:
    """Max or average over windows of the spatial axes of `layout` (NCHW, NDHWC, ...);
    padding is every spatial axis's before, then every after. The windows ceil_mode adds
    past the far padding extend it and are never counted (the relay interpreter's rule)."""
    shape = static_shape(data)
    _, axes = layout_axes(layout)
    dims = len(axes)
    before, after = [0] * len(shape), [0] * len(shape)
    for j, a in enumerate(axes):
        reach = (out_shape[a] - 1) * strides[j] + dilation[j] * (pool_size[j] - 1) + 1
        extra = max(0, reach - (shape[a] + padding[j] + padding[dims + j]))
        before[a], after[a] = padding[j], padding[dims + j] + extra
    is_max = kind == "max"
    # TVM's max pools pad with the lowest finite value: a window wholly in the padding gives it
    fill = padding_lowest(data.dtype) if is_max else 0.0
    padded = pad(data, before, after, fill) if any(before) or any(after) else data
    taps = [te.reduce_axis((0, k), f"r{j}") for j, k in enumerate(pool_size)]

    def window(i: Sequence[PrimExpr]) -> list[PrimExpr]:
        at = list(i)
        for j, a in enumerate(axes):
            at[a] = tap(i[a], strides[j], taps[j], dilation[j])
        return at

    if is_max:
        return te.compute(
            out_shape,
            lambda *i: te.max(padded(*window(i)), axis=taps),
            name="pool_max",
            tag="pool_max",
        )
    total = te.compute(
        out_shape, lambda *i: summed(padded(*window(i)), taps), name="pool_sum", tag="pool_sum"
    )

    def counted(j: int, o: PrimExpr) -> PrimExpr:
        """Taps of the window at output `o` of spatial axis j that count: at padded
        coordinates of all the declared padding, or of the data alone."""
        size, pad_before = shape[axes[j]], padding[j]
        low, high = (
            (0, pad_before + size + padding[dims + j])
            if count_include_pad
            else (
                pad_before,
                pad_before + size,
            )
        )
        start, dil, k = o * strides[j], dilation[j], pool_size[j]

        def taps_below(bound: int) -> PrimExpr:  # window taps at padded coordinate < bound
            return te.min(te.max((bound - start + dil - 1) // dil, 0), k)

        return taps_below(high) - taps_below(low)

    def body(*i: PrimExpr) -> PrimExpr:
        count = functools.reduce(operator.mul, [counted(j, i[a]) for j, a in enumerate(axes)])
        count = te.max(count, 1)
        value = total(*i)
        if is_float(data.dtype):
            return (value / count.astype(value.dtype)).astype(data.dtype)
        return (value.astype("float64") / count.astype("float64")).astype(data.dtype)

    return te.compute(out_shape, body, name="pool_avg", tag="injective")


def adaptive_pool(
    data: TensorLike, output_size: Sequence[int], kind: str, layout: str
) -> te.Tensor:
    """Max or mean over adaptive windows: output cell o of an axis of input size n and output
    size m reduces input cells o * n // m up to ceil((o + 1) * n / m). Each window is read
    over the largest window's extent, the taps past its end masked out."""
    shape = static_shape(data)
    _, axes = layout_axes(layout)
    out_shape = list(shape)
    widest = []
    for a, m in zip(axes, output_size, strict=True):
        out_shape[a] = m
        n = shape[a]
        widest.append(max(-(-(o + 1) * n // m) - o * n // m for o in range(m)))
    taps = [te.reduce_axis((0, k), f"r{j}") for j, k in enumerate(widest)]
    is_max = kind == "max"

    def bounds(o: PrimExpr, a: int, m: int) -> tuple[PrimExpr, PrimExpr]:
        n = shape[a]
        return (o * n) // m, ((o + 1) * n + m - 1) // m

    def window(i: Sequence[PrimExpr]) -> tuple[list[PrimExpr], PrimExpr | None]:
        at, inside = list(i), []
        for j, (a, m) in enumerate(zip(axes, output_size, strict=True)):
            start, end = bounds(i[a], a, m)
            at[a] = te.min(start + taps[j], shape[a] - 1)
            if widest[j] > 1:
                inside.append(start + taps[j] < end)
        return at, te.all(*inside) if inside else None

    def read(i: Sequence[PrimExpr], fill: float) -> PrimExpr:
        at, inside = window(i)
        value = data(*at)
        typed = np.array(fill).astype(data.dtype).item()
        return value if inside is None else te.if_then_else(inside, value, typed)

    if is_max:
        return te.compute(
            out_shape,
            lambda *i: te.max(read(i, lowest(data.dtype)), axis=taps),
            name="adaptive_pool_max",
            tag="pool_max",
        )
    total = te.compute(
        out_shape, lambda *i: summed(read(i, 0.0), taps), name="adaptive_pool_sum", tag="pool_sum"
    )

    def body(*i: PrimExpr) -> PrimExpr:
        counts = []
        for a, m in zip(axes, output_size, strict=True):
            start, end = bounds(i[a], a, m)
            counts.append(end - start)
        count = functools.reduce(operator.mul, counts)
        value = total(*i)
        if is_float(data.dtype):
            return (value / count.astype(value.dtype)).astype(data.dtype)
        return (value.astype("float64") / count.astype("float64")).astype(data.dtype)

    return te.compute(out_shape, body, name="adaptive_pool_avg", tag="injective")


def global_pool2d(data: TensorLike, kind: str, layout: str) -> te.Tensor:
    shape = static_shape(data)
    h_axis, w_axis = spatial(layout)
    out = list(shape)
    out[h_axis] = out[w_axis] = 1
    ry = te.reduce_axis((0, shape[h_axis]), "ry")
    rx = te.reduce_axis((0, shape[w_axis]), "rx")

    def window(i: Sequence[PrimExpr]) -> list[PrimExpr]:
        at = list(i)
        at[h_axis], at[w_axis] = ry, rx
        return at

    if kind == "max":
        return te.compute(
            out,
            lambda *i: te.max(data(*window(i)), axis=[ry, rx]),
            name="global_pool_max",
            tag="pool_max",
        )
    total = te.compute(
        out, lambda *i: summed(data(*window(i)), [ry, rx]), name="global_pool_sum", tag="pool_sum"
    )
    count = shape[h_axis] * shape[w_axis]
    return te.compute(
        out,
        lambda *i: (total(*i) / te.const(count, total.dtype)).astype(data.dtype),
        name="global_pool_avg",
        tag="injective",
    )


# ---------------------------------------------------------------------------------------------
# Resizing


def source_coordinate(o: PrimExpr, out_size: int, in_size: int, mode: str) -> PrimExpr:
    """The input coordinate output index `o` samples (TVM's transformations), computed in
    float32 as TVM's resize computes it and widened to float64."""
    x = o.astype("float32")
    if mode == "align_corners":
        if out_size == 1:
            return (x * 0.0).astype("float64")
        ratio = te.const(float(np.float32(in_size - 1) / np.float32(out_size - 1)), "float32")
        return (x * ratio).astype("float64")
    scale = te.const(float(np.float32(in_size) / np.float32(out_size)), "float32")
    half = te.const(0.5, "float32")
    return ((x + half) * scale - half if mode == "half_pixel" else x * scale).astype("float64")


def round_half_away(c: PrimExpr) -> PrimExpr:
    """TVM's round (LLVM's llvm.round): to nearest, ties away from zero."""
    return te.if_then_else(c < 0.0, -te.floor(0.5 - c), te.floor(c + 0.5))


ROUNDING: dict[str, Callable[[PrimExpr], PrimExpr]] = {
    "round": round_half_away,
    "floor": lambda c: te.floor(c + 1e-5),
    "ceil": lambda c: te.ceil(c - 1e-5),
    "round_prefer_floor": lambda c: te.ceil(c - 0.5),
    "round_prefer_ceil": lambda c: te.floor(c + 0.5),
}


def clamp_index(c: PrimExpr, size: int) -> PrimExpr:
    return te.min(te.max(c, 0.0), float(size - 1)).astype("int32")


def resize2d(
    data: TensorLike, size: Sequence[int], layout: str, method: str, mode: str, rounding: str
) -> te.Tensor:
    """Nearest-neighbour or bilinear resize of the spatial axes to `size`."""
    return resize(data, size, list(spatial(layout)), method, mode, rounding)


def cubic_weights(t: PrimExpr, alpha: float) -> list[PrimExpr]:
    """Keys' cubic convolution weights of the taps at -1, 0, 1, 2 for the fraction `t`."""
    t2, t3 = t * t, t * t * t
    return [
        (t3 - t2 * 2.0 + t) * alpha,
        t3 * (alpha + 2) - t2 * (alpha + 3) + 1.0,
        t3 * -(alpha + 2) + t2 * (2 * alpha + 3) - t * alpha,
        t3 * -alpha + t2 * alpha,
    ]


def resize(
    data: TensorLike,
    size: Sequence[int],
    axes: Sequence[int],
    method: str,
    mode: str,
    rounding: str,
    alpha: float = -0.5,
    exclude: bool = False,
) -> te.Tensor:
    """Resize spatial `axes` of `data` to `size` by nearest neighbour, (multi)linear or cubic
    interpolation: each output samples the product of per-axis taps, computed in float64."""
    shape = static_shape(data)
    out = list(shape)
    for axis, extent in zip(axes, size, strict=True):
        out[axis] = extent

    if method == "nearest_neighbor":
        rule = ROUNDING[rounding or ("round" if mode == "align_corners" else "floor")]

        def nearest(*i: PrimExpr) -> PrimExpr:
            where = list(i)
            for axis, extent in zip(axes, size, strict=True):
                c = source_coordinate(i[axis], extent, shape[axis], mode)
                where[axis] = clamp_index(rule(c), shape[axis])
            return data(*where)

        return te.compute(out, nearest, name="resize_nearest", tag="injective")

    offsets = (0, 1) if method == "linear" else (-1, 0, 1, 2)

    def interpolate(*i: PrimExpr) -> PrimExpr:
        per_axis = []  # (axis, [(index, weight) per tap])
        for axis, extent in zip(axes, size, strict=True):
            c = source_coordinate(i[axis], extent, shape[axis], mode)
            base = te.floor(c)
            t = c - base
            weights = [1.0 - t, t] if method == "linear" else cubic_weights(t, alpha)
            taps = [base + float(o) for o in offsets]
            if method == "cubic" and exclude:
                inside = [
                    te.if_then_else(te.all(tap >= 0.0, tap <= float(shape[axis] - 1)), w, 0.0)
                    for tap, w in zip(taps, weights, strict=True)
                ]
                total = functools.reduce(operator.add, inside)
                weights = [w / total for w in inside]
            per_axis.append(
                (
                    axis,
                    [
                        (clamp_index(tap, shape[axis]), w)
                        for tap, w in zip(taps, weights, strict=True)
                    ],
                )
            )
        terms = []
        for combo in itertools.product(*(taps for _, taps in per_axis)):
            where = list(i)
            weight: PrimExpr | None = None
            for (axis, _), (index, w) in zip(per_axis, combo, strict=True):
                where[axis] = index
                weight = w if weight is None else weight * w
            terms.append(data(*where).astype("float64") * weight)
        return functools.reduce(operator.add, terms).astype(data.dtype)

    name = "resize_bilinear" if method == "linear" and len(axes) == 2 else f"resize_{method}"
    return te.compute(out, interpolate, name=name, tag="injective")


def upsampling(
    data: TensorLike, out_shape: Sequence[int], layout: str, method: str, align_corners: bool
) -> te.Tensor:
    """TVM's upsampling: a resize with asymmetric (or align_corners) coordinates."""
    h_axis, w_axis = spatial(layout)
    mode = "align_corners" if align_corners else "asymmetric"
    resize_method = "linear" if method == "bilinear" else "nearest_neighbor"
    size = (out_shape[h_axis], out_shape[w_axis])
    return resize2d(data, size, layout, resize_method, mode, "")


def dilation2d(
    x: TensorLike,
    w: TensorLike,
    strides: Sequence[int],
    padding: Sequence[int],
    dilations: Sequence[int],
    nhwc: bool,
    kernel_hwi: bool,
) -> te.Tensor:
    """Morphological dilation: out = max over the window of the zero-padded x plus w (TVM's
    padding value), per channel; x NCHW or NHWC, w (C, KH, KW) or (KH, KW, C)."""
    shape = static_shape(x)
    kh, kw = static_shape(w)[:2] if kernel_hwi else static_shape(w)[1:]
    c_axis, h_axis, w_axis = (3, 1, 2) if nhwc else (1, 2, 3)
    pt, pl, pb, pr = padding
    before, after = [0] * 4, [0] * 4
    before[h_axis], before[w_axis], after[h_axis], after[w_axis] = pt, pl, pb, pr
    padded = pad(x, before, after) if any(padding) else x
    out = list(shape)
    for axis, k, s, d, extra in (
        (h_axis, kh, strides[0], dilations[0], pt + pb),
        (w_axis, kw, strides[1], dilations[1], pl + pr),
    ):
        out[axis] = (shape[axis] + extra - d * (k - 1) - 1) // s + 1
    ry = te.reduce_axis((0, kh), "ry")
    rx = te.reduce_axis((0, kw), "rx")

    def body(*i: PrimExpr) -> PrimExpr:
        at = list(i)
        at[h_axis] = i[h_axis] * strides[0] + ry * dilations[0]
        at[w_axis] = i[w_axis] * strides[1] + rx * dilations[1]
        c = i[c_axis]
        weight = w(ry, rx, c) if kernel_hwi else w(c, ry, rx)
        return te.max(padded(*at) + weight, axis=[ry, rx])

    layout = "nhwc" if nhwc else "nchw"
    return te.compute(out, body, name=f"T_dilation2d_{layout}", tag=f"dilation2d_{layout}")


def bilinear_tap(x: TensorLike, n: PrimExpr, c: PrimExpr, y: PrimExpr, xs: PrimExpr) -> PrimExpr:
    """x [n, c, h, w] read bilinearly at the real point (y, xs): corners outside the data
    count as zero, and so does a point outside [0, h) x [0, w) (TVM's deformable sampling)."""
    h, w = static_shape(x)[2:]
    y0, x0 = te.floor(y), te.floor(xs)
    total: PrimExpr = te.const(0, y.dtype)
    for yp, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
        for xp, wx in ((x0, 1 - (xs - x0)), (x0 + 1, xs - x0)):
            row, col = yp.astype("int32"), xp.astype("int32")
            inside = te.all(row >= 0, row < h, col >= 0, col < w)
            read = x(n, c, te.min(te.max(row, 0), h - 1), te.min(te.max(col, 0), w - 1))
            total = total + te.if_then_else(inside, wy * wx * read, te.const(0, y.dtype))
    outside = te.any(y < 0, xs < 0, y >= h, xs >= w)
    return te.if_then_else(outside, te.const(0, y.dtype), total)


def deformable_conv2d_nchw(
    x: TensorLike,
    offset: TensorLike,
    w: TensorLike,
    strides: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    deformable_groups: int,
    groups: int,
) -> te.Tensor:
    """Deformable convolution, NCHW data and OIHW kernel: the taps sampled where the offsets
    move them ([n, c, kh, kw, oh, ow], one stage), then a grouped sum of products."""
    n, c = static_shape(x)[:2]
    o, cg, kh, kw = static_shape(w)
    oh, ow = static_shape(offset)[2:]
    per_group = c // deformable_groups
    (sh, sw), (dh, dw), (top, left) = strides, dilation, padding[:2]

    def sample(
        b: PrimExpr, ch: PrimExpr, i: PrimExpr, j: PrimExpr, y: PrimExpr, xx: PrimExpr
    ) -> PrimExpr:
        base = ((ch // per_group) * (kh * kw) + i * kw + j) * 2
        row = (y * sh - top + i * dh).astype(offset.dtype) + offset(b, base, y, xx)
        col = (xx * sw - left + j * dw).astype(offset.dtype) + offset(b, base + 1, y, xx)
        return bilinear_tap(x, b, ch, row, col)

    taps = te.compute([n, c, kh, kw, oh, ow], sample, name="T_deformable_taps", tag="injective")
    rc = te.reduce_axis((0, cg), "rc")
    ry = te.reduce_axis((0, kh), "ry")
    rx = te.reduce_axis((0, kw), "rx")
    og = o // groups
    return te.compute(
        [n, o, oh, ow],
        lambda b, f, y, xx: dot(
            taps(b, f // og * cg + rc, ry, rx, y, xx), w(f, rc, ry, rx), [rc, ry, rx]
        ),
        name="T_deformable_conv2d_nchw",
        tag="deformable_conv2d_nchw",
    )


def crop_and_resize(
    x: TensorLike,
    boxes: TensorLike,
    box_indices: TensorLike,
    crop_size: Sequence[int],
    nhwc: bool,
    method: str,
    extrapolation_value: float,
) -> te.Tensor:
    """TensorFlow's crop_and_resize: box (y1, x1, y2, x2) of image box_indices[b] sampled on
    a crop_size grid (bilinear or nearest, reads clamped to the image), extrapolation_value
    outside the image."""
    shape = static_shape(x)
    h, w = (shape[1], shape[2]) if nhwc else (shape[2], shape[3])
    dtype = x.dtype

    def read(n: PrimExpr, c: PrimExpr, row: PrimExpr, col: PrimExpr) -> PrimExpr:
        row = te.min(te.max(row.astype("int32"), 0), h - 1)
        col = te.min(te.max(col.astype("int32"), 0), w - 1)
        return x(n, row, col, c) if nhwc else x(n, c, row, col)

    def place(b: PrimExpr, k: PrimExpr, start: int, size: int, extent: int) -> PrimExpr:
        lo, hi = boxes(b, start).astype(dtype), boxes(b, start + 2).astype(dtype)
        if size == 1:
            return (lo + hi) * te.const(0.5 * (extent - 1), dtype)
        step = (hi - lo) * te.const((extent - 1) / (size - 1), dtype)
        return lo * te.const(extent - 1, dtype) + k.astype(dtype) * step

    def body(b: PrimExpr, i: PrimExpr, j: PrimExpr, c: PrimExpr) -> PrimExpr:
        n = box_indices(b)
        y, xs = place(b, i, 0, crop_size[0], h), place(b, j, 1, crop_size[1], w)
        if method == "nearest_neighbor":
            value = read(n, c, round_half_even(y), round_half_even(xs))
        else:
            y0, x0 = te.floor(y), te.floor(xs)
            dy, dx = y - y0, xs - x0
            top = read(n, c, y0, x0) * (1 - dx) + read(n, c, y0, x0 + 1) * dx
            bottom = read(n, c, y0 + 1, x0) * (1 - dx) + read(n, c, y0 + 1, x0 + 1) * dx
            value = top * (1 - dy) + bottom * dy
        outside = te.any(y < 0, y > h - 1, xs < 0, xs > w - 1)
        return te.if_then_else(outside, te.const(extrapolation_value, dtype), value)

    count = static_shape(boxes)[0]
    if nhwc:
        out_shape = [count, *crop_size, shape[3]]
        return te.compute(out_shape, body, name="T_crop_and_resize", tag="injective")
    return te.compute(
        [count, shape[1], *crop_size],
        lambda b, c, i, j: body(b, i, j, c),
        name="T_crop_and_resize",
        tag="injective",
    )


def correlation(
    a: TensorLike,
    b: TensorLike,
    kernel_size: int,
    max_displacement: int,
    strides: tuple[int, int],
    padding: Sequence[int],
    is_multiply: bool,
    out_shape: Sequence[int],
) -> te.Tensor:
    """TVM's correlation_nchw: for displacement q, the sum over channels and a
    kernel_size window at (i * stride1 + d, j * stride1 + d) of a * b (or |a - b|) against b
    shifted by q's offset, both zero-padded, divided by the window's element count."""
    _, channels, height, width = static_shape(a)
    top, left = padding[0], padding[1]
    stride1, stride2 = strides
    radius = max_displacement // stride2
    side = 2 * radius + 1
    rc = te.reduce_axis((0, channels), "rc")
    ry = te.reduce_axis((0, kernel_size), "ry")
    rx = te.reduce_axis((0, kernel_size), "rx")
    zero = te.const(0.0, a.dtype)

    def padded(t: TensorLike, batch: PrimExpr, c: PrimExpr, y: PrimExpr, x: PrimExpr) -> PrimExpr:
        y, x = y - top, x - left
        inside = te.all(y >= 0, y < height, x >= 0, x < width)
        at_y = te.min(te.max(y, 0), height - 1)
        at_x = te.min(te.max(x, 0), width - 1)
        return te.if_then_else(inside, t(batch, c, at_y, at_x), zero)

    def body(batch: PrimExpr, q: PrimExpr, i: PrimExpr, j: PrimExpr) -> PrimExpr:
        y1, x1 = i * stride1 + max_displacement, j * stride1 + max_displacement
        y2 = y1 + (q // side - radius) * stride2
        x2 = x1 + (q % side - radius) * stride2
        first = padded(a, batch, rc, y1 + ry, x1 + rx)
        second = padded(b, batch, rc, y2 + ry, x2 + rx)
        pair = first * second if is_multiply else te.abs(first - second)
        return te.sum(pair, axis=[rc, ry, rx])

    total = te.compute(list(out_shape), body, name="T_correlation_sum", tag="correlation_nchw")
    scale = te.const(1.0 / (kernel_size * kernel_size * channels), a.dtype)
    return te.compute(
        list(out_shape), lambda *i: total(*i) * scale, name="T_correlation", tag="injective"
    )
