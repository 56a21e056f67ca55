"""AutoTVM templates of xtvm's CPU schedules: knobs of the register tiles of products and
conv2d.

- `matmul.llvm` (a [m, k] x b [k, n]) and `dense.llvm` (data [m, k] x weight [n, k]
  transposed) take `(m, k, n, dtype)`; `batch_matmul.llvm` takes the operand shapes and
  transposes `(x_shape, y_shape, transpose_a, transpose_b, dtype)`. Their knobs are
  `cpu_dense`'s tile: rows (`tile_y`), columns (`tile_x`), reduction step (`tile_k`),
  whether column blocks go outermost (`columns_first`) and whether each column panel of the
  column operand is packed (`pack`): where its columns are contiguous ([k, n]), a copy of the
  panel; where it is read transposed ([n, k]: dense's weight, batch_matmul's y with
  transpose_b), a transposing copy, one panel [k, tile_x] per column block (`tile_product`'s
  `panels`), after which the tile vectorizes columns as matmul's does (`tile_k` the steps
  unrolled) instead of k (`tile_k` the vector of k, each output a horizontal sum).
  batch_matmul with transpose_a also has `pack_a`: x [b, k, m] copied to [b, m, k] at the
  root first (off by default: at 12 x 64 x 64 x 64 it doubled the speed, 115 -> 217
  GFLOP/s at 1 thread, at 12 x 128 x 64 x 128 it cost 7 %).
- `conv2d_nchw.llvm` and `conv2d_nhwc.llvm` take `(data_shape, kernel_shape, strides,
  padding, dilation, kernel_layout, dtype)` of an ungrouped conv2d, and so do
  `depthwise_conv2d_{nchw,nhwc}.llvm` of a depthwise one (a group per input channel);
  `group_conv2d_{nchw,nhwc}.llvm` take `groups` before `kernel_layout`. Their knobs are
  `cpu_conv2d`'s tile: output channels (`tile_f`, within a group when grouped) or, depthwise
  NCHW, output rows (`tile_y`); output columns (`tile_x`) and, NHWC, whether rows go outside
  the channel blocks (`rows_outside`). All but depthwise NCHW also have TVM's x86 conv2d
  knobs (`define_conv_knobs`): output rows added to the tile (`tile_oh`, divisors of the
  rows), input channels per reduction block (`tile_ic`) and the kernel columns unrolled in
  it (`unroll_kw`). A 1x1 NCHW conv2d on a plane narrower than a vector and of at most 64
  elements (7x7) also has `plane`: a tile of
  `tile_f` channels by whole planes (one vector of H*W each), its default schedule where the
  channels allow 4 a tile; without it a tuned config could not reproduce that default.
- `conv2d_winograd_nhwc.llvm` takes `(data_shape, kernel_shape, tile_size, padding, dtype)`
  of a winograd conv2d (the transformed kernel, as relay.build has it). Its knobs are the
  register tile of the batched product: rows of tiles (`tile_r`, any divisor of the padded
  count up to 16), output channels (`tile_k`) and reduction steps unrolled (`tile_rc`), and
  whether channel blocks go outside the row blocks (`columns_outside`); and on the
  transforms, where a large layer's time goes: each unrolled over its alpha positions with
  its matrix's entries folded (`unroll_input`, `unroll_output`), and the input transform
  computed per block of `block_r` tiles inside the product (0: all of it first) so the
  transformed tiles stay in cache (see `cpu_conv2d_winograd`).

The fallback config (outside any tuning context) is the default schedule's choice, so an
untuned template builds today's default schedule. Each template's schedule is also a kernel
schedule (`task.KERNEL_SCHEDULES`): relay.build applies a recorded config to the stage of a
fused kernel whose workload key (`kernel_workload`, read off the compute's `workload`
attribute) names the template.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from xtvm import te
from xtvm.te.schedule import post_order_ops
from xtvm.topi import nn, winograd
from xtvm.topi.schedule import (
    COLUMN_TILE,
    CONV_CHANNEL_TILE,
    CONV_COLUMN_TILE,
    DEPTHWISE_ROW_TILE,
    K_COLUMN_TILE,
    K_ROW_TILE,
    K_UNROLL,
    NHWC_CHANNELS,
    NHWC_COLUMNS,
    ROW_TILE,
    VECTOR_LANES,
    ConvTiles,
    WinogradTiles,
    column_contiguous,
    cpu_conv2d,
    cpu_conv2d_winograd,
    cpu_injective,
    extent,
    group_row_tile,
    nhwc_tile_factor,
    packs_transposed,
    packs_weight,
    plane_rows,
    plane_tile,
    register_tiled,
    rows_outside,
    split_exact,
    tile_factor,
    tile_product,
    transpose_operand,
    transposed_operand,
    transposed_rows,
    weight_outgrows_cache,
    whole_plane,
)
from xtvm.tuning.space import ConfigSpace, OtherOptionEntity, SplitEntity
from xtvm.tuning.task import (
    KERNEL_SCHEDULES,
    KERNEL_WORKLOADS,
    TEMPLATE_WORKLOADS,
    Workload,
    get_config,
    template,
)

MAX_TILE = 64  # largest rows, columns or channels of a tile the templates try
MAX_K_TILE = 16  # largest reduction step (unrolled, or a vector of k)
MAX_TILE_ROWS = 4  # most output rows of a conv2d register tile (TVM's oh_factor)
PRODUCTS = ("dense", "matmul", "batch_matmul")
# the fewest and most tiles of a winograd conv2d whose input transform is computed per block
# of the product (blocks divide the tiles, whose count is often 49 k: 3136 at 224x224)
WINOGRAD_BLOCKS = (16, 256)


def define_tile(cfg: ConfigSpace, name: str, size: int, default: int, largest: int) -> None:
    """A split knob of an axis of `size` by one tile: its divisors up to `largest`, and the
    default schedule's tile `default` (which may be guarded: 8 rows of 98), the fallback."""
    inner = [f for f in range(1, min(size, largest) + 1) if size % f == 0]
    if default not in inner:
        inner = sorted([*inner, default])
    cfg.define_split(name, size, policy="candidate", candidate=[[-1, f] for f in inner])
    if cfg.is_fallback:
        cfg[name] = SplitEntity([-1, default])  # type: ignore[index]


