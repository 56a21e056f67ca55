"""tvm.ir.save_json / load_json of tensor expressions: TVM's JSON node graph, read back into
computes that build and give numpy's numbers; malformed text is a clear TVMError."""

from __future__ import annotations

import json

import numpy as np
import pytest

import xtvm as tvm
from xtvm import te, topi
from xtvm.ir.errors import TVMError
from xtvm.te.json_graph import JSONGraphError

RNG = np.random.default_rng(3)


def round_trip(node: object) -> object:
    return tvm.ir.load_json(tvm.ir.save_json(node))


def by_name(tensor: te.Tensor) -> dict[str, te.Tensor]:
    """The placeholders a tensor reads, through every stage, by name."""
    found: dict[str, te.Tensor] = {}
    stack = [tensor]
    while stack:
        t = stack.pop()
        if isinstance(t.op, te.PlaceholderOp):
            found[t.op.name] = t
        stack.extend(t.op.input_tensors)
    return found


def run(out: te.Tensor, inputs: list[te.Tensor], arrays: list[np.ndarray]) -> np.ndarray:
    fn = tvm.build(te.create_schedule(out.op), [*inputs, out], "llvm")
    result = tvm.nd.array(np.zeros(tuple(int(d) for d in out.shape), out.dtype))
    fn(*[tvm.nd.array(a) for a in arrays], result)
    return result.numpy()


def test_reduction_reads_back_and_computes_the_same() -> None:
    A = te.placeholder((5, 7), name="A")
    B = te.placeholder((4, 7), name="B")
    k = te.reduce_axis((0, 6), "k")
    C = te.compute((5, 4), lambda i, j: te.sum(A[i, k + 1] * B[j, k], axis=k), name="C")
    loaded = round_trip(C)
    assert isinstance(loaded, te.Tensor) and str(loaded) == str(C)
    assert loaded.op.reduce_axis[0].dom.extent == 6
    a, b = RNG.random((5, 7), dtype="float32"), RNG.random((4, 7), dtype="float32")
    inputs = by_name(loaded)
    got = run(loaded, [inputs["A"], inputs["B"]], [a, b])
    np.testing.assert_allclose(got, a[:, 1:] @ b[:, :6].T, rtol=1e-5)


@pytest.mark.parametrize("reducer", ["max", "min", "prod"])
def test_every_builtin_reducer_reads_back(reducer: str) -> None:
    A = te.placeholder((3, 5), name="A")
    k = te.reduce_axis((0, 5), "k")
    B = te.compute((3,), lambda i: getattr(te, reducer)(A[i, k], axis=k), name="B")
    loaded = round_trip(B)
    a = RNG.random((3, 5), dtype="float32") + 0.5
    got = run(loaded, [by_name(loaded)["A"]], [a])
    np.testing.assert_allclose(got, getattr(np, reducer)(a, axis=1), rtol=1e-5)


def test_scan_reads_back_as_a_scan_that_runs() -> None:
    m, n = te.size_var("m"), te.size_var("n")
    X = te.placeholder((m, n), name="X")
    state = te.placeholder((m, n), name="state")
    init = te.compute((1, n), lambda _, i: X[0, i], name="init")
    update = te.compute((m, n), lambda t, i: state[t - 1, i] + X[t, i], name="update")
    res = te.scan(init, update, state, name="cumsum")
    loaded = round_trip(res.op)
    assert isinstance(loaded, te.ScanOp)
    out = loaded.output(0)
    x = RNG.random((6, 3), dtype="float32")
    fn = tvm.build(te.create_schedule(loaded), [by_name(out)["X"], out], "llvm")
    result = tvm.nd.array(np.zeros((6, 3), "float32"))
    fn(tvm.nd.array(x), result)
    np.testing.assert_allclose(result.numpy(), np.cumsum(x, axis=0), rtol=1e-5)


def test_topi_attributes_and_tag_survive() -> None:
    A = te.placeholder((4, 8), name="A")
    W = te.placeholder((6, 8), name="W")
    D = topi.nn.dense(A, W)
    loaded = round_trip(D)
    assert loaded.op.tag == D.op.tag and loaded.op.attrs == D.op.attrs
    a, w = RNG.random((4, 8), dtype="float32"), RNG.random((6, 8), dtype="float32")
    inputs = by_name(loaded)
    np.testing.assert_allclose(run(loaded, [inputs["A"], inputs["W"]], [a, w]), a @ w.T, rtol=1e-5)


