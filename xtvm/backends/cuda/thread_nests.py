"""Thread-bound loops inside a block's loop nest become guards on one set of threads.

A shared-memory schedule binds threads more than once in a block: the cooperative loads of a
tile (`s[AA].bind(..., threadIdx.x)` at the reduction's outer loop) and the compute that reads
the tile, in sequence under a serial loop. The launch has one set of threads, so (TVM's
thread-axis merging) each such loop becomes the thread's own index, guarded when its extent is
below the launch's; the threads of the block are one loop nest around all of it, which
tir-split-host-device outlines. A tile is written by some threads and read by others, so a
`__syncthreads()` (`tir.call_extern "__syncthreads"`, which the tir interpreter runs in
lockstep) comes before and after every former loop that stores to a shared buffer, one only
between two such loops where the second reads no shared memory (a step's two operand tiles).
A loop bound to a thread axis of the nest around it is that thread's index too (guarded when
shorter), if it only stores to shared memory: a tile copied at a thread's loop that bound
inference made the whole block's, which the block's threads share out (TVM's form).

    tir.for %bx ... "blockIdx.x" { tir.for %ko ... serial {
        tir.for %t ... "threadIdx.x" {load → shared}   tir.for %tx ... "threadIdx.x" {use} } }
becomes
    tir.for %bx ... "blockIdx.x" { tir.for %tid = 0 to T "threadIdx.x" { tir.for %ko ... {
        sync  scf.if %t_ok {load → shared}  sync  scf.if %tx_ok {use} } } }
"""

from __future__ import annotations

from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, ModuleOp, StringAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free

from xtvm.dialects import tir
from xtvm.ir.verify import located_error
from xtvm.passes.tir_bounds import constant_value

BARRIER = "__syncthreads"
THREAD_ORDER = ("threadIdx.z", "threadIdx.y", "threadIdx.x")


def is_thread_loop(op: Operation) -> bool:
    return isinstance(op, tir.ForOp) and op.kind.data == "thread_binding"


def chain_end(root: tir.ForOp) -> tir.ForOp:
    """The last loop of the nest that tir-split-host-device follows from `root` as is."""
    loop = root
    while True:
        body = [op for op in loop.body.block.ops if not isinstance(op, tir.YieldOp)]
        inner = [op for op in body if is_thread_loop(op)]
        pure = all(op in inner or is_side_effect_free(op) for op in body)
        if len(inner) != 1 or not pure:
            return loop
        loop = inner[0]  # type: ignore[assignment]


def is_barrier(op: Operation | None) -> bool:
    return isinstance(op, tir.CallExternOp) and op.callee.data == BARRIER


def in_shared(buffer: SSAValue) -> bool:
    """Whether `buffer` is a memref in the "shared" memory space."""
    typ = buffer.type
    if not isinstance(typ, MemRefType):
        return False
    space = typ.memory_space
    return isinstance(space, StringAttr) and space.data == "shared"


def stores_shared(ops: list[Operation]) -> bool:
    return any(
        isinstance(inner, memref.StoreOp) and in_shared(inner.memref)
        for op in ops
        for inner in op.walk()
    )


def quiet(op: Operation | None) -> bool:
    """An op a barrier may move across: index arithmetic, a buffer's allocation."""
    return op is not None and (is_side_effect_free(op) or isinstance(op, memref.AllocOp))


def barrier_before(op: Operation) -> None:
    if not is_barrier(neighbour(op, forward=False)):
        Rewriter.insert_op(tir.CallExternOp(BARRIER, []), InsertPoint.before(op))


def barrier_after(op: Operation) -> None:
    if not is_barrier(neighbour(op, forward=True)):
        Rewriter.insert_op(tir.CallExternOp(BARRIER, []), InsertPoint.after(op))


def index(value: int) -> arith.ConstantOp:
    return arith.ConstantOp(IntegerAttr(value, IndexType()))


def replace_loop(loop: tir.ForOp, thread: SSAValue, launch_extent: int) -> list[Operation]:
    """`loop` as the running thread's iteration: its body, guarded when it has fewer
    iterations than the launch has threads; the ops standing in its place."""
    loop.induction_variable.replace_all_uses_with(thread)
    ops = [op for op in loop.body.block.ops if not isinstance(op, tir.YieldOp)]
    for op in ops:
        op.detach()
    extent = constant_value(loop.upper_bound)
    if extent == launch_extent:
        Rewriter.insert_op(ops, InsertPoint.before(loop))
        Rewriter.erase_op(loop)
        return ops
    bound = index(extent or 0)
    check = arith.CmpiOp(thread, bound, "ult")
    guard = scf.IfOp(check, [], Region(Block([*ops, scf.YieldOp()])))
    Rewriter.insert_op([bound, check, guard], InsertPoint.before(loop))
    Rewriter.erase_op(loop)
    return [guard]


def chain_loops(root: tir.ForOp, end: tir.ForOp) -> dict[str, tir.ForOp]:
    """The loops of the chain from `root` to `end`, by thread tag."""
    loops, loop = {}, root
    while True:
        assert loop.thread is not None
        loops[loop.thread.data] = loop
        if loop is end:
            return loops
        loop = next(op for op in loop.body.block.ops if is_thread_loop(op))  # type: ignore[assignment]


def stores_only_shared(loop: Operation) -> bool:
    """Whether `loop` stores to shared buffers and to nothing else: a block's threads
    filling a tile together, whatever thread runs which part of it."""
    stores = [op for op in loop.walk() if isinstance(op, memref.StoreOp)]
    return bool(stores) and all(in_shared(op.memref) for op in stores)