def schedule_product(s: te.Schedule, out: te.Tensor) -> None:
    """The tuned register tile of the product `out` (dense, matmul, batch_matmul)."""
    batched = 1 if out.op.tag == "batch_matmul" else 0  # type: ignore[attr-defined]
    *_, row_axis, column_axis = out.op.axis  # type: ignore[attr-defined]
    rows, columns = extent(row_axis), extent(column_axis)
    (k,) = out.op.reduce_axis  # type: ignore[attr-defined]
    contiguous = column_contiguous(out)
    transposed = not contiguous and transposed_operand(out) is not None
    packs = packs_transposed(out, batched) if transposed else False  # the default's choice
    defaults = (
        (ROW_TILE, COLUMN_TILE, K_UNROLL)
        if contiguous or packs
        else (K_ROW_TILE, K_COLUMN_TILE, VECTOR_LANES)
    )
    cfg: ConfigSpace = get_config()
    cfg.add_flop(2 * math.prod(int(d) for d in out.shape) * extent(k))  # type: ignore[arg-type]
    for name, size, preferred, largest in zip(
        ("tile_y", "tile_x", "tile_k"),
        (rows, columns, extent(k)),
        defaults,
        (MAX_TILE, MAX_TILE, MAX_K_TILE),
        strict=True,
    ):
        define_tile(cfg, name, size, tile_factor(size, preferred) or size, largest)
    cfg.define_knob("columns_first", [False, True])
    if cfg.is_fallback:
        cfg["columns_first"] = OtherOptionEntity(weight_outgrows_cache(out, batched))  # type: ignore[index]
    pack = False
    if contiguous or transposed:  # a packed panel of the column operand (see tile_product)
        cfg.define_knob("pack", [False, True])
        if cfg.is_fallback:
            default = packs or packs_weight(out, weight_outgrows_cache(out, batched))
            cfg["pack"] = OtherOptionEntity(default)  # type: ignore[index]
        pack = bool(cfg["pack"].val)
    panels = transpose_operand(s, out) if transposed and pack else None
    rows = transposed_rows(out)
    if rows is not None:  # x [..., k, m] (transpose_a) copied to [..., m, k] at the root
        cfg.define_knob("pack_a", [False, True])
        rows = s.transpose_read(rows, [out]) if cfg["pack_a"].val else None
    outer, inner = register_tiled(s, out)
    tile_product(
        outer,
        inner,
        batched,
        cfg["tile_y"].size[-1],
        cfg["tile_x"].size[-1],
        not (contiguous or panels is not None),
        cfg["columns_first"].val,
        cfg["tile_k"].size[-1],
        split_exact,
        pack,
        panels,
    )
    if rows is not None:
        cpu_injective(s, rows)


