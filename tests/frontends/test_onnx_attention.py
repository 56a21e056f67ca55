"""ONNX Attention (opset 23/24) and RMSNormalization, as torch exports them from opset 23 on,
against the ONNX reference implementation (the spec), onnxruntime and the compiled module."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from xtvm.frontends.onnx import OnnxImportError, import_onnx
from xtvm.onnx_backend import XtvmBackend
from xtvm.runtime.relay_interpreter import evaluate

RNG = np.random.default_rng(7)
OUTPUTS = ("y", "present_key", "present_value", "qk")


def data(*shape: int, dtype: str = "float32") -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def model(
    op: str,
    feeds: dict[str, np.ndarray],
    inits: dict[str, np.ndarray] | None = None,
    outputs: tuple[str, ...] = ("y",),
    opset: int = 23,
    inputs: list[str] | None = None,
    **attrs: object,
) -> onnx.ModelProto:
    """One `op` node on `inputs` (by default the names of `feeds` then `inits`; "" skips an
    optional input): `feeds` are graph inputs, `inits` initializers; `outputs` names the
    node's outputs in order ("" for one not wanted)."""
    names = inputs if inputs is not None else [*feeds, *(inits or {})]
    node = helper.make_node(op, names, list(outputs), **attrs)
    infos = [
        helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
        for n, v in feeds.items()
    ]
    outs = [helper.make_empty_tensor_value_info(o) for o in outputs if o]
    initializers = [numpy_helper.from_array(v, n) for n, v in (inits or {}).items()]
    graph = helper.make_graph([node], op, infos, outs, initializers)
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    proto.ir_version = 10
    return onnx.shape_inference.infer_shapes(proto)


def check(
    proto: onnx.ModelProto,
    feeds: dict[str, np.ndarray],
    atol: float = 1e-5,
    reference: str = "onnx",
) -> None:
    """The relay interpreter's outputs against the ONNX reference implementation's (or
    onnxruntime's)."""
    if reference == "onnx":
        expected = ReferenceEvaluator(proto).run(None, feeds)
    else:
        ort = pytest.importorskip("onnxruntime")
        session = ort.InferenceSession(
            proto.SerializeToString(), providers=["CPUExecutionProvider"]
        )
        expected = session.run(None, feeds)
    module, params = import_onnx(proto)
    module.verify()
    got = evaluate(module, list(feeds.values()), params=params)
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g.shape == e.shape and g.dtype == e.dtype, (g.shape, g.dtype, e.shape, e.dtype)
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=atol)


def qkv(batch: int, q_heads: int, kv_heads: int, queries: int, keys: int, size: int):
    return {
        "q": data(batch, q_heads, queries, size),
        "k": data(batch, kv_heads, keys, size),
        "v": data(batch, kv_heads, keys, size + 2),  # V's head size may differ
    }


def test_four_d_heads_and_scale() -> None:
    feeds = qkv(2, 3, 3, 5, 7, 4)
    check(model("Attention", feeds), feeds)
    check(model("Attention", feeds, scale=0.3), feeds)


def test_three_d_inputs_with_head_counts() -> None:
    feeds = {"q": data(2, 5, 12), "k": data(2, 6, 6), "v": data(2, 6, 8)}
    check(model("Attention", feeds, q_num_heads=4, kv_num_heads=2), feeds)


def test_grouped_query_heads_repeat_in_place() -> None:
    feeds = qkv(1, 6, 2, 4, 4, 8)
    check(model("Attention", feeds, is_causal=1), feeds)


def test_boolean_mask_with_a_fully_masked_row_gives_zeros() -> None:
    feeds = qkv(2, 2, 2, 4, 6, 4)
    mask = RNG.random((2, 1, 4, 6)) < 0.6
    mask[0, 0, 2] = False  # query 2 of sample 0 may attend no key
    feeds["mask"] = mask
    proto = model("Attention", feeds, outputs=("y", "", "", "qk"), qk_matmul_output_mode=3)
    check(proto, feeds)
    module, params = import_onnx(proto)
    got = evaluate(module, list(feeds.values()), params=params)
    assert np.all(got[0][0, :, 2] == 0) and np.all(got[1][0, :, 2] == 0)


def test_float_mask_shorter_than_the_keys_is_padded() -> None:
    feeds = qkv(1, 2, 2, 3, 6, 4)
    feeds["mask"] = data(3, 4)  # covers 4 of 6 keys: the last two are masked
    check(model("Attention", feeds), feeds)


