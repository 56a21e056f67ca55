"""ONNX tensor names reach every user-facing API exactly, checked against onnxruntime.

Inputs whose names are not valid SSA names (`0`, `a!b`), collide once sanitized (`a!b`, `a?b`,
`a_b`) or end in a suffix xDSL drops (`x_1`, `x_2`) are each bound to their own graph input
by `GraphModule.set_input`, `xtvm-run --input`, the interpreter, the ONNX backend and params.
Input i is scaled by 10**i, so a swapped binding changes the result.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from xtvm.api.relay.frontend import from_onnx
from xtvm.dialects import relay
from xtvm.dialects.registry import default_context
from xtvm.frontends.onnx import import_onnx
from xtvm.ir.printer import print_ir
from xtvm.runtime.relay_interpreter import evaluate

NAMES = ["x_1", "x_2", "a!b", "a?b", "0", "1", "a_b", "x"]
WEIGHT = "w_1"  # an initializer whose name also ends in a suffix xDSL drops


def scaled_sum_model() -> onnx.ModelProto:
    """y = sum_i 10**i * input_i + w_1; the second output is input `x_2` itself."""
    nodes, prev = [], WEIGHT
    for i, name in enumerate(NAMES):
        nodes.append(
            helper.make_node(
                "Constant", [], [f"c{i}"], value=numpy_helper.from_array(np.float32(10**i))
            )
        )
        nodes.append(helper.make_node("Mul", [name, f"c{i}"], [f"m{i}"]))
        nodes.append(helper.make_node("Add", [prev, f"m{i}"], [f"s{i}"]))
        prev = f"s{i}"
    nodes.append(helper.make_node("Identity", [prev], ["y"]))
    graph = helper.make_graph(
        nodes,
        "names",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2]) for n in NAMES],
        [
            helper.make_tensor_value_info("y", TensorProto.FLOAT, [2]),
            helper.make_tensor_value_info("x_2", TensorProto.FLOAT, [2]),
        ],
        [numpy_helper.from_array(np.array([0.5, 0.25], np.float32), WEIGHT)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8  # what the installed onnxruntime reads
    return model


@pytest.fixture(scope="module")
def model() -> onnx.ModelProto:
    return scaled_sum_model()


@pytest.fixture(scope="module")
def feeds() -> dict[str, np.ndarray]:
    return {n: np.array([i + 1, -(i + 1)], np.float32) for i, n in enumerate(NAMES)}


@pytest.fixture(scope="module")
def expected(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    ort = pytest.importorskip("onnxruntime")
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def check(outputs: list[np.ndarray] | tuple[np.ndarray, ...], expected: list[np.ndarray]) -> None:
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_imported_names_are_exact_and_survive_text(model: onnx.ModelProto) -> None:
    module, params = import_onnx(model)
    assert list(params) == [WEIGHT]
    main = module.body.block.first_op
    assert relay.input_names(main) == NAMES
    reparsed = default_context().parse(print_ir(module, default_context()), "names.mlir")
    assert relay.input_names(reparsed.body.block.first_op) == NAMES


def test_interpreter_by_onnx_name(
    model: onnx.ModelProto, feeds: dict[str, np.ndarray], expected: list[np.ndarray]
) -> None:
    module, params = import_onnx(model)
    check(evaluate(module, feeds, params=params), expected)


def test_graph_module_set_input_by_onnx_name(
    model: onnx.ModelProto, feeds: dict[str, np.ndarray], expected: list[np.ndarray]
) -> None:
    from xtvm.contrib.graph_executor import GraphModule
    from xtvm.driver.relay_build import build
    from xtvm.runtime.ndarray import cpu

    mod, params = from_onnx(model)
    executor = GraphModule(build(mod, target="llvm", params=params)["default"](cpu()))
    for name in reversed(NAMES):  # order must not matter
        executor.set_input(name, feeds[name])
    executor.run()
    check([executor.get_output(i).numpy() for i in range(2)], expected)


@pytest.mark.parametrize("compiled", [False, True])
def test_onnx_backend(
    model: onnx.ModelProto,
    feeds: dict[str, np.ndarray],
    expected: list[np.ndarray],
    compiled: bool,
) -> None:
    from xtvm.onnx_backend import prepare

    rep = prepare(model, compiled=compiled)
    check(rep.run(feeds), expected)
    check(rep.run([feeds[n] for n in NAMES]), expected)


def test_tools_bind_onnx_names(
    model: onnx.ModelProto,
    feeds: dict[str, np.ndarray],
    expected: list[np.ndarray],
    tmp_path: Path,
) -> None:
    from xtvm.tools import compile as xtvm_compile
    from xtvm.tools import run as xtvm_run

    path = tmp_path / "names.onnx"
    onnx.save(model, path)
    lib = tmp_path / "names.so"
    assert xtvm_compile.main([str(path), "-o", str(lib), "--opt-level", "1"]) == 0
    argv = [str(lib), "--output", str(tmp_path / "y.npy")]
    for i, name in enumerate(NAMES):
        np.save(tmp_path / f"in{i}.npy", feeds[name])
        argv += ["--input", f"{name}={tmp_path / f'in{i}.npy'}"]
    assert xtvm_run.main(argv) == 0
    check([np.load(tmp_path / "y.npy"), np.load(tmp_path / "y.1.npy")], expected)


def test_onnx_backend_refuses_unknown_or_missing_names(
    model: onnx.ModelProto, feeds: dict[str, np.ndarray]
) -> None:
    from xtvm.onnx_backend import BackendInputError, prepare

    rep = prepare(model)
    with pytest.raises(BackendInputError, match=r"the model has no input 'x_3' \(inputs: 'x_1'"):
        rep.run({**feeds, "x_3": feeds["x"]})
    partial = {n: v for n, v in feeds.items() if n != "a?b"}
    with pytest.raises(BackendInputError, match=r"no value for input 'a\?b'"):
        rep.run(partial)


def test_onnx_backend_reads_external_data_from_base_dir(tmp_path: Path) -> None:
    from xtvm.frontends.onnx import OnnxImportError
    from xtvm.onnx_backend import prepare

    w = np.array([1.0, 2.0], np.float32)
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"])],
        "ext",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
        [numpy_helper.from_array(w, "w")],
    )
    path = tmp_path / "ext.onnx"
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, path, save_as_external_data=True, location="w.bin", size_threshold=0)
    proto = onnx.load(str(path), load_external_data=False)
    x = np.array([0.5, 0.25], np.float32)
    with pytest.raises(OnnxImportError, match=r"keeps its data in the external file 'w\.bin'"):
        prepare(proto).run([x])
    np.testing.assert_allclose(prepare(proto, base_dir=str(tmp_path)).run([x])[0], x + w)
