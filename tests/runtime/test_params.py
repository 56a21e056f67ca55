"""The params blob a relay.build library embeds (xtvm/runtime/params.py): its format, the
readers' checks, and an exported model giving the same outputs through every loader."""

from __future__ import annotations

import ctypes
import io
import json
import shutil
import subprocess
from pathlib import Path

import llvmlite.binding as llb
import numpy as np
import pytest

import xtvm as tvm
from xtvm import relay
from xtvm.contrib import graph_executor
from xtvm.driver.aot import export_aot
from xtvm.runtime.graph_executor import load_factory
from xtvm.runtime.module import PARAMS_SIZE_SYMBOL, PARAMS_SYMBOL
from xtvm.runtime.params import ALIGN, MAGIC, ParamsFormatError, read_params, write_params

RUNTIME = Path(__file__).parents[2] / "xtvm" / "runtime" / "c"
RNG = np.random.default_rng(5)


def blob_of(params: dict[str, np.ndarray]) -> np.ndarray:
    out = io.BytesIO()
    size = write_params(out, params)
    assert size == len(out.getvalue())
    return np.frombuffer(out.getvalue(), np.uint8)


def test_every_dtype_round_trips_as_aligned_read_only_views() -> None:
    params = {
        "f32": RNG.standard_normal((3, 5)).astype("float32"),
        "scalar": np.array(2.5, "float64"),
        "empty": np.zeros((0, 4), "int64"),
        "strided": np.arange(20, dtype="int16")[::3],
        "flags": np.array([True, False, True]),
        "big_endian": np.arange(6, dtype=">i4").reshape(2, 3),
        "half": np.ones(7, "float16"),
    }
    blob = blob_of(params)
    assert bytes(blob[:8]) == MAGIC
    loaded = read_params(blob)
    assert list(loaded) == list(params)
    for name, value in params.items():
        np.testing.assert_array_equal(loaded[name], value)
        assert loaded[name].dtype.name == value.dtype.name
        assert not loaded[name].flags.writeable
        assert np.shares_memory(loaded[name], blob) or loaded[name].size == 0
        assert (loaded[name].ctypes.data - blob.ctypes.data) % ALIGN == 0


def corrupt(blob: np.ndarray, old: bytes, new: bytes) -> np.ndarray:
    data = bytes(blob)
    assert data.count(old) >= 1
    return np.frombuffer(data.replace(old, new, 1), np.uint8)


def with_index(index: list[dict[str, object]], data_bytes: int = 64) -> np.ndarray:
    text = json.dumps(index).encode()
    head = MAGIC + len(text).to_bytes(8, "little") + text
    head += b"\0" * (-len(head) % ALIGN)
    return np.frombuffer(head + b"\0" * data_bytes, np.uint8)


def entry(**fields: object) -> dict[str, object]:
    return {"name": "w", "dtype": "float32", "shape": [4], "offset": 0, **fields}


@pytest.mark.parametrize(
    ("blob", "message"),
    [
        (np.frombuffer(b"PK\x03\x04" + bytes(60), np.uint8), "not in xtvm's format"),
        (np.frombuffer(MAGIC + (1 << 40).to_bytes(8, "little"), np.uint8), "index claims"),
        (with_index([entry(dtype="object")]), "entry 0 is malformed"),
        (with_index([entry(shape=[-1])]), "entry 0 is malformed"),
        (with_index([entry(shape=[1] * 33)]), "entry 0 is malformed"),
        (with_index([entry(offset=-64)]), "entry 0 is malformed"),
        (with_index([entry(shape=[17])]), "reaches past the end"),
        (with_index([entry(offset=64)]), "reaches past the end"),
        (with_index([entry(shape=[1 << 62])]), "reaches past the end"),
        (with_index([entry(), entry()]), "appears twice"),
        (with_index({"w": 1}), "not a list"),  # type: ignore[arg-type]
    ],
)
def test_malformed_blobs_are_refused(blob: np.ndarray, message: str) -> None:
    with pytest.raises(ParamsFormatError, match=message):
        read_params(blob)


def small_net() -> tuple[tvm.IRModule, dict[str, np.ndarray]]:
    x = relay.var("x", shape=(1, 3, 8, 8))
    w = relay.var("w", shape=(4, 3, 3, 3))
    b = relay.var("b", shape=(4, 1, 1))
    d = relay.var("d", shape=(10, 256))
    y = relay.nn.relu(relay.nn.conv2d(x, w, padding=(1, 1)) + b)
    out = relay.nn.dense(relay.nn.batch_flatten(y), d)
    mod = tvm.IRModule.from_expr(relay.Function([x, w, b, d], out))
    shapes = {"w": (4, 3, 3, 3), "b": (4, 1, 1), "d": (10, 256)}
    return mod, {n: RNG.standard_normal(s).astype("float32") for n, s in shapes.items()}


