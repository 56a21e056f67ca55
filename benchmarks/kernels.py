"""Kernel benchmarks: xtvm against numpy (OpenBLAS) and onnxruntime, side by side in one run.

Workloads (PERFORMANCE.md): fp32 matmul 1024^3 (a TE schedule in TVM's tutorial style, and
relay's nn.matmul through relay.build with the default schedule), conv2d 1x64x56x56 *
64x64x3x3 pad 1, the fused chain add -> relu -> multiply on 1x64x112x112, and dense
1x4096 * 4096x1000 + bias + relu, and on a BERT FFN activation of 128x3072: erf, GELU as
exporters write it (x * 0.5 * (1 + Erf(x / sqrt 2))) and ONNX's Gelu (opset 20, exact and
tanh), pow by the constant 0.75 and by a tensor, and LRN on 1x64x56x56 (Inception's), each
with 1 and 2 threads. Medians of repeated runs; the ratio column is xtvm's latency
over onnxruntime's (<= 1.0: xtvm is as fast or faster).

    python benchmarks/kernels.py [--threads 1 2] [--repeat 5] [gelu erf ...]

numpy's thread count is fixed when it loads (OPENBLAS_NUM_THREADS); its column uses all cores.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Callable

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

import xtvm as tvm
from xtvm import relay, te
from xtvm.contrib import graph_executor
from xtvm.runtime.threads import set_num_threads

RNG = np.random.default_rng(0)


def median_seconds(call: Callable[[], object], repeat: int, number: int = 3) -> float:
    # Let the previous system's thread pool stop spinning (OpenBLAS and onnxruntime threads
    # busy-wait after a call): on 2 cores they would otherwise steal this one's threads.
    time.sleep(0.3)
    call()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            call()
        samples.append((time.perf_counter() - start) / number)
    return statistics.median(samples)


def tuned_matmul(n: int) -> tvm.runtime.Module:
    """TVM's CPU matmul tutorial schedule: packed B, 8x32 register tile, vectorized, parallel."""
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    bn = 32
    k = te.reduce_axis((0, n), name="k")
    packed = te.compute((n // bn, n, bn), lambda x, y, z: B[y, x * bn + z], name="packedB")
    C = te.compute(
        (n, n), lambda x, y: te.sum(A[x, k] * packed[y // bn, k, y % bn], axis=k), name="C"
    )
    s = te.create_schedule(C.op)
    CC = s.cache_write(C, "local")
    xo, yo, _xi, _yi = s[C].tile(C.op.axis[0], C.op.axis[1], 8, bn)
    s[CC].compute_at(s[C], yo)
    xc, yc = s[CC].op.axis
    ko, ki = s[CC].split(s[CC].op.reduce_axis[0], factor=4)
    s[CC].reorder(ko, xc, ki, yc)
    s[CC].unroll(ki)
    s[CC].vectorize(yc)
    s[C].parallel(xo)
    x, _y, z = s[packed].op.axis
    s[packed].vectorize(z)
    s[packed].parallel(x)
    return tvm.build(s, [A, B, C], "llvm", name="matmul")


def built_on_first_call(make: Callable[[], Callable[[], object]]) -> Callable[[], object]:
    """`make()`'s function, made when first called (workloads not selected are never built)."""
    made: list[Callable[[], object]] = []

    def call() -> object:
        if not made:
            made.append(make())
        return made[0]()

    return call


def relay_runner(fn: relay.Function, inputs: dict[str, np.ndarray]) -> Callable[[], object]:
    def make() -> Callable[[], object]:
        factory = relay.build(tvm.IRModule.from_expr(fn), target="llvm")
        module = graph_executor.GraphModule(factory["default"](tvm.cpu()))
        module.set_input(**inputs)
        return module.run

    return built_on_first_call(make)


def ort_runner(
    nodes: list[onnx.NodeProto],
    inputs: dict[str, np.ndarray],
    initializers: dict[str, np.ndarray],
    output: tuple[str, tuple[int, ...]],
    threads: int,
    opset: int = 17,
) -> Callable[[], object]:
    graph = helper.make_graph(
        nodes,
        "bench",
        [helper.make_tensor_value_info(k, TensorProto.FLOAT, v.shape) for k, v in inputs.items()],
        [helper.make_tensor_value_info(output[0], TensorProto.FLOAT, output[1])],
        [onnx.numpy_helper.from_array(v, k) for k, v in initializers.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1

    def make() -> Callable[[], object]:
        session = ort.InferenceSession(
            model.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )
        return lambda: session.run(None, inputs)

    return built_on_first_call(make)


def workloads(
    threads: int,
) -> list[tuple[str, float, Callable[[], object], Callable[[], object], Callable[[], object]]]:
    """(name, flops, xtvm, numpy, onnxruntime) for each workload."""
    rows = []
    n = 1024
    a, b = RNG.standard_normal((n, n), "float32"), RNG.standard_normal((n, n), "float32")
    c = np.zeros((n, n), "float32")

    def make_matmul() -> Callable[[], object]:
        kernel = tuned_matmul(n)
        return lambda: kernel(a, b, c)

    mm = built_on_first_call(make_matmul)
    rows.append(
        (
            "matmul 1024^3 (TE schedule)",
            2 * n**3,
            mm,
            lambda: a @ b,
            ort_runner(
                [helper.make_node("MatMul", ["a", "b"], ["c"])],
                {"a": a, "b": b},
                {},
                ("c", (n, n)),
                threads,
            ),
        )
    )
    x, y = relay.var("a", shape=(n, n)), relay.var("b", shape=(n, n))
    rows.append(
        (
            "matmul 1024^3 (relay default)",
            2 * n**3,
            relay_runner(relay.Function([x, y], relay.nn.matmul(x, y)), {"a": a, "b": b}),
            lambda: a @ b,
            ort_runner(
                [helper.make_node("MatMul", ["a", "b"], ["c"])],
                {"a": a, "b": b},
                {},
                ("c", (n, n)),
                threads,
            ),
        )
    )

    data = RNG.standard_normal((1, 64, 56, 56), "float32")
    weight = RNG.standard_normal((64, 64, 3, 3), "float32")
    d = relay.var("x", shape=data.shape)
    conv = relay.nn.conv2d(d, relay.const(weight), padding=(1, 1))

    def numpy_conv() -> np.ndarray:
        padded = np.pad(data[0], ((0, 0), (1, 1), (1, 1)))
        windows = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(1, 2))
        return np.tensordot(weight, windows, axes=([1, 2, 3], [0, 3, 4]))

    rows.append(
        (
            "conv2d 1x64x56x56 * 64x64x3x3",
            2 * 64 * 64 * 9 * 56 * 56,
            relay_runner(relay.Function([d], conv), {"x": data}),
            numpy_conv,
            ort_runner(
                [helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])],
                {"x": data},
                {"w": weight},
                ("y", (1, 64, 56, 56)),
                threads,
            ),
        )
    )

    p = RNG.standard_normal((1, 64, 112, 112), "float32")
    q = RNG.standard_normal((1, 64, 112, 112), "float32")
    u, v = relay.var("p", shape=p.shape), relay.var("q", shape=q.shape)
    chain = relay.multiply(relay.nn.relu(relay.add(u, v)), v)
    rows.append(
        (
            "add->relu->multiply 1x64x112x112",
            0,
            relay_runner(relay.Function([u, v], chain), {"p": p, "q": q}),
            lambda: np.maximum(p + q, 0) * q,
            ort_runner(
                [
                    helper.make_node("Add", ["p", "q"], ["s"]),
                    helper.make_node("Relu", ["s"], ["r"]),
                    helper.make_node("Mul", ["r", "q"], ["o"]),
                ],
                {"p": p, "q": q},
                {},
                ("o", p.shape),
                threads,
            ),
        )
    )

    xs = RNG.standard_normal((1, 4096), "float32")
    w = RNG.standard_normal((1000, 4096), "float32")
    bias = RNG.standard_normal((1000,), "float32")
    z = relay.var("x", shape=xs.shape)
    dense = relay.nn.relu(relay.nn.bias_add(relay.nn.dense(z, relay.const(w)), relay.const(bias)))
    rows.append(
        (
            "dense 1x4096 * 4096x1000 + bias + relu",
            2 * 4096 * 1000,
            relay_runner(relay.Function([z], dense), {"x": xs}),
            lambda: np.maximum(xs @ w.T + bias, 0),
            ort_runner(
                [
                    helper.make_node("Gemm", ["x", "w", "b"], ["g"], transB=1),
                    helper.make_node("Relu", ["g"], ["y"]),
                ],
                {"x": xs},
                {"w": w, "b": bias},
                ("y", (1, 1000)),
                threads,
            ),
        )
    )

    g = RNG.standard_normal((128, 3072), "float32")
    h = relay.var("x", shape=g.shape)
    erf_numpy = np.vectorize(math.erf, otypes=[np.float32])
    rows.append(
        (
            "erf 128x3072",
            0,
            relay_runner(relay.Function([h], relay.erf(h)), {"x": g}),
            lambda: erf_numpy(g),
            ort_runner(
                [helper.make_node("Erf", ["x"], ["y"])], {"x": g}, {}, ("y", g.shape), threads
            ),
        )
    )
    exported = relay.multiply(
        relay.multiply(
            h, relay.add(relay.erf(relay.divide(h, relay.const(math.sqrt(2.0)))), relay.const(1.0))
        ),
        relay.const(0.5),
    )
    rows.append(
        (
            "gelu (Erf, as exported) 128x3072",
            0,
            relay_runner(relay.Function([h], exported), {"x": g}),
            lambda: g * 0.5 * (1 + erf_numpy(g / np.float32(math.sqrt(2.0)))),
            ort_runner(
                [
                    helper.make_node("Div", ["x", "sqrt2"], ["d"]),
                    helper.make_node("Erf", ["d"], ["e"]),
                    helper.make_node("Add", ["e", "one"], ["a"]),
                    helper.make_node("Mul", ["x", "a"], ["m"]),
                    helper.make_node("Mul", ["m", "half"], ["y"]),
                ],
                {"x": g},
                {
                    "sqrt2": np.array(math.sqrt(2.0), "float32"),
                    "one": np.array(1.0, "float32"),
                    "half": np.array(0.5, "float32"),
                },
                ("y", g.shape),
                threads,
            ),
        )
    )
    for approximate in ("none", "tanh"):
        rows.append(
            (
                f"Gelu approximate={approximate} 128x3072",
                0,
                relay_runner(relay.Function([h], relay.nn.gelu(h, approximate)), {"x": g}),
                lambda: g * 0.5 * (1 + np.tanh(0.7978846 * (g + 0.044715 * g**3))),
                ort_runner(
                    [helper.make_node("Gelu", ["x"], ["y"], approximate=approximate)],
                    {"x": g},
                    {},
                    ("y", g.shape),
                    threads,
                    opset=20,
                ),
            )
        )
    # pow: by a constant (LRN's 0.75: square roots) and by a tensor (the inline vector pow),
    # and LRN itself (Inception's first: 64 channels at 56x56, window 5)
    positive = np.abs(g) + np.float32(0.5)
    exponents = RNG.uniform(-3, 3, g.shape).astype("float32")
    quarter = np.array(0.75, "float32")
    rows.append(
        (
            "pow x ** 0.75 128x3072",
            0,
            relay_runner(relay.Function([h], relay.power(h, relay.const(0.75))), {"x": positive}),
            lambda: np.power(positive, quarter),
            ort_runner(
                [helper.make_node("Pow", ["x", "e"], ["y"])],
                {"x": positive},
                {"e": quarter},
                ("y", g.shape),
                threads,
            ),
        )
    )
    e = relay.var("e", shape=g.shape)
    rows.append(
        (
            "pow x ** y 128x3072",
            0,
            relay_runner(
                relay.Function([h, e], relay.power(h, e)), {"x": positive, "e": exponents}
            ),
            lambda: np.power(positive, exponents),
            ort_runner(
                [helper.make_node("Pow", ["x", "e"], ["y"])],
                {"x": positive, "e": exponents},
                {},
                ("y", g.shape),
                threads,
            ),
        )
    )
    image = RNG.standard_normal((1, 64, 56, 56), "float32")
    v = relay.var("x", shape=image.shape)
    lrn = relay.nn.lrn(v, size=5, alpha=1e-4, beta=0.75, bias=1.0)

    def numpy_lrn() -> np.ndarray:
        squares = np.pad(image * image, ((0, 0), (2, 2), (0, 0), (0, 0)))
        window = sum(squares[:, i : i + 64] for i in range(5))
        return image / (1.0 + 1e-4 / 5 * window) ** np.float32(0.75)

    rows.append(
        (
            "LRN 1x64x56x56 (size 5, beta 0.75)",
            0,
            relay_runner(relay.Function([v], lrn), {"x": image}),
            numpy_lrn,
            ort_runner(
                [helper.make_node("LRN", ["x"], ["y"], size=5, alpha=1e-4, beta=0.75, bias=1.0)],
                {"x": image},
                {},
                ("y", image.shape),
                threads,
            ),
        )
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("only", nargs="*", help="run the workloads whose name contains one")
    args = parser.parse_args()
    columns = ("xtvm ms", "numpy ms", "ort ms", "xtvm GF/s")
    header = f"{'workload':40} {'thr':>3} " + " ".join(f"{c:>9}" for c in columns)
    header += f" {'xtvm/ort':>8} {'np/xtvm':>8}"
    print(header)
    print("-" * len(header))
    for threads in args.threads:
        set_num_threads(threads)
        for name, flops, ours, numpy_call, ort_call in workloads(threads):
            if args.only and not any(word in name for word in args.only):
                continue
            t_ours = median_seconds(ours, args.repeat)
            t_np = median_seconds(numpy_call, args.repeat)
            t_ort = median_seconds(ort_call, args.repeat)
            gflops = f"{flops / t_ours / 1e9:9.1f}" if flops else f"{'-':>9}"
            print(
                f"{name:40} {threads:3d} {t_ours * 1e3:9.3f} {t_np * 1e3:9.3f} {t_ort * 1e3:9.3f} "
                f"{gflops} {t_ours / t_ort:8.2f} {t_np / t_ours:8.2f}"
            )


if __name__ == "__main__":
    main()