def schedule_conv2d(s: te.Schedule, out: te.Tensor) -> None:
    """The tuned register tile of a conv2d `out` (NCHW or NHWC; ungrouped, grouped or
    depthwise): the first tile knob is `tile_y` (output rows) for a depthwise NCHW conv2d,
    else `tile_f` (output channels, within a group); then `tile_x` (output columns)."""
    tag = out.op.tag  # type: ignore[attr-defined]
    nhwc = tag.endswith("nhwc")
    _, a, b, c = out.op.axis  # type: ignore[attr-defined]
    channels, columns = (extent(c), extent(b)) if nhwc else (extent(a), extent(c))
    per_group_out = out.op.attrs.get("per_group_out", channels)  # type: ignore[attr-defined]
    taps = math.prod(extent(r) for r in out.op.reduce_axis)  # type: ignore[attr-defined]
    cfg: ConfigSpace = get_config()
    cfg.add_flop(2 * math.prod(int(d) for d in out.shape) * taps)  # type: ignore[arg-type]
    first, size = "tile_f", channels
    if nhwc:
        f = nhwc_tile_factor(channels, NHWC_CHANNELS)
        x = nhwc_tile_factor(columns, NHWC_COLUMNS)
    else:
        x = tile_factor(columns, CONV_COLUMN_TILE)
        if per_group_out == 1 and "depthwise" in tag:  # a tile of rows by columns
            first, size = "tile_y", extent(b)
            f = tile_factor(size, DEPTHWISE_ROW_TILE)
        elif per_group_out < channels:  # grouped: a tile of channels within a group
            size = per_group_out
            f = tile_factor(size, group_row_tile(per_group_out))
        else:
            f = tile_factor(channels, CONV_CHANNEL_TILE)
        if first == "tile_f" and plane_tile(out, per_group_out):
            f = plane_rows(per_group_out)  # the default tile of whole planes
    define_tile(cfg, first, size, f or size, MAX_TILE)
    define_tile(cfg, "tile_x", columns, x or columns, MAX_TILE)
    if nhwc:
        cfg.define_knob("rows_outside", [False, True])
        if cfg.is_fallback:
            cfg["rows_outside"] = OtherOptionEntity(rows_outside(out))  # type: ignore[index]
    outside = bool(cfg["rows_outside"].val) if nhwc else False
    plane = False
    if first == "tile_f" and whole_plane(out):
        # a tile of `tile_f` channels by whole planes instead of rows by columns (the other
        # knobs then change nothing); records from before the knob replay as row tiles
        cfg.define_knob("plane", [False, True])
        if cfg.is_fallback:
            cfg["plane"] = OtherOptionEntity(plane_tile(out, per_group_out))  # type: ignore[index]
        plane = bool(cfg["plane"].val)
    tiles = ConvTiles(cfg[first].size[-1], cfg["tile_x"].size[-1], outside, plane=plane)
    if first == "tile_f":
        tiles = define_conv_knobs(cfg, out, tiles, nhwc)
    cpu_conv2d(s, out, tiles)


