"""The auto-scheduler in relay.build: tasks from a model's kernels (extract_tasks), their
records applied by `ApplyHistoryBest` around relay.build, the built model still exact."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from xdsl.dialects import func

import xtvm as tvm
from xtvm import auto_scheduler, relay
from xtvm.driver.build import lower
from xtvm.driver.relay_build import lower_for_build
from xtvm.driver.relay_graph import TIR_PASSES, run_passes
from xtvm.passes.tir_serialize_parallel import MIN_PARALLEL_WORK, TirSerializeParallelPass
from xtvm.testing.relay import run_factory, tuning_model

RUNNER = {"number": 2, "repeat": 1, "min_repeat_ms": 0, "timeout": 20}


@pytest.fixture(scope="module")
def model() -> tuple[Any, dict[str, np.ndarray]]:
    """conv2d + relu, a dense on its result, and two batch_matmuls of the same shapes."""
    return tuning_model()


def kernel_text(mod: Any, params: dict[str, np.ndarray], name: str) -> str:
    kernels = lower_for_build(mod, params, "llvm")[1]
    found = [f for f in kernels.ops if isinstance(f, func.FuncOp) and f.sym_name.data == name]
    return str(found[0])


def test_extract_tasks_tune_and_build_with_the_best_records(
    model: tuple[Any, dict[str, np.ndarray]], tmp_path: Path
) -> None:
    mod, params = model
    tasks, weights = auto_scheduler.extract_tasks(mod["main"], params, "llvm")
    by_desc = dict(zip((t.desc for t in tasks), weights, strict=True))
    # the relu is fused into the conv2d's kernel; the negation is elementwise: no task of its
    # own, and the second batch_matmul is the first kernel called again (weight 2)
    assert sorted(by_desc) == ["fused_nn_batch_matmul", "fused_nn_conv2d_nn_relu", "fused_nn_dense"]
    assert by_desc["fused_nn_batch_matmul"] == 2
    batch = next(t for t in tasks if t.desc == "fused_nn_batch_matmul")
    key = json.loads(batch.workload_key)
    assert key[1:] == [[2, 16, 8], [2, 12, 8], [2, 16, 12]]  # [hash, *shapes]
    again, _ = auto_scheduler.extract_tasks(mod, params, "llvm")
    assert sorted(t.workload_key for t in again) == sorted(t.workload_key for t in tasks)

    log = tmp_path / "records.json"
    options = auto_scheduler.TuningOptions(
        num_measure_trials=3,
        num_measures_per_round=3,
        runner=auto_scheduler.LocalRunner(**RUNNER),
        measure_callbacks=[auto_scheduler.RecordToFile(log)],
        verbose=0,
    )
    for task in tasks:
        task.tune(options)

    # each task measured its kernel's default schedule first: the baseline (not a trial)
    records = list(auto_scheduler.load_records(log))
    baselines = [(inp, r) for inp, r in records if inp.state.is_default and not r.verdict]
    assert sorted(inp.workload_key for inp, _ in baselines) == sorted(t.workload_key for t in tasks)
    assert all(r.error_no == 0 and r.costs for _, r in baselines), baselines
    rechecks = [r.verdict for _, r in records if r.verdict]  # a best against its default
    assert len(records) == 4 * len(tasks) + len(rechecks) and len(rechecks) % 2 == 0
    assert rechecks.count("chosen") == rechecks.count("rejected")
    searched = [(inp, r) for inp, r in records if not inp.state.is_default and not r.verdict]

    default = kernel_text(mod, params, "fused_nn_batch_matmul")
    with auto_scheduler.ApplyHistoryBest([]):
        assert kernel_text(mod, params, "fused_nn_batch_matmul") == default
    with auto_scheduler.ApplyHistoryBest(searched) as best:
        tuned = kernel_text(mod, params, "fused_nn_batch_matmul")
    assert sorted(best.applied) == sorted(by_desc)
    # where the default schedule is the fastest record, the kernel keeps it
    fastest = [(inp, auto_scheduler.MeasureResult([1e-9], 0, 0.1, 1.0)) for inp, _ in baselines]
    with auto_scheduler.ApplyHistoryBest(searched + fastest) as best:
        assert kernel_text(mod, params, "fused_nn_batch_matmul") == default
    assert best.applied == {}
    # the kernel relay.build makes is the record's schedule, lowered alike
    s, args = auto_scheduler.ApplyHistoryBest(searched).apply(batch)  # type: ignore[misc]
    alone = lower(s, args, name="fused_nn_batch_matmul")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # relay.build runs loops too small for the thread pool serially, tuned or not
        run_passes(alone, [*TIR_PASSES, TirSerializeParallelPass(MIN_PARALLEL_WORK)])
    assert str(alone.body.block.first_op) == tuned
    assert tuned != default

    # TVM's spelling: the pass config flag inside the records' context
    with (
        auto_scheduler.ApplyHistoryBest(log),
        tvm.transform.PassContext(opt_level=3, config={"relay.backend.use_auto_scheduler": True}),
    ):
        lib = relay.build(mod, target="llvm", params=params)
    rng = np.random.default_rng(1)
    inputs = {
        "x": rng.standard_normal((1, 8, 6, 6)).astype("float32"),
        "q": rng.standard_normal((2, 16, 8)).astype("float32"),
        "k": rng.standard_normal((2, 12, 8)).astype("float32"),
    }
    got = run_factory(lib, **inputs)
    expected = run_factory(relay.build(mod, target="llvm", params=params), **inputs)
    for tuned_out, default_out in zip(got, expected, strict=True):
        np.testing.assert_allclose(tuned_out, default_out, rtol=1e-4, atol=1e-4)
    attention = inputs["q"] @ inputs["k"].transpose(0, 2, 1)
    np.testing.assert_allclose(got[1], attention, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got[2], -attention, rtol=1e-4, atol=1e-4)


def test_records_of_another_target_kind_are_not_applied(
    model: tuple[Any, dict[str, np.ndarray]], tmp_path: Path
) -> None:
    mod, params = model
    tasks, _ = auto_scheduler.extract_tasks(mod, params, "llvm")
    batch = next(t for t in tasks if t.desc == "fused_nn_batch_matmul")
    policy = auto_scheduler.SketchPolicy(batch, seed=0, verbose=0)
    state = policy.next_states(1)[0]
    inp = auto_scheduler.MeasureInput(batch.workload_key, "cuda", state)
    result = auto_scheduler.MeasureResult([1e-6], 0, 0.1, 1.0)
    log = tmp_path / "cuda.json"
    auto_scheduler.save_records(log, [inp], [result])
    default = kernel_text(mod, params, "fused_nn_batch_matmul")
    with auto_scheduler.ApplyHistoryBest(log) as best:
        assert kernel_text(mod, params, "fused_nn_batch_matmul") == default
    assert best.applied == {}
    llvm = auto_scheduler.MeasureInput(batch.workload_key, "llvm -mcpu=generic", state)
    auto_scheduler.save_records(log, [llvm], [result])
    with auto_scheduler.ApplyHistoryBest(log) as best:
        assert kernel_text(mod, params, "fused_nn_batch_matmul") != default
    assert list(best.applied) == ["fused_nn_batch_matmul"]
