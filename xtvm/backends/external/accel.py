"""The `accel` codegen: GEMMs of a partitioned relay function tensorized onto an accel target.

A function partitioned with `compiler = "accel"` runs on the accelerator described by a loaded
accel target (`xtvm.target.load`): the function's `accel_target` attribute names it
(`partition_for_accel` sets it), else the target last given to `register_accel_offload`.
One codegen name for every target, the target a function attribute: partitioned functions'
symbols (`tvmgen_default_<compiler>_main_N`) stay C identifiers whatever the target's name.

The target's GEMM intrinsic (the first `accel.intrin` computing `C[i, j] += A . B` over a
reduction `k`, whichever operand layouts it reads) decides what is offloaded. Each `nn.dense`
(`out[m, n] = sum data[m, k] * weight[n, k]`), 2-d `nn.matmul`, `nn.batch_matmul` with weights
shared by the batch (one GEMM over rows (b, m)) and NCHW `nn.conv2d` (an im2col GEMM:
`out[oc, (n, oh, ow)] = sum weight[oc, (ic, kh, kw)] * patch[(n, oh, ow), (ic, kh, kw)]`)
whose dtypes are the intrinsic's (looking through widening casts: int8 models) becomes a kernel
of its own, scheduled as VTA's GEMM (examples/accelerators/vta/run_gemm.py): output tiles of
TM x TN accumulate in the intrinsic's output scratchpad (`cache_write`) over chunks of TK,
whose operand tiles are DMA'd into the intrinsic's input scratchpads (`cache_read`); inside,
blocks of the intrinsic's shape are tensorized with it. Tiles are whole blocks; the GEMM is
padded with zeros to whole tiles (at most 1/8 beyond whole blocks), and of the tiles that fit
the scratchpads together the codegen takes those with the fewest DMA bytes times intrinsic
calls. An operand whose memory already is the intrinsic's layout is DMA'd straight from its
argument; otherwise (a transpose, im2col, padding) a host stage of the same kernel writes it
first, and a host stage crops or reorders the result when it is not the relay output's layout.

Everything else in the function (bias_add, relu, ...) goes the `ccompiler` way — fused, lowered
with the CPU schedules — and all kernels are rendered into one translation unit by the accel
backend's renderer (scratchpad arrays, DMA calls, the target's header). The target's runtime
(its simulator or driver C) is compiled along as `extra_sources`: the sources given to
`register_accel_runtime`, else the C file beside the target's header with the header's stem
(`vta_sim.h` → `vta_sim.c`).

Which ops `relay-annotate-target{targets=accel}` hands over is derived from the target:
`register_accel_offload(target)` registers `target.accel` predicates for the GEMM ops whose
dtypes are the intrinsic's, that some tiling fits in the scratchpads and whose padding to whole
blocks costs at most `max_padding` times the useful work, plus the element-wise ops that may
share their region (run as C).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import Rewriter

from xtvm import te
from xtvm.backends.accel.codegen import AccelRenderer
from xtvm.backends.external import ExternalFunction, register_codegen
from xtvm.backends.external.ccompiler import (
    CCOMPILER_OPS,
    c_compatible,
    te_kernels_as_tir,
    wrapper,
)
from xtvm.dialects import relay
from xtvm.dialects import te as te_dialect
from xtvm.dialects.registry import default_context
from xtvm.ir.numpy_types import numpy_dtype
from xtvm.ir.symbols import check_symbol
from xtvm.ir.verify import located_error
from xtvm.passes.byoc_targets import OpView, register_op_attr, unregister_target
from xtvm.passes.convert_relay_to_te import ConvertRelayToTePass
from xtvm.passes.relay_fold_constant import RelayFoldConstantPass
from xtvm.passes.relay_fuse_ops import RelayFuseOpsPass
from xtvm.passes.relay_simplify_inference import RelaySimplifyInferencePass
from xtvm.passes.tir_tensorize import lower_schedule
from xtvm.target.accel import AccelTarget, Intrinsic, get_target
from xtvm.te.expr import PrimExpr, Tensor

NAME = "accel"
TARGET_ATTR = "accel_target"
"""The attribute of a partitioned function naming its accel target."""
GEMM_OPS = ("nn.dense", "nn.matmul", "nn.batch_matmul", "nn.conv2d")
REGION_OPS = ("nn.bias_add", "nn.relu", "add", "subtract", "multiply", "clip", "cast")
"""Ops run as C inside an accel function, so that they share a GEMM's region."""
MAX_PADDING = 2.0


