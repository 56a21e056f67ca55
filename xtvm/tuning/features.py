"""Features of a lowered tir kernel: a fixed-length vector a cost model learns from.

TVM's itervar features, read off the tir instead of a schedule: for each loop nest, what
its loops are (extents, parallel, vectorized, unrolled), how much arithmetic it does per
byte it moves, and for each buffer how its accesses walk memory (the stride of the address
along the innermost loop and along the vectorized one, how many accesses the innermost
loops reuse). Any tir kernel has them, whatever made its schedule (an AutoTVM template or
a template-free search), so `tir_features` takes only the module.

A vector is `GLOBAL` figures, then `PER_BUFFER` figures for each of `MAX_BUFFERS` buffers
(the kernel's arguments in order, then the local buffers together); counts are log2(1 + x).

`store_features` describes the kernel as Ansor does, one row per buffer store: the loops
around the store (their count, trip count, innermost extent, vector lanes, unrolled and
parallel extents), the arithmetic that computes the stored value (float ops per iteration and
in all, loads, guards, flop per byte moved and per byte touched), and for the stored buffer and
the `STORE_BUFFERS - 1` most accessed buffers it loads: bytes moved and touched, cache lines,
the strides along the innermost and vectorized loops, and how often and how soon an element is
reused. A cost model predicts a score per row and sums a kernel's rows: a kernel of several
stages (a padding, an accumulator's initialisation, the reduction, a cache write-back) is
described stage by stage instead of by its hottest loop nest.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import AnyFloat, IntegerAttr, MemRefType, ModuleOp
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
DIVISIONS = (arith.DivUIOp, arith.DivSIOp, arith.FloorDivSIOp, arith.RemUIOp, arith.RemSIOp)
REMAINDERS = (arith.RemUIOp, arith.RemSIOp)
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
    """`value` as a linear form of loop variables {var: coefficient} (constant terms dropped;
    a division or remainder by a constant by its usual step); None when it is not one (a
    load)."""
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
    elif isinstance(owner, DIVISIONS) and constant(owner.rhs):
        # a fused loop split back: along a loop, the step of most iterations (x / c steps by
        # a // c when x steps by a, x % c by a while a < c)
        a, c = coefficients(owner.lhs, memo), abs(constant(owner.rhs) or 1)
        if a is None:
            result = None
        elif isinstance(owner, REMAINDERS):
            result = {v: k if abs(k) < c else 0 for v, k in a.items()}
        else:
            result = {v: k // c for v, k in a.items()}
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


STORE_BUFFERS = 3  # the stored buffer, then the most accessed buffers its value loads
STORE = (
    "loops",
    "trip_count",
    "innermost_extent",
    "innermost_vectorized",
    "innermost_unrolled",
    "vector_lanes",
    "unrolled",
    "parallel_extent",
    "parallel_loops",
    "trip_per_thread",
    "float_ops_per_iteration",
    "float_ops",
    "adds_and_muls",
    "loads_per_iteration",
    "guards",
    "accumulates",
    "stores_to_local",
    "intensity_moved",
    "intensity_touched",
    "stores_in_kernel",
)
STORE_BUFFER = (
    "present",
    "written",
    "bytes_moved",
    "bytes_touched",
    "cache_lines",
    "innermost_stride",
    "vector_stride",
    "unit_stride",
    "reuse_count",
    "reuse_distance",
    "reuse_bytes",
)
STORE_LENGTH = len(STORE) + len(STORE_BUFFER) * STORE_BUFFERS
CACHE_LINE = 64  # bytes
ADDS_AND_MULS = (arith.AddfOp, arith.SubfOp, arith.MulfOp)


@dataclass
class Store:
    """A buffer store, the loops around it and what computes its value."""

    op: memref.StoreOp
    loops: list[Loop]
    loads: list[memref.LoadOp] = field(default_factory=list)
    float_ops: int = 0
    adds_and_muls: int = 0
    guards: int = 0


def element_bytes(buffer: SSAValue) -> int:
    typ = buffer.type
    return max(typ.element_type.bitwidth // 8, 1) if isinstance(typ, MemRefType) else 4  # type: ignore[attr-defined]


def collect_stores(ops: Sequence[Operation], loops: list[Loop], stores: list[Store]) -> None:
    """Every memref.store under `ops` with the loops around it (outermost first)."""
    for op in ops:
        if isinstance(op, tir.ForOp):
            lower, upper = constant(op.lower_bound), constant(op.upper_bound)
            extent = (upper - lower) if lower is not None and upper is not None else 16
            loop = Loop(op.induction_variable, max(extent, 1), op.kind.data)
            collect_stores(list(op.body.block.ops), [*loops, loop], stores)
            continue
        if isinstance(op, memref.StoreOp):
            stores.append(trace_value(Store(op, loops)))
        for region in op.regions:
            for block in region.blocks:
                collect_stores(list(block.ops), loops, stores)


def trace_value(store: Store) -> Store:
    """Count the float ops, loads and guards that compute the stored value (its operands
    followed back, a guard's branches walked whole; index arithmetic is not followed)."""
    seen: set[Operation] = set()
    owner = store.op.value.owner
    pending: list[Operation] = [owner] if isinstance(owner, Operation) else []
    while pending:
        op = pending.pop()
        if op in seen:
            continue
        seen.add(op)
        if isinstance(op, memref.LoadOp):
            store.loads.append(op)
            continue
        if isinstance(op, FLOAT_OPS):
            store.float_ops += 1
            store.adds_and_muls += isinstance(op, ADDS_AND_MULS)
        if op.regions:  # a guard (scf.if): what its branches compute
            store.guards += 1
            pending.extend(inner for region in op.regions for inner in region.walk())
        if any(isinstance(r.type, AnyFloat) for r in op.results):  # not index arithmetic
            pending.extend(v.owner for v in op.operands if isinstance(v.owner, Operation))
    return store


def access_figures(
    buffer: SSAValue, accesses: Sequence[Sequence[int | None]], loops: Sequence[Loop], written: bool
) -> tuple[list[float], float]:
    """STORE_BUFFER figures of a buffer accessed with `accesses` (address strides along each of
    `loops`) once per iteration of the loops each, and the bytes it touches."""
    width = element_bytes(buffer)
    trip = math.prod(loop.extent for loop in loops)
    strides = accesses[0]  # the accesses of a buffer in one statement walk it alike
    moving = [s != 0 for s in strides]
    touched = math.prod(loop.extent for loop, move in zip(loops, moving, strict=True) if move)
    innermost = strides[-1] if strides else 0
    vector = next(
        (s for loop, s in zip(loops, strides, strict=True) if loop.kind == "vectorized"), 0
    )
    step = next((s for s in reversed(strides) if s != 0), None)
    per_line = CACHE_LINE // width if step is None else max(1, CACHE_LINE // (abs(step) * width))
    reuse = trip // max(touched, 1)
    # the innermost loop that does not move the address reuses; its inner loops run between
    reuse_at = next((k for k in reversed(range(len(loops))) if strides[k] == 0), None)
    distance = (
        math.prod(loop.extent for loop in loops[reuse_at + 1 :]) if reuse_at is not None else 0
    )
    figures = [
        1.0,
        float(written),
        log2p(trip * width * len(accesses)),
        log2p(touched * width),
        log2p(touched / per_line),
        log2p(abs(innermost)) if innermost is not None else -1.0,
        log2p(abs(vector)) if vector is not None else -1.0,
        float(innermost == 1),
        log2p(reuse),
        log2p(distance),
        log2p(distance * width * len(accesses)),
    ]
    return figures, float(touched * width)


def store_row(store: Store, arguments: Sequence[SSAValue], count: int, memo: dict) -> list[float]:
    """The STORE_LENGTH figures of one store."""
    loops = store.loops
    trip = math.prod(loop.extent for loop in loops)
    inner = loops[-1] if loops else None
    parallel = [loop.extent for loop in loops if loop.kind == "parallel"]
    target = store.op.memref

    def strides(op: memref.LoadOp | memref.StoreOp) -> list[int | None]:
        typ = op.memref.type
        shape = list(typ.get_shape()) if isinstance(typ, MemRefType) else []
        return address_strides(list(op.indices), shape, loops, memo)

    by_buffer: dict[SSAValue, list[list[int | None]]] = {}
    for load in store.loads:
        by_buffer.setdefault(load.memref, []).append(strides(load))
    accumulates = target in by_buffer
    stored = [strides(store.op), *by_buffer.pop(target, [])]
    width = element_bytes(target)
    moved = trip * width * (1 + len(store.loads))
    figures, touched = access_figures(target, stored, loops, True)
    buffers = [figures]
    for buffer, found in sorted(by_buffer.items(), key=lambda item: -len(item[1])):
        figures, footprint = access_figures(buffer, found, loops, False)
        buffers.append(figures)
        touched += footprint
    flops = store.float_ops * trip
    values = [
        float(len(loops)),
        log2p(trip),
        log2p(inner.extent if inner else 1),
        float(inner is not None and inner.kind == "vectorized"),
        float(inner is not None and inner.kind == "unrolled"),
        log2p(math.prod(loop.extent for loop in loops if loop.kind == "vectorized")),
        log2p(math.prod(loop.extent for loop in loops if loop.kind == "unrolled")),
        log2p(math.prod(parallel)),
        float(len(parallel)),
        log2p(trip / math.prod(parallel)),
        float(store.float_ops),
        log2p(flops),
        float(store.adds_and_muls),
        float(len(store.loads)),
        float(store.guards),
        float(accumulates),
        float(target not in arguments),
        flops / moved,
        flops / touched if touched else 0.0,
        log2p(count),
    ]
    for figures in buffers[:STORE_BUFFERS]:
        values.extend(figures)
    values.extend([0.0] * (STORE_LENGTH - len(values)))
    return values


def store_features(module: ModuleOp) -> np.ndarray:
    """One row of `STORE_LENGTH` float32s per buffer store of the first function of a tir
    module (a kernel without stores has one row of zeros)."""
    kernel = next(op for op in module.walk() if isinstance(op, func.FuncOp) and op.body.blocks)
    stores: list[Store] = []
    collect_stores(list(kernel.body.block.ops), [], stores)
    arguments = list(kernel.body.block.args)
    memo: dict = {}
    rows = [store_row(store, arguments, len(stores), memo) for store in stores]
    return np.asarray(rows or [[0.0] * STORE_LENGTH], dtype=np.float32)


__all__ = [
    "GLOBAL",
    "LENGTH",
    "MAX_BUFFERS",
    "PER_BUFFER",
    "STORE",
    "STORE_BUFFER",
    "STORE_LENGTH",
    "store_features",
    "tir_features",
]
