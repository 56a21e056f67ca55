"""AutoTVM templates of xtvm's CPU schedules: knobs of the register tiles of products and
conv2d.

- `matmul.llvm` (a [m, k] x b [k, n]) and `dense.llvm` (data [m, k] x weight [n, k]
  transposed) take `(m, k, n, dtype)`; `batch_matmul.llvm` takes the operand shapes and
  transposes `(x_shape, y_shape, transpose_a, transpose_b, dtype)`. Their knobs are
  `cpu_dense`'s tile: rows (`tile_y`), columns (`tile_x`), reduction step (`tile_k`), and
  whether column blocks go outermost (`columns_first`).
- `conv2d_nchw.llvm` and `conv2d_nhwc.llvm` take `(data_shape, kernel_shape, strides,
  padding, dilation, kernel_layout, dtype)` of an ungrouped conv2d. Their knobs are
  `cpu_conv2d`'s tile: output channels (`tile_f`), output columns (`tile_x`) and, NHWC,
  whether rows go outside the channel blocks (`rows_outside`).

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
from xtvm.topi import nn
from xtvm.topi.schedule import (
    COLUMN_TILE,
    CONV_CHANNEL_TILE,
    CONV_COLUMN_TILE,
    K_COLUMN_TILE,
    K_ROW_TILE,
    K_UNROLL,
    NHWC_CHANNELS,
    NHWC_COLUMNS,
    ROW_TILE,
    VECTOR_LANES,
    column_contiguous,
    cpu_conv2d,
    extent,
    nhwc_tile_factor,
    register_tiled,
    rows_outside,
    split_exact,
    tile_factor,
    tile_product,
    weight_outgrows_cache,
)
from xtvm.tuning.space import ConfigSpace, OtherOptionEntity, SplitEntity
from xtvm.tuning.task import KERNEL_SCHEDULES, KERNEL_WORKLOADS, Workload, get_config, template

MAX_TILE = 64  # largest rows, columns or channels of a tile the templates try
MAX_K_TILE = 16  # largest reduction step (unrolled, or a vector of k)
PRODUCTS = ("dense", "matmul", "batch_matmul")


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
    defaults = (
        (ROW_TILE, COLUMN_TILE, K_UNROLL)
        if contiguous
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
    outer, inner = register_tiled(s, out)
    tile_product(
        outer,
        inner,
        batched,
        cfg["tile_y"].size[-1],
        cfg["tile_x"].size[-1],
        not contiguous,
        cfg["columns_first"].val,
        cfg["tile_k"].size[-1],
        split_exact,
    )


def schedule_conv2d(s: te.Schedule, out: te.Tensor) -> None:
    """The tuned register tile of an ungrouped conv2d `out` (NCHW or NHWC)."""
    nhwc = out.op.tag.endswith("nhwc")  # type: ignore[attr-defined]
    _, a, b, c = out.op.axis  # type: ignore[attr-defined]
    channels, columns = (extent(c), extent(b)) if nhwc else (extent(a), extent(c))
    taps = math.prod(extent(r) for r in out.op.reduce_axis)  # type: ignore[attr-defined]
    cfg: ConfigSpace = get_config()
    cfg.add_flop(2 * math.prod(int(d) for d in out.shape) * taps)  # type: ignore[arg-type]
    if nhwc:
        f = nhwc_tile_factor(channels, NHWC_CHANNELS)
        x = nhwc_tile_factor(columns, NHWC_COLUMNS)
    else:
        f = tile_factor(channels, CONV_CHANNEL_TILE)
        x = tile_factor(columns, CONV_COLUMN_TILE)
    define_tile(cfg, "tile_f", channels, f or channels, MAX_TILE)
    define_tile(cfg, "tile_x", columns, x or columns, MAX_TILE)
    if nhwc:
        cfg.define_knob("rows_outside", [False, True])
        if cfg.is_fallback:
            cfg["rows_outside"] = OtherOptionEntity(rows_outside(out))  # type: ignore[index]
    outside = bool(cfg["rows_outside"].val) if nhwc else False
    cpu_conv2d(s, out, (cfg["tile_f"].size[-1], cfg["tile_x"].size[-1], outside))


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


def conv2d(layout: str) -> Any:
    def build(
        data_shape: Sequence[int],
        kernel_shape: Sequence[int],
        strides: Sequence[int] = (1, 1),
        padding: Sequence[int] = (0, 0, 0, 0),
        dilation: Sequence[int] = (1, 1),
        kernel_layout: str = "OIHW" if layout == "NCHW" else "HWIO",
        dtype: str = "float32",
    ) -> tuple[te.Schedule, list[Any]]:
        data = te.placeholder(tuple(data_shape), dtype, name="data")
        kernel = te.placeholder(tuple(kernel_shape), dtype, name="kernel")
        out = nn.conv2d(data, kernel, strides, padding, dilation, 1, layout, kernel_layout)
        return scheduled(out, schedule_conv2d, [data, kernel])

    build.__doc__ = f"An ungrouped {layout} conv2d: a register tile of channels by columns."
    return build


conv2d_nchw = template("conv2d_nchw.llvm")(conv2d("NCHW"))
conv2d_nhwc = template("conv2d_nhwc.llvm")(conv2d("NHWC"))


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
    if workload is None or t.dtype != "float32" or workload[-1] != "float32":
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
    if kind == "conv2d":
        data, kernel, strides, padding, dilation, groups, layout, kernel_layout, dtype = args
        if groups != 1 or layout not in ("NCHW", "NHWC"):
            return None
        name = f"conv2d_{layout.lower()}.llvm"
        return (name, data, kernel, strides, padding, dilation, kernel_layout, dtype)
    return None


KERNEL_WORKLOADS.append(kernel_workload)
KERNEL_SCHEDULES.update(
    {
        "matmul.llvm": schedule_product,
        "dense.llvm": schedule_product,
        "batch_matmul.llvm": schedule_product,
        "conv2d_nchw.llvm": schedule_conv2d,
        "conv2d_nhwc.llvm": schedule_conv2d,
    }
)
