"""A tuning's records checked inside the model (`autotvm.check_model_records`), and the
per-kernel profiler it times with (`xtvm.runtime.profiling`, `contrib.debugger`)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import xtvm as tvm
from xtvm import autotvm, relay
from xtvm.contrib.debugger import debug_executor
from xtvm.runtime.profiling import executor_of, kernel_seconds
from xtvm.runtime.threads import get_num_threads, set_num_threads
from xtvm.tuning.measure import MeasureInput, MeasureResult
from xtvm.tuning.model_check import ModelCheckError, check_model_records
from xtvm.tuning.record import encode, load_from_file

CHANNELS, SIDE, CLASSES = 32, 28, 64


def conv_dense_model(branches: int = 1) -> tuple[tvm.IRModule, dict[str, np.ndarray]]:
    """x [1, 16, 28, 28] -> 1x1 conv2d to 32 channels -> relu (`branches` of them, the
    second on -x: two kernels of one workload) -> summed -> flatten -> dense to 64."""
    x = relay.var("x", shape=(1, 16, SIDE, SIDE))
    w = relay.var("w", shape=(CHANNELS, 16, 1, 1))
    d = relay.var("d", shape=(CLASSES, CHANNELS * SIDE * SIDE))
    y = relay.nn.relu(relay.nn.conv2d(x, w))
    if branches == 2:
        y = relay.add(y, relay.nn.relu(relay.nn.conv2d(relay.negative(x), w)))
    out = relay.nn.dense(relay.nn.batch_flatten(y), d)
    mod = tvm.IRModule.from_expr(relay.Function([x, w, d], out))
    rng = np.random.default_rng(0)
    params = {
        "w": rng.standard_normal((CHANNELS, 16, 1, 1)).astype("float32"),
        "d": rng.standard_normal((CLASSES, CHANNELS * SIDE * SIDE)).astype("float32"),
    }
    return mod, params


def inputs() -> dict[str, np.ndarray]:
    return {"x": np.random.default_rng(1).standard_normal((1, 16, SIDE, SIDE)).astype("float32")}


def write_records(
    mod: tvm.IRModule,
    params: dict[str, np.ndarray],
    path: Path,
    pick: Callable[[Any], int],
    target: str = "llvm",
) -> None:
    """One record per task of the model, the config `pick(task)`, for `target`."""
    tasks = autotvm.task.extract_from_program(mod, params=params, target="llvm")
    lines = []
    for task in tasks:
        config = task.config_space.get(pick(task))
        lines.append(encode(MeasureInput(target, task, config), MeasureResult([1e-5], 0, 1, 0)))
    path.write_text("".join(line + "\n" for line in lines))


def slowest_conv_default_dense(task: Any) -> int:
    """conv2d: the first config (1-channel by 1-column tiles: scalar code, many times slower
    than the default); dense: its default config."""
    return 0 if task.name.startswith("conv2d") else task.default_index()


def faked(tuned: Callable[[str, int], float]) -> Callable[[Any, Any], tuple[list, list]]:
    """A timer giving every default call 1 ms and each call of the tuned build `tuned(name,
    k)` ms: `name` its kernel's, `k` how many conv2d calls came before (of any kernel) where
    it is a conv2d, else of its kernel."""

    def timer(default: Any, tuned_module: Any) -> tuple[list[float], list[float]]:
        seen: dict[str, int] = {}
        after = []
        for name in tuned_module.call_names:
            key = "conv2d" if "conv2d" in name else name
            seen[key] = seen.get(key, -1) + 1
            after.append(1e-3 * tuned(name, seen[key]))
        return [1e-3] * len(default.call_names), after

    return timer


def test_a_much_slower_record_is_dropped_and_the_default_one_kept(tmp_path: Path) -> None:
    mod, params = conv_dense_model()
    records, out = tmp_path / "best.json", tmp_path / "kept.json"
    write_records(mod, params, records, slowest_conv_default_dense)
    check = check_model_records(mod, params, records, inputs(), out=out, runs=10)
    rows = {row.workload[0]: row for row in check.rows}
    assert set(rows) == {"conv2d_nhwc.llvm", "dense.llvm"}
    conv, dense = rows["conv2d_nhwc.llvm"], rows["dense.llvm"]
    assert not conv.kept and conv.tuned_s > conv.default_s and conv.calls == 1
    assert dense.kept and dense.same_code  # the default config lowers as the default build
    assert check.settled and len(check.checks) == 2  # checked again without the dropped one
    assert [r[0].task.name for r in load_from_file(out)] == ["dense.llvm"]
    assert [r[0].task.name for r in check.dropped] == ["conv2d_nhwc.llvm"]
    table = check.table()
    assert "no1  conv2d_nhwc.llvm (1, 28, 28, 16)" in table
    assert "yes  dense.llvm 1, 25088, 64, float32 (default code)" in table
    with autotvm.apply_history_best(out):  # the kept records build and run
        graph, lib, _ = relay.build(mod, "llvm", params)
    module = debug_executor.create(graph, lib)
    module.set_input(**inputs())
    module.run()
    assert module.get_output(0).numpy().shape == (1, CLASSES)


def test_a_record_on_several_kernels_counts_their_total(tmp_path: Path) -> None:
    mod, params = conv_dense_model(branches=2)
    records = tmp_path / "best.json"
    write_records(mod, params, records, lambda task: 0)  # non-default configs of both

    def kernels_of(tuned: Callable[[str, int], float]) -> dict[str, Any]:
        check = check_model_records(mod, params, records, inputs(), timer=faked(tuned))
        return {row.workload[0]: row for row in check.checks[0].rows}

    # one conv2d call 0.5 ms faster, the other 0.2 ms slower: faster in all, kept
    rows = kernels_of(lambda n, k: {0: 0.5, 1: 1.2}[k] if "conv2d" in n else 0.9)
    conv = rows["conv2d_nhwc.llvm"]
    assert conv.calls == 2 and conv.kept and conv.tuned_s == pytest.approx(1.7e-3)
    assert conv.default_s == pytest.approx(2e-3) and rows["dense.llvm"].kept
    # 0.5 ms faster, 0.6 ms slower: slower in all, dropped though one call gained
    rows = kernels_of(lambda n, k: {0: 0.5, 1: 1.6}[k] if "conv2d" in n else 0.9)
    assert not rows["conv2d_nhwc.llvm"].kept and rows["dense.llvm"].kept


def test_drops_are_checked_again_and_the_model_as_a_whole(tmp_path: Path) -> None:
    mod, params = conv_dense_model()
    records, out = tmp_path / "best.json", tmp_path / "kept.json"
    write_records(mod, params, records, lambda task: 0)

    # the dense record slower: dropped; checked again with the conv2d record alone, settled
    check = check_model_records(
        mod, params, records, inputs(), out=out, timer=faked(lambda n, k: 2.0 * ("dense" in n))
    )
    assert [len(c.rows) for c in check.checks] == [2, 1] and check.settled
    assert [r[0].task.name for r in load_from_file(out)] == ["conv2d_nhwc.llvm"]

    # every record's kernels faster, but another kernel of the tuned model slower: the
    # record of least gain goes (the dense: 0.1 ms against 0.5)
    def others_slower(name: str, k: int) -> float:
        return 0.5 if "conv2d" in name else 0.9 if "dense" in name else 3.0

    check = check_model_records(mod, params, records, inputs(), timer=faked(others_slower))
    first = check.checks[0]
    assert all(r.tuned_s < r.default_s for r in first.rows)
    assert [r.workload[0] for r in first.dropped] == ["dense.llvm"]

    # still slower after every check: bounded, and said
    check = check_model_records(
        mod, params, records, inputs(), timer=faked(lambda n, k: 3.0), max_checks=1
    )
    assert len(check.checks) == 1 and not check.settled
    assert "not settled after 1 checks" in check.table()


def test_records_it_cannot_check_are_clear(tmp_path: Path) -> None:
    mod, params = conv_dense_model()
    out = tmp_path / "kept.json"
    never = faked(lambda n, k: pytest.fail("nothing should be timed"))

    cuda = tmp_path / "cuda.json"
    write_records(mod, params, cuda, lambda task: 0, target="cuda")
    check = check_model_records(mod, params, cuda, inputs(), out=out, timer=never)
    assert check.message == "no records for target kind 'llvm'" and check.other_targets == 2
    assert out.read_text() == cuda.read_text() and not check.dropped  # left as they were

    empty = tmp_path / "empty.json"
    empty.write_text("")
    check = check_model_records(mod, params, empty, inputs(), out=out, timer=never)
    assert check.message == "no records to check" and out.read_text() == ""
    assert "no records to check" in check.table()

    with pytest.raises(ModelCheckError, match="no records file"):
        check_model_records(mod, params, tmp_path / "missing.json")
    garbage = tmp_path / "garbage.json"
    garbage.write_text("not json\n")
    with pytest.raises(ModelCheckError, match="is not a tuning records file"):
        check_model_records(mod, params, garbage)
    with pytest.raises(ValueError, match="at least 1"):
        check_model_records(mod, params, empty, runs=0)

    # a model without tunable kernels: the records are kept, nothing timed
    records = tmp_path / "best.json"
    write_records(mod, params, records, lambda task: 0)
    x = relay.var("x", shape=(1, 16))
    plain = tvm.IRModule.from_expr(relay.Function([x], relay.nn.relu(relay.negative(x))))
    check = check_model_records(plain, {}, records, out=out, timer=never)
    assert check.message == "no kernel of the model uses any of the records"
    assert len(check.kept) == 2 and out.read_text() == records.read_text()


def profiled_model() -> tuple[Any, list[str]]:
    """A debug module of -x (1 x 1024) then a 1024 x 1024 dense: a tiny kernel and a large
    one, in that order."""
    x = relay.var("x", shape=(1, 1024))
    w = relay.var("w", shape=(1024, 1024))
    out = relay.tanh(relay.nn.dense(relay.negative(x), w))
    rng = np.random.default_rng(2)
    params = {"w": rng.standard_normal((1024, 1024)).astype("float32")}
    graph, lib, _ = relay.build(tvm.IRModule.from_expr(relay.Function([x, w], out)), "llvm", params)
    module = debug_executor.create(graph, lib, tvm.cpu())
    module.set_input("x", rng.standard_normal((1, 1024)).astype("float32"))
    return module, module.kernel_names


def test_kernel_times_are_in_call_order_and_sum_to_a_run() -> None:
    module, names = profiled_model()
    assert names == executor_of(module).call_names and len(names) == 2
    assert "negative" in names[0] and "dense" in names[1]
    threads = get_num_threads()
    set_num_threads(1)
    try:
        seconds = module.kernel_seconds(runs=15)
        runs = []
        for _ in range(15):
            start = time.thread_time()
            module.run()
            runs.append(time.thread_time() - start)
    finally:
        set_num_threads(threads)
    assert len(seconds) == 2 and seconds[1] > 10 * seconds[0]  # the dense, second
    assert 0.6 < sum(seconds) / statistics.median(runs) < 1.4
    individual = module.run_individual(number=2, repeat=3)
    assert [len(call) for call in individual] == [3, 3]
    assert min(individual[1]) > max(individual[0])
    assert len(kernel_seconds(module, 3, clock=time.perf_counter)) == 2  # the function too


def test_profiler_refuses_what_it_cannot_time() -> None:
    module, _ = profiled_model()
    with pytest.raises(ValueError, match="at least one run"):
        module.kernel_seconds(runs=0)
    with pytest.raises(ValueError, match="number and repeat"):
        module.run_individual(number=0)
    with pytest.raises(TypeError, match="not a local graph executor"):
        kernel_seconds(object(), 1)
    graph, lib = module.module.graph, module.module.lib
    with pytest.raises(ValueError, match="dump_root"):
        debug_executor.create(str(graph), lib, tvm.cpu(), dump_root="/tmp/dump")
    x = relay.var("x", shape=(4,))
    factory = relay.build(tvm.IRModule.from_expr(relay.Function([x], relay.negative(x))))
    unset = debug_executor.create(factory.get_graph_json(), factory.get_lib())
    with pytest.raises(ValueError, match="x"):
        unset.kernel_seconds(1)  # an input without a value


def test_xtvm_tune_checks_the_distilled_records_in_the_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    from xtvm.tools import tune as xtvm_tune

    weight = np.random.default_rng(3).standard_normal((64, 64)).astype("float32")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        "mm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [16, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [16, 64])],
        [numpy_helper.from_array(weight, "w")],
    )
    model = tmp_path / "mm.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), model)
    log, best = tmp_path / "records.json", tmp_path / "best.json"
    argv = [str(model), "--log", str(log), "--quiet", "--number", "1", "--repeat", "1"]
    argv += ["--trials", "1", "--distill", str(best)]
    assert xtvm_tune.main([*argv, "--check-runs", "3"]) == 0
    out = capsys.readouterr().out
    assert "model check: kept" in out and "records in" in out
    assert len(best.read_text().splitlines()) <= 1
    assert xtvm_tune.main([*argv, "--no-model-check"]) == 0
    assert "model check" not in capsys.readouterr().out
    assert len(best.read_text().splitlines()) == 1
    assert xtvm_tune.main([*argv, "--check-runs", "0"]) == 1
    assert "--check-runs must be at least 1" in capsys.readouterr().err
