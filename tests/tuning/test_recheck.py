"""A tuner's best is re-checked against the default schedule before it is used: the default
stays unless the best wins the interleaved pairs, and the records say which one is used."""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from pathlib import Path

import pytest

from xtvm import auto_scheduler, autotvm
from xtvm.tuning.auto_scheduler.loop_state import DEFAULT_STATE, State
from xtvm.tuning.auto_scheduler.measure_record import MeasureInput as StateInput
from xtvm.tuning.measure import BuildResult, MeasureInput, MeasureResult
from xtvm.tuning.recheck import best_wins

SEARCH_COST = 3e-4  # what every config costs while searching (the lucky one: LUCKY)
LUCKY = 1e-5


class Builder:
    """Builds nothing: each config is its own code."""

    n_parallel = 1

    def build(self, inputs: Sequence[MeasureInput], known: Collection[str] = ()) -> list:
        return [BuildResult("unused.so", code_hash=f"code{i.config.index}") for i in inputs]


class Runner:
    """Times nothing. While searching (wall clock) config `lucky` has a lucky LUCKY timing and
    the rest SEARCH_COST; re-checked (thread clock) the configs cost `rechecked`, by index,
    else 1e-4."""

    def __init__(self, lucky: int, rechecked: dict[int, list[float]]) -> None:
        self.clock = "wall"
        self.lucky, self.rechecked = lucky, rechecked
        self.clocks: list[str] = []
        self.calls: dict[int, int] = {}

    def run(self, inputs: Sequence[MeasureInput], builds: Sequence[BuildResult]) -> list:
        results = []
        for inp in inputs:
            index = inp.config.index
            self.clocks.append(self.clock)
            if self.clock == "wall":
                cost = LUCKY if index == self.lucky else SEARCH_COST
            else:
                count = self.calls[index] = self.calls.get(index, 0) + 1
                costs = self.rechecked.get(index, [1e-4])
                cost = costs[(count - 1) % len(costs)]
            results.append(MeasureResult([cost], 0, 0.0, 0.0, code_hash=f"code{index}"))
        return results

    def close(self) -> None:
        pass


def result(*costs: float) -> MeasureResult:
    return MeasureResult(list(costs), 0, 0.0, 0.0)


def test_the_best_must_win_most_pairs_and_overall() -> None:
    fast, slow = result(1.0), result(2.0)
    assert best_wins([slow, slow, slow], [fast, fast, fast])
    assert best_wins([slow, slow, slow], [fast, fast, result(3.0)])  # 2 of 3 pairs
    assert not best_wins([slow, slow, slow], [fast, result(3.0), result(3.0)])
    assert not best_wins([slow, slow], [fast, result(3.0)])  # a tie of pairs: the default
    assert not best_wins([fast, fast], [fast, fast])  # as fast is not faster
    # faster in every pair, but the default's least time is less: load, not the config
    assert not best_wins([result(0.5, 3.0), result(3.0)], [result(2.0), result(2.0)])
    failed = MeasureResult([], 4, 0.0, 0.0, "crash")
    assert not best_wins([slow], [failed]) and best_wins([failed], [slow])


def tune(tmp_path: Path, runner: Runner, pairs: int = 3) -> tuple[autotvm.Tuner, Path]:
    task = autotvm.task.create("matmul.llvm", args=(32, 32, 64), target="llvm")
    log = tmp_path / "tune.log"
    tuner = autotvm.GridSearchTuner(task)
    option = {"builder": Builder(), "runner": runner}
    tuner.tune(4, option, callbacks=[autotvm.callback.log_to_file(log)], recheck=pairs)
    return tuner, log


def used(tuner: autotvm.Tuner, log: Path) -> int:
    """The config index apply_history_best builds the task's workload with."""
    with autotvm.apply_history_best(log) as context:
        return context.query("llvm", tuner.task.workload).index  # type: ignore[attr-defined]


def test_a_lucky_best_that_loses_its_recheck_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XTVM_NUM_THREADS", "1")
    runner = Runner(lucky=1, rechecked={1: [2e-4]})
    tuner, log = tune(tmp_path, runner)
    default = tuner.task.default_index()
    assert default is not None and default != 1
    assert tuner.best_config is not None and tuner.best_config.index == 1  # the lucky one
    assert tuner.chosen is not None and tuner.chosen[0].config.index == default
    assert tuner.trial == 4  # the re-check is not a trial
    # interleaved pairs, each on the thread clock, then back to the runner's clock
    assert runner.clocks == ["wall"] * 4 + ["thread"] * 6 and runner.clock == "wall"
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(lines) == 6
    verdicts = {line["config"]["index"]: line["result"].get("verdict") for line in lines[4:]}
    assert verdicts == {default: "chosen", 1: "rejected"}
    assert lines[4]["result"]["costs"] == [1e-4] * 3  # every pair's measurement
    assert used(tuner, log) == default  # not the lucky record, though its timing is least
    distilled = tmp_path / "best.log"
    autotvm.record.distill(log, distilled)
    assert [r[0].config.index for r in autotvm.record.load_from_file(distilled)] == [default]


def test_a_best_that_wins_its_recheck_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XTVM_NUM_THREADS", "1")
    # faster in two of three pairs (one timing hit by load) and overall
    tuner, log = tune(tmp_path, Runner(lucky=1, rechecked={1: [5e-5, 5e-5, 3e-4]}))
    assert tuner.chosen is not None and tuner.chosen[0].config.index == 1
    assert used(tuner, log) == 1


def test_no_recheck_when_asked_or_when_the_best_is_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XTVM_NUM_THREADS", "2")  # several threads: the runner's own clock
    runner = Runner(lucky=1, rechecked={1: [2e-4]})
    tuner, log = tune(tmp_path, runner, pairs=0)
    assert len(log.read_text().splitlines()) == 4 and tuner.chosen is None
    runner = Runner(lucky=-1, rechecked={1: [2e-4]})
    task = autotvm.task.create("matmul.llvm", args=(32, 32, 64), target="llvm")
    default = task.default_index()
    assert default is not None
    runner.lucky = default
    tuner = autotvm.GridSearchTuner(task)
    tuner.counter = default  # the grid starts at the default: it is the best
    tuner.tune(2, {"builder": Builder(), "runner": runner})
    assert tuner.chosen is not None and tuner.chosen[0].config.index == default
    assert runner.clocks == ["wall", "wall"]  # nothing re-measured


def test_auto_scheduler_records_honour_the_chosen_one(tmp_path: Path) -> None:
    key = json.dumps(["some_workload", 4, "float32"])
    tuned = State(())
    log = tmp_path / "as.json"
    chosen = result(2e-4)
    chosen.verdict = "chosen"
    auto_scheduler.measure_record.save_records(
        log,
        [StateInput(key, "llvm", tuned), StateInput(key, "llvm", DEFAULT_STATE)],
        [result(1e-6), chosen],
    )
    best = auto_scheduler.measure_record.load_best_record(log, key)
    assert best is not None and best[0].state.is_default
    with auto_scheduler.ApplyHistoryBest(log) as context:
        state = context.query("llvm", key)
    assert state is not None and state.is_default
