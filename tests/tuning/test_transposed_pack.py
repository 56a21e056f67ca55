"""Products that read an operand transposed ([n, k]: attention's q @ k^T, dense of two
activations) packed into panels by a transposing copy, so that the register tile vectorizes
columns: the templates' `pack` knob, the default schedule's choice, the schedule primitive
(`Schedule.transpose_read`), and their numbers against numpy and the relay interpreter."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import xtvm as tvm
from xtvm import auto_scheduler, autotvm, relay, te
from xtvm.driver.relay_build import lower_for_build
from xtvm.ir.errors import ScheduleError
from xtvm.runtime.relay_interpreter import evaluate
from xtvm.te.schedule import Schedule
from xtvm.testing.relay import run_factory
from xtvm.topi import nn, schedule
from xtvm.tuning import templates
from xtvm.tuning.auto_scheduler.loop_state import State, TransposeReadStep
from xtvm.tuning.auto_scheduler.sketch import decode, generate_sketches, sample
from xtvm.tuning.space import ConfigEntity

ATTENTION = ((12, 128, 64), (12, 128, 64), False, True)


def operands(shapes: list[tuple[int, ...]]) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.uniform(-1, 1, shape).astype("float32") for shape in shapes]


def expected(x: np.ndarray, y: np.ndarray, transpose_a: bool, transpose_b: bool) -> np.ndarray:
    return (x.transpose(0, 2, 1) if transpose_a else x) @ (
        y.transpose(0, 2, 1) if transpose_b else y
    )


def run_batch_matmul(s: Schedule, args: list[Any], transpose_a: bool, transpose_b: bool) -> None:
    x, y, out = args
    a, b = operands([tuple(int(d) for d in t.shape) for t in (x, y)])
    c = np.zeros([int(d) for d in out.shape], "float32")
    tvm.build(s, args, target="llvm")(a, b, c)
    np.testing.assert_allclose(c, expected(a, b, transpose_a, transpose_b), rtol=1e-4, atol=1e-4)


def stage_names(s: Schedule) -> list[str]:
    return [stage.op.name for stage in s.stages]


def panels_of(s: Schedule) -> list[Any]:
    """The transposing copies of the schedule (the stages `transpose_read` made)."""
    return [stage for stage in s.stages if stage.op.name.endswith(".T")]


def test_the_knob_is_in_the_spaces_of_transposed_products() -> None:
    bmm = autotvm.task.create("batch_matmul.llvm", args=ATTENTION, target="llvm")
    dense = autotvm.task.create("dense.llvm", args=(32, 16, 48), target="llvm")
    for task in (bmm, dense):
        assert [str(e) for e in task.config_space.space_map["pack"]] == ["ot(False)", "ot(True)"]
    # the default config packs attention's scores: the panels, the 8 x 32 tile, 4 k unrolled
    default = bmm.config_space.get(bmm.default_index() or 0)
    assert default["pack"].val is True
    assert [default[n].size[-1] for n in ("tile_y", "tile_x", "tile_k")] == [8, 32, 4]
    # a few rows: no copy by default, k vectorized under a 2 x 8 tile
    few = autotvm.task.create("batch_matmul.llvm", args=((4, 8, 64), (4, 64, 64)), target="llvm")
    fallback = few.config_space.get(few.default_index() or 0)
    assert fallback["pack"].val is False
    assert [fallback[n].size[-1] for n in ("tile_y", "tile_x", "tile_k")] == [2, 8, 16]


@pytest.mark.parametrize(
    ("x_shape", "y_shape", "transpose_a"),
    [
        ((12, 77, 64), (12, 77, 64), False),
        ((1, 7, 13), (1, 5, 13), False),
        ((2, 13, 16), (2, 24, 13), True),  # both transposed
        ((3, 33, 9), (1, 40, 9), False),  # the second operand broadcast over the batch
    ],
)
def test_packed_configs_compute_the_product(
    x_shape: tuple[int, ...], y_shape: tuple[int, ...], transpose_a: bool
) -> None:
    # tiles that divide and tiles that are guarded, with the panels packed: numpy's product
    task = autotvm.task.create(
        "batch_matmul.llvm", args=(x_shape, y_shape, transpose_a, True), target="llvm"
    )
    configs = [c for c in task.config_space if c["pack"].val]
    for config in configs[:: max(1, len(configs) // 6)][:6]:
        s, args = task.instantiate(config)
        assert "y.T" in stage_names(s)
        run_batch_matmul(s, args, transpose_a, True)


@pytest.mark.parametrize("transpose_b", [False, True])
def test_pack_a_copies_the_rows_operand(transpose_b: bool) -> None:
    # x [b, k, m] (transpose_a) copied to [b, m, k] at the root: numpy's product, with y
    # read either way (and packed where it is transposed), tiles guarded or whole
    x_shape, y_shape = (2, 13, 17), ((2, 24, 13) if transpose_b else (2, 13, 24))
    task = autotvm.task.create(
        "batch_matmul.llvm", args=(x_shape, y_shape, True, transpose_b), target="llvm"
    )
    assert [str(e) for e in task.config_space.space_map["pack_a"]] == ["ot(False)", "ot(True)"]
    configs = [c for c in task.config_space if c["pack_a"].val]
    for config in configs[:: max(1, len(configs) // 5)][:5]:
        s, args = task.instantiate(config)
        assert "x.T" in stage_names(s)
        run_batch_matmul(s, args, True, transpose_b)
    plain = autotvm.task.create("batch_matmul.llvm", args=ATTENTION, target="llvm")
    assert "pack_a" not in plain.config_space.space_map


def test_dense_of_two_activations_packed() -> None:
    m, k, n = 24, 20, 48
    task = autotvm.task.create("dense.llvm", args=(m, k, n), target="llvm")
    config = next(c for c in task.config_space if c["pack"].val and c["tile_x"].size[-1] == 16)
    s, (data, weight, out) = task.instantiate(config)
    assert len(panels_of(s)) == 1
    a, w = operands([(m, k), (n, k)])
    c = np.zeros((m, n), "float32")
    tvm.build(s, [data, weight, out], target="llvm")(a, w, c)
    np.testing.assert_allclose(c, a @ w.T, rtol=1e-4, atol=1e-4)


def config_of(task: Any, **knobs: Any) -> ConfigEntity:
    """The first config of `task` with `knobs` (a split knob given by its inner factor)."""

    def value(entity: Any) -> Any:
        return entity.size[-1] if entity.kind == "sp" else entity.val

    return next(c for c in task.config_space if all(value(c[n]) == v for n, v in knobs.items()))


def test_a_record_with_the_knob_replays_exactly(tmp_path: Path) -> None:
    task = autotvm.task.create("batch_matmul.llvm", args=ATTENTION, target="llvm")
    tiles = {"tile_y": 4, "tile_x": 64, "tile_k": 2, "columns_first": False}
    config = config_of(task, pack=True, **tiles)
    log = tmp_path / "attention.log"
    result = autotvm.MeasureResult([1e-4], 0, 0.1, 1.0)
    autotvm.record.save_to_file(log, [(autotvm.MeasureInput("llvm", task, config), result)])
    ((replayed, _),) = autotvm.record.load_from_file(log)
    assert replayed.config == config and "('pack', ot(True))" in repr(replayed.config)
    with autotvm.apply_history_best(log):
        s, args = templates.batch_matmul(*ATTENTION)
    tuned, tuned_args = task.instantiate(config)
    assert str(tvm.lower(s, args, simple_mode=True)) == str(
        tvm.lower(tuned, tuned_args, simple_mode=True)
    )
    unpacked, _ = task.instantiate(config_of(task, pack=False, **tiles))
    assert len(panels_of(s)) == 1 and not panels_of(unpacked)
    run_batch_matmul(s, args, False, True)


def test_a_record_from_before_the_knob_replays_unpacked() -> None:
    task = autotvm.task.create("batch_matmul.llvm", args=ATTENTION, target="llvm")
    config = next(c for c in task.config_space if not c["pack"].val)
    old = config.to_json_dict()
    old["entity"] = [e for e in old["entity"] if e[0] != "pack"]
    s_old, _ = task.instantiate(ConfigEntity.from_json_dict(old))
    s_new, _ = task.instantiate(config)
    assert stage_names(s_old) == stage_names(s_new) and not panels_of(s_old)


@pytest.mark.parametrize(
    ("shape", "packs"),
    [
        ((12, 128, 64, 128), True),  # BERT's attention scores
        ((12, 64, 64, 64), True),  # GPT-2's (a sequence of 64)
        ((12, 77, 64, 128), True),  # guarded rows
        ((12, 128, 64, 77), False),  # a guarded column tile would not vectorize
        ((12, 8, 64, 128), False),  # too few rows to pay for the copy
    ],
)
def test_default_schedule_packs_transposed_operands(
    shape: tuple[int, int, int, int], packs: bool
) -> None:
    b, m, k, n = shape
    x = te.placeholder((b, m, k), name="x")
    y = te.placeholder((b, n, k), name="y")
    out = nn.batch_matmul(x, y, False, True)
    s = te.create_schedule(out.op)
    schedule.cpu_dense(s, out)
    assert bool(panels_of(s)) == packs
    if packs:  # the copy is computed at each column block: its buffer is one panel
        (panels,) = panels_of(s)
        assert isinstance(panels.attach, tuple)
    run_batch_matmul(s, [x, y, out], False, True)


def test_relay_build_of_attention_scores_matches_the_interpreter() -> None:
    # q @ k^T scaled, as attention computes it: the epilogue stage carries the tile, and k
    # is copied one panel (64 k by 32 columns) per block of columns
    q = relay.var("q", shape=(12, 77, 64))
    k = relay.var("k", shape=(12, 64, 64))
    scores = relay.nn.batch_matmul(q, k, transpose_b=True) * relay.const(0.125)
    mod = tvm.IRModule.from_expr(relay.Function([q, k], scores))
    kernels = str(lower_for_build(mod, {}, "llvm")[1])
    assert "%k.T = memref.alloc() : memref<1x64x32xf32>" in kernels
    inputs = dict(zip(("q", "k"), operands([(12, 77, 64), (12, 64, 64)]), strict=True))
    (got,) = run_factory(relay.build(mod, target="llvm"), **inputs)
    (reference,) = evaluate(mod.xdsl, inputs)
    np.testing.assert_allclose(got, reference, rtol=1e-4, atol=1e-4)


def test_transpose_read_refuses_what_it_cannot_rewrite() -> None:
    x = te.placeholder((4, 8), name="x")
    y = te.placeholder((16, 8), name="y")
    v = te.placeholder((8,), name="v")
    out = nn.dense(x, y)
    s = te.create_schedule(out.op)
    with pytest.raises(ScheduleError, match="fewer than two axes"):
        s.transpose_read(v, [out])
    with pytest.raises(ScheduleError, match="does not read v"):
        s.transpose_read(te.placeholder((8, 8), name="v"), [out])
    s[out].split(out.op.axis[0], factor=2)
    with pytest.raises(ScheduleError, match="before the other primitives"):
        s.transpose_read(y, [out])


def test_the_computation_is_left_as_it_was() -> None:
    # relay.build schedules a kernel's computation again (the default, the baseline of a
    # tuned record): the second schedule packs as the first did
    x = te.placeholder((12, 64, 64), name="x")
    y = te.placeholder((12, 64, 64), name="y")
    out = nn.batch_matmul(x, y, False, True)
    body = out.op.body
    kernels = []
    for _ in range(2):
        s = te.create_schedule(out.op)
        schedule.cpu_dense(s, out)
        assert len(panels_of(s)) == 1
        kernels.append(str(tvm.lower(s, [x, y, out], simple_mode=True)))
    assert out.op.body is body
    assert sorted(t.name for t in out.op.input_tensors) == ["x", "y"]
    assert kernels[0] == kernels[1]


@auto_scheduler.register_workload
def transposed_batch_matmul(b: int, m: int, k: int, n: int) -> list[te.Tensor]:
    x = te.placeholder((b, m, k), name="x")
    y = te.placeholder((b, n, k), name="y")
    return [x, y, nn.batch_matmul(x, y, False, True)]


def test_auto_scheduler_sketches_read_the_operand_transposed() -> None:
    # the rules add sketches whose product reads a transposing copy; their candidates go
    # to JSON and back, are recognised, and replay to numpy's product (odd sizes: guarded
    # squares of the copy where n's vector does not divide k)
    task = auto_scheduler.SearchTask(func=transposed_batch_matmul, args=(2, 7, 13, 20))
    sketches = generate_sketches(task.compute_dag)
    assert [s.name for s in sketches] == [
        "tile",
        "cache_write",
        "tile+transpose",
        "cache_write+transpose",
    ]
    assert sketches[2].steps[0] == TransposeReadStep("T_batch_matmul", "y")
    rng = random.Random(0)
    transposing = [c for c in (sample(rng, sketches) for _ in range(40)) if c.sketch >= 2][:5]
    assert transposing
    for candidate in transposing:
        state = candidate.state(sketches)
        replayed = State.from_json(json.loads(json.dumps(state.to_json())))
        assert replayed == state and decode(replayed, sketches) == candidate
        s = replayed.replay(task.compute_dag.create_schedule())
        assert len(panels_of(s)) == 1
        run_batch_matmul(s, task.compute_dag.tensors, False, True)
    # a product read contiguously has no such sketch
    plain = auto_scheduler.SearchTask(func=contiguous_batch_matmul, args=(2, 7, 13, 20))
    assert [s.name for s in generate_sketches(plain.compute_dag)] == ["tile", "cache_write"]


@auto_scheduler.register_workload
def contiguous_batch_matmul(b: int, m: int, k: int, n: int) -> list[te.Tensor]:
    x = te.placeholder((b, m, k), name="x")
    y = te.placeholder((b, k, n), name="y")
    return [x, y, nn.batch_matmul(x, y, False, False)]
