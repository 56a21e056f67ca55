"""AutoTVM on single kernels: default schedule vs tuned, XGBTuner vs random search; never
asserted.

Kernels: BERT-base's feed-forward product (128 x 768 x 3072, a matmul once relay.build has
transposed the constant weight), attention's scores (batch_matmul 12 x 128 x 64 x 128,
q by k transposed), and a matmul of 98 x 96 x 104 whose only whole tiles are 7 (or 14)
rows by 13 (or 26, 52) columns, where the default 8 x 32 tile is guarded. For each: the
default latency, the best found by each tuner after `--trials` measurements (rebuilt from
its record and timed again, checked against numpy), GFLOP/s and tuning wall time. One
thread (`XTVM_NUM_THREADS=1`) unless `--threads`. Latencies are the fastest of 10 repeats;
the tuners rank configs by their mean measured cost, as TVM's do, so on a loaded machine
their choice is noisy: compare runs of the same load.

    python benchmarks/tuning.py                      # 16 trials each, a few minutes
    python benchmarks/tuning.py --trials 64 --kernels bert_dense
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

KERNELS: dict[str, tuple[str, tuple[Any, ...]]] = {
    "bert_dense": ("matmul.llvm", (128, 768, 3072)),
    "attention": ("batch_matmul.llvm", ((12, 128, 64), (12, 128, 64), False, True)),
    "odd_7x13": ("matmul.llvm", (98, 96, 104)),
    "conv_nhwc": (
        "conv2d_nhwc.llvm",
        ((1, 28, 28, 64), (3, 3, 64, 64), (1, 1), (1, 1, 1, 1), (1, 1), "HWIO"),
    ),
}
DEFAULT_KERNELS = ("bert_dense", "attention", "odd_7x13")


def reference(name: str, args: tuple[Any, ...], arrays: list[np.ndarray]) -> np.ndarray | None:
    if name == "matmul.llvm":
        return arrays[0] @ arrays[1]
    if name == "batch_matmul.llvm":
        return arrays[0] @ arrays[1].transpose(0, 2, 1)
    return None


def latency(task: Any, number: int) -> float:
    """Seconds of the task's template in the current dispatch context (checked against
    numpy): the fastest of 10 repeats, the figure least moved by other load on the cores."""
    import xtvm as tvm
    from xtvm.tuning.task import DispatchContext

    assert DispatchContext.current is not None
    # what calling the template does: the config the context holds for the workload
    s, tensors = task.instantiate(DispatchContext.current.query("llvm", task.workload))
    f = tvm.build(s, tensors, target="llvm")
    rng = np.random.default_rng(0)
    arrays = [rng.uniform(-1, 1, [int(d) for d in t.shape]).astype("float32") for t in tensors]
    f(*arrays)
    expected = reference(task.name, task.args, arrays)
    if expected is not None:
        np.testing.assert_allclose(arrays[-1], expected, rtol=1e-3, atol=1e-3)
    return min(f.time_evaluator(f.entry_name, number=number, repeat=10)(*arrays).results)


def tune(task: Any, tuner_name: str, trials: int, log: Path, seed: int) -> tuple[Any, float]:
    from xtvm import autotvm

    if tuner_name == "xgb":
        tuner = autotvm.XGBTuner(task, plan_size=8, seed=seed)
    else:
        tuner = autotvm.RandomTuner(task, seed=seed)
    option = autotvm.measure_option(
        builder=autotvm.LocalBuilder(timeout=30),
        runner=autotvm.LocalRunner(number=3, repeat=2, timeout=30),
    )
    start = time.perf_counter()
    tuner.tune(
        n_trial=trials,
        measure_option=option,
        callbacks=[
            autotvm.callback.log_to_file(log),
            autotvm.callback.progress_bar(trials, f"{task.name} {tuner_name} "),
        ],
    )
    return tuner, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=16)
    parser.add_argument("--kernels", nargs="+", choices=KERNELS, default=DEFAULT_KERNELS)
    parser.add_argument("--tuners", nargs="+", choices=("xgb", "random"), default=("xgb", "random"))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()
    os.environ["XTVM_NUM_THREADS"] = str(options.threads)  # before the runtime starts
    from xtvm import autotvm

    rows = []
    directory = Path(tempfile.mkdtemp(prefix="xtvm-tuning-"))
    for kernel in options.kernels:
        name, args = KERNELS[kernel]
        task = autotvm.task.create(name, args=args, target="llvm")
        default = latency(task, 10)
        row = {"kernel": kernel, "space": len(task.config_space), "flop": task.flop}
        row["default"] = default
        for tuner_name in options.tuners:
            log = directory / f"{kernel}.{tuner_name}.json"
            tuner, wall = tune(task, tuner_name, options.trials, log, options.seed)
            with autotvm.apply_history_best(log):
                tuned = latency(task, 10)
            row[tuner_name] = (tuned, tuner.trial, wall, tuner.best_config)
        rows.append(row)

    print(f"\nthreads={options.threads}, trials per tuner={options.trials}")
    header = f"{'kernel':<11} {'space':>6} {'default ms':>10} {'GFLOP/s':>8}"
    for tuner_name in options.tuners:
        header += f" | {tuner_name + ' ms':>9} {'GFLOP/s':>8} {'speedup':>7} {'tune s':>6}"
    print(header)
    for row in rows:
        line = (
            f"{row['kernel']:<11} {row['space']:>6} {row['default'] * 1e3:>10.3f}"
            f" {row['flop'] / row['default'] / 1e9:>8.2f}"
        )
        for tuner_name in options.tuners:
            tuned, _, wall, _ = row[tuner_name]
            line += (
                f" | {tuned * 1e3:>9.3f} {row['flop'] / tuned / 1e9:>8.2f}"
                f" {row['default'] / tuned:>6.2f}x {wall:>6.1f}"
            )
        print(line)
    for row in rows:
        for tuner_name in options.tuners:
            print(f"{row['kernel']} {tuner_name} best: {row[tuner_name][3]}")


if __name__ == "__main__":
    main()