# ---------------------------------------------------------------------------------------------
# The target's GEMM intrinsic


@dataclass(frozen=True)
class GemmIntrinsic:
    """An intrinsic computing `C[i, j] += A . B` on blocks of bi x bj x bk, as read from its
    `accel.intrin` semantics: which input holds rows (`i`), how each is laid out."""

    target: AccelTarget
    name: str
    block: tuple[int, int, int]
    a_dtype: str
    b_dtype: str
    out_dtype: str
    a_layout: str
    """"ik" (A[i, k]) or "ki"."""
    b_layout: str
    """"jk" (B[j, k], VTA's weights) or "kj"."""
    a_first: bool
    """Whether A is the product's left operand (tensorize matches the order)."""
    a_scope: str
    b_scope: str
    out_scope: str

    @staticmethod
    def of(target: AccelTarget, intrinsic: Intrinsic) -> GemmIntrinsic | None:
        """The GEMM `intrinsic` computes, or None if it computes something else."""
        op = intrinsic.op
        outputs = op.outputs()
        if len(op.inputs) != 2 or len(outputs) != 1:
            return None
        compute = outputs[0].owner
        if not isinstance(compute, te_dialect.ComputeOp):
            return None
        reduce = compute.reduction()
        if reduce is None or reduce.combiner.data != "sum" or reduce.is_custom:
            return None
        roles: dict[SSAValue, str] = dict(zip(compute.body.block.args, "ij", strict=False))
        roles.update(zip(reduce.body.block.args, "k", strict=False))
        reads = [o for o in reduce.walk() if isinstance(o, te_dialect.ReadOp)]
        layouts: dict[SSAValue, str] = {}
        for read in reads:
            layouts[read.tensor] = "".join(roles.get(v, "?") for v in read.indices)
        products = [o for o in reduce.walk() if isinstance(o, arith.MuliOp | arith.MulfOp)]
        if len(reads) != 2 or len(products) != 1 or len(layouts) != 2:
            return None
        first, second = op.inputs
        a, b = (first, second) if "i" in layouts.get(first, "") else (second, first)
        if layouts[a] not in ("ik", "ki") or layouts[b] not in ("jk", "kj"):
            return None
        shape_of = {v: v.type.get_shape() for v in op.inputs}  # type: ignore[attr-defined]
        bi, bk = shape_of[a] if layouts[a] == "ik" else shape_of[a][::-1]
        bj = shape_of[b][0] if layouts[b] == "jk" else shape_of[b][1]
        scopes = dict(zip(op.inputs, intrinsic.in_scopes, strict=True))
        return GemmIntrinsic(
            target,
            intrinsic.name,
            (int(bi), int(bj), int(bk)),
            numpy_dtype(a.type.get_element_type()).name,  # type: ignore[attr-defined]
            numpy_dtype(b.type.get_element_type()).name,  # type: ignore[attr-defined]
            numpy_dtype(outputs[0].type.get_element_type()).name,  # type: ignore[attr-defined]
            layouts[a],
            layouts[b],
            read_tensor(products[0].operands[0]) is a,
            scopes[a],
            scopes[b],
            intrinsic.out_scopes[0],
        )


def read_tensor(value: SSAValue) -> SSAValue | None:
    """The tensor whose `te.read` `value` is, through casts (`arith.extsi`)."""
    owner = value.owner
    while isinstance(owner, Operation) and not isinstance(owner, te_dialect.ReadOp):
        if len(owner.operands) != 1:
            return None
        owner = owner.operands[0].owner
    return owner.tensor if isinstance(owner, te_dialect.ReadOp) else None


def gemm_intrinsic(target: AccelTarget) -> GemmIntrinsic | None:
    """The target's first GEMM intrinsic."""
    for intrinsic in target.intrinsics.values():
        gemm = GemmIntrinsic.of(target, intrinsic)
        if gemm is not None:
            return gemm
    return None


# ---------------------------------------------------------------------------------------------
# A relay op as a GEMM


Reader = Callable[[Sequence[Tensor], PrimExpr, PrimExpr], PrimExpr]


