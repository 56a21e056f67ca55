"""Features of a lowered tir kernel: a fixed-length vector a cost model learns from.

TVM's itervar features, read off the tir instead of a schedule: for each loop nest, what
its loops are (extents, parallel, vectorized, unrolled), how much arithmetic it does per
byte it moves, and for each buffer how its accesses walk memory (the stride of the address
along the innermost loop and along the vectorized one, how many accesses the innermost
loops reuse). Any tir kernel has them, whatever made its schedule (an AutoTVM template or
a template-free search), so `tir_features` takes only the module.

A vector is `GLOBAL` figures, then `PER_BUFFER` figures for each of `MAX_BUFFERS` buffers
(the kernel's arguments in order, then the local buffers together); counts are log2(1 + x).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue

from xtvm.dialects import tir

MAX_BUFFERS = 4  # argument buffers described one by one; later ones fold into the last slot
GLOBAL = (
    "loops",
    "trip_count",
    "innermost_extent",
    "parallel_extent",
    "vector_lanes",
    "unrolled",
    "float_ops",
    "bytes_moved",
    "arithmetic_intensity",
    "local_bytes",
)
PER_BUFFER = (
    "accesses",
    "innermost_stride",
    "vector_stride",
    "inner_reuse",
    "inner_footprint",
    "stores",
)
LENGTH = len(GLOBAL) + len(PER_BUFFER) * (MAX_BUFFERS + 1)
FLOAT_OPS = (arith.AddfOp, arith.SubfOp, arith.MulfOp, arith.DivfOp, arith.MaximumfOp)
INNER_LOOPS = 3  # the loops whose reuse and footprint count (a register tile's depth)


def log2p(x: float) -> float:
    return math.log2(1.0 + max(x, 0.0))


@dataclass
class Loop:
    var: SSAValue
    extent: int
    kind: str


@dataclass
class Access:
    buffer: SSAValue
    loops: list[Loop]
    strides: list[int | None]  # address step along each loop, outermost first
    store: bool


@dataclass
class Walk:
    """What walking a kernel collects."""

    accesses: list[Access] = field(default_factory=list)
    float_ops: float = 0.0
    max_loops: int = 0
    max_trip: float = 1.0
    innermost: int = 1
    parallel: int = 1
    lanes: int = 1
    unrolled: int = 1


def constant(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return int(owner.value.value.data)
    return None


def coefficients(value: SSAValue, memo: dict[SSAValue, dict[SSAValue, int] | None]) -> dict | None:
    """`value` as a linear form of loop variables {var: coefficient} (constant terms dropped);
    None when it is not one (a division, a load)."""
    if value in memo:
        return memo[value]
    result: dict[SSAValue, int] | None
    owner = value.owner
    if isinstance(value, BlockArgument):
        result = {value: 1}
    elif constant(value) is not None:
        result = {}
    elif isinstance(owner, arith.AddiOp | arith.SubiOp):
        a, b = coefficients(owner.lhs, memo), coefficients(owner.rhs, memo)
        sign = -1 if isinstance(owner, arith.SubiOp) else 1
        result = None if a is None or b is None else dict(a)
        if result is not None and b is not None:
            for var, c in b.items():
                result[var] = result.get(var, 0) + sign * c
    elif isinstance(owner, arith.MuliOp):
        a, b = coefficients(owner.lhs, memo), coefficients(owner.rhs, memo)
        scale_b, scale_a = constant(owner.rhs), constant(owner.lhs)
        if a is not None and scale_b is not None:
            result = {v: c * scale_b for v, c in a.items()}
        elif b is not None and scale_a is not None:
            result = {v: c * scale_a for v, c in b.items()}
        else:
            result = None
    else:
        result = None
    memo[value] = result
    return result


def address_strides(
    indices: Sequence[SSAValue], shape: Sequence[int], loops: Sequence[Loop], memo: dict
) -> list[int | None]:
    """The step of the row-major address of `indices` along each loop."""
    steps: list[int | None] = [0] * len(loops)
    row = 1
    for index, size in zip(reversed(indices), reversed(shape), strict=True):
        form = coefficients(index, memo)
        for k, loop in enumerate(loops):
            if steps[k] is None:
                continue
            if form is None:
                steps[k] = None
            else:
                steps[k] = steps[k] + form.get(loop.var, 0) * row  # type: ignore[operator]
        row *= max(size, 1)
    return steps


def walk_block(ops: Sequence[Operation], loops: list[Loop], found: Walk, memo: dict) -> None:
    trip = math.prod(loop.extent for loop in loops)
    for op in ops:
        if isinstance(op, tir.ForOp):
            lower, upper = constant(op.lower_bound), constant(op.upper_bound)
            extent = (upper - lower) if lower is not None and upper is not None else 16
            loop = Loop(op.induction_variable, max(extent, 1), op.kind.data)
            if loop.kind == "parallel":
                found.parallel = max(found.parallel, loop.extent)
            elif loop.kind == "vectorized":
                found.lanes = max(found.lanes, loop.extent)
            elif loop.kind == "unrolled":
                found.unrolled = max(found.unrolled, loop.extent)
            walk_block(list(op.body.block.ops), [*loops, loop], found, memo)
            continue
        if isinstance(op, memref.LoadOp | memref.StoreOp):
            typ = op.memref.type
            shape = list(typ.get_shape()) if isinstance(typ, MemRefType) else []
            strides = address_strides(list(op.indices), shape, loops, memo)
            found.accesses.append(Access(op.memref, loops, strides, isinstance(op, memref.StoreOp)))
            found.max_loops = max(found.max_loops, len(loops))
            if trip >= found.max_trip:
                found.max_trip = trip
                found.innermost = loops[-1].extent if loops else 1
        elif isinstance(op, FLOAT_OPS):
            found.float_ops += trip
        for region in op.regions:
            for block in region.blocks:
                walk_block(list(block.ops), loops, found, memo)


def buffer_features(accesses: Sequence[Access]) -> list[float]:
    """PER_BUFFER figures of one buffer: those of its most executed access."""
    if not accesses:
        return [0.0] * len(PER_BUFFER)
    total = sum(math.prod(loop.extent for loop in a.loops) for a in accesses)
    hot = max(accesses, key=lambda a: math.prod(loop.extent for loop in a.loops))
    inner = list(zip(hot.loops, hot.strides, strict=True))[-INNER_LOOPS:]
    innermost = inner[-1][1] if inner else 0
    vector = next((s for loop, s in inner if loop.kind == "vectorized"), 0)
    reuse = math.prod(loop.extent for loop, s in inner if s == 0)
    footprint = math.prod(loop.extent for loop, s in inner if s != 0)
    return [
        log2p(total),
        log2p(abs(innermost)) if innermost is not None else -1.0,
        log2p(abs(vector)) if vector is not None else -1.0,
        log2p(reuse),
        log2p(footprint),
        float(sum(a.store for a in accesses)),
    ]


def tir_features(module: ModuleOp) -> np.ndarray:
    """The feature vector (`LENGTH` float32s) of the first function of a tir module."""
    kernel = next(op for op in module.walk() if isinstance(op, func.FuncOp) and op.body.blocks)
    found = Walk()
    walk_block(list(kernel.body.block.ops), [], found, {})
    arguments = list(kernel.body.block.args)
    slots: list[list[Access]] = [[] for _ in range(MAX_BUFFERS + 1)]
    element_bytes = 0.0
    local_bytes = 0.0
    for access in found.accesses:
        buffer = access.buffer
        typ = buffer.type
        width = (typ.element_type.bitwidth // 8) if isinstance(typ, MemRefType) else 4  # type: ignore[attr-defined]
        trips = math.prod(loop.extent for loop in access.loops)
        if buffer in arguments:
            slots[min(arguments.index(buffer), MAX_BUFFERS - 1)].append(access)
            element_bytes += trips * width
        else:
            slots[MAX_BUFFERS].append(access)
            local_bytes += trips * width
    values = [
        float(found.max_loops),
        log2p(found.max_trip),
        log2p(found.innermost),
        log2p(found.parallel),
        log2p(found.lanes),
        log2p(found.unrolled),
        log2p(found.float_ops),
        log2p(element_bytes),
        found.float_ops / element_bytes if element_bytes else 0.0,
        log2p(local_bytes),
    ]
    for slot in slots:
        values.extend(buffer_features(slot))
    return np.asarray(values, dtype=np.float32)


__all__ = ["GLOBAL", "LENGTH", "MAX_BUFFERS", "PER_BUFFER", "tir_features"]
