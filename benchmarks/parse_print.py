"""Parse and print throughput of xtvm's text front end, side by side with xDSL's.

Builds deterministic modules of about 1k, 10k and 100k ops with the Python constructors (integer
kernels in arith, float loops in scf/memref/math, relay graphs when the relay dialect imports),
writes each in the custom and the generic form, and times, in one run, for each size: our parser
on both forms, `verify`, our printer on both forms, and xDSL's parser and printer on the generic
form. The ratio rows are xDSL's time over ours (above 1.0: we are faster), the goal being parse +
print of the generic form. The peak of Python memory (tracemalloc) during one more parse of the
custom text shows how memory grows with the size; tracemalloc slows that parse down about
fourfold, so by default it runs up to 10k ops only (`--memory-up-to 100000` adds the largest).

    python benchmarks/parse_print.py                   # 1k, 10k, 100k
    python benchmarks/parse_print.py --sizes 1000,10000
    python benchmarks/parse_print.py --quick           # 1k and 10k, one repeat
    python benchmarks/parse_print.py --memory-up-to 100000
    python benchmarks/parse_print.py --cpu --repeats 5 # CPU time, best of 5 (a loaded machine)
    python benchmarks/parse_print.py --profile         # also cProfile our generic parse
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import pstats
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from xdsl.dialects import arith, func, math, memref, scf
from xdsl.dialects.builtin import (
    Float32Type,
    FloatAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.parser import Parser as XParser
from xdsl.printer import Printer as XPrinter

from xtvm.dialects.registry import default_context
from xtvm.ir.context import IRContext
from xtvm.ir.printer import print_ir
from xtvm.ir.verify import verify_diagnostics

try:
    from xtvm.dialects import relay
except ImportError:  # the relay dialect is optional for this benchmark
    relay = None

I32 = IntegerType(32)
F32 = Float32Type()
INDEX = IndexType()
DEFAULT_SIZES = "1000,10000,100000"
T = TypeVar("T")


# ---------------------------------------------------------------------------------------------
# Module generation


def named(value: SSAValue | Operation, hint: str) -> SSAValue:
    """`value` (or the single result of an op) with a name hint, as a front end would write."""
    result = value.results[0] if isinstance(value, Operation) else value
    result.name_hint = hint
    return result


def int_kernel(k: int) -> func.FuncOp:
    """Integer arithmetic with a comparison and a select: 18 ops."""
    block = Block(arg_types=[I32, I32])
    a, b = block.args
    named(a, "a")
    named(b, "b")
    ops: list[Operation] = []

    def add(op: Operation) -> Operation:
        ops.append(op)
        return op

    c1 = add(arith.ConstantOp(IntegerAttr(k % 97 + 1, I32)))
    c2 = add(arith.ConstantOp(IntegerAttr(-(k % 13) - 2, I32)))
    s = add(arith.AddiOp(a, b))
    m = add(arith.MuliOp(s, c1))
    t = add(arith.AddiOp(m, c2))
    cmp = add(arith.CmpiOp(t, a, "slt"))
    sel = add(arith.SelectOp(cmp, t, b))
    u = add(arith.MuliOp(sel, sel))
    v = add(arith.SubiOp(u, c1))
    w = add(arith.AndIOp(v, b))
    x = add(arith.XOrIOp(w, s))
    cmp2 = add(arith.CmpiOp(x, c2, "sge"))
    sel2 = add(arith.SelectOp(cmp2, x, u))
    y = add(arith.AddiOp(sel2, c1))
    z = add(arith.MuliOp(y, m))
    named(z, "result")
    add(func.ReturnOp(z))
    block.add_ops(ops)
    return func.FuncOp(f"int_kernel_{k}", FunctionType.from_lists([I32, I32], [I32]), Region(block))


def loop_kernel(k: int) -> func.FuncOp:
    """A float reduction loop with iter_args over a buffer, plus a scratch alloc: 19 ops."""
    size = 16 + k % 48
    buf_type = MemRefType(F32, [size])
    block = Block(arg_types=[buf_type, buf_type, F32])
    buf, out, scale = block.args
    named(buf, "buf")
    named(out, "out")
    named(scale, "scale")
    c0 = arith.ConstantOp(IntegerAttr(0, INDEX))
    cn = arith.ConstantOp(IntegerAttr(size, INDEX))
    c1 = arith.ConstantOp(IntegerAttr(1, INDEX))
    zero = arith.ConstantOp(FloatAttr(0.0, F32))
    scratch = memref.AllocOp.get(F32, None, [size])
    named(c0, "c0")
    named(c1, "c1")
    named(zero, "zero")

    body = Block(arg_types=[INDEX, F32])
    i, acc = body.args
    named(i, "i")
    named(acc, "acc")
    x = memref.LoadOp.get(buf, [i])
    e = math.ExpOp(x)
    sq = math.SqrtOp(e)
    p = arith.MulfOp(sq, scale)
    q = arith.AddfOp(p, x)
    store = memref.StoreOp.get(q, out, [i])
    store_scratch = memref.StoreOp.get(p, scratch, [i])
    nxt = arith.AddfOp(acc, q)
    body.add_ops([x, e, sq, p, q, store, store_scratch, nxt, scf.YieldOp(nxt)])

    loop = scf.ForOp(c0, cn, c1, [zero], body)
    named(loop, "sum")
    final = math.AbsFOp(loop)
    block.add_ops([c0, cn, c1, zero, scratch, loop, final, func.ReturnOp(final)])
    return func.FuncOp(
        f"loop_kernel_{k}", FunctionType.from_lists([buf_type] * 2 + [F32], [F32]), Region(block)
    )


def relay_graph(k: int) -> func.FuncOp:
    """A conv block in relay: conv2d, bias_add, relu, add, pooling, softmax: 13 ops."""
    assert relay is not None
    channels = 4 + k % 4
    x_type = TensorType(F32, [1, channels, 8, 8])
    w_type = TensorType(F32, [channels, channels, 3, 3])
    b_type = TensorType(F32, [channels])
    block = Block(arg_types=[x_type, w_type, b_type])
    x, w, b = block.args
    named(x, "x")
    named(w, "w")
    named(b, "b")
    conv = relay.Conv2dOp(x, w, padding=(1, 1, 1, 1))
    biased = relay.BiasAddOp(conv, b)
    act = relay.ReluOp(biased)
    res = relay.AddOp(act, x)
    scale = relay.MultiplyOp(res, res)
    neg = relay.NegativeOp(scale)
    tanh = relay.TanhOp(neg)
    pooled = relay.MaxPool2dOp(tanh, pool_size=(2, 2), strides=(2, 2))
    mean = relay.GlobalAvgPool2dOp(pooled)
    flat = relay.BatchFlattenOp(mean)
    prob = relay.SoftmaxOp(flat, axis=1)
    ops = [conv, biased, act, res, scale, neg, tanh, pooled, mean, flat, prob]
    block.add_ops([*ops, func.ReturnOp(prob)])
    out_type = prob.results[0].type
    return func.FuncOp(
        f"relay_graph_{k}",
        FunctionType.from_lists([x_type, w_type, b_type], [out_type]),
        Region(block),
    )


def build_module(target_ops: int) -> tuple[ModuleOp, int]:
    """A module of about `target_ops` ops cycling through the kernel kinds; (module, op count)."""
    makers: list[Callable[[int], func.FuncOp]] = [int_kernel, loop_kernel]
    if relay is not None:
        makers.append(relay_graph)
    functions: list[Operation] = []
    count = 1  # the module
    k = 0
    while count < target_ops:
        fn = makers[k % len(makers)](k)
        count += sum(1 for _ in fn.walk())
        functions.append(fn)
        k += 1
    return ModuleOp(functions), count


# ---------------------------------------------------------------------------------------------
# Measurement


def xdsl_print_generic(module: ModuleOp) -> str:
    stream = io.StringIO()
    XPrinter(stream=stream, print_generic_format=True).print_op(module)
    return stream.getvalue()


def parse_peak(ctx: IRContext, text: str) -> int:
    """The peak of Python memory allocated while parsing `text`, in bytes (tracemalloc).

    tracemalloc slows the parse down about fourfold, so this parse is not one of the timed ones.
    """
    gc.collect()
    tracemalloc.start()
    try:
        ctx.parse(text, "custom.mlir")
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@dataclass
class SizeResult:
    ops: int
    custom_bytes: int = 0
    generic_bytes: int = 0
    samples: dict[str, list[float]] = field(default_factory=dict)
    peak_bytes: int | None = None
    cpu: bool = False  # CPU time of this process and the best sample, not the wall's median

    def time(self, step: str) -> float:
        samples = self.samples[step]
        return min(samples) if self.cpu else statistics.median(samples)

    def run(self, step: str, fn: Callable[[], T]) -> T:
        """Call `fn`, after a garbage collection, and record its time under `step`."""
        clock = time.process_time if self.cpu else time.perf_counter
        gc.collect()
        start = clock()
        value = fn()
        self.samples.setdefault(step, []).append(clock() - start)
        return value


STEPS = (
    "parse custom",
    "parse generic",
    "verify",
    "print custom",
    "print generic",
    "xdsl parse generic",
    "xdsl print generic",
)


def measure(
    ctx: IRContext, target: int, repeats: int, memory: bool, check: bool, cpu: bool = False
) -> SizeResult:
    """Time every step `repeats` times, round-robin so that load changes hit all steps alike.

    With `check`, the first round also confirms that every parse reads back to the text it came
    from (timing a wrong parse is moot); with `memory`, one more parse measures peak memory.
    """
    module, ops = build_module(target)
    xctx = ctx.xdsl_context
    r = SizeResult(ops, cpu=cpu)
    custom = r.run("print custom", lambda: print_ir(module, ctx))
    generic = r.run("print generic", lambda: print_ir(module, ctx, generic=True))
    r.custom_bytes, r.generic_bytes = len(custom.encode()), len(generic.encode())
    steps: dict[str, Callable[[], object]] = {
        "print custom": lambda: print_ir(module, ctx),
        "print generic": lambda: print_ir(module, ctx, generic=True),
        "parse custom": lambda: ctx.parse(custom, "custom.mlir"),
        "parse generic": lambda: ctx.parse(generic, "generic.mlir"),
        "verify": lambda: verify_diagnostics(module, {}),
        "xdsl parse generic": lambda: XParser(xctx, generic, "generic.mlir").parse_module(),
        "xdsl print generic": lambda: xdsl_print_generic(module),
    }
    for round_ in range(repeats):
        for name, fn in steps.items():
            if len(r.samples.get(name, ())) > round_:
                continue  # printing the texts gave this round's sample
            value = r.run(name, fn)
            if check and round_ == 0:
                check_step(ctx, name, value, custom, generic)
            del value  # each step runs with only the built module alive
    if memory:
        r.peak_bytes = parse_peak(ctx, custom)
    return r


def check_step(ctx: IRContext, name: str, value: object, custom: str, generic: str) -> None:
    """Stop if a step's result disagrees with the texts printed from the built module."""
    if name == "verify" and value:
        raise SystemExit("the generated module does not verify")
    if name == "parse custom" and print_ir(value, ctx) != custom:  # type: ignore[arg-type]
        raise SystemExit("the custom form does not read back to itself")
    if name in ("parse generic", "xdsl parse generic"):
        if print_ir(value, ctx, generic=True) != generic:  # type: ignore[arg-type]
            raise SystemExit(f"{name}: the generic form does not read back to itself")
    if name == "xdsl print generic" and value != generic.rstrip("\n"):
        print("  note: xDSL's generic text differs from ours")


