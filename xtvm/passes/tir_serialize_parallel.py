"""`tir-serialize-parallel`: run parallel loops too small to pay for their threads serially.

A `parallel` loop costs a fork and a join of the thread pool each time it runs: waking the
sleeping threads and waiting for the last of them, tens of microseconds on a quiet machine and
a scheduler time slice when another process holds a core. Most kernels of a mobile CNN do less
work than that (MobileNetV2 ran slower at 2 threads than at 1). This pass estimates the work
of each outermost parallel loop, its trip count times the ops of its body with every inner
loop's trip count multiplied in, and makes it `serial` when that is under `min-work` ops: the
kernel then runs on the calling thread alone.

An exp, log, tanh or erf counts as TRANSCENDENTAL_OPS ops per native vector it works on (a
polynomial of a few dozen instructions; a vector<64xf32> is four AVX-512 vectors): counted as
one op, GPT-2's softmax of 12 x 64 rows of 64 ran its two exp loops serially (about 15 us at
1 thread, 10k "ops" each) and only its scalar max loop in parallel. Other ops count one,
whatever their width, as when MIN_PARALLEL_WORK was calibrated (counting their vectors too
would make ShuffleNet's concatenate and average pool parallel, unmeasured), except a gather
(a `vector.transfer_read` stepping across rows), one load per lane: GPT-2's transpose of K
into heads, 17 us, had 6,000 "ops".

Trip counts come from the loop bounds' intervals (`tir_bounds.Bounds`, so a tile edge
`min(32, n - i)` counts as 32); a loop whose bounds have no interval counts as unbounded and
its parallel loop stays parallel. `scf.if` counts both branches. Parallel loops nested in a
serialized one become serial too (codegen would otherwise fork them).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import math, scf, vector
from xdsl.dialects.builtin import ModuleOp, StringAttr, VectorType
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass

from xtvm.dialects import tir
from xtvm.passes.tir_bounds import Bounds, constant_value
from xtvm.topi.schedule import VECTOR_LANES

# Ops of work below which a parallel loop runs serially: a kernel of about 1 us on one core
# (the estimate runs at 15-50 ops/ns, index arithmetic included). With xtvm's thread pool on
# a quiet 2-core machine, SqueezeNet at 2 threads took 2.84 ms with 250,000 here (1t: 2.90)
# and 1.57-1.65 ms with 0-50,000 (onnxruntime 1.69); with one core kept busy, 2.61 ms at
# 50,000 against 2.65 at 250,000. (`benchmarks/threads.py --calibrate` prints per-kernel
# speed-ups by estimated work.)
MIN_PARALLEL_WORK = 50_000
UNBOUNDED = float("inf")
NATIVE_LANES = VECTOR_LANES  # the elements of one native vector (AVX-512 f32)
TRANSCENDENTAL_OPS = 20  # native ops of one exp, log, tanh or erf (a vector polynomial)
TRANSCENDENTAL = (
    math.ExpOp,
    math.Exp2Op,
    math.ExpM1Op,
    math.LogOp,
    math.Log2Op,
    math.Log10Op,
    math.Log1pOp,
    math.TanhOp,
    math.ErfOp,
    math.PowFOp,
    math.SinOp,
    math.CosOp,
    math.TanOp,
    math.AtanOp,
    math.Atan2Op,
)


def trip_count(loop: tir.ForOp | scf.ForOp, bounds: Bounds) -> float:
    """The most iterations `loop` runs (inf when its bounds have no interval)."""
    if isinstance(loop, tir.ForOp):
        lower, upper, step = bounds.of(loop.lower_bound), bounds.of(loop.upper_bound), 1
    else:
        lower, upper = bounds.of(loop.lb), bounds.of(loop.ub)
        step = constant_value(loop.step)
        if step is None or step <= 0:
            return UNBOUNDED
    if lower is None or upper is None:
        return UNBOUNDED
    return max(0, -(-(upper.hi - lower.lo) // step))


def lanes(type_: Attribute) -> int:
    """The elements of a vector type (1 for a scalar)."""
    if isinstance(type_, VectorType):
        return max(1, type_.element_count())
    return 1


def op_cost(op: Operation) -> float:
    """Ops of one plain op: 1; for an exp, log, tanh or erf TRANSCENDENTAL_OPS times the
    native vectors of its operand; for a gather (a `vector.transfer_read` across rows) one
    load per lane."""
    if isinstance(op, vector.TransferReadOp):
        return lanes(op.results[0].type)
    if not isinstance(op, TRANSCENDENTAL):
        return 1
    widest = max((lanes(v.type) for v in (*op.operands, *op.results)), default=1)
    return -(-widest // NATIVE_LANES) * TRANSCENDENTAL_OPS


def work(op: Operation, bounds: Bounds) -> float:
    """Ops `op` executes: `op_cost` for a plain op, a loop's body times its trip count."""
    inner = sum(work(o, bounds) for r in op.regions for b in r.blocks for o in b.ops)
    if isinstance(op, tir.ForOp | scf.ForOp):
        trips = trip_count(op, bounds)
        return 0 if trips == 0 else trips * inner
    return op_cost(op) + inner


def parallel_work(loop: tir.ForOp) -> float:
    """The estimated ops of parallel loop `loop` (its serial and parallel work alike)."""
    return work(loop, Bounds())


def outermost_parallel(op: Operation) -> list[tir.ForOp]:
    """The parallel loops of `op` not nested in another parallel loop (those codegen forks)."""
    found: list[tir.ForOp] = []
    for region in op.regions:
        for block in region.blocks:
            for inner in block.ops:
                if isinstance(inner, tir.ForOp) and inner.kind.data == "parallel":
                    found.append(inner)
                else:
                    found.extend(outermost_parallel(inner))
    return found


@dataclass(frozen=True)
class TirSerializeParallelPass(ModulePass):
    """Make a parallel loop `serial` when its estimated work is under `min-work` ops.

    `tir.for %i = %c0 to %c4 parallel { <10 ops> }` (40 ops) becomes a serial loop;
    one of 100,000 iterations stays parallel.
    """

    name = "tir-serialize-parallel"
    min_work: int = MIN_PARALLEL_WORK

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for loop in outermost_parallel(op):
            trips = trip_count(loop, Bounds())
            if trips <= 1 or parallel_work(loop) < self.min_work:
                for inner in loop.walk():  # and the parallel loops inside it
                    if isinstance(inner, tir.ForOp) and inner.kind.data == "parallel":
                        inner.kind = StringAttr("serial")
