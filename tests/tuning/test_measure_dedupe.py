"""Candidates that lower to identical code are measured once: the copy says whose measurement
it is, in its record, and a resumed tuning measures no recorded code again."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from xtvm import autotvm, te
from xtvm.topi import nn
from xtvm.tuning.measure import (
    BuildResult,
    LocalRunner,
    MeasureInput,
    MeasureResult,
    create_measure_batch,
)
from xtvm.tuning.record import decode, encode

MEASURE = {"number": 2, "repeat": 1, "timeout": 10}


@autotvm.template("test.dedupe_matmul")
def dedupe_matmul(m: int, k: int, n: int) -> tuple[te.Schedule, list[Any]]:
    """A matmul with a column split knob and a knob the schedule ignores: configs differing
    only in `unused` lower to the same code."""
    cfg = autotvm.get_config()
    cfg.define_knob("unused", [0, 1])
    cfg.define_knob("columns", [4, 8])
    a = te.placeholder((m, k), name="A")
    b = te.placeholder((k, n), name="B")
    out = nn.matmul(a, b, False, False)
    s = te.create_schedule(out.op)
    _, j = s[out].op.axis
    s[out].split(j, factor=cfg["columns"].val)
    return s, [a, b, out]


class CountingRunner(LocalRunner):
    """A local runner that counts the candidates it times."""

    def __init__(self) -> None:
        super().__init__(**MEASURE)
        self.timed = 0

    def run_one(self, build: BuildResult) -> MeasureResult:
        self.timed += 1
        return super().run_one(build)


def tune_grid(task: Any, trials: int, log: Path, history: Sequence[Any] = ()) -> CountingRunner:
    runner = CountingRunner()
    option = autotvm.measure_option(builder=autotvm.LocalBuilder(), runner=runner)
    tuner = autotvm.GridSearchTuner(task)
    tuner.load_history(history)
    log_to = [autotvm.callback.log_to_file(log)]
    tuner.tune(n_trial=trials, measure_option=option, callbacks=log_to, recheck=0)
    return runner


def test_identical_code_is_measured_once_and_recorded_so(tmp_path: Path) -> None:
    task = autotvm.task.create("test.dedupe_matmul", args=(8, 8, 16), target="llvm")
    log = tmp_path / "dedupe.log"
    runner = tune_grid(task, 4, log)
    records = list(autotvm.record.load_from_file(log))
    assert len(records) == 4 and runner.timed == 2  # configs 0/1 and 2/3 share their code
    by_index = {inp.config.index: result for inp, result in records}
    for original, copy in ((0, 1), (2, 3)):
        first, second = by_index[original], by_index[copy]
        assert first.duplicate_of is None and second.duplicate_of == original
        assert first.code_hash and second.code_hash == first.code_hash
        assert second.costs == first.costs and second.error_no == 0
    assert by_index[0].code_hash != by_index[2].code_hash
    line = log.read_text().splitlines()[1]
    assert '"duplicate_of": 0' in line and encode(*decode(line)) == line


def test_resumed_tuning_measures_no_recorded_code(tmp_path: Path) -> None:
    task = autotvm.task.create("test.dedupe_matmul", args=(8, 8, 16), target="llvm")
    first_log = tmp_path / "first.log"
    # index order: unused varies fastest, so configs 0 and 2 are the two codes
    runner = CountingRunner()
    option = autotvm.measure_option(runner=runner)
    measure = create_measure_batch(option)
    inputs = [MeasureInput("llvm", task, task.config_space.get(i)) for i in (0, 2)]
    autotvm.record.save_to_file(first_log, zip(inputs, measure(inputs), strict=True))
    runner.close()
    assert runner.timed == 2

    log = tmp_path / "resumed.log"
    history = list(autotvm.record.load_from_file(first_log))
    resumed = tune_grid(task, 4, log, history)
    records = list(autotvm.record.load_from_file(log))
    assert resumed.timed == 0  # the two new configs' code was recorded
    assert sorted((inp.config.index, r.duplicate_of) for inp, r in records) == [(1, 0), (3, 2)]


def fake_option(codes: dict[int, str]) -> tuple[dict[str, Any], list[int]]:
    """A builder giving config i the code hash `codes[i]` and a runner timing config i at
    i milliseconds; the list records the configs run."""
    timed: list[int] = []

    class Builder:
        n_parallel = 1

        def build(self, inputs: Sequence[MeasureInput], known: Any = ()) -> list[BuildResult]:
            return [
                BuildResult(
                    f"lib{inp.config.index}.so",
                    code_hash=codes[inp.config.index],
                    duplicate=codes[inp.config.index] in known,
                )
                for inp in inputs
            ]

    class Runner:
        def run(self, inputs: Sequence[MeasureInput], builds: Any) -> list[MeasureResult]:
            timed.extend(inp.config.index for inp in inputs)
            return [
                MeasureResult([inp.config.index / 1e3], 0, 0.0, 0.0, "", b.code_hash)
                for inp, b in zip(inputs, builds, strict=True)
            ]

        def close(self) -> None:
            pass

    return {"builder": Builder(), "runner": Runner()}, timed


@pytest.mark.parametrize("fresh", [False, True])
def test_a_batch_runs_each_new_code_once(fresh: bool) -> None:
    task = autotvm.task.create("test.dedupe_matmul", args=(8, 8, 16), target="llvm")
    option, timed = fake_option({0: "a", 1: "a", 2: "b", 3: "b"})
    measure = create_measure_batch(option)
    inputs = [MeasureInput("llvm", task, task.config_space.get(i)) for i in range(4)]
    first = measure(inputs[:3])
    assert timed == [0, 2] and first[1].costs == first[0].costs and first[1].duplicate_of == 0
    # a later batch: code "b" is known; a fresh table (as a final re-measurement) runs it
    again = create_measure_batch({**option, "measured": {}}) if fresh else measure
    (last,) = again(inputs[3:])
    assert timed == ([0, 2, 3] if fresh else [0, 2])
    assert last.duplicate_of == (None if fresh else 2)