def profile_parse(ctx: IRContext, target: int, top: int) -> None:
    """cProfile our parser on the generic form and print the top entries by own time."""
    module, _ = build_module(target)
    generic = print_ir(module, ctx, generic=True)
    profiler = cProfile.Profile()
    profiler.enable()
    ctx.parse(generic, "generic.mlir")
    profiler.disable()
    stats = pstats.Stats(profiler, stream=sys.stdout)
    print(f"\ncProfile of our parser, generic form, {target} ops (by own time):")
    stats.sort_stats("tottime").print_stats(top)


# ---------------------------------------------------------------------------------------------
# Report


def report(results: list[SizeResult]) -> None:
    header = f"{'':<30}" + "".join(f"{f'{r.ops:,} ops':>14}" for r in results)

    def row(name: str, cells: list[str]) -> None:
        print(f"{name:<30}" + "".join(f"{c:>14}" for c in cells))

    print("\nthroughput, ops/s (" + ("CPU time, best" if results[0].cpu else "median") + ")")
    print(header)
    for step in STEPS:
        row(step, [f"{r.ops / r.time(step):,.0f}" for r in results])

    def ratio(r: SizeResult, xdsl: Sequence[str], ours: Sequence[str]) -> float:
        return sum(r.time(s) for s in xdsl) / sum(r.time(s) for s in ours)

    print("\nxDSL time / our time (>= 1.0: ours is faster)")
    print(header)
    row(
        "parse generic",
        [f"{ratio(r, ['xdsl parse generic'], ['parse generic']):.2f}" for r in results],
    )
    row(
        "print generic",
        [f"{ratio(r, ['xdsl print generic'], ['print generic']):.2f}" for r in results],
    )
    pair_x, pair_o = (
        ["xdsl parse generic", "xdsl print generic"],
        ["parse generic", "print generic"],
    )
    row("parse+print generic", [f"{ratio(r, pair_x, pair_o):.2f}" for r in results])
    row(
        "xdsl generic / our custom parse",
        [f"{ratio(r, pair_x[:1], ['parse custom']):.2f}" for r in results],
    )

    print("\ntext and memory")
    print(header)
    row("custom text, KiB", [f"{r.custom_bytes / 1024:,.0f}" for r in results])
    row("generic text, KiB", [f"{r.generic_bytes / 1024:,.0f}" for r in results])
    if any(r.peak_bytes is not None for r in results):
        mib = ["-" if r.peak_bytes is None else f"{r.peak_bytes / 2**20:,.1f}" for r in results]
        per_op = ["-" if r.peak_bytes is None else f"{r.peak_bytes / r.ops:,.0f}" for r in results]
        row("parse custom: peak, MiB", mib)
        row("parse custom: peak, B/op", per_op)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default=None, help="op counts, e.g. 1000,10000 (default: +100000)")
    p.add_argument("--quick", action="store_true", help="1k and 10k ops, one repeat each")
    p.add_argument("--repeats", type=int, default=3, help="repeats below 100k ops (median)")
    p.add_argument(
        "--memory-up-to",
        type=int,
        default=10_000,
        metavar="OPS",
        help="measure peak memory for sizes up to OPS (tracemalloc: 4x a parse; 0: never)",
    )
    p.add_argument("--large-repeats", type=int, default=1, help="repeats from 100k ops on")
    p.add_argument(
        "--cpu",
        action="store_true",
        help="time in CPU seconds, best of the repeats (steadier on a loaded machine) rather "
        "than the median wall time",
    )
    p.add_argument("--profile", action="store_true", help="cProfile our generic parse")
    p.add_argument("--profile-size", type=int, default=10_000)
    args = p.parse_args(argv)

    sizes = [
        int(s) for s in (args.sizes or ("1000,10000" if args.quick else DEFAULT_SIZES)).split(",")
    ]
    ctx = default_context()
    ctx.parser()  # build (or load) the grammar outside the timings
    print(
        f"relay ops: {'yes' if relay is not None else 'no (xtvm.dialects.relay does not import)'}"
    )
    results = []
    total = time.perf_counter()
    for size in sizes:
        repeats = 1 if args.quick else args.large_repeats if size >= 100_000 else args.repeats
        start = time.perf_counter()
        # Round trips are checked on the smaller modules: the generator is the same, and at
        # 100k ops the extra prints would cost a large share of the run.
        memory = size <= args.memory_up_to
        results.append(measure(ctx, size, repeats, memory, check=size < 100_000, cpu=args.cpu))
        elapsed = time.perf_counter() - start
        print(f"  {results[-1].ops:,} ops: {elapsed:.1f} s ({repeats} repeats)", flush=True)
    print(f"  total {time.perf_counter() - total:.1f} s")
    report(results)
    if args.profile:
        profile_parse(ctx, args.profile_size, top=25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
