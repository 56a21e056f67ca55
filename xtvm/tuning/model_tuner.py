"""Tuning all the kernels of a model with AutoTVM templates, starting from their defaults.

`tune_model(tasks, measure_option=, n_trial=, time_budget_s=, log=, best_log=)` takes the
tasks of `autotvm.task.extract_from_program` (each weighted by its `calls`), measures every
task's default config first (the schedule an untuned build gets), then gives rounds of
`per_round` trials to the task expected to save most of the model's time: the largest
`calls * best cost / (rounds + 1)`, the optimistic part of the auto-scheduler's gradient
(`TaskScheduler`), so that the kernels holding the time get the trials. Each task's tuner
(`NeighbourTuner` by default) searches outward from the default config. After the budget
(trials or seconds) the best config of each task that beat its default is measured again
next to the default (`verify`): the default stays unless its rival wins both side by side
and over all measurements of each, each measurement counting its fastest repeat (load on a
shared machine only adds time to a run). A layer with several implementations (a 3x3
conv2d, direct or winograd: a task each) then has the decided config of each implementation
not built by default measured against that of the default one in interleaved pairs
(`choose_implementations`); only a winner is kept (an implementation more than
`ALTERNATIVE_HOPE` slower than its layer's gets trials last). `best_log` gets
one record per task, the decided one, for `apply_history_best`: a build with it is never
slower than the default build as measured. `log` resumes: its records of a task are not
measured again.
"""

from __future__ import annotations

import dataclasses
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xtvm.tuning.measure import MeasureInput, MeasureResult, create_measure_batch, remember
from xtvm.tuning.measure import measure_option as default_measure_option
from xtvm.tuning.recheck import RECHECK_PAIRS, recheck, thread_clock
from xtvm.tuning.record import CHOSEN, Record, encode, fastest, load_from_file, record_key
from xtvm.tuning.task import Task, target_kind
from xtvm.tuning.tuner import GATuner, NeighbourTuner, RandomTuner, Tuner, XGBTuner

Measure = Callable[[Sequence[MeasureInput]], list[MeasureResult]]
# An implementation not built by default whose best is slower than its layer's default one
# by more than this gets trials only when no other task wants them: tuning rarely closes a
# gap of an algorithm (direct against winograd on a large layer is 2x).
ALTERNATIVE_HOPE = 1.3
TUNERS: dict[str, Callable[[Task, int], Tuner]] = {
    "neighbour": lambda task, seed: NeighbourTuner(task, seed=seed),
    "xgb": lambda task, seed: XGBTuner(task, plan_size=8, seed=seed),
    "ga": lambda task, seed: GATuner(task, pop_size=8, elite_num=2, seed=seed),
    "random": lambda task, seed: RandomTuner(task, seed=seed),
}


@dataclass
class TaskResult:
    """What tuning did for one task: its trials, default and chosen record."""

    task: Task
    tuner: Tuner
    default_index: int | None = None  # the default config's point of the space
    rounds: int = 0
    default: Record | None = None  # the default config's (least) measurement
    chosen: Record | None = None  # what `best_log` holds: the default unless beaten
    used: bool = True  # False: an implementation of a layer that lost to its default one
    history: list[Record] = field(default_factory=list)

    @property
    def default_cost(self) -> float:
        """The default's least seconds a run."""
        return math.inf if self.default is None else fastest(self.default[1])

    @property
    def chosen_cost(self) -> float:
        """The chosen config's least seconds a run."""
        return math.inf if self.chosen is None else fastest(self.chosen[1])


def least(a: Record, b: Record) -> Record:
    """The measurement of the two (of one config) with the lesser cost."""
    return a if fastest(a[1]) <= fastest(b[1]) else b