def define_conv_knobs(cfg: ConfigSpace, out: te.Tensor, tiles: ConvTiles, nhwc: bool) -> ConvTiles:
    """`tiles` with the knobs beyond the channels x columns tile of a conv2d (not depthwise
    NCHW), as TVM's x86 conv2d templates have them: output rows in the tile (`tile_oh`, its
    oh_factor), input channels per reduction block (`tile_ic`, its ic_bn; 0 keeps the default
    order) and the kernel columns unrolled inside the block (`unroll_kw`). Their first
    candidates are the default schedule."""
    rows = extent(out.op.axis[1 if nhwc else 2])  # type: ignore[attr-defined]
    reduce = {a.name: extent(a) for a in out.op.reduce_axis}  # type: ignore[attr-defined]
    channels = reduce.get("rc", 1)
    # A block of all the channels is NHWC's default order; in NCHW it moves them innermost.
    blocks = [f for f in range(2, min(channels, MAX_TILE) + 1) if channels % f == 0]
    blocks = [f for f in blocks if f < channels or not nhwc]
    # Only row counts that divide the rows: a guarded row tile (4 of 14) measured 1.15x faster
    # built alone by the template yet ran 2-2.6x slower inside relay.build's kernel.
    row_counts = [r for r in range(1, MAX_TILE_ROWS + 1) if r == 1 or (r < rows and rows % r == 0)]
    cfg.define_knob("tile_oh", row_counts)
    cfg.define_knob("tile_ic", [0, *blocks])
    cfg.define_knob("unroll_kw", [False, True] if channels > 1 and reduce["rx"] > 1 else [False])
    return tiles._replace(
        rows=int(cfg["tile_oh"].val),
        rc_block=int(cfg["tile_ic"].val),
        unroll_kw=bool(cfg["unroll_kw"].val),
    )


def schedule_winograd(s: te.Schedule, product: te.Tensor) -> None:
    """The tuned register tile of a winograd conv2d's batched product: rows of tiles
    (`tile_r`, a divisor of the rows the tiles are padded to), output channels (`tile_k`) and
    reduction steps unrolled (`tile_rc`)."""
    _, _, r, k = product.op.axis  # type: ignore[attr-defined]
    (rc,) = product.op.reduce_axis  # type: ignore[attr-defined]
    cfg: ConfigSpace = get_config()
    cfg.add_flop(2 * math.prod(int(d) for d in product.shape) * extent(rc))  # type: ignore[arg-type]
    # the rows are padded to a multiple of winograd.ROWS; any divisor of that count tiles it
    define_tile(cfg, "tile_r", extent(r), winograd.ROWS, MAX_K_TILE)
    columns = extent(k)
    define_tile(cfg, "tile_k", columns, tile_factor(columns, winograd.COLUMNS) or columns, MAX_TILE)
    steps = extent(rc)
    define_tile(cfg, "tile_rc", steps, tile_factor(steps, winograd.K_UNROLL) or steps, MAX_K_TILE)
    cfg.define_knob("columns_outside", [False, True])
    # the transforms, where most of a large layer's time goes (the first candidates are the
    # default schedule: records from before these knobs replay as they were tuned)
    cfg.define_knob("unroll_input", [False, True])
    cfg.define_knob("unroll_output", [False, True])
    tiles_r = extent(r)
    blocks = range(WINOGRAD_BLOCKS[0], min(WINOGRAD_BLOCKS[1], tiles_r - 1) + 1, winograd.ROWS)
    cfg.define_knob("block_r", [0, *(b for b in blocks if tiles_r % b == 0)])
    tiles = WinogradTiles(
        cfg["tile_r"].size[-1],
        cfg["tile_k"].size[-1],
        cfg["tile_rc"].size[-1],
        bool(cfg["columns_outside"].val),
        bool(cfg["unroll_input"].val),
        bool(cfg["unroll_output"].val),
        int(cfg["block_r"].val),
    )
    cpu_conv2d_winograd(s, product, tiles)


