"""Valid models at the edges of the compiler's cases build for the LLVM target and compute what
the relay interpreter and onnxruntime compute: 1-d softmax, 0-d weights shared across kernels
(GELU's constants in every transformer block), and chains of thousands of ops."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import xtvm as tvm
from xtvm import relay, te
from xtvm.api.relay.frontend import from_onnx
from xtvm.testing.relay import interpret, run_factory

RNG = np.random.default_rng(0)


def build_and_compare(f: relay.Function, **inputs: np.ndarray) -> None:
    """`f` compiled for llvm against the relay interpreter on `inputs`."""
    mod = tvm.IRModule.from_expr(f)
    got = run_factory(relay.build(mod, "llvm"), **inputs)[0]
    expected = interpret(mod, {}, *inputs.values())[0]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def onnx_against_onnxruntime(model: onnx.ModelProto, x: np.ndarray) -> None:
    ort = pytest.importorskip("onnxruntime")
    mod, params = from_onnx(model)
    got = run_factory(relay.build(mod, "llvm", params=params), x=x)[0]
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, {"x": x})[0]
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------------------------------------
# 1-d softmax: its max and sum are 0-d buffers read in the vectorized loops


@pytest.mark.parametrize("n", [1, 10, 37, 64])
@pytest.mark.parametrize("op", [relay.nn.softmax, relay.nn.log_softmax])
def test_softmax_of_a_vector(op: object, n: int) -> None:
    x = relay.var("x", shape=(n,))
    build_and_compare(relay.Function([x], op(x)), x=RNG.standard_normal(n).astype("float32"))  # type: ignore[operator]


def test_onnx_softmax_of_a_vector() -> None:
    graph = helper.make_graph(
        [helper.make_node("Softmax", ["x"], ["y"], axis=0)],
        "softmax",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, (10,))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, (10,))],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx_against_onnxruntime(model, RNG.standard_normal(10).astype("float32"))


# ---------------------------------------------------------------------------------------------
# A 0-d weight shared by kernels on both sides of a product


def test_zero_d_constant_shared_across_a_dense() -> None:
    x = relay.var("x", shape=(4, 16))
    c = relay.const(np.array(0.5, "float32"))
    w = relay.const(RNG.standard_normal((16, 16)).astype("float32"))
    y = relay.multiply(relay.nn.dense(relay.multiply(x, c), w), c)
    build_and_compare(relay.Function([x], y), x=RNG.standard_normal((4, 16)).astype("float32"))


def gelu_blocks() -> onnx.ModelProto:
    """Three exported-GELU blocks (Div by sqrt(2), Erf, Add 1, Mul x, Mul 0.5) with MatMuls
    between them, sharing their 0-d constants, as ViT and ConvNeXt exports do."""
    inits = [
        numpy_helper.from_array(np.array(np.sqrt(2.0), "float32"), "sqrt2"),
        numpy_helper.from_array(np.array(1.0, "float32"), "one"),
        numpy_helper.from_array(np.array(0.5, "float32"), "half"),
        numpy_helper.from_array(RNG.standard_normal((16, 16)).astype("float32") * 0.3, "w1"),
        numpy_helper.from_array(RNG.standard_normal((16, 16)).astype("float32") * 0.3, "w2"),
    ]
    nodes: list[onnx.NodeProto] = []

    def gelu(x: str, y: str) -> None:
        nodes.extend(
            [
                helper.make_node("Div", [x, "sqrt2"], [f"{y}.div"]),
                helper.make_node("Erf", [f"{y}.div"], [f"{y}.erf"]),
                helper.make_node("Add", [f"{y}.erf", "one"], [f"{y}.add"]),
                helper.make_node("Mul", [x, f"{y}.add"], [f"{y}.mul"]),
                helper.make_node("Mul", [f"{y}.mul", "half"], [y]),
            ]
        )

    gelu("x", "g1")
    nodes.append(helper.make_node("MatMul", ["g1", "w1"], ["m1"]))
    gelu("m1", "g2")
    nodes.append(helper.make_node("MatMul", ["g2", "w2"], ["m2"]))
    gelu("m2", "y")
    graph = helper.make_graph(
        nodes,
        "gelu_blocks",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, (4, 16))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, (4, 16))],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def test_onnx_gelu_blocks_sharing_zero_d_constants() -> None:
    onnx_against_onnxruntime(gelu_blocks(), RNG.standard_normal((4, 16)).astype("float32"))


# ---------------------------------------------------------------------------------------------
# Depth: lowering does not recurse along chains of ops

DEPTH = 2000  # the old recursive lowering failed at about 250 (relay) and 330 (te) ops
TE_DEPTH = 1000


def test_relay_chain_of_two_thousand_elementwise_ops() -> None:
    x = relay.var("x", shape=(4, 8))
    y = x
    for k in range(DEPTH):
        y = y + relay.const(np.float32(0.001)) if k % 2 else y * relay.const(np.float32(0.999))
    data = RNG.standard_normal((4, 8)).astype("float32")
    got = run_factory(relay.build(tvm.IRModule.from_expr(relay.Function([x], y)), "llvm"), x=data)
    expected = data
    for k in range(DEPTH):
        expected = expected + np.float32(0.001) if k % 2 else expected * np.float32(0.999)
    np.testing.assert_allclose(got[0], expected, rtol=1e-4, atol=1e-4)  # 2000 roundings


def chain_reference(a: np.ndarray) -> np.ndarray:
    for _ in range(TE_DEPTH):
        a = a * np.float32(0.999) + np.float32(0.001)
    return a


def test_te_chain_of_inlined_stages() -> None:
    A = te.placeholder((64,), name="A")
    stages = []
    B = A
    for k in range(TE_DEPTH):
        B = te.compute((64,), lambda i, B=B: B[i] * 0.999 + 0.001, name=f"B{k}")
        stages.append(B)
    s = te.create_schedule(B.op)
    for stage in stages[:-1]:
        s[stage].compute_inline()
    s[B].vectorize(B.op.axis[0])
    f = tvm.build(s, [A, B], target="llvm")
    a = np.random.default_rng(1).standard_normal(64).astype("float32")
    b = np.zeros(64, "float32")
    f(a, b)
    # Each step's rounding (or its fused multiply-add) is carried through the whole chain over
    # values of about 1: the error is absolute, a few ulps of 1 per hundred steps.
    np.testing.assert_allclose(b, chain_reference(a), rtol=1e-4, atol=2e-5)


def test_te_expression_thousands_of_ops_deep() -> None:
    A = te.placeholder((64,), name="A")

    def body(i: te.PrimExpr) -> te.PrimExpr:
        e = A[i]
        for _ in range(TE_DEPTH):
            e = e * 0.999 + 0.001
        return e

    B = te.compute((64,), body, name="B")
    f = tvm.build(te.create_schedule(B.op), [A, B], target="llvm")
    a = np.random.default_rng(1).standard_normal(64).astype("float32")
    b = np.zeros(64, "float32")
    f(a, b)
    # Each step's rounding (or its fused multiply-add) is carried through the whole chain over
    # values of about 1: the error is absolute, a few ulps of 1 per hundred steps.
    np.testing.assert_allclose(b, chain_reference(a), rtol=1e-4, atol=2e-5)


# ---------------------------------------------------------------------------------------------
# Tensors of no elements: their kernels build and run (and write nothing)


@pytest.mark.parametrize(
    ("shape", "newshape"), [((0, 3), (0, 1, 3)), ((2, 0, 3), (2, 0, 1, 3)), ((0, 3), (0,))]
)
def test_reshape_of_a_zero_size_tensor(shape: tuple[int, ...], newshape: tuple[int, ...]) -> None:
    x = relay.var("x", shape=shape)
    y = relay.reshape(relay.exp(x), newshape)
    build_and_compare(relay.Function([x], y), x=np.zeros(shape, "float32"))


def test_cumsum_of_a_zero_size_tensor() -> None:
    x = relay.var("x", shape=(0, 3))
    build_and_compare(relay.Function([x], relay.cumsum(x)), x=np.zeros((0, 3), "float32"))


@pytest.mark.parametrize("op", [relay.nn.softmax, relay.nn.log_softmax])
@pytest.mark.parametrize("constant", [False, True])
def test_softmax_over_an_axis_of_no_element(op: object, constant: bool) -> None:
    # A constant operand is folded by the interpreter, whose max over no element has the
    # lowest value as its identity, as the kernel's has.
    x = relay.var("x", shape=(2, 0))
    c = relay.const(np.zeros((2, 0), "float32"))
    y = relay.add(x, op(c if constant else x))  # type: ignore[operator]
    build_and_compare(relay.Function([x], y), x=np.zeros((2, 0), "float32"))


def test_global_max_pool_of_no_element() -> None:
    x = relay.var("x", shape=(1, 2, 0, 3))
    y = relay.nn.global_max_pool2d(x)
    build_and_compare(relay.Function([x], y), x=np.zeros((1, 2, 0, 3), "float32"))


@pytest.mark.parametrize(("shape", "axis", "out"), [((0, 3), 0, (1, 0)), ((2, 0, 3), 1, (2, 0))])
def test_onnx_flatten_to_a_zero_dimension(
    shape: tuple[int, ...], axis: int, out: tuple[int, ...]
) -> None:
    # relay.reshape reads a 0 in its new shape as "copy the input's dimension"
    graph = helper.make_graph(
        [helper.make_node("Flatten", ["x"], ["y"], axis=axis)],
        "flatten",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx_against_onnxruntime(model, np.zeros(shape, "float32"))


def test_onnx_flatten_of_a_zero_size_tensor() -> None:
    graph = helper.make_graph(
        [
            helper.make_node("Softmax", ["x"], ["s"], axis=-2),
            helper.make_node("Flatten", ["s"], ["y"], axis=2),
        ],
        "flatten",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, (0, 3))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, (0, 1))],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx_against_onnxruntime(model, np.zeros((0, 3), "float32"))


# ---------------------------------------------------------------------------------------------
# NaN through reductions, and a mean over no element: numpy's semantics, which the ONNX
# reference implementation follows (onnxruntime keeps a NaN only where it comes first, and
# gives 0 for a mean over nothing, which the ONNX spec leaves undefined)


def onnx_against_the_reference(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    from onnx.reference import ReferenceEvaluator

    mod, params = from_onnx(model)
    got = run_factory(relay.build(mod, "llvm", params=params), x=x)[0]
    with np.errstate(all="ignore"):
        expected = ReferenceEvaluator(model).run(None, {"x": x})[0]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    return got


def reduce_model(op: str, shape: tuple[int, ...], axis: int, log: bool = False) -> onnx.ModelProto:
    nodes = [helper.make_node("Log", ["x"], ["l"])] if log else []
    nodes.append(helper.make_node(op, ["l" if log else "x"], ["y"], axes=[axis], keepdims=0))
    out = [d for k, d in enumerate(shape) if k != axis % len(shape)]
    graph = helper.make_graph(
        nodes,
        "reduce",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


@pytest.mark.parametrize("op", ["ReduceMax", "ReduceMin"])
@pytest.mark.parametrize("axis", [0, -1])
def test_onnx_max_and_min_keep_nan(op: str, axis: int) -> None:
    nan = np.nan
    x = np.array([[1, nan, nan, 4], [nan, 1, 2, 3], [1, 2, nan, 0]], "float32")
    got = onnx_against_the_reference(reduce_model(op, x.shape, axis), x)
    assert np.isnan(got).sum() == 3  # every row, every column but the last


@pytest.mark.parametrize("op", ["ReduceMax", "ReduceMin"])
def test_onnx_max_and_min_of_logs_of_negative_numbers(op: str) -> None:
    x = -np.abs(RNG.standard_normal((3, 40)).astype("float32")) - 0.1
    x[1, 5:] = 1.0  # one NaN in the row, first
    x[2, :-1] = 1.0  # one NaN in the row, last
    got = onnx_against_the_reference(reduce_model(op, x.shape, -1, log=True), x)
    assert np.isnan(got).all()


def test_onnx_mean_over_no_element_is_nan() -> None:
    got = onnx_against_the_reference(reduce_model("ReduceMean", (0, 3), 0), np.zeros((0, 3), "f4"))
    assert got.shape == (3,) and np.isnan(got).all()
