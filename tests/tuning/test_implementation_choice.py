"""Choosing a layer's implementation from tuning records: a 3x3 conv2d that could be direct or
winograd gets a task of each, and relay.build builds the one whose record is fastest."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import xtvm as tvm
from xtvm import autotvm, relay
from xtvm.contrib import graph_executor
from xtvm.driver.relay_build import lower_to_te
from xtvm.tuning.measure import MeasureInput, MeasureResult
from xtvm.tuning.task import Task, TracingContext, Workload

SMALL, LARGE = 7, 16  # output sides: 4 winograd tiles (direct by default), 16 (winograd)


def two_convs() -> tuple[Any, dict[str, np.ndarray]]:
    """Two 3x3 convolutions: 16 -> 32 channels on a 7x7 input, 16 -> 32 on a 16x16 one."""
    a = relay.var("a", shape=(1, 16, SMALL, SMALL))
    b = relay.var("b", shape=(1, 16, LARGE, LARGE))
    wa, wb = relay.var("wa", shape=(32, 16, 3, 3)), relay.var("wb", shape=(32, 16, 3, 3))
    ya = relay.nn.relu(relay.nn.conv2d(a, wa, padding=(1, 1)))
    yb = relay.nn.relu(relay.nn.conv2d(b, wb, padding=(1, 1)))
    mod = tvm.IRModule.from_expr(relay.Function([a, b, wa, wb], relay.Tuple([ya, yb])))
    rng = np.random.default_rng(0)
    params = {
        "wa": rng.standard_normal((32, 16, 3, 3)).astype("float32"),
        "wb": rng.standard_normal((32, 16, 3, 3)).astype("float32"),
    }
    return mod, params


def side(task: Task) -> int:
    return task.args[0][1]  # the NHWC input's rows


def lowered(mod: Any, params: dict[str, np.ndarray]) -> dict[Workload, str]:
    """The workloads of the kernels lowered (under the current dispatch context)."""
    with TracingContext() as tracing:
        lower_to_te(mod, params, "llvm")
    assert isinstance(tracing, TracingContext)
    return tracing.workloads


def record(task: Task, seconds: float) -> tuple[MeasureInput, MeasureResult]:
    index = task.default_index()
    assert index is not None
    return MeasureInput("llvm", task, task.config_space.get(index)), MeasureResult(
        [seconds], 0, 0.1, 1.0
    )


def conv_nchw(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    n, _, h, width = x.shape
    padded = np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)])
    out = np.zeros((n, w.shape[0], h, width), "float32")
    for i in range(3):
        for j in range(3):
            window = padded[:, :, i : i + h, j : j + width]
            out += np.einsum("nchw,fc->nfhw", window, w[:, :, i, j])
    return out


def run(mod: Any, params: dict[str, np.ndarray], log: Path | None) -> list[np.ndarray]:
    if log is None:
        lib = relay.build(mod, target="llvm", params=params)
    else:
        with autotvm.apply_history_best(log):
            lib = relay.build(mod, target="llvm", params=params)
    module = graph_executor.GraphModule(lib["default"](tvm.cpu(0)))
    rng = np.random.default_rng(1)
    for name, rows in (("a", SMALL), ("b", LARGE)):
        module.set_input(name, rng.standard_normal((1, 16, rows, rows)).astype("float32"))
    module.run()
    return [module.get_output(k).numpy() for k in range(2)]


def test_each_implementation_is_a_task_and_the_fastest_record_is_built(tmp_path: Path) -> None:
    mod, params = two_convs()
    tasks = autotvm.task.extract_from_program(mod, params, "llvm")
    found = sorted((t.name, side(t), t.calls) for t in tasks)
    assert found == [
        ("conv2d_nhwc.llvm", SMALL, 1),
        ("conv2d_nhwc.llvm", LARGE, 1),
        ("conv2d_winograd_nhwc.llvm", SMALL, 1),
        ("conv2d_winograd_nhwc.llvm", LARGE, 1),
    ]
    by = {(t.name.split("_nhwc")[0], side(t)): t for t in tasks}
    default = lowered(mod, params)
    # untuned: direct on the 7x7 layer, winograd on the 16x16 one
    assert by["conv2d", SMALL].workload in default and by["conv2d", LARGE].workload not in default
    assert by["conv2d_winograd", LARGE].workload in default
    assert by["conv2d_winograd", SMALL].workload not in default

    # records that make the other implementation of each layer the faster one
    log = tmp_path / "records.json"
    autotvm.record.save_to_file(
        log,
        [
            record(by["conv2d", SMALL], 2e-4),
            record(by["conv2d_winograd", SMALL], 1e-4),
            record(by["conv2d", LARGE], 1e-4),
            record(by["conv2d_winograd", LARGE], 2e-4),
        ],
    )
    with autotvm.apply_history_best(log):
        tuned = lowered(mod, params)
    # the workload each alternative was named by is the one its lowered kernel has
    assert by["conv2d_winograd", SMALL].workload in tuned
    assert by["conv2d", LARGE].workload in tuned
    assert by["conv2d", SMALL].workload not in tuned
    assert by["conv2d_winograd", LARGE].workload not in tuned

    rng = np.random.default_rng(1)
    a = rng.standard_normal((1, 16, SMALL, SMALL)).astype("float32")
    b = rng.standard_normal((1, 16, LARGE, LARGE)).astype("float32")
    expected = [np.maximum(conv_nchw(x, params[w]), 0) for x, w in ((a, "wa"), (b, "wb"))]
    for got, want in zip(run(mod, params, log), expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)


def test_a_layer_with_one_implementation_recorded_keeps_its_default(tmp_path: Path) -> None:
    mod, params = two_convs()
    tasks = autotvm.task.extract_from_program(mod, params, "llvm")
    winograd_small = next(t for t in tasks if "winograd" in t.name and side(t) == SMALL)
    log = tmp_path / "records.json"
    autotvm.record.save_to_file(log, [record(winograd_small, 1e-9)])
    with autotvm.apply_history_best(log):
        tuned = lowered(mod, params)
    assert winograd_small.workload not in tuned  # nothing to compare it with: direct stays
    assert tuned.keys() == lowered(mod, params).keys()


@pytest.mark.parametrize("winner", ["direct", "winograd"])
def test_a_chosen_record_decides_over_a_faster_timing(tmp_path: Path, winner: str) -> None:
    """A re-check's chosen record of a workload is what its cost is, not a faster stray one."""
    mod, params = two_convs()
    tasks = autotvm.task.extract_from_program(mod, params, "llvm")
    direct = next(t for t in tasks if "winograd" not in t.name and side(t) == SMALL)
    wino = next(t for t in tasks if "winograd" in t.name and side(t) == SMALL)
    lucky = record(direct, 1e-6)  # a lucky timing, overruled by the chosen record below
    chosen = record(direct, 3e-4 if winner == "winograd" else 1e-4)
    chosen[1].verdict = "chosen"
    log = tmp_path / "records.json"
    autotvm.record.save_to_file(log, [lucky, chosen, record(wino, 2e-4)])
    with autotvm.apply_history_best(log):
        tuned = lowered(mod, params)
    assert (wino.workload in tuned) == (winner == "winograd")