def tune_model(
    tasks: Sequence[Task],
    measure_option: dict[str, Any] | None = None,
    n_trial: int = 1000,
    time_budget_s: float | None = None,
    log: str | Path | None = None,
    best_log: str | Path | None = None,
    per_round: int = 4,
    tuner: str = "neighbour",
    weights: Sequence[float] | None = None,
    seed: int = 0,
    measure: Measure | None = None,
    verbose: bool = False,
) -> list[TaskResult]:
    """Tune `tasks` together (see the module docstring); `measure` replaces the measuring
    of `measure_option` (tests give made-up costs). Returns one `TaskResult` per task."""
    if tuner not in TUNERS:
        raise ValueError(f"unknown tuner '{tuner}' ({', '.join(TUNERS)})")
    if per_round < 1 or n_trial < 0:
        raise ValueError("per_round must be at least 1 and n_trial not negative")
    weights = list(weights) if weights is not None else [float(t.calls) for t in tasks]
    if len(weights) != len(tasks):
        raise ValueError(f"{len(weights)} weights for {len(tasks)} tasks")
    results = [
        TaskResult(t, TUNERS[tuner](t, seed + k), t.default_index()) for k, t in enumerate(tasks)
    ]
    history = list(load_from_file(log)) if log is not None and Path(log).is_file() else []
    option = None
    again = measure  # measures the final pairs anew (not copied from earlier measurements)
    if measure is None:
        option = measure_option or default_measure_option()
        measure = create_measure_batch(option)
        again = create_measure_batch({**option, "measured": {}})
    deadline = math.inf if time_budget_s is None else time.monotonic() + time_budget_s
    trials = 0

    def run(r: TaskResult, configs: Sequence[Any], fresh: bool = False) -> list[Record]:
        nonlocal trials
        inputs = [MeasureInput(r.task.target, r.task, c) for c in configs]
        measured = list(zip(inputs, (again if fresh else measure)(inputs), strict=True))
        trials += len(measured)
        if log is not None:
            with Path(log).open("a") as out:
                out.writelines(encode(*m) + "\n" for m in measured)
        return measured

    def fresh_pair(a: MeasureInput, b: MeasureInput) -> tuple[MeasureResult, MeasureResult]:
        """Both built and timed anew (nothing copied from earlier measurements)."""
        assert measure is not None
        batch = measure if option is None else create_measure_batch({**option, "measured": {}})
        with thread_clock(None if option is None else option["runner"]):
            first, second = batch([a, b])
        return first, second

    def note(r: TaskResult, measured: Sequence[Record]) -> None:
        for inp, result in measured:
            r.tuner.note(inp, result)
            if inp.config.index == r.default_index:
                r.default = least(r.default, (inp, result)) if r.default else (inp, result)
        r.tuner.update([m[0] for m in measured], [m[1] for m in measured])
        r.history += measured
        r.rounds += 1

    try:
        for r in results:  # resume, then the defaults: the baseline of every task
            key = (target_kind(r.task.target), r.task.workload)
            old = [h for h in history if record_key(h[0]) == key]
            if old:
                r.tuner.load_history(old)
                r.history += old
                if option is not None:
                    remember(option.setdefault("measured", {}), old)
                for inp, result in old:
                    if inp.config.index == r.default_index:
                        r.default = least(r.default, (inp, result)) if r.default else (inp, result)
            if r.default_index is not None and r.default_index not in r.tuner.visited:
                note(r, run(r, [r.task.config_space.get(r.default_index)]))
                r.tuner.visited.add(r.default_index)

        rival = default_implementations(results)

        def gain(k: int) -> float:
            best = results[k].tuner.best_cost
            if not math.isfinite(best):
                return math.inf  # nothing measured works yet
            if k in rival and best > ALTERNATIVE_HOPE * results[rival[k]].tuner.best_cost:
                return 0.0  # an implementation far slower than its layer's: trials last
            return weights[k] * best / (results[k].rounds + 1)

        while trials < n_trial and time.monotonic() < deadline:
            live = [k for k, r in enumerate(results) if r.tuner.has_next()]
            if not live:
                break
            k = max(live, key=lambda k: (gain(k), -k))
            configs = results[k].tuner.next_batch(min(per_round, n_trial - trials))
            if not configs:
                results[k].tuner.visited.update(range(len(results[k].tuner.space)))
                continue
            note(results[k], run(results[k], configs))
            if verbose:
                r = results[k]
                sys.stdout.write(
                    f"[{trials}] {r.task.name}{r.task.args}: best {r.tuner.best_cost * 1e3:.3f} "
                    f"ms, default {r.default_cost * 1e3:.3f} ms\n"
                )
        for r in results:
            verify(r, run)
        checked = choose_implementations(results, fresh_pair)
        if log is not None:
            with Path(log).open("a") as out:
                out.writelines(encode(*m) + "\n" for m in checked)
    finally:
        if option is not None:
            option["runner"].close()
    if best_log is not None:
        chosen = [
            (r.chosen[0], dataclasses.replace(r.chosen[1], verdict=CHOSEN))
            for r in results
            if r.chosen is not None and r.used
        ]
        Path(best_log).write_text("".join(encode(*c) + "\n" for c in chosen))
    return results


