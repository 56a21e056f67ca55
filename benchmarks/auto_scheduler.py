"""Default schedules vs auto-scheduled ones (`auto_scheduler`, no templates); never asserted.

Workloads (`--workloads`): a 512^3 matmul, a 3x3 conv2d + relu (1x64x56x56, 64 filters), and
the kernels of benchmarks/tuning.py (BERT's 128x3072x768 dense, attention's 12x128x64x128
scores, a 98x104x96 matmul whose only whole tiles are 7 x 13), built from topi's computes. Per
workload: the schedule with no primitives (`naive`), topi's default CPU schedule (`cpu_dense`,
`cpu_conv2d`, what `relay.build` uses), and the best of `--trials` candidates the
auto-scheduler measured, in GFLOP/s, all timed in this process at the threads of
`XTVM_NUM_THREADS` (1 unless set; the candidates were measured at the same count).

Run as `python benchmarks/auto_scheduler.py --trials 64`.

`--compare` instead searches each workload with the cost model on per-store features
(`store`, Ansor's), on per-kernel features (`kernel`, the default) and with none (random
search, given `--random-factor` x the trials), and prints the best GFLOP/s after 64, `--trials`
and all trials, the trial at which random search reached each model's best after `--trials`
(`-`: never, in twice the trials), the trial at which each reached random search's final best,
and the share of the FMA peak of one core (276 GFLOP/s, measured; see PEAK_GFLOPS).

On 2 shared cores at load 9-14 (all figures deflated several times by the load: the default
dense schedule timed 18 GFLOP/s), 1 thread, 100 trials per model search, 200 for random:

    workload                 search    @64   @100  random reaches it at  reaches random best at
    matmul 98x104x96 (7x13)  store   10.82  12.01                    15                       -
    matmul 98x104x96 (7x13)  kernel  29.91  29.91                     -                      44
    matmul 98x104x96 (7x13)  random  20.18  24.54                                            69
    attention 12x128x64x128  store   15.49  20.46                     1                       -
    attention 12x128x64x128  kernel  37.12  44.68                   116                       -
    attention 12x128x64x128  random  41.81  41.81                                           130

On the 7x13 matmul the per-kernel model found in 44 trials what random search found in 200,
and random search never reached the model's best (the 2x goal met); on attention random
search reached the model's 100-trial best at trial 116 (1.16x, goal not met; its first
candidate was already at 21 GFLOP/s) and ended 10 % above it. The per-store model learned
(its median candidate rose from 1.8 to 12.5 GFLOP/s over the run, the per-kernel one's from
1.0 to 25) but more slowly, and did worse than random search on both. Ranking held-out
measured candidates (benchmarks/cost_model_ranking.py) agrees: per-kernel features rank them
better (Spearman 0.74 against 0.69). The per-kernel model stays
the default; per-store features are `program_cost_model="xgb.store"`. 200 trials of the BERT
dense at that load gave 17.3 GFLOP/s against the default schedule's 18.1 (0.96x).

Earlier, at load about 5, 96 trials per search:

    workload                    search  best GFLOP/s  found at  matches other at
    matmul 512^3                xgb           237.65        36                19
    matmul 512^3                random         86.42        88                 -
    conv2d+relu 1x64x56x56 k3   xgb           100.31        67                50
    conv2d+relu 1x64x56x56 k3   random         61.16        24                 -
"""

from __future__ import annotations

import os

os.environ.setdefault("XTVM_NUM_THREADS", "1")  # before xtvm starts any thread pool

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import xtvm as tvm
from xtvm import auto_scheduler, te
from xtvm.topi import nn
from xtvm.topi.schedule import cpu_conv2d, cpu_dense


@auto_scheduler.register_workload
def bench_matmul(n: int, m: int, k: int) -> list[te.Tensor]:
    a = te.placeholder((n, k), name="A")
    b = te.placeholder((k, m), name="B")
    return [a, b, nn.matmul(a, b, False, False)]


@auto_scheduler.register_workload
def bench_conv2d_relu(n: int, c: int, size: int, f: int, ks: int) -> list[te.Tensor]:
    data = te.placeholder((n, c, size, size), name="data")
    kernel = te.placeholder((f, c, ks, ks), name="kernel")
    p = ks // 2
    conv = nn.conv2d(data, kernel, (1, 1), (p, p, p, p), (1, 1), 1)
    relu = te.compute(conv.shape, lambda *i: te.max(conv(*i), te.const(0.0, "float32")), "relu")
    return [data, kernel, relu]


