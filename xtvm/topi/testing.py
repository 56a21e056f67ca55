"""`topi.testing`: numpy reference implementations that TVM's tests compare kernels with."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "affine_grid_python",
    "batch_matmul",
    "batch_to_space_nd_python",
    "conv1d_ncw_python",
    "conv2d_nchw_python",
    "conv2d_nhwc_python",
    "correlation_nchw_python",
    "crop_and_resize_python",
    "deformable_conv2d_nchw_python",
    "deformable_conv2d_nhwc_python",
    "depth_to_space_python",
    "dilate_python",
    "gather_nd",
    "grid_sample_python",
    "l2_normalize_python",
    "log_softmax_python",
    "lrn_python",
    "matrix_set_diag",
    "nll_loss",
    "one_hot",
    "poolnd_python",
    "reorg_python",
    "resize1d_python",
    "resize2d_python",
    "resize3d_python",
    "roi_align_nchw_python",
    "roi_align_nhwc_python",
    "roi_pool_nchw_python",
    "sequence_mask",
    "softmax_python",
    "space_to_batch_nd_python",
    "space_to_depth_python",
    "strided_set_python",
    "strided_slice_python",
]


def softmax_python(a_np: np.ndarray, axis: int = 1) -> np.ndarray:
    """Softmax along `axis`, computed stably (the maximum subtracted first)."""
    shifted = a_np - np.max(a_np, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return (e / np.sum(e, axis=axis, keepdims=True)).astype(a_np.dtype)


def log_softmax_python(a_np: np.ndarray, axis: int = 1) -> np.ndarray:
    """Log of the softmax along `axis`, without forming the softmax itself."""
    shifted = a_np - np.max(a_np, axis=axis, keepdims=True)
    return (shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))).astype(a_np.dtype)


def _source(o: int, in_size: int, out_size: int, mode: str) -> float:
    """The input coordinate output index `o` samples (TVM's coordinate transformations)."""
    if mode == "align_corners":
        return o * (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    if mode == "half_pixel":
        return (o + 0.5) * in_size / out_size - 0.5
    if mode == "asymmetric":
        return o * in_size / out_size
    raise ValueError(f"unknown coordinate transformation mode {mode!r}")


def _taps(c: float, in_size: int, method: str, mode: str) -> list[tuple[int, float]]:
    """(input index, weight) pairs that one output coordinate `c` mixes along an axis."""
    clamp = lambda i: min(max(i, 0), in_size - 1)  # noqa: E731
    if method == "nearest_neighbor":
        return [(clamp(math.floor(c + 0.5) if mode == "align_corners" else math.floor(c)), 1.0)]
    base = math.floor(c)
    t = c - base
    if method == "linear":
        return [(clamp(base), 1.0 - t), (clamp(base + 1), t)]
    if method == "cubic":  # Keys' kernel, a = -0.5, written as the distance to each tap
        a = -0.5

        def kernel(x: float) -> float:
            x = abs(x)
            if x <= 1:
                return (a + 2) * x**3 - (a + 3) * x**2 + 1
            if x < 2:
                return a * x**3 - 5 * a * x**2 + 8 * a * x - 4 * a
            return 0.0

        return [(clamp(base + k), kernel(t - k)) for k in (-1, 0, 1, 2)]
    raise ValueError(f"unknown resize method {method!r}")


def _resize_channels_first(
    data: np.ndarray, scale: Sequence[float], method: str, mode: str
) -> np.ndarray:
    """Resize the trailing spatial axes of an N, C, spatial... array by `scale`."""
    spatial = data.shape[2:]
    out_sizes = [round(n * s) for n, s in zip(spatial, scale, strict=True)]
    per_axis = [
        [_taps(_source(o, n, m, mode), n, method, mode) for o in range(m)]
        for n, m in zip(spatial, out_sizes, strict=True)
    ]
    # Per axis: each output index's taps as (indices, weights) arrays of output x taps.
    tables = []
    for mixes in per_axis:
        indices = np.array([[i for i, _ in taps] for taps in mixes])
        weights = np.array([[w for _, w in taps] for taps in mixes])
        tables.append((indices, weights))
    out = np.zeros(data.shape[:2] + tuple(out_sizes), dtype=np.float64)
    # Every combination of one tap per axis: the input at those indices times the product of
    # the weights (the interpolation's definition, not a pass per axis).
    for combo in itertools.product(*(range(idx.shape[1]) for idx, _ in tables)):
        grid = np.ix_(*(idx[:, t] for (idx, _), t in zip(tables, combo, strict=True)))
        weight = math.prod(
            np.ix_(*(w[:, t] for (_, w), t in zip(tables, combo, strict=True)))  # type: ignore[arg-type]
        )
        out += data[(slice(None), slice(None), *grid)] * weight
    return out.astype(data.dtype)


def _resize_python(
    data: np.ndarray, scale: Sequence[float], layout: str, method: str, mode: str
) -> np.ndarray:
    if layout[1] == "C":
        return _resize_channels_first(data, scale, method, mode)
    to_first = (0, data.ndim - 1, *range(1, data.ndim - 1))
    out = _resize_channels_first(data.transpose(to_first), scale, method, mode)
    return out.transpose((0, *range(2, data.ndim), 1))


def resize1d_python(
    data: np.ndarray,
    scale: Sequence[float],
    layout: str = "NCW",
    method: str = "nearest_neighbor",
    coordinate_transformation_mode: str = "align_corners",
) -> np.ndarray:
    """`data` (NCW or NWC) resized by `scale` along W, as `relay.image.resize1d` does."""
    return _resize_python(data, scale, layout, method, coordinate_transformation_mode)


def resize2d_python(
    data: np.ndarray,
    scale: Sequence[float],
    layout: str = "NCHW",
    method: str = "nearest_neighbor",
    coordinate_transformation_mode: str = "align_corners",
) -> np.ndarray:
    """`data` (NCHW or NHWC) resized by `scale` along H and W, as `relay.image.resize2d`."""
    return _resize_python(data, scale, layout, method, coordinate_transformation_mode)


def resize3d_python(
    data: np.ndarray,
    scale: Sequence[float],
    layout: str = "NCDHW",
    method: str = "nearest_neighbor",
    coordinate_transformation_mode: str = "align_corners",
) -> np.ndarray:
    """`data` (NCDHW or NDHWC) resized by `scale` along D, H and W, as
    `relay.image.resize3d` does."""
    return _resize_python(data, scale, layout, method, coordinate_transformation_mode)


def dilate_python(
    input_np: np.ndarray,
    strides: Sequence[int],
    dilation_value: float = 0.0,
    out_dtype: str | None = None,
) -> np.ndarray:
    """`input_np` with strides[i] - 1 copies of `dilation_value` between neighbours along
    each axis i (how TVM's tests build dilated kernels)."""
    if len(strides) != input_np.ndim:
        raise ValueError(f"dilate_python: {len(strides)} strides for a {input_np.ndim}-d input")
    shape = tuple((n - 1) * s + 1 for n, s in zip(input_np.shape, strides, strict=True))
    out = np.full(shape, dilation_value, dtype=out_dtype or input_np.dtype)
    out[tuple(slice(None, None, s) for s in strides)] = input_np
    return out


def lrn_python(
    a_np: np.ndarray, size: int, axis: int, bias: float, alpha: float, beta: float
) -> np.ndarray:
    """Local response normalisation: each value over (bias + alpha / size * the sum of the
    squares in a window of `size` along `axis`) ** beta."""
    radius = size // 2
    squares = np.moveaxis(a_np.astype(np.float64) ** 2, axis, -1)
    n = squares.shape[-1]
    window = np.zeros_like(squares)
    for j in range(n):
        window[..., j] = squares[..., max(j - radius, 0) : min(j + radius + 1, n)].sum(axis=-1)
    scale = (bias + alpha * np.moveaxis(window, -1, axis) / size) ** beta
    return (a_np / scale).astype(a_np.dtype)


def l2_normalize_python(
    a_np: np.ndarray, eps: float, axis: int | Sequence[int] | None = None
) -> np.ndarray:
    """`a_np` divided by its L2 norm along `axis`, the squared norm floored at `eps`."""
    axes = None if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
    squared = np.sum(a_np.astype(np.float64) ** 2, axis=axes, keepdims=True)
    return (a_np / np.sqrt(np.maximum(squared, eps))).astype(a_np.dtype)


def _pads(padding: int | Sequence[int], kernel: tuple[int, int]) -> tuple[int, int, int, int]:
    """(top, left, bottom, right) from TVM's 1, 2 or 4 numbers or "SAME"/"VALID"."""
    if isinstance(padding, str):
        if padding == "VALID":
            return 0, 0, 0, 0
        if padding == "SAME":
            ph, pw = kernel[0] - 1, kernel[1] - 1
            return ph // 2, pw // 2, ph - ph // 2, pw - pw // 2
        raise ValueError(f"unknown padding {padding!r}")
    if isinstance(padding, int):
        return (padding,) * 4
    if len(padding) == 2:
        return padding[0], padding[1], padding[0], padding[1]
    return tuple(padding)  # type: ignore[return-value]


def conv2d_nchw_python(
    a_np: np.ndarray,
    w_np: np.ndarray,
    stride: int | Sequence[int],
    padding: int | Sequence[int],
    groups: int = 1,
) -> np.ndarray:
    """2-d convolution of NCHW data with an OIHW kernel (O = out channels, I = in channels
    per group), summed in float64 for floats and int64 for integers."""
    sh, sw = (stride, stride) if isinstance(stride, int) else stride
    n, c, h, w = a_np.shape
    o, i, kh, kw = w_np.shape
    if c != i * groups or o % groups:
        raise ValueError(f"conv2d_nchw_python: {c} channels, kernel {w_np.shape}, {groups} groups")
    top, left, bottom, right = _pads(padding, (kh, kw))
    wide = np.float64 if a_np.dtype.kind == "f" else np.int64
    padded = np.pad(a_np.astype(wide), ((0, 0), (0, 0), (top, bottom), (left, right)))
    oh = (h + top + bottom - kh) // sh + 1
    ow = (w + left + right - kw) // sw + 1
    out = np.zeros((n, o, oh, ow), dtype=wide)
    per_group = o // groups
    for g in range(groups):
        x = padded[:, g * i : (g + 1) * i]
        k = w_np[g * per_group : (g + 1) * per_group].astype(wide)
        for dy in range(kh):
            for dx in range(kw):
                window = x[:, :, dy : dy + sh * (oh - 1) + 1 : sh, dx : dx + sw * (ow - 1) + 1 : sw]
                out[:, g * per_group : (g + 1) * per_group] += np.einsum(
                    "nchw,oc->nohw", window, k[:, :, dy, dx]
                )
    return out.astype(a_np.dtype if a_np.dtype.kind == "f" else np.result_type(a_np, w_np))


def conv2d_nhwc_python(
    a_np: np.ndarray,
    w_np: np.ndarray,
    stride: int | Sequence[int],
    padding: int | Sequence[int],
    groups: int = 1,
) -> np.ndarray:
    """2-d convolution of NHWC data with an HWIO kernel (the NCHW one, transposed)."""
    out = conv2d_nchw_python(
        a_np.transpose(0, 3, 1, 2), w_np.transpose(3, 2, 0, 1), stride, padding, groups
    )
    return out.transpose(0, 2, 3, 1)


def batch_matmul(
    x: np.ndarray,
    y: np.ndarray,
    out_dtype: str | None = None,
    trans_x: bool = False,
    trans_y: bool = True,
) -> np.ndarray:
    """Batched x @ y (each operand optionally transposed in its last two axes); a batch of 1
    broadcasts against the other's."""
    a = np.swapaxes(x, -1, -2) if trans_x else x
    b = np.swapaxes(y, -1, -2) if trans_y else y
    return np.matmul(a, b).astype(out_dtype or x.dtype)


def one_hot(
    indices: np.ndarray, on_value: object, off_value: object, depth: int, axis: int, dtype: str
) -> np.ndarray:
    """A new axis `axis` of size `depth` holding on_value at each index, off_value elsewhere."""
    axis = axis % (indices.ndim + 1) if axis < 0 else axis
    out = np.full((*indices.shape, depth), off_value, dtype=dtype)
    for position in np.ndindex(indices.shape):
        if 0 <= indices[position] < depth:
            out[(*position, indices[position])] = on_value
    return np.moveaxis(out, -1, axis)


def sequence_mask(
    data: np.ndarray, valid_length: np.ndarray, mask_value: float, axis: int
) -> np.ndarray:
    """`data` with the time steps (along `axis`, 0 or 1; the batch is the other) at or past
    each sequence's valid length set to `mask_value`."""
    out = data.copy()
    for batch, length in enumerate(valid_length):
        index = [slice(None)] * data.ndim
        index[1 - axis] = batch
        index[axis] = slice(int(length), None)
        out[tuple(index)] = mask_value
    return out


def strided_slice_python(
    data: np.ndarray,
    begin: Sequence[int],
    end: Sequence[int],
    strides: Sequence[int] | None = None,
    slice_mode: str = "end",
    axes: Sequence[int] | None = None,
) -> np.ndarray:
    """numpy slicing as TVM's strided_slice reads its arguments: `axes` (all by default)
    sliced from begin to end ("end"), or by begin and a size ("size", -1: to the end)."""
    axes = list(range(len(begin))) if axes is None else list(axes)
    strides = [1] * len(begin) if not strides else list(strides)
    if len(strides) < len(begin):
        strides += [1] * (len(begin) - len(strides))
    index = [slice(None)] * data.ndim
    for axis, b, e, s in zip(axes, begin, end, strides, strict=False):
        if slice_mode == "size":
            s = 1
            e = data.shape[axis] if e < 0 else b + e
        index[axis] = slice(b, e, s)
    return data[tuple(index)]


def strided_set_python(
    data: np.ndarray,
    v: np.ndarray,
    begin: Sequence[int],
    end: Sequence[int],
    strides: Sequence[int] | None = None,
) -> np.ndarray:
    """A copy of data with data[begin:end:strides] (leading axes; missing entries take the
    whole axis) set to v."""
    strides = list(strides or [])
    index = tuple(
        slice(
            begin[i] if i < len(begin) else None,
            end[i] if i < len(end) else None,
            strides[i] if i < len(strides) else None,
        )
        for i in range(data.ndim)
    )
    out = data.copy()
    out[index] = v
    return out


def space_to_batch_nd_python(
    data: np.ndarray,
    block_shape: Sequence[int],
    pad_before: Sequence[int],
    pad_after: Sequence[int],
    pad_value: float = 0.0,
) -> np.ndarray:
    """TensorFlow's space_to_batch_nd, element by element: output batch b = offset * N + n
    (offset row-major over block_shape) at spatial p reads padded data[n, p * block + offset]."""
    m, n = len(block_shape), data.shape[0]
    widths = [(0, 0), *zip(pad_before, pad_after, strict=True)]
    padded = np.pad(data, widths + [(0, 0)] * (data.ndim - 1 - m), constant_values=pad_value)
    sizes = [padded.shape[1 + i] // b for i, b in enumerate(block_shape)]
    out = np.empty([n * math.prod(block_shape), *sizes, *data.shape[m + 1 :]], data.dtype)
    for offset_flat, offset in enumerate(np.ndindex(*block_shape)):
        for batch in range(n):
            for point in np.ndindex(*sizes):
                at = tuple(p * b + o for p, b, o in zip(point, block_shape, offset, strict=True))
                out[(offset_flat * n + batch, *point)] = padded[(batch, *at)]
    return out


def batch_to_space_nd_python(
    data: np.ndarray, block_shape: Sequence[int], crop_begin: Sequence[int], crop_end: Sequence[int]
) -> np.ndarray:
    """TensorFlow's batch_to_space_nd, element by element: output (n, p) reads input batch
    offset * N + n at p // block for offset p % block, after cropping the front by crop_begin."""
    m = len(block_shape)
    n = data.shape[0] // math.prod(block_shape)
    sizes = [data.shape[1 + i] * b - crop_begin[i] - crop_end[i] for i, b in enumerate(block_shape)]
    out = np.empty([n, *sizes, *data.shape[m + 1 :]], data.dtype)
    for batch in range(n):
        for point in np.ndindex(*sizes):
            full = [p + c for p, c in zip(point, crop_begin, strict=True)]
            offset = [f % b for f, b in zip(full, block_shape, strict=True)]
            offset_flat = int(np.ravel_multi_index(offset, block_shape))
            at = tuple(f // b for f, b in zip(full, block_shape, strict=True))
            out[(batch, *point)] = data[(offset_flat * n + batch, *at)]
    return out


def affine_grid_python(data: np.ndarray, target_shape: Sequence[int]) -> np.ndarray:
    """The (N, 2, H, W) grid of affine matrices data (N, 2, 3) over points from -1 to almost
    1 (steps of (2 - 1e-7) / (size - 1), as TVM's)."""
    height, width = target_shape
    ys = -1 + np.arange(height) * (2.0 - 1e-7) / (height - 1)
    xs = -1 + np.arange(width) * (2.0 - 1e-7) / (width - 1)
    grid_y, grid_x = np.meshgrid(ys, xs, indexing="ij")
    points = np.stack([grid_x, grid_y, np.ones_like(grid_x)])  # (3, H, W)
    return np.einsum("nkj,jhw->nkhw", data, points).astype(data.dtype)


def _grid_reflect(c: float, size: int, align_corners: bool) -> float:
    lo, span = (0.0, size - 1) if align_corners else (-0.5, size)
    if lo <= c <= span + lo:
        return c
    distance = abs(lo - c)
    times = int(distance) // span if span else 0
    extra = distance - times * span
    return extra + lo if times % 2 == 0 else span - extra + lo


def _grid_pixel(image: np.ndarray, at: Sequence[int]) -> float:
    """image[c][at] (an array over channels), zero outside."""
    inside = all(0 <= a < s for a, s in zip(at, image.shape[1:], strict=True))
    return image[(slice(None), *at)] if inside else np.zeros(image.shape[0], image.dtype)


def _cubic(t: float) -> list[float]:
    a = -0.75
    near = lambda f: ((a + 2) * f - (a + 3)) * f * f + 1  # noqa: E731
    far = lambda f: ((a * f - 5 * a) * f + 8 * a) * f - 4 * a  # noqa: E731
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def grid_sample_python(
    data: np.ndarray,
    grid: np.ndarray,
    method: str = "bilinear",
    layout: str = "NCHW",
    padding_mode: str = "zeros",
    align_corners: bool = True,
) -> np.ndarray:
    """grid_sample point by point (NCHW or NCDHW): grid channel 0 is x, 1 y, 2 z in [-1, 1];
    nearest rounds half to even, bicubic (2-d) uses a = -0.75 with padding applied per tap."""
    rank = data.ndim - 2
    sizes = data.shape[2:]
    out = np.zeros(data.shape[:2] + grid.shape[2:], "float64")

    def source(c: float, size: int, pad: bool) -> float:
        c = (c + 1) * (size - 1) / 2 if align_corners else -0.5 + (c + 1) * size / 2
        if pad and padding_mode == "reflection":
            c = _grid_reflect(c, size, align_corners)
        if pad and padding_mode != "zeros":
            c = min(max(c, 0), size - 1)
        return c

    def tap(i: int, size: int) -> int:
        if padding_mode == "reflection":
            return int(min(max(_grid_reflect(i, size, align_corners), 0), size - 1))
        return int(min(max(i, 0), size - 1)) if padding_mode == "border" else i

    for n in range(data.shape[0]):
        image = data[n].astype("float64")
        for point in np.ndindex(*grid.shape[2:]):
            raw = [float(grid[(n, rank - 1 - k, *point)]) for k in range(rank)]
            if method == "bicubic":
                y, x = (source(c, s, False) for c, s in zip(raw, sizes, strict=True))
                y0, x0 = math.floor(y), math.floor(x)
                wy, wx = _cubic(y - y0), _cubic(x - x0)
                value = sum(
                    wy[i]
                    * wx[j]
                    * _grid_pixel(image, [tap(y0 - 1 + i, sizes[0]), tap(x0 - 1 + j, sizes[1])])
                    for i in range(4)
                    for j in range(4)
                )
            else:
                coords = [source(c, s, True) for c, s in zip(raw, sizes, strict=True)]
                if method == "nearest":
                    value = _grid_pixel(image, [int(np.rint(c)) for c in coords])
                else:
                    lows = [math.floor(c) for c in coords]
                    value = 0
                    for corner in itertools.product((0, 1), repeat=rank):
                        weight = math.prod(
                            c - lo if up else 1 - (c - lo)
                            for c, lo, up in zip(coords, lows, corner, strict=True)
                        )
                        at = [lo + up for lo, up in zip(lows, corner, strict=True)]
                        value = value + weight * _grid_pixel(image, at)
            out[(n, slice(None), *point)] = value
    return out.astype(data.dtype)


def gather_nd(data: np.ndarray, indices: np.ndarray, batch_dims: int = 0) -> np.ndarray:
    """relay.gather_nd: index tuples laid along axis 0 of `indices`; the first `batch_dims`
    axes of data and of indices[0] are shared batch axes."""
    m = indices.shape[0]
    out_shape = indices.shape[1:] + data.shape[batch_dims + m :]
    out = np.empty(out_shape, dtype=data.dtype)
    for position in np.ndindex(indices.shape[1:]):
        at = tuple(indices[(slice(None), *position)])
        out[position] = data[(*position[:batch_dims], *at)]
    return out


def _sample(image: np.ndarray, y: float, x: float) -> float:
    """image [h, w] at the real point (y, x), bilinearly; zero outside [0, h) x [0, w) and
    for the corners that fall outside."""
    h, w = image.shape
    if not (0 <= y < h and 0 <= x < w):
        return 0.0
    y0, x0 = math.floor(y), math.floor(x)
    total = 0.0
    for yy, x_ in itertools.product((y0, y0 + 1), (x0, x0 + 1)):
        if yy < h and x_ < w:
            total += (1 - abs(y - yy)) * (1 - abs(x - x_)) * float(image[yy, x_])
    return total


def deformable_conv2d_nchw_python(
    a_np: np.ndarray,
    offset_np: np.ndarray,
    w_np: np.ndarray,
    stride: int | Sequence[int],
    padding: int | Sequence[int],
    dilation: int | Sequence[int],
    deformable_groups: int,
    groups: int,
) -> np.ndarray:
    """Deformable convolution of a_np [n, c, h, w] by w_np [o, c, kh, kw] (groups == 1),
    each tap read at its place moved by offset_np [n, dg * kh * kw * 2, oh, ow]."""
    if groups != 1:
        raise ValueError("deformable_conv2d_nchw_python: only groups == 1")
    sh, sw = (stride, stride) if isinstance(stride, int) else stride
    dh, dw = (dilation, dilation) if isinstance(dilation, int) else dilation
    pads = [padding] * 2 if isinstance(padding, int) else list(padding)
    top, left = pads[0], pads[1]
    n, c = a_np.shape[:2]
    kh, kw = w_np.shape[2:]
    oh, ow = offset_np.shape[2:]
    per_group = c // deformable_groups
    taps = np.zeros((n, c, kh, kw, oh, ow))
    for b, ch, i, j, y, x in itertools.product(*map(range, (n, c, kh, kw, oh, ow))):
        base = ((ch // per_group) * kh * kw + i * kw + j) * 2
        dy, dx = offset_np[b, base, y, x], offset_np[b, base + 1, y, x]
        row = y * sh - top + i * dh + dy
        col = x * sw - left + j * dw + dx
        taps[b, ch, i, j, y, x] = _sample(a_np[b, ch], row, col)
    out = np.tensordot(taps, w_np.astype(np.float64), axes=([1, 2, 3], [1, 2, 3]))
    return out.transpose(0, 3, 1, 2).astype(a_np.dtype)


def deformable_conv2d_nhwc_python(
    a_np: np.ndarray,
    offset_np: np.ndarray,
    w_np: np.ndarray,
    stride: int | Sequence[int],
    padding: int | Sequence[int],
    dilation: int | Sequence[int],
    deformable_groups: int,
    groups: int,
) -> np.ndarray:
    """The NHWC form: a_np [n, h, w, c], offset_np [n, oh, ow, ...], w_np HWIO."""
    out = deformable_conv2d_nchw_python(
        a_np.transpose(0, 3, 1, 2),
        offset_np.transpose(0, 3, 1, 2),
        w_np.transpose(3, 2, 0, 1),
        stride,
        padding,
        dilation,
        deformable_groups,
        groups,
    )
    return out.transpose(0, 2, 3, 1)


def nll_loss(
    predictions: np.ndarray,
    targets: np.ndarray,
    weights: np.ndarray,
    reduction: str = "mean",
    ignore_index: int = -100,
) -> np.ndarray:
    """Negative log likelihood: -predictions[n, t, ...] * weights[t] per target t (zero for
    ignore_index); summed, averaged over the weights counted, or per target ("none")."""
    loss = np.zeros(targets.shape, predictions.dtype)
    counted = np.zeros(targets.shape, predictions.dtype)
    for at in np.ndindex(*targets.shape):
        t = int(targets[at])
        if t != ignore_index:
            counted[at] = weights[t]
            loss[at] = -predictions[(at[0], t, *at[1:])] * weights[t]
    if reduction == "none":
        return loss
    if reduction == "sum":
        return np.array(loss.sum(), predictions.dtype)
    return np.array(loss.sum() / counted.sum(), predictions.dtype)


def crop_and_resize_python(
    image: np.ndarray,
    boxes: np.ndarray,
    box_indices: np.ndarray,
    crop_size: Sequence[int],
    layout: str,
    method: str = "bilinear",
    extrapolation_value: float = 0.0,
) -> np.ndarray:
    """TensorFlow's crop_and_resize, point by point: box (y1, x1, y2, x2) of image
    box_indices[b] sampled on a crop_size grid spanning it (its centre for a size of 1)."""
    nhwc = layout == "NHWC"
    data = image.transpose(0, 3, 1, 2) if nhwc else image
    _, channels, h, w = data.shape
    ch, cw = (int(v) for v in crop_size)
    out = np.empty((len(boxes), channels, ch, cw), image.dtype)

    def place(start: float, end: float, k: int, size: int, extent: int) -> float:
        if size == 1:
            return 0.5 * (start + end) * (extent - 1)
        return start * (extent - 1) + k * (end - start) * (extent - 1) / (size - 1)

    for b, (y1, x1, y2, x2) in enumerate(boxes):
        img = data[int(box_indices[b])]
        for i, j in itertools.product(range(ch), range(cw)):
            y, x = place(y1, y2, i, ch, h), place(x1, x2, j, cw, w)
            if not (0 <= y <= h - 1 and 0 <= x <= w - 1):
                out[b, :, i, j] = extrapolation_value
            elif method == "nearest_neighbor":
                out[b, :, i, j] = img[:, round(y), round(x)]
            else:
                top, left = math.floor(y), math.floor(x)
                bottom, right = min(top + 1, h - 1), min(left + 1, w - 1)
                dy, dx = y - top, x - left
                upper = img[:, top, left] * (1 - dx) + img[:, top, right] * dx
                lower = img[:, bottom, left] * (1 - dx) + img[:, bottom, right] * dx
                out[b, :, i, j] = upper * (1 - dy) + lower * dy
    return out.transpose(0, 2, 3, 1) if nhwc else out


def matrix_set_diag(
    data: np.ndarray, diagonal: np.ndarray, k: int | Sequence[int] = 0, align: str = "RIGHT_LEFT"
) -> np.ndarray:
    """TensorFlow's MatrixSetDiagV3, diagonal by diagonal: band (low, high), diagonals stored
    from high down, each padded to the longest on the side `align` names (superdiagonals
    first, subdiagonals second)."""
    low, high = (k, k) if isinstance(k, int) else (int(k[0]), int(k[1]))
    out = data.copy()
    rows, cols = data.shape[-2:]
    lengths = {d: min(rows + min(0, d), cols - max(0, d)) for d in range(low, high + 1)}
    longest = max(lengths.values())
    band = diagonal if low != high else diagonal[..., None, :]
    for d, length in lengths.items():
        side = align.split("_")[0 if d >= 0 else 1]
        offset = longest - length if side == "RIGHT" else 0
        for t in range(length):
            out[..., t + max(0, -d), t + max(0, d)] = band[..., high - d, offset + t]
    return out


def _finite_lowest(dtype: np.dtype) -> float | int:
    """TVM's `min_value`: the padding of a max pool (a finite number for floats)."""
    return float(np.finfo(dtype).min) if dtype.kind == "f" else int(np.iinfo(dtype).min)


def poolnd_python(
    np_data: np.ndarray,
    kernel: Sequence[int],
    strides: Sequence[int],
    dilation: Sequence[int],
    padding_before: Sequence[int],
    padding_after: Sequence[int],
    pool_type: str,
    count_include_pad: bool = True,
    ceil_mode: bool = False,
    dtype: str = "float32",
    layout: str | None = None,
) -> np.ndarray:
    """Max or average pooling over the trailing len(kernel) axes of channels-first data,
    window by window: padding never wins a max; an average divides by the window's size
    (count_include_pad) or by the data elements it covers. A window wholly in the padding
    gives the dtype's lowest finite value (max) or 0 (average)."""
    if layout is not None and layout[1] != "C":
        raise ValueError(f"poolnd_python: channels-first layouts only, got {layout}")
    spatial = np_data.shape[2:]
    spans = [(k - 1) * d + 1 for k, d in zip(kernel, dilation, strict=True)]
    out_sizes = []
    for size, span, s, b, a in zip(
        spatial, spans, strides, padding_before, padding_after, strict=True
    ):
        room = size + b + a - span
        count = (-(-room // s) if ceil_mode else room // s) + 1
        if ceil_mode and (count - 1) * s >= size + b:  # a window must start inside
            count -= 1
        out_sizes.append(count)
    out = np.zeros((*np_data.shape[:2], *out_sizes), dtype)
    for at in itertools.product(*map(range, out_sizes)):
        taps = []
        for offsets in itertools.product(*map(range, kernel)):
            pos = [
                o * s - b + k * d
                for o, s, b, k, d in zip(
                    at, strides, padding_before, offsets, dilation, strict=True
                )
            ]
            taps.append(pos)
        inside = [p for p in taps if all(0 <= q < n for q, n in zip(p, spatial, strict=True))]
        if not inside:  # a window wholly in the padding: the padding's own value, as TVM's
            fill = _finite_lowest(np.dtype(dtype)) if pool_type == "max" else 0
            out[(slice(None), slice(None), *at)] = fill
            continue
        values = np.stack([np_data[(slice(None), slice(None), *p)] for p in inside], axis=-1)
        if pool_type == "max":
            out[(slice(None), slice(None), *at)] = values.max(axis=-1)
        else:
            count = math.prod(kernel) if count_include_pad else len(inside)
            out[(slice(None), slice(None), *at)] = values.astype(np.float64).sum(axis=-1) / count
    return out


def conv1d_ncw_python(
    a_np: np.ndarray,
    w_np: np.ndarray,
    stride: int | Sequence[int],
    padding: int | Sequence[int],
    dilation: int | Sequence[int],
) -> np.ndarray:
    """1-d cross-correlation of a_np [n, c, w] with w_np [o, c, k], tap by tap."""
    (s,) = [stride] if isinstance(stride, int) else list(stride)
    (d,) = [dilation] if isinstance(dilation, int) else list(dilation)
    pads = [padding] if isinstance(padding, int) else list(padding)
    padded = np.pad(a_np, [(0, 0), (0, 0), (pads[0], pads[-1])])
    k = w_np.shape[2]
    width = (padded.shape[2] - (k - 1) * d - 1) // s + 1
    out = np.zeros((a_np.shape[0], w_np.shape[0], width), a_np.dtype)
    for x in range(width):
        window = padded[:, :, x * s : x * s + (k - 1) * d + 1 : d]  # [n, c, k]
        out[:, :, x] = np.einsum("nck,ock->no", window, w_np)
    return out


def depth_to_space_python(data: np.ndarray, block_size: int, mode: str = "DCR") -> np.ndarray:
    """NCHW depth_to_space, pixel by pixel: output (c, y, x) reads input channel
    (y % b * b + x % b) * C / b^2 + c (DCR) or c * b^2 + y % b * b + x % b (CDR)."""
    n, c, h, w = data.shape
    b = block_size
    out = np.empty((n, c // (b * b), h * b, w * b), data.dtype)
    for ch, y, x in itertools.product(range(c // (b * b)), range(h * b), range(w * b)):
        offset = (y % b) * b + x % b
        source = offset * (c // (b * b)) + ch if mode == "DCR" else ch * b * b + offset
        out[:, ch, y, x] = data[:, source, y // b, x // b]
    return out


def space_to_depth_python(data: np.ndarray, block_size: int) -> np.ndarray:
    """NCHW space_to_depth, pixel by pixel: output channel (by * b + bx) * C + c at (y, x)
    reads input channel c at (y * b + by, x * b + bx)."""
    n, c, h, w = data.shape
    b = block_size
    out = np.empty((n, c * b * b, h // b, w // b), data.dtype)
    for oc, y, x in itertools.product(range(c * b * b), range(h // b), range(w // b)):
        k = oc // c
        out[:, oc, y, x] = data[:, oc % c, y * b + k // b, x * b + k % b]
    return out


def reorg_python(a_np: np.ndarray, stride: int) -> np.ndarray:
    """YOLOv2's reorg, element by element: output element f, counted over the input's
    (b, k, j, i), reads channel k % (c / s^2)'s pixel (j s + o // s, i s + o % s) (o = k //
    (c / s^2)) of the input viewed as (b, c / s^2, h s, w s)."""
    batch, channels, height, width = a_np.shape
    out_c = channels // (stride * stride)
    flat = a_np.reshape(-1)
    out = np.empty(flat.size, a_np.dtype)
    f = 0
    for b, k, j, i in itertools.product(range(batch), range(channels), range(height), range(width)):
        offset = k // out_c
        x, y = i * stride + offset % stride, j * stride + offset // stride
        out[f] = flat[x + width * stride * (y + height * stride * (k % out_c + out_c * b))]
        f += 1
    return out.reshape(batch, channels * stride * stride, height // stride, width // stride)


def _roi_bilinear(plane: np.ndarray, y: float, x: float) -> float:
    """Bilinear sample of a 2-d plane; 0 more than one pixel outside it."""
    height, width = plane.shape
    if y < -1 or y > height or x < -1 or x > width:
        return 0.0
    y, x = min(max(y, 0.0), height - 1), min(max(x, 0.0), width - 1)
    y0, x0 = math.floor(y), math.floor(x)
    dy, dx = y - y0, x - x0
    total = 0.0
    for yy, wy in ((y0, 1 - dy), (y0 + 1, dy)):
        for xx, wx in ((x0, 1 - dx), (x0 + 1, dx)):
            if yy < height and xx < width:
                total += wy * wx * float(plane[yy, xx])
    return total


def roi_align_nchw_python(
    a_np: np.ndarray,
    rois_np: np.ndarray,
    pooled_size: int | Sequence[int],
    spatial_scale: float,
    sample_ratio: int,
    mode: str | bytes = "avg",
) -> np.ndarray:
    """Mask R-CNN's roi_align: region (batch, x1, y1, x2, y2) scaled, cut into pooled bins;
    a bin averages (or takes the max of) its samples_h x samples_w bilinear samples (the
    sample ratio, or ceil(bin size) when it is <= 0)."""
    kind = mode.decode() if isinstance(mode, bytes) else {0: "avg", 1: "max"}.get(mode, mode)  # type: ignore[call-overload]
    if kind not in ("avg", "max"):
        raise ValueError(f"roi_align: mode must be avg or max, got {mode!r}")
    ph_n, pw_n = (pooled_size, pooled_size) if isinstance(pooled_size, int) else pooled_size
    channels = a_np.shape[1]
    out = np.zeros((rois_np.shape[0], channels, ph_n, pw_n), a_np.dtype)
    for n, roi in enumerate(rois_np):
        b = int(roi[0])
        x1, y1, x2, y2 = (float(v) * spatial_scale for v in roi[1:])
        roi_h, roi_w = max(y2 - y1, 1.0), max(x2 - x1, 1.0)
        bin_h, bin_w = roi_h / ph_n, roi_w / pw_n
        grid_h = sample_ratio if sample_ratio > 0 else math.ceil(bin_h)
        grid_w = sample_ratio if sample_ratio > 0 else math.ceil(bin_w)
        for c, ph, pw in itertools.product(range(channels), range(ph_n), range(pw_n)):
            samples = [
                _roi_bilinear(
                    a_np[b, c],
                    y1 + ph * bin_h + (iy + 0.5) * bin_h / grid_h,
                    x1 + pw * bin_w + (ix + 0.5) * bin_w / grid_w,
                )
                for iy in range(grid_h)
                for ix in range(grid_w)
            ]
            out[n, c, ph, pw] = max(samples) if kind == "max" else sum(samples) / len(samples)
    return out


def roi_align_nhwc_python(
    a_np: np.ndarray,
    rois_np: np.ndarray,
    pooled_size: int | Sequence[int],
    spatial_scale: float,
    sample_ratio: int,
    mode: str | bytes = "avg",
) -> np.ndarray:
    """roi_align of NHWC data (see roi_align_nchw_python), NHWC out."""
    nchw = roi_align_nchw_python(
        a_np.transpose(0, 3, 1, 2), rois_np, pooled_size, spatial_scale, sample_ratio, mode
    )
    return np.ascontiguousarray(nchw.transpose(0, 2, 3, 1))


def roi_pool_nchw_python(
    a_np: np.ndarray, rois_np: np.ndarray, pooled_size: int | Sequence[int], spatial_scale: float
) -> np.ndarray:
    """Fast R-CNN's roi_pool: corners scaled and rounded (half to even), the region's
    roi + 1 pixels cut into bins (floor start, ceil end, clipped); a bin's max, 0 if empty."""
    ph_n, pw_n = (pooled_size, pooled_size) if isinstance(pooled_size, int) else pooled_size
    _, channels, height, width = a_np.shape
    out = np.zeros((rois_np.shape[0], channels, ph_n, pw_n), a_np.dtype)
    for n, roi in enumerate(rois_np):
        b = int(roi[0])
        x1, y1, x2, y2 = (round(float(v) * spatial_scale) for v in roi[1:])
        bin_h = max(y2 - y1 + 1, 1) / ph_n
        bin_w = max(x2 - x1 + 1, 1) / pw_n
        for ph, pw in itertools.product(range(ph_n), range(pw_n)):
            h0 = min(max(math.floor(ph * bin_h) + y1, 0), height)
            h1 = min(max(math.ceil((ph + 1) * bin_h) + y1, 0), height)
            w0 = min(max(math.floor(pw * bin_w) + x1, 0), width)
            w1 = min(max(math.ceil((pw + 1) * bin_w) + x1, 0), width)
            if h1 > h0 and w1 > w0:
                out[n, :, ph, pw] = a_np[b, :, h0:h1, w0:w1].max(axis=(1, 2))
    return out


def _pad_nd(padding: int | str | Sequence[int], kernel: Sequence[int]) -> list[int]:
    """TVM's padding forms over len(kernel) spatial axes (an int for every side, one per
    axis, every before then every after, "SAME" or "VALID") as befores + afters."""
    dims = len(kernel)
    if isinstance(padding, str):
        if padding == "VALID":
            return [0] * (2 * dims)
        if padding != "SAME":
            raise ValueError(f"unknown padding {padding!r}")
        totals = [k - 1 for k in kernel]
        return [t // 2 for t in totals] + [t - t // 2 for t in totals]
    values = [padding] if isinstance(padding, int) else [int(p) for p in padding]
    if len(values) == 1:
        values *= dims
    if len(values) == dims:
        values *= 2
    if len(values) != 2 * dims:
        raise ValueError(f"padding {padding} does not fit {dims} spatial axes")
    return values


def _per_axis(value: int | Sequence[int], dims: int) -> list[int]:
    values = [value] if isinstance(value, int) else [int(v) for v in value]
    return values * dims if len(values) == 1 else values


def _conv_channels_first(
    a_np: np.ndarray, w_np: np.ndarray, stride: int | Sequence[int], padding: Any, groups: int
) -> np.ndarray:
    """N-d convolution of [n, c, *spatial] data with an [o, c / groups, *kernel] kernel,
    one kernel tap at a time, summed in float64 (int64 for integers)."""
    dims = a_np.ndim - 2
    strides = _per_axis(stride, dims)
    kernel = w_np.shape[2:]
    pads = _pad_nd(padding, kernel)
    wide = np.float64 if a_np.dtype.kind == "f" else np.int64
    padded = np.pad(
        a_np.astype(wide), [(0, 0), (0, 0)] + [(pads[j], pads[dims + j]) for j in range(dims)]
    )
    out_sizes = [
        (p - k) // s + 1 for p, k, s in zip(padded.shape[2:], kernel, strides, strict=True)
    ]
    o, i = w_np.shape[:2]
    out = np.zeros((a_np.shape[0], o, *out_sizes), dtype=wide)
    per_group = o // groups
    for g in range(groups):
        x = padded[:, g * i : (g + 1) * i]
        k = w_np[g * per_group : (g + 1) * per_group].astype(wide)
        for taps in itertools.product(*map(range, kernel)):
            cells = tuple(
                slice(t, t + s * (n - 1) + 1, s)
                for t, s, n in zip(taps, strides, out_sizes, strict=True)
            )
            out[:, g * per_group : (g + 1) * per_group] += np.einsum(
                "nc...,oc->no...", x[(slice(None), slice(None), *cells)], k[(Ellipsis, *taps)]
            )
    return out.astype(a_np.dtype if a_np.dtype.kind == "f" else np.result_type(a_np, w_np))


def conv3d_ncdhw_python(
    a_np: np.ndarray, w_np: np.ndarray, stride: Any, padding: Any, groups: int = 1
) -> np.ndarray:
    """3-d convolution of NCDHW data with an OIDHW kernel (I: input channels per group)."""
    return _conv_channels_first(a_np, w_np, stride, padding, groups)


def conv3d_ndhwc_python(
    a_np: np.ndarray, w_np: np.ndarray, stride: Any, padding: Any, groups: int = 1
) -> np.ndarray:
    """3-d convolution of NDHWC data with a DHWIO kernel (the NCDHW one, transposed)."""
    out = _conv_channels_first(
        a_np.transpose(0, 4, 1, 2, 3), w_np.transpose(4, 3, 0, 1, 2), stride, padding, groups
    )
    return out.transpose(0, 2, 3, 4, 1)


def _conv_transpose_channels_first(
    a_np: np.ndarray,
    w_np: np.ndarray,
    stride: Any,
    padding: Any,
    output_padding: Any,
    groups: int = 1,
) -> np.ndarray:
    """N-d transposed convolution of [n, c, *spatial] data with an [c, o / groups, *kernel]
    kernel by its definition: each input cell scatters its kernel-weighted value to output
    cell stride * i + k; the full result is cut by the padding and grown by output_padding."""
    dims = a_np.ndim - 2
    strides, extra = _per_axis(stride, dims), _per_axis(output_padding, dims)
    kernel = w_np.shape[2:]
    pads = _pad_nd(padding, kernel)
    size = a_np.shape[2:]
    full = [(n - 1) * s + k + e for n, s, k, e in zip(size, strides, kernel, extra, strict=True)]
    c, per_group = w_np.shape[:2]
    in_group = c // groups
    wide = np.float64 if a_np.dtype.kind == "f" else np.int64
    out = np.zeros((a_np.shape[0], per_group * groups, *full), dtype=wide)
    for g in range(groups):
        x = a_np[:, g * in_group : (g + 1) * in_group].astype(wide)
        k = w_np[g * in_group : (g + 1) * in_group].astype(wide)
        for taps in itertools.product(*map(range, kernel)):
            cells = tuple(
                slice(t, t + s * (n - 1) + 1, s)
                for t, s, n in zip(taps, strides, size, strict=True)
            )
            out[(slice(None), slice(g * per_group, (g + 1) * per_group), *cells)] += np.einsum(
                "nc...,co->no...", x, k[(Ellipsis, *taps)]
            )
    crop = tuple(slice(pads[j], full[j] - pads[dims + j]) for j in range(dims))
    return out[(slice(None), slice(None), *crop)].astype(a_np.dtype)


def conv1d_transpose_ncw_python(
    a_np: np.ndarray, w_np: np.ndarray, stride: Any, padding: Any, output_padding: Any
) -> np.ndarray:
    """1-d transposed convolution of NCW data with an IOW kernel."""
    return _conv_transpose_channels_first(a_np, w_np, stride, padding, output_padding)


def conv2d_transpose_nchw_python(
    a_np: np.ndarray,
    w_np: np.ndarray,
    stride: Any,
    padding: Any,
    output_padding: Any,
    groups: int = 1,
) -> np.ndarray:
    """2-d transposed convolution of NCHW data with an IOHW kernel (O: per group)."""
    return _conv_transpose_channels_first(a_np, w_np, stride, padding, output_padding, groups)


def conv2d_transpose_nhwc_python(
    a_nhwc: np.ndarray,
    weight: np.ndarray,
    weight_format: str,
    stride: Any,
    padding: Any,
    output_padding: Any = (0, 0),
) -> np.ndarray:
    """2-d transposed convolution of NHWC data with a kernel in HWIO, HWOI, OIHW or IOHW."""
    if sorted(weight_format) != sorted("IOHW"):
        raise ValueError(f"weight_format must order I, O, H, W, got {weight_format!r}")
    w_iohw = weight.transpose([weight_format.index(a) for a in "IOHW"])
    out = _conv_transpose_channels_first(
        a_nhwc.transpose(0, 3, 1, 2), w_iohw, stride, padding, output_padding
    )
    return out.transpose(0, 2, 3, 1)


def conv3d_transpose_ncdhw_python(
    a_np: np.ndarray, w_np: np.ndarray, stride: Any, padding: Any, output_padding: Any
) -> np.ndarray:
    """3-d transposed convolution of NCDHW data with an IODHW kernel."""
    return _conv_transpose_channels_first(a_np, w_np, stride, padding, output_padding)


def adaptive_pool(
    np_data: np.ndarray, out_size: int | Sequence[int], pool_type: str, layout: str
) -> np.ndarray:
    """Adaptive max or average pooling, cell by cell: output cell o of an axis of input size
    n and output size m reduces input cells floor(o * n / m) to ceil((o + 1) * n / m)."""
    sizes = [out_size] if isinstance(out_size, int) else list(out_size)
    channels_last = layout[-1] == "C"
    data = np.moveaxis(np_data, -1, 1) if channels_last else np_data
    spatial = data.shape[2:]
    if len(sizes) != len(spatial):
        raise ValueError(f"adaptive_pool: {len(sizes)} output sizes for {len(spatial)} axes")
    reduce = np.max if pool_type == "max" else np.mean
    out = np.zeros((*data.shape[:2], *sizes), dtype=np_data.dtype)
    for cell in itertools.product(*map(range, sizes)):
        box = tuple(
            slice(math.floor(o * n / m), math.ceil((o + 1) * n / m))
            for o, n, m in zip(cell, spatial, sizes, strict=True)
        )
        window = data[(slice(None), slice(None), *box)]
        out[(slice(None), slice(None), *cell)] = reduce(window, axis=tuple(range(2, data.ndim)))
    return np.moveaxis(out, 1, -1) if channels_last else out


def correlation_nchw_python(
    data1: np.ndarray,
    data2: np.ndarray,
    kernel_size: int,
    max_displacement: int,
    stride1: int,
    stride2: int,
    padding: int | Sequence[int],
    is_multiply: bool,
) -> np.ndarray:
    """FlowNet's correlation, output cell by output cell: the mean over channels and the
    kernel patch of the product (or absolute difference) of data1's patch at (i, j) * stride1
    + max_displacement and data2's patch displaced by stride2 steps in the neighbourhood.
    The output size rounds up by stride1 (TVM's op); reads past the padding are zeros."""
    pad_h, pad_w = _per_axis(padding, 2)
    n, c, h, w = data1.shape
    h, w = h + 2 * pad_h, w + 2 * pad_w
    border = max_displacement + (kernel_size - 1) // 2
    out_h = (h - 2 * border + stride1 - 1) // stride1
    out_w = (w - 2 * border + stride1 - 1) // stride1
    spill = stride1 + kernel_size + 2 * max_displacement  # zeros the last windows may reach
    pads = ((0, 0), (0, 0), (pad_h, pad_h + spill), (pad_w, pad_w + spill))
    first, second = np.pad(data1.astype(np.float64), pads), np.pad(data2.astype(np.float64), pads)
    radius = max_displacement // stride2
    grid = 2 * radius + 1
    out = np.zeros((n, grid * grid, out_h, out_w))
    for q, i, j in itertools.product(range(grid * grid), range(out_h), range(out_w)):
        y1, x1 = i * stride1 + max_displacement, j * stride1 + max_displacement
        y2 = y1 + (q // grid - radius) * stride2
        x2 = x1 + (q % grid - radius) * stride2
        patch1 = first[:, :, y1 : y1 + kernel_size, x1 : x1 + kernel_size]
        patch2 = second[:, :, y2 : y2 + kernel_size, x2 : x2 + kernel_size]
        terms = patch1 * patch2 if is_multiply else np.abs(patch1 - patch2)
        out[:, q, i, j] = terms.sum(axis=(1, 2, 3)) / (kernel_size * kernel_size * c)
    return out.astype(data1.dtype)
