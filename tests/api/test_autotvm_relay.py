"""AutoTVM beyond one template: model-based tuners, tir features, tuning the kernels of
relay.build (extract_from_program, apply_history_best), resumed tuning, xtvm-tune."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import xtvm as tvm
from xtvm import autotvm, relay, te
from xtvm.contrib import graph_executor
from xtvm.driver.build import lower
from xtvm.driver.relay_build import lower_for_build
from xtvm.te.schedule import CachePrimitive
from xtvm.testing.relay import tuning_model
from xtvm.topi import nn, schedule
from xtvm.tuning import templates
from xtvm.tuning.cost_model import XGBoostCostModel
from xtvm.tuning.features import GLOBAL, LENGTH, tir_features
from xtvm.tuning.measure import MeasureInput, MeasureResult
from xtvm.tuning.space import ConfigEntity

MEASURE = {"number": 2, "repeat": 1, "timeout": 10}


def primitives(s: te.Schedule) -> list[str]:
    return [
        f"cache {p.cache.name}" if isinstance(p, CachePrimitive) else str(p.properties)
        for p in s.primitives
    ]


def synthetic_cost(config: ConfigEntity) -> float:
    """A made-up latency of a matmul.llvm config: best at an 8 x 16 tile, k by 4."""
    ty, tx, tk = (config[k].size[-1] for k in ("tile_y", "tile_x", "tile_k"))
    off = abs(math.log2(ty) - 3) + 0.5 * abs(math.log2(tx) - 4) + 0.3 * abs(math.log2(tk) - 2)
    return 1e-3 * (1 + off + 0.2 * config["columns_first"].val)


def drive(tuner: autotvm.Tuner, trials: int) -> None:
    """Tune against `synthetic_cost`, nothing built."""
    while tuner.trial < trials and tuner.has_next():
        configs = tuner.next_batch(1)
        inputs = [MeasureInput("llvm", tuner.task, c) for c in configs]
        results = [MeasureResult([synthetic_cost(c)], 0, 0.0, 0.0) for c in configs]
        for inp, result in zip(inputs, results, strict=True):
            tuner.note(inp, result)
        tuner.update(inputs, results)


def test_xgb_tuner_ranks_better_than_random_on_a_synthetic_task() -> None:
    pytest.importorskip("xgboost")
    task = autotvm.task.create("matmul.llvm", args=(64, 64, 64))
    ranked = sorted(synthetic_cost(c) for c in task.config_space)
    xgb_ranks, random_ranks = [], []
    for seed in range(2):
        xgb = autotvm.XGBTuner(task, plan_size=8, seed=seed)
        drive(xgb, 32)
        random = autotvm.RandomTuner(task, seed=seed)
        drive(random, 32)
        xgb_ranks.append(ranked.index(xgb.best_cost))
        random_ranks.append(ranked.index(random.best_cost))
        assert len(xgb.visited) == 32  # each config measured once
    assert sum(xgb_ranks) < sum(random_ranks), (xgb_ranks, random_ranks)
    assert max(xgb_ranks) <= 9, xgb_ranks  # among the best 1% of 980 every time


def test_tir_and_knob_features_join_both() -> None:
    pytest.importorskip("xgboost")
    task = autotvm.task.create("matmul.llvm", args=(64, 64, 64))
    index = task.default_index()
    assert index is not None
    both = XGBoostCostModel(task, "tir+knob").features(index)
    tir, knob = (XGBoostCostModel(task, kind).features(index) for kind in ("tir", "knob"))
    assert tir.shape == (LENGTH,) and both.shape == (LENGTH + len(knob),)
    np.testing.assert_array_equal(both, np.concatenate([tir, knob]))
    assert list(knob[:3]) == [8, 32, 4]  # the default tile: 8 rows, 32 columns, k by 4
    with pytest.raises(ValueError, match="one of tir, knob, tir\\+knob"):
        XGBoostCostModel(task, "curve")


def test_ga_tuner_measures_each_config_once_and_improves() -> None:
    task = autotvm.task.create("matmul.llvm", args=(64, 64, 64))
    tuner = autotvm.GATuner(task, pop_size=8, elite_num=2, seed=0)
    seen: list[int] = []
    while tuner.trial < 48:
        configs = tuner.next_batch(4)
        seen += [c.index for c in configs]
        inputs = [MeasureInput("llvm", task, c) for c in configs]
        results = [MeasureResult([synthetic_cost(c)], 0, 0.0, 0.0) for c in configs]
        for inp, result in zip(inputs, results, strict=True):
            tuner.note(inp, result)
        tuner.update(inputs, results)
    assert len(seen) == len(set(seen)) == 48
    first = min(synthetic_cost(task.config_space.get(i)) for i in seen[:8])
    assert tuner.best_cost < first


def test_tir_features_describe_the_tile() -> None:
    task = autotvm.task.create("matmul.llvm", args=(64, 64, 64))
    space = task.config_space
    small = next(c for c in space if c["tile_x"].size[-1] == 4 and c["tile_y"].size[-1] == 2)
    large = next(c for c in space if c["tile_x"].size[-1] == 32 and c["tile_y"].size[-1] == 2)
    f_small, f_large = (tir_features(lower(*task.instantiate(c))) for c in (small, large))
    assert f_small.shape == (LENGTH,) and f_small.dtype == np.float32
    lanes = GLOBAL.index("vector_lanes")
    assert f_small[lanes] == pytest.approx(math.log2(5))  # a vector of 4 columns
    assert f_large[lanes] == pytest.approx(math.log2(33))
    parallel = GLOBAL.index("parallel_extent")
    assert f_small[parallel] == f_large[parallel] == pytest.approx(math.log2(33))  # 64 / 2 rows


@pytest.mark.parametrize(
    ("name", "args", "layout"),
    [
        ("conv2d_nchw", [(1, 16, 14, 14), (32, 16, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1)], "NCHW"),
        ("conv2d_nhwc", [(1, 14, 14, 16), (3, 3, 16, 32), (2, 2), (1, 1, 1, 1), (1, 1)], "NHWC"),
        ("batch_matmul", [(4, 20, 16), (4, 24, 16), False, True], None),
    ],
)
def test_fallback_config_of_new_templates_is_the_default_schedule(
    name: str, args: list[Any], layout: str | None
) -> None:
    s, _ = getattr(templates, name)(*args)
    if layout is None:
        x, y = te.placeholder(args[0], name="x"), te.placeholder(args[1], name="y")
        out = nn.batch_matmul(x, y, False, True)  # packed: the copy is named after y
        default = te.create_schedule(out.op)
        schedule.cpu_dense(default, out)
    else:
        data, kernel = te.placeholder(args[0], name="data"), te.placeholder(args[1], name="kernel")
        kernel_layout = "OIHW" if layout == "NCHW" else "HWIO"
        out = nn.conv2d(data, kernel, *args[2:], 1, layout, kernel_layout)
        default = te.create_schedule(out.op)
        schedule.cpu_conv2d(default, out)
    assert primitives(s) == primitives(default)
    task = autotvm.task.create(f"{name}.llvm", args)
    assert len(task.config_space) > 8
    index = task.default_index()  # the default is a point of the space: tuners start there
    assert index is not None
    assert primitives(task.instantiate(task.config_space.get(index))[0]) == primitives(default)


def test_the_space_holds_a_guarded_default_tile() -> None:
    """98 x 104: the default 8 x 32 tile divides neither, and is a candidate all the same."""
    task = autotvm.task.create("matmul.llvm", args=(98, 96, 104))
    default = task.config_space.get(task.default_index())  # type: ignore[arg-type]
    assert [default[k].size[-1] for k in ("tile_y", "tile_x", "tile_k")] == [8, 32, 4]
    assert [-1, 7] in [e.size for e in task.config_space.space_map["tile_y"]]
    assert [-1, 13] in [e.size for e in task.config_space.space_map["tile_x"]]


@pytest.fixture(scope="module")
def small_model() -> tuple[Any, dict[str, np.ndarray]]:
    """conv2d + relu, a dense on its result, and two batch_matmuls of the same shapes."""
    return tuning_model()


def kernels_text(mod: Any, params: dict[str, np.ndarray]) -> str:
    return str(lower_for_build(mod, params, "llvm")[1])


def test_extract_from_program_and_apply_history_best_in_relay_build(
    small_model: tuple[Any, dict[str, np.ndarray]], tmp_path: Path
) -> None:
    mod, params = small_model
    tasks = autotvm.task.extract_from_program(mod["main"], params=params, target="llvm")
    assert sorted(t.name for t in tasks) == ["batch_matmul.llvm", "conv2d_nhwc.llvm", "dense.llvm"]
    batch = next(t for t in tasks if t.name == "batch_matmul.llvm")
    assert batch.args == ((2, 16, 8), (2, 12, 8), False, True, "float32")
    dense_only = autotvm.task.extract_from_program(mod, params, "llvm", ops=["nn.dense"])
    assert [t.name for t in dense_only] == ["dense.llvm"]

    # a 4 x 6 register tile of the batch_matmul (the default is 2 x 4)
    config = next(
        c for c in batch.config_space if c["tile_y"].size[-1] == 4 and c["tile_x"].size[-1] == 6
    )
    log = tmp_path / "records.json"
    records = [(MeasureInput("llvm", batch, config), MeasureResult([1e-4], 0, 0.1, 1.0))]
    for task in tasks:  # every other kernel: a slower record, and a faster failed one
        if task is not batch:
            c = task.config_space.get(len(task.config_space) - 1)
            records.append((MeasureInput("llvm", task, c), MeasureResult([1e-3], 0, 0.1, 1.0)))
            records.append((MeasureInput("llvm", task, task.config_space.get(0)),
                            MeasureResult([], 4, 0.1, 1.0, "crash")))  # fmt: skip
    autotvm.record.save_to_file(log, records)

    default = kernels_text(mod, params)
    with autotvm.apply_history_best([]):
        assert kernels_text(mod, params) == default  # no record: the default schedules
    with autotvm.apply_history_best(log):
        tuned = kernels_text(mod, params)
    assert tuned != default
    with autotvm.apply_history_best(log):  # an llvm template never schedules a cuda kernel
        q, k = te.placeholder((2, 16, 8), name="q"), te.placeholder((2, 12, 8), name="k")
        scores = nn.batch_matmul(q, k, False, True)
        s = te.create_schedule(scores.op)
        assert not autotvm.task.schedule_kernel(s, scores, "cuda")
        assert autotvm.task.schedule_kernel(s, scores, "llvm -mcpu=generic")
    assert 'memref<1x4x6xf32, "local">' in tuned  # the recorded tile is the one built
    assert 'memref<1x4x6xf32, "local">' not in default

    with autotvm.apply_history_best(log):
        lib = relay.build(mod, target="llvm", params=params)
    module = graph_executor.GraphModule(lib["default"](tvm.cpu(0)))
    rng = np.random.default_rng(1)
    inputs = {
        "x": rng.standard_normal((1, 8, 6, 6)).astype("float32"),
        "q": rng.standard_normal((2, 16, 8)).astype("float32"),
        "k": rng.standard_normal((2, 12, 8)).astype("float32"),
    }
    for name, value in inputs.items():
        module.set_input(name, value)
    module.run()
    x, w = inputs["x"], params["w"]
    conv = np.zeros((1, 16, 4, 4), "float32")
    for i in range(3):
        for j in range(3):
            conv += np.einsum("nchw,fc->nfhw", x[:, :, i : i + 4, j : j + 4], w[:, :, i, j])
    dense = np.maximum(conv, 0).reshape(1, -1) @ params["d"].T
    np.testing.assert_allclose(module.get_output(0).numpy(), dense, rtol=1e-4, atol=1e-3)
    attention = inputs["q"] @ inputs["k"].transpose(0, 2, 1)
    np.testing.assert_allclose(module.get_output(1).numpy(), attention, rtol=1e-4, atol=1e-4)


def test_records_match_the_target_string_first_and_distill(tmp_path: Path) -> None:
    task = autotvm.task.create("matmul.llvm", args=(32, 32, 32))
    space = task.config_space
    a, b, c = space.get(1), space.get(2), space.get(3)

    def record(target: str, config: ConfigEntity, cost: float) -> Any:
        return MeasureInput(target, task, config), MeasureResult([cost], 0, 0.1, 1.0)

    log = tmp_path / "log.json"
    autotvm.record.save_to_file(
        log,
        [
            record("llvm -mcpu=skylake-avx512", a, 1e-3),
            record("llvm -mcpu=skylake-avx512", b, 2e-3),
            record("llvm -mcpu=znver3", c, 5e-4),
            record("cuda", space.get(4), 1e-5),
        ],
    )
    best = autotvm.apply_history_best(log)
    workload = task.workload
    assert best._query_inside("llvm -mcpu=skylake-avx512", workload) == a  # its own target
    assert best._query_inside("llvm -mcpu=icelake", workload) == c  # the kind's fastest
    assert len(list(autotvm.record.load_from_file(log, "llvm -mcpu=x"))) == 3
    out = tmp_path / "best.json"
    assert autotvm.record.distill(log, out) == 3
    kept = {(i.target, i.config.index) for i, _ in autotvm.record.load_from_file(out)}
    assert kept == {("llvm -mcpu=skylake-avx512", 1), ("llvm -mcpu=znver3", 3), ("cuda", 4)}


def test_tuning_resumes_from_records_and_xgb_measures_for_real(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("xgboost")
    task = autotvm.task.create("dense.llvm", args=(8, 16, 16), target="llvm")
    log = tmp_path / "dense.json"
    option = autotvm.measure_option(
        builder=autotvm.LocalBuilder(), runner=autotvm.LocalRunner(**MEASURE)
    )
    first = autotvm.XGBTuner(task, plan_size=2, seed=0)
    log_to = autotvm.callback.log_to_file(log)
    first.tune(n_trial=3, measure_option=option, callbacks=[log_to], recheck=0)
    done = [inp.config.index for inp, _ in autotvm.record.load_from_file(log)]
    assert len(done) == 3

    again = autotvm.XGBTuner(task, plan_size=2, seed=0)
    assert again.load_history(autotvm.record.load_from_file(log)) == 3
    assert again.trial == 3 and again.best_config is not None
    bar = autotvm.callback.progress_bar(5, "dense ")  # tqdm, on stderr
    again.tune(n_trial=5, measure_option=option, callbacks=[log_to, bar], recheck=0)
    err = capsys.readouterr().err
    assert "dense: 100%" in err and f"best {again.best_flops / 1e9:.2f} GFLOPS" in err
    indices = [inp.config.index for inp, _ in autotvm.record.load_from_file(log)]
    assert len(indices) == 5 and len(set(indices)) == 5 and indices[:3] == done

    with autotvm.apply_history_best(log):
        s, args = templates.dense(8, 16, 16)
    rng = np.random.default_rng(0)
    data, weight = rng.standard_normal((8, 16), "float32"), rng.standard_normal((16, 16), "float32")
    out = np.zeros((8, 16), "float32")
    tvm.build(s, args, target="llvm")(data, weight, out)
    np.testing.assert_allclose(out, data @ weight.T, rtol=1e-4, atol=1e-4)


def matmul_model(directory: Path, rng: np.random.Generator) -> tuple[Path, np.ndarray]:
    """`mm.onnx` in `directory`: x [8, 16] times a constant weight [16, 8]; and the weight."""
    weight = rng.standard_normal((16, 8)).astype("float32")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        "mm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, 8])],
        [numpy_helper.from_array(weight, "w")],
    )
    model = directory / "mm.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), model)
    return model, weight


def test_xtvm_tune_on_ray_without_ray_is_a_clean_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from xtvm.tools import tune as xtvm_tune

    model, _ = matmul_model(tmp_path, np.random.default_rng(0))
    argv = [str(model), "--trials", "1", "--log", str(tmp_path / "r.json"), "--quiet"]
    assert xtvm_tune.main([*argv, "--ray", "local", "--ray-workers", "0"]) == 1
    assert "--ray-workers must be at least 1" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    assert xtvm_tune.main([*argv, "--ray", "local"]) == 1
    err = capsys.readouterr().err
    assert "need Ray: pip install 'xtvm[distributed]'" in err and "Traceback" not in err
    assert not (tmp_path / "r.json").exists()


def test_xtvm_tune_then_compile_with_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xtvm.tools import compile as xtvm_compile
    from xtvm.tools import tune as xtvm_tune

    rng = np.random.default_rng(2)
    model, weight = matmul_model(tmp_path, rng)
    log, best = tmp_path / "records.json", tmp_path / "best.json"
    argv = [str(model), "--trials", "2", "--log", str(log), "--tuner", "random", "--quiet"]
    distill = ["--distill", str(best), "--no-model-check"]  # model check: test_model_check.py
    assert xtvm_tune.main([*argv, "--number", "1", "--repeat", "1", *distill]) == 0
    out = capsys.readouterr().out
    assert "1 tunable kernels, 0 records" in out and "after 2 trials (0 resumed)" in out
    trials = [line for line in log.read_text().splitlines() if "verdict" not in line]
    assert len(trials) == 2 and len(best.read_text().splitlines()) == 1
    lines = len(log.read_text().splitlines())  # and the best's re-check against the default
    assert xtvm_tune.main([*argv, "--number", "1", "--repeat", "1"]) == 0  # nothing left
    assert "after 2 trials (2 resumed)" in capsys.readouterr().out
    assert len(log.read_text().splitlines()) == lines

    library = tmp_path / "mm.so"
    assert xtvm_compile.main([str(model), "--tuning-records", str(best), "-o", str(library)]) == 0
    factory = tvm.runtime.load_module(str(library))
    module = graph_executor.GraphModule(factory["default"](tvm.cpu(0)))
    x = rng.standard_normal((8, 16)).astype("float32")
    module.set_input("x", x)
    module.run()
    np.testing.assert_allclose(module.get_output(0).numpy(), x @ weight, rtol=1e-4, atol=1e-4)
    assert xtvm_compile.main([str(model), "--tuning-records", str(tmp_path / "none")]) == 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("garbage\n", "r.json:1: not a tuning record"),
        ('\n{"version": 1, "workload": ["dense.llvm"]}\n', "r.json:2: not a tuning record"),
        ('{"version": 7}\n', "r.json:1: not a tuning record: tuning record of format version 7"),
    ],
)
def test_a_records_file_that_is_not_records_is_a_clean_error_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    """xtvm-compile --tuning-records and xtvm-tune --log (resuming) name the file and line of
    the first line that is not a tuning record, exit 1, no traceback."""
    from xtvm.tools import compile as xtvm_compile
    from xtvm.tools import tune as xtvm_tune

    model, _ = matmul_model(tmp_path, np.random.default_rng(0))
    records = tmp_path / "r.json"
    records.write_text(text)
    library = tmp_path / "mm.so"
    compile_argv = [str(model), "--tuning-records", str(records), "-o", str(library)]
    assert xtvm_compile.main(compile_argv) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and "internal error" not in err, err
    assert not library.exists()
    argv = [str(model), "--trials", "1", "--log", str(records), "--quiet"]
    assert xtvm_tune.main(argv) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and "internal error" not in err, err
    assert records.read_text() == text  # nothing appended


def test_xtvm_tune_minutes_tunes_the_whole_model_from_its_defaults(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xtvm.tools import tune as xtvm_tune

    model, _ = matmul_model(tmp_path, np.random.default_rng(3))
    log, best = tmp_path / "records.json", tmp_path / "best.json"
    argv = [str(model), "--log", str(log), "--quiet", "--number", "1", "--repeat", "1"]
    budget = ["--minutes", "0.01", "--trials", "3", "--distill", str(best), "--no-model-check"]
    assert xtvm_tune.main([*argv, *budget]) == 0
    out = capsys.readouterr().out
    assert "1 tunable kernels" in out and "default" in out and "chosen" in out
    (record,) = autotvm.record.load_from_file(best)
    measured = list(autotvm.record.load_from_file(log))
    task = measured[0][0].task
    assert measured[0][0].config.index == task.default_index()  # the default came first
    assert record[0].task.workload == task.workload
    assert xtvm_tune.main([*argv, "--minutes", "0"]) == 1
    assert "--minutes must be positive" in capsys.readouterr().err
    assert xtvm_tune.main([*argv, "--minutes", "1", "--tuner", "grid"]) == 1
    assert "not grid" in capsys.readouterr().err
