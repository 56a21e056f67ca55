"""Import time of ONNX's light model-zoo models, with onnxruntime's session creation beside it.

The models are the `light_*.onnx` files shipped inside the onnx package
(`onnx/backend/test/data/light/`): AlexNet, DenseNet-121, Inception v1/v2, ResNet-50,
ShuffleNet, SqueezeNet, VGG-19 and ZFNet-512 with their weights as ConstantOfShape nodes, so
the weights are built at import like initializers would be read. For each model and the best
of `--repeats` runs:

- `import`: `xtvm.frontends.onnx.import_onnx(path)`: load, check, convert into relay;
- `print`: the IR text of the imported module (what `xtvm-import-onnx` writes after importing);
- `onnxruntime`: `onnxruntime.InferenceSession(path)` on the CPU provider, the peer figure;
  `ort no-opt` the same with graph optimizations off (no constant folding of the weights).

xtvm keeps a ConstantOfShape weight as a numpy broadcast view until it is needed, where
onnxruntime's default session folds (allocates) it: the weight-heavy models (AlexNet, VGG-19,
ZFNet-512) show that difference more than the conversion itself.

    python benchmarks/onnx_import.py
    python benchmarks/onnx_import.py resnet50 --repeats 5
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import onnx

from xtvm.dialects.registry import default_context
from xtvm.frontends.onnx import import_onnx
from xtvm.ir.printer import print_ir

GOAL_S = 2.0
GOAL_MODEL = "resnet50"
LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"


def best_of(repeats: int, fn: Callable[[], object]) -> tuple[float, object]:
    """The shortest wall time of `repeats` calls of `fn`, and the last call's result."""
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def ort_session_time(path: Path, repeats: int, optimize: bool = True) -> float | None:
    """Best time to create an onnxruntime CPU session, None without onnxruntime."""
    try:
        import onnxruntime as ort
    except ImportError:
        return None
    options = ort.SessionOptions()
    options.log_severity_level = 3
    if not optimize:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return best_of(
        repeats,
        lambda: ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"]),
    )[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="*", help="only these models (e.g. resnet50 vgg19)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure (best is kept)")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    paths = sorted(LIGHT.glob("light_*.onnx"))
    if args.models:
        paths = [p for p in paths if p.stem.removeprefix("light_") in args.models]
    if not paths:
        print(f"no light models found under {LIGHT}", file=sys.stderr)
        return 1
    ctx = default_context()
    header = (
        f"{'model':<14} {'nodes':>5} {'relay ops':>9} {'params MB':>9} {'import s':>8} "
        f"{'print s':>7} {'onnxruntime s':>13} {'ort no-opt s':>12} {'ratio':>6}"
    )
    print(header)
    print("-" * len(header))
    goal_time = None
    for path in paths:
        name = path.stem.removeprefix("light_")
        nodes = len(onnx.load(str(path), load_external_data=False).graph.node)
        imported, (module, params) = best_of(args.repeats, lambda p=path: import_onnx(p))
        printed, _ = best_of(args.repeats, lambda m=module: print_ir(m, ctx))
        ops = sum(1 for op in module.walk() if op.name.startswith("relay."))
        size_mb = sum(v.nbytes for v in params.values()) / 2**20
        ort_s = ort_session_time(path, args.repeats)
        ort_plain = ort_session_time(path, args.repeats, optimize=False)
        ort_text = f"{ort_s:>13.3f}" if ort_s is not None else f"{'-':>13}"
        plain_text = f"{ort_plain:>12.3f}" if ort_plain is not None else f"{'-':>12}"
        ratio = f"{imported / ort_s:>5.2f}x" if ort_s else f"{'-':>6}"
        print(
            f"{name:<14} {nodes:>5} {ops:>9} {size_mb:>9.1f} {imported:>8.3f} "
            f"{printed:>7.3f} {ort_text} {plain_text} {ratio}"
        )
        if name == GOAL_MODEL:
            goal_time = imported
    print(f"(best of {args.repeats}; ratio = xtvm import / onnxruntime session creation)")
    if goal_time is not None:
        verdict = "meets" if goal_time < GOAL_S else "MISSES"
        print(f"{GOAL_MODEL}: import {goal_time:.3f} s {verdict} the goal of {GOAL_S:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
