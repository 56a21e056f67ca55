"""3-d and transposed convolutions, 3-d and adaptive pooling through TVM's Python API: built
natively against onnxruntime and numpy, read back from Relay text, and refused with clear
errors; autotvm's FallbackContext as TVM's dispatcher has it."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import xtvm as tvm
import xtvm.topi.testing
from xtvm import autotvm, relay
from xtvm.contrib import graph_executor

RNG = np.random.default_rng(3)


def run_native(
    mod: tvm.IRModule, params: dict[str, np.ndarray], **inputs: np.ndarray
) -> np.ndarray:
    lib = relay.build(mod, target="llvm", params=params)
    module = graph_executor.GraphModule(lib["default"](tvm.cpu()))
    module.set_input(**inputs)
    module.run()
    return module.get_output(0).numpy()


def volume_model() -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """Conv 3-d -> MaxPool 3-d -> ConvTranspose 3-d -> AveragePool 3-d -> ConvTranspose 1-d
    (after a reshape), each with padding, strides or groups."""
    w1 = RNG.standard_normal((4, 2, 3, 3, 3)).astype(np.float32)
    w2 = RNG.standard_normal((4, 4, 2, 2, 2)).astype(np.float32)
    w3 = RNG.standard_normal((4, 3, 3)).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["a"], pads=[1, 1, 1, 1, 1, 1], group=1),
        helper.make_node("MaxPool", ["a"], ["b"], kernel_shape=[2, 2, 2], strides=[2, 2, 2]),
        helper.make_node(
            "ConvTranspose", ["b", "w2"], ["c"], strides=[2, 2, 2], pads=[0, 1, 0, 1, 0, 1]
        ),
        helper.make_node(
            "AveragePool", ["c"], ["d"], kernel_shape=[3, 3, 3], pads=[1, 1, 1, 1, 1, 1]
        ),
        helper.make_node("Reshape", ["d", "shape"], ["e"]),
        helper.make_node("ConvTranspose", ["e", "w3"], ["y"], strides=[2], group=2),
    ]
    graph = helper.make_graph(
        nodes,
        "volume",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 6, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 6, 491])],
        [
            numpy_helper.from_array(w1, "w1"),
            numpy_helper.from_array(w2, "w2"),
            numpy_helper.from_array(w3, "w3"),
            numpy_helper.from_array(np.array([1, 4, -1], np.int64), "shape"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model, {"x": RNG.standard_normal((1, 2, 6, 8, 8)).astype(np.float32)}


def test_onnx_volume_model_built_natively_matches_onnxruntime() -> None:
    ort = pytest.importorskip("onnxruntime")
    model, feeds = volume_model()
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (expected,) = session.run(None, feeds)
    mod, params = relay.frontend.from_onnx(model, {"x": feeds["x"].shape})
    text = mod.astext()
    for name in ("nn.conv3d", "nn.max_pool3d", "nn.conv3d_transpose", "nn.avg_pool3d"):
        assert f"{name}(" in text
    assert "nn.conv1d_transpose(" in text
    got = run_native(mod, params, **feeds)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    ("layout", "kernel_layout"), [("NCDHW", "OIDHW"), ("NDHWC", "DHWIO"), ("NCDHW", "DHWIO")]
)
def test_conv3d_layouts_and_int8_out_dtype(layout: str, kernel_layout: str) -> None:
    data = RNG.integers(-20, 20, (1, 3, 4, 5, 6)).astype(np.int8)
    weight = RNG.integers(0, 9, (4, 3, 2, 3, 2)).astype(np.uint8)
    expected = tvm.topi.testing.conv3d_ncdhw_python(
        data.astype(np.int32), weight.astype(np.int32), (1, 2, 1), (1, 0, 1, 0, 1, 1)
    )
    x_data = data.transpose(0, 2, 3, 4, 1) if layout == "NDHWC" else data
    order = ["OIDHW".index(a) for a in kernel_layout]
    x = relay.var("x", shape=x_data.shape, dtype="int8")
    w = relay.var("w", shape=weight.transpose(order).shape, dtype="uint8")
    y = relay.nn.conv3d(
        x,
        w,
        strides=(1, 2, 1),
        padding=(1, 0, 1, 0, 1, 1),
        data_layout=layout,
        kernel_layout=kernel_layout,
        out_dtype="int32",
    )
    got = run_native(
        tvm.IRModule.from_expr(relay.Function([x, w], y)), {}, x=x_data, w=weight.transpose(order)
    )
    if layout == "NDHWC":
        got = got.transpose(0, 4, 1, 2, 3)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, expected)


def test_grouped_transposed_convolutions_match_their_definition() -> None:
    data = RNG.standard_normal((2, 4, 3, 5)).astype(np.float32)
    weight = RNG.standard_normal((4, 3, 3, 2)).astype(np.float32)  # IOHW, 2 groups
    x, w = relay.var("x", shape=data.shape), relay.var("w", shape=weight.shape)
    y = relay.nn.conv2d_transpose(x, w, strides=(2, 3), padding=(1, 0, 0, 1), groups=2)
    mod = tvm.IRModule.from_expr(relay.Function([x, w], y))
    expected = tvm.topi.testing.conv2d_transpose_nchw_python(
        data, weight, (2, 3), (1, 0, 0, 1), (0, 0), groups=2
    )
    np.testing.assert_allclose(
        run_native(mod, {}, x=data, w=weight), expected, rtol=1e-5, atol=1e-5
    )


@pytest.mark.parametrize("kind", ["max", "avg"])
def test_adaptive_pools_built_natively(kind: str) -> None:
    data = RNG.standard_normal((1, 3, 7, 10, 9)).astype(np.float32)
    x = relay.var("x", shape=data.shape)
    pool = relay.nn.adaptive_max_pool3d if kind == "max" else relay.nn.adaptive_avg_pool3d
    y = pool(x, (3, None, 4))  # None keeps the input's size, as in TVM
    mod = tvm.IRModule.from_expr(relay.Function([x], y))
    expected = tvm.topi.testing.adaptive_pool(data, (3, 10, 4), kind, "NCDHW")
    np.testing.assert_allclose(run_native(mod, {}, x=data), expected, rtol=1e-5, atol=1e-6)


def test_untyped_weights_and_text_round_trip() -> None:
    x = relay.var("x", shape=(1, 3, 4, 6, 6))
    w = relay.var("w")
    y = relay.nn.conv3d_transpose(x, w, channels=4, kernel_size=3, strides=2, output_padding=1)
    y = relay.nn.avg_pool3d(y, pool_size=2, padding=(1, 0, 0), count_include_pad=True)
    y = relay.nn.adaptive_max_pool3d(y, 2)
    mod = relay.transform.InferType()(tvm.IRModule.from_expr(relay.Function([x, w], y)))
    assert mod["main"].params[1].checked_type == relay.TensorType((3, 4, 3, 3, 3), "float32")
    text = mod.astext()
    assert "channels=4, kernel_size=[3, 3, 3]" in text
    assert "pool_size=[2, 2, 2], padding=[1, 0, 0, 1, 0, 0], count_include_pad=True" in text
    assert "nn.adaptive_max_pool3d(%1, output_size=[2, 2, 2])" in text
    assert tvm.ir.structural_equal(tvm.parser.parse(text), mod)


def test_bad_arguments_are_clear_errors() -> None:
    x = relay.var("x", shape=(1, 3, 4, 6, 6))
    with pytest.raises(ValueError, match="padding must have 1, 3 or 6 values, got 4"):
        relay.nn.max_pool3d(x, pool_size=2, padding=(1, 1, 1, 1))
    w = relay.var("w", shape=(4, 3, 3, 3, 3))
    with pytest.raises(tvm.error.TVMError, match='layout must be "NCDHW" or "NDHWC"'):
        relay.nn.conv3d(x, w, data_layout="NCHW").checked_type  # noqa: B018
    with pytest.raises(ValueError, match="channels=5 differs"):
        relay.nn.conv3d(x, w, channels=5)
    with pytest.raises(tvm.error.TVMError, match="output_size must be 3 positive integers"):
        relay.nn.adaptive_avg_pool3d(x, (2, 0, 2)).checked_type  # noqa: B018
    with pytest.raises(tvm.error.TVMError, match="dilated window 5x2x2 is larger"):
        relay.nn.avg_pool3d(x, pool_size=(5, 2, 2)).checked_type  # noqa: B018


def test_fallback_context_keeps_configs_and_answers_inside() -> None:
    workload = ("conv3d_ncdhw.x86", (1, 3, 4, 6, 6))

    class Fixed(autotvm.FallbackContext):
        def _query_inside(self, target: str, workload: tuple) -> autotvm.ConfigSpace:
            cfg = super()._query_inside(target, workload)
            cfg["tile_x"] = autotvm.task.space.SplitEntity([-1, 2])
            return cfg

    outer = autotvm.DispatchContext.current
    with Fixed() as ctx:
        assert autotvm.DispatchContext.current is ctx
        cfg = ctx.query("llvm", workload)
        assert cfg is ctx.query("llvm", workload) and cfg.is_fallback
        assert cfg["tile_x"].size == [-1, 2]
        replacement = autotvm.task.space.FallbackConfigEntity()
        ctx.update("llvm", workload, replacement)
        assert ctx.memory[("llvm", workload)] is replacement
        ctx.clear_cache("llvm", workload)
        assert ("llvm", workload) not in ctx.memory
    assert autotvm.DispatchContext.current is outer
