"""AutoTVM templates of depthwise and grouped conv2d: their fallback config is the default
schedule, a short tuning measures them, and relay.build applies their records exactly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import xtvm as tvm
from xtvm import autotvm, relay, te
from xtvm.driver.relay_build import lower_for_build
from xtvm.te.schedule import CachePrimitive
from xtvm.testing.relay import run_factory
from xtvm.topi import nn, schedule
from xtvm.tuning import templates

MEASURE = {"number": 2, "repeat": 1, "timeout": 10}


def primitives(s: te.Schedule) -> list[str]:
    return [
        f"cache {p.cache.name}" if isinstance(p, CachePrimitive) else str(p.properties)
        for p in s.primitives
    ]


def grouped_conv(x: np.ndarray, w: np.ndarray, groups: int, pad: int, stride: int = 1) -> Any:
    """NCHW conv2d of OIHW weights in `groups` groups, in numpy."""
    n, _, h, width = x.shape
    f, per_group_in, kh, kw = w.shape
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (width + 2 * pad - kw) // stride + 1
    out = np.zeros((n, f, oh, ow), "float32")
    per_group_out = f // groups
    for g in range(groups):
        xs = x[:, g * per_group_in : (g + 1) * per_group_in]
        ws = w[g * per_group_out : (g + 1) * per_group_out]
        for i in range(kh):
            for j in range(kw):
                window = xs[:, :, i : i + stride * oh : stride, j : j + stride * ow : stride]
                out[:, g * per_group_out : (g + 1) * per_group_out] += np.einsum(
                    "nchw,fc->nfhw", window, ws[:, :, i, j]
                )
    return out


def tune_three(task: autotvm.task.Task, log: Path) -> list[Any]:
    """Three random configs of `task` measured for real into `log`; all must succeed."""
    option = autotvm.measure_option(
        builder=autotvm.LocalBuilder(), runner=autotvm.LocalRunner(**MEASURE)
    )
    tuner = autotvm.RandomTuner(task, seed=0)
    log_to = [autotvm.callback.log_to_file(log)]
    tuner.tune(n_trial=3, measure_option=option, callbacks=log_to, recheck=0)
    records = list(autotvm.record.load_from_file(log))
    assert len(records) == 3 and all(r.error_no == 0 for _, r in records), records
    return records


CASES = [
    # template, its arguments, the groups of its conv2d
    ("depthwise_conv2d_nchw", [(1, 32, 14, 14), (32, 1, 3, 3), (1, 1), (1,) * 4, (1, 1)], 32),
    ("depthwise_conv2d_nchw", [(1, 16, 15, 15), (32, 1, 3, 3), (2, 2), (1,) * 4, (1, 1)], 16),
    (
        "depthwise_conv2d_nhwc",
        [(1, 14, 14, 32), (3, 3, 32, 1), (1, 1), (1,) * 4, (1, 1), "HWOI"],
        32,
    ),
    ("group_conv2d_nchw", [(1, 32, 14, 14), (48, 8, 3, 3), (1, 1), (1,) * 4, (1, 1), 4], 4),
    ("group_conv2d_nhwc", [(1, 14, 14, 32), (3, 3, 8, 48), (1, 1), (1,) * 4, (1, 1), 4], 4),
    # 1x1 on planes narrower than a vector: by default a tile of whole planes (`plane`)
    ("group_conv2d_nchw", [(1, 32, 7, 7), (32, 8, 1, 1), (1, 1), (0,) * 4, (1, 1), 4], 4),
    ("conv2d_nchw", [(1, 16, 7, 7), (24, 16, 1, 1), (1, 1), (0,) * 4, (1, 1)], 1),
]


@pytest.mark.parametrize(("name", "args", "groups"), CASES)
def test_fallback_config_is_the_default_schedule(name: str, args: list[Any], groups: int) -> None:
    layout = name[-4:].upper()
    kernel_layout = next((a for a in args[5:] if isinstance(a, str)), None)
    kernel_layout = kernel_layout or ("OIHW" if layout == "NCHW" else "HWIO")
    s, _ = getattr(templates, name)(*args)
    data, kernel = te.placeholder(args[0], name="data"), te.placeholder(args[1], name="kernel")
    out = nn.conv2d(data, kernel, *args[2:5], groups, layout, kernel_layout)
    default = te.create_schedule(out.op)
    schedule.cpu_conv2d(default, out)
    assert primitives(s) == primitives(default)
    task = autotvm.task.create(f"{name}.llvm", args)
    assert len(task.config_space) >= 8
    index = task.default_index()
    assert index is not None
    assert primitives(task.instantiate(task.config_space.get(index))[0]) == primitives(default)
    others = {str(primitives(task.instantiate(c)[0])) for c in list(task.config_space)[:6]}
    assert len(others) > 1  # the knobs change the schedule


def test_tuned_depthwise_conv2d_matches_numpy(tmp_path: Path) -> None:
    args = [(1, 16, 15, 15), (32, 1, 3, 3), (2, 2), (1,) * 4, (1, 1)]
    task = autotvm.task.create("depthwise_conv2d_nchw.llvm", args)
    log = tmp_path / "dw.json"
    tune_three(task, log)
    with autotvm.apply_history_best(log):
        s, tensors = templates.depthwise_conv2d_nchw(*args)
    rng = np.random.default_rng(0)
    x = rng.standard_normal(args[0]).astype("float32")
    w = rng.standard_normal(args[1]).astype("float32")
    out = np.zeros((1, 32, 8, 8), "float32")
    tvm.build(s, tensors, target="llvm")(x, w, out)
    np.testing.assert_allclose(out, grouped_conv(x, w, 16, 1, 2), rtol=1e-4, atol=1e-4)


def test_relay_build_applies_depthwise_and_grouped_records(tmp_path: Path) -> None:
    x = relay.var("x", shape=(1, 8, 10, 10))
    dw, gw = relay.var("dw", shape=(8, 1, 3, 3)), relay.var("gw", shape=(16, 2, 3, 3))
    y = relay.nn.relu(relay.nn.conv2d(x, dw, padding=(1, 1), groups=8))
    z = relay.nn.conv2d(y, gw, padding=(1, 1), groups=4)
    mod = tvm.IRModule.from_expr(relay.Function([x, dw, gw], z))
    rng = np.random.default_rng(0)
    params = {
        "dw": rng.standard_normal((8, 1, 3, 3)).astype("float32"),
        "gw": rng.standard_normal((16, 2, 3, 3)).astype("float32"),
    }
    tasks = autotvm.task.extract_from_program(mod, params, "llvm")
    assert sorted(t.name for t in tasks) == ["depthwise_conv2d_nchw.llvm", "group_conv2d_nchw.llvm"]
    log = tmp_path / "records.json"
    records = []
    for task in tasks:  # a record of a config that is not the default
        config = task.config_space.get((task.default_index() or 0) ^ 1)
        result = autotvm.MeasureResult([1e-4], 0, 0.1, 1.0)
        records.append((autotvm.MeasureInput("llvm", task, config), result))
    autotvm.record.save_to_file(log, records)
    default = str(lower_for_build(mod, params, "llvm")[1])
    with autotvm.apply_history_best(log):
        tuned = str(lower_for_build(mod, params, "llvm")[1])
        lib = relay.build(mod, target="llvm", params=params)
    assert tuned != default
    data = rng.standard_normal((1, 8, 10, 10)).astype("float32")
    (got,) = run_factory(lib, x=data)
    hidden = np.maximum(grouped_conv(data, params["dw"], 8, 1), 0)
    np.testing.assert_allclose(got, grouped_conv(hidden, params["gw"], 4, 1), rtol=1e-4, atol=1e-3)


def test_whole_plane_knob_replays_exactly_and_is_right(tmp_path: Path) -> None:
    """`plane` (a tile of channels by whole 7x7 planes) with any channel tile computes the
    conv2d; relay.build applies such a record, and a record written before the knob existed
    (no `plane` entity) replays as the row tile it was measured as."""
    args = [(1, 32, 7, 7), (32, 8, 1, 1), (1, 1), (0,) * 4, (1, 1), 4]
    task = autotvm.task.create("group_conv2d_nchw.llvm", args)
    space = list(task.config_space)
    default = task.config_space.get(task.default_index())
    assert default["plane"].val and default["tile_f"].size[-1] == 8
    rng = np.random.default_rng(0)
    x = rng.standard_normal(args[0]).astype("float32")
    w = rng.standard_normal(args[1]).astype("float32")
    expected = grouped_conv(x, w, 4, 0)
    picked = [c for c in space if c["tile_f"].size[-1] in (2, 8) and c["tile_x"].size[-1] == 7]
    forms = set()
    for config in picked[:: max(1, len(picked) // 6)]:
        s, tensors = task.instantiate(config)
        forms.add(str(primitives(s)))
        out = np.zeros((1, 32, 7, 7), "float32")
        tvm.build(s, tensors, target="llvm")(x, w, out)
        np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)
    assert len(forms) > 2  # plane and row tiles of 2 and 8 channels

    data = relay.var("x", shape=args[0])
    mod = tvm.IRModule.from_expr(
        relay.Function([data], relay.nn.conv2d(data, relay.const(w), groups=4))
    )
    (conv,) = autotvm.task.extract_from_program(mod, {}, "llvm")
    plane_2 = next(c for c in space if c["plane"].val and c["tile_f"].size[-1] == 2)
    row_8 = next(c for c in space if not c["plane"].val and c["tile_f"].size[-1] == 8)
    before_knob = autotvm.ConfigEntity.from_json_dict(
        {"index": 0, "entity": [e for e in row_8.to_json_dict()["entity"] if e[0] != "plane"]}
    )
    kernels = {}
    for name, config in (("plane_2", plane_2), ("row_8", row_8), ("before", before_knob)):
        record = [(autotvm.MeasureInput("llvm", conv, config),
                   autotvm.MeasureResult([1e-4], 0, 0.1, 1.0))]  # fmt: skip
        with autotvm.apply_history_best(record):
            kernels[name] = str(lower_for_build(mod, {}, "llvm")[1])
            (got,) = run_factory(relay.build(mod, target="llvm"), x=x)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
    assert kernels["before"] == kernels["row_8"] != kernels["plane_2"]
    assert str(lower_for_build(mod, {}, "llvm")[1]) not in (kernels["row_8"], kernels["plane_2"])


def test_winograd_template_is_the_default_and_relay_build_applies_it(tmp_path: Path) -> None:
    x = relay.var("x", shape=(1, 32, 14, 14))
    w = relay.var("w", shape=(32, 32, 3, 3))
    mod = tvm.IRModule.from_expr(relay.Function([x, w], relay.nn.conv2d(x, w, padding=(1, 1))))
    rng = np.random.default_rng(0)
    params = {"w": rng.standard_normal((32, 32, 3, 3)).astype("float32")}
    # the layer could be direct too: a task of each, the winograd one built by default
    tasks = autotvm.task.extract_from_program(mod, params, "llvm")
    assert sorted(t.name for t in tasks) == ["conv2d_nhwc.llvm", "conv2d_winograd_nhwc.llvm"]
    (task,) = (t for t in tasks if "winograd" in t.name)
    assert task.name == "conv2d_winograd_nhwc.llvm"  # a 3x3 stride-1 layer on the CPU
    assert (task.args[0], task.args[2]) == ((1, 14, 14, 32), 4)  # NHWC data, F(4x4, 3x3)

    # the fallback config is relay.build's default schedule of the whole kernel
    default = str(lower_for_build(mod, params, "llvm")[1])
    s, _ = templates.conv2d_winograd_nhwc(*task.args)
    index = task.default_index()
    assert index is not None
    assert primitives(task.instantiate(task.config_space.get(index))[0]) == primitives(s)
    fallback = [(autotvm.MeasureInput("llvm", task, task.config_space.get(index)),
                 autotvm.MeasureResult([1e-4], 0, 0.1, 1.0))]  # fmt: skip
    with autotvm.apply_history_best(fallback):
        assert str(lower_for_build(mod, params, "llvm")[1]) == default

    # a short tuning measures real candidates; relay.build uses the best of them
    log = tmp_path / "winograd.json"
    records = tune_three(task, log)
    (best_input, _), *_ = autotvm.record.best_records(records).values()
    with autotvm.apply_history_best(log):
        tuned = str(lower_for_build(mod, params, "llvm")[1])
        lib = relay.build(mod, target="llvm", params=params)
    assert (tuned == default) == (best_input.config.index == index)
    data = rng.standard_normal((1, 32, 14, 14)).astype("float32")
    (got,) = run_factory(lib, x=data)
    np.testing.assert_allclose(got, grouped_conv(data, params["w"], 1, 1), rtol=1e-3, atol=1e-3)
