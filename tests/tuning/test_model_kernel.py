"""A model's tasks measure the model's own fused kernels: a candidate is built as exactly the
code `relay.build` makes of that kernel under a record of the candidate's config."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from xdsl.dialects import func

import xtvm as tvm
from xtvm import autotvm, relay
from xtvm.contrib import graph_executor
from xtvm.driver.relay_build import lower_for_build, lower_kernels
from xtvm.te.lower import schedule_to_module
from xtvm.tuning.measure import BuildResult, MeasureInput, MeasureResult, build_candidate
from xtvm.tuning.model_tuner import tune_model
from xtvm.tuning.record import encode
from xtvm.tuning.task import Task


def conv_dense_net() -> tuple[Any, dict[str, np.ndarray]]:
    """A 3x3 conv2d with a bias and relu epilogue, then a dense of its flattened output."""
    rng = np.random.default_rng(0)
    params = {
        "w": rng.standard_normal((24, 8, 3, 3)).astype("float32"),
        "b": rng.standard_normal(24).astype("float32"),
        "d": rng.standard_normal((10, 24 * 9 * 9)).astype("float32"),
    }
    x = relay.var("x", shape=(1, 8, 9, 9))
    w, b, d = (relay.var(k, shape=v.shape) for k, v in params.items())
    y = relay.nn.relu(relay.nn.bias_add(relay.nn.conv2d(x, w, padding=(1, 1)), b))
    z = relay.nn.dense(relay.nn.batch_flatten(y), d)
    return tvm.IRModule.from_expr(relay.Function([x, w, b, d], z)), params


def model_tasks() -> tuple[Any, dict[str, np.ndarray], list[Task]]:
    mod, params = conv_dense_net()
    tasks = autotvm.task.extract_from_program(mod, params, "llvm")
    return mod, params, [t for t in tasks if t.built_by_default]


def kernel_bodies(mod: Any, params: dict[str, np.ndarray]) -> dict[str, str]:
    """The tir body of each kernel relay.build compiles (under the current dispatch context)."""
    _, kernels = lower_for_build(mod, params, "llvm")
    return {f.sym_name.data: body(f) for f in kernels.walk() if isinstance(f, func.FuncOp)}


def body(kernel: func.FuncOp) -> str:
    """A kernel's printed tir without its first line (its name and visibility)."""
    return str(kernel).split("\n", 1)[1]


def candidate_body(task: Task, index: int) -> str:
    """The tir body the tuner builds of `task`'s config `index`."""
    s, tensors = task.instantiate(task.config_space.get(index))
    module = schedule_to_module(s, tensors, "candidate")
    lower_kernels(module)
    (kernel,) = [f for f in module.walk() if isinstance(f, func.FuncOp)]
    return body(kernel)