@dataclass(frozen=True)
class Gemm:
    """`G[i, j] = sum_k A(i, k) * B(j, k)` over a relay op's operands, and its output.

    `a`/`b` read an element of A/B from the kernel's placeholders (declared with `shapes`,
    the operands' memory, relay operand `a_operand` holding A); `a_view` is the layout ("ik"
    or "ki") in which that operand already holds A, if it does (it is then DMA'd from the
    argument), likewise `b_view` ("jk" or "kj"); `out` reads the relay output's element at
    its axes from G; `out_is_g` says that the output's memory is G's when nothing is padded.
    """

    op_name: str
    m: int
    n: int
    k: int
    shapes: tuple[tuple[int, ...], ...]
    dtypes: tuple[str, ...]
    a_operand: int
    b_operand: int
    a: Reader
    b: Reader
    a_view: str | None
    b_view: str | None
    out_shape: tuple[int, ...]
    out_dtype: str
    out: Callable[[Tensor, Sequence[PrimExpr]], PrimExpr]
    out_is_g: bool


def dense_gemm(view: OpView) -> Gemm | None:
    """`out[..., n] = sum_k data[..., k] * weight[n, k]`: the leading axes are the rows."""
    data, weight = view.args
    if len(weight.shape) != 2 or not data.shape or data.shape[-1] != weight.shape[1]:
        return None
    n, k = weight.shape
    leading = data.shape[:-1]
    m = math.prod(leading)

    def out(g: Tensor, axes: Sequence[PrimExpr]) -> PrimExpr:
        row = axes[0]
        for axis, extent in zip(axes[1:-1], leading[1:], strict=True):
            row = row * extent + axis
        return g[row, axes[-1]]

    return Gemm(
        "dense",
        m,
        n,
        k,
        ((m, k), (n, k)),
        (data.dtype, weight.dtype),
        0,
        1,
        lambda t, i, kk: t[0][i, kk],
        lambda t, j, kk: t[1][j, kk],
        "ik",
        "jk",
        view.results[0].shape,
        view.results[0].dtype,
        out,
        True,
    )


def matmul_gemm(view: OpView) -> Gemm | None:
    """2-d `a @ b`, either operand transposed (`transpose_a`/`transpose_b`)."""
    a, b = view.args
    if len(a.shape) != 2 or len(b.shape) != 2:
        return None
    ta, tb = bool(view.attrs["transpose_a"]), bool(view.attrs["transpose_b"])
    m, k = a.shape[::-1] if ta else a.shape
    n = b.shape[0] if tb else b.shape[1]
    return Gemm(
        "matmul",
        m,
        n,
        k,
        (a.shape, b.shape),
        (a.dtype, b.dtype),
        0,
        1,
        (lambda t, i, kk: t[0][kk, i]) if ta else (lambda t, i, kk: t[0][i, kk]),
        (lambda t, j, kk: t[1][j, kk]) if tb else (lambda t, j, kk: t[1][kk, j]),
        "ki" if ta else "ik",
        "jk" if tb else "kj",
        view.results[0].shape,
        view.results[0].dtype,
        lambda g, axes: g[axes[0], axes[1]],
        True,
    )


