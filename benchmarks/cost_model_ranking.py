"""How well each cost model ranks measured candidates it was not trained on; never asserted.

A live search comparison (`auto_scheduler.py --compare`) is one trajectory per model, timed on
a shared machine. This replays the records of such runs instead: for each of `--splits`
random splits, `XGBModel` with per-kernel features (`feature="kernel"`: tir features of the
kernel and its tile sizes) and with per-store features (`"store"`, Ansor's: a row per buffer
store, scores summed) is fit on `--train` measured candidates and ranks the others. Printed:
the mean Spearman correlation of score and throughput, and the best throughput among the 8
ranked first over the best of the held-out candidates (1.0: the model's top 8 hold the best).

    python benchmarks/auto_scheduler.py --compare --workloads odd_7x13   # prints its log folder
    python benchmarks/cost_model_ranking.py /tmp/tmpXXXX/bench_matmul-*.json

matmul 98x104x96, 383 candidates of one compare run (load 9), 64 to train, 6 splits:
kernel features 0.74 / 0.89, store features 0.69 / 0.67.
"""

from __future__ import annotations

import argparse
import math
import random

import auto_scheduler as benchmark_workloads  # noqa: F401  (registers its workloads)
import numpy as np

from xtvm import auto_scheduler
from xtvm.tuning.auto_scheduler.measure_record import cost_of
from xtvm.tuning.auto_scheduler.sketch import decode


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Rank correlation (ties broken by position)."""
    return float(np.corrcoef(np.argsort(np.argsort(a)), np.argsort(np.argsort(b)))[0, 1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("logs", nargs="+", help="records of one workload")
    parser.add_argument("--train", type=int, default=64)
    parser.add_argument("--splits", type=int, default=6)
    options = parser.parse_args()
    costs_of: dict = {}
    for log in options.logs:
        for inp, result in auto_scheduler.load_records(log):
            if not inp.state.is_default and math.isfinite(cost_of(result)):
                costs_of[inp.state] = (inp.workload_key, cost_of(result))
    keys = {key for key, _ in costs_of.values()}
    if len(keys) != 1:
        raise SystemExit(f"the logs hold {len(keys)} workloads; give the records of one")
    task = auto_scheduler.SearchTask(workload_key=keys.pop())
    sketches = auto_scheduler.SketchPolicy(task, program_cost_model="random", verbose=0).sketches
    found = [(decode(s, sketches), cost) for s, (_, cost) in costs_of.items()]
    candidates = [c for c, _ in found if c is not None]
    costs = np.array([cost for c, cost in found if c is not None])
    if len(candidates) <= options.train:
        raise SystemExit(f"{len(candidates)} candidates: fewer than --train {options.train}")
    print(f"{len(candidates)} candidates, {options.train} to train, {options.splits} splits")
    for feature in ("kernel", "store"):
        model = auto_scheduler.XGBModel(feature=feature).attach(task, sketches)
        model.features(candidates)  # cached once for all splits
        scores = []
        for seed in range(options.splits):
            order = list(range(len(candidates)))
            random.Random(seed).shuffle(order)
            train, test = order[: options.train], order[options.train :]
            split = auto_scheduler.XGBModel(seed=seed, feature=feature).attach(task, sketches)
            split._features = model._features
            split.update([candidates[k] for k in train], list(costs[train]))
            predicted = split.trees.predict(split.features([candidates[k] for k in test]))
            top = np.argsort(-predicted)[:8]
            scores.append(
                (
                    spearman(predicted, -costs[test]),
                    costs[test].min() / costs[test][top].min(),
                )
            )
        rho, top8 = np.mean(scores, axis=0)
        print(f"{feature:7} spearman {rho:.3f}   best of top 8 / best {top8:.3f}")


if __name__ == "__main__":
    main()
