"""Default vs AutoTVM-tuned latency of one matmul (`matmul.llvm`); never asserted.

Run as `XTVM_NUM_THREADS=1 python benchmarks/autotvm_matmul.py --shape 256 256 256 --trials 32`.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

import xtvm as tvm
from xtvm import autotvm
from xtvm.tuning import templates


def latency(shape: tuple[int, int, int], number: int) -> float:
    """Median seconds of the template's schedule in the current dispatch context."""
    m, k, n = shape
    s, args = templates.matmul(m, k, n)
    f = tvm.build(s, args, target="llvm")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype("float32")
    b = rng.standard_normal((k, n)).astype("float32")
    c = np.zeros((m, n), "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-3, atol=1e-3)
    return f.time_evaluator(f.entry_name, number=number, repeat=5)(a, b, c).median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shape", type=int, nargs=3, default=(256, 256, 256))
    parser.add_argument("--trials", type=int, default=32)
    parser.add_argument("--tuner", choices=("random", "grid"), default="random")
    options = parser.parse_args()
    shape = tuple(options.shape)
    task = autotvm.task.create("matmul.llvm", args=shape, target="llvm")
    log = Path(tempfile.mkdtemp()) / "matmul.log"
    tuner = (
        autotvm.RandomTuner(task, seed=0)
        if options.tuner == "random"
        else autotvm.GridSearchTuner(task)
    )
    tuner.tune(
        n_trial=options.trials,
        measure_option=autotvm.measure_option(runner=autotvm.LocalRunner(number=10, repeat=3)),
        callbacks=[autotvm.callback.log_to_file(log)],
    )
    default = latency(shape, 20)
    with autotvm.apply_history_best(log):
        tuned = latency(shape, 20)
    flop = task.flop
    print(f"matmul {shape}: space {len(task.config_space)}, {options.tuner} {tuner.trial} trials")
    print(f"best config: {tuner.best_config}")
    print(f"default  {default * 1e3:8.3f} ms  {flop / default / 1e9:7.2f} GFLOPS")
    print(f"tuned    {tuned * 1e3:8.3f} ms  {flop / tuned / 1e9:7.2f} GFLOPS")
    print(f"speedup  {default / tuned:8.2f}x")


if __name__ == "__main__":
    main()
