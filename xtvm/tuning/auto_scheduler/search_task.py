"""Search tasks and tuning options: `SearchTask(func=matmul, args=(64, 64, 64), target="llvm")`.

`task.tune(TuningOptions(num_measure_trials=64, measure_callbacks=[RecordToFile(log)]))` runs
the sketch search; `task.apply_best(log)` replays the fastest record into `(schedule, args)`;
`ApplyHistoryBest(log)` is the context that answers the best steps of a workload.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from xtvm.te.expr import Tensor
from xtvm.te.schedule import Schedule
from xtvm.tuning import measure
from xtvm.tuning.auto_scheduler.compute_dag import ComputeDAG
from xtvm.tuning.auto_scheduler.loop_state import State
from xtvm.tuning.auto_scheduler.measure_record import (
    MeasureInput,
    cost_of,
    load_best_record,
    load_records,
)
from xtvm.tuning.auto_scheduler.search_policy import (
    LocalRunner,
    MeasureCallback,
    ProgramMeasurer,
    SketchPolicy,
)
from xtvm.tuning.auto_scheduler.workload_registry import make_workload_key, workload_tensors
from xtvm.tuning.measure import MeasureResult
from xtvm.tuning.recheck import RECHECK_PAIRS
from xtvm.tuning.record import CHOSEN
from xtvm.tuning.task import target_kind


class TuningOptions:
    """How much to measure and how: TVM's `auto_scheduler.TuningOptions`."""

    def __init__(
        self,
        num_measure_trials: int = 0,
        early_stopping: int | None = None,
        num_measures_per_round: int = 64,
        verbose: int = 1,
        builder: str | measure.LocalBuilder = "local",
        runner: str | measure.LocalRunner = "local",
        measure_callbacks: Sequence[MeasureCallback] | None = None,
        recheck: int = RECHECK_PAIRS,
    ) -> None:
        self.num_measure_trials = num_measure_trials
        self.early_stopping = early_stopping
        self.num_measures_per_round = num_measures_per_round
        self.verbose = verbose
        self.builder = measure.LocalBuilder() if builder == "local" else builder
        self.runner = LocalRunner() if runner == "local" else runner
        self.measure_callbacks = list(measure_callbacks or [])
        # pairs measuring the best against a relay kernel's default schedule at the end
        self.recheck = recheck

    def measurer(self) -> ProgramMeasurer:
        assert not isinstance(self.builder, str) and not isinstance(self.runner, str), (
            "builder and runner are 'local' or LocalBuilder/LocalRunner objects"
        )
        return ProgramMeasurer(self.builder, self.runner, self.measure_callbacks)


