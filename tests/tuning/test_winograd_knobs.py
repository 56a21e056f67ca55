"""The winograd conv2d template's knobs on its transforms (`unroll_input`, `unroll_output`,
`block_r`): in the space, every sampled config computes the convolution, the fallback is the
default build, relay.build applies a tuned record to the fused kernel, records replay."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import xtvm as tvm
from xtvm import autotvm, relay
from xtvm.driver.relay_build import lower_for_build
from xtvm.ir import winograd
from xtvm.testing.relay import run_factory
from xtvm.tuning import templates
from xtvm.tuning.space import ConfigEntity

KNOBS = ("unroll_input", "unroll_output", "block_r")
# odd shapes: 29x23 outputs (guarded tiles), channels not a multiple of the vectors,
# asymmetric padding, a batch of 2, unpacked and packed kernels
SHAPES = [
    ((1, 29, 23, 24), 40, None, (1, 1, 1, 1)),
    ((2, 17, 30, 16), 24, 8, (1, 0, 1, 2)),
]


def direct_conv(x: np.ndarray, hwio: np.ndarray, padding: tuple[int, ...]) -> np.ndarray:
    """NHWC 3x3 stride-1 convolution in numpy, padded (top, left, bottom, right)."""
    top, left, bottom, right = padding
    x = np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)))
    out_h, out_w = x.shape[1] - 2, x.shape[2] - 2
    return sum(
        np.einsum("nhwc,ck->nhwk", x[:, i : i + out_h, j : j + out_w], hwio[i, j])
        for i in range(3)
        for j in range(3)
    )


def task_of(data: tuple[int, ...], channels: int, block: int | None, padding: Any) -> Any:
    """The template's task and its kernel's HWIO weights and transformed kernel."""
    rng = np.random.default_rng(0)
    hwio = rng.uniform(-1, 1, (3, 3, data[3], channels)).astype("float32")
    u = winograd.transform_kernel(hwio, 4, block)
    args = (data, u.shape, 4, padding, "float32")
    return autotvm.task.create("conv2d_winograd_nhwc.llvm", args=args, target="llvm"), hwio, u


def winograd_blocks(data: tuple[int, ...]) -> list[int]:
    """The `block_r` candidates of a winograd layer on NHWC `data`."""
    args = (data, (6, 6, data[3] // 32, data[3], 32), 4, (1, 1, 1, 1), "float32")
    task = autotvm.task.create("conv2d_winograd_nhwc.llvm", args=args, target="llvm")
    return [e.val for e in task.config_space.space_map["block_r"]]


def config_of(task: Any, **knobs: Any) -> ConfigEntity:
    """The first config of `task` with `knobs` (a split knob given by its inner factor)."""

    def value(entity: Any) -> Any:
        return entity.size[-1] if entity.kind == "sp" else entity.val

    return next(c for c in task.config_space if all(value(c[n]) == v for n, v in knobs.items()))


def run(task: Any, config: ConfigEntity, hwio: np.ndarray, u: np.ndarray) -> None:
    """Build `config` of `task` and check it against numpy's direct convolution."""
    s, args = task.instantiate(config)
    data_shape, _, _, padding, _ = task.args
    x = np.random.default_rng(1).uniform(-1, 1, data_shape).astype("float32")
    out = np.zeros([int(d) for d in args[-1].shape], "float32")
    tvm.build(s, args, target="llvm")(x, u, out)
    np.testing.assert_allclose(out, direct_conv(x, hwio, padding), rtol=1e-4, atol=1e-4)


def test_the_knobs_are_in_the_space_with_the_default_first() -> None:
    task, _, _ = task_of(*SHAPES[0])
    space = task.config_space.space_map
    assert set(KNOBS) <= set(space)
    assert [e.val for e in space["unroll_input"]] == [False, True]
    assert [e.val for e in space["unroll_output"]] == [False, True]
    # 8 x 6 tiles: blocks of whole register tiles (4) that divide 48 and are fewer
    assert [e.val for e in space["block_r"]] == [0, 16, 24]
    # the default config (what the tuner measures as its baseline) has them all off
    default = task.config_space.get(task.default_index())
    assert [default[k].val for k in KNOBS] == [False, False, 0]


@pytest.mark.parametrize("shape", SHAPES)
def test_sampled_configs_compute_the_convolution(shape: Any) -> None:
    task, hwio, u = task_of(*shape)
    space = task.config_space
    # each new knob on at least once, with the others in their other state too
    configs = [config_of(task, unroll_input=True, unroll_output=False)]
    configs.append(config_of(task, unroll_input=False, unroll_output=True, columns_outside=True))
    blocks = [e.val for e in space.space_map["block_r"] if e.val]
    # a register tile of rows that does not divide the block (a guarded block split)
    odd = next(e.size[-1] for e in space.space_map["tile_r"] if 16 % e.size[-1])
    configs += [config_of(task, block_r=b, unroll_input=True, tile_r=odd) for b in blocks]
    configs += [config_of(task, block_r=blocks[0], columns_outside=True, unroll_output=True)]
    configs += [space.get(i) for i in random.Random(0).sample(range(len(space)), 4)]
    for config in configs:
        run(task, config, hwio, u)


