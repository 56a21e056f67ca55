"""AutoTVM templates of xtvm's CPU schedules: the knobs of `cpu_dense`'s register tile.

`matmul.llvm` (a [m, k] x b [k, n]) and `dense.llvm` (data [m, k] x weight [n, k]
transposed) take `(m, k, n, dtype)`. Their knobs are the tile's rows (`tile_y`), columns
(`tile_x`) and reduction step (`tile_k`), and whether column blocks go outermost
(`columns_first`). The fallback config (outside any tuning context) is `cpu_dense`'s
choice, so an untuned template builds today's default schedule.
"""

from __future__ import annotations

from typing import Any

from xtvm import te
from xtvm.topi import nn
from xtvm.topi.schedule import (
    COLUMN_TILE,
    K_COLUMN_TILE,
    K_ROW_TILE,
    K_UNROLL,
    ROW_TILE,
    VECTOR_LANES,
    extent,
    register_tiled,
    split_exact,
    tile_factor,
    tile_product,
    weight_outgrows_cache,
)
from xtvm.tuning.space import ConfigSpace, OtherOptionEntity, SplitEntity
from xtvm.tuning.task import get_config, template

MAX_TILE = 64  # largest rows or columns of a tile the templates try
MAX_K_TILE = 16  # largest reduction step (unrolled, or a vector of k)


def product_template(out: te.Tensor, defaults: tuple[int, int, int], vector_k: bool) -> te.Schedule:
    """The tuned register tile of the product `out` (see the module docstring)."""
    rows, columns = (extent(a) for a in out.op.axis)  # type: ignore[attr-defined]
    (k,) = out.op.reduce_axis  # type: ignore[attr-defined]
    cfg: ConfigSpace = get_config()
    cfg.add_flop(2 * rows * columns * extent(k))
    cfg.define_split("tile_y", rows, num_outputs=2, max_factor=MAX_TILE)
    cfg.define_split("tile_x", columns, num_outputs=2, max_factor=MAX_TILE)
    cfg.define_split("tile_k", extent(k), num_outputs=2, max_factor=MAX_K_TILE)
    cfg.define_knob("columns_first", [False, True])
    if cfg.is_fallback:
        for name, size, preferred in zip(
            ("tile_y", "tile_x", "tile_k"), (rows, columns, extent(k)), defaults, strict=True
        ):
            cfg[name] = SplitEntity([-1, tile_factor(size, preferred) or size])  # type: ignore[index]
        cfg["columns_first"] = OtherOptionEntity(weight_outgrows_cache(out, 0))  # type: ignore[index]
    s = te.create_schedule(out.op)
    outer, inner = register_tiled(s, out)
    tile_product(
        outer,
        inner,
        0,
        cfg["tile_y"].size[-1],
        cfg["tile_x"].size[-1],
        vector_k,
        cfg["columns_first"].val,
        cfg["tile_k"].size[-1],
        split_exact,
    )
    return s


@template("matmul.llvm")
def matmul(m: int, k: int, n: int, dtype: str = "float32") -> tuple[te.Schedule, list[Any]]:
    """a [m, k] x b [k, n]: a vector of columns by rows, k unrolled (`cpu_dense`)."""
    a = te.placeholder((m, k), dtype, name="A")
    b = te.placeholder((k, n), dtype, name="B")
    out = nn.matmul(a, b, False, False)
    return product_template(out, (ROW_TILE, COLUMN_TILE, K_UNROLL), False), [a, b, out]


@template("dense.llvm")
def dense(m: int, k: int, n: int, dtype: str = "float32") -> tuple[te.Schedule, list[Any]]:
    """data [m, k] x weight [n, k] transposed: a vector of k under a small tile."""
    data = te.placeholder((m, k), dtype, name="data")
    weight = te.placeholder((n, k), dtype, name="weight")
    out = nn.dense(data, weight)
    defaults = (K_ROW_TILE, K_COLUMN_TILE, VECTOR_LANES)
    return product_template(out, defaults, True), [data, weight, out]
