"""Whole-model AutoTVM tuning from the default schedules: `NeighbourTuner` and
`autotvm.tune_model` (made-up costs, then one small real tuning)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import xtvm as tvm
from xtvm import autotvm, relay
from xtvm.contrib import graph_executor
from xtvm.testing.relay import tuning_model
from xtvm.tuning.measure import MeasureInput, MeasureResult
from xtvm.tuning.record import load_from_file
from xtvm.tuning.space import ConfigEntity
from xtvm.tuning.task import Task
from xtvm.tuning.tuner import knob_choices


def tile_cost(config: ConfigEntity) -> float:
    """A made-up latency of a matmul.llvm config: best at an 8 x 16 tile, k by 4."""
    ty, tx, tk = (config[k].size[-1] for k in ("tile_y", "tile_x", "tile_k"))
    off = abs(math.log2(ty) - 3) + 0.5 * abs(math.log2(tx) - 4) + 0.3 * abs(math.log2(tk) - 2)
    return 1e-3 * (1 + off + 0.2 * config["columns_first"].val)


def fake_measure(
    cost: Callable[[MeasureInput, int], float], seen: list[MeasureInput]
) -> Callable[[Sequence[MeasureInput]], list[MeasureResult]]:
    """Measures nothing: `cost(input, how often it was measured before)` seconds each."""

    def measure(inputs: Sequence[MeasureInput]) -> list[MeasureResult]:
        out = []
        for inp in inputs:
            before = sum(s.task is inp.task and s.config.index == inp.config.index for s in seen)
            seen.append(inp)
            out.append(MeasureResult([cost(inp, before)], 0, 0.0, 0.0))
        return out

    return measure


@pytest.fixture
def matmul() -> Task:
    return autotvm.task.create("matmul.llvm", args=(64, 64, 64))


def test_neighbour_tuner_starts_at_the_default_and_moves_one_knob(matmul: Task) -> None:
    tuner = autotvm.NeighbourTuner(matmul, seed=0)
    default = matmul.default_index()
    assert default is not None
    first = tuner.next_batch(4)
    assert first[0].index == default
    genes = knob_choices(matmul.config_space, default)
    for config in first[1:]:  # the rest of the first batch: neighbours of the default
        moved = knob_choices(matmul.config_space, config.index)
        assert sum(a != b for a, b in zip(moved, genes, strict=True)) == 1
    seen: list[MeasureInput] = []
    measure = fake_measure(lambda inp, _: tile_cost(inp.config), seen)
    configs = first
    while tuner.trial < 48:
        inputs = [MeasureInput("llvm", matmul, c) for c in configs]
        results = measure(inputs)
        for inp, result in zip(inputs, results, strict=True):
            tuner.note(inp, result)
        tuner.update(inputs, results)
        configs = tuner.next_batch(4)
    ranked = sorted(tile_cost(c) for c in matmul.config_space)
    assert tuner.best_cost <= tile_cost(matmul.config_space.get(default))
    assert ranked.index(tuner.best_cost) <= 2, ranked.index(tuner.best_cost)  # of 490
    assert len({inp.config.index for inp in seen}) == len(seen)  # nothing measured twice


def test_tune_model_measures_defaults_first_and_never_keeps_a_slower_config(
    matmul: Task, tmp_path: Path
) -> None:
    other = autotvm.task.create("matmul.llvm", args=(32, 64, 16))
    seen: list[MeasureInput] = []

    def cost(inp: MeasureInput, before: int) -> float:
        """Every searched config of `other` is lucky once (0.5 ms) and 5 ms after; on
        `matmul` the made-up tile cost, where the default is not the best."""
        if inp.task is other:
            default = inp.config.index == other.default_index()
            return 1e-3 if default else (5e-4 if before == 0 else 5e-3)
        return tile_cost(inp.config)

    log, best_log = tmp_path / "records.json", tmp_path / "best.json"
    results = autotvm.tune_model(
        [matmul, other], n_trial=40, log=log, best_log=best_log, per_round=4,
        measure=fake_measure(cost, seen),
    )  # fmt: skip
    assert [inp.config.index for inp in seen[:2]] == [matmul.default_index(), other.default_index()]
    by_task = {r.task: r for r in results}
    mine, theirs = by_task[matmul], by_task[other]
    assert theirs.chosen is not None and mine.chosen is not None
    # `other`: the lucky 0.5 ms config measured again (5 ms): its default stays
    assert theirs.tuner.best_cost == pytest.approx(5e-4)
    assert theirs.chosen[0].config.index == other.default_index()
    assert mine.chosen_cost < mine.default_cost  # `matmul`: a really faster config wins
    for r in results:
        assert r.chosen_cost <= r.default_cost
    chosen = {inp.task.workload: inp.config.index for inp, _ in load_from_file(best_log)}
    assert chosen == {t.workload: r.chosen[0].config.index for t, r in by_task.items()}  # type: ignore[index]
    assert len(list(load_from_file(log))) == len(seen)  # every measurement is logged

    # resumed from the log with no time left: no new config is measured, only each task's
    # default and best again (verification)
    logged = {(inp.task.workload, inp.config.index) for inp in seen}
    again: list[MeasureInput] = []
    autotvm.tune_model(
        [matmul, other], n_trial=40, log=log, time_budget_s=0, measure=fake_measure(cost, again)
    )
    assert len(again) == 4
    assert all((inp.task.workload, inp.config.index) in logged for inp in again)


def test_tune_model_gives_the_trials_to_the_kernels_that_hold_the_time(matmul: Task) -> None:
    small = autotvm.task.create("matmul.llvm", args=(16, 16, 16))
    small.calls = 1
    matmul.calls = 6  # six kernels of the model have its workload
    seen: list[MeasureInput] = []
    autotvm.tune_model(
        [small, matmul], n_trial=40, per_round=4,
        measure=fake_measure(lambda inp, _: tile_cost(inp.config), seen),
    )  # fmt: skip
    count = {t: sum(inp.task is t for inp in seen) for t in (small, matmul)}
    assert count[matmul] >= 3 * count[small], count
    with pytest.raises(ValueError, match="unknown tuner"):
        autotvm.tune_model([small], tuner="anneal")


def test_tune_model_for_real_then_relay_build_with_its_best_log(tmp_path: Path) -> None:
    mod, params = tuning_model()
    tasks = autotvm.task.extract_from_program(mod, params=params, target="llvm")
    assert sorted((t.name, t.calls) for t in tasks) == [
        ("batch_matmul.llvm", 2),
        ("conv2d_nhwc.llvm", 1),
        ("dense.llvm", 1),
    ]
    best_log = tmp_path / "best.json"
    results = autotvm.tune_model(
        tasks,
        autotvm.measure_option(
            builder=autotvm.LocalBuilder(timeout=60),
            runner=autotvm.LocalRunner(number=2, repeat=1, timeout=20),
        ),
        n_trial=3,
        log=tmp_path / "records.json",
        best_log=best_log,
        per_round=2,
    )
    for r in results:
        assert r.default is not None and math.isfinite(r.default_cost), r.task
        assert r.chosen_cost <= r.default_cost
    assert len(list(load_from_file(best_log))) == len(tasks)

    rng = np.random.default_rng(1)
    inputs = {
        "x": rng.standard_normal((1, 8, 6, 6)).astype("float32"),
        "q": rng.standard_normal((2, 16, 8)).astype("float32"),
        "k": rng.standard_normal((2, 12, 8)).astype("float32"),
    }

    def outputs(lib: Any) -> list[np.ndarray]:
        module = graph_executor.GraphModule(lib["default"](tvm.cpu(0)))
        for name, value in inputs.items():
            module.set_input(name, value)
        module.run()
        return [module.get_output(i).numpy() for i in range(3)]

    default = outputs(relay.build(mod, target="llvm", params=params))
    with autotvm.apply_history_best(best_log):
        tuned = outputs(relay.build(mod, target="llvm", params=params))
    attention = inputs["q"] @ inputs["k"].transpose(0, 2, 1)
    np.testing.assert_allclose(tuned[1], attention, rtol=1e-4, atol=1e-4)
    for a, b in zip(tuned, default, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)
