"""xtvm-compile and xtvm-run on a small ONNX model and a relay file, checked against numpy,
and the one-line errors they give for user mistakes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from xtvm.tools import compile as xtvm_compile
from xtvm.tools import run as xtvm_run

RNG = np.random.default_rng(5)
W = RNG.standard_normal((6, 4)).astype(np.float32)
B = RNG.standard_normal(4).astype(np.float32)


def expected(x: np.ndarray) -> np.ndarray:
    return np.maximum(x @ W + B, 0)


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """relu(x @ W + b) as ONNX, its input named `input:0` as exporters like to."""
    nodes = [
        helper.make_node("MatMul", ["input:0", "w"], ["m"]),
        helper.make_node("Add", ["m", "b"], ["a"]),
        helper.make_node("Relu", ["a"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "mlp",
        [helper.make_tensor_value_info("input:0", TensorProto.FLOAT, [3, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])],
        [numpy_helper.from_array(W, "w"), numpy_helper.from_array(B, "b")],
    )
    path = tmp_path_factory.mktemp("model") / "mlp.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


@pytest.fixture(scope="module")
def library(model: Path) -> Path:
    out = model.with_suffix(".so")
    assert xtvm_compile.main([str(model), "--target", "llvm", "-o", str(out)]) == 0
    return out


def test_compile_then_run_matches_numpy(
    library: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    x = RNG.standard_normal((3, 6)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "y.npy"
    argv = [str(library), "--input", f"input:0={tmp_path / 'x.npy'}", "--output", str(out)]
    assert xtvm_run.main([*argv, "--benchmark", "5"]) == 0
    np.testing.assert_allclose(np.load(out), expected(x), rtol=1e-5, atol=1e-6)
    out = capsys.readouterr().out
    assert "warm-up: 3 runs, first " in out
    assert re.search(r"latency over 5 runs \(ms\): mean [0-9.]+  median [0-9.]+  p90 [0-9.]+", out)


def test_run_prints_small_outputs_whole_and_large_ones_summarised() -> None:
    small = xtvm_run.format_output(0, np.arange(600, dtype=np.float32))
    assert small.startswith("output 0: float32[600]\n") and "..." not in small
    assert " 599.]" in small
    large = xtvm_run.format_output(1, np.zeros((40, 40), np.float32))
    assert "(1600 values, summarised; --output FILE.npy saves them all)" in large
    assert "..." in large


@pytest.mark.parametrize("threads", [1, 2])
def test_run_threads(
    library: Path, tmp_path: Path, threads: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--threads N` sets the thread count the model runs with; results are the same."""
    from xtvm.runtime import graph_executor
    from xtvm.runtime.threads import get_num_threads

    counts = []
    load_factory = graph_executor.load_factory

    def counting_load_factory(path: str | Path) -> object:
        counts.append(get_num_threads())
        return load_factory(path)

    monkeypatch.setattr(graph_executor, "load_factory", counting_load_factory)
    x = RNG.standard_normal((3, 6)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "y.npy"
    argv = [str(library), "--input", f"input:0={tmp_path / 'x.npy'}", "--output", str(out)]
    assert xtvm_run.main([*argv, "--threads", str(threads)]) == 0
    assert counts == [threads]
    np.testing.assert_allclose(np.load(out), expected(x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("value", ["0", "-2", "two"])
def test_run_threads_must_be_positive(
    library: Path, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        xtvm_run.main([str(library), "--threads", value])
    assert exit_info.value.code == 2
    assert f"--threads: expected a positive integer, got '{value}'" in capsys.readouterr().err


def test_run_profile_lists_every_kernel(
    library: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xtvm.runtime.graph_executor import load_factory

    np.save(tmp_path / "x.npy", RNG.standard_normal((3, 6)).astype(np.float32))
    argv = [str(library), "--input", f"input:0={tmp_path / 'x.npy'}", "--profile", "3"]
    assert xtvm_run.main(argv) == 0
    table = capsys.readouterr().out.split("kernel", 1)[1].splitlines()
    executor = load_factory(library).create()
    executor.set_input("input:0", np.load(tmp_path / "x.npy"))
    kernels = set(executor.call_names)
    assert kernels and {line.split()[0] for line in table[1:-1]} == kernels
    assert table[-1].split()[:2] == ["total", str(len(executor.calls))]
    profile = executor.profile(2)
    assert len(profile.seconds) == len(executor.calls) and profile.total > 0
    assert sum(calls for _, calls, _ in profile.by_kernel()) == len(executor.calls)


def test_relay_file_with_params(tmp_path: Path) -> None:
    source = tmp_path / "add.mlir"
    source.write_text(
        "func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
        '  %w = relay.param["w"] : tensor<2x3xf32>\n'
        "  %y = relay.add %x, %w : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>\n"
        "  func.return %y : tensor<2x3xf32>\n}\n"
    )
    w = RNG.standard_normal((2, 3)).astype(np.float32)
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    np.savez(tmp_path / "p.npz", w=w)
    np.save(tmp_path / "x.npy", x)
    lib = tmp_path / "add.so"
    argv = [str(source), "--params", str(tmp_path / "p.npz"), "-o", str(lib), "--opt-level", "1"]
    assert xtvm_compile.main(argv) == 0
    out = tmp_path / "y.npy"
    assert (
        xtvm_run.main([str(lib), "--input", f"x={tmp_path / 'x.npy'}", "--output", str(out)]) == 0
    )
    np.testing.assert_allclose(np.load(out), x + w, rtol=1e-6)


@pytest.mark.parametrize("emit", ["graph-json", "mlir", "llvm", "asm"])
def test_emit(model: Path, emit: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert xtvm_compile.main([str(model), "--emit", emit]) == 0
    text = capsys.readouterr().out
    if emit == "graph-json":
        graph = json.loads(text)
        assert [n["op"] for n in graph["nodes"]].count("tvm_op") >= 1
    elif emit == "mlir":
        assert "func.func @fused_" in text and "memref" in text
    elif emit == "llvm":
        assert re.search(r'define [^@\n]*i32 @"?fused_', text)  # kernels return a status
    else:
        assert "fused_" in text


def one_line_error(capsys: pytest.CaptureFixture[str], needle: str) -> None:
    err = capsys.readouterr().err
    assert needle in err, err
    assert err.count("\n") == 1 and "Traceback" not in err, err


def test_errors(library: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert xtvm_compile.main([str(tmp_path / "missing.onnx")]) == 1
    one_line_error(capsys, "cannot open input file")
    assert xtvm_run.main([str(tmp_path / "missing.so")]) == 1
    one_line_error(capsys, "cannot open library")
    assert xtvm_run.main([str(library), "--input", f"input:0={tmp_path / 'nope.npy'}"]) == 1
    one_line_error(capsys, "cannot read input 'input:0'")
    np.save(tmp_path / "bad.npy", np.zeros((3, 5), np.float32))
    assert xtvm_run.main([str(library), "--input", f"input:0={tmp_path / 'bad.npy'}"]) == 1
    one_line_error(capsys, "expected shape [3, 6], got [3, 5]")
    assert xtvm_run.main([str(library), "--input", "no-equals-sign"]) == 1
    one_line_error(capsys, "invalid --input 'no-equals-sign' (expected NAME=FILE.npy)")


def npy_files(tmp_path: Path) -> dict[str, Path]:
    """Files that are not a usable input array, each named by what is wrong with it."""
    x = np.zeros((3, 6), np.float32)
    files = {}
    good = tmp_path / "good.npy"
    np.save(good, x)
    files["truncated"] = tmp_path / "truncated.npy"
    files["truncated"].write_bytes(good.read_bytes()[:-10])
    header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000), }"
    files["huge"] = tmp_path / "huge.npy"
    files["huge"].write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header)
    files["long header"] = tmp_path / "long.npy"
    long_header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 6), }" + b" " * 70000
    files["long header"].write_bytes(
        b"\x93NUMPY\x02\x00" + len(long_header + b"\n").to_bytes(4, "little") + long_header + b"\n"
    )
    files["pickle"] = tmp_path / "objects.npy"
    np.save(files["pickle"], np.array([{"a": 1}], dtype=object), allow_pickle=True)
    files["npz"] = tmp_path / "archive.npz"
    np.savez(files["npz"], x=x)
    return files


EXPECTED_NPY_ERRORS = {
    "truncated": "its header declares float32[3, 6] (72 bytes) but it holds 62",
    "huge": "its header declares float32[1000000, 1000000] (4000000000000 bytes) but it holds 0",
    "long header": "Header info length",
    "pickle": "holds Python objects, not numbers",
    "npz": "not a .npy file (an .npz?)",
}


@pytest.mark.parametrize("kind", EXPECTED_NPY_ERRORS)
def test_run_refuses_unreadable_npy(
    library: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    path = npy_files(tmp_path)[kind]
    assert xtvm_run.main([str(library), "--input", f"input:0={path}"]) == 1
    err = capsys.readouterr().err
    assert f"cannot read input 'input:0' from '{path}': " in err, err
    assert EXPECTED_NPY_ERRORS[kind] in err and err.count("\n") == 1, err


def test_run_input_errors(
    library: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert xtvm_run.main([str(library)]) == 1
    one_line_error(capsys, "no value for input 'input:0' (give --input NAME=FILE.npy for each")
    np.save(tmp_path / "x.npy", np.zeros((3, 6), np.float32))
    np.save(tmp_path / "x64.npy", np.zeros((3, 6), np.float64))
    x = f"input:0={tmp_path / 'x.npy'}"
    assert xtvm_run.main([str(library), "--input", x, "--input", x]) == 1
    one_line_error(capsys, "--input 'input:0' is given twice")
    assert xtvm_run.main([str(library), "--input", x, "--input", f"w={tmp_path / 'x.npy'}"]) == 1
    one_line_error(capsys, "the model has no input 'w' (inputs: 'input:0')")
    assert xtvm_run.main([str(library), "--input", f"input:0={tmp_path / 'x64.npy'}"]) == 1
    one_line_error(capsys, "input 'input:0': expected element type float32, got float64")
    out = tmp_path / "no" / "such" / "y.npy"
    assert xtvm_run.main([str(library), "--input", x, "--output", str(out)]) == 1
    one_line_error(capsys, f"cannot write '{out}': no such directory")


PARAM_FILE = (
    "func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
    '  %w = relay.param["w"] : tensor<2x3xf32>\n'
    "  %y = relay.add %x, %w : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>\n"
    "  func.return %y : tensor<2x3xf32>\n}\n"
)


def test_compile_param_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "add.mlir"
    source.write_text(PARAM_FILE)
    w = np.zeros((2, 3), np.float32)
    lib = str(tmp_path / "add.so")
    assert xtvm_compile.main([str(source), "-o", lib]) == 1
    one_line_error(capsys, "relay.param 'w' has no value (no --params file holds no such key)")
    np.savez(tmp_path / "typo.npz", weight=w)
    assert xtvm_compile.main([str(source), "--params", str(tmp_path / "typo.npz"), "-o", lib]) == 1
    one_line_error(capsys, f"relay.param 'w' has no value ('{tmp_path / 'typo.npz'}' holds no")
    np.savez(tmp_path / "extra.npz", w=w, bias=w)
    assert xtvm_compile.main([str(source), "--params", str(tmp_path / "extra.npz"), "-o", lib]) == 1
    one_line_error(capsys, "key 'bias' is no relay.param of the model nor an argument of @main")
    (tmp_path / "cut.npz").write_bytes((tmp_path / "extra.npz").read_bytes()[:100])
    assert xtvm_compile.main([str(source), "--params", str(tmp_path / "cut.npz"), "-o", lib]) == 1
    one_line_error(capsys, f"cannot read params from '{tmp_path / 'cut.npz'}': not an .npz")
    np.savez(tmp_path / "p.npz", w=w)
    out = tmp_path / "missing" / "add.so"
    assert (
        xtvm_compile.main([str(source), "--params", str(tmp_path / "p.npz"), "-o", str(out)]) == 1
    )
    one_line_error(capsys, f"cannot write '{out}': no such directory")
    assert xtvm_compile.main([str(source), "--shape", "x:2x3"]) == 1
    one_line_error(capsys, "--shape applies to an ONNX model")


NO_MAIN = (
    "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  func.return %x : tensor<4xf32>\n}\n"
)
BRANCHING_MAIN = (
    "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n  cf.br ^bb1\n^bb1:\n"
    "  func.return %x : tensor<4xf32>\n}\n"
)
BF16_MAIN = (
    "func.func @main(%x: tensor<4xbf16>) -> tensor<4xbf16> {\n"
    "  %y = relay.exp %x : (tensor<4xbf16>) -> tensor<4xbf16>\n"
    "  func.return %y : tensor<4xbf16>\n}\n"
)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (NO_MAIN, "1:1: error: the module has no @main function, which xtvm-compile builds"),
        ("func.func private @main(tensor<4xf32>)\n", "1:1: error: relay.build: @main is a decl"),
        (BRANCHING_MAIN, "1:1: error: 'func.func' op has a region of 2 blocks; relay.build"),
        (BF16_MAIN, "2:8: error: failed to legalize operation 'relay.exp': no te lowering"),
    ],
)
def test_compile_errors_are_located(
    text: str, error: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An @main relay.build cannot compile, or an error while compiling it, is one diagnostic
    # at its place in the file with the source line (not "error: ... error:", no traceback).
    source = tmp_path / "model.mlir"
    source.write_text(text)
    assert xtvm_compile.main([str(source), "--emit", "graph-json", "-o", "-"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{source}:{error}"), err
    assert err.count("error:") == 1, err
    assert text.splitlines()[int(error.split(":")[0]) - 1] in err.splitlines(), err


def test_compile_refuses_non_utf8_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "bad.mlir"
    source.write_bytes(PARAM_FILE.encode().replace(b"relay.add", b"relay.\xffadd"))
    assert xtvm_compile.main([str(source)]) == 1
    one_line_error(capsys, f"{source}:3:14: not UTF-8 text (byte 0xff)")


def test_opt_refuses_non_utf8_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io
    import sys

    from xtvm.tools import opt

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"func.func @f() {\n\xfe}\n")))
    assert opt.main([]) == 1
    assert "<stdin>:2:1: not UTF-8 text (byte 0xfe)" in capsys.readouterr().err


def test_compile_shape_errors(model: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert xtvm_compile.main([str(model), "--shape", "data:3x6", "--emit", "graph-json"]) == 1
    one_line_error(capsys, "shape given for 'data', which is not a graph input (inputs: 'input:0')")
    assert xtvm_compile.main([str(model), "--shape", "input:0:3x6x1", "--emit", "graph-json"]) == 1
    one_line_error(capsys, "graph input 'input:0' has rank 2 ([3, 6]), but the shape given")