class SearchTask:
    """A workload (a registered function and its arguments) to schedule for a target."""

    def __init__(
        self,
        func: str | Callable[..., Any] | None = None,
        args: Sequence[Any] = (),
        compute_dag: ComputeDAG | None = None,
        workload_key: str | None = None,
        target: object = "llvm",
        desc: str | None = None,
        default_schedule: Callable[[], Schedule] | None = None,
    ) -> None:
        if workload_key is None:
            if func is None:
                raise ValueError("SearchTask: give func= and args=, or workload_key=")
            workload_key = make_workload_key(func, list(args))
        self.workload_key = workload_key
        self.target = str(target) if target is not None else "llvm"
        self.compute_dag = compute_dag or ComputeDAG(workload_tensors(workload_key))
        self.desc = desc or workload_key
        # the compiler's schedule of a relay kernel (`extract_tasks`): measured first, the
        # baseline that a record must beat to be applied
        self.default_schedule = default_schedule

    def __repr__(self) -> str:
        return f"SearchTask(workload_key={self.workload_key}, target={self.target})"

    def instantiate(self, state: State) -> tuple[Schedule, list[Tensor]]:
        """The schedule that `state` makes of a fresh copy of the workload, and its tensors."""
        if state.is_default:  # of the kernel's tensors as they were when the task was made
            if self.default_schedule is None:
                raise ValueError(f"{self.desc}: no default schedule (not a relay kernel's task)")
            return self.default_schedule(), list(self.compute_dag.tensors)
        tensors = workload_tensors(self.workload_key)
        s = ComputeDAG(tensors).create_schedule()
        return state.replay(s), tensors

    def tune(
        self, tuning_options: TuningOptions, search_policy: SketchPolicy | None = None
    ) -> None:
        policy = search_policy or SketchPolicy(self, verbose=tuning_options.verbose)
        measurer = tuning_options.measurer()
        best_trial = policy.trials
        try:
            policy.measure_default(measurer)
            while policy.trials < tuning_options.num_measure_trials:
                count = min(
                    tuning_options.num_measures_per_round,
                    tuning_options.num_measure_trials - policy.trials,
                )
                before = policy.best_cost
                inputs, _ = policy.continue_search_one_round(count, measurer)
                if not inputs:
                    break  # the space is exhausted
                if policy.best_cost < before:
                    best_trial = policy.trials
                stop = tuning_options.early_stopping
                if stop is not None and policy.trials - best_trial >= stop:
                    break
            measurer.recheck(self, policy, tuning_options.recheck)
        finally:
            measurer.close()

    def best_state(self, log_file: str | Path) -> State:
        found = load_best_record(log_file, self.workload_key, self.target)
        if found is None:
            raise RuntimeError(
                f"no successful record of {self.workload_key} for {self.target} in {log_file}"
            )
        return found[0].state

    def apply_best(
        self,
        log_file: str | Path,
        include_compatible: bool = False,
        layout_rewrite_option: Any = None,
    ) -> tuple[Schedule, list[Tensor]]:
        """`(schedule, args)` of the fastest record of this task in `log_file`."""
        return self.instantiate(self.best_state(log_file))

    def print_best(self, log_file: str | Path, print_mode: str = "schedule") -> str:
        """The steps of the fastest record, one te call a line; printed and returned."""
        text = str(self.best_state(log_file))
        print(text)
        return text


class ApplyHistoryBest:
    """The fastest recorded steps of each workload of a log, or the latest chosen by a
    re-check against the default (`recheck`): `query(target, workload_key)`; inside `with
    ApplyHistoryBest(log):` it is `ApplyHistoryBest.current`. Where the record used for a
    relay kernel is its default schedule, relay.build keeps that."""

    current: ApplyHistoryBest | None = None

    def __init__(self, records: str | Path | Sequence[tuple[MeasureInput, MeasureResult]]) -> None:
        if isinstance(records, str | Path):
            records = list(load_records(records))
        self.best: dict[tuple[str, str], tuple[State, float]] = {}
        chosen: dict[tuple[str, str], tuple[State, float]] = {}
        for inp, result in records:
            key = (target_kind(inp.target), inp.workload_key)
            cost = cost_of(result)
            if math.isfinite(cost) and result.verdict == CHOSEN:
                chosen[key] = (inp.state, cost)  # the latest re-check's decision
            if math.isfinite(cost) and (key not in self.best or cost < self.best[key][1]):
                self.best[key] = (inp.state, cost)
        self.best.update(chosen)
        self.applied: dict[str, str] = {}  # relay kernel name -> the workload key it used
        self._parent: ApplyHistoryBest | None = None

    def query(self, target: object, workload_key: str) -> State | None:
        found = self.best.get((target_kind(target), workload_key))
        if found is None and self._parent is not None:
            return self._parent.query(target, workload_key)
        return found[0] if found else None

    def apply(self, task: SearchTask) -> tuple[Schedule, list[Tensor]] | None:
        """The best schedule of `task`'s workload, or None when none is recorded."""
        state = self.query(task.target, task.workload_key)
        return task.instantiate(state) if state is not None else None

    def __enter__(self) -> ApplyHistoryBest:
        self._parent, ApplyHistoryBest.current = ApplyHistoryBest.current, self
        return self

    def __exit__(self, *exc: object) -> None:
        ApplyHistoryBest.current = self._parent
