"""XGBTuner's cost model against random search, replayed on measured records; never asserted.

A live comparison (`tuning.py`) is one trajectory per tuner, timed on a shared machine. This
replays the records of such runs instead (`tuning.py` prints where its logs are): the space
is the configs the records measured, each costing what it measured (its mean, as the tuners
rank), and for each of `--seeds` seeds XGBTuner (each `--features` type, `--loss` and
`--pools` size: the unmeasured configs it ranks, all or a sample) and random search take
configs from it one plan at a time. Printed for each: the mean number of
trials to reach the best config of the records, and to come within 5 % of it.

    python benchmarks/autotvm_replay.py /tmp/xtvm-tuning-XXXX/attention.*.json

Attention's batch_matmul, 215 configs (a tuning.py run's 200 XGBTuner trials and 30 random),
3 seeds, mean trials to the best / to within 5 % of it: random 149 / 75; tir features, rank
loss, every unmeasured config ranked 29 / 23, a sample of 64 ranked 34 / 26; knob features
34 / 32 and 39 / 38; tir+knob the same as tir. The set is biased to what the model chose.
"""

from __future__ import annotations

import argparse
import math
import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from xtvm import autotvm
from xtvm.tuning.measure import MeasureInput, MeasureResult
from xtvm.tuning.record import cost_of


class ReplayTuner(autotvm.XGBTuner):
    """XGBTuner whose pool is the replayed configs not measured yet: all of them, or a
    random `sample` of them (as XGBTuner samples a large space)."""

    def __init__(
        self, task: Any, known: Sequence[int], sample: int | None = None, **kwargs: Any
    ) -> None:
        super().__init__(task, **kwargs)
        self.known = list(known)
        self.sample = sample

    def pool(self) -> list[int]:
        left = [i for i in self.known if i not in self.visited]
        if self.sample is None or len(left) <= self.sample:
            return left
        return sorted(self.rng.sample(left, self.sample))

    def has_next(self) -> bool:
        return any(i not in self.visited for i in self.known)


def replay(tuner: Any, costs: dict[int, float], limit: int) -> list[float]:
    """The best cost after each trial of `tuner` on the replayed configs."""
    curve: list[float] = []
    best = math.inf
    while len(curve) < limit and tuner.has_next():
        configs = tuner.next_batch(1)
        if not configs:
            break
        inputs = [MeasureInput("llvm", tuner.task, c) for c in configs]
        results = [MeasureResult([costs[c.index]], 0, 0.0, 0.0) for c in configs]
        for inp, result in zip(inputs, results, strict=True):
            tuner.note(inp, result)
            best = min(best, costs[inp.config.index])
            curve.append(best)
        tuner.update(inputs, results)
    return curve


def trials_to(curve: list[float], goal: float) -> int:
    return next((n + 1 for n, c in enumerate(curve) if c <= goal), len(curve) + 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("logs", nargs="+", help="autotvm records of one task")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--plan-size", type=int, default=8)
    parser.add_argument("--features", nargs="+", default=["tir", "knob", "tir+knob"])
    parser.add_argument("--loss", nargs="+", default=["rank"])
    parser.add_argument(
        "--pools", nargs="+", type=int, default=[0, 64], help="pool sizes (0: all unmeasured)"
    )
    options = parser.parse_args()
    costs: dict[int, float] = {}
    task = None
    for log in options.logs:
        for inp, result in autotvm.record.load_from_file(log):
            if task is None:
                task = autotvm.task.create(inp.task.name, args=inp.task.args, target="llvm")
            if inp.task.workload != task.workload:
                raise SystemExit("the logs hold several tasks; give the records of one")
            cost = cost_of(result)
            costs[inp.config.index] = min(costs.get(inp.config.index, math.inf), cost)
    if task is None:
        raise SystemExit("no records")
    known = sorted(costs)
    best = min(costs.values())
    print(f"{task.name}: {len(known)} measured configs, best {best * 1e3:.4f} ms")
    rows: dict[str, list[tuple[int, int]]] = {}
    for seed in range(options.seeds):
        order = random.Random(seed).sample(known, len(known))
        curve = list(np.minimum.accumulate([costs[i] for i in order]))
        found = (trials_to(curve, best), trials_to(curve, best * 1.05))
        rows.setdefault("random", []).append(found)
        for feature in options.features:
            for loss in options.loss:
                for pool in options.pools:
                    tuner = ReplayTuner(
                        task,
                        known,
                        pool or None,
                        plan_size=options.plan_size,
                        feature_type=feature,
                        loss_type=loss,
                        seed=seed,
                    )
                    curve = replay(tuner, costs, len(known))
                    rows.setdefault(f"xgb {feature} {loss} {pool or 'all'}", []).append(
                        (trials_to(curve, best), trials_to(curve, best * 1.05))
                    )
    print(f"{'tuner':<26} {'to best':>8} {'to 5 %':>7}  (mean trials of {options.seeds} seeds)")
    for name, found in rows.items():
        to_best = np.mean([f[0] for f in found])
        within = np.mean([f[1] for f in found])
        print(f"{name:<26} {to_best:>8.1f} {within:>7.1f}")


if __name__ == "__main__":
    main()