def default_implementations(results: Sequence[TaskResult]) -> dict[int, int]:
    """For each task of an implementation not built by default, the index of its layer's
    task that is."""
    index = {r.task.workload: k for k, r in enumerate(results)}
    found = {}
    for k, r in enumerate(results):
        if not r.task.built_by_default:
            for workload in r.task.implementations:
                j = index.get(workload)
                if j is not None and results[j].task.built_by_default:
                    found[k] = j
    return found


def choose_implementations(
    results: Sequence[TaskResult],
    measure_pair: Callable[[MeasureInput, MeasureInput], tuple[MeasureResult, MeasureResult]],
    pairs: int = RECHECK_PAIRS,
) -> list[Record]:
    """For each layer with several implementations (`Task.implementations`), re-check the
    decided config of one not built by default against that of the default implementation
    (`recheck`: interleaved pairs). Where it wins, both keep the re-check's measurements as
    their decided records (the build compares those, `task.choose_by_records`); where it
    loses, it is not used (`used`: left out of `best_log`, so the layer keeps its default
    implementation). Returns the re-check records (for the log)."""
    by_workload = {r.task.workload: r for r in results}
    records: list[Record] = []
    for r in results:
        if r.task.built_by_default or r.chosen is None:
            continue
        rivals = [by_workload.get(w) for w in r.task.implementations if w != r.task.workload]
        default = next((x for x in rivals if x is not None and x.task.built_by_default), None)
        if default is None or default.chosen is None:
            r.used = False  # nothing measured to compare it with
            continue
        inputs = (
            MeasureInput(default.task.target, default.task, default.chosen[0].config),
            MeasureInput(r.task.target, r.task, r.chosen[0].config),
        )
        wins, on_default, on_rival = recheck(*inputs, measure_pair, pairs)
        records += [(inputs[0], on_default), (inputs[1], on_rival)]
        r.used = wins
        if wins:
            default.chosen, r.chosen = (inputs[0], on_default), (inputs[1], on_rival)
    return records


def verify(r: TaskResult, run: Callable[..., list[Record]]) -> None:
    """Decide `r.chosen`: the searched best only where it still beats the default when both
    are measured again, one after the other, and its least measurement beats the default's
    (a lucky first measurement of a config does not replace the default)."""
    best = r.tuner.best_measure_pair
    if best is None:
        return
    if r.default is None or best[0].config.index == r.default[0].config.index:
        r.chosen = least(best, r.default) if r.default else best
        return
    again_default, again_best = run(r, [r.default[0].config, best[0].config], fresh=True)
    r.default = least(r.default, again_default)
    rival = least(best, again_best)
    wins = fastest(again_best[1]) < fastest(again_default[1])  # side by side, and overall
    r.chosen = rival if wins and fastest(rival[1]) < fastest(r.default[1]) else r.default


__all__ = ["TUNERS", "TaskResult", "tune_model"]
