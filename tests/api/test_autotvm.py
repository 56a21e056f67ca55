"""AutoTVM: config spaces, templates, measuring in child processes, records, history best."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import xtvm as tvm
from xtvm import autotvm, te
from xtvm.te.schedule import CachePrimitive
from xtvm.topi import nn, schedule
from xtvm.tuning import templates
from xtvm.tuning.space import SplitEntity

MEASURE = {"number": 2, "repeat": 1, "timeout": 10}


def primitives(s: te.Schedule) -> list[str]:
    """The schedule's primitives as text (a cache by the stage it adds)."""
    return [
        f"cache {p.cache.name}" if isinstance(p, CachePrimitive) else str(p.properties)
        for p in s.primitives
    ]


def run_matmul(s: te.Schedule, args: list[Any], m: int, k: int, n: int) -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype("float32")
    b = rng.standard_normal((k, n)).astype("float32")
    c = np.zeros((m, n), "float32")
    tvm.build(s, args, target="llvm")(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def test_split_knob_reorder_annotate_spaces() -> None:
    space = autotvm.ConfigSpace()
    space.define_split("f", 12, num_outputs=2)
    space.define_split("p", 12, num_outputs=3, policy="power2")
    space.define_knob("u", [0, 1, 2])
    space.define_reorder("r", [4, 5, 6], policy="all")
    space.define_annotate("a", [4, 5], policy="try_unroll_vec")
    assert [e.size for e in space.space_map["f"]] == [[-1, f] for f in (1, 2, 3, 4, 6, 12)]
    assert all(e.size[1] * e.size[2] <= 12 for e in space.space_map["p"])
    assert [-1, 2, 4] in [e.size for e in space.space_map["p"]]
    assert len(space) == 6 * len(space.space_map["p"]) * 3 * 6 * 6
    configs = {repr(space.get(i)) for i in range(0, len(space), 97)}
    assert len(configs) == len(range(0, len(space), 97))  # distinct points
    config = space.get(len(space) - 1)  # the last candidate of every knob
    assert config["f"].size == [-1, 12] and config["u"].val == 2
    assert config["a"].anns == ["unroll", "vec"]
    text = json.dumps(config.to_json_dict())
    assert autotvm.ConfigEntity.from_json_dict(json.loads(text)) == config
    with pytest.raises(IndexError):
        space.get(len(space))


def test_split_entity_apply_splits_the_loop() -> None:
    a = te.placeholder((64,), name="a")
    b = te.compute((64,), lambda i: a[i] * 2, name="b")
    s = te.create_schedule(b.op)
    outer, middle, inner = SplitEntity([-1, 4, 8]).apply(s, b, b.op.axis[0])
    assert [int(x.dom.extent) for x in (outer, middle, inner)] == [2, 4, 8]
    s[b].vectorize(inner)
    x, y = np.arange(64, dtype="float32"), np.zeros(64, "float32")
    tvm.build(s, [a, b])(x, y)
    np.testing.assert_array_equal(y, 2 * x)


@pytest.mark.parametrize("shape", [(64, 64, 64), (16, 48, 100)])
@pytest.mark.parametrize("op", ["matmul", "dense"])
def test_fallback_config_is_the_default_schedule(op: str, shape: tuple[int, int, int]) -> None:
    """Outside any tuning context the templates build cpu_dense's schedule, tile for tile."""
    m, k, n = shape
    s, _ = getattr(templates, op)(m, k, n)
    a = te.placeholder((m, k), name="A")
    if op == "matmul":
        out = nn.matmul(a, te.placeholder((k, n), name="B"), False, False)
    else:
        out = nn.dense(a, te.placeholder((n, k), name="weight"))
    default = te.create_schedule(out.op)
    schedule.cpu_dense(default, out)
    assert primitives(s) == primitives(default)


def test_tune_log_reload_and_apply_history_best(tmp_path: Path) -> None:
    m, k, n = 32, 32, 64
    task = autotvm.task.create("matmul.llvm", args=(m, k, n), target="llvm")
    assert len(task.config_space) == 6 * 7 * 5 * 2 * 2 and task.flop == 2 * m * k * n
    log = tmp_path / "matmul.log"
    option = autotvm.measure_option(
        builder=autotvm.LocalBuilder(), runner=autotvm.LocalRunner(**MEASURE)
    )
    progress: list[str] = []

    class Lines:
        def write(self, text: str) -> None:
            progress.append(text)

        def flush(self) -> None:
            pass

    callbacks = [
        autotvm.callback.log_to_file(log),
        autotvm.callback.progress_bar(3, stream=Lines()),  # type: ignore[arg-type]
    ]
    grid = autotvm.GridSearchTuner(task)
    grid.tune(n_trial=3, measure_option=option, callbacks=callbacks, recheck=0)
    random = autotvm.RandomTuner(task, seed=1)
    random.tune(n_trial=2, measure_option=option, callbacks=callbacks, recheck=0)
    assert len(progress) == 5 and "Progress: (3/3)" in progress[2]

    lines = log.read_text().splitlines()
    records = list(autotvm.record.load_from_file(log))
    assert len(records) == 5
    assert [r[0].config.index for r in records[:3]] == [0, 1, 2]  # grid order
    for line, (inp, result) in zip(lines, records, strict=True):
        assert autotvm.record.encode(inp, result) == line  # records round-trip
        assert json.loads(line)["workload"] == ["matmul.llvm", m, k, n]
        assert result.error_no == 0 and result.costs and result.costs[0] > 0
    best_inp, best_result = min(records, key=lambda r: np.mean(r[1].costs))
    assert min(grid.best_cost, random.best_cost) == pytest.approx(np.mean(best_result.costs))

    best_log = tmp_path / "best.log"
    autotvm.record.pick_best(log, best_log)
    assert [autotvm.record.decode(x)[0].config for x in best_log.read_text().splitlines()] == [
        best_inp.config
    ]

    default, _ = templates.matmul(m, k, n)
    with autotvm.apply_history_best(log):
        s, args = templates.matmul(m, k, n)
        other, _ = templates.matmul(m, k, 32)  # no record: the default schedule
    tuned, _ = task.instantiate(best_inp.config)
    assert primitives(s) == primitives(tuned)
    assert primitives(s) != primitives(default)  # the grid's first tiles are not the default
    assert primitives(other) == primitives(templates.matmul(m, k, 32)[0])
    run_matmul(s, args, m, k, n)


@pytest.mark.parametrize("shape", [(16, 24, 64), (12, 8, 40)])
def test_packed_weight_panels_compute_the_product(shape: tuple[int, int, int]) -> None:
    # every tile of rows by columns (guarded where they do not divide), the weight's column
    # panels packed: numpy's product
    m, k, n = shape
    task = autotvm.task.create("matmul.llvm", args=shape, target="llvm")
    configs = [c for c in task.config_space if c["pack"].val and c["tile_k"].size[-1] == 4]
    assert len(configs) >= 8
    for config in configs[:: max(1, len(configs) // 8)]:
        s, args = task.instantiate(config)
        assert any(isinstance(p, CachePrimitive) for p in s.primitives)
        run_matmul(s, args, m, k, n)
    timer = tvm.build(*task.instantiate(configs[0]), target="llvm")
    a, b, c = (np.zeros(t, "float32") for t in ((m, k), (k, n), (m, n)))
    costs = timer.time_evaluator(timer.entry_name, number=2, repeat=2, clock="thread")(a, b, c)
    assert len(costs.results) == 2 and min(costs.results) > 0
    with pytest.raises(ValueError, match="unknown clock 'cpu'"):
        timer.time_evaluator(timer.entry_name, clock="cpu")(a, b, c)
    with pytest.raises(ValueError, match="unknown clock 'cpu'"):
        autotvm.LocalRunner(clock="cpu")


def test_cache_flush_runs_untimed_before_each_call(tmp_path: Path) -> None:
    from xtvm.runtime.module import time_function

    flushes, calls = [], []

    def flush() -> None:  # 50 ms of the thread's CPU: far more than the call
        flushes.append(len(calls))
        end = time.thread_time() + 0.05
        while time.thread_time() < end:
            pass

    result = time_function(lambda: calls.append(1), 3, 2, clock="thread", flush=flush)
    assert len(result.results) == 2 and max(result.results) < 0.01  # the flush is not timed
    assert flushes == [1, 2, 3, 4, 5, 6]  # before each timed call (after the warm-up)

    # a runner that evicts the caches measures a real candidate
    task = autotvm.task.create("matmul.llvm", args=(16, 16, 32), target="llvm")
    runner = autotvm.LocalRunner(**MEASURE, cache_flush=True)
    option = autotvm.measure_option(builder=autotvm.LocalBuilder(), runner=runner)
    log = tmp_path / "flushed.log"
    autotvm.GridSearchTuner(task).tune(
        1, option, callbacks=[autotvm.callback.log_to_file(log)], recheck=0
    )
    ((_, measured),) = autotvm.record.load_from_file(log)
    assert measured.error_no == 0 and min(measured.costs) > 0


@autotvm.template("test.flaky_matmul")
def flaky_matmul(m: int, k: int, n: int) -> tuple[te.Schedule, list[Any]]:
    """A matmul whose `mode` knob breaks the build: raises, kills the process, or hangs."""
    cfg = autotvm.get_config()
    cfg.define_knob("mode", ["ok", "raise", "crash", "hang"])
    mode = cfg["mode"].val
    if not isinstance(cfg, autotvm.ConfigEntity) or mode == "ok":
        a = te.placeholder((m, k), name="A")
        b = te.placeholder((k, n), name="B")
        out = nn.matmul(a, b, False, False)
        return te.create_schedule(out.op), [a, b, out]
    if mode == "raise":
        raise ValueError("no schedule for this config")
    if mode == "crash":
        os._exit(3)
    time.sleep(60)
    raise AssertionError("unreachable: the builder times out first")


def test_failing_candidates_give_error_records(tmp_path: Path) -> None:
    """Each failure is recorded with its error code and the tuning goes on."""
    task = autotvm.task.create("test.flaky_matmul", args=(16, 16, 16), target="llvm")
    log = tmp_path / "flaky.log"
    option = autotvm.measure_option(
        builder=autotvm.LocalBuilder(timeout=2), runner=autotvm.LocalRunner(**MEASURE)
    )
    tuner = autotvm.GridSearchTuner(task)
    tuner.tune(n_trial=10, measure_option=option, callbacks=[autotvm.callback.log_to_file(log)])
    records = list(autotvm.record.load_from_file(log))
    assert len(records) == 4  # the whole space
    codes = {inp.config["mode"].val: result.error_no for inp, result in records}
    errors = autotvm.MeasureErrorNo
    assert codes == {
        "ok": errors.NO_ERROR,
        "raise": errors.INSTANTIATION_ERROR,
        "crash": errors.COMPILE_HOST,
        "hang": errors.BUILD_TIMEOUT,
    }
    assert "no schedule for this config" in records[1][1].error_msg
    assert tuner.best_config is not None and tuner.best_config["mode"].val == "ok"


def test_early_stopping_ends_the_search() -> None:
    """The first config is the best; the next fails, and one trial without progress stops."""
    task = autotvm.task.create("test.flaky_matmul", args=(8, 8, 8), target="llvm")
    option = autotvm.measure_option(runner=autotvm.LocalRunner(**MEASURE))
    tuner = autotvm.GridSearchTuner(task)
    tuner.tune(n_trial=4, measure_option=option, early_stopping=1)
    assert tuner.trial == 2


def test_get_config_outside_a_template_is_an_error() -> None:
    with pytest.raises(RuntimeError, match=r"inside an autotvm\.template"):
        autotvm.get_config()