@template("conv2d_winograd_nhwc.llvm")
def conv2d_winograd_nhwc(
    data_shape: Sequence[int],
    kernel_shape: Sequence[int],
    tile_size: int = 4,
    padding: Sequence[int] = (1, 1, 1, 1),
    dtype: str = "float32",
) -> tuple[te.Schedule, list[Any]]:
    """A winograd conv2d (NHWC data, the transformed kernel as relay.build has it: `[alpha,
    alpha, C, K]` or packed `[alpha, alpha, K / b, C, b]`), 3x3, stride 1."""
    data = te.placeholder(tuple(data_shape), dtype, name="data")
    kernel = te.placeholder(tuple(kernel_shape), dtype, name="kernel")
    out = winograd.conv2d_winograd_nhwc(data, kernel, tile_size, padding)
    product = next(
        op.output(0)
        for op in post_order_ops([out.op])
        if getattr(op, "tag", "") == winograd.PRODUCT_TAG
    )
    s = te.create_schedule(out.op)
    for stage in s.stages:  # as relay.build: the transforms' inner stages inlined first
        if stage.op is not out.op and not stage.op.reduce_axis:
            stage.compute_inline()
    schedule_winograd(s, product)
    return s, [data, kernel, out]


def scheduled(out: te.Tensor, schedule: Any, args: Sequence[te.Tensor]) -> tuple[te.Schedule, list]:
    s = te.create_schedule(out.op)
    schedule(s, out)
    return s, [*args, out]


@template("matmul.llvm")
def matmul(m: int, k: int, n: int, dtype: str = "float32") -> tuple[te.Schedule, list[Any]]:
    """a [m, k] x b [k, n]: a vector of columns by rows, k unrolled (`cpu_dense`)."""
    a = te.placeholder((m, k), dtype, name="A")
    b = te.placeholder((k, n), dtype, name="B")
    return scheduled(nn.matmul(a, b, False, False), schedule_product, [a, b])


@template("dense.llvm")
def dense(m: int, k: int, n: int, dtype: str = "float32") -> tuple[te.Schedule, list[Any]]:
    """data [m, k] x weight [n, k] transposed: a vector of k under a small tile."""
    data = te.placeholder((m, k), dtype, name="data")
    weight = te.placeholder((n, k), dtype, name="weight")
    return scheduled(nn.dense(data, weight), schedule_product, [data, weight])


@template("batch_matmul.llvm")
def batch_matmul(
    x_shape: Sequence[int],
    y_shape: Sequence[int],
    transpose_a: bool = False,
    transpose_b: bool = True,
    dtype: str = "float32",
) -> tuple[te.Schedule, list[Any]]:
    """x [b, m, k] x y [b, n, k] (transposes as given, batches broadcast)."""
    x = te.placeholder(tuple(x_shape), dtype, name="x")
    y = te.placeholder(tuple(y_shape), dtype, name="y")
    return scheduled(nn.batch_matmul(x, y, transpose_a, transpose_b), schedule_product, [x, y])


def conv2d(layout: str, kind: str = "conv2d") -> Any:
    """The template function of a conv2d `kind` (conv2d, depthwise_conv2d, group_conv2d)."""

    def build(
        data_shape: Sequence[int],
        kernel_shape: Sequence[int],
        strides: Sequence[int] = (1, 1),
        padding: Sequence[int] = (0, 0, 0, 0),
        dilation: Sequence[int] = (1, 1),
        *rest: Any,
    ) -> tuple[te.Schedule, list[Any]]:
        default_layout = "OIHW" if layout == "NCHW" else "HWIO"
        # (..., [groups,] kernel_layout, dtype): a depthwise conv2d has a group per channel
        defaults = [default_layout, "float32"]
        if kind == "group_conv2d":
            defaults.insert(0, 1)
        if len(rest) > len(defaults):
            raise TypeError(f"{kind}: {len(rest) - len(defaults)} arguments too many")
        *grouping, kernel_layout, dtype = [*rest, *defaults[len(rest) :]]
        groups = grouping[0] if grouping else 1
        if kind == "depthwise_conv2d":
            groups = data_shape[1 if layout == "NCHW" else 3]
        data = te.placeholder(tuple(data_shape), dtype, name="data")
        kernel = te.placeholder(tuple(kernel_shape), dtype, name="kernel")
        out = nn.conv2d(data, kernel, strides, padding, dilation, groups, layout, kernel_layout)
        return scheduled(out, schedule_conv2d, [data, kernel])

    build.__doc__ = f"A {kind} in {layout}: a register tile of channels (or rows) by columns."
    return build