def test_tune_model_keeps_an_implementation_only_where_it_wins_side_by_side(
    tmp_path: Path,
) -> None:
    """Made-up costs: winograd is truly faster on the 7x7 layer; direct on the 16x16 layer
    looks faster at each config's first timing (a quiet moment) and is slower after. The
    paired re-check keeps winograd for both layers, and the build follows it."""
    mod, params = two_convs()
    tasks = autotvm.task.extract_from_program(mod, params, "llvm")
    seen: dict[tuple[str, int, int], int] = {}

    def cost(inp: MeasureInput) -> float:
        key = (inp.task.name, side(inp.task), inp.config.index)
        before = seen[key] = seen.get(key, 0) + 1
        if "winograd" in inp.task.name:
            return 1e-4 if side(inp.task) == SMALL else 2e-4
        if side(inp.task) == SMALL:
            return 2e-4
        return 1e-5 if before == 1 else 3e-4

    def measure(inputs: Any) -> list[MeasureResult]:
        return [MeasureResult([cost(inp)], 0, 0.0, 0.0) for inp in inputs]

    log, best = tmp_path / "log.json", tmp_path / "best.json"
    results = autotvm.tune_model(tasks, n_trial=8, per_round=2, log=log, best_log=best,
                                 measure=measure)  # fmt: skip
    used = {(r.task.name.split("_nhwc")[0], side(r.task)): r.used for r in results}
    assert used == {
        ("conv2d", SMALL): True,
        ("conv2d_winograd", SMALL): True,
        ("conv2d", LARGE): False,  # its records say 1e-5, its re-check 3e-4
        ("conv2d_winograd", LARGE): True,
    }
    verdicts = [r.verdict for _, r in autotvm.record.load_from_file(log) if r.verdict]
    assert sorted(verdicts) == ["chosen", "chosen", "rejected", "rejected"]  # two layers
    decided = list(autotvm.record.load_from_file(best))
    assert len(decided) == 3 and all(r.verdict == "chosen" for _, r in decided)
    by = {(t.name.split("_nhwc")[0], side(t)): t for t in tasks}
    with autotvm.apply_history_best(best):
        tuned = lowered(mod, params)
    assert by["conv2d_winograd", SMALL].workload in tuned
    assert by["conv2d_winograd", LARGE].workload in tuned
    assert by["conv2d", SMALL].workload not in tuned and by["conv2d", LARGE].workload not in tuned


def test_an_implementation_far_slower_than_its_layers_gets_trials_last() -> None:
    mod, params = two_convs()
    tasks = autotvm.task.extract_from_program(mod, params, "llvm")

    def measure(inputs: Any) -> list[MeasureResult]:
        costs = []
        for inp in inputs:
            winograd, large = "winograd" in inp.task.name, side(inp.task) == LARGE
            slow = large and not winograd  # direct on the large layer: 5x its winograd
            costs.append(1e-3 if slow else 2e-4 * (1 + inp.config.index % 7 / 10))
        return [MeasureResult([c], 0, 0.0, 0.0) for c in costs]

    results = autotvm.tune_model(tasks, n_trial=16, per_round=2, measure=measure)
    trials = {(r.task.name.split("_nhwc")[0], side(r.task)): len(r.history) for r in results}
    # its default only (and the re-checks against the other implementation's best)
    assert trials["conv2d", LARGE] == 1, trials
    assert all(n > 1 for key, n in trials.items() if key != ("conv2d", LARGE)), trials