def test_the_text_is_tvms_node_graph() -> None:
    A = te.placeholder((2,), name="A")
    graph = json.loads(tvm.ir.save_json(te.compute((2,), lambda i: A[i] * 2, name="B")))
    assert graph["attrs"] == {"tvm_version": "0.13.0"} and graph["b64ndarrays"] == []
    nodes = graph["nodes"]
    assert nodes[0] == {"type_key": ""}
    root = nodes[graph["root"]]
    assert root["type_key"] == "Tensor" and root["attrs"]["dtype"] == "float32"
    op = nodes[int(root["attrs"]["op"])]
    assert op["type_key"] == "te.ComputeOp" and op["attrs"]["name"] == "B"
    kinds = {n["type_key"] for n in nodes}
    assert {"tir.Mul", "tir.ProducerLoad", "te.PlaceholderOp", "tir.IterVar", "Range"} <= kinds


def good_graph() -> dict:
    A = te.placeholder((2,), name="A")
    return json.loads(tvm.ir.save_json(te.compute((2,), lambda i: A[i] + 1, name="B")))


def node_of(graph: dict, type_key: str) -> dict:
    return next(n for n in graph["nodes"] if n["type_key"] == type_key)


def mutated(change) -> str:
    graph = good_graph()
    change(graph)
    return json.dumps(graph)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "no 'nodes' list"),
        (mutated(lambda g: g.update(root=999)), "out of range"),
        (mutated(lambda g: g.update(root="x")), "not an index"),
        (mutated(lambda g: node_of(g, "tir.Add").update(type_key="os.system")), "'os.system'"),
        (mutated(lambda g: node_of(g, "tir.Add")["attrs"].pop("b")), "no field 'b'"),
        (mutated(lambda g: node_of(g, "Tensor")["attrs"].update(value_index="7")), "value_index"),
        (mutated(lambda g: node_of(g, "IntImm")["attrs"].update(value="ten")), "malformed"),
        (mutated(lambda g: node_of(g, "tir.Var")["attrs"].update(dtype="float3")), "dtype"),
        (mutated(lambda g: g.update(b64ndarrays=["AAAA"])), "arrays"),
        (
            mutated(
                lambda g: node_of(g, "tir.Add")["attrs"].update(
                    a=str(g["nodes"].index(node_of(g, "te.PlaceholderOp")))
                )
            ),
            "field 'a' of a 'tir.Add' node is a PlaceholderOp",
        ),
    ],
)
def test_malformed_text_is_a_clear_error(text: str, message: str) -> None:
    with pytest.raises(JSONGraphError, match=message):
        tvm.ir.load_json(text)


def test_cycles_and_deep_nesting_are_refused() -> None:
    graph = good_graph()
    add = graph["nodes"].index(node_of(graph, "tir.Add"))
    graph["nodes"][add]["attrs"]["a"] = str(add)
    with pytest.raises(JSONGraphError, match="refers to itself"):
        tvm.ir.load_json(json.dumps(graph))
    nodes: list[dict] = [{"type_key": ""}]
    for k in range(1, 3000):
        nodes.append({"type_key": "Array", "data": [k + 1]})
    nodes.append({"type_key": "Array", "data": []})
    with pytest.raises(JSONGraphError, match=r"deeper|too deeply"):
        tvm.ir.load_json(json.dumps({"root": 1, "nodes": nodes}))


def test_what_cannot_be_written_is_a_clear_error() -> None:
    A = te.placeholder((4,), name="A")
    reducer = te.comm_reducer(lambda x, y: x + y * 2, lambda t: tvm.tir.const(0, t), name="odd")
    k = te.reduce_axis((0, 4), "k")
    B = te.compute((1,), lambda _: reducer(A[k], axis=k), name="B")
    with pytest.raises(TVMError, match=r"te\.sum, te\.prod, te\.max and te\.min"):
        tvm.ir.save_json(B)
    with pytest.raises(TVMError, match="cannot write a dict"):
        tvm.ir.save_json({"a": 1})
