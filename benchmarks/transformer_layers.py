"""Transformer-shaped workloads (batch 1, random weights): xtvm against onnxruntime.

The models are built with onnx.helper in the shape PyTorch exports them (every `nn.Linear` a
MatMul of a 3-d activation by a 2-d weight plus an Add of the bias, attention as 4-d MatMuls
with a Transpose of K, GELU through Erf, LayerNormalization):

- `matmul_3136x96x384`, `matmul_128x768x3072`: one MatMul [1, m, k] x [k, n];
- `bert_layer`: a BERT-base encoder layer (seq 128, hidden 768, 12 heads, FFN 3072);
- `bert_2layers`: two of them;
- `gpt2_layer`: a GPT-2-small layer at seq 64 (pre-LayerNorm, causal mask) followed by the
  final LayerNorm and the 768 x 50257 vocabulary projection.

Per workload: ONNX import and `relay.build` seconds, then median latency of xtvm's graph
executor and of onnxruntime at 1 and 2 threads (as `models.py` sets them), their ratio (<= 1:
xtvm as fast or faster) and the largest difference of the outputs relative to the largest
output. Each workload runs in a fresh subprocess.

    python benchmarks/transformer_layers.py                  # all workloads, 10 runs each
    python benchmarks/transformer_layers.py bert_layer --repeat 5
    python benchmarks/transformer_layers.py bert_layer --busy   # a busy loop holding one core
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import onnx
from models import child_rows, latency_table, max_rel_diff, time_against_ort
from onnx import TensorProto, helper, numpy_helper

HIDDEN, HEADS, FFN = 768, 12, 3072
VOCABULARY = 50257


class Graph:
    """An ONNX graph under construction: nodes, initializers and fresh names."""

    def __init__(self, seed: int = 0) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.rng = np.random.default_rng(seed)
        self.count = 0

    def name(self, hint: str) -> str:
        self.count += 1
        return f"{hint}_{self.count}"

    def const(self, value: np.ndarray, hint: str = "c") -> str:
        name = self.name(hint)
        self.initializers.append(numpy_helper.from_array(value, name))
        return name

    def weight(self, *shape: int, scale: float | None = None) -> str:
        std = scale if scale is not None else 1.0 / math.sqrt(shape[0])
        return self.const((std * self.rng.standard_normal(shape)).astype(np.float32), "w")

    def op(self, kind: str, *inputs: str, **attrs: Any) -> str:
        out = self.name(kind.lower())
        self.nodes.append(helper.make_node(kind, list(inputs), [out], **attrs))
        return out

    def shape(self, dims: list[int]) -> str:
        return self.const(np.array(dims, dtype=np.int64), "shape")

    def linear(self, x: str, k: int, n: int) -> str:
        """PyTorch's nn.Linear as exported: MatMul by the [k, n] weight, Add of the bias."""
        y = self.op("MatMul", x, self.weight(k, n))
        return self.op("Add", y, self.weight(n, scale=0.02))

    def layer_norm(self, x: str) -> str:
        scale = self.const(np.ones(HIDDEN, np.float32), "gamma")
        bias = self.const(np.zeros(HIDDEN, np.float32), "beta")
        return self.op("LayerNormalization", x, scale, bias, axis=-1, epsilon=1e-5)

    def gelu(self, x: str) -> str:
        """0.5 x (1 + erf(x / sqrt 2)), as torch.nn.GELU exports below opset 20."""
        scaled = self.op("Div", x, self.const(np.array(math.sqrt(2.0), np.float32)))
        one = self.op("Add", self.op("Erf", scaled), self.const(np.array(1.0, np.float32)))
        return self.op("Mul", self.op("Mul", x, one), self.const(np.array(0.5, np.float32)))

    def attention(self, x: str, seq: int, mask: str | None) -> str:
        """Multi-head self-attention: Q Kᵀ / sqrt(d), softmax, times V, output projection."""
        d = HIDDEN // HEADS

        def heads(t: str, perm: list[int]) -> str:
            return self.op(
                "Transpose", self.op("Reshape", t, self.shape([1, seq, HEADS, d])), perm=perm
            )

        q = heads(self.linear(x, HIDDEN, HIDDEN), [0, 2, 1, 3])
        k = heads(self.linear(x, HIDDEN, HIDDEN), [0, 2, 3, 1])
        v = heads(self.linear(x, HIDDEN, HIDDEN), [0, 2, 1, 3])
        scores = self.op("MatMul", q, k)
        scores = self.op("Div", scores, self.const(np.array(math.sqrt(d), np.float32)))
        if mask is not None:
            scores = self.op("Add", scores, mask)
        probs = self.op("Softmax", scores, axis=-1)
        context = self.op("Transpose", self.op("MatMul", probs, v), perm=[0, 2, 1, 3])
        context = self.op("Reshape", context, self.shape([1, seq, HIDDEN]))
        return self.linear(context, HIDDEN, HIDDEN)

    def bert_layer(self, x: str, seq: int) -> str:
        """Post-LayerNorm encoder layer (BERT)."""
        h = self.layer_norm(self.op("Add", x, self.attention(x, seq, None)))
        f = self.linear(self.gelu(self.linear(h, HIDDEN, FFN)), FFN, HIDDEN)
        return self.layer_norm(self.op("Add", h, f))

    def gpt2_layer(self, x: str, seq: int) -> str:
        """Pre-LayerNorm decoder layer with a causal mask (GPT-2)."""
        causal = np.triu(np.full((seq, seq), -1e4, np.float32), 1)[None, None]
        h = self.op("Add", x, self.attention(self.layer_norm(x), seq, self.const(causal, "mask")))
        f = self.linear(self.gelu(self.linear(self.layer_norm(h), HIDDEN, FFN)), FFN, HIDDEN)
        return self.op("Add", h, f)

    def model(self, x: str, shape: list[int], y: str, out: list[int]) -> onnx.ModelProto:
        graph = helper.make_graph(
            self.nodes,
            "transformer",
            [helper.make_tensor_value_info(x, TensorProto.FLOAT, shape)],
            [helper.make_tensor_value_info(y, TensorProto.FLOAT, out)],
            self.initializers,
        )
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def single_matmul(m: int, k: int, n: int) -> Callable[[], tuple[onnx.ModelProto, list[int]]]:
    def build() -> tuple[onnx.ModelProto, list[int]]:
        g = Graph()
        y = g.op("MatMul", "x", g.weight(k, n))
        return g.model("x", [1, m, k], y, [1, m, n]), [1, m, k]

    return build


