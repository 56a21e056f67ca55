"""Tuning several tasks together: trials go where they are expected to pay most.

`TaskScheduler(tasks, task_weights).tune(options)` measures the default schedule of each relay
kernel, then each round of `num_measures_per_round` trials goes to the task whose weighted best
cost is expected to fall fastest (TVM's gradient strategy): the recent fall of its best cost per
round (over `backward_window_size` rounds) blended with an optimistic guess that the best keeps
improving as 1/rounds, times its weight; with probability `eps_greedy` a random task instead.
A task with no cost yet goes first. Unlike TVM, a task whose default was measured gets no
warm-up round: the kernels that hold most of a model's time get the trials (a round of 8
random trials on every one of squeezenet's 22 kernels spent most of a 300-trial budget and
rarely beat a default). At the end, each task whose search beat its default measures both
again side by side (`_verify`), so that a lucky measurement on a loaded machine does not
replace a default that is as fast.
Each task has its own cost model (`search_policy="default"`, `"sketch.xgb"` or
`"sketch.xgb.per_task"`, `"sketch.xgb.kernel"`; `"sketch.xgb.store"` ranks by per-store features
summed, as Ansor does); `"sketch.xgb.shared"` trains one `SharedModel` of the tir features on
all tasks' candidates (as TVM's task scheduler shares its model), so that a task's first round
is ranked by what the others measured, but on squeezenet's conv2d kernels it found slower
kernels in the same trials; `"sketch.random"` is random search. `load_log_file` resumes: its
records of the tasks set their best costs and trial counts (which count toward
`num_measure_trials`, as TVM's do) and are never measured again.
"""

from __future__ import annotations

import math
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from xtvm.tuning.auto_scheduler.cost_model import SharedModel, XGBModel
from xtvm.tuning.auto_scheduler.loop_state import DEFAULT_STATE
from xtvm.tuning.auto_scheduler.measure_record import cost_of, records_of
from xtvm.tuning.auto_scheduler.search_policy import SketchPolicy
from xtvm.tuning.auto_scheduler.search_task import SearchTask, TuningOptions

# `tune(search_policy=)`: TVM's names, and per-task models to compare the shared one with
# (per-task models are the default: on squeezenet's conv2d kernels the shared one found slower
# kernels in the same trials, benchmarks/tuning_shared.py)
POLICIES = {
    "default": "per_task",
    "sketch.xgb": "per_task",
    "sketch.xgb.per_task": "per_task",
    "sketch.xgb.shared": "shared",
    "sketch.xgb.kernel": "per_task",
    "sketch.xgb.store": "store",
    "sketch.random": "random",
}