CONV2D_TEMPLATES = {
    f"{kind}_{layout.lower()}.llvm": template(f"{kind}_{layout.lower()}.llvm")(conv2d(layout, kind))
    for kind in ("conv2d", "depthwise_conv2d", "group_conv2d")
    for layout in ("NCHW", "NHWC")
}
conv2d_nchw = CONV2D_TEMPLATES["conv2d_nchw.llvm"]
conv2d_nhwc = CONV2D_TEMPLATES["conv2d_nhwc.llvm"]
depthwise_conv2d_nchw = CONV2D_TEMPLATES["depthwise_conv2d_nchw.llvm"]
depthwise_conv2d_nhwc = CONV2D_TEMPLATES["depthwise_conv2d_nhwc.llvm"]
group_conv2d_nchw = CONV2D_TEMPLATES["group_conv2d_nchw.llvm"]
group_conv2d_nhwc = CONV2D_TEMPLATES["group_conv2d_nhwc.llvm"]


def product_rows(shape: Sequence[int]) -> int | None:
    """The rows of a product operand [..., rows, k] whose leading axes are all 1 (a 2-d
    template tiles it alike), else None."""
    *lead, rows, _ = shape
    return rows if math.prod(lead) == 1 else None


def kernel_workload(t: te.Tensor) -> Workload | None:
    """The template workload of a kernel's product or conv2d stage (float32, see the module
    docstring), from the `workload` attribute its TOPI compute carries."""
    attrs = getattr(t.op, "attrs", {})
    workload = attrs.get("workload")
    if workload is None or t.dtype != "float32":
        return None
    return template_workload(workload, t.op.tag)  # type: ignore[attr-defined]


def template_workload(workload: Sequence[Any], tag: str = "") -> Workload | None:
    """The template workload of a TOPI compute's `workload` attribute (a depthwise conv2d's
    `tag` starts with "depthwise"), or None when no template tunes it."""
    if workload[-1] != "float32":
        return None
    kind, *args = workload
    if kind == "dense":
        data, weight, dtype = args
        rows = product_rows(data)
        return None if rows is None else ("dense.llvm", rows, data[-1], weight[0], dtype)
    if kind == "matmul":
        a, b, transpose_a, transpose_b, dtype = args
        rows = product_rows(a)
        if transpose_a or transpose_b or rows is None:
            return None
        return ("matmul.llvm", rows, a[-1], b[1], dtype)
    if kind == "batch_matmul":
        return ("batch_matmul.llvm", *args)
    if kind == "conv2d_winograd":
        return ("conv2d_winograd_nhwc.llvm", *args)
    if kind == "conv2d":
        data, kernel, strides, padding, dilation, groups, layout, kernel_layout, dtype = args
        if layout not in ("NCHW", "NHWC"):
            return None
        channels = data[1 if layout == "NCHW" else 3]
        head = (data, kernel, strides, padding, dilation)
        if groups == 1:
            return (f"conv2d_{layout.lower()}.llvm", *head, kernel_layout, dtype)
        if groups == channels and tag.startswith("depthwise"):
            return (f"depthwise_conv2d_{layout.lower()}.llvm", *head, kernel_layout, dtype)
        return (f"group_conv2d_{layout.lower()}.llvm", *head, groups, kernel_layout, dtype)
    return None


KERNEL_WORKLOADS.append(kernel_workload)
TEMPLATE_WORKLOADS.append(template_workload)
KERNEL_SCHEDULES.update(
    {
        "matmul.llvm": schedule_product,
        "dense.llvm": schedule_product,
        "batch_matmul.llvm": schedule_product,
        **dict.fromkeys(CONV2D_TEMPLATES, schedule_conv2d),
        "conv2d_winograd_nhwc.llvm": schedule_winograd,
    }
)