@auto_scheduler.register_workload
def bench_batch_matmul_nt(batch: int, n: int, k: int, m: int) -> list[te.Tensor]:
    """Attention's scores: q (batch, n, k) by k transposed (batch, m, k)."""
    q = te.placeholder((batch, n, k), name="Q")
    key = te.placeholder((batch, m, k), name="K")
    r = te.reduce_axis((0, k), name="r")
    scores = te.compute(
        (batch, n, m), lambda b, i, j: te.sum(q[b, i, r] * key[b, j, r], axis=r), name="S"
    )
    return [q, key, scores]


# name: (description, workload, arguments, topi's default schedule, its stage); the kernels
# of benchmarks/tuning.py (BERT's feed-forward product, attention's scores, a matmul whose only
# whole tiles are 7 x 13) and this benchmark's first two
WORKLOADS = {
    "matmul": ("matmul 512^3", bench_matmul, (512, 512, 512), cpu_dense, 0),
    "conv2d": ("conv2d+relu 1x64x56x56 k3", bench_conv2d_relu, (1, 64, 56, 64, 3), cpu_conv2d, 1),
    "bert_dense": ("bert dense 128x3072x768", bench_matmul, (128, 3072, 768), cpu_dense, 0),
    "attention": ("attention 12x128x64x128", bench_batch_matmul_nt, (12, 128, 64, 128), None, 0),
    "odd_7x13": ("matmul 98x104x96 (7x13)", bench_matmul, (98, 104, 96), cpu_dense, 0),
}


def seconds(s: te.Schedule, tensors: list[te.Tensor], number: int) -> float:
    f = tvm.build(s, tensors, target="llvm")
    rng = np.random.default_rng(0)
    arrays = [rng.uniform(-1, 1, [int(d) for d in t.shape]).astype("float32") for t in tensors]
    f(*arrays)
    return f.time_evaluator(f.entry_name, number=number, repeat=3)(*arrays).median


def default_schedule(
    tensors: list[te.Tensor], schedule: Callable[[te.Schedule, te.Tensor], None], stage: int
) -> te.Schedule:
    """topi's schedule of the workload's reduction (`stage`: its index among the tensors'
    stages), the elementwise tail fused in as relay.build has it."""
    s = te.create_schedule(tensors[-1].op)
    schedule(s, s.stages[stage].op.output(0))
    return s


def tuning_options(
    options: argparse.Namespace, log: Path, verbose: int = 1, trials: int | None = None
) -> auto_scheduler.TuningOptions:
    return auto_scheduler.TuningOptions(
        num_measure_trials=trials or options.trials,
        num_measures_per_round=options.per_round,
        runner=auto_scheduler.LocalRunner(number=3, repeat=2, timeout=20),
        measure_callbacks=[auto_scheduler.RecordToFile(log)],
        verbose=verbose,
    )


def running_best(log: Path, skip_default: bool = False) -> list[float]:
    """The best cost after each measured trial of a log (not counting the default schedule
    with `skip_default`)."""
    best, found = float("inf"), []
    for inp, result in auto_scheduler.load_records(log):
        if skip_default and inp.state.is_default:
            continue
        best = min(best, auto_scheduler.measure_record.cost_of(result))
        found.append(best)
    return found


def trials_to(curve: list[float], cost: float) -> str:
    """The first trial (1-based) whose best is within 1% of `cost`."""
    return next((str(k + 1) for k, c in enumerate(curve) if c <= cost * 1.01), "-")


# fp32 FMA peak of one core of this machine (AMD EPYC, Zen 5: two 512-bit FMA pipes): the best
# of 200 runs of 12 independent vfmadd chains in C (gcc -O3 -march=native), at load 10
PEAK_GFLOPS = 276.0
SEARCHES = {  # --compare: the cost model of each search
    "store": lambda seed: auto_scheduler.XGBModel(seed=seed, feature="store"),
    "kernel": lambda seed: auto_scheduler.XGBModel(seed=seed, feature="kernel"),
    "random": lambda seed: "random",
}