class TaskScheduler:
    def __init__(
        self,
        tasks: Sequence[SearchTask],
        task_weights: Sequence[float] | None = None,
        strategy: str = "gradient",
        load_log_file: str | Path | None = None,
        alpha: float = 0.2,
        backward_window_size: int = 3,
        eps_greedy: float = 0.05,
        seed: int = 0,
    ) -> None:
        if strategy not in ("gradient", "round-robin"):
            raise ValueError(f"unknown strategy '{strategy}' (gradient, round-robin)")
        self.tasks = list(tasks)
        self.task_weights = list(task_weights or [1.0] * len(self.tasks))
        self.strategy = strategy
        self.load_log_file = load_log_file
        self.alpha = alpha
        self.window = backward_window_size
        self.eps_greedy = eps_greedy
        self.rng = random.Random(seed)
        self.task_cts = [0] * len(self.tasks)  # trials of each task
        self.best_costs = [math.inf] * len(self.tasks)
        self.history: list[list[float]] = [[] for _ in self.tasks]  # best cost after each round
        self.ct = 0
        self.policies: list[SketchPolicy] = []

    def _restore(self, per_round: int) -> None:
        """Records of the tasks in `load_log_file`: best costs, trial counts, no re-measuring."""
        if self.load_log_file is None:
            return
        for k, task in enumerate(self.tasks):
            records = records_of(self.load_log_file, task.workload_key, task.target)
            if not records:
                continue
            self.policies[k].preload(records)
            # not the baseline, nor a re-check against it
            trials = sum(not inp.state.is_default and not r.verdict for inp, r in records)
            self.policies[k].trials = trials
            self.task_cts[k] = trials
            self.ct += trials
            costs = [cost_of(r) for _, r in records]
            for start in range(0, len(costs), per_round):
                best = min([self.best_costs[k], *costs[start : start + per_round]])
                self.best_costs[k] = best
                self.history[k].append(best)

    def _tune_task(self, k: int, per_round: int, options: TuningOptions, measurer: object) -> None:
        policy = self.policies[k]
        count = min(per_round, options.num_measure_trials - self.ct)
        inputs, results = policy.continue_search_one_round(count, measurer)  # type: ignore[arg-type]
        if not inputs:
            self.history[k].append(self.best_costs[k])
            self.exhausted.add(k)
            return
        self.task_cts[k] += len(inputs)
        self.ct += len(inputs)
        self.best_costs[k] = min([self.best_costs[k], *(cost_of(r) for r in results)])
        self.history[k].append(self.best_costs[k])

    def _verify(self, measurer: object) -> None:
        """Re-check the searched best of each task against its default schedule
        (`ProgramMeasurer.recheck`: interleaved pairs, the decision recorded as the chosen
        record that `ApplyHistoryBest` applies)."""
        for k, policy in enumerate(self.policies):
            if DEFAULT_STATE not in policy.measured:
                continue
            chosen = measurer.recheck(policy.task, policy)  # type: ignore[attr-defined]
            if chosen is not None and chosen.is_default:  # the default stays
                policy.best_state, policy.best_cost = DEFAULT_STATE, policy.measured[DEFAULT_STATE]
            self.best_costs[k] = policy.best_cost

    def _gradient(self, k: int) -> float:
        """How fast the weighted best cost of task k is expected to fall (negative is good)."""
        history, best = self.history[k], self.best_costs[k]
        if not math.isfinite(best):
            return -math.inf  # nothing works yet: try it again
        window = min(self.window, len(history) - 1)
        earlier = history[-1 - window] if window > 0 else best
        backward = (best - earlier) / window if window > 0 and math.isfinite(earlier) else 0.0
        forward = -best / (len(history) + 1)  # the best going as 1 / rounds
        return self.task_weights[k] * (self.alpha * backward + (1 - self.alpha) * forward)

    def _pick(self) -> int:
        live = [k for k in range(len(self.tasks)) if k not in self.exhausted]
        if self.strategy == "round-robin":
            return min(live, key=lambda k: (len(self.history[k]), k))
        if self.rng.random() < self.eps_greedy:
            return self.rng.choice(live)
        return min(live, key=lambda k: (self._gradient(k), k))

    def tune(
        self,
        tune_option: TuningOptions,
        search_policy: str = "default",
        time_budget_s: float | None = None,
    ) -> None:
        """Tune until `num_measure_trials` are measured (or, with `time_budget_s`, until no
        round starts after that many seconds), then verify the winners against defaults."""
        per_round = max(
            1,
            min(
                tune_option.num_measures_per_round,
                tune_option.num_measure_trials // max(1, len(self.tasks)),
            ),
        )
        if search_policy not in POLICIES:
            raise ValueError(f"unknown search policy '{search_policy}' ({', '.join(POLICIES)})")
        self.cost_model = SharedModel() if POLICIES[search_policy] == "shared" else None

        def model(k: int) -> object:
            if POLICIES[search_policy] == "random":
                return "random"
            if POLICIES[search_policy] == "store":
                return XGBModel(seed=k, feature="store")
            return XGBModel(seed=k, shared=self.cost_model)

        self.policies = [
            SketchPolicy(task, program_cost_model=model(k), seed=k, verbose=tune_option.verbose)
            for k, task in enumerate(self.tasks)
        ]
        self.exhausted: set[int] = set()
        self._restore(per_round)
        measurer = tune_option.measurer()
        try:
            for k, policy in enumerate(self.policies):  # the baselines of relay kernels
                policy.measure_default(measurer)
                self.best_costs[k] = min(self.best_costs[k], policy.best_cost)
            # no warm-up round for every task: a task without a measured cost (no default
            # schedule, nothing in the log) has an infinite gradient and goes first anyway, and
            # one with a measured default waits its turn by its share of the model's time
            deadline = math.inf if time_budget_s is None else time.monotonic() + time_budget_s
            while (
                self.ct < tune_option.num_measure_trials
                and len(self.exhausted) < len(self.tasks)
                and time.monotonic() < deadline
            ):
                self._tune_task(self._pick(), per_round, tune_option, measurer)
            self._verify(measurer)
        finally:
            measurer.close()
        if tune_option.verbose:
            for k, task in enumerate(self.tasks):
                sys.stdout.write(
                    f"task {k} {task.desc}: {self.task_cts[k]} trials, best "
                    f"{self.best_costs[k] * 1e3:.4f} ms\n"
                )