def bert(layers: int) -> Callable[[], tuple[onnx.ModelProto, list[int]]]:
    def build() -> tuple[onnx.ModelProto, list[int]]:
        g, y = Graph(), "x"
        for _ in range(layers):
            y = g.bert_layer(y, 128)
        shape = [1, 128, HIDDEN]
        return g.model("x", shape, y, shape), shape

    return build


def gpt2_layer() -> tuple[onnx.ModelProto, list[int]]:
    g = Graph()
    h = g.layer_norm(g.gpt2_layer("x", 64))
    logits = g.op("MatMul", h, g.weight(HIDDEN, VOCABULARY))
    return g.model("x", [1, 64, HIDDEN], logits, [1, 64, VOCABULARY]), [1, 64, HIDDEN]


WORKLOADS: dict[str, Callable[[], tuple[onnx.ModelProto, list[int]]]] = {
    "matmul_3136x96x384": single_matmul(3136, 96, 384),
    "matmul_128x768x3072": single_matmul(128, 768, 3072),
    "bert_layer": bert(1),
    "bert_2layers": bert(2),
    "gpt2_layer": gpt2_layer,
}


def measure(
    name: str,
    repeat: int,
    workloads: dict[str, Callable[[], tuple[onnx.ModelProto, list[int]]]] = WORKLOADS,
) -> dict[str, Any]:
    """All numbers for workload `name` of `workloads` (run in its own process)."""
    import xtvm as tvm
    from xtvm import relay
    from xtvm.api.relay.frontend import from_onnx
    from xtvm.contrib import graph_executor

    model, shape = workloads[name]()
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    row: dict[str, Any] = {"workload": name}
    start = time.perf_counter()
    mod, params = from_onnx(model)
    row["import_s"] = time.perf_counter() - start
    start = time.perf_counter()
    factory = relay.build(mod, target="llvm", params=params)
    row["build_s"] = time.perf_counter() - start
    module = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    module.set_input("x", x)

    got, expected = time_against_ort(row, module, model, "x", x, repeat)
    row["max_rel_diff"] = max_rel_diff(got, expected)
    return row


def table(rows: list[dict[str, Any]]) -> str:
    leading = [
        ("import s", lambda r: f"{r['import_s']:.2f}"),
        ("build s", lambda r: f"{r['build_s']:.1f}"),
    ]
    return latency_table(rows, "workload", leading)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("workloads", nargs="*", default=list(WORKLOADS), help="of the above")
    parser.add_argument("--repeat", type=int, default=10, help="timed runs per measurement")
    parser.add_argument("--busy", action="store_true", help="keep one core busy meanwhile")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # child process: print one JSON row
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.repeat)))
        return 0
    commands = [
        (
            [sys.executable, __file__, "--one", name, "--repeat", str(args.repeat)],
            {"workload": name},
        )
        for name in args.workloads
    ]
    print(table(child_rows(commands, args.busy)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
