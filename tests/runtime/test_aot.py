"""AOT deployment: `xtvm-compile --emit aot` and `export_aot` write model.so + model.h, which a
C program (no Python) links and runs; its outputs are checked against onnxruntime and numpy."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import xtvm as tvm
from xtvm import relay
from xtvm.contrib import graph_executor
from xtvm.driver.aot import export_aot
from xtvm.runtime.graph_executor import GraphInputError
from xtvm.tools import compile as xtvm_compile

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CC = os.environ.get("CC", "gcc")

pytestmark = pytest.mark.skipif(shutil.which(CC) is None, reason=f"no C compiler '{CC}'")


def c_program(num_inputs: int, num_outputs: int) -> str:
    """A C program: `prog in0.bin ... out0.bin ...` reads raw inputs, runs, writes outputs."""
    inputs = [f"XTVM_MODEL_INPUT_{k}_BYTES" for k in range(num_inputs)]
    outputs = [f"XTVM_MODEL_OUTPUT_{k}_BYTES" for k in range(num_outputs)]
    return f"""
#include <stdio.h>
#include <stdlib.h>
#include "model.h"

static const size_t in_bytes[] = {{{", ".join(inputs)}}};
static const size_t out_bytes[] = {{{", ".join(outputs)}}};

int main(int argc, char **argv) {{
  const void *inputs[XTVM_MODEL_NUM_INPUTS];
  void *outputs[XTVM_MODEL_NUM_OUTPUTS];
  if (argc != 1 + XTVM_MODEL_NUM_INPUTS + XTVM_MODEL_NUM_OUTPUTS) return 2;
  if (xtvm_model_num_inputs() != XTVM_MODEL_NUM_INPUTS) return 3;
  if (xtvm_model_num_outputs() != XTVM_MODEL_NUM_OUTPUTS) return 3;
  for (int i = 0; i < XTVM_MODEL_NUM_INPUTS; ++i) {{
    void *buf = malloc(in_bytes[i]);
    FILE *f = fopen(argv[1 + i], "rb");
    if (!f || fread(buf, 1, in_bytes[i], f) != in_bytes[i]) return 4;
    fclose(f);
    inputs[i] = buf;
  }}
  for (int i = 0; i < XTVM_MODEL_NUM_OUTPUTS; ++i) outputs[i] = malloc(out_bytes[i]);
  for (int run = 0; run < 2; ++run)  /* runs again on the same arena */
    if (xtvm_model_run(inputs, outputs) != 0) return 5;
  for (int i = 0; i < XTVM_MODEL_NUM_OUTPUTS; ++i) {{
    FILE *f = fopen(argv[1 + XTVM_MODEL_NUM_INPUTS + i], "wb");
    if (!f || fwrite(outputs[i], 1, out_bytes[i], f) != out_bytes[i]) return 6;
    fclose(f);
  }}
  return 0;
}}
"""


def build_and_run(
    library: Path, inputs: list[np.ndarray], outputs: list[tuple[tuple[int, ...], str]]
) -> list[np.ndarray]:
    """Compile the C program against `library` and its header, run it, read its outputs."""
    tmp = library.parent
    source = tmp / "main.c"
    source.write_text(c_program(len(inputs), len(outputs)))
    program = tmp / "main"
    subprocess.run(
        [CC, "-std=c99", "-Wall", "-Werror", "-O2", "-I", str(tmp), str(source),
         "-o", str(program), str(library), f"-Wl,-rpath,{tmp}"],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    in_files = []
    for k, value in enumerate(inputs):
        in_files.append(tmp / f"in{k}.bin")
        np.ascontiguousarray(value).tofile(in_files[-1])
    out_files = [tmp / f"out{k}.bin" for k in range(len(outputs))]
    env = {"PATH": os.environ.get("PATH", ""), "OMP_NUM_THREADS": "2"}
    result = subprocess.run(
        [str(program), *map(str, in_files), *map(str, out_files)],
        capture_output=True, text=True, env=env, check=False, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return [
        np.fromfile(f, dtype=dtype).reshape(shape)
        for f, (shape, dtype) in zip(out_files, outputs, strict=True)
    ]


def test_cnn_aot_from_xtvm_compile_matches_onnxruntime(tmp_path: Path) -> None:
    ort = pytest.importorskip("onnxruntime")
    library = tmp_path / "model.so"
    model = EXAMPLES / "cnn.onnx"
    assert xtvm_compile.main([str(model), "--emit", "aot", "-o", str(library)]) == 0
    header = (tmp_path / "model.h").read_text()
    assert '#define XTVM_MODEL_INPUT_0_NAME "data"' in header
    assert "#define XTVM_MODEL_INPUT_0_SHAPE {1, 3, 32, 32}" in header
    assert "#define XTVM_MODEL_OUTPUT_0_SHAPE {1, 10}" in header
    assert '#define XTVM_MODEL_OUTPUT_0_DTYPE "float32"' in header
    assert '#define XTVM_MODEL_OUTPUT_0_NAME "prob"' in header
    data = np.load(EXAMPLES / "cnn_input.npy").astype(np.float32)
    (got,) = build_and_run(library, [data], [((1, 10), "float32")])
    session = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    (expected,) = session.run(["prob"], {"data": data})
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_tuple_outputs_weights_and_passthrough(tmp_path: Path) -> None:
    """Two inputs, a weight embedded in the library, four outputs (one the input itself)."""
    rng = np.random.default_rng(0)
    x = relay.var("x", shape=(3, 5))
    y = relay.var("y", shape=(5, 4))
    w = relay.param("w", (3, 5))
    a = relay.exp(x) * w
    b = relay.nn.softmax(a)
    body = relay.Tuple([b, relay.sum(a, axis=1), relay.nn.dense(a, relay.transpose(y)), x])
    mod = tvm.IRModule.from_expr(relay.Function([x, y], body))
    w_value = rng.standard_normal((3, 5)).astype("float32")
    factory = relay.build(mod, "llvm", params={"w": w_value})
    header = export_aot(factory, tmp_path / "model.so")
    assert header == tmp_path / "model.h"
    assert "#define XTVM_MODEL_NUM_INPUTS 2" in header.read_text()
    x_value = rng.standard_normal((3, 5)).astype("float32")
    y_value = rng.standard_normal((5, 4)).astype("float32")
    got = build_and_run(
        tmp_path / "model.so",
        [x_value, y_value],
        [((3, 5), "float32"), ((3,), "float32"), ((3, 4), "float32"), ((3, 5), "float32")],
    )
    check_tuple_outputs(got, x_value, y_value, w_value)
    # load_module reads the library too: `default` runs its entry point as a graph executor.
    module = graph_executor.GraphModule(tvm.runtime.load_module(tmp_path / "model.so")["default"]())
    assert module.get_num_inputs() == 2 and module.get_num_outputs() == 4
    with pytest.raises(GraphInputError, match="without a value: 'y'"):
        module.run(x=x_value)
    module.run(y=y_value)
    check_tuple_outputs([module.get_output(k).numpy() for k in range(4)], x_value, y_value, w_value)


def check_tuple_outputs(
    got: list[np.ndarray], x_value: np.ndarray, y_value: np.ndarray, w_value: np.ndarray
) -> None:
    a_value = np.exp(x_value) * w_value
    soft = np.exp(a_value - a_value.max(axis=1, keepdims=True))
    soft /= soft.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(got[0], soft, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], a_value.sum(axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[2], a_value @ y_value, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(got[3], x_value)
