"""ONNX LSTM, GRU and RNN, unrolled into relay, against onnxruntime.

Models come from onnx.helper with random weights: every direction, sequence_lens shorter than
the sequence, initial states, both layouts, clip, custom activations, GRU's
linear_before_reset, LSTM's peepholes and input_forget, and each optional output left out. The
bound is a max difference of 1e-4 of the largest output.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
import onnx
import pytest
from onnx import helper

from xtvm.dialects import relay
from xtvm.frontends.onnx import OnnxImportError, import_onnx, recurrent
from xtvm.onnx_backend import XtvmBackend
from xtvm.runtime.relay_interpreter import evaluate
from xtvm.testing.onnx_compare import max_relative_difference, run_both, single_node_model

pytest.importorskip("onnxruntime")

GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}
STEPS, BATCH, INPUT, HIDDEN = 5, 3, 4, 6


@dataclass
class Case:
    kind: str
    direction: str = "forward"
    layout: int = 0
    bias: bool = True
    lengths: bool = False
    initial: bool = False
    peepholes: bool = False
    outputs: tuple[bool, ...] = (True, True, True)
    attrs: dict[str, object] = field(default_factory=dict)

    @property
    def id(self) -> str:
        parts = [self.kind, self.direction, f"layout{self.layout}"]
        for flag in ("bias", "lengths", "initial", "peepholes"):
            if getattr(self, flag) != (flag == "bias"):
                parts.append(flag if getattr(self, flag) else f"no-{flag}")
        if not all(self.outputs):
            parts.append("out" + "".join(str(int(o)) for o in self.outputs))
        parts += [f"{k}={v}" for k, v in self.attrs.items()]
        return "-".join(parts)

    def model(self, layout: int | None = None) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
        """The model in `layout` (the case's by default) and its inputs; both layouts draw the
        same values, transposed."""
        layout = self.layout if layout is None else layout
        rng = np.random.default_rng(sum(map(ord, self.id)))
        dirs = 2 if self.direction == "bidirectional" else 1
        g = GATES[self.kind]
        x = rng.standard_normal((STEPS, BATCH, INPUT)).astype(np.float32)
        feeds = {"x": x.transpose(1, 0, 2) if layout else x}
        inits = {
            "w": (rng.standard_normal((dirs, g * HIDDEN, INPUT)) * 0.5).astype(np.float32),
            "r": (rng.standard_normal((dirs, g * HIDDEN, HIDDEN)) * 0.5).astype(np.float32),
        }
        names = ["x", "w", "r", "", "", "", "", ""]
        if self.bias:
            inits["b"] = rng.standard_normal((dirs, 2 * g * HIDDEN)).astype(np.float32)
            names[3] = "b"
        if self.lengths:
            feeds["lens"] = np.array([STEPS, 2, 4], dtype=np.int32)
            names[4] = "lens"
        for k, name in enumerate(("h0", "c0") if self.kind == "LSTM" else ("h0",)):
            if not self.initial:
                break
            state = rng.standard_normal((dirs, BATCH, HIDDEN)).astype(np.float32)
            feeds[name] = state.transpose(1, 0, 2) if layout else state
            names[5 + k] = name
        if self.peepholes:
            inits["p"] = rng.standard_normal((dirs, 3 * HIDDEN)).astype(np.float32)
            names[7] = "p"
        count = 3 if self.kind == "LSTM" else 2
        used = names[: max(i for i, n in enumerate(names) if n) + 1]
        outs = ["y", "y_h", "y_c"][:count]
        outs = [o if keep else "" for o, keep in zip(outs, self.outputs[:count], strict=True)]
        while outs and not outs[-1]:
            outs.pop()
        node = helper.make_node(
            self.kind,
            used,
            outs,
            name=f"{self.kind.lower()}_node",
            hidden_size=HIDDEN,
            direction=self.direction,
            layout=layout,
            **self.attrs,
        )
        return single_node_model(node, feeds, inits, opset=14), feeds


CASES = [
    *(
        Case(kind, direction, layout, lengths=lengths, initial=initial)
        for kind, direction, layout, (lengths, initial) in itertools.product(
            GATES,
            ("forward", "reverse", "bidirectional"),
            (0, 1),
            ((False, False), (True, True)),
        )
    ),
    Case("LSTM", "bidirectional", peepholes=True, lengths=True),
    Case("LSTM", attrs={"input_forget": 1}, initial=True),
    Case("LSTM", bias=False, outputs=(False, True, False)),
    Case("LSTM", "reverse", outputs=(True, False, True), attrs={"clip": 0.5}),
    Case("GRU", attrs={"linear_before_reset": 1}, initial=True),
    Case("GRU", "bidirectional", 1, lengths=True, attrs={"linear_before_reset": 1}),
    Case("GRU", outputs=(False, True, False), bias=False, attrs={"clip": 0.7}),
    Case("RNN", "bidirectional", attrs={"activations": ["Relu", "Tanh"]}),
    Case(
        "GRU",
        attrs={
            "activations": ["HardSigmoid", "LeakyRelu"],
            "activation_alpha": [0.3, 0.05],
            "activation_beta": [0.4],
        },
    ),
    Case("LSTM", attrs={"activations": ["Sigmoid", "Softsign", "Relu"]}),
]


def batch_first(output: np.ndarray) -> np.ndarray:
    """A layout-0 output (Y [steps, dirs, batch, hidden], Y_h/Y_c [dirs, batch, hidden]) in
    layout 1."""
    return output.transpose(2, 0, 1, 3) if output.ndim == 4 else output.transpose(1, 0, 2)


def expected_outputs(case: Case) -> list[np.ndarray]:
    """onnxruntime's outputs; it runs layout 0 only, so layout 1 is its transposed run."""
    model, feeds = case.model(layout=0)
    _, expected = run_both(model, feeds)
    return [batch_first(e) for e in expected] if case.layout else expected


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_matches_onnxruntime(case: Case) -> None:
    model, feeds = case.model()
    module, params = import_onnx(model)
    got = evaluate(module, list(feeds.values()), params=params)
    expected = expected_outputs(case)
    assert [g.shape for g in got] == [e.shape for e in expected]
    assert max_relative_difference(got, expected) <= 1e-4


def test_every_op_has_a_case() -> None:
    assert set(recurrent.CONVERTERS) == {c.kind for c in CASES}


@pytest.mark.parametrize("kind", list(GATES))
def test_compiled_for_llvm(kind: str) -> None:
    case = Case(kind, "bidirectional", lengths=True, initial=True)
    model, feeds = case.model()
    expected = expected_outputs(case)
    got = XtvmBackend.prepare(model, compiled=True).run(list(feeds.values()))
    assert max_relative_difference(list(got), expected) <= 1e-4


@pytest.mark.parametrize(
    ("attrs", "expected"),
    [
        ({"direction": "sideways"}, "direction 'sideways' is not supported"),
        ({"layout": 2}, "layout must be 0 or 1, got 2"),
        ({"activations": ["Tanh", "Tanh"]}, "activations ['Tanh', 'Tanh'] must name 1 function"),
        ({"activations": ["Swish"]}, "activation 'Swish' is not supported"),
        ({"hidden_size": 5}, "W [1, 6, 4] and R [1, 6, 6] must be [1, 5, 4] and [1, 5, 5]"),
    ],
    ids=["direction", "layout", "activation-count", "activation-name", "hidden-size"],
)
def test_bad_attributes_name_the_node(attrs: dict[str, object], expected: str) -> None:
    w = np.zeros((1, HIDDEN, INPUT), np.float32)
    r = np.zeros((1, HIDDEN, HIDDEN), np.float32)
    params = {"hidden_size": HIDDEN, **attrs}
    node = helper.make_node("RNN", ["x", "w", "r"], ["y"], name="rnn_node", **params)
    x = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [STEPS, BATCH, INPUT])
    y = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["a", "b", "c", "d"])
    inits = [onnx.numpy_helper.from_array(w, "w"), onnx.numpy_helper.from_array(r, "r")]
    graph = helper.make_graph([node], "bad", [x], [y], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    with pytest.raises(OnnxImportError) as info:
        import_onnx(model)
    assert str(info.value).startswith("node 'rnn_node' (RNN): "), str(info.value)
    assert expected in str(info.value)


@pytest.mark.parametrize("kind", list(GATES))
def test_bidirectional_steps_share_one_product(kind: str) -> None:
    """Both directions advance together: one batch_matmul per step ([2, batch, hidden] by
    [2, gates*hidden, hidden]) and nn.dense only for the input projections (two for the GRU's
    r and h products), so the two directions' products are one kernel per step."""
    model, _ = Case(kind, "bidirectional", lengths=True, initial=True).model()
    module, _ = import_onnx(model)
    ops = list(module.walk())
    products = [op for op in ops if isinstance(op, relay.BatchMatmulOp)]
    per_step = 2 if kind == "GRU" else 1
    assert len(products) == per_step * STEPS
    assert sum(isinstance(op, relay.DenseOp) for op in ops) == 2
    first = products[0].operands[0].type.get_shape()  # type: ignore[attr-defined]
    assert tuple(first) == (2, BATCH, HIDDEN)


def test_bidirectional_with_different_activations_runs_each_direction() -> None:
    """Directions with their own activations cannot share a step: a dense per direction."""
    case = Case("RNN", "bidirectional", attrs={"activations": ["Relu", "Tanh"]})
    module, _ = import_onnx(case.model()[0])
    ops = list(module.walk())
    assert not any(isinstance(op, relay.BatchMatmulOp) for op in ops)
    assert sum(isinstance(op, relay.DenseOp) for op in ops) == 2 + 2 * STEPS