def relay_conv(channels: int) -> tuple[Any, dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """A 3x3 NHWC conv2d with bias and relu (the fused kernel relay.build makes) of 64 x 64
    x 16 inputs: 256 tiles, a winograd layer by default), its input and its numpy output."""
    x = relay.var("x", shape=(1, 64, 64, 16))
    w = relay.var("w", shape=(3, 3, 16, channels))
    b = relay.var("b", shape=(channels,))
    conv = relay.nn.conv2d(x, w, padding=(1, 1), data_layout="NHWC", kernel_layout="HWIO")
    body = relay.nn.relu(relay.nn.bias_add(conv, b, axis=3))
    rng = np.random.default_rng(0)
    params = {
        "w": rng.uniform(-1, 1, (3, 3, 16, channels)).astype("float32"),
        "b": rng.uniform(-1, 1, (channels,)).astype("float32"),
    }
    mod = tvm.IRModule.from_expr(relay.Function([x, w, b], body))
    data = rng.uniform(-1, 1, (1, 64, 64, 16)).astype("float32")
    expected = np.maximum(direct_conv(data, params["w"], (1, 1, 1, 1)) + params["b"], 0)
    return mod, params, data, expected


def record(log: Path, task: Any, config: ConfigEntity) -> None:
    result = autotvm.MeasureResult([1e-4], 0, 0.1, 1.0)
    autotvm.record.save_to_file(log, [(autotvm.MeasureInput("llvm", task, config), result)])


def test_relay_build_applies_the_knobs_and_the_default_is_the_default_build(
    tmp_path: Path,
) -> None:
    mod, params, data, expected = relay_conv(32)
    tasks = autotvm.task.extract_from_program(mod, params, "llvm")
    (task,) = (t for t in tasks if t.name == "conv2d_winograd_nhwc.llvm")
    assert [e.val for e in task.config_space.space_map["block_r"]] == [0, 16, 32, 64, 128]
    # 224x224 (3136 tiles, 49 x 64): up to 256
    assert winograd_blocks((1, 224, 224, 64)) == [0, 16, 28, 32, 56, 64, 112, 196, 224]
    default = str(lower_for_build(mod, params, "llvm")[1])
    record(tmp_path / "default.json", task, task.config_space.get(task.default_index()))
    with autotvm.apply_history_best(tmp_path / "default.json"):
        assert str(lower_for_build(mod, params, "llvm")[1]) == default

    knobs = {"unroll_input": True, "unroll_output": True, "block_r": 32}
    for name, value in knobs.items():
        log = tmp_path / f"{name}.json"
        record(log, task, config_of(task, **{name: value}))
        with autotvm.apply_history_best(log):
            tuned = str(lower_for_build(mod, params, "llvm")[1])
            lib = relay.build(mod, target="llvm", params=params)
        assert tuned != default, name
        (got,) = run_factory(lib, x=data)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


def test_a_record_with_the_knobs_replays_exactly(tmp_path: Path) -> None:
    task, hwio, u = task_of(*SHAPES[0])
    config = config_of(task, unroll_input=True, unroll_output=True, block_r=16, tile_k=8)
    log = tmp_path / "winograd.json"
    record(log, task, config)
    ((replayed, _),) = autotvm.record.load_from_file(log)
    assert replayed.config == config
    with autotvm.apply_history_best(log):
        s, args = templates.conv2d_winograd_nhwc(*task.args)
    tuned, tuned_args = task.instantiate(config)
    assert str(tvm.lower(s, args, simple_mode=True)) == str(
        tvm.lower(tuned, tuned_args, simple_mode=True)
    )
    run(task, replayed.config, hwio, u)


def test_a_record_from_before_the_knobs_replays_as_tuned() -> None:
    task, _, _ = task_of(*SHAPES[0])
    config = config_of(task, tile_r=8, tile_k=8, unroll_input=False, block_r=0)
    old = config.to_json_dict()
    old["entity"] = [e for e in old["entity"] if e[0] not in KNOBS]
    s_old, args_old = task.instantiate(ConfigEntity.from_json_dict(old))
    s_new, args_new = task.instantiate(config)
    assert str(tvm.lower(s_old, args_old, simple_mode=True)) == str(
        tvm.lower(s_new, args_new, simple_mode=True)
    )