def embedded_blob(path: Path) -> bytes:
    library = ctypes.CDLL(str(path.resolve()))
    size = ctypes.c_int64.in_dll(library, PARAMS_SIZE_SYMBOL).value
    return bytes((ctypes.c_uint8 * size).in_dll(library, PARAMS_SYMBOL))


def test_export_embeds_the_params_blob_without_llvm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The library's `xtvm_graph_params` are exactly the blob of the factory's params: the
    weights reach the library through the assembler, no LLVM IR is parsed on export."""
    mod, params = small_net()
    factory = relay.build(mod, target="llvm", params=params)
    parsed: list[int] = []
    parse = llb.parse_assembly
    monkeypatch.setattr(
        llb, "parse_assembly", lambda text, *a: parsed.append(len(text)) or parse(text, *a)
    )
    path = tmp_path / "net.so"
    factory.export_library(path)
    assert parsed == []
    assert embedded_blob(path) == bytes(blob_of(factory.params))
    loaded = load_factory(path)
    for name, value in factory.params.items():
        np.testing.assert_array_equal(loaded.params[name], value)
        assert not loaded.params[name].flags.writeable  # a view of the mapped library


C_HARNESS = r"""
#include "runtime.h"
#include <stdio.h>
#include <stdlib.h>

/* library input.bin output.bin: run the graph on input `x` with the C runtime */
int main(int argc, char **argv) {
  char error[XTVM_ERROR_SIZE] = "";
  const char *type = "";
  if (argc != 4) return 2;
  xtvm_module *module = xtvm_module_load(argv[1], error);
  xtvm_graph *graph = module ? xtvm_graph_create(module, error) : NULL;
  if (!graph) { printf("error: %s\n", error); return 1; }
  int input = xtvm_graph_input_index(graph, "x");
  xtvm_tensor value = graph->entries[graph->input_entries[input]];
  size_t bytes = xtvm_tensor_bytes(&value);
  value.data = malloc(bytes);
  FILE *f = fopen(argv[2], "rb");
  if (!value.data || !f || fread(value.data, 1, bytes, f) != bytes) return 2;
  fclose(f);
  if (xtvm_graph_set_input(graph, input, &value, error) || xtvm_graph_run(graph, error, &type)) {
    printf("error: %s\n", error);
    return 1;
  }
  const xtvm_tensor *out = &graph->entries[graph->output_entries[0]];
  f = fopen(argv[3], "wb");
  if (!f || fwrite(out->data, 1, xtvm_tensor_bytes(out), f) != xtvm_tensor_bytes(out)) return 2;
  fclose(f);
  printf("ok\n");
  return 0;
}
"""


def c_runner(directory: Path) -> Path:
    source = directory / "harness.c"
    source.write_text(C_HARNESS)
    binary = directory / "harness"
    sources = [source, RUNTIME / "runtime.c", RUNTIME / "json.c"]
    command = ["gcc", "-std=c99", "-O1", f"-I{RUNTIME}", *map(str, sources), "-o", str(binary)]
    subprocess.run([*command, "-ldl", "-lm"], check=True, capture_output=True)
    return binary


def run_c(binary: Path, library: Path, x: np.ndarray, out: np.ndarray) -> str:
    (library.parent / "x.bin").write_bytes(x.tobytes())
    result = subprocess.run(
        [str(binary), str(library), str(library.parent / "x.bin"), str(library.parent / "y.bin")],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode == 0:
        out[...] = np.frombuffer((library.parent / "y.bin").read_bytes(), out.dtype).reshape(
            out.shape
        )
    return result.stdout.strip()


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")
def test_every_loader_gives_the_outputs_of_the_built_factory(tmp_path: Path) -> None:
    mod, params = small_net()
    x = RNG.standard_normal((1, 3, 8, 8)).astype("float32")
    factory = relay.build(mod, target="llvm", params=params)
    module = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    module.run(x=x)
    expected = module.get_output(0).numpy()
    path = tmp_path / "net.so"
    factory.export_library(path)

    lib = tvm.runtime.load_module(path)
    loaded = graph_executor.GraphModule(lib["default"](tvm.cpu()))
    loaded.run(x=x)
    np.testing.assert_array_equal(loaded.get_output(0).numpy(), expected)

    got = np.empty_like(expected)
    assert run_c(c_runner(tmp_path), path, x, got) == "ok"
    np.testing.assert_array_equal(got, expected)

    aot = tmp_path / "aot.so"
    export_aot(factory, aot)
    runner = ctypes.CDLL(str(aot))
    got = np.empty_like(expected)
    status = runner.xtvm_model_run(
        (ctypes.c_void_p * 1)(x.ctypes.data), (ctypes.c_void_p * 1)(got.ctypes.data)
    )
    assert status == 0
    np.testing.assert_array_equal(got, expected)


def reshape_net() -> tvm.IRModule:
    """A function of reshapes only (its graph node a `__nop`), whose input feeds another kernel
    too; its output is the graph's first, the reshape of an input the second."""
    x = relay.var("x", shape=(4, 6))
    a = relay.exp(x)
    body = relay.Tuple([relay.reshape(relay.expand_dims(a, 0), (6, 4)), relay.reshape(x, (24,))])
    return tvm.IRModule.from_expr(relay.Function([x], relay.Tuple([*body, relay.sqrt(a)])))


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")
def test_a_reshape_runs_nothing_and_shares_its_input_storage_in_every_runtime(
    tmp_path: Path,
) -> None:
    factory = relay.build(reshape_net(), target="llvm")
    graph = json.loads(factory.get_graph_json())
    names = [n["attrs"]["func_name"] for n in graph["nodes"] if n["op"] == "tvm_op"]
    assert names.count("__nop") == 2
    storage = graph["attrs"]["storage_id"][1]
    row_ptr = graph["node_row_ptr"]
    for nid, node in enumerate(graph["nodes"]):
        if node["op"] == "tvm_op" and node["attrs"]["func_name"] == "__nop":
            (src, index, _), dst = node["inputs"][0], row_ptr[nid]
            assert storage[row_ptr[src] + index] == storage[dst]
    x = RNG.standard_normal((4, 6)).astype("float32")
    expected = [np.exp(x).reshape(6, 4), x.reshape(24), np.sqrt(np.exp(x))]

    module = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    module.run(x=x)
    for k, value in enumerate(expected):
        np.testing.assert_allclose(module.get_output(k).numpy(), value, rtol=1e-6)

    path = tmp_path / "net.so"
    factory.export_library(path)
    got = np.empty((6, 4), "float32")
    assert run_c(c_runner(tmp_path), path, x, got) == "ok"
    np.testing.assert_allclose(got, expected[0], rtol=1e-6)

    aot = tmp_path / "aot.so"
    export_aot(factory, aot)
    runner = ctypes.CDLL(str(aot))
    outputs = [np.zeros_like(value) for value in expected]
    status = runner.xtvm_model_run(
        (ctypes.c_void_p * 1)(x.ctypes.data),
        (ctypes.c_void_p * 3)(*(o.ctypes.data for o in outputs)),
    )
    assert status == 0
    for got_value, value in zip(outputs, expected, strict=True):
        np.testing.assert_allclose(got_value, value, rtol=1e-6)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")
