"""Mobile CNNs (batch 1, random weights): xtvm against onnxruntime.

The models are built with onnx.helper in the shape PyTorch (torchvision) exports them, with
BatchNormalization left unfolded:

- `mobilenet_v2`: MobileNetV2 (stem 3x3 stride-2 conv, 17 inverted residual blocks: 1x1
  expand conv + BN + ReLU6 (Clip), 3x3 depthwise conv + BN + ReLU6, 1x1 project conv + BN, a
  residual Add where shapes allow; 1x1 conv to 1280, global pool, classifier);
- `mobilenet_v3_small`: MobileNetV3-small (HardSwish activations, squeeze-excite blocks
  pooling, 1x1 reduce + ReLU, 1x1 expand + HardSigmoid, Mul; 3x3 and 5x5 depthwise convs);
- `..._112`: the same at 112x112.

Per workload: ONNX import and `relay.build` seconds, then median latency of xtvm's graph
executor and of onnxruntime at 1 and 2 threads, their ratio (<= 1: xtvm as fast or faster)
and the largest difference of the outputs relative to the largest output (the columns of
`transformers.py`). Each workload runs in a fresh subprocess.

On 2 shared cores (load 7-11, 15 runs, two rounds): xtvm / onnxruntime at one thread 0.97 and
1.18 (mobilenet_v2; 1.24 and 1.40 before the NHWC depthwise conv2d read its input without a
padded copy), 0.82 and 0.85 (mobilenet_v3_small; 1.16 and 1.09 before), max relative
difference 6e-6; two-thread figures swing with the other load on the machine. HardSwish and
HardSigmoid fuse into their conv2d kernels. Since the depthwise padding is a clamped select
with a border split (no branch per tap), relay.build takes 4.8-5.0 CPU seconds for
mobilenet_v2 (6.7-6.9 with branches) and 6.1-6.6 for mobilenet_v3_small (6.7-7.0).

    python benchmarks/mobile.py                       # all workloads, 10 runs each
    python benchmarks/mobile.py mobilenet_v2 --repeat 5
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

import numpy as np
import onnx
from models import child_row
from transformer_layers import Graph, measure, table

# MobileNetV2: (expansion, output channels, repeats, first stride)
V2_BLOCKS = [
    (1, 16, 1, 1),
    (6, 24, 2, 2),
    (6, 32, 3, 2),
    (6, 64, 4, 2),
    (6, 96, 3, 1),
    (6, 160, 3, 2),
    (6, 320, 1, 1),
]
# MobileNetV3-small: (kernel, expanded channels, output channels, squeeze-excite,
# HardSwish (else ReLU), stride)
V3_SMALL_BLOCKS = [
    (3, 16, 16, True, False, 2),
    (3, 72, 24, False, False, 2),
    (3, 88, 24, False, False, 1),
    (5, 96, 40, True, True, 2),
    (5, 240, 40, True, True, 1),
    (5, 240, 40, True, True, 1),
    (5, 120, 48, True, True, 1),
    (5, 144, 48, True, True, 1),
    (5, 288, 96, True, True, 2),
    (5, 576, 96, True, True, 1),
    (5, 576, 96, True, True, 1),
]
CLASSES = 1000


def divisible(v: float, d: int = 8) -> int:
    """torchvision's _make_divisible."""
    new = max(d, int(v + d / 2) // d * d)
    return new + d if new < 0.9 * v else new


class ConvGraph(Graph):
    """A Graph with the layers of mobile CNNs."""

    def conv(
        self,
        x: str,
        cin: int,
        cout: int,
        k: int = 1,
        stride: int = 1,
        group: int = 1,
        bias: bool = False,
    ) -> str:
        w = self.weight(
            cout, cin // group, k, k, scale=float(np.sqrt(2.0 / (cin // group * k * k)))
        )
        inputs = [x, w] + ([self.weight(cout, scale=0.1)] if bias else [])
        p = k // 2
        return self.op(
            "Conv",
            *inputs,
            kernel_shape=[k, k],
            strides=[stride, stride],
            pads=[p, p, p, p],
            group=group,
        )

    def bn(self, x: str, c: int) -> str:
        scale = self.const((1 + 0.1 * self.rng.standard_normal(c)).astype(np.float32), "gamma")
        bias = self.const((0.1 * self.rng.standard_normal(c)).astype(np.float32), "beta")
        mean = self.const((0.1 * self.rng.standard_normal(c)).astype(np.float32), "mean")
        var = self.const(self.rng.uniform(0.5, 1.5, c).astype(np.float32), "var")
        return self.op("BatchNormalization", x, scale, bias, mean, var, epsilon=1e-5)

    def act(self, x: str, kind: str | None) -> str:
        if kind == "relu6":
            lo, hi = (self.const(np.array(v, np.float32)) for v in (0.0, 6.0))
            return self.op("Clip", x, lo, hi)
        if kind == "relu":
            return self.op("Relu", x)
        if kind == "hswish":
            return self.op("HardSwish", x)
        return x

    def conv_bn(
        self,
        x: str,
        cin: int,
        cout: int,
        act: str | None,
        k: int = 1,
        stride: int = 1,
        group: int = 1,
    ) -> str:
        return self.act(self.bn(self.conv(x, cin, cout, k, stride, group), cout), act)

    def squeeze_excite(self, x: str, c: int) -> str:
        squeeze = divisible(c / 4)
        s = self.op("GlobalAveragePool", x)
        s = self.op("Relu", self.conv(s, c, squeeze, bias=True))
        s = self.op("HardSigmoid", self.conv(s, squeeze, c, bias=True), alpha=1 / 6, beta=0.5)
        return self.op("Mul", x, s)

    def inverted_residual(
        self, x: str, cin: int, expanded: int, cout: int, k: int, stride: int, se: bool, act: str
    ) -> str:
        y = x if expanded == cin else self.conv_bn(x, cin, expanded, act)
        y = self.conv_bn(y, expanded, expanded, act, k, stride, expanded)
        if se:
            y = self.squeeze_excite(y, expanded)
        y = self.conv_bn(y, expanded, cout, None)
        return self.op("Add", x, y) if stride == 1 and cin == cout else y

    def classifier(self, x: str, c: int, hidden: int | None, act: str | None) -> str:
        y = self.op("Flatten", self.op("GlobalAveragePool", x), axis=1)
        if hidden is not None:
            y = self.act(
                self.op(
                    "Gemm", y, self.weight(hidden, c), self.weight(hidden, scale=0.1), transB=1
                ),
                act,
            )
            c = hidden
        return self.op(
            "Gemm", y, self.weight(CLASSES, c), self.weight(CLASSES, scale=0.1), transB=1
        )


Builder = Callable[[], tuple[onnx.ModelProto, list[int]]]


def mobilenet_v2(size: int = 224, blocks: int | None = None) -> Builder:
    """MobileNetV2 at `size` x `size`; its first `blocks` inverted residual blocks only when
    given (then no 1280 conv)."""

    def build() -> tuple[onnx.ModelProto, list[int]]:
        g = ConvGraph()
        y, c = g.conv_bn("x", 3, 32, "relu6", 3, 2), 32
        layers = [(t, out, s if i == 0 else 1) for t, out, n, s in V2_BLOCKS for i in range(n)]
        for t, out, s in layers[:blocks]:
            y, c = g.inverted_residual(y, c, c * t, out, 3, s, False, "relu6"), out
        if blocks is None:
            y, c = g.conv_bn(y, c, 1280, "relu6"), 1280
        shape = [1, 3, size, size]
        return g.model("x", shape, g.classifier(y, c, None, None), [1, CLASSES]), shape

    return build


def mobilenet_v3_small(size: int = 224, blocks: int | None = None) -> Builder:
    """MobileNetV3-small at `size` x `size`; its first `blocks` blocks only when given."""

    def build() -> tuple[onnx.ModelProto, list[int]]:
        g = ConvGraph()
        y, c = g.conv_bn("x", 3, 16, "hswish", 3, 2), 16
        for k, expanded, out, se, hswish, s in V3_SMALL_BLOCKS[:blocks]:
            act = "hswish" if hswish else "relu"
            y, c = g.inverted_residual(y, c, expanded, out, k, s, se, act), out
        y, c = g.conv_bn(y, c, 6 * c, "hswish"), 6 * c
        shape = [1, 3, size, size]
        return g.model("x", shape, g.classifier(y, c, 1024, "hswish"), [1, CLASSES]), shape

    return build


WORKLOADS: dict[str, Builder] = {
    "mobilenet_v2": mobilenet_v2(),
    "mobilenet_v3_small": mobilenet_v3_small(),
    "mobilenet_v2_112": mobilenet_v2(112),
    "mobilenet_v3_small_112": mobilenet_v3_small(112),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("workloads", nargs="*", default=list(WORKLOADS), help="of the above")
    parser.add_argument("--repeat", type=int, default=10, help="timed runs per measurement")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # child process: print one JSON row
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.repeat, WORKLOADS)))
        return 0
    rows = []
    for name in args.workloads:
        command = [sys.executable, __file__, "--one", name, "--repeat", str(args.repeat)]
        rows.append(child_row(command, {"workload": name}))
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
