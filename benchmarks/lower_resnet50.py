"""Time of lowering ResNet-50's fused functions: relay -> te (convert-relay-to-te) -> tir.

The graph is `relay_passes.resnet50()` (or, with `--onnx`, ONNX's light_resnet50 through
`xtvm.frontends.onnx`), taken through relay-simplify-inference, relay-fold-constant and
relay-fuse-ops; then every primitive function is lowered:

- `relay->te`: its plan and kernel key, the TOPI computes through the strategy table and the
  default schedule for `--target` (what convert-relay-to-te does for it);
- `te->tir`: convert-te-to-tir on a module holding that kernel alone.

Structurally identical functions share a kernel, as in the pass: the table has one row per
kernel with the number of functions it serves, and the totals give the pass as it runs on the
module (`convert-relay-to-te` then `convert-te-to-tir`, best of `--repeats`), and, for
reference, every function lowered on its own with no sharing. The goal is the lowering of
every primitive function in under 5 s.

    python benchmarks/lower_resnet50.py
    python benchmarks/lower_resnet50.py --onnx --target cuda --repeats 1
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from xtvm.dialects.registry import default_context
from xtvm.passes.convert_relay_to_te import ConvertRelayToTePass, KernelBuilder, plan
from xtvm.passes.convert_te_to_tir import ConvertTeToTirPass
from xtvm.passes.relay_fold_constant import RelayFoldConstantPass
from xtvm.passes.relay_fuse_ops import RelayFuseOpsPass
from xtvm.passes.relay_simplify_inference import RelaySimplifyInferencePass

sys.path.insert(0, str(Path(__file__).parent))
from relay_passes import count_ops, resnet50

GOAL_S = 5.0


@dataclass
class Row:
    kernel: str
    functions: int
    te_ops: int
    tir_ops: int
    to_te: float
    to_tir: float


def graph(onnx: bool) -> ModuleOp:
    """ResNet-50 after simplify-inference, fold-constant and fuse-ops."""
    if onnx:
        import onnx as onnx_package

        from xtvm.frontends.onnx import import_onnx

        light = Path(onnx_package.__file__).parent / "backend/test/data/light"
        module, _ = import_onnx(light / "light_resnet50.onnx")
    else:
        module = resnet50()
    ctx = default_context().xdsl_context
    for p in (RelaySimplifyInferencePass(), RelayFoldConstantPass(), RelayFuseOpsPass()):
        p.apply(ctx, module)
    return module


def primitive_functions(module: ModuleOp) -> list[func.FuncOp]:
    return [f for f in module.ops if isinstance(f, func.FuncOp) and "primitive" in f.attributes]


def lower_each(module: ModuleOp, target: str, share: bool) -> tuple[list[Row], float]:
    """Lower every primitive function (once per kernel key when `share`); rows and total s."""
    ctx = default_context().xdsl_context
    rows: dict[Hashable, Row] = {}
    total = 0.0
    for index, function in enumerate(primitive_functions(module)):
        start = time.perf_counter()
        function_plan = plan(function)
        key = function_plan.key if share else index
        if key in rows:
            rows[key].functions += 1
            total += time.perf_counter() - start
            continue
        kernel = KernelBuilder(function, function_plan, target).build()
        middle = time.perf_counter()
        te_ops = count_ops(ModuleOp([kernel.clone()]))
        lowered = ModuleOp([kernel])
        ConvertTeToTirPass().apply(ctx, lowered)
        end = time.perf_counter()
        total += end - start
        name = function.sym_name.data
        rows[key] = Row(name, 1, te_ops, count_ops(lowered), middle - start, end - middle)
    return list(rows.values()), total


def whole_pass(module: ModuleOp, target: str, repeats: int) -> tuple[float, float]:
    """Best time of convert-relay-to-te on the module, and of convert-te-to-tir on its kernels
    (the graph function left out)."""
    ctx = default_context().xdsl_context
    best_te, best_tir = float("inf"), float("inf")
    for _ in range(repeats):
        copy = module.clone()
        start = time.perf_counter()
        ConvertRelayToTePass(target).apply(ctx, copy)
        middle = time.perf_counter()
        kernels = [f for f in copy.ops if isinstance(f, func.FuncOp) and f.sym_visibility]
        for kernel in kernels:
            kernel.detach()
        ConvertTeToTirPass().apply(ctx, ModuleOp(kernels))
        end = time.perf_counter()
        best_te, best_tir = min(best_te, middle - start), min(best_tir, end - middle)
    return best_te, best_tir


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--onnx", action="store_true", help="ONNX's light_resnet50 instead")
    parser.add_argument("--target", default="llvm", choices=("llvm", "cuda", "generic"))
    parser.add_argument("--repeats", type=int, default=3, help="runs of the whole pass")
    args = parser.parse_args(argv)

    start = time.perf_counter()
    module = graph(args.onnx)
    prepared = time.perf_counter() - start
    functions = primitive_functions(module)
    rows, shared_total = lower_each(module.clone(), args.target, share=True)
    _, unshared_total = lower_each(module.clone(), args.target, share=False)
    pass_te, pass_tir = whole_pass(module, args.target, args.repeats)

    source = "light_resnet50.onnx" if args.onnx else "relay_passes.resnet50()"
    print(
        f"ResNet-50 ({source}), target {args.target}: {len(functions)} primitive functions, "
        f"{len(rows)} kernels (graph passes: {prepared:.1f} s)"
    )
    header = (
        f"{'kernel':<48} {'fns':>3} {'te ops':>6} {'tir ops':>7} {'relay->te ms':>12} "
        f"{'te->tir ms':>10}"
    )
    print(header)
    print("-" * len(header))
    for r in sorted(rows, key=lambda r: -(r.to_te + r.to_tir)):
        print(
            f"{r.kernel[:48]:<48} {r.functions:>3} {r.te_ops:>6} {r.tir_ops:>7} "
            f"{r.to_te * 1e3:>12.1f} {r.to_tir * 1e3:>10.1f}"
        )
    print("-" * len(header))
    te_sum = sum(r.to_te for r in rows)
    tir_sum = sum(r.to_tir for r in rows)
    print(f"{'sum over kernels':<58} {'':>8} {te_sum * 1e3:>12.1f} {tir_sum * 1e3:>10.1f}")
    total = pass_te + pass_tir
    ok = "yes" if total < GOAL_S else "NO"
    print(
        f"the passes on the module (best of {args.repeats}): convert-relay-to-te "
        f"{pass_te:.2f} s + convert-te-to-tir {pass_tir:.2f} s = {total:.2f} s "
        f"(goal < {GOAL_S:.0f} s: {ok})"
    )
    print(
        f"every function lowered on its own, no sharing: {unshared_total:.2f} s "
        f"(with sharing: {shared_total:.2f} s)"
    )
    return 0 if total < GOAL_S else 1


if __name__ == "__main__":
    sys.exit(main())
