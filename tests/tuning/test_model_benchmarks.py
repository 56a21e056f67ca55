"""The whole-model tuning benchmarks take an ONNX file (`benchmarks/autotvm_model.py`,
`benchmarks/kernel_headroom.py`): a small conv net written here, with its inputs in the .npz
beside it as `export_models.py` writes them, is tuned, rebuilt from the records and profiled
end to end; a file without its inputs is refused with a message, not a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = Path(__file__).resolve().parents[2]


def write_model(directory: Path) -> Path:
    """A conv2d + relu + conv2d model and its input as in__data in the .npz beside it."""
    rng = np.random.default_rng(0)
    weights = [
        numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)
        for name, shape in (("w1", (8, 3, 3, 3)), ("w2", (8, 8, 1, 1)))
    ]
    graph = helper.make_graph(
        [
            helper.make_node("Conv", ["data", "w1"], ["c1"], pads=[1, 1, 1, 1]),
            helper.make_node("Relu", ["c1"], ["r1"]),
            helper.make_node("Conv", ["r1", "w2"], ["out"]),
        ],
        "small",
        [helper.make_tensor_value_info("data", TensorProto.FLOAT, [1, 3, 12, 12])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 8, 12, 12])],
        weights,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    path = directory / "small.onnx"
    onnx.save(model, path)
    np.savez(directory / "small.npz", in__data=rng.standard_normal((1, 3, 12, 12)).astype("f4"))
    return path


def benchmark(script: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    command = [sys.executable, str(ROOT / "benchmarks" / script), *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env, timeout=600)


def test_autotvm_model_tunes_an_onnx_file_and_rebuilds_the_same_kernels(tmp_path: Path) -> None:
    path = write_model(tmp_path)
    log = tmp_path / "records.json"
    done = benchmark(
        "autotvm_model.py", str(path), "--trials", "6", "--repeat", "2", "--log", str(log),
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "2 tasks" in done.stdout, done.stdout
    assert "a rebuild lowers alike: True; its outputs are identical: True" in done.stdout
    assert log.is_file() and log.with_suffix(".best.json").is_file()
    # each kernel timed inside both models: the 3x3 conv2d (relu fused) and the 1x1 one
    in_model = done.stdout.split("in the model (20 runs, thread clock)")[1]
    assert "fused_nn_conv2d_nn_relu" in in_model and "all kernels" in in_model, done.stdout


def test_kernel_headroom_profiles_an_onnx_file(tmp_path: Path) -> None:
    done = benchmark("kernel_headroom.py", str(write_model(tmp_path)), "--runs", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = {
        line.split()[0]: line.split()[1:]
        for line in done.stdout.splitlines()
        if line.startswith("fused_nn_conv2d")
    }
    # calls, ms, MFLOP: the 3x3 conv2d 2 * 12 * 12 * 8 * 27 + the relu fused into it 1152
    # = 63360, the 1x1 conv2d 2 * 12 * 12 * 8 * 8 = 18432; the layout transforms hold none
    assert {n: (r[0], r[2]) for n, r in rows.items()} == {
        "fused_nn_conv2d_nn_relu": ("1", "0.1"),
        "fused_nn_conv2d": ("1", "0.0"),
    }, done.stdout
    assert "0.00 GFLOP" in done.stdout and " 0.0 " in done.stdout.split("fused_layout")[1]


def test_an_onnx_file_without_its_inputs_is_refused(tmp_path: Path) -> None:
    path = write_model(tmp_path)
    path.with_suffix(".npz").unlink()
    done = benchmark("autotvm_model.py", str(path), "--trials", "1", cwd=tmp_path)
    assert done.returncode != 0
    assert "no such .onnx file with a .npz of its inputs beside it" in done.stderr
    assert "Traceback" not in done.stderr
