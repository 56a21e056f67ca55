"""One cost model shared by a model's tasks against a model per task (TaskScheduler, 1 thread);
never asserted.

`--kernels` conv2d kernels of a light model (those with the fewest flop, to stay short) are
tuned by `TaskScheduler` twice, with `search_policy="sketch.xgb.shared"` (one `SharedModel` for
all tasks, each task's first round ranked by it) and `"sketch.xgb.per_task"` (each task's own
model: a random first round). After each trial the model's estimated time is the weighted sum of
each task's best searched candidate so far (the default schedules, measured as the baseline, are
printed beside but left out: on small budgets they win and would hide the search). Printed: that
estimate after each round of trials for both, and how many trials each needs to reach the per-
task models' final estimate.

    python benchmarks/tuning_shared.py squeezenet --kernels 3 --trials 96

squeezenet's three smallest conv2d kernels (_10, _9, _14), 96 trials, 2 shared cores at load
5-7: the estimate after 24/48/96 trials was 0.73/0.67/0.28 ms shared against 0.50/0.33/0.19 ms
per task (the shared model never reached the per-task final 0.19 ms; per task reached it at
trial 92), tuning wall time 144 s against 104 s; the default schedules 0.16 ms. With the shared
trees ranking every round instead: 0.62/0.62/0.51 against 0.63/0.45/0.40 ms. So the shared model
is opt-in, not `TaskScheduler`'s default. (Both runs then seeded first rounds near the default
schedule; paired first rounds without that seeding found 1.5x faster candidates, so it is off.)
"""

from __future__ import annotations

import os

os.environ.setdefault("XTVM_NUM_THREADS", "1")  # before xtvm starts any thread pool

import argparse
import math
import time
from collections.abc import Sequence

from models import light_model

POLICIES = ("sketch.xgb.shared", "sketch.xgb.per_task")


def curve(events: Sequence[tuple[str, bool, float]], weights: dict[str, float]) -> list[float]:
    """The estimated time of the tasks' searched schedules after each trial (infinite until
    every task has one): the weighted sum of each task's best candidate so far."""
    best = {key: math.inf for key in weights}
    found = []
    for key, is_default, cost in events:
        if not is_default:
            best[key] = min(best[key], cost)
            found.append(sum(weights[k] * best[k] for k in weights))
    return found


def main() -> None:
    from xtvm import auto_scheduler
    from xtvm.api.relay.frontend import from_onnx
    from xtvm.tuning.auto_scheduler.measure_record import cost_of

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", nargs="?", default="squeezenet", help="an ONNX light model")
    parser.add_argument("--kernels", type=int, default=3, help="tasks to tune")
    parser.add_argument("--trials", type=int, default=48, help="measurements per policy")
    parser.add_argument("--per-round", type=int, default=8, help="measurements per task round")
    options = parser.parse_args()

    model, data, x = light_model(options.model)
    mod, params = from_onnx(model, {data: x.shape})
    tasks, weights = auto_scheduler.extract_tasks(mod, params, "llvm")
    convs = [k for k in range(len(tasks)) if "conv2d" in tasks[k].desc]
    chosen = sorted(convs, key=lambda k: tasks[k].compute_dag.flop_ct)
    chosen = chosen[: options.kernels]
    tasks, weights = [tasks[k] for k in chosen], [weights[k] for k in chosen]
    by_key = {t.workload_key: w for t, w in zip(tasks, weights, strict=True)}
    runs = {}
    for policy in POLICIES:
        events: list[tuple[str, bool, float]] = []

        def note(_: object, inputs: Sequence, results: Sequence, events: list = events) -> None:
            for inp, result in zip(inputs, results, strict=True):
                cost = cost_of(result)
                events.append((inp.workload_key, inp.state.is_default, cost))

        start = time.perf_counter()
        auto_scheduler.TaskScheduler(tasks, weights).tune(
            auto_scheduler.TuningOptions(
                num_measure_trials=options.trials,
                num_measures_per_round=options.per_round,
                runner=auto_scheduler.LocalRunner(number=3, repeat=2, min_repeat_ms=50),
                measure_callbacks=[note],
                verbose=0,
            ),
            policy,
        )
        runs[policy] = events
        print(f"{policy}: {time.perf_counter() - start:.0f} s")
    default = {key: math.inf for key in by_key}  # the faster of the two runs' baselines
    for key, is_default, cost in [e for events in runs.values() for e in events]:
        if is_default:
            default[key] = min(default[key], cost)
    curves = {policy: curve(runs[policy], by_key) for policy in POLICIES}
    print(f"default schedules: {sum(w * default[k] for k, w in by_key.items()) * 1e3:.4f} ms")
    print(f"{len(tasks)} tasks: " + ", ".join(t.desc for t in tasks))
    print(f"{'trials':>6} " + " ".join(f"{p + ' ms':>22}" for p in POLICIES))
    for n in range(options.per_round, options.trials + 1, options.per_round):
        row = [curves[p][n - 1] * 1e3 if len(curves[p]) >= n else math.nan for p in POLICIES]
        print(f"{n:6} " + " ".join(f"{v:22.4f}" for v in row))
    goal = curves[POLICIES[1]][-1]
    for policy in POLICIES:
        reached = next((n + 1 for n, v in enumerate(curves[policy]) if v <= goal), None)
        print(f"{policy}: trials to reach the per-task final {goal * 1e3:.4f} ms: {reached}")


if __name__ == "__main__":
    main()
