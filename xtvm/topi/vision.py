"""TOPI's vision operators (TVM's `topi.vision`): SSD prior boxes and YOLO's reorg as index
maps; roi_align, roi_pool, get_valid_counts and the non-maximum suppressions as `te.extern`
stages whose loops (data-dependent trip counts and greedy scans) are written with the
ir_builder, as TVM writes them."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from xtvm import te
from xtvm.te.expr import PrimExpr
from xtvm.te.ir_builder import BufferVar, IRBuilder, create
from xtvm.te.stmt import Buffer, Stmt
from xtvm.topi.elementwise import round_half_even
from xtvm.topi.tensor import TensorLike, static_shape, unravel


def materialized(x: TensorLike) -> te.Tensor:
    """`x` as a te tensor with a buffer (an extern reads buffers; a splat constant has none)."""
    if isinstance(x, te.Tensor):
        return x
    return te.compute(x.shape, lambda *i: x(*i), name="T_filled", tag="injective")


# ---------------------------------------------------------------------------------------------
# Index maps


def multibox_prior(
    data: TensorLike,
    sizes: Sequence[float],
    ratios: Sequence[float],
    steps: Sequence[float],
    offsets: Sequence[float],
    clip: bool,
) -> te.Tensor:
    """Anchor k of pixel (i, j): centre ((j + offset_w) step_w, (i + offset_h) step_h); half
    sizes sizes[k] (h / w, 1) / 2 for the sizes, then sizes[0] (h / w sqrt(r), 1 / sqrt(r)) / 2
    for the further ratios r (a step <= 0 is 1 / the extent)."""
    _, _, height, width = static_shape(data)
    step_h = steps[0] if steps[0] > 0 else 1.0 / height
    step_w = steps[1] if steps[1] > 0 else 1.0 / width
    halves = [(s * height / width / 2.0, s / 2.0) for s in sizes]
    halves += [
        (sizes[0] * height / width * math.sqrt(r) / 2.0, sizes[0] / math.sqrt(r) / 2.0)
        for r in ratios[1:]
    ]
    per_pixel = len(halves)
    dtype = data.dtype

    def body(_: PrimExpr, box: PrimExpr, corner: PrimExpr) -> PrimExpr:
        i, j, k = unravel(box, (height, width, per_pixel))
        centre_h = (i.astype(dtype) + offsets[0]) * step_h  # type: ignore[union-attr]
        centre_w = (j.astype(dtype) + offsets[1]) * step_w  # type: ignore[union-attr]
        half_w, half_h = te.const(halves[-1][0], dtype), te.const(halves[-1][1], dtype)
        for n in range(per_pixel - 2, -1, -1):
            half_w = te.if_then_else(k == n, te.const(halves[n][0], dtype), half_w)
            half_h = te.if_then_else(k == n, te.const(halves[n][1], dtype), half_h)
        sign = te.if_then_else(corner < 2, te.const(-1, dtype), te.const(1, dtype))
        value = te.if_then_else(corner % 2 == 0, centre_w + sign * half_w, centre_h + sign * half_h)
        if clip:
            value = te.min(te.max(value, te.const(0, dtype)), te.const(1, dtype))
        return value

    shape = [1, height * width * per_pixel, 4]
    return te.compute(shape, body, name="T_multibox_prior", tag="injective")


def yolo_reorg(data: TensorLike, stride: int) -> te.Tensor:
    """Darknet's reorg: output element f (row-major, counted over the input's (c, h, w)) is
    input channel k's pixel (j, i) mapped into the (c / s^2, h s, w s) view of the input."""
    batch, channels, height, width = static_shape(data)
    out_c = channels // (stride * stride)
    out_shape = [batch, channels * stride * stride, height // stride, width // stride]

    def body(*index: PrimExpr) -> PrimExpr:
        flat = index[0]
        for axis in range(1, 4):
            flat = flat * out_shape[axis] + index[axis]
        b, k, j, i = unravel(flat, (batch, channels, height, width))
        c2, offset = k % out_c, k // out_c  # type: ignore[operator]
        w2 = i * stride + offset % stride  # type: ignore[operator]
        h2 = j * stride + offset // stride  # type: ignore[operator]
        source = w2 + width * stride * (h2 + height * stride * (c2 + out_c * b))  # type: ignore[operator]
        return data(*unravel(source, (batch, channels, height, width)))

    return te.compute(out_shape, body, name="T_yolo_reorg", tag="injective")


# ---------------------------------------------------------------------------------------------
# Region-of-interest pooling


PixelReader = Callable[[PrimExpr, PrimExpr, PrimExpr, PrimExpr], PrimExpr]  # (b, c, y, x)


def roi_reader(data: BufferVar, channels_last: bool) -> tuple[int, int, int, int, PixelReader]:
    """The batch, channels, height and width of a 4-d buffer and its pixel reader."""
    shape = [int(d) for d in data.asobject().shape]  # type: ignore[arg-type]
    if channels_last:
        n, h, w, c = shape

        def at(b: PrimExpr, ch: PrimExpr, y: PrimExpr, x: PrimExpr) -> PrimExpr:
            return data[b, y, x, ch]
    else:
        n, c, h, w = shape

        def at(b: PrimExpr, ch: PrimExpr, y: PrimExpr, x: PrimExpr) -> PrimExpr:
            return data[b, ch, y, x]

    return n, c, h, w, at


def roi_align(
    data: TensorLike,
    rois: TensorLike,
    pooled_size: Sequence[int],
    spatial_scale: float,
    sample_ratio: int,
    layout: str,
    mode: str,
    aligned: bool = False,
) -> te.Tensor:
    """Mask R-CNN's roi_align (see the relay op): per region, per bin, the average or max of
    its bilinear samples; a sample more than a pixel outside the map reads 0. `aligned`
    shifts the scaled corners by -0.5 and keeps regions under a pixel (ONNX's half_pixel)."""
    data, rois = materialized(data), materialized(rois)
    nhwc = layout == "NHWC"
    count = static_shape(rois)[0]
    pooled_h, pooled_w = pooled_size
    shape = list(static_shape(data))
    shape[0] = count
    shape[1 if nhwc else 2], shape[2 if nhwc else 3] = pooled_h, pooled_w
    dtype = data.dtype

    def body(ins: list[Buffer], outs: list[Buffer]) -> Stmt:
        ib = create()
        x, r, out = (ib.buffer_ptr(b) for b in (ins[0], ins[1], outs[0]))
        _, channels, height, width, at = roi_reader(x, nhwc)
        zero, one = te.const(0, dtype), te.const(1, dtype)
        acc = ib.allocate(dtype, (1,), name="acc", scope="local")
        with ib.for_range(0, count, name="n") as n:
            b = ib.let("b", r[n, 0].astype("int32"))
            shift = 0.5 if aligned else 0.0
            start_w = ib.let("start_w", r[n, 1] * spatial_scale - shift)
            start_h = ib.let("start_h", r[n, 2] * spatial_scale - shift)
            width_, height_ = (
                r[n, 3] * spatial_scale - shift - start_w,
                r[n, 4] * spatial_scale - shift - start_h,
            )
            roi_w = ib.let("roi_w", width_ if aligned else te.max(width_, one))
            roi_h = ib.let("roi_h", height_ if aligned else te.max(height_, one))
            bin_h = ib.let("bin_h", roi_h / float(pooled_h))
            bin_w = ib.let("bin_w", roi_w / float(pooled_w))
            if sample_ratio > 0:
                grid_h: PrimExpr = te.const(sample_ratio, "int32")
                grid_w: PrimExpr = te.const(sample_ratio, "int32")
            else:
                grid_h = ib.let("grid_h", te.ceil(bin_h).astype("int32"))
                grid_w = ib.let("grid_w", te.ceil(bin_w).astype("int32"))
            samples = ib.let("samples", te.max(grid_h * grid_w, 1).astype(dtype))
            batch = static_shape(data)[0]
            # a region of no image, or (aligned) of no samples, pools to 0
            known = te.all(b >= 0, b < batch, grid_h > 0, grid_w > 0)
            with ib.for_range(0, channels, name="c") as c:
                with ib.for_range(0, pooled_h, name="ph") as ph:
                    with ib.for_range(0, pooled_w, name="pw") as pw:
                        acc[0] = zero if mode == "avg" else te.min_value(dtype)
                        grid = te.if_then_else(known, grid_h, te.const(0, "int32"))
                        with ib.for_range(0, grid, name="iy") as iy:
                            with ib.for_range(0, grid_w, name="ix") as ix:
                                y = ib.let(
                                    "y",
                                    start_h
                                    + ph.astype(dtype) * bin_h
                                    + (iy.astype(dtype) + 0.5) * bin_h / grid_h.astype(dtype),
                                )
                                xs = ib.let(
                                    "x",
                                    start_w
                                    + pw.astype(dtype) * bin_w
                                    + (ix.astype(dtype) + 0.5) * bin_w / grid_w.astype(dtype),
                                )
                                v = bilinear(ib, at, b, c, y, xs, height, width, dtype)
                                if mode == "avg":
                                    acc[0] = acc[0] + v / samples
                                else:
                                    acc[0] = te.max(acc[0], v)
                        index = (n, ph, pw, c) if nhwc else (n, c, ph, pw)
                        out[index] = te.if_then_else(known, acc[0], zero)
        return ib.get()

    return te.extern(shape, [data, rois], body, name="T_roi_align", dtype=dtype, tag="roi_align")


def bilinear(
    ib: IRBuilder,
    at: PixelReader,
    b: PrimExpr,
    c: PrimExpr,
    y: PrimExpr,
    x: PrimExpr,
    height: int,
    width: int,
    dtype: str,
) -> PrimExpr:
    """The bilinear sample of channel c at (y, x): 0 more than a pixel outside, clamped into
    the map otherwise; a corner past the last row or column weighs nothing."""
    zero = te.const(0, dtype)
    outside = te.any(y < -1.0, y > float(height), x < -1.0, x > float(width))
    yc = ib.let("yc", te.min(te.max(y, zero), te.const(height - 1, dtype)))
    xc = ib.let("xc", te.min(te.max(x, zero), te.const(width - 1, dtype)))
    y0 = ib.let("y0", te.floor(yc).astype("int32"))
    x0 = ib.let("x0", te.floor(xc).astype("int32"))
    dy, dx = yc - y0.astype(dtype), xc - x0.astype(dtype)
    y1, x1 = te.min(y0 + 1, height - 1), te.min(x0 + 1, width - 1)
    has_y1 = (y0 + 1 < height).astype(dtype)
    has_x1 = (x0 + 1 < width).astype(dtype)
    value = (
        (1.0 - dy) * (1.0 - dx) * at(b, c, y0, x0)
        + (1.0 - dy) * dx * has_x1 * at(b, c, y0, x1)
        + dy * (1.0 - dx) * has_y1 * at(b, c, y1, x0)
        + dy * dx * has_y1 * has_x1 * at(b, c, y1, x1)
    )
    return te.if_then_else(outside, zero, value)


def roi_pool(
    data: TensorLike, rois: TensorLike, pooled_size: Sequence[int], spatial_scale: float
) -> te.Tensor:
    """Fast R-CNN's roi_pool (NCHW): the region's corners, scaled and rounded half to even,
    span roi + 1 pixels cut into pooled_size bins (floor start, ceil end, clipped to the
    map); a bin is the max of its pixels, 0 when empty."""
    data, rois = materialized(data), materialized(rois)
    count = static_shape(rois)[0]
    batch, channels, height, width = static_shape(data)
    pooled_h, pooled_w = pooled_size
    dtype = data.dtype

    def corner(value: PrimExpr) -> PrimExpr:
        return round_half_even(value * spatial_scale).astype("int32")

    def clipped(value: PrimExpr, start: PrimExpr, extent: int) -> PrimExpr:
        return te.min(te.max(value + start, 0), extent)

    def body(ins: list[Buffer], outs: list[Buffer]) -> Stmt:
        ib = create()
        x, r, out = (ib.buffer_ptr(b) for b in (ins[0], ins[1], outs[0]))
        acc = ib.allocate(dtype, (1,), name="acc", scope="local")
        with ib.for_range(0, count, name="n") as n:
            b = ib.let("b", r[n, 0].astype("int32"))
            start_w = ib.let("start_w", corner(r[n, 1]))
            start_h = ib.let("start_h", corner(r[n, 2]))
            roi_w = te.max(corner(r[n, 3]) - start_w + 1, 1)
            roi_h = te.max(corner(r[n, 4]) - start_h + 1, 1)
            bin_h = ib.let("bin_h", roi_h.astype("float32") / te.const(pooled_h, "float32"))
            bin_w = ib.let("bin_w", roi_w.astype("float32") / te.const(pooled_w, "float32"))
            with ib.for_range(0, pooled_h, name="ph") as ph:
                with ib.for_range(0, pooled_w, name="pw") as pw:
                    h0 = te.floor(ph.astype("float32") * bin_h).astype("int32")
                    h1 = te.ceil((ph + 1).astype("float32") * bin_h).astype("int32")
                    w0 = te.floor(pw.astype("float32") * bin_w).astype("int32")
                    w1 = te.ceil((pw + 1).astype("float32") * bin_w).astype("int32")
                    hs = ib.let("hs", clipped(h0, start_h, height))
                    he = ib.let("he", clipped(h1, start_h, height))
                    ws = ib.let("ws", clipped(w0, start_w, width))
                    we = ib.let("we", clipped(w1, start_w, width))
                    with ib.for_range(0, channels, name="c") as c:
                        acc[0] = te.min_value(dtype)
                        known = te.all(b >= 0, b < batch)  # a region of no image pools to 0
                        he = te.if_then_else(known, he, hs)
                        with ib.for_range(hs, he, name="y") as y:
                            with ib.for_range(ws, we, name="x") as xx:
                                acc[0] = te.max(acc[0], x[b, c, y, xx])
                        empty = te.any(he <= hs, we <= ws)
                        out[n, c, ph, pw] = te.if_then_else(empty, te.const(0, dtype), acc[0])
        return ib.get()

    shape = [count, channels, pooled_h, pooled_w]
    return te.extern(shape, [data, rois], body, name="T_roi_pool", dtype=dtype, tag="roi_pool")


# ---------------------------------------------------------------------------------------------
# Box filtering and suppression


def get_valid_counts(
    data: TensorLike, score_threshold: float, id_index: int, score_index: int
) -> list[te.Tensor]:
    """Per batch, the boxes scoring above the threshold (class id not negative when
    id_index >= 0), moved to the front in order: (count, boxes then -1 rows, their input
    indices then -1)."""
    data = materialized(data)
    batch, anchors, elements = static_shape(data)
    dtype = data.dtype

    def body(ins: list[Buffer], outs: list[Buffer]) -> Stmt:
        ib = create()
        x = ib.buffer_ptr(ins[0])
        valid, out, indices = (ib.buffer_ptr(b) for b in outs)
        with ib.for_range(0, batch, name="b") as b:
            valid[b] = 0
            with ib.for_range(0, anchors, name="j") as j:
                keep = x[b, j, score_index] > score_threshold
                if id_index >= 0:
                    keep = te.all(keep, x[b, j, id_index] >= 0.0)
                with ib.if_scope(keep):
                    with ib.for_range(0, elements, name="k") as k:
                        out[b, valid[b], k] = x[b, j, k]
                    indices[b, valid[b]] = j
                    valid[b] = valid[b] + 1
            with ib.for_range(0, anchors, name="j") as j:
                with ib.if_scope(j >= valid[b]):
                    with ib.for_range(0, elements, name="k") as k:
                        out[b, j, k] = te.const(-1, dtype)
                    indices[b, j] = -1
        return ib.get()

    shapes = [[batch], [batch, anchors, elements], [batch, anchors]]
    outs = te.extern(
        shapes, [data], body, name="T_get_valid_counts", dtype=["int32", dtype, "int32"]
    )
    return list(outs)  # type: ignore[arg-type]


def iou(
    a: BufferVar, ia: tuple[PrimExpr, ...], b: BufferVar, ib_: tuple[PrimExpr, ...], dtype: str
) -> PrimExpr:
    """Intersection over union of boxes a[*ia, 0:4] and b[*ib_, 0:4] (corners in either
    order), 0 when the union is empty."""

    def coords(buf: BufferVar, at: tuple[PrimExpr, ...]) -> list[PrimExpr]:
        *lead, start = at
        return [buf[(*lead, start + k)] for k in range(4)]

    a0, a1, a2, a3 = coords(a, ia)
    b0, b1, b2, b3 = coords(b, ib_)
    zero = te.const(0, dtype)
    width = te.max(
        zero, te.min(te.max(a0, a2), te.max(b0, b2)) - te.max(te.min(a0, a2), te.min(b0, b2))
    )
    height = te.max(
        zero, te.min(te.max(a1, a3), te.max(b1, b3)) - te.max(te.min(a1, a3), te.min(b1, b3))
    )
    inter = width * height
    union = te.abs((a2 - a0) * (a3 - a1)) + te.abs((b2 - b0) * (b3 - b1)) - inter
    return te.if_then_else(union <= zero, zero, inter / union)


def sort_by_score(
    ib: IRBuilder,
    order: BufferVar,
    count: PrimExpr,
    score: Callable[[PrimExpr], PrimExpr],
) -> None:
    """order[0:count] = 0..count-1 by descending score(i), ties by index (a stable argsort,
    as TVM's): item i goes to its rank, the number of items before it in that order."""
    rank = ib.allocate("int32", (1,), name="rank", scope="local")
    with ib.for_range(0, count, name="s") as s:
        rank[0] = 0
        mine = ib.let("mine", score(s))
        with ib.for_range(0, count, name="t") as t:
            theirs = score(t)
            ahead = te.any(theirs > mine, te.all(theirs == mine, t < s))
            rank[0] = rank[0] + ahead.astype("int32")
        order[rank[0]] = s


def non_max_suppression(
    data: TensorLike,
    valid_count: TensorLike,
    indices: TensorLike,
    max_output_size: TensorLike,
    iou_threshold: TensorLike,
    force_suppress: bool,
    top_k: int,
    coord_start: int,
    score_index: int,
    id_index: int,
    return_indices: bool,
    invalid_to_bottom: bool,
) -> te.Tensor | list[te.Tensor]:
    """TVM's non_max_suppression, step for step: per batch, the first valid_count boxes in
    descending score order (stable; the top_k best, the rest -1); then in that order a box
    scoring above 0 is kept unless it overlaps (IoU >= iou_threshold) a box kept before it of
    its class (any class when force_suppress), and a box past max_output_size kept ones is
    -1. An iou_threshold <= 0 keeps the boxes as given. With return_indices: the kept boxes'
    entries of `indices`, moved to the front, and their count."""
    ins = [materialized(t) for t in (data, valid_count, indices, max_output_size, iou_threshold)]
    batch, anchors, elements = static_shape(ins[0])
    dtype = ins[0].dtype
    minus_one = te.const(-1, dtype)

    def body(bufs: list[Buffer], outs: list[Buffer]) -> Stmt:
        ib = create()
        x, valid, index, limit, threshold = (ib.buffer_ptr(b) for b in bufs)
        rows = ib.allocate(dtype, (anchors, elements), name="rows")
        picked = ib.allocate("int32", (anchors,), name="picked")
        order = ib.allocate("int32", (anchors,), name="order")
        kept = ib.allocate("int32", (1,), name="kept", scope="local")
        alive = ib.allocate("int32", (1,), name="alive", scope="local")
        at_most = ib.let("at_most", limit[(0,) * len(bufs[3].shape)].astype("int32"))
        iou_limit = ib.let("iou_limit", threshold[(0,) * len(bufs[4].shape)])
        with ib.for_range(0, batch, name="b") as b:
            n = ib.let("n", te.max(te.min(valid[b], anchors), 0))
            with ib.for_range(0, anchors, name="j") as j:
                picked[j] = -1
                with ib.for_range(0, elements, name="e") as e:
                    rows[j, e] = minus_one
            with ib.if_scope(iou_limit > te.const(0, dtype)):
                sort_by_score(ib, order, n, lambda i: x[b, i, score_index])
                keep = n if top_k <= 0 else te.min(n, top_k)
                with ib.for_range(0, keep, name="j") as j:
                    picked[j] = order[j]
                    with ib.for_range(0, elements, name="e") as e:
                        rows[j, e] = x[b, order[j], e]
                kept[0] = 0
                with ib.for_range(0, n, name="j") as j:
                    with ib.if_scope(kept[0] == at_most):
                        drop_row(ib, rows, picked, j, elements, minus_one)
                    with ib.else_scope():
                        with ib.if_scope(rows[j, score_index] > te.const(0, dtype)):
                            alive[0] = 1
                            with ib.for_range(0, j, name="k") as k:
                                earlier = rows[k, score_index] > te.const(0, dtype)
                                if id_index >= 0:
                                    earlier = te.all(earlier, rows[k, id_index] >= 0.0)
                                    if not force_suppress:
                                        same = rows[j, id_index] == rows[k, id_index]
                                        earlier = te.all(earlier, same)
                                near = iou(rows, (j, coord_start), rows, (k, coord_start), dtype)
                                with ib.if_scope(te.all(earlier, near >= iou_limit)):
                                    alive[0] = 0
                            with ib.if_scope(alive[0] == 0):
                                drop_row(ib, rows, picked, j, elements, minus_one)
                            with ib.else_scope():
                                kept[0] = kept[0] + 1
            with ib.else_scope():
                with ib.for_range(0, n, name="j") as j:
                    picked[j] = j
                    with ib.for_range(0, elements, name="e") as e:
                        rows[j, e] = x[b, j, e]
            write_outputs(ib, outs, rows, picked, index, b)
        return ib.get()

    def write_outputs(
        ib: IRBuilder,
        outs: list[Buffer],
        rows: BufferVar,
        picked: BufferVar,
        index: BufferVar,
        b: PrimExpr,
    ) -> None:
        slot = ib.allocate("int32", (1,), name="slot", scope="local")
        slot[0] = 0
        if return_indices:  # the entries of `indices`, moved to the front
            out, total = ib.buffer_ptr(outs[0]), ib.buffer_ptr(outs[1])
            with ib.for_range(0, anchors, name="j") as j:
                out[b, j] = -1
            with ib.for_range(0, anchors, name="j") as j:
                with ib.if_scope(picked[j] >= 0):
                    entry = ib.let("entry", index[b, picked[j]])
                    wild = te.any(entry > anchors, entry < -anchors)
                    with ib.if_scope(te.any(entry >= 0, wild)):
                        out[b, slot[0]] = te.if_then_else(wild, te.const(0, "int32"), entry)
                        slot[0] = slot[0] + 1
            total[b, 0] = slot[0]
            return
        out = ib.buffer_ptr(outs[0])
        with ib.for_range(0, anchors, name="j") as j:
            with ib.for_range(0, elements, name="e") as e:
                out[b, j, e] = minus_one if invalid_to_bottom else rows[j, e]
        if invalid_to_bottom:
            with ib.for_range(0, anchors, name="j") as j:
                with ib.if_scope(rows[j, 0] >= te.const(0, dtype)):
                    with ib.for_range(0, elements, name="e") as e:
                        out[b, slot[0], e] = rows[j, e]
                    slot[0] = slot[0] + 1

    if return_indices:
        shapes = [[batch, anchors], [batch, 1]]
        outs = te.extern(shapes, ins, body, name="T_nms", dtype=["int32", "int32"])
        return list(outs)  # type: ignore[arg-type]
    return te.extern([batch, anchors, elements], ins, body, name="T_nms", dtype=dtype)  # type: ignore[return-value]


def drop_row(
    ib: IRBuilder, rows: BufferVar, picked: BufferVar, j: PrimExpr, elements: int, fill: PrimExpr
) -> None:
    """Row j of the working boxes suppressed: -1 throughout, no index."""
    picked[j] = -1
    with ib.for_range(0, elements, name="e") as e:
        rows[j, e] = fill


def all_class_non_max_suppression(
    boxes: TensorLike,
    scores: TensorLike,
    max_output_boxes_per_class: TensorLike,
    iou_threshold: TensorLike,
    score_threshold: TensorLike,
    output_format: str,
) -> list[te.Tensor]:
    """ONNX's NonMaxSuppression per (batch, class): boxes scoring above score_threshold, best
    first (stable), each dropped when its IoU with a kept box reaches iou_threshold, at most
    max_output_boxes_per_class kept (any number when it is 0 or less, as TVM has it)."""
    ins = [
        materialized(t)
        for t in (boxes, scores, max_output_boxes_per_class, iou_threshold, score_threshold)
    ]
    batch, classes, count = static_shape(ins[1])
    dtype = ins[1].dtype
    onnx = output_format == "onnx"

    def body(bufs: list[Buffer], outs: list[Buffer]) -> Stmt:
        ib = create()
        box, score, limit, threshold, floor_score = (ib.buffer_ptr(b) for b in bufs)
        order = ib.allocate("int32", (count,), name="order")
        kept = ib.allocate("int32", (count,), name="kept")
        total = ib.allocate("int32", (1,), name="total", scope="local")
        taken = ib.allocate("int32", (1,), name="taken", scope="local")
        at_most = ib.let("at_most", limit[(0,) * len(bufs[2].shape)].astype("int32"))
        iou_limit = ib.let("iou_limit", threshold[(0,) * len(bufs[3].shape)])
        low = ib.let("low", floor_score[(0,) * len(bufs[4].shape)])
        rows = ib.buffer_ptr(outs[0])
        total[0] = 0
        if onnx:
            with ib.for_range(0, batch * classes * count, name="r") as r:
                for e in range(3):
                    rows[r, e] = te.const(0, "int64")
        with ib.for_range(0, batch, name="b") as b:
            if not onnx:
                total[0] = 0
                out_scores = ib.buffer_ptr(outs[1])
                with ib.for_range(0, classes * count, name="r") as r:
                    rows[b, r, 0] = te.const(0, "int64")
                    rows[b, r, 1] = te.const(0, "int64")
                    out_scores[b, r] = te.const(0, dtype)
            with ib.for_range(0, classes, name="c") as c:
                sort_by_score(ib, order, te.const(count, "int32"), lambda i: score[b, c, i])
                with ib.for_range(0, count, name="k") as k:
                    kept[k] = (score[b, c, order[k]] > low).astype("int32")
                taken[0] = 0
                with ib.for_range(0, count, name="k") as k:
                    with ib.if_scope(kept[k] > 0):
                        with ib.if_scope(te.all(at_most > 0, taken[0] >= at_most)):
                            kept[k] = 0
                        with ib.else_scope():
                            taken[0] = taken[0] + 1
                            with ib.for_range(k + 1, count, name="m") as m:
                                same = iou(box, (b, order[k], 0), box, (b, order[m], 0), dtype)
                                with ib.if_scope(te.all(kept[m] > 0, same >= iou_limit)):
                                    kept[m] = 0
                with ib.for_range(0, count, name="k") as k:
                    with ib.if_scope(kept[k] > 0):
                        if onnx:
                            rows[total[0], 0] = b.astype("int64")
                            rows[total[0], 1] = c.astype("int64")
                            rows[total[0], 2] = order[k].astype("int64")
                        else:
                            rows[b, total[0], 0] = c.astype("int64")
                            rows[b, total[0], 1] = order[k].astype("int64")
                            out_scores[b, total[0]] = score[b, c, order[k]]
                        total[0] = total[0] + 1
            if not onnx:
                ib.buffer_ptr(outs[2])[b] = total[0].astype("int64")
        if onnx:
            ib.buffer_ptr(outs[1])[0] = total[0].astype("int64")
        return ib.get()

    if onnx:
        shapes = [[batch * classes * count, 3], [1]]
        dtypes = ["int64", "int64"]
    else:
        shapes = [[batch, classes * count, 2], [batch, classes * count], [batch]]
        dtypes = ["int64", dtype, "int64"]
    outs = te.extern(shapes, ins, body, name="T_all_class_nms", dtype=dtypes)
    return list(outs)  # type: ignore[arg-type]


def multibox_transform_loc(
    cls_prob: TensorLike,
    loc_pred: TensorLike,
    anchor: TensorLike,
    clip: bool,
    threshold: float,
    variances: Sequence[float],
) -> list[te.Tensor]:
    """SSD's box decoding (see the relay op): rows (class - 1, score, corners) of the
    anchors whose best non-background class scores at least threshold, then -1 rows."""
    ins = [materialized(t) for t in (cls_prob, loc_pred, anchor)]
    batch, classes, anchors = static_shape(ins[0])
    dtype = ins[0].dtype

    def body(bufs: list[Buffer], outs: list[Buffer]) -> Stmt:
        ib = create()
        prob, loc, box = (ib.buffer_ptr(b) for b in bufs)
        rows, count = ib.buffer_ptr(outs[0]), ib.buffer_ptr(outs[1])
        best = ib.allocate(dtype, (1,), name="best", scope="local")
        which = ib.allocate("int32", (1,), name="which", scope="local")
        with ib.for_range(0, batch, name="b") as b:
            count[b] = 0
            with ib.for_range(0, anchors, name="j") as j:
                with ib.for_range(0, 6, name="e") as e:
                    rows[b, j, e] = te.const(-1, dtype)
            with ib.for_range(0, anchors, name="j") as j:
                best[0] = te.const(-1, dtype)
                which[0] = 0
                with ib.for_range(1, classes, name="k") as k:
                    with ib.if_scope(prob[b, k, j] > best[0]):
                        best[0] = prob[b, k, j]
                        which[0] = k
                with ib.if_scope(te.all(which[0] > 0, best[0] >= threshold)):
                    at = ib.let("at", count[b])
                    rows[b, at, 0] = (which[0] - 1).astype(dtype)
                    rows[b, at, 1] = best[0]
                    left, top, right, bottom = (box[0, j, k] for k in range(4))
                    width, height = right - left, bottom - top
                    cx = loc[b, j * 4] * variances[0] * width + (left + right) / 2.0
                    cy = loc[b, j * 4 + 1] * variances[1] * height + (top + bottom) / 2.0
                    half_w = te.exp(loc[b, j * 4 + 2] * variances[2]) * width / 2.0
                    half_h = te.exp(loc[b, j * 4 + 3] * variances[3]) * height / 2.0
                    corners = (cx - half_w, cy - half_h, cx + half_w, cy + half_h)
                    for k, value in enumerate(corners):
                        if clip:
                            value = te.max(te.const(0, dtype), te.min(te.const(1, dtype), value))
                        rows[b, at, 2 + k] = value
                    count[b] = at + 1
        return ib.get()

    outs = te.extern(
        [[batch, anchors, 6], [batch]],
        ins,
        body,
        name="T_multibox_transform_loc",
        dtype=[dtype, "int32"],
    )
    return list(outs)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# Region proposals (Faster R-CNN)


def proposal_anchors(
    scales: Sequence[float], ratios: Sequence[float], stride: int
) -> list[tuple[float, float, float, float]]:
    """The base anchors (x1, y1, x2, y2) of one feature-map cell, ratio-major: a stride x
    stride box reshaped to each ratio (sizes rounded to whole pixels), scaled."""
    centre = 0.5 * (stride - 1.0)
    anchors = []
    for ratio in ratios:
        for scale in scales:
            width = math.floor(math.sqrt(math.floor(stride * stride / ratio)) + 0.5) * scale
            height = math.floor(width / scale * ratio + 0.5) * scale
            anchors.append(
                (
                    centre - 0.5 * (width - 1.0),
                    centre - 0.5 * (height - 1.0),
                    centre + 0.5 * (width - 1.0),
                    centre + 0.5 * (height - 1.0),
                )
            )
    return anchors


def proposal(
    cls_prob: TensorLike,
    bbox_pred: TensorLike,
    im_info: TensorLike,
    scales: Sequence[float],
    ratios: Sequence[float],
    feature_stride: int,
    threshold: float,
    pre_nms_top_n: int,
    post_nms_top_n: int,
    min_size: int,
    iou_loss: bool,
) -> te.Tensor:
    """TVM's proposal (see the relay op), per batch: boxes of every anchor and cell, their
    stable descending score order, non-maximum suppression of the best pre_nms_top_n, and
    the survivors written cyclically into post_nms_top_n rows."""
    ins = [materialized(t) for t in (cls_prob, bbox_pred, im_info)]
    batch, _, height, width = static_shape(ins[0])
    base = proposal_anchors(scales, ratios, feature_stride)
    count = len(base)
    boxes_n = height * width * count
    top = min(pre_nms_top_n, boxes_n) if pre_nms_top_n > 0 else boxes_n
    dtype = ins[1].dtype

    def c(value: float) -> PrimExpr:
        return te.const(value, dtype)

    def body(bufs: list[Buffer], outs: list[Buffer]) -> Stmt:
        ib = create()
        score_in, delta, info = (ib.buffer_ptr(b) for b in bufs)
        out = ib.buffer_ptr(outs[0])
        boxes = ib.allocate(dtype, (boxes_n, 5), name="boxes")
        order = ib.allocate("int32", (boxes_n,), name="order")
        removed = ib.allocate("int32", (top,), name="removed")
        written = ib.allocate("int32", (1,), name="written", scope="local")
        kept = ib.allocate("int32", (1,), name="kept", scope="local")
        with ib.for_range(0, batch * post_nms_top_n, name="r") as r:
            for e in range(5):
                out[r, e] = c(0)
        with ib.for_range(0, batch, name="b") as b:
            im_h, im_w = info[b, 0], info[b, 1]
            smallest = ib.let("smallest", info[b, 2] * float(min_size))
            rows_h = ib.let("rows_h", (im_h / float(feature_stride)).astype("int32"))
            rows_w = ib.let("rows_w", (im_w / float(feature_stride)).astype("int32"))
            with ib.for_range(0, height, name="h") as h:
                with ib.for_range(0, width, name="w") as w:
                    for k, (a0, a1, a2, a3) in enumerate(base):
                        at = (h * width + w) * count + k
                        x1 = c(a0) + (w * feature_stride).astype(dtype)
                        y1 = c(a1) + (h * feature_stride).astype(dtype)
                        x2 = c(a2) + (w * feature_stride).astype(dtype)
                        y2 = c(a3) + (h * feature_stride).astype(dtype)
                        d = [delta[b, k * 4 + i, h, w] for i in range(4)]
                        if iou_loss:
                            pred = [x1 + d[0], y1 + d[1], x2 + d[2], y2 + d[3]]
                        else:
                            bw, bh = x2 - x1 + 1.0, y2 - y1 + 1.0
                            cx = d[0] * bw + (x1 + 0.5 * (bw - 1.0))
                            cy = d[1] * bh + (y1 + 0.5 * (bh - 1.0))
                            pw, ph = te.exp(d[2]) * bw, te.exp(d[3]) * bh
                            pred = [
                                cx - 0.5 * (pw - 1.0),
                                cy - 0.5 * (ph - 1.0),
                                cx + 0.5 * (pw - 1.0),
                                cy + 0.5 * (ph - 1.0),
                            ]
                        limits = [im_w, im_h, im_w, im_h]
                        for e in range(4):
                            boxes[at, e] = te.max(te.min(pred[e], limits[e] - 1.0), c(0))
                        outside = te.any(h >= rows_h, w >= rows_w)
                        boxes[at, 4] = te.if_then_else(outside, c(-1), score_in[b, count + k, h, w])
                        small = te.any(
                            boxes[at, 2] - boxes[at, 0] + 1.0 < smallest,
                            boxes[at, 3] - boxes[at, 1] + 1.0 < smallest,
                        )
                        with ib.if_scope(small):
                            half = smallest / 2.0
                            boxes[at, 0] = boxes[at, 0] - half
                            boxes[at, 1] = boxes[at, 1] - half
                            boxes[at, 2] = boxes[at, 2] + half
                            boxes[at, 3] = boxes[at, 3] + half
                            boxes[at, 4] = c(-1)
            sort_by_score(ib, order, te.const(boxes_n, "int32"), lambda i: boxes[i, 4])
            with ib.for_range(0, top, name="i") as i:
                removed[i] = 0
            with ib.for_range(0, top, name="l") as l_:
                with ib.if_scope(removed[l_] == 0):
                    with ib.for_range(l_ + 1, top, name="i") as i:
                        overlap = pixel_iou(boxes, order[l_], order[i])
                        with ib.if_scope(overlap > threshold):
                            removed[i] = 1
            kept[0] = 0
            with ib.for_range(0, top, name="j") as j:
                kept[0] = kept[0] + (removed[j] == 0).astype("int32")
            written[0] = 0
            rounds = (post_nms_top_n + kept[0] - 1) // te.max(kept[0], 1)
            with ib.for_range(0, rounds, name="round") as _:
                with ib.for_range(0, top, name="j") as j:
                    with ib.if_scope(te.all(written[0] < post_nms_top_n, removed[j] == 0)):
                        row = b * post_nms_top_n + written[0]
                        out[row, 0] = b.astype(dtype)
                        for e in range(4):
                            out[row, e + 1] = boxes[order[j], e]
                        written[0] = written[0] + 1
        return ib.get()

    shape = [batch * post_nms_top_n, 5]
    return te.extern(shape, ins, body, name="T_proposal", dtype=dtype, tag="proposal")  # type: ignore[return-value]


def pixel_iou(boxes: BufferVar, a: PrimExpr, b: PrimExpr) -> PrimExpr:
    """IoU of boxes a and b counted in pixels (a box spans x2 - x1 + 1 of them)."""
    zero = te.const(0, boxes.dtype)
    w = te.max(zero, te.min(boxes[a, 2], boxes[b, 2]) - te.max(boxes[a, 0], boxes[b, 0]) + 1.0)
    h = te.max(zero, te.min(boxes[a, 3], boxes[b, 3]) - te.max(boxes[a, 1], boxes[b, 1]) + 1.0)
    inter = w * h
    area_a = (boxes[a, 2] - boxes[a, 0] + 1.0) * (boxes[a, 3] - boxes[a, 1] + 1.0)
    area_b = (boxes[b, 2] - boxes[b, 0] + 1.0) * (boxes[b, 3] - boxes[b, 1] + 1.0)
    return inter / (area_a + area_b - inter)
