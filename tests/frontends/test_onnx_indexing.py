"""The ONNX gather/scatter family, CumSum, Trilu and Range against onnxruntime.

Each case is one node on random data with indices in range (negative ones included, as ONNX
allows them); indices are graph inputs (converted with `where`) or initializers (wrapped at
import). A few cases also go through relay.build for LLVM.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import onnx
import pytest
from onnx import helper

from xtvm.frontends.onnx import OnnxImportError, import_onnx, indexing
from xtvm.onnx_backend import XtvmBackend
from xtvm.runtime.relay_interpreter import evaluate
from xtvm.testing.onnx_compare import run_both, single_node_model

pytest.importorskip("onnxruntime")

RNG = np.random.default_rng(3)


def data(*shape: int, dtype: str = "float32") -> np.ndarray:
    if np.dtype(dtype).kind in "iu":
        return RNG.integers(-9, 10, shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def indices(low: int, high: int, *shape: int) -> np.ndarray:
    return RNG.integers(low, high, shape).astype(np.int64)


def unique_rows(sizes: tuple[int, ...], count: int) -> np.ndarray:
    """`count` distinct index tuples into `sizes`, some written as negative indices
    (ScatterND without reduction leaves repeated tuples undefined)."""
    flat = RNG.choice(int(np.prod(sizes)), count, replace=False)
    tuples = np.stack(np.unravel_index(flat, sizes), axis=-1).astype(np.int64)
    flip = RNG.random(tuples.shape) < 0.5
    return np.where(flip, tuples - np.array(sizes), tuples)


@dataclass
class Case:
    id: str
    op: str
    feeds: dict[str, np.ndarray]
    inits: dict[str, np.ndarray] = field(default_factory=dict)
    attrs: dict[str, object] = field(default_factory=dict)
    opset: int = 18

    def model(self) -> onnx.ModelProto:
        names = [*self.feeds, *self.inits]
        order = [n for n in ("x", "i", "u", "k", "a", "start", "limit", "delta") if n in names]
        node = helper.make_node(self.op, order, ["y"], name=f"{self.op.lower()}_node", **self.attrs)
        return single_node_model(node, self.feeds, self.inits, self.opset)


def scatter_elements_case(reduction: str, axis: int, dtype: str = "float32") -> Case:
    x = data(4, 5, dtype=dtype)
    shape = (3, 5) if axis == 0 else (4, 3)
    size = x.shape[axis]
    if reduction == "none":  # distinct positions along the axis in each line
        i = np.argsort(RNG.random((*shape[:axis], size, *shape[axis + 1 :])), axis=axis)
        i = np.take(i, range(shape[axis]), axis=axis) - size * (RNG.random(shape) < 0.5)
    else:
        i = indices(-size, size, *shape)
    return Case(
        f"ScatterElements-{reduction}-axis{axis}-{dtype}",
        "ScatterElements",
        {"x": x, "i": i.astype(np.int64), "u": data(*shape, dtype=dtype)},
        attrs={"axis": axis, "reduction": reduction},
    )


CASES = [
    # GatherND: full tuples, partial tuples (slices), batch_dims, constant indices.
    Case("GatherND-full", "GatherND", {"x": data(3, 4), "i": unique_rows((3, 4), 5)}),
    Case(
        "GatherND-slices",
        "GatherND",
        {"x": data(3, 4, 5), "i": indices(-3, 3, 2, 3, 1)},
    ),
    Case(
        "GatherND-batch_dims",
        "GatherND",
        {"x": data(2, 4, 5, 3), "i": indices(-4, 4, 2, 6, 1)},
        attrs={"batch_dims": 1},
    ),
    Case(
        "GatherND-int-const",
        "GatherND",
        {"x": data(4, 3, dtype="int32")},
        inits={"i": np.array([[[-1, 0]], [[2, -3]]], dtype=np.int64)},
    ),
    Case("GatherND-opset11", "GatherND", {"x": data(5, 2), "i": indices(-5, 5, 3, 1)}, opset=11),
    # ScatterND: every reduction; repeated tuples with the reductions.
    Case(
        "ScatterND-none",
        "ScatterND",
        {"x": data(4, 5), "i": unique_rows((4,), 3), "u": data(3, 5)},
    ),
    *(
        Case(
            f"ScatterND-{r}",
            "ScatterND",
            {"x": data(3, 4, 2), "i": indices(-3, 3, 5, 2), "u": data(5, 2)},
            attrs={"reduction": r},
        )
        for r in ("add", "mul", "max", "min")
    ),
    Case(
        "ScatterND-add-int-const",
        "ScatterND",
        {"x": data(6, dtype="int64"), "u": data(4, dtype="int64")},
        inits={"i": np.array([[0], [-1], [0], [3]], dtype=np.int64)},
        attrs={"reduction": "add"},
    ),
    Case(
        "ScatterND-opset11",
        "ScatterND",
        {"x": data(4, 3), "i": unique_rows((4, 3), 4), "u": data(4)},
        opset=11,
    ),
    # GatherElements: each axis, negative axis and indices, indices smaller than data.
    Case("GatherElements-axis0", "GatherElements", {"x": data(3, 4), "i": indices(-3, 3, 2, 4)}),
    Case(
        "GatherElements-axis-1",
        "GatherElements",
        {"x": data(2, 3, 5), "i": indices(-5, 5, 2, 2, 7)},
        attrs={"axis": -1},
    ),
    Case(
        "GatherElements-int-const",
        "GatherElements",
        {"x": data(3, 3, dtype="int32")},
        inits={"i": np.array([[-1, 0], [2, -2]], dtype=np.int32)},
        attrs={"axis": 1},
    ),
    # ScatterElements: every reduction along both axes.
    *(scatter_elements_case(r, a) for r in ("none", "add", "mul", "max", "min") for a in (0, 1)),
    scatter_elements_case("add", 1, "int32"),
    # CumSum: axes, exclusive, reverse, integers.
    *(
        Case(
            f"CumSum-axis{axis}-ex{ex}-rev{rev}",
            "CumSum",
            {"x": data(3, 4, 5)},
            inits={"a": np.array(axis, dtype=np.int64)},
            attrs={"exclusive": ex, "reverse": rev},
        )
        for axis, ex, rev in [(0, 0, 0), (1, 1, 0), (-1, 0, 1), (2, 1, 1)]
    ),
    Case(
        "CumSum-int32",
        "CumSum",
        {"x": data(7, dtype="int32")},
        inits={"a": np.array([0], dtype=np.int32)},
        attrs={"exclusive": 1},
    ),
    # Trilu: upper and lower, k of either sign and beyond the matrix, batches.
    *(
        Case(
            f"Trilu-upper{upper}-k{k}",
            "Trilu",
            {"x": data(2, 4, 6)},
            inits={"k": np.array(k, dtype=np.int64)},
            attrs={"upper": upper},
        )
        for upper in (0, 1)
        for k in (-2, 0, 3, 9)
    ),
    Case("Trilu-default", "Trilu", {"x": data(5, 3, dtype="int64")}),
    # Range: constant bounds, folded at import.
    Case(
        "Range-float",
        "Range",
        {"x": data(1)},
        inits={
            "start": np.array(1.5, np.float32),
            "limit": np.array(-2.0, np.float32),
            "delta": np.array(-0.75, np.float32),
        },
    ),
]


def range_model(case: Case) -> onnx.ModelProto:
    """Range takes no data: its output is added to a graph input so the graph computes."""
    rng = helper.make_node("Range", ["start", "limit", "delta"], ["r"], name="range_node")
    add = helper.make_node("Add", ["x", "r"], ["y"], name="add_node")
    x = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1])
    y = helper.make_empty_tensor_value_info("y")
    inits = [onnx.numpy_helper.from_array(v, n) for n, v in case.inits.items()]
    graph = helper.make_graph([rng, add], "range", [x], [y], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    return onnx.shape_inference.infer_shapes(model)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_matches_onnxruntime(case: Case) -> None:
    model = range_model(case) if case.op == "Range" else case.model()
    got, expected = run_both(model, case.feeds)
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape, (g.dtype, g.shape, e.dtype, e.shape)
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)


def test_every_op_has_a_case() -> None:
    assert set(indexing.CONVERTERS) - {c.op for c in CASES} == {"Scatter"}  # ScatterElements'


@pytest.mark.parametrize(
    "case_id",
    [
        "GatherND-batch_dims",
        "ScatterND-max",
        "GatherElements-axis-1",
        "ScatterElements-none-axis1-float32",
        "CumSum-axis2-ex1-rev1",
        "Trilu-upper0-k-2",
    ],
)
def test_compiled_for_llvm(case_id: str) -> None:
    case = next(c for c in CASES if c.id == case_id)
    model = case.model()
    want = XtvmBackend.prepare(model).run(list(case.feeds.values()))
    got = XtvmBackend.prepare(model, compiled=True).run(list(case.feeds.values()))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("op", "feeds", "inits", "attrs", "expected"),
    [
        (
            "GatherND",
            {"x": data(3, 4)},
            {"i": np.array([[0, 4]], np.int64)},
            {},
            "node 'gathernd_node' (GatherND): index 4 at [0, 1] is out of range for a "
            "dimension of size 4",
        ),
        (
            "GatherND",
            {"x": data(3, 4), "i": indices(0, 3, 2, 3)},
            {},
            {},
            "node 'gathernd_node' (GatherND): indices of shape [2, 3] with batch_dims 0 do not "
            "fit data of shape [3, 4]",
        ),
        (
            "GatherElements",
            {"x": data(3, 4), "i": indices(0, 3, 3)},
            {},
            {},
            "node 'gatherelements_node' (GatherElements): indices rank 1 differs from data rank 2",
        ),
        (
            "ScatterElements",
            {"x": data(3, 4), "i": indices(0, 3, 2, 4), "u": data(2, 4)},
            {},
            {"reduction": "mean"},
            "node 'scatterelements_node' (ScatterElements): reduction 'mean' is not supported",
        ),
        (
            "CumSum",
            {"x": data(3, 4), "a": np.array(1, np.int64)},
            {},
            {},
            "node 'cumsum_node' (CumSum): input 1 (axis) must be known at import time",
        ),
        (
            "Trilu",
            {"x": data(3, 4)},
            {"k": np.array([1, 2], np.int64)},
            {},
            "node 'trilu_node' (Trilu): k must be a single integer, got [1, 2]",
        ),
    ],
    ids=["index-range", "tuple-too-long", "rank", "reduction", "dynamic-axis", "k-shape"],
)
def test_bad_input_names_the_node(
    op: str,
    feeds: dict[str, np.ndarray],
    inits: dict[str, np.ndarray],
    attrs: dict[str, object],
    expected: str,
) -> None:
    names = [*feeds, *inits]
    order = [n for n in ("x", "i", "u", "k", "a") if n in names]
    node = helper.make_node(op, order, ["y"], name=f"{op.lower()}_node", **attrs)
    # An output of unknown shape: the error comes from the node, not from the output's type.
    y = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["d0", "d1"])
    graph = helper.make_graph(
        [node],
        "bad",
        [
            helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
            for n, v in feeds.items()
        ],
        [y],
        [onnx.numpy_helper.from_array(v, n) for n, v in inits.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    with pytest.raises(OnnxImportError, match="^" + re.escape(expected)):
        import_onnx(model)


def test_dynamic_range_is_a_clear_error() -> None:
    node = helper.make_node("Range", ["s", "l", "d"], ["y"], name="range_node")
    scalar = [helper.make_tensor_value_info(n, onnx.TensorProto.INT64, []) for n in "sld"]
    y = helper.make_tensor_value_info("y", onnx.TensorProto.INT64, ["n"])
    graph = helper.make_graph([node], "r", scalar, [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    with pytest.raises(OnnxImportError, match=r"node 'range_node' \(Range\): input 0 \(start\)"):
        import_onnx(model)


@pytest.mark.parametrize("axis", [1, -1])
def test_constant_gather_elements_over_a_long_axis_folds(axis: int) -> None:
    """BERT's token type ids: GatherElements of a [1, 512] buffer at [1, 128] positions, all
    constants. onnx's reference implementation fails past 64 values; the fold is numpy's."""
    buffer = RNG.integers(0, 2, (1, 512)).astype(np.int64)
    positions = np.concatenate([np.arange(-64, 0), np.arange(64)])[None].astype(np.int64)
    node = helper.make_node("GatherElements", ["b", "p"], ["y"], axis=axis)
    y = helper.make_tensor_value_info("y", onnx.TensorProto.INT64, [1, 128])
    inits = [
        onnx.numpy_helper.from_array(buffer, "b"),
        onnx.numpy_helper.from_array(positions, "p"),
    ]
    graph = helper.make_graph([node], "g", [], [y], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    module, params = import_onnx(model)
    (got,) = evaluate(module, [], params=params)
    np.testing.assert_array_equal(got, np.take_along_axis(buffer, positions % 512, 1))
    positions[0, 5] = 512
    inits[1] = onnx.numpy_helper.from_array(positions, "p")
    graph = helper.make_graph([node], "g", [], [y], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    with pytest.raises(OnnxImportError, match=r"indices must be in \[-512, 512\), got 512"):
        import_onnx(model)
