"""The auto-scheduler: sketches from rules, replayable steps, tuning, records, task scheduler.

Tuning tests measure a handful of candidates of tiny workloads in child processes (about a
second each).
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import numpy as np
import pytest

import xtvm as tvm
from xtvm import auto_scheduler, te
from xtvm.topi import nn
from xtvm.tuning.auto_scheduler.loop_state import (
    CacheWriteStep,
    ComputeAtStep,
    ComputeInlineStep,
    SplitStep,
    State,
)
from xtvm.tuning.auto_scheduler.search_policy import ProgramMeasurer
from xtvm.tuning.auto_scheduler.sketch import decode, generate_sketches, mutate, sample
from xtvm.tuning.features import LENGTH, STORE_LENGTH

RUNNER = {"number": 2, "repeat": 1, "min_repeat_ms": 0, "timeout": 20}


@auto_scheduler.register_workload
def as_test_matmul(n: int, m: int, k: int, dtype: str) -> list[te.Tensor]:
    a = te.placeholder((n, k), dtype, name="A")
    b = te.placeholder((k, m), dtype, name="B")
    r = te.reduce_axis((0, k), name="k")
    c = te.compute((n, m), lambda i, j: te.sum(a[i, r] * b[r, j], axis=r), name="C")
    return [a, b, c]


@auto_scheduler.register_workload
def as_test_conv2d_relu(n: int, ci: int, size: int, co: int, ks: int) -> list[te.Tensor]:
    data = te.placeholder((n, ci, size, size), name="data")
    kernel = te.placeholder((co, ci, ks, ks), name="kernel")
    pad = ks // 2
    padded = nn.pad(data, (0, 0, pad, pad), (0, 0, pad, pad))
    rc = te.reduce_axis((0, ci), "rc")
    ry = te.reduce_axis((0, ks), "ry")
    rx = te.reduce_axis((0, ks), "rx")
    conv = te.compute(
        (n, co, size, size),
        lambda b, f, y, x: te.sum(
            padded[b, rc, y + ry, x + rx] * kernel[f, rc, ry, rx], axis=[rc, ry, rx]
        ),
        name="conv",
    )
    relu = te.compute(conv.shape, lambda *i: te.max(conv(*i), te.const(0.0, "float32")), "relu")
    return [data, kernel, relu]


MATMUL = (as_test_matmul, (16, 32, 8, "float32"))
CONV = (as_test_conv2d_relu, (1, 3, 6, 4, 3))


def reference(args: list[np.ndarray], workload: str) -> np.ndarray:
    if workload == "matmul":
        return args[0] @ args[1]
    data, kernel = args[0], args[1]
    padded = np.pad(data, ((0, 0), (0, 0), (1, 1), (1, 1)))
    n, _, size, _ = data.shape
    out = np.zeros((n, kernel.shape[0], size, size), "float32")
    for y in range(size):
        for x in range(size):
            window = padded[:, :, y : y + 3, x : x + 3]
            out[:, :, y, x] = np.einsum("ncyx,fcyx->nf", window, kernel)
    return np.maximum(out, 0)


def check_numerics(s: te.Schedule, tensors: list[te.Tensor], workload: str) -> None:
    rng = np.random.default_rng(0)
    arrays = [rng.uniform(-1, 1, [int(d) for d in t.shape]).astype("float32") for t in tensors]
    arrays[-1][:] = 0
    tvm.build(s, tensors, target="llvm")(*arrays)
    np.testing.assert_allclose(arrays[-1], reference(arrays, workload), rtol=1e-4, atol=1e-4)


def tune(task: auto_scheduler.SearchTask, log: Path, trials: int) -> None:
    options = auto_scheduler.TuningOptions(
        num_measure_trials=trials,
        num_measures_per_round=trials,
        runner=auto_scheduler.LocalRunner(**RUNNER),
        measure_callbacks=[auto_scheduler.RecordToFile(log)],
        verbose=0,
    )
    task.tune(options)


@pytest.fixture(scope="module")
def matmul_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    log = tmp_path_factory.mktemp("as") / "matmul.json"
    tune(auto_scheduler.SearchTask(func=MATMUL[0], args=MATMUL[1], target="llvm"), log, 4)
    return log


# ---------------------------------------------------------------------------------------------
# Sketches and steps, no measuring


def test_matmul_sketches_tile_with_and_without_cache_write() -> None:
    task = auto_scheduler.SearchTask(func=MATMUL[0], args=MATMUL[1])
    assert task.compute_dag.flop_ct == 2 * 16 * 32 * 8
    sketches = generate_sketches(task.compute_dag)
    assert [s.name for s in sketches] == ["tile", "cache_write"]
    assert not any(isinstance(step, CacheWriteStep) for step in sketches[0].steps)
    assert CacheWriteStep("C") in sketches[1].steps
    assert ComputeAtStep("C.local", "C", 2) in sketches[1].steps


def test_conv2d_relu_sketch_fuses_relu() -> None:
    task = auto_scheduler.SearchTask(func=CONV[0], args=CONV[1])
    (sketch,) = generate_sketches(task.compute_dag)
    assert ComputeInlineStep("pad_temp") not in sketch.steps  # padding stays at root
    assert any(
        isinstance(step, ComputeAtStep) and (step.stage, step.target_stage) == ("conv", "relu")
        for step in sketch.steps
    )


@pytest.mark.parametrize("workload", [MATMUL, CONV], ids=["matmul", "conv2d_relu"])
def test_candidates_tile_perfectly_and_replay(workload: tuple) -> None:
    """Sampled and mutated candidates split their loops exactly, go to JSON and back, are
    recognised from their steps, and replay to a schedule computing the workload."""
    task = auto_scheduler.SearchTask(func=workload[0], args=workload[1])
    sketches = generate_sketches(task.compute_dag)
    rng = random.Random(1)
    candidates = [sample(rng, sketches) for _ in range(8)]
    candidates += [mutate(rng, c, sketches) for c in candidates for _ in range(4)]
    for candidate in candidates:
        sketch = sketches[candidate.sketch]
        for index, lengths in zip(sketch.split_ids, candidate.lengths, strict=True):
            assert sketch.steps[index].extent % int(np.prod(lengths)) == 0  # type: ignore[attr-defined]
        state = candidate.state(sketches)
        assert State.from_json(json.loads(json.dumps(state.to_json()))) == state
        decoded = decode(state, sketches)
        assert decoded is not None and decoded.state(sketches) == state
    name = "matmul" if workload is MATMUL else "conv2d_relu"
    for candidate in candidates[:: len(candidates) // 3]:
        check_numerics(*task.instantiate(candidate.state(sketches)), name)


# ---------------------------------------------------------------------------------------------
# Tuning


def test_tuned_matmul_matches_numpy_and_replays(matmul_log: Path) -> None:
    task = auto_scheduler.SearchTask(func=MATMUL[0], args=MATMUL[1], target="llvm")
    lines = matmul_log.read_text().splitlines()
    assert len(lines) == 4
    first = json.loads(lines[0])
    assert first["workload_key"] == ["as_test_matmul", 16, 32, 8, "float32"]
    assert first["kind"] == "auto_scheduler" and first["steps"]
    s, args = task.apply_best(matmul_log)
    check_numerics(s, args, "matmul")
    # the best record replays to the same loops each time, and prints its steps
    again, args_again = task.apply_best(matmul_log)
    assert str(tvm.lower(s, args)) == str(tvm.lower(again, args_again))
    text = task.print_best(matmul_log)
    assert str(task.best_state(matmul_log)) == text and "s[C]" in text


def test_apply_best_of_a_previous_run(matmul_log: Path, tmp_path: Path) -> None:
    """A log written by an earlier process (here: copied, with a failed record added) gives
    the same best schedule to a new task and to ApplyHistoryBest."""
    log = tmp_path / "old.json"
    best = auto_scheduler.load_best_record(
        matmul_log, json.dumps(["as_test_matmul", 16, 32, 8, "float32"])
    )
    assert best is not None
    failed = json.loads(matmul_log.read_text().splitlines()[0])
    failed["result"] = {**failed["result"], "costs": [], "error_no": 4}
    log.write_text(matmul_log.read_text() + json.dumps(failed) + "\n")
    task = auto_scheduler.SearchTask(func="as_test_matmul", args=(16, 32, 8, "float32"))
    assert task.best_state(log) == best[0].state
    with auto_scheduler.ApplyHistoryBest(log) as context:
        assert auto_scheduler.ApplyHistoryBest.current is context
        assert context.query("llvm -mcpu=native", task.workload_key) == best[0].state
        assert context.query("llvm", json.dumps(["as_test_matmul", 1, 1, 1, "float32"])) is None
        applied = context.apply(task)
    assert applied is not None
    check_numerics(*applied, "matmul")


def test_tuned_conv2d_relu_matches_numpy(tmp_path: Path) -> None:
    log = tmp_path / "conv.json"
    task = auto_scheduler.SearchTask(func=CONV[0], args=CONV[1], target="llvm")
    tune(task, log, 3)
    records = list(auto_scheduler.load_records(log))
    assert len(records) == 3 and len({inp.state for inp, _ in records}) == 3
    check_numerics(*task.apply_best(log), "conv2d_relu")


def test_task_scheduler_splits_trials_and_resumes(tmp_path: Path) -> None:
    log = tmp_path / "tasks.json"
    tasks = [
        auto_scheduler.SearchTask(func=MATMUL[0], args=MATMUL[1]),
        auto_scheduler.SearchTask(func=MATMUL[0], args=(8, 16, 4, "float32")),
    ]

    def options(trials: int) -> auto_scheduler.TuningOptions:
        return auto_scheduler.TuningOptions(
            num_measure_trials=trials,
            num_measures_per_round=2,
            runner=auto_scheduler.LocalRunner(**RUNNER),
            measure_callbacks=[auto_scheduler.RecordToFile(log)],
            verbose=0,
        )

    scheduler = auto_scheduler.TaskScheduler(tasks, task_weights=[2.0, 1.0])
    scheduler.tune(options(6))
    assert sum(scheduler.task_cts) == 6 and min(scheduler.task_cts) >= 2
    assert all(np.isfinite(scheduler.best_costs))
    first = list(auto_scheduler.load_records(log))
    assert len(first) == 6
    # resuming: the log's trials count, the best costs come back, nothing is measured twice
    resumed = auto_scheduler.TaskScheduler(tasks, load_log_file=log)
    resumed.tune(options(8))
    assert sum(resumed.task_cts) == 8
    assert all(r <= b for r, b in zip(resumed.best_costs, scheduler.best_costs, strict=True))
    records = list(auto_scheduler.load_records(log))
    assert len(records) == 8
    keys = [(inp.workload_key, inp.state) for inp, _ in records]
    assert len(set(keys)) == len(keys)


def synthetic_cost(state: State) -> float:
    """A made-up latency of a matmul candidate: best when every split's innermost length is
    4 and the one above it 2."""
    off = 0.0
    for step in state.steps:
        if isinstance(step, SplitStep):
            off += abs(np.log2(step.lengths[-1]) - 2)
            if len(step.lengths) > 1:
                off += 0.5 * abs(np.log2(step.lengths[-2]) - 1)
    return 1e-3 * (1 + off)


class SyntheticMeasurer:
    """Measures nothing: each candidate costs `synthetic_cost`."""

    def measure(self, task: object, policy: object, states: list[State]) -> tuple[list, list]:
        return states, [auto_scheduler.MeasureResult([synthetic_cost(s)], 0, 0, 0) for s in states]

    def close(self) -> None:
        pass


def test_xgb_model_on_lowered_tir_beats_random_search() -> None:
    pytest.importorskip("xgboost")
    task = auto_scheduler.SearchTask(func=as_test_matmul, args=(64, 64, 64, "float32"))
    best: dict[str, list[float]] = {"xgb": [], "xgb.store": [], "random": []}
    for model in best:
        for seed in range(2):
            policy = auto_scheduler.SketchPolicy(
                task, program_cost_model=model, seed=seed, verbose=0, population=512
            )
            while policy.trials < 40:
                policy.continue_search_one_round(8, SyntheticMeasurer())  # type: ignore[arg-type]
            best[model].append(policy.best_cost)
            assert len(policy.measured) == 40  # each candidate measured once
    assert sum(best["xgb"]) < sum(best["random"]), best
    assert sum(best["xgb.store"]) < sum(best["random"]), best
    xgb = auto_scheduler.SketchPolicy(task, program_cost_model=auto_scheduler.XGBModel(), verbose=0)
    model = xgb.model
    candidates = [sample(random.Random(0), xgb.sketches) for _ in range(2)]
    rows = model.features(candidates)
    assert rows.shape == (2, LENGTH + model.space.size)  # tir features, then sketch features
    assert rows[:, :LENGTH].any()  # the candidate lowered
    store = auto_scheduler.SketchPolicy(task, program_cost_model="xgb.store", verbose=0).model
    packs = store.features(candidates)
    assert [p.shape[1] for p in packs] == [STORE_LENGTH] * 2 and all(len(p) >= 2 for p in packs)
    with pytest.raises(ValueError, match="unknown cost model 'nope'"):
        auto_scheduler.SketchPolicy(task, program_cost_model="nope")
    with pytest.raises(ValueError, match="unknown feature kind 'nope'"):
        auto_scheduler.XGBModel(feature="nope")


class SyntheticOptions(auto_scheduler.TuningOptions):
    def measurer(self) -> SyntheticMeasurer:  # type: ignore[override]
        return SyntheticMeasurer()


def test_task_scheduler_shares_one_cost_model_across_tasks() -> None:
    """With `sketch.xgb.shared` every task's candidates train one model, and a task that has
    measured nothing yet ranks its shortlist by it; per-task models share nothing."""
    pytest.importorskip("xgboost")
    tasks = [
        auto_scheduler.SearchTask(func=as_test_matmul, args=(*shape, "float32"))
        for shape in [(64, 64, 64), (32, 128, 64), (128, 32, 64)]
    ]
    for policy in ("sketch.xgb.shared", "sketch.xgb.per_task"):
        scheduler = auto_scheduler.TaskScheduler(tasks, strategy="round-robin")
        scheduler.tune(SyntheticOptions(24, num_measures_per_round=8, verbose=0), policy)
        assert scheduler.task_cts == [8, 8, 8]
        shared = scheduler.cost_model
        if policy == "sketch.xgb.per_task":
            assert shared is None and scheduler.policies[1].model.shared is None
            continue
        assert shared is not None and shared.trained
        assert all(p.model.shared is shared for p in scheduler.policies)
        assert set(shared.groups) == {t.workload_key for t in tasks}
        assert len(shared.costs) == 24
        # a fresh task's model ranks by the shared trees, and the first round is widened
        task = auto_scheduler.SearchTask(func=as_test_matmul, args=(16, 64, 32, "float32"))
        fresh = auto_scheduler.SketchPolicy(
            task, program_cost_model=auto_scheduler.XGBModel(shared=shared), verbose=0
        )
        model = fresh.model
        assert model.first_round and not model.trees.trained
        candidates = [sample(random.Random(k), fresh.sketches) for k in range(6)]
        expected = shared.predict(model.features(candidates)[:, :LENGTH])
        assert np.array_equal(model.rank(candidates), expected)
        assert len(set(expected.tolist())) > 1  # the shared trees tell candidates apart
    with pytest.raises(ValueError, match="unknown search policy 'nope'"):
        auto_scheduler.TaskScheduler(tasks).tune(SyntheticOptions(2), "nope")


def test_interleave_and_grouped_booster() -> None:
    from xtvm.tuning.auto_scheduler.cost_model import interleave
    from xtvm.tuning.cost_model import Booster

    # picks 2 (first by one order), 0 (first by the other), then 1, 3
    assert list(np.argsort(-interleave([2, 1, 0, 3], [0, 3, 2, 1]), kind="stable")) == [2, 0, 1, 3]
    pytest.importorskip("xgboost")
    # two tasks 100x apart: within each, the row with the larger feature is faster
    rows = np.arange(20.0)[:, None]
    costs = [1e-3 / (1 + x) for x in range(10)] + [1e-1 / (1 + x) for x in range(10)]
    booster = Booster("rank")
    booster.fit(rows, costs, groups=["a"] * 10 + ["b"] * 10)
    scores = booster.predict(rows)
    assert scores[9] > scores[0] and scores[19] > scores[10], scores


class ScaledMeasurer:
    """Measures nothing: a candidate of task k costs `scale[k]` x `synthetic_cost` (at
    least `scale[k]` ms), the default schedule `default` x scale[k] ms. With `noisy`, the
    default's first measurement is twice its cost (taken while the machine was busy) and
    every candidate costs 1.5x the default; with `fails`, the default's first measurement
    fails (a build timeout)."""

    def __init__(
        self, scale: dict[str, float], default: float, noisy: bool = False, fails: bool = False
    ) -> None:
        self.scale, self.default, self.noisy, self.fails = scale, default, noisy, fails
        self.defaults_measured: dict[str, int] = {}

    callbacks: list[object] = []
    recheck = ProgramMeasurer.recheck  # the default against the best, by `run_states`

    def measure(self, task: object, policy: object, states: list[State]) -> tuple[list, list]:
        return states, self.run_states(task, states, counted=True)

    def run_states(self, task: object, states: list[State], counted: bool = False) -> list:
        """The results of `states`; a default's measurement is counted in `defaults_measured`
        when `counted` (not a re-check's: measured later, when the machine is not busy)."""
        key = task.workload_key  # type: ignore[attr-defined]
        costs = []
        for state in states:
            if state.is_default:
                count = self.defaults_measured.get(key, 0) + 1
                if counted:
                    self.defaults_measured[key] = count
                noise = 2.0 if self.noisy and count == 1 else 1.0
                failed = self.fails and count == 1
                costs.append(math.inf if failed else self.scale[key] * self.default * 1e-3 * noise)
            elif self.noisy:
                costs.append(self.scale[key] * self.default * 1e-3 * 1.5)
            else:
                costs.append(self.scale[key] * synthetic_cost(state))
        return [
            auto_scheduler.MeasureResult([c], 0 if math.isfinite(c) else 2, 0, 0) for c in costs
        ]

    def close(self) -> None:
        pass


def relay_like_tasks() -> list[auto_scheduler.SearchTask]:
    """Matmul tasks with a default schedule, as `extract_tasks` makes of relay kernels."""
    tasks = []
    for shape in [(64, 64, 64), (32, 64, 64), (16, 64, 64)]:
        task = auto_scheduler.SearchTask(func=as_test_matmul, args=(*shape, "float32"))
        task.default_schedule = task.compute_dag.create_schedule
        tasks.append(task)
    return tasks


def scaled_options(trials: int, measurer: ScaledMeasurer) -> auto_scheduler.TuningOptions:
    class Options(auto_scheduler.TuningOptions):
        def measurer(self) -> ScaledMeasurer:  # type: ignore[override]
            return measurer

    return Options(trials, num_measures_per_round=8, verbose=0)


def test_task_scheduler_gives_the_trials_to_the_kernels_that_hold_the_time() -> None:
    """With each kernel's default measured, no task gets a warm-up round: the one holding
    most of the model's time gets most trials, one holding 1 % of it none."""
    pytest.importorskip("xgboost")
    tasks = relay_like_tasks()
    scale = {t.workload_key: s for t, s in zip(tasks, [10.0, 3.0, 0.1], strict=True)}
    measurer = ScaledMeasurer(scale, default=1.2)
    scheduler = auto_scheduler.TaskScheduler(tasks, eps_greedy=0.0)
    scheduler.tune(scaled_options(48, measurer), "sketch.xgb.store")
    assert sum(scheduler.task_cts) == 48
    assert scheduler.task_cts[2] == 0 and scheduler.task_cts[0] >= 32, scheduler.task_cts
    assert all(p.model.feature == "store" for p in scheduler.policies)
    # a time budget that is already spent: only the defaults are measured
    spent = auto_scheduler.TaskScheduler(tasks, eps_greedy=0.0)
    spent.tune(scaled_options(48, ScaledMeasurer(scale, 1.2)), time_budget_s=0)
    assert spent.task_cts == [0, 0, 0] and all(np.isfinite(spent.best_costs))


def test_task_scheduler_verifies_winners_against_their_default() -> None:
    """A default timed while the machine was busy looks twice as slow, and the searched
    candidates, 1.5x its true cost, seem to beat it; measuring the best and the default side
    by side at the end keeps the default."""
    pytest.importorskip("xgboost")
    tasks = relay_like_tasks()[:1]
    measurer = ScaledMeasurer({tasks[0].workload_key: 1.0}, default=1.0, noisy=True)
    scheduler = auto_scheduler.TaskScheduler(tasks)
    scheduler.tune(scaled_options(16, measurer))
    policy = scheduler.policies[0]
    assert measurer.defaults_measured[tasks[0].workload_key] == 1  # then re-checked
    assert policy.best_state is not None and policy.best_state.is_default
    assert scheduler.best_costs[0] == pytest.approx(1e-3)


def test_a_default_that_fails_to_measure_is_measured_again() -> None:
    """A failed baseline (a build timeout on a busy machine) would make the kernel look
    infinitely slow, its gradient would take every round and any candidate would replace
    the default; the default is measured again."""
    tasks = relay_like_tasks()
    scale = {t.workload_key: s for t, s in zip(tasks, [10.0, 3.0, 0.1], strict=True)}
    measurer = ScaledMeasurer(scale, default=1.2, fails=True)
    scheduler = auto_scheduler.TaskScheduler(tasks, eps_greedy=0.0)
    scheduler.tune(scaled_options(16, measurer), "sketch.random")
    assert set(measurer.defaults_measured.values()) == {2}
    assert scheduler.best_costs[2] == pytest.approx(0.1 * 1.2e-3)  # its default, measured
    assert scheduler.task_cts[2] == 0
