"""The winograd template's transform knobs on a model's winograd layers: for each, its default
config and a small grid (the product's register tile left at its default: `unroll_input` x
`unroll_output`, then both with each `block_r`), measured as the tuner measures (1 thread,
thread clock, caches flushed) and appended to a record log; never asserted. The log then
times the layers inside the model (`autotvm_model.py MODEL --log LOG --minutes 0 --kernels
5`: the best records re-checked against the defaults, each kernel timed in both builds).

    python benchmarks/winograd_knobs.py vgg19 --log /tmp/vgg.json

Measured on the shared 2-core machine (vgg19, onnx light model), ms a layer, the knobs
written I (unroll_input), O (unroll_output) and the block of tiles (mean of 3 runs; the
model's kernels matched to layers by their calls and sizes):

    layer (NHWC input)   default   -O     I-     IO     best IO+block    in the model
    224x224x64            12.11   10.83  11.37   9.41   8.35 (28)       13.08 -> 8.86
    112x112x64             4.44    3.83   3.92   3.73   3.48 (56)        4.78 -> 3.59
    112x112x128            9.75    9.97   8.99   8.97   7.04 (28)        9.35 -> 6.61
    56x56x128              3.63    3.34   3.58   3.34   3.20 (28)        3.61 -> 3.01
    56x56x256              6.51    6.22   6.55   6.05   6.25 (28)  3x  18.95 -> 17.66
    28x28x256              3.37    3.31   3.44   3.32   -                3.53 -> 3.11
    28x28x512              7.25    6.96   7.06   6.82   -           3x  20.44 -> 19.82
    14x14x512              2.86    2.75   3.12   3.18   -           4x  10.08 -> 10.12

The whole model with those records (`--minutes 0`): kernels 98.0 -> 87.0 ms (1.13x), median
98.4 -> 86.6 ms (1.14x); tuned on from them for 14 minutes with the product's knobs too,
1.24x (see `autotvm_model.py`). The blocks pay on the large layers, whose transformed tiles
(29 MB at 224x224) outweigh the weights a block re-reads; on the 28x28 and 14x14 layers the
product holds the time and the transforms' knobs move it by at most 6 %.
"""

from __future__ import annotations

import os

os.environ.setdefault("XTVM_NUM_THREADS", "1")  # before xtvm starts any thread pool

import argparse
import itertools
from pathlib import Path
from typing import Any

from models import load_model

from xtvm.tuning.space import ConfigEntity, OtherOptionEntity

KNOBS = ("unroll_input", "unroll_output", "block_r")


def grid(task: Any) -> list[tuple[str, Any]]:
    """(label, config) of the grid: the default config with only the transform knobs moved."""
    space = task.config_space
    default = space.get(task.default_index())
    points = [(i, o, 0) for i, o in itertools.product([False, True], repeat=2)]
    points += [(True, True, e.val) for e in space.space_map["block_r"] if e.val]
    configs = []
    for point in points:
        knobs = {name: default[name] for name in space.space_map}
        knobs.update({n: OtherOptionEntity(v) for n, v in zip(KNOBS, point, strict=True)})
        index = space.point_of(ConfigEntity(-1, knobs))
        assert index is not None, knobs
        config = space.get(index)
        label = f"{'I' if point[0] else '-'}{'O' if point[1] else '-'}{point[2] or ''}"
        configs.append((label, config))
    return configs


def main() -> None:
    from xtvm import autotvm
    from xtvm.tuning.measure import create_measure_batch

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", help="a light model name or an .onnx file")
    parser.add_argument("--log", type=Path, required=True, help="record log to append to")
    options = parser.parse_args()
    try:
        mod, params, _ = load_model(options.model)
    except FileNotFoundError as error:
        raise SystemExit(f"{options.model}: no such model ({error.filename})") from None
    tasks = autotvm.task.extract_from_program(mod, params, "llvm")
    tasks = [t for t in tasks if t.name == "conv2d_winograd_nhwc.llvm"]
    if not tasks:
        raise SystemExit(f"{options.model}: no winograd conv2d layers")
    measure = create_measure_batch(
        autotvm.measure_option(
            builder=autotvm.LocalBuilder(timeout=40),
            runner=autotvm.LocalRunner(number=2, repeat=3, timeout=20, clock="thread"),
        )
    )
    for task in tasks:
        labels, configs = zip(*grid(task), strict=True)
        inputs = [autotvm.MeasureInput("llvm", task, c) for c in configs]
        results = measure(inputs)
        autotvm.record.save_to_file(options.log, list(zip(inputs, results, strict=True)))
        cells = [
            f"{label}:{1e3 * sum(r.costs) / len(r.costs):.2f}"
            if r.error_no == 0
            else f"{label}:error"
            for label, r in zip(labels, results, strict=True)
        ]
        print(f"{'x'.join(map(str, task.args[0][1:]))}: ms {'  '.join(cells)}", flush=True)


if __name__ == "__main__":
    main()