def test_the_c_runtime_refuses_a_nop_that_does_not_share_storage(tmp_path: Path) -> None:
    factory = relay.build(reshape_net(), target="llvm")
    graph = json.loads(factory.get_graph_json())
    old = json.dumps(graph["attrs"]["storage_id"])
    ids = graph["attrs"]["storage_id"][1]
    graph["attrs"]["storage_id"][1] = list(range(len(ids)))
    new = json.dumps(graph["attrs"]["storage_id"])
    path = tmp_path / "net.so"
    factory.export_library(path)
    data = path.read_bytes()
    assert data.count(old.encode()) == 1 and len(old) == len(new)
    path.write_bytes(data.replace(old.encode(), new.encode()))
    x = np.zeros((4, 6), "float32")
    message = run_c(c_runner(tmp_path), path, x, np.empty((6, 4), "float32"))
    assert "(__nop) does not share its input's storage" in message


def test_a_nop_node_of_two_inputs_is_refused() -> None:
    graph = json.loads(relay.build(reshape_net(), target="llvm").get_graph_json())
    nop = next(n for n in graph["nodes"] if n.get("attrs", {}).get("func_name") == "__nop")
    nop["inputs"].append([0, 0, 0])
    with pytest.raises(ValueError, match="must have one input and one output"):
        tvm.contrib.graph_executor.create(json.dumps(graph), tvm.runtime.Module({}, id), None)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")
@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (MAGIC, b"XTVMPAR0", "not in xtvm's format"),
        (
            b'"float32", "shape": [4, 1, 1]',
            b'"float99", "shape": [4, 1, 1]',
            "entry 0 is malformed",
        ),
        (b'"offset": 0}', b'"offset":-1}', "entry 0 is malformed"),
        (b'"shape": [10, 256]', b'"shape": [99, 256]', "entry 2 is malformed"),
        (b'"offset": 512}', b'"offset": 999}', "entry 2 is malformed"),
    ],
)
def test_the_c_runtime_refuses_malformed_params(
    tmp_path: Path, old: bytes, new: bytes, message: str
) -> None:
    mod, params = small_net()
    path = tmp_path / "net.so"
    relay.build(mod, target="llvm", params=params).export_library(path)
    data = path.read_bytes()
    start = data.index(MAGIC)
    end = start + 16 + int.from_bytes(data[start + 8 : start + 16], "little")
    head = data[start:end]  # the magic and the index
    assert head.count(old) == 1 and len(old) == len(new)
    path.write_bytes(data[:start] + head.replace(old, new) + data[end:])
    x = np.zeros((1, 3, 8, 8), "float32")
    assert message in run_c(c_runner(tmp_path), path, x, np.empty((1, 10), "float32"))
