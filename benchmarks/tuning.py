"""AutoTVM on single kernels: default schedule vs tuned, XGBTuner vs random search, against
one core's FMA peak; never asserted.

Kernels: BERT-base's feed-forward product (128 x 768 x 3072, a matmul once relay.build has
transposed the constant weight), attention's scores (batch_matmul 12 x 128 x 64 x 128,
q by k transposed), a 512^3 matmul, and a matmul of 98 x 96 x 104 whose only whole tiles
are 7 (or 14) rows by 13 (or 26, 52) columns, where the default 8 x 32 tile is guarded. For
each: the default latency, the best each tuner found after each of `--checkpoints` trials
(rebuilt from the records up to there and timed again, checked against numpy), GFLOP/s and
share of the FMA peak, tuning wall time, trials per minute (and how many trials were
measured: a candidate whose code equals one measured is not measured again), and the
trials random search needed to reach the model's best. The FMA peak is measured in the
same run: a C loop of 16 independent FMA chains on the widest vectors (`-march=native`).

One thread (`XTVM_NUM_THREADS=1`) unless `--threads`; at one thread every timing (the
tuners' too) is the thread's CPU time (`clock="thread"`): on a shared machine, what the
kernel costs rather than how long it waited for a core. Latencies are the fastest of 10
repeats; the tuners rank configs by their mean measured cost, as TVM's do.

    python benchmarks/tuning.py --checkpoints 8 16     # a few minutes
    python benchmarks/tuning.py --checkpoints 64 200 --kernels bert_dense matmul_512

Zen 5 (one core's FMA peak measured 266-269 GFLOP/s), load 8-10 on 2 cores; GFLOP/s (share
of the peak) of the default and of the best after 64 trials, model / random search:

    bert_dense   default 191.9 (71 %)  xgb 211.0 (78 %)  random 194.4 (72 %)
    matmul_512   default 182.0 (68 %)  xgb 237.9 (88 %)  random 244.4 (91 %)
    odd_7x13     default 222.9 (83 %)  xgb 217.9 (81 %)  random 196.0 (73 %)
    attention    default  98.9 (37 %)  xgb 106.3 (40 %)  random 102.6 (39 %)   (unpacked)
                 after 200:            xgb 108.0 (41 %)  random  97.7 (37 %)

attention since its second operand is packed (another run, peak 273.0, load 6-7):

    attention    default 241.5 (88 %)  xgb 230.7 (85 %)  random 228.5 (84 %)
                 after 200:            xgb 233.2 (85 %)  random 232.4 (85 %)

After 200 model trials (another run): bert_dense 203.7 (76 %), matmul_512 239.6 (88 %),
odd_7x13 216.5 (80 %, default 225.2: the same within noise); 185, 166 and 170 of the 200
configs measured, the others' code identical to one measured; 27, 39 and 55 trials a minute.

Attention's second operand is read transposed (q @ k^T, y [b, n, k]). Unpacked, its tile
vectorized k and every output ended in a horizontal sum: about 40 % of the peak at best (the
model reached random's 200-trial best at trial 20, random never the model's). Now the default
schedule copies it transposed, one [k, 32] panel per column block (`packs_transposed`, the
templates' `pack` knob), and the tile vectorizes n as matmul's does: the default is the
space's best region (both tuners' bests are its 8 x 32 tile with 2 or 1 k steps unrolled
instead of 4; their re-checks chose them over the default in interleaved pairs, yet timed
again above they are 3-4 % slower: within this machine's noise, no knob beats the default by
more). Random search matched the model's 200-trial best after 25 trials. 202 trials each:
xgb 152 measured in 149 s, random 191 in 458 s.
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
    "matmul_512": ("matmul.llvm", (512, 512, 512)),
    "odd_7x13": ("matmul.llvm", (98, 96, 104)),
    "conv_nhwc": (
        "conv2d_nhwc.llvm",
        ((1, 28, 28, 64), (3, 3, 64, 64), (1, 1), (1, 1, 1, 1), (1, 1), "HWIO"),
    ),
}
DEFAULT_KERNELS = ("bert_dense", "attention", "matmul_512", "odd_7x13")
FMA_LOOP = """
typedef float v16 __attribute__((vector_size(64)));
float fma_loop(long n, float x, float y) {  /* 2 * 16 lanes * 16 chains * n flop */
  v16 acc[16];
  for (int i = 0; i < 16; i++) acc[i] = (v16){} + (float)i;
  v16 vx = (v16){} + x, vy = (v16){} + y;
  for (long k = 0; k < n; k++) {
#pragma GCC unroll 16
    for (int i = 0; i < 16; i++) acc[i] = acc[i] * vx + vy;
  }
  v16 s = acc[0];
  for (int i = 1; i < 16; i++) s += acc[i];
  float r = 0;
  for (int i = 0; i < 16; i++) r += s[i];
  return r;
}
"""


def fma_peak(clock: str) -> float:
    """GFLOP/s of one core running independent FMA chains (the fastest of 200 runs)."""
    import ctypes
    import subprocess

    from xtvm.runtime.module import time_function

    directory = Path(tempfile.mkdtemp(prefix="xtvm-fma-"))
    (directory / "fma.c").write_text(FMA_LOOP)
    flags = ["-O2", "-march=native", "-ffp-contract=fast", "-fPIC", "-shared"]
    subprocess.run(
        [os.environ.get("CC", "gcc"), *flags, "-o", str(directory / "fma.so"), "fma.c"],
        cwd=directory,
        check=True,
    )
    loop = ctypes.CDLL(str(directory / "fma.so")).fma_loop
    loop.restype, loop.argtypes = ctypes.c_float, [ctypes.c_long, ctypes.c_float, ctypes.c_float]
    n = 100_000
    seconds = min(time_function(lambda: loop(n, 0.999999, 1e-7), 1, 200, 0, clock).results)
    return 2 * 16 * 16 * n / seconds / 1e9


def reference(name: str, args: tuple[Any, ...], arrays: list[np.ndarray]) -> np.ndarray | None:
    if name == "matmul.llvm":
        return arrays[0] @ arrays[1]
    if name == "batch_matmul.llvm":
        return arrays[0] @ arrays[1].transpose(0, 2, 1)
    return None


def latency(task: Any, number: int, clock: str) -> float:
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
    timer = f.time_evaluator(f.entry_name, number=number, repeat=10, clock=clock)
    return min(timer(*arrays).results)


def tune(
    task: Any, tuner_name: str, trials: int, log: Path, seed: int, clock: str
) -> tuple[Any, float]:
    from xtvm import autotvm

    if tuner_name == "xgb":
        tuner = autotvm.XGBTuner(task, plan_size=8, seed=seed)
    else:
        tuner = autotvm.RandomTuner(task, seed=seed)
    option = autotvm.measure_option(
        builder=autotvm.LocalBuilder(timeout=30),
        runner=autotvm.LocalRunner(number=3, repeat=2, timeout=30, clock=clock),
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


def best_so_far(records: list[Any]) -> list[float]:
    """The least mean cost among the first n records, for each n."""
    from xtvm.tuning.record import cost_of

    curve, best = [], float("inf")
    for _, result in records:
        best = min(best, cost_of(result))
        curve.append(best)
    return curve


def trials_to_reach(curve: list[float], goal: float) -> str:
    found = next((n + 1 for n, cost in enumerate(curve) if cost <= goal), None)
    return str(found) if found is not None else f">{len(curve)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoints", type=int, nargs="+", default=(8, 16))
    parser.add_argument("--kernels", nargs="+", choices=KERNELS, default=DEFAULT_KERNELS)
    parser.add_argument("--tuners", nargs="+", choices=("xgb", "random"), default=("xgb", "random"))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()
    os.environ["XTVM_NUM_THREADS"] = str(options.threads)  # before the runtime starts
    from xtvm import autotvm

    clock = "thread" if options.threads == 1 else "wall"
    checkpoints = sorted(options.checkpoints)
    trials = checkpoints[-1]
    peak = fma_peak(clock)
    print(f"FMA peak of one core: {peak:.1f} GFLOP/s ({clock} clock)")
    rows = []
    directory = Path(tempfile.mkdtemp(prefix="xtvm-tuning-"))
    for kernel in options.kernels:
        name, args = KERNELS[kernel]
        task = autotvm.task.create(name, args=args, target="llvm")
        row: dict[str, Any] = {"kernel": kernel, "space": len(task.config_space)}
        row["flop"], row["default"] = task.flop, latency(task, 10, clock)
        for tuner_name in options.tuners:
            log = directory / f"{kernel}.{tuner_name}.json"
            tuner, wall = tune(task, tuner_name, trials, log, options.seed, clock)
            records = list(autotvm.record.load_from_file(log))
            tuned = []
            for checkpoint in checkpoints:
                with autotvm.apply_history_best(records[:checkpoint]):
                    tuned.append(latency(task, 10, clock))
            measured = sum(r.duplicate_of is None for _, r in records)
            row[tuner_name] = (tuned, len(records), wall, measured, tuner.best_config, records)
        rows.append(row)

    def cells(flop: float, seconds: float) -> str:
        rate = flop / seconds / 1e9
        return f"{seconds * 1e3:>8.3f} {rate:>7.1f} {rate / peak:>5.0%}"

    print(f"\nthreads={options.threads}, FMA peak {peak:.1f} GFLOP/s, checkpoints {checkpoints}")
    for row in rows:
        print(f"{row['kernel']} (space {row['space']}):")
        print(f"  {'':<16} {'ms':>8} {'GFLOP/s':>7} {'peak':>5}")
        print(f"  {'default':<16} {cells(row['flop'], row['default'])}")
        for tuner_name in options.tuners:
            tuned, done, wall, measured, _, _ = row[tuner_name]
            for checkpoint, seconds in zip(checkpoints, tuned, strict=True):
                print(f"  {f'{tuner_name} @{checkpoint}':<16} {cells(row['flop'], seconds)}")
            print(
                f"  {tuner_name}: {done} trials ({measured} measured) in {wall:.0f} s, "
                f"{done * 60 / wall:.1f} trials/min"
            )
        if {"xgb", "random"} <= set(options.tuners):
            model, rand = (best_so_far(row[t][5]) for t in ("xgb", "random"))
            print(
                f"  random search reaches the model's best after {trials_to_reach(rand, model[-1])}"
                f" trials; the model reaches random's best after {trials_to_reach(model, rand[-1])}"
            )
    for row in rows:
        for tuner_name in options.tuners:
            print(f"{row['kernel']} {tuner_name} best: {row[tuner_name][4]}")


if __name__ == "__main__":
    main()