def compare(workloads: list, options: argparse.Namespace, directory: Path) -> None:
    """The cost model on per-store features, on per-kernel features and random search, one
    search after the other on each workload; random search gets `--random-factor` x the
    trials, to see how many it needs for what the models found."""
    threads = os.environ["XTVM_NUM_THREADS"]
    print(f"logs in {directory}", flush=True)
    for name, func, args, *_ in workloads:
        curves = {}
        for search in options.searches:
            trials = options.trials * (options.random_factor if search == "random" else 1)
            task = auto_scheduler.SearchTask(func=func, args=args, target="llvm", desc=name)
            log = directory / f"{func.__name__}-{search}.json"
            start = time.perf_counter()
            model = SEARCHES[search](options.seed)
            task.tune(
                tuning_options(options, log, verbose=0, trials=trials),
                auto_scheduler.SketchPolicy(task, program_cost_model=model, verbose=0),
            )
            curves[search] = (running_best(log, skip_default=True), time.perf_counter() - start)
            print(f"{name} {search}: {trials} trials in {curves[search][1]:.0f} s", flush=True)
        flop = auto_scheduler.SearchTask(func=func, args=args).compute_dag.flop_ct
        factor = options.random_factor
        print(f"\n{options.trials} trials per model search, x{factor} for random search,")
        print(f"{threads} thread(s); GFLOP/s of the best after 64 / {options.trials} / all trials")
        print(
            f"{'workload':28} {'search':7} {'@64':>7} {'@' + str(options.trials):>7} {'all':>7} "
            f"{'random reaches it at':>21} {'reaches random best at':>23} {'tuning s':>9} "
            f"{'% peak':>6}"
        )
        random_curve = curves.get("random", ([], 0))[0]
        for search, (curve, spent) in curves.items():
            at = [curve[min(n, len(curve)) - 1] for n in (64, options.trials, len(curve))]
            own = curve[min(options.trials, len(curve)) - 1]
            reaches = trials_to(random_curve, own) if search != "random" else ""
            matches = trials_to(curve, random_curve[-1]) if random_curve else "-"
            print(
                f"{name:28} {search:7} "
                + " ".join(f"{flop / c / 1e9:7.2f}" for c in at)
                + f" {reaches:>21} {matches:>23} {spent:9.0f}"
                + f" {100 * flop / at[1] / 1e9 / options.peak:6.1f}",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=64, help="candidates measured per workload")
    parser.add_argument("--per-round", type=int, default=16)
    parser.add_argument("--compare", action="store_true", help="cost models vs random search")
    parser.add_argument("--searches", nargs="+", choices=SEARCHES, default=list(SEARCHES))
    parser.add_argument("--random-factor", type=int, default=2, help="random search's trials x")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--peak",
        type=float,
        default=PEAK_GFLOPS,
        help="fp32 FMA peak of one core in GFLOP/s, for the share of it after --trials",
    )
    parser.add_argument("--workloads", nargs="+", choices=WORKLOADS, default=["matmul", "conv2d"])
    options = parser.parse_args()
    directory = Path(tempfile.mkdtemp())
    log = directory / "auto_scheduler.json"
    workloads = [WORKLOADS[w] for w in options.workloads]
    if options.compare:
        compare(workloads, options, directory)
        return
    threads = os.environ["XTVM_NUM_THREADS"]
    rows = []
    for name, func, args, schedule, stage in workloads:
        task = auto_scheduler.SearchTask(func=func, args=args, target="llvm", desc=name)
        flop = task.compute_dag.flop_ct
        start = time.perf_counter()
        task.tune(tuning_options(options, log))
        tuning_s = time.perf_counter() - start
        tensors = func(*args)
        naive = seconds(te.create_schedule(tensors[-1].op), tensors, 1)
        tensors = func(*args)
        default = (  # no topi schedule of its own: nan
            seconds(default_schedule(tensors, schedule, stage), tensors, 10)
            if schedule is not None
            else float("nan")
        )
        tuned = seconds(*task.apply_best(log), 10)
        print(f"best schedule of {name}:")
        task.print_best(log)
        rows.append((name, flop, naive, default, tuned, tuning_s))
    print(f"\n{options.trials} trials per workload, {threads} thread(s)")
    print(
        f"{'workload':28} {'naive':>10} {'topi default':>13} {'auto-scheduled':>15} "
        f"{'vs default':>11} {'tuning s':>9}"
    )
    for name, flop, naive, default, tuned, tuning_s in rows:
        print(
            f"{name:28} {flop / naive / 1e9:10.2f} {flop / default / 1e9:13.2f} "
            f"{flop / tuned / 1e9:15.2f} {default / tuned:10.2f}x {tuning_s:9.0f}"
        )
    print("(GFLOP/s)")


if __name__ == "__main__":
    main()
