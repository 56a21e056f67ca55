"""The conv2d and winograd templates' deeper knobs (rows in the register tile, reduction
blocks, unrolled kernel columns, larger winograd row tiles, channel blocks outside): each
changes the lowered kernels, keeps the outputs equal to numpy, and a record written before
the knobs existed still replays."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_conv2d_templates import grouped_conv, primitives

import xtvm as tvm
from xtvm import autotvm, relay
from xtvm.driver.relay_build import lower_for_build
from xtvm.testing.relay import run_factory
from xtvm.tuning.space import ConfigEntity, ConfigSpace, OtherOptionEntity, SplitEntity


def config_with(task: autotvm.task.Task, **knobs: Any) -> ConfigEntity:
    """The point of `task`'s space that is its default config but for `knobs` (a split knob
    given by its inner factor), found by its index."""
    space: ConfigSpace = task.config_space
    default = space.get(task.default_index() or 0)
    index, stride = 0, 1
    for name, candidates in space.space_map.items():
        chosen = default[name]
        if name in knobs:
            value = knobs[name]
            chosen = SplitEntity([-1, value]) if chosen.kind == "sp" else OtherOptionEntity(value)
        index += candidates.index(chosen) * stride
        stride *= len(candidates)
    return space.get(index)


def conv_module(channels: int, size: int, out_channels: int, stride: int) -> Any:
    x = relay.var("x", shape=(1, channels, size, size))
    w = relay.var("w", shape=(out_channels, channels, 3, 3))
    conv = relay.nn.conv2d(x, w, strides=(stride, stride), padding=(1, 1))
    mod = tvm.IRModule.from_expr(relay.Function([x, w], relay.nn.relu(conv)))
    rng = np.random.default_rng(0)
    params = {"w": rng.standard_normal((out_channels, channels, 3, 3)).astype("float32")}
    return mod, params


def build_with(mod: Any, params: dict, task: Any, config: ConfigEntity, log: Path) -> tuple:
    """The lowered kernels and the output of `mod` built with a record of `config`."""
    result = autotvm.MeasureResult([1e-4], 0, 0.1, 1.0)
    autotvm.record.save_to_file(log, [(autotvm.MeasureInput("llvm", task, config), result)])
    with autotvm.apply_history_best(log):
        kernels = str(lower_for_build(mod, params, "llvm")[1])
        lib = relay.build(mod, target="llvm", params=params)
    return kernels, lib


KNOBS = [
    ("conv2d_nhwc.llvm", 2, {"tile_oh": 2}),
    ("conv2d_nhwc.llvm", 2, {"tile_oh": 4, "tile_ic": 8}),  # rows: divisors of the 8 only
    ("conv2d_nhwc.llvm", 2, {"tile_ic": 4, "unroll_kw": True}),
    ("conv2d_nhwc.llvm", 2, {"unroll_kw": True}),
    ("conv2d_winograd_nhwc.llvm", 1, {"tile_r": 8}),
    ("conv2d_winograd_nhwc.llvm", 1, {"tile_r": 2, "columns_outside": True}),
]


@pytest.mark.parametrize(("name", "stride", "knobs"), KNOBS)
def test_knob_changes_the_kernel_and_matches_numpy(
    tmp_path: Path, name: str, stride: int, knobs: dict
) -> None:
    mod, params = conv_module(16, 16, 64, stride)
    # a winograd layer has a direct task too: the one built by default is tuned here
    (task,) = [t for t in autotvm.task.extract_from_program(mod, params, "llvm")
               if t.built_by_default]  # fmt: skip
    assert task.name == name
    default = str(lower_for_build(mod, params, "llvm")[1])
    config = config_with(task, **knobs)
    assert config.index != task.default_index()
    kernels, lib = build_with(mod, params, task, config, tmp_path / "records.json")
    assert kernels != default
    x = np.random.default_rng(1).standard_normal((1, 16, 16, 16)).astype("float32")
    (got,) = run_factory(lib, x=x)
    want = np.maximum(grouped_conv(x, params["w"], 1, 1, stride), 0)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize(
    "knobs", [{"tile_ic": 16}, {"tile_oh": 3, "tile_ic": 4, "unroll_kw": True}]
)
def test_nchw_template_knobs_match_numpy(knobs: dict) -> None:
    """NCHW: a block of all the input channels moves them inside the kernel window (the default
    walks them outermost); rows join the tile."""
    args = [(1, 16, 9, 9), (32, 16, 3, 3), (1, 1), (1,) * 4, (1, 1)]
    task = autotvm.task.create("conv2d_nchw.llvm", args)
    default_config = task.config_space.get(task.default_index() or 0)
    rng = np.random.default_rng(2)
    x = rng.standard_normal(args[0]).astype("float32")
    w = rng.standard_normal(args[1]).astype("float32")
    lowered = []
    for config in (default_config, config_with(task, **knobs)):
        s, tensors = task.instantiate(config)
        lowered.append(str(tvm.lower(s, tensors)))
        out = np.zeros((1, 32, 9, 9), "float32")
        tvm.build(s, tensors, target="llvm")(x, w, out)
        np.testing.assert_allclose(out, grouped_conv(x, w, 1, 1), rtol=1e-4, atol=1e-3)
    assert lowered[0] != lowered[1]


def test_row_counts_divide_the_rows() -> None:
    """A guarded row tile (4 rows of 14) measured faster built alone by the template than the
    default, yet ran 2-2.6x slower inside relay.build's kernel: only divisors are offered."""
    args = [(1, 272, 14, 14), (272, 68, 1, 1), (1, 1), (0,) * 4, (1, 1), 4]
    task = autotvm.task.create("group_conv2d_nchw.llvm", args)
    assert [e.val for e in task.config_space.space_map["tile_oh"]] == [1, 2]


def test_fallback_is_the_first_candidate_of_each_new_knob() -> None:
    """The new knobs' defaults are today's schedule: the fallback config of every template
    picks them, and so does the default index of the space."""
    task = autotvm.task.create(
        "conv2d_nhwc.llvm", [(1, 14, 14, 16), (3, 3, 16, 32), (1, 1), (1,) * 4, (1, 1)]
    )
    default = task.config_space.get(task.default_index() or 0)
    assert (default["tile_oh"].val, default["tile_ic"].val, default["unroll_kw"].val) == (
        1,
        0,
        False,
    )
    assert default["tile_ic"] == task.config_space.space_map["tile_ic"][0]
    assert len(task.config_space) >= 768  # rows x reduction blocks x unroll x the old tile


def test_a_record_from_before_the_new_knobs_replays_as_its_old_schedule(tmp_path: Path) -> None:
    mod, params = conv_module(16, 14, 64, 2)
    (task,) = autotvm.task.extract_from_program(mod, params, "llvm")
    config = config_with(task, tile_x=7)
    old = {
        "index": config.index,
        "entity": [e for e in config.to_json_dict()["entity"] if e[0] in ("tile_f", "tile_x")]
        + [["rows_outside", "ot", config["rows_outside"].val]],
    }
    replayed = ConfigEntity.from_json_dict(old)
    s_old, _ = task.instantiate(replayed)
    s_new, _ = task.instantiate(config)
    assert primitives(s_old) == primitives(s_new)
