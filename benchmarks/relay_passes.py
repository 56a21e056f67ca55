"""Time of the relay passes on a ResNet-50-sized graph, with its parse and print.

Builds ResNet-50 v1 in relay with the dialect's Python builders: the stem (conv 7x7, batch_norm,
relu, max_pool2d), 16 bottleneck blocks (conv 1x1, 3x3, 1x1, each with batch_norm, relu after
the first two and after the residual add, a projection conv + batch_norm on the first block of
each stage), global_avg_pool2d, batch_flatten and dense + bias_add, about 500 ops. Conv weights
of up to `--const-limit` elements are `relay.const` of random data, larger ones `relay.param`;
batch_norm parameters are always constants, so that constant folding has work after
relay-simplify-inference.

Each pass runs on a fresh copy of its input (`module.clone()`, not timed) and the best of
`--repeats` runs is reported, with the op counts before and after. relay-fold-constant and
relay-fuse-ops also run on the graph that the passes before them in a pipeline would give them.

    python benchmarks/relay_passes.py
    python benchmarks/relay_passes.py --repeats 1
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import Float32Type, ModuleOp, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue

from xtvm.dialects import relay
from xtvm.dialects.registry import default_context
from xtvm.ir.context import IRContext
from xtvm.ir.printer import print_ir
from xtvm.passes import all_passes

F32 = Float32Type()
GOAL_S = 1.0
# (bottleneck width, blocks, stride of the first block) of ResNet-50's four stages.
STAGES = ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2))


# ---------------------------------------------------------------------------------------------
# Graph construction


class GraphBuilder:
    """Appends relay ops to one block, naming their results."""

    def __init__(self, block: Block, rng: np.random.Generator, const_limit: int) -> None:
        self.block = block
        self.rng = rng
        self.const_limit = const_limit
        self.count = 0

    def add(self, op: Operation, hint: str | None = None) -> SSAValue:
        self.block.add_op(op)
        result = op.results[0]
        if hint is not None:
            result.name_hint = hint
        return result

    def const(self, shape: tuple[int, ...], hint: str, low: float = -0.1, high: float = 0.1):
        data = self.rng.uniform(low, high, size=shape).astype(np.float32)
        return self.add(relay.ConstOp(data), hint)

    def weight(self, shape: tuple[int, ...], name: str) -> SSAValue:
        """A constant when small enough, else a parameter."""
        if int(np.prod(shape)) <= self.const_limit:
            return self.const(shape, name.replace(".", "_"))
        return self.add(relay.ParamOp(name, TensorType(F32, shape)), name.replace(".", "_"))

    def conv_bn(
        self,
        x: SSAValue,
        name: str,
        channels: int,
        kernel: int,
        stride: int = 1,
        relu: bool = True,
    ) -> SSAValue:
        """conv2d (no bias) + batch_norm (+ relu), as torchvision's ResNet has them."""
        in_channels = x.type.get_shape()[1]  # type: ignore[attr-defined]
        w = self.weight((channels, in_channels, kernel, kernel), f"{name}.weight")
        pad = kernel // 2
        conv = self.add(
            relay.Conv2dOp(x, w, strides=(stride, stride), padding=(pad, pad, pad, pad)),
            f"{name}_conv",
        )
        gamma = self.const((channels,), f"{name}_gamma", 0.5, 1.5)
        beta = self.const((channels,), f"{name}_beta")
        mean = self.const((channels,), f"{name}_mean")
        var = self.const((channels,), f"{name}_var", 0.5, 1.5)
        bn = self.add(relay.BatchNormOp(conv, gamma, beta, mean, var), f"{name}_bn")
        y = self.add(relay.TupleGetItemOp(bn, 0), f"{name}_out")
        return self.add(relay.ReluOp(y), f"{name}_relu") if relu else y

    def bottleneck(self, x: SSAValue, name: str, width: int, stride: int) -> SSAValue:
        in_channels = x.type.get_shape()[1]  # type: ignore[attr-defined]
        out_channels = 4 * width
        y = self.conv_bn(x, f"{name}.conv1", width, 1)
        y = self.conv_bn(y, f"{name}.conv2", width, 3, stride)
        y = self.conv_bn(y, f"{name}.conv3", out_channels, 1, relu=False)
        shortcut = x
        if stride != 1 or in_channels != out_channels:
            shortcut = self.conv_bn(x, f"{name}.down", out_channels, 1, stride, relu=False)
        s = self.add(relay.AddOp(y, shortcut), f"{name}_add")
        return self.add(relay.ReluOp(s), f"{name}_relu")