def other_config(task: Task) -> int:
    """A config of `task` whose candidate differs from the default's."""
    default = task.default_index()
    assert default is not None
    base = candidate_body(task, default)
    for index in range(1, len(task.config_space), max(1, len(task.config_space) // 40)):
        if index != default and candidate_body(task, index) != base:
            return index
    raise AssertionError(f"no config of {task} differs from its default")


def test_each_model_task_holds_the_kernel_that_asks_for_its_workload() -> None:
    _, _, tasks = model_tasks()
    names = {t.name: t.kernel.name for t in tasks if t.kernel is not None}
    assert len(names) == len(tasks) == 2, names
    conv = next(n for k, n in names.items() if k.startswith("conv2d"))
    assert "bias_add" in conv and "relu" in conv  # the fused epilogue is part of it
    assert names["dense.llvm"].startswith("fused_nn_dense")


def test_a_candidate_is_the_code_relay_build_makes_under_its_record(tmp_path: Path) -> None:
    """For the default config and another one of each task: the candidate's tir is the tir of
    relay.build's kernel built with a record of that config (the model's own code)."""
    mod, params, tasks = model_tasks()
    default_build = kernel_bodies(mod, params)
    for task in tasks:
        assert task.kernel is not None
        default = task.default_index()
        assert default is not None
        assert candidate_body(task, default) == default_build[task.kernel.name]
        index = other_config(task)
        log = tmp_path / f"{task.name}.json"
        inp = MeasureInput("llvm", task, task.config_space.get(index))
        log.write_text(encode(inp, MeasureResult([1e-6], 0, 0.1, 1.0)) + "\n")
        with autotvm.apply_history_best(str(log)):
            tuned_build = kernel_bodies(mod, params)
        assert tuned_build[task.kernel.name] != default_build[task.kernel.name]
        assert candidate_body(task, index) == tuned_build[task.kernel.name]


def test_a_model_kernel_is_timed_with_its_inputs_warm_and_weights_flushed(
    tmp_path: Path,
) -> None:
    """The builder names the arguments the kernels before it wrote (the conv2d's data, not
    its weight and bias), and a flushing runner times the kernel."""
    _, _, tasks = model_tasks()
    conv = next(t for t in tasks if t.name.startswith("conv2d"))
    assert conv.kernel is not None
    assert conv.kernel.inputs == 1
    inp = MeasureInput("llvm", conv, conv.config_space.get(conv.default_index()))
    reply = build_candidate(inp, str(tmp_path / "conv.so"))
    assert reply["warm"] == [0], reply
    build = BuildResult.of_reply(reply, reply["filename"], 0.1)
    assert build.warm == [0]
    runner = autotvm.LocalRunner(number=2, repeat=2, cache_flush=True)
    try:
        result = runner.run_one(build)
    finally:
        runner.close()
    assert result.error_no == 0 and len(result.costs) == 2 and min(result.costs) > 0, result


def test_a_template_task_builds_the_templates_kernel() -> None:
    """A task made by hand (no model) builds the template's own kernel, as before."""
    task = autotvm.task.create("dense.llvm", (1, 216, 10, "float32"), "llvm")
    assert task.kernel is None
    _, tensors = task.instantiate(task.config_space.get(0))
    assert [tuple(int(d) for d in t.shape) for t in tensors] == [(1, 216), (10, 216), (1, 10)]


def test_a_pickled_task_leaves_its_model_kernel_behind() -> None:
    """A task sent to another process (a Ray build) carries its workload, not the model's
    lowering its kernel closes over; the task here keeps its kernel."""
    _, _, tasks = model_tasks()
    task = tasks[0]
    copy = pickle.loads(pickle.dumps(task))
    assert copy.kernel is None and task.kernel is not None
    assert copy.workload == task.workload


@pytest.mark.slow
def test_tuning_a_model_measures_its_kernels_and_the_records_build_it(tmp_path: Path) -> None:
    """A short real tuning of the model's kernels: every candidate builds and runs, and the
    model built with the chosen records computes what the default build does."""
    mod, params, tasks = model_tasks()
    best = tmp_path / "best.json"
    option = autotvm.measure_option(
        builder=autotvm.LocalBuilder(),
        runner=autotvm.LocalRunner(number=2, repeat=2, cache_flush=True),
    )
    results = tune_model(tasks, option, n_trial=8, per_round=2, best_log=best)
    measured = [result for r in results for _, result in r.history]
    assert measured and all(m.error_no == 0 for m in measured), measured
    assert best.read_text().count("\n") == len(tasks)
    x = np.random.default_rng(1).standard_normal((1, 8, 9, 9)).astype("float32")
    outputs = []
    for records in (None, best):
        if records is None:
            lib = relay.build(mod, target="llvm", params=params)
        else:
            with autotvm.apply_history_best(str(records)):
                lib = relay.build(mod, target="llvm", params=params)
        module = graph_executor.GraphModule(lib["default"](tvm.cpu(0)))
        module.run(x=x)
        outputs.append(module.get_output(0).numpy())
    np.testing.assert_allclose(outputs[1], outputs[0], rtol=1e-4, atol=1e-4)