@pytest.mark.parametrize("causal", [0, 1])
def test_past_key_value_and_present_outputs(causal: int) -> None:
    feeds = qkv(1, 2, 2, 3, 3, 4) | {"past_k": data(1, 2, 5, 4), "past_v": data(1, 2, 5, 6)}
    inputs = ["q", "k", "v", "", "past_k", "past_v"]
    check(model("Attention", feeds, inputs=inputs, outputs=OUTPUTS[:3], is_causal=causal), feeds)


@pytest.mark.parametrize("mode", [0, 1, 2, 3])
def test_softcap_and_each_qk_output_mode(mode: int) -> None:
    """Mode 0 is the product before the soft cap, as the spec and onnxruntime have it (the
    reference implementation returns it capped)."""
    feeds = qkv(1, 2, 2, 4, 5, 4)
    feeds["mask"] = data(1, 1, 4, 5)
    proto = model(
        "Attention",
        feeds,
        outputs=("y", "", "", "qk"),
        softcap=2.5,
        qk_matmul_output_mode=mode,
        is_causal=1,
    )
    check(proto, feeds, reference="onnxruntime" if mode == 0 else "onnx")


def test_constant_nonpad_lengths_mask_padded_keys() -> None:
    feeds, lengths = qkv(2, 2, 2, 3, 6, 4), {"lengths": np.array([6, 4], np.int64)}
    inputs = ["q", "k", "v", "", "", "", "lengths"]
    check(model("Attention", feeds, lengths, opset=24, inputs=inputs, is_causal=1), feeds)


def test_compiled_matches_onnxruntime_on_a_causal_masked_block() -> None:
    ort = pytest.importorskip("onnxruntime")
    feeds = {"q": data(1, 16, 32), "k": data(1, 16, 16), "v": data(1, 16, 16)}
    feeds["mask"] = np.tril(np.ones((16, 16), bool)) | (RNG.random((16, 16)) < 0.3)
    proto = model("Attention", feeds, q_num_heads=4, kv_num_heads=2, is_causal=1)
    session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    (expected,) = session.run(None, feeds)
    (got,) = XtvmBackend.prepare(proto, compiled=True).run(list(feeds.values()))
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("feeds", "attrs", "message"),
    [
        ({"q": data(1, 4, 6), "k": data(1, 4, 6), "v": data(1, 4, 6)}, {}, "not a multiple"),
        (
            {"q": data(1, 3, 4, 8), "k": data(1, 2, 4, 8), "v": data(1, 2, 4, 8)},
            {},
            "3 query heads are not a multiple of 2",
        ),
        (
            {"q": data(1, 2, 4, 8), "k": data(1, 2, 4, 6), "v": data(1, 2, 4, 8)},
            {},
            "do not fit",
        ),
        (
            {"q": data(1, 2, 4, 8), "k": data(1, 2, 4, 8), "v": data(1, 2, 4, 8)},
            {"qk_matmul_output_mode": 7},
            "qk_matmul_output_mode must be 0 to 3",
        ),
    ],
)
def test_bad_attention_is_refused_with_the_reason(
    feeds: dict[str, np.ndarray], attrs: dict[str, object], message: str
) -> None:
    names = list(feeds)
    node = helper.make_node("Attention", names, ["y"], name="att", **attrs)
    infos = [helper.make_tensor_value_info(n, TensorProto.FLOAT, v.shape) for n, v in feeds.items()]
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, feeds["q"].shape)
    graph = helper.make_graph([node], "g", infos, [out])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])
    with pytest.raises(OnnxImportError, match=message):
        import_onnx(proto)


@pytest.mark.parametrize(
    ("shape", "axis", "dtype"),
    [((2, 5, 16), -1, "float32"), ((2, 3, 4, 4), 1, "float32"), ((3, 32), -1, "float16")],
)
def test_rms_normalization(shape: tuple[int, ...], axis: int, dtype: str) -> None:
    feeds = {"x": data(*shape, dtype=dtype)}
    scale = data(*shape[axis:], dtype=dtype)
    proto = model("RMSNormalization", feeds, {"scale": scale}, axis=axis, epsilon=1e-3)
    check(proto, feeds, atol=1e-2 if dtype == "float16" else 1e-5)