def resnet50(batch: int = 1, const_limit: int = 16384, seed: int = 0) -> ModuleOp:
    """ResNet-50 v1 for 224x224 NCHW images, as one relay function `@main`."""
    data_type = TensorType(F32, (batch, 3, 224, 224))
    block = Block(arg_types=[data_type])
    block.args[0].name_hint = "data"
    g = GraphBuilder(block, np.random.default_rng(seed), const_limit)
    x = g.conv_bn(block.args[0], "stem", 64, 7, 2)
    x = g.add(
        relay.MaxPool2dOp(x, pool_size=(3, 3), strides=(2, 2), padding=(1, 1, 1, 1)), "stem_pool"
    )
    for s, (width, blocks, stride) in enumerate(STAGES, 1):
        for b in range(blocks):
            x = g.bottleneck(x, f"layer{s}.{b}", width, stride if b == 0 else 1)
    x = g.add(relay.GlobalAvgPool2dOp(x), "pool")
    x = g.add(relay.BatchFlattenOp(x), "flat")
    w = g.weight((1000, x.type.get_shape()[1]), "fc.weight")  # type: ignore[attr-defined]
    x = g.add(relay.DenseOp(x, w), "fc")
    bias = g.const((1000,), "fc_bias")
    x = g.add(relay.BiasAddOp(x, bias), "logits")
    block.add_op(func.ReturnOp(x))
    fn = func.FuncOp("main", ([data_type], [x.type]), Region(block))
    return ModuleOp([fn])


# ---------------------------------------------------------------------------------------------
# Timing


def count_ops(module: ModuleOp) -> int:
    """Ops inside the module, the module itself left out."""
    return sum(1 for _ in module.walk()) - 1


def best_of(repeats: int, run: Callable[[], object]) -> tuple[float, object]:
    """The shortest of `repeats` runs, in seconds, and the last result."""
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
    return best, result


@dataclass
class Row:
    step: str
    seconds: float
    before: int | None
    after: int | None


def apply_pass(ctx: IRContext, name: str, module: ModuleOp) -> ModuleOp:
    pass_ = all_passes()[name]()()
    pass_.apply(ctx.xdsl_context, module)
    return module


def time_pass(ctx: IRContext, name: str, source: ModuleOp, repeats: int, label: str) -> Row:
    """`name` on fresh copies of `source`: copying is outside the timing."""
    best = float("inf")
    out = source
    for _ in range(repeats):
        copy = source.clone()
        start = time.perf_counter()
        apply_pass(ctx, name, copy)
        best = min(best, time.perf_counter() - start)
        out = copy
    out.verify()
    return Row(label, best, count_ops(source), count_ops(out))


def run(repeats: int, const_limit: int) -> list[Row]:
    ctx = default_context()
    ctx.parser()  # build (or load) the grammar outside the timings
    module = resnet50(const_limit=const_limit)
    module.verify()
    n = count_ops(module)

    rows = [
        time_pass(ctx, "relay-infer-types", module, repeats, "relay-infer-types"),
        time_pass(ctx, "relay-simplify-inference", module, repeats, "relay-simplify-inference"),
        time_pass(ctx, "relay-fold-constant", module, repeats, "relay-fold-constant"),
    ]
    simplified = apply_pass(ctx, "relay-simplify-inference", module.clone())
    rows.append(
        time_pass(ctx, "relay-fold-constant", simplified, repeats, "  after simplify-inference")
    )
    rows.append(time_pass(ctx, "relay-fuse-ops", module, repeats, "relay-fuse-ops"))
    folded = apply_pass(ctx, "relay-fold-constant", simplified.clone())
    rows.append(
        time_pass(ctx, "relay-fuse-ops", folded, repeats, "  after simplify + fold-constant")
    )

    seconds, text = best_of(repeats, lambda: print_ir(module, ctx))
    assert isinstance(text, str)
    rows.append(Row(f"print ({len(text) / 1e6:.1f} MB)", seconds, n, None))
    seconds, parsed = best_of(repeats, lambda: ctx.parse(text, "resnet50.mlir"))
    assert isinstance(parsed, ModuleOp)
    rows.append(Row("parse", seconds, None, count_ops(parsed)))
    if print_ir(parsed, ctx) != text:
        raise SystemExit("the parsed module does not print as the original text")
    return rows


def print_table(rows: list[Row], repeats: int, const_limit: int) -> None:
    print(
        f"ResNet-50 relay graph (batch 1, 224x224; conv weights of <= {const_limit} elements "
        f"inline), best of {repeats}"
    )
    header = f"{'step':<34} {'ms':>9} {'ops before':>11} {'ops after':>10} {'goal':>6}  ok"
    print(header)
    print("-" * len(header))
    for r in rows:
        before = "" if r.before is None else str(r.before)
        after = "" if r.after is None else str(r.after)
        ok = "yes" if r.seconds < GOAL_S else "NO"
        print(f"{r.step:<34} {r.seconds * 1e3:>9.1f} {before:>11} {after:>10} {'< 1 s':>6}  {ok}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per step (best is shown)")
    parser.add_argument(
        "--const-limit",
        type=int,
        default=16384,
        help="largest conv weight (in elements) held as a relay.const",
    )
    args = parser.parse_args(argv)
    rows = run(args.repeats, args.const_limit)
    print_table(rows, args.repeats, args.const_limit)
    return 0 if all(r.seconds < GOAL_S for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