def batch_matmul_gemm(view: OpView) -> Gemm | None:
    """`x[b] @ y[0]` for every b (weights shared by the batch): one GEMM whose rows are (b, m);
    y of batch size 1 only."""
    x, y = view.args
    ta, tb = bool(view.attrs["transpose_a"]), bool(view.attrs["transpose_b"])
    batch = x.shape[0]
    if len(x.shape) != 3 or len(y.shape) != 3 or y.shape[0] != 1:
        return None
    rows, k = x.shape[:0:-1] if ta else x.shape[1:]
    n = y.shape[1] if tb else y.shape[2]
    if ta:  # rows (b, m) are not contiguous: a host stage transposes them

        def a(t: Sequence[Tensor], i: PrimExpr, kk: PrimExpr) -> PrimExpr:
            return t[0][i // rows, kk, i % rows]

    else:

        def a(t: Sequence[Tensor], i: PrimExpr, kk: PrimExpr) -> PrimExpr:
            return t[0][i, kk]

    return Gemm(
        "batch_matmul",
        batch * rows,
        n,
        k,
        (x.shape if ta else (batch * rows, k), y.shape[1:]),
        (x.dtype, y.dtype),
        0,
        1,
        a,
        (lambda t, j, kk: t[1][j, kk]) if tb else (lambda t, j, kk: t[1][kk, j]),
        None if ta else "ik",
        "jk" if tb else "kj",
        view.results[0].shape,
        view.results[0].dtype,
        lambda g, axes: g[axes[0] * rows + axes[1], axes[2]],
        True,
    )


def conv2d_gemm(view: OpView) -> Gemm | None:
    """An NCHW/OIHW, ungrouped conv2d as `out[oc, p] = sum_q W[oc, q] * patch[p, q]`: p runs
    over (n, oh, ow), q over (ic, kh, kw); the patches (im2col) are a host stage."""
    attrs = view.attrs
    if attrs["data_layout"] != "NCHW" or attrs["kernel_layout"] != "OIHW" or attrs["groups"] != 1:
        return None
    data, weight = view.args
    batch, channels, height, width = data.shape
    filters, _, kh, kw = weight.shape
    _, _, oh, ow = view.results[0].shape
    sh, sw = attrs["strides"]
    dh, dw = attrs["dilation"]
    top, left = attrs["padding"][0], attrs["padding"][1]
    q = channels * kh * kw
    spatial = oh * ow
    padded = any(attrs["padding"])

    def patch(t: Sequence[Tensor], p: PrimExpr, qq: PrimExpr) -> PrimExpr:
        b, rest = p // spatial, p % spatial
        y = (rest // ow) * sh + ((qq // kw) % kh) * dh - top
        x = (rest % ow) * sw + (qq % kw) * dw - left
        value = t[0][b, qq // (kh * kw), y, x]
        if not padded:
            return value
        inside = te.all(y >= 0, y < height, x >= 0, x < width)
        return te.if_then_else(inside, value, te.const(0, value.dtype))  # read under the guard

    pointwise = (kh, kw, sh, sw, batch, padded) == (1, 1, 1, 1, 1, False)
    data_shape = (channels, height * width) if pointwise else data.shape

    def column(t: Sequence[Tensor], p: PrimExpr, qq: PrimExpr) -> PrimExpr:
        return t[0][qq, p]  # a 1x1 conv's patches are its input, [ic, (h, w)]: B in "kj"

    def out(g: Tensor, axes: Sequence[PrimExpr]) -> PrimExpr:
        b, oc, y, x = axes
        return g[oc, b * spatial + y * ow + x]

    return Gemm(
        "conv2d",
        filters,
        batch * spatial,
        q,
        (data_shape, (filters, q)),
        (data.dtype, weight.dtype),
        1,
        0,
        lambda t, i, qq: t[1][i, qq],
        column if pointwise else patch,
        "ik",  # the weight, OIHW, is W[oc, q]
        "kj" if pointwise else None,
        view.results[0].shape,
        view.results[0].dtype,
        out,
        batch == 1,
    )


GEMM_OF: dict[str, Callable[[OpView], Gemm | None]] = {
    "nn.dense": dense_gemm,
    "nn.matmul": matmul_gemm,
    "nn.batch_matmul": batch_matmul_gemm,
    "nn.conv2d": conv2d_gemm,
}


def gemm_of(op: Operation, intrinsic: GemmIntrinsic) -> tuple[Gemm, list[SSAValue]] | None:
    """The GEMM `op` computes and the values its kernel reads. A widening `relay.cast` from
    the intrinsic's input dtype is looked through, so that `dense(cast(x_i8, "int32"),
    cast(w_i8, "int32"))` (relay's dense has no out_dtype) runs on an int8 x int8 -> int32
    intrinsic."""
    view = OpView(op)
    rule = GEMM_OF.get(view.op_name)
    gemm = None if rule is None or not c_compatible(view) else rule(view)
    if gemm is None:
        return None
    operands = list(op.operands)
    dtypes = list(gemm.dtypes)
    for position, wanted in (
        (gemm.a_operand, intrinsic.a_dtype),
        (gemm.b_operand, intrinsic.b_dtype),
    ):
        cast = operands[position].owner
        if dtypes[position] == wanted or not isinstance(cast, relay.CastOp):
            continue
        source = cast.operands[0]
        if (
            isinstance(source.type, TensorType)
            and numpy_dtype(source.type.get_element_type()).name == wanted
        ):
            operands[position], dtypes[position] = source, wanted
    return replace(gemm, dtypes=tuple(dtypes)), operands


def round_up(value: int, block: int) -> int:
    return -(-value // block) * block


def padding_ratio(gemm: Gemm, intrinsic: GemmIntrinsic) -> float:
    bi, bj, bk = intrinsic.block
    padded = round_up(gemm.m, bi) * round_up(gemm.n, bj) * round_up(gemm.k, bk)
    return padded / max(gemm.m * gemm.n * gemm.k, 1)


def fits(gemm: Gemm, intrinsic: GemmIntrinsic, max_padding: float) -> bool:
    """Whether the intrinsic can run `gemm`: its dtypes, padding within `max_padding`, a
    tiling that fits the scratchpads."""
    return (
        gemm.dtypes[gemm.a_operand] == intrinsic.a_dtype
        and gemm.dtypes[gemm.b_operand] == intrinsic.b_dtype
        and gemm.out_dtype == intrinsic.out_dtype
        and min(gemm.m, gemm.n, gemm.k) > 0
        and padding_ratio(gemm, intrinsic) <= max_padding
        and choose_tiling(gemm, intrinsic) is not None
    )


# ---------------------------------------------------------------------------------------------
# Tiles and the schedule


@dataclass(frozen=True)
class Tiling:
    """Tiles of TM x TN outputs over chunks of TK, and the GEMM's sizes padded to them."""

    tm: int
    tn: int
    tk: int
    m: int
    n: int
    k: int

    def intrinsic_calls(self, block: tuple[int, int, int]) -> int:
        return (self.m // block[0]) * (self.n // block[1]) * (self.k // block[2])

    def dma_bytes(self, a_bytes: int, b_bytes: int, out_bytes: int) -> int:
        """What the schedule moves: A once per column of output tiles, B once per row, G once."""
        return (
            self.m * self.k * a_bytes * (self.n // self.tn)
            + self.n * self.k * b_bytes * (self.m // self.tm)
            + self.m * self.n * out_bytes
        )


PAD_SLACK = 1 / 8
"""How much a dimension may be padded beyond whole intrinsic blocks to take a better tile."""


def aligned(size: int, align: int) -> int:
    return round_up(size, max(align, 1))


def tile_sizes(size: int, block: int) -> list[int]:
    """Tiles of whole blocks whose multiple pads `size` by at most PAD_SLACK more than blocks."""
    least = round_up(size, block)
    return [
        t for t in range(block, least + 1, block) if round_up(size, t) <= least * (1 + PAD_SLACK)
    ]


def choose_tiling(gemm: Gemm, intrinsic: GemmIntrinsic) -> Tiling | None:
    """The tiles that fit the scratchpads together (the output tile in the intrinsic's output
    scope, the A and B chunks in their input scopes) with the fewest DMA bytes times intrinsic
    calls (padding to a tile costs calls); the longest chunk of the reduction for those."""
    bi, bj, bk = intrinsic.block
    memories = intrinsic.target.memories
    a_bytes, b_bytes, out_bytes = (
        itemsize(d) for d in (intrinsic.a_dtype, intrinsic.b_dtype, intrinsic.out_dtype)
    )

    def fits(tm: int, tn: int, tk: int) -> bool:
        used: dict[str, int] = {}
        for scope, size in (
            (intrinsic.a_scope, tm * tk * a_bytes),
            (intrinsic.b_scope, tn * tk * b_bytes),
            (intrinsic.out_scope, tm * tn * out_bytes),
        ):
            used[scope] = used.get(scope, 0) + aligned(size, memories[scope].align)
        return all(used[s] <= memories[s].size for s in used)

    chunks = sorted(tile_sizes(gemm.k, bk), key=lambda t: (round_up(gemm.k, t), -t))
    best: tuple[int, Tiling] | None = None
    for tm in tile_sizes(gemm.m, bi):
        for tn in tile_sizes(gemm.n, bj):
            tk = next((t for t in chunks if fits(tm, tn, t)), None)
            if tk is None:
                continue
            m, n, k = round_up(gemm.m, tm), round_up(gemm.n, tn), round_up(gemm.k, tk)
            tiling = Tiling(tm, tn, tk, m, n, k)
            cost = tiling.dma_bytes(a_bytes, b_bytes, out_bytes) * tiling.intrinsic_calls(
                intrinsic.block
            )
            if best is None or cost < best[0]:
                best = (cost, tiling)
    return None if best is None else best[1]


def itemsize(dtype: str) -> int:
    return np.dtype(dtype).itemsize


def schedule_gemm(gemm: Gemm, intrinsic: GemmIntrinsic) -> tuple[te.Schedule, list[Tensor], Tiling]:
    """The te kernel of `gemm` on `intrinsic` and its schedule (see the module docs)."""
    bi, bj, bk = intrinsic.block
    tiling = choose_tiling(gemm, intrinsic)
    if tiling is None:
        raise ValueError(f"no tile of {bi}x{bj}x{bk} blocks fits the scratchpads")
    m_pad, n_pad, k_pad = tiling.m, tiling.n, tiling.k
    inputs = [
        te.placeholder(shape, dtype, name=f"in{position}")
        for position, (shape, dtype) in enumerate(zip(gemm.shapes, gemm.dtypes, strict=True))
    ]

    def operand(
        role: str, reader: Reader, view: str | None, position: int, rows: int, rows_p: int
    ) -> Tensor:
        layout = intrinsic.a_layout if role == "A" else intrinsic.b_layout
        padded = rows != rows_p or gemm.k != k_pad
        if view == layout and not padded:
            return inputs[position]
        rows_first = layout[0] != "k"
        shape = (rows_p, k_pad) if rows_first else (k_pad, rows_p)
        zero = te.const(0, gemm.dtypes[position])

        def element(x: PrimExpr, y: PrimExpr) -> PrimExpr:
            row, kk = (x, y) if rows_first else (y, x)
            value = reader(inputs, row, kk)
            if not padded:
                return value
            return te.if_then_else(te.all(row < rows, kk < gemm.k), value, zero)

        return te.compute(shape, element, name=f"{role}_{layout}")

    a = operand("A", gemm.a, gemm.a_view, gemm.a_operand, gemm.m, m_pad)
    b = operand("B", gemm.b, gemm.b_view, gemm.b_operand, gemm.n, n_pad)
    k = te.reduce_axis((0, k_pad), name="k")
    out_dtype = intrinsic.out_dtype

    def cast(value: PrimExpr, dtype: str) -> PrimExpr:
        return value if dtype == out_dtype else value.astype(out_dtype)

    def product(i: PrimExpr, j: PrimExpr) -> PrimExpr:
        x = cast(a[i, k] if intrinsic.a_layout == "ik" else a[k, i], intrinsic.a_dtype)
        y = cast(b[j, k] if intrinsic.b_layout == "jk" else b[k, j], intrinsic.b_dtype)
        return te.sum(x * y if intrinsic.a_first else y * x, axis=k)

    g = te.compute((m_pad, n_pad), product, name="G")
    if gemm.out_is_g and (m_pad, n_pad) == (gemm.m, gemm.n):
        out = g  # written in place: its placeholder is the output's memory
    else:
        out = te.compute(gemm.out_shape, lambda *axes: gemm.out(g, axes), name="out")
    s = te.create_schedule(out.op)
    gl = s.cache_write(g, intrinsic.out_scope)
    aa = s.cache_read(a, intrinsic.a_scope, [gl])
    bb = s.cache_read(b, intrinsic.b_scope, [gl])
    i, j = s[g].op.axis
    _, jo, _, _ = s[g].tile(i, j, tiling.tm, tiling.tn)
    s[gl].compute_at(s[g], jo)
    ic, jc = s[gl].op.axis
    (kc,) = s[gl].op.reduce_axis
    ko, ki = s[gl].split(kc, factor=tiling.tk)
    ico, ici = s[gl].split(ic, factor=bi)
    jco, jci = s[gl].split(jc, factor=bj)
    kio, kii = s[gl].split(ki, factor=bk)
    s[gl].reorder(ko, ico, jco, kio, ici, jci, kii)
    s[aa].compute_at(s[gl], ko)
    s[bb].compute_at(s[gl], ko)
    s[gl].tensorize(ici, intrinsic.name)
    return s, [*inputs, out], tiling


def gemm_kernel(gemm: Gemm, intrinsic: GemmIntrinsic, name: str) -> tuple[func.FuncOp, Tiling]:
    """The tir kernel `name(in0, in1, out)` of `gemm` (the arguments' memory as relay's)."""
    s, args, tiling = schedule_gemm(gemm, intrinsic)
    module = lower_schedule(s, args, name=name)
    (kernel,) = [f for f in module.ops if isinstance(f, func.FuncOp)]
    kernel.detach()
    return kernel, tiling


# ---------------------------------------------------------------------------------------------
# Which ops it takes


_OFFLOAD: dict[str, str] = {}
"""{"target": name} of the target last registered for offload: the codegen's default."""


def register_accel_offload(target: AccelTarget | str, max_padding: float = MAX_PADDING) -> None:
    """Let `relay-annotate-target{targets=accel}` claim for `target` the GEMMs its intrinsic
    runs (dtypes, padding to whole blocks at most `max_padding` times the work) and the
    element-wise ops that may join their region; `target` becomes the codegen's default."""
    target = get_target(target) if isinstance(target, str) else target
    intrinsic = gemm_intrinsic(target)
    if intrinsic is None:
        raise ValueError(f"accel target @{target.name} has no GEMM intrinsic to offload onto")
    unregister_target(NAME)
    _OFFLOAD["target"] = target.name

    def claims(view: OpView) -> bool:
        found = gemm_of(view.op, intrinsic)
        return found is not None and fits(found[0], intrinsic, max_padding)

    for op_name in GEMM_OPS:
        register_op_attr(op_name, f"target.{NAME}", claims)
    for op_name in REGION_OPS:
        if op_name in CCOMPILER_OPS:
            register_op_attr(op_name, f"target.{NAME}", c_compatible)


def unregister_accel_offload() -> None:
    """Forget the `target.accel` predicates and the default target."""
    unregister_target(NAME)
    _OFFLOAD.clear()


_RUNTIMES: dict[str, tuple[tuple[Path, ...], tuple[Path, ...]]] = {}


def register_accel_runtime(
    target: str, sources: Sequence[str | Path], include_dirs: Sequence[str | Path] = ()
) -> None:
    """The C sources (simulator or driver) implementing `target`'s functions, compiled with
    every accel function for it; `include_dirs` beside the target header's folder."""
    _RUNTIMES[target] = (
        tuple(Path(s).resolve() for s in sources),
        tuple(Path(d).resolve() for d in include_dirs),
    )


def runtime_of(target: AccelTarget) -> tuple[tuple[Path, ...], tuple[str, ...]]:
    """The target's runtime sources and include dirs (see `register_accel_runtime`)."""
    sources, dirs = _RUNTIMES.get(target.name, ((), ()))
    header_dirs = () if target.header is None else (target.header.parent,)
    if not sources and target.header is not None:
        beside = target.header.with_suffix(".c")
        sources = (beside,) if beside.exists() else ()
    return sources, tuple(str(d) for d in (*header_dirs, *dirs))


# ---------------------------------------------------------------------------------------------
# Lowering


class StaticAccelRenderer(AccelRenderer):
    """The accel renderer with `static` kernels: only the wrapper leaves the unit."""

    kernel_prefix = "static "


def target_of(function: func.FuncOp) -> AccelTarget:
    """The target named by `function`'s `accel_target`, else the one registered for offload."""
    attr = function.attributes.get(TARGET_ATTR)
    name = attr.data if isinstance(attr, StringAttr) else _OFFLOAD.get("target")
    if not isinstance(name, str):
        raise located_error(
            function,
            "accel: the function names no accel target (attribute 'accel_target') and no "
            "target is registered for offload (register_accel_offload)",
        )
    try:
        return get_target(name)
    except KeyError as exc:
        raise located_error(function, f"accel: {exc.args[0]}") from None


@dataclass
class AccelKernel:
    """A GEMM offloaded: its kernel name, op, tiling and intrinsic calls."""

    name: str
    op_name: str
    gemm: Gemm
    tiling: Tiling
    intrinsic_calls: int


def offload_gemms(
    body: func.FuncOp, module: ModuleOp, intrinsic: GemmIntrinsic
) -> tuple[list[func.FuncOp], list[AccelKernel]]:
    """Replace each GEMM op the intrinsic runs by a call of an accel kernel (declared in
    `module`); the kernels as tir."""
    kernels: list[func.FuncOp] = []
    offloaded: list[AccelKernel] = []
    for op in list(body.walk()):
        found = gemm_of(op, intrinsic)
        if found is None or not fits(found[0], intrinsic, math.inf):
            continue
        gemm, operands = found
        name = f"accel_{gemm.op_name}_{len(kernels)}"
        kernel, tiling = gemm_kernel(gemm, intrinsic, name)
        kernels.append(kernel)
        calls = tiling.intrinsic_calls(intrinsic.block)
        offloaded.append(AccelKernel(name, op.name.removeprefix("relay."), gemm, tiling, calls))
        declaration = func.FuncOp.external(name, [v.type for v in operands], list(op.result_types))
        declaration.sym_visibility = StringAttr("private")
        declaration.attributes["compiler"] = StringAttr(NAME)
        module.body.block.add_op(declaration)
        widened = list(dict.fromkeys(o.owner for o in op.operands if o not in operands))
        Rewriter.replace_op(op, func.CallOp(name, operands, list(op.result_types)))
        for cast in widened:  # casts looked through, now unused
            if isinstance(cast, Operation) and not any(r.uses for r in cast.results):
                Rewriter.erase_op(cast)
    return kernels, offloaded


def lower(
    function: func.FuncOp, intrinsic: GemmIntrinsic
) -> tuple[func.FuncOp, ModuleOp, list[AccelKernel]]:
    """The function as a graph of kernel calls; its kernels as tir (accel and C ones)."""
    body = function.clone()
    for key in ("compiler", "global_symbol", "primitive", "inline", TARGET_ATTR):
        body.attributes.pop(key, None)
    body.sym_visibility = None
    module = ModuleOp([body])
    ctx = default_context().xdsl_context
    for p in (RelaySimplifyInferencePass(), RelayFoldConstantPass()):
        p.apply(ctx, module)
    accel_kernels, offloaded = offload_gemms(body, module, intrinsic)
    for p in (RelayFuseOpsPass(), ConvertRelayToTePass("llvm")):
        p.apply(ctx, module)
    tir = te_kernels_as_tir(module, ctx)
    for kernel in accel_kernels:
        tir.body.block.add_op(kernel)
    return body, tir, offloaded


def describe(symbol: str, target: AccelTarget, offloaded: Sequence[AccelKernel]) -> list[str]:
    lines = [f"/* {symbol} on accel target @{target.name}:"]
    for k in offloaded:
        g, t = k.gemm, k.tiling
        lines.append(
            f" * {k.name}: {k.op_name} as GEMM {g.m}x{g.n}x{g.k} (padded {t.m}x{t.n}x{t.k}), "
            f"tiles {t.tm}x{t.tn}x{t.tk}, {k.intrinsic_calls} intrinsic calls"
        )
    return [*lines, " */"]


@register_codegen(NAME)
def accel_codegen(function: func.FuncOp, target: str) -> ExternalFunction:
    """C for `function` on its accel target (the host `target` does not matter)."""
    accel_target = target_of(function)
    intrinsic = gemm_intrinsic(accel_target)
    if intrinsic is None:
        raise located_error(function, f"accel: target @{accel_target.name} has no GEMM intrinsic")
    symbol_attr = function.attributes.get("global_symbol")
    symbol = symbol_attr.data if isinstance(symbol_attr, StringAttr) else function.sym_name.data
    check_symbol(symbol, "accel: the external function's symbol", function)
    graph, kernels, offloaded = lower(function, intrinsic)
    code, params = wrapper(symbol, graph, kernels)
    kernel_source = StaticAccelRenderer(accel_target).render(kernels)
    source = "\n".join(
        [
            f"/* Generated by xtvm's accel codegen for @{symbol}. */",
            *describe(symbol, accel_target, offloaded),
            "#include <string.h>",
            kernel_source,
            *code,
            "",
        ]
    )
    sources, include_dirs = runtime_of(accel_target)
    return ExternalFunction(
        symbol, params, source, include_dirs=include_dirs, extra_sources=sources
    )


def offloaded_kernels(function: func.FuncOp) -> list[AccelKernel]:
    """The GEMMs `function` (partitioned for accel) offloads, without building anything."""
    intrinsic = gemm_intrinsic(target_of(function))
    assert intrinsic is not None
    return lower(function, intrinsic)[2]