def merge_nest(root: tir.ForOp) -> None:
    """Merge the thread-bound loops under the end of `root`'s chain into one set of threads."""
    end = chain_end(root)
    inner = [op for op in end.body.walk() if is_thread_loop(op) and op is not end]
    if not inner:
        return
    bound = chain_loops(root, end)
    extents: dict[str, int] = {}
    threads: dict[str, SSAValue] = {}
    for loop in inner:
        assert isinstance(loop, tir.ForOp) and loop.thread is not None
        tag = loop.thread.data
        lower, upper = constant_value(loop.lower_bound), constant_value(loop.upper_bound)
        if tag not in THREAD_ORDER:
            raise located_error(loop, f"'{tag}' is bound again inside a kernel's loop nest")
        if lower != 0 or upper is None:
            raise located_error(loop, f"a '{tag}' loop inside a kernel needs constant bounds")
        if tag in bound:  # a shared tile's copy inside the loop of its own threads: TVM's
            # bound inference gave it the whole block's region, the threads share it out
            outer = bound[tag]
            launched = constant_value(outer.upper_bound)
            if not stores_only_shared(loop) or launched is None or upper > launched:
                raise located_error(
                    loop,
                    f"'{tag}' is bound again inside a kernel's loop nest (only a copy into "
                    f"shared memory of at most the block's {launched} threads may be)",
                )
            threads[tag] = outer.induction_variable
            extents[tag] = launched
            continue
        extents[tag] = max(extents.get(tag, 0), upper)
    # One loop per thread axis around the whole body of `end`.
    body = [op for op in end.body.block.ops if not isinstance(op, tir.YieldOp)]
    for op in body:
        op.detach()
    block = end.body.block
    for tag in (t for t in THREAD_ORDER if t in extents and t not in bound):
        zero, upper = index(0), index(extents[tag])
        Rewriter.insert_op([zero, upper], InsertPoint.before(root))
        loop = tir.ForOp(zero, upper, "thread_binding", tag)
        loop.induction_variable.name_hint = tag.replace(".", "_").lower()
        Rewriter.insert_op(
            loop, InsertPoint.before(block.last_op) if block.last_op else InsertPoint.at_end(block)
        )  # type: ignore[arg-type]
        loop.body.block.add_op(tir.YieldOp())
        threads[tag] = loop.induction_variable
        block = loop.body.block
    Rewriter.insert_op(body, InsertPoint.before(block.last_op))  # type: ignore[arg-type]
    # Each former loop becomes a guarded region; nested ones first, then the loops around
    # them, whose regions are fenced once all are in place.
    outermost = [op for op in inner if not any(o is not op and o.is_ancestor(op) for o in inner)]
    fences: list[tuple[Operation, Operation]] = []
    for loop in reversed(inner):
        assert isinstance(loop, tir.ForOp) and loop.thread is not None
        ops = replace_loop(loop, threads[loop.thread.data], extents[loop.thread.data])
        if loop in outermost and ops and stores_shared(ops):
            fences.insert(0, widened(ops))
    fence(fences)


def neighbour(op: Operation, forward: bool) -> Operation | None:
    """The nearest op before (after) `op` that a barrier may not move across."""
    other = op.next_op if forward else op.prev_op
    while quiet(other) and not is_barrier(other):
        other = other.next_op if forward else other.prev_op  # type: ignore[union-attr]
    return other


def loads_shared(first: Operation, last: Operation) -> bool:
    """Whether the ops from `first` to `last` (siblings) load from shared memory."""
    op: Operation | None = first
    while op is not None:
        if any(isinstance(i, memref.LoadOp) and in_shared(i.memref) for i in op.walk()):
            return True
        op = None if op is last else op.next_op
    return False


def fence(regions: list[tuple[Operation, Operation]]) -> None:
    """A barrier before and after each region storing to shared memory; one barrier between
    two adjacent such regions, none where the second reads no shared memory (the two
    operand tiles of a step are copied between the same two barriers)."""
    starts = {id(first): (first, last) for first, last in regions}
    ends = {id(last) for _, last in regions}
    for first, last in regions:
        previous = neighbour(first, forward=False)
        if previous is None or id(previous) not in ends or loads_shared(first, last):
            barrier_before(first)
        following = neighbour(last, forward=True)
        if following is None or id(following) not in starts or loads_shared(*starts[id(following)]):
            barrier_after(last)


def widened(ops: list[Operation]) -> tuple[Operation, Operation]:
    """The first and last op of a region to fence: the serial loops that hold nothing else
    with a side effect (a cooperative load's outer loop) are fenced once, not per iteration."""
    first, last = ops[0], ops[-1]
    while True:
        holder = first.parent_op()
        if not isinstance(holder, tir.ForOp) or holder.kind.data == "thread_binding":
            return first, last
        region = {id(op) for op in ops}
        others = [
            op
            for op in holder.body.block.ops
            if id(op) not in region and not isinstance(op, tir.YieldOp)
        ]
        if not all(is_side_effect_free(op) for op in others):
            return first, last
        first = last = holder
        ops = [holder]


def merge_thread_nests(module: ModuleOp) -> ModuleOp:
    """Merge the inner thread-bound loops of every kernel nest of `module` (in place)."""
    for function in [f for f in module.ops if isinstance(f, func.FuncOp) and f.body.blocks]:
        roots: list[tir.ForOp] = []
        for op in function.walk():
            if is_thread_loop(op) and not any(r.is_ancestor(op) for r in roots):
                roots.append(op)  # type: ignore[arg-type]
        for root in roots:
            merge_nest(root)
    return module
