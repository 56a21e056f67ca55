"""Measuring on Ray: builds as Ray tasks, runs on measuring actors of a local Ray instance,
with LocalBuilder's and LocalRunner's results and error codes. One test: Ray starts slowly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import xtvm as tvm
from xtvm import auto_scheduler, autotvm, te
from xtvm.topi import nn
from xtvm.tuning import measure
from xtvm.tuning.auto_scheduler.loop_state import SplitStep, State
from xtvm.tuning.callback import log_to_file
from xtvm.tuning.measure import BuildResult, MeasureErrorNo
from xtvm.tuning.ray_measure import RayBuilder, RayRunner


@auto_scheduler.register_workload
def ray_test_matmul(n: int, m: int, k: int) -> list[te.Tensor]:
    a = te.placeholder((n, k), name="A")
    b = te.placeholder((k, m), name="B")
    return [a, b, nn.matmul(a, b, False, False)]


def slow_library(path: Path) -> BuildResult:
    """A naive 256^3 matmul: tens of milliseconds a run."""
    tensors = ray_test_matmul(256, 256, 256)
    s = te.create_schedule(tensors[-1].op)
    tvm.build(s, tensors, target="llvm", name=measure.ENTRY).export_library(str(path))
    return BuildResult(str(path), [[[256, 256], "float32"]] * 3)


def test_tuning_through_ray_and_its_error_codes(tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        # an auto-scheduler task whose workload only this process has registered
        task = auto_scheduler.SearchTask(func=ray_test_matmul, args=(16, 32, 8))
        log = tmp_path / "ray.json"
        builder = RayBuilder(timeout=60)
        runner = RayRunner(number=2, repeat=1, timeout=20, num_workers=2)
        options = auto_scheduler.TuningOptions(
            num_measure_trials=4,
            num_measures_per_round=2,  # a second round builds while the actors live
            builder=builder,
            runner=runner,
            measure_callbacks=[auto_scheduler.RecordToFile(log)],
            verbose=0,
        )
        task.tune(options)
        records = list(auto_scheduler.load_records(log))
        assert len(records) == 4
        assert all(r.error_no == 0 and r.costs and min(r.costs) > 0 for _, r in records), records
        s, tensors = task.apply_best(log)
        rng = np.random.default_rng(0)
        a, b = rng.standard_normal((16, 8), "float32"), rng.standard_normal((8, 32), "float32")
        c = np.zeros((16, 32), "float32")
        tvm.build(s, tensors, target="llvm")(a, b, c)
        np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)

        # a candidate that does not instantiate: an error, not a failed tuning
        bogus = State((SplitStep("nope", 0, 16, (4,)),))
        (failed,) = builder.build([measure.MeasureInput("llvm", task, bogus)])  # type: ignore[arg-type]
        assert failed.error_no == MeasureErrorNo.INSTANTIATION_ERROR and "nope" in failed.error_msg
        (passed_on,) = runner.run([], [failed])
        assert passed_on.error_no == MeasureErrorNo.INSTANTIATION_ERROR and not passed_on.costs

        # an AutoTVM tuner batches as many configs as the builder builds at once
        dense = autotvm.task.create("dense.llvm", args=(8, 16, 16))
        dense_log = tmp_path / "dense.json"
        option = autotvm.measure_option(builder=builder, runner=runner)
        assert builder.n_parallel == 2  # the instance's CPUs
        tuner = autotvm.RandomTuner(dense, seed=0)
        tuner.tune(n_trial=2, measure_option=option, callbacks=[log_to_file(dense_log)], recheck=0)
        assert [r.error_no for _, r in autotvm.record.load_from_file(dense_log)] == [0, 0]
        runner.close()

        # one actor: a library that does not load, then one slower than the timeout
        alone = RayRunner(number=50, repeat=1, timeout=0.5, num_workers=1)
        garbage = tmp_path / "garbage.so"
        garbage.write_bytes(b"not a library")
        broken, slow = alone.run(
            [], [BuildResult(str(garbage), []), slow_library(tmp_path / "slow.so")]
        )
        assert broken.error_no == MeasureErrorNo.RUNTIME_DEVICE, broken
        assert slow.error_no == MeasureErrorNo.RUN_TIMEOUT, slow
        alone.close()
    finally:
        ray.shutdown()
