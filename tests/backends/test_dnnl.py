"""The dnnl external codegen (oneDNN offload): each op against the relay interpreter, fused
convolutions, networks against the all-LLVM build, host fallback for what oneDNN does not take,
and the runtime's errors. Skipped where oneDNN (libdnnl-dev) is missing."""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func

import xtvm as tvm
from xtvm import relay
from xtvm.api.relay.op.contrib.dnnl import partition_for_dnnl
from xtvm.backends.external import dnnl
from xtvm.backends.external.dnnl import (
    DnnlUnavailableError,
    dnnl_codegen,
    unavailable_reason,
)
from xtvm.driver.aot import export_aot
from xtvm.ir.diagnostics import DiagnosticError
from xtvm.runtime.graph_executor import load_factory
from xtvm.testing.onnx_models import light_model as onnx_light_model
from xtvm.testing.relay import run_factory

CC = os.environ.get("CC", "gcc")
RNG = np.random.default_rng(11)

pytestmark = [
    pytest.mark.skipif(unavailable_reason() is not None, reason=str(unavailable_reason())),
    pytest.mark.skipif(shutil.which(CC) is None, reason=f"no C compiler '{CC}'"),
]


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype("float32")


def external(mod: tvm.IRModule) -> dict[str, func.FuncOp]:
    return {
        f.sym_name.data: f
        for f in mod.xdsl.ops
        if isinstance(f, func.FuncOp) and f.attributes.get("compiler") is not None
    }


def host_ops(mod: tvm.IRModule) -> list[str]:
    """The relay ops left in @main (calls and constants aside)."""
    main = next(f for f in mod.xdsl.ops if isinstance(f, func.FuncOp) and f.sym_name.data == "main")
    return [
        op.name
        for op in main.body.block.ops
        if op.name.startswith("relay.") and op.name not in ("relay.const", "relay.param")
    ]


def interpret(mod: tvm.IRModule, params: dict[str, np.ndarray], inputs: dict) -> list[np.ndarray]:
    result = relay.create_executor(mod=mod, params=params).evaluate()(**inputs, **params)
    return [r.numpy() for r in (result if isinstance(result, tuple) else (result,))]


def graph_json(factory: object) -> list[dict]:
    """The JSON graphs of the build's dnnl functions, from `get_source()`."""
    source = factory.get_lib().imported_modules[0].get_source()  # type: ignore[attr-defined]
    graphs, text = [], ""
    for line in source.splitlines():
        if line.startswith("//"):
            continue
        text += line + "\n"
        if line.startswith(' "arg_nodes"'):
            graphs.append(json.loads(text))
            text = ""
    return graphs


def offload(
    body: Callable[..., relay.Expr],
    inputs: dict[str, tuple[int, ...]],
    params: dict[str, np.ndarray] | None = None,
    host: list[str] | None = None,
    simplify: bool = False,
    rtol: float = 1e-5,
) -> object:
    """Build `body(*vars)` partitioned for dnnl and compare with the relay interpreter; the
    ops left on the host must be `host` (default: none). Returns the factory."""
    params = params or {}
    variables = [relay.var(n, shape=s) for n, s in inputs.items()]
    variables += [relay.var(n, shape=v.shape) for n, v in params.items()]
    mod = tvm.IRModule.from_expr(relay.Function(variables, body(*variables)))
    partitioned = partition_for_dnnl(mod, params, simplify=simplify)
    assert host_ops(partitioned) == (host or [])
    assert external(partitioned)
    factory = relay.build(partitioned, target="llvm")
    values = {n: rand(*s) for n, s in inputs.items()}
    got = run_factory(factory, **values)
    expected = interpret(mod, params, values)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=rtol, atol=rtol * max(1.0, np.abs(e).max()))
    return factory


# ---------------------------------------------------------------------------------------------
# Op by op


@pytest.mark.parametrize(
    ("data", "weight", "attrs"),
    [
        ((1, 3, 9, 11), (8, 3, 3, 3), {"padding": (1, 1)}),
        ((2, 4, 10, 7), (6, 4, 3, 2), {"strides": (2, 1), "padding": (1, 0, 2, 1)}),
        ((1, 4, 8, 8), (6, 2, 3, 3), {"groups": 2, "padding": (1, 1)}),
        ((1, 8, 9, 9), (8, 1, 3, 3), {"groups": 8, "strides": (2, 2)}),
        ((1, 3, 12, 12), (4, 3, 3, 3), {"dilation": (2, 3), "padding": (2, 2)}),
        ((1, 16, 5, 5), (32, 16, 1, 1), {}),
    ],
    ids=["3x3", "strided-asymmetric", "groups", "depthwise", "dilated", "1x1"],
)
def test_conv2d(data: tuple, weight: tuple, attrs: dict) -> None:
    params = {"w": rand(*weight)}
    offload(lambda x, w: relay.nn.conv2d(x, w, **attrs), {"x": data}, params, rtol=1e-4)


@pytest.mark.parametrize("seed", range(6))
def test_random_conv2d_with_bias_and_activation(seed: int) -> None:
    """Random shapes, groups, strides, asymmetric padding and dilation, fused epilogues."""
    rng = np.random.default_rng(seed)
    groups = int(rng.choice([1, 2, 3]))
    cin, cout = groups * int(rng.integers(1, 4)), groups * int(rng.integers(1, 5))
    kh, kw = (int(k) for k in rng.integers(1, 4, size=2))
    dilation = tuple(int(d) for d in rng.integers(1, 3, size=2))
    strides = tuple(int(d) for d in rng.integers(1, 3, size=2))
    padding = tuple(int(p) for p in rng.integers(0, 3, size=4))
    h, w = (int(d) for d in rng.integers(6, 11, size=2))
    params = {"w": rand(cout, cin // groups, kh, kw), "b": rand(cout, 1, 1)}
    activation = [relay.nn.relu, relay.sigmoid, lambda x: relay.clip(x, -0.4, 0.9)][seed % 3]

    def body(x: relay.Expr, wt: relay.Expr, b: relay.Expr) -> relay.Expr:
        attrs = {"strides": strides, "padding": padding, "dilation": dilation, "groups": groups}
        return activation(relay.add(relay.nn.conv2d(x, wt, **attrs), b))

    factory = offload(body, {"x": (int(rng.integers(1, 3)), cin, h, w)}, params, rtol=1e-4)
    ((conv,),) = [[n for n in g["nodes"] if n["op"] == "kernel"] for g in graph_json(factory)]
    assert conv["attrs"]["bias"] and len(conv["attrs"]["post_ops"]) == 1


def test_conv2d_bias_relu_is_one_convolution() -> None:
    params = {"w": rand(8, 3, 3, 3), "b": rand(8)}

    def body(x: relay.Expr, w: relay.Expr, b: relay.Expr) -> relay.Expr:
        return relay.nn.relu(relay.nn.bias_add(relay.nn.conv2d(x, w, padding=(1, 1)), b))

    factory = offload(body, {"x": (1, 3, 7, 6)}, params, rtol=1e-4)
    ((conv, *rest),) = [[n for n in g["nodes"] if n["op"] == "kernel"] for g in graph_json(factory)]
    assert rest == []
    assert conv["name"] == "nn.conv2d" and conv["attrs"]["bias"] is True
    assert conv["attrs"]["post_ops"] == [{"op": "nn.relu"}]


def test_conv2d_residual_add_and_clip_are_post_ops() -> None:
    params = {"w": rand(4, 4, 3, 3), "s": rand(4, 1, 1)}

    def body(x: relay.Expr, y: relay.Expr, w: relay.Expr, s: relay.Expr) -> relay.Expr:
        c = relay.nn.conv2d(x, w, padding=(1, 1))
        return relay.clip(relay.multiply(relay.add(c, y), s), -0.5, 0.75)

    factory = offload(body, {"x": (1, 4, 6, 6), "y": (1, 4, 6, 6)}, params, rtol=1e-4)
    ((conv,),) = [[n for n in g["nodes"] if n["op"] == "kernel"] for g in graph_json(factory)]
    assert [p["op"] for p in conv["attrs"]["post_ops"]] == ["add", "multiply", "clip"]
    assert conv["attrs"]["post_ops"][1]["shape"] == [1, 4, 1, 1]


def test_residual_read_once_is_overwritten_in_place() -> None:
    """c1 is read only by the fused c2 + c1 -> relu: oneDNN's sum post-op writes over it."""
    params = {"w1": rand(8, 4, 3, 3), "w2": rand(8, 4, 1, 1)}

    def body(x: relay.Expr, w1: relay.Expr, w2: relay.Expr) -> relay.Expr:
        c1 = relay.nn.conv2d(x, w1, padding=(1, 1))
        c2 = relay.nn.conv2d(x, w2)
        return relay.nn.relu(relay.add(c2, c1))

    factory = offload(body, {"x": (1, 4, 7, 7)}, params, rtol=1e-4)
    ((first, second),) = [
        [n for n in g["nodes"] if n["op"] == "kernel"] for g in graph_json(factory)
    ]
    assert "post_ops" not in first["attrs"]
    assert [p["op"] for p in second["attrs"]["post_ops"]] == ["add", "nn.relu"]


def test_dense_with_bias_and_relu() -> None:
    params = {"w": rand(7, 12), "b": rand(7)}

    def body(x: relay.Expr, w: relay.Expr, b: relay.Expr) -> relay.Expr:
        return relay.nn.relu(relay.add(relay.nn.dense(x, w), b))

    factory = offload(body, {"x": (3, 12)}, params, rtol=1e-4)
    ((dense,),) = [[n for n in g["nodes"] if n["op"] == "kernel"] for g in graph_json(factory)]
    assert dense["attrs"] == {"bias": True, "post_ops": [{"op": "nn.relu"}]}


@pytest.mark.parametrize(("ta", "tb"), [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("constant_b", [False, True])
def test_matmul(ta: bool, tb: bool, constant_b: bool) -> None:
    a, b = (5, 3) if ta else (3, 5), (4, 5) if tb else (5, 4)
    params = {"b": rand(*b)} if constant_b else {}
    inputs = {"a": a} | ({} if constant_b else {"b": b})
    offload(lambda x, y: relay.nn.matmul(x, y, transpose_a=ta, transpose_b=tb), inputs, params)


@pytest.mark.parametrize(
    ("ta", "tb", "batch_b"), [(False, True, 2), (True, False, 2), (False, False, 1)]
)
def test_batch_matmul(ta: bool, tb: bool, batch_b: int) -> None:
    a = (2, 6, 3) if ta else (2, 3, 6)
    b = (batch_b, 4, 6) if tb else (batch_b, 6, 4)
    body = lambda x, y: relay.nn.batch_matmul(x, y, transpose_a=ta, transpose_b=tb)  # noqa: E731
    offload(body, {"a": a, "b": b})
    offload(body, {"a": a}, {"b": rand(*b)})


@pytest.mark.parametrize(
    "activation",
    [
        relay.nn.relu,
        lambda x: relay.nn.leaky_relu(x, 0.2),
        relay.tanh,
        relay.sigmoid,
        lambda x: relay.clip(x, -0.3, 0.6),
    ],
    ids=["relu", "leaky_relu", "tanh", "sigmoid", "clip"],
)
def test_eltwise(activation: Callable[[relay.Expr], relay.Expr]) -> None:
    offload(activation, {"x": (2, 3, 4, 5)})
    offload(activation, {"x": (7,)})


@pytest.mark.parametrize(
    ("op", "lhs", "rhs"),
    [
        (relay.add, (2, 3, 4, 5), (2, 3, 4, 5)),
        (relay.add, (2, 3, 4, 5), (3, 1, 1)),
        (relay.add, (1, 4), (3, 5, 4)),  # the broadcast operand first: swapped
        (relay.subtract, (4, 6), (6,)),
        (relay.multiply, (2, 3, 4), (2, 1, 4)),
        (relay.divide, (3, 4), (3, 4)),
        (relay.maximum, (5, 2), (1,)),
        (relay.minimum, (2, 2, 3), (2, 2, 3)),
    ],
)
def test_binary(op: Callable, lhs: tuple, rhs: tuple) -> None:
    offload(lambda a, b: relay.nn.relu(op(a, b)), {"a": lhs, "b": rhs})


def test_scalar_constant_operand() -> None:
    offload(lambda a: relay.multiply(relay.const(np.float32(0.5)), relay.tanh(a)), {"a": (2, 5)})


def test_subtract_of_broadcast_lhs_stays_on_the_host() -> None:
    offload(
        lambda a, b: relay.tanh(relay.subtract(a, b)),
        {"a": (4,), "b": (3, 4)},
        host=["relay.subtract"],
    )


@pytest.mark.parametrize(("center", "scale"), [(True, True), (False, True), (True, False)])
def test_batch_norm(center: bool, scale: bool) -> None:
    params = {"g": rand(3), "b": rand(3), "m": rand(3), "v": np.abs(rand(3)) + 0.5}

    def body(x: relay.Expr, g: relay.Expr, b: relay.Expr, m: relay.Expr, v: relay.Expr):
        out = relay.nn.batch_norm(x, g, b, m, v, epsilon=1e-3, center=center, scale=scale)
        return relay.Tuple([relay.nn.relu(out[0]), out[1]])

    offload(body, {"x": (2, 3, 5, 4)}, params, rtol=1e-4)


@pytest.mark.parametrize(
    ("pool", "attrs"),
    [
        (relay.nn.max_pool2d, {"pool_size": (3, 3), "strides": (2, 2), "padding": (1, 1)}),
        (relay.nn.max_pool2d, {"pool_size": (3, 3), "strides": (2, 2), "ceil_mode": True}),
        (relay.nn.max_pool2d, {"pool_size": (2, 2), "dilation": (2, 2)}),
        (relay.nn.avg_pool2d, {"pool_size": (3, 3), "padding": (1, 1)}),
        (relay.nn.avg_pool2d, {"pool_size": (3, 2), "padding": (1, 1), "count_include_pad": True}),
        (relay.nn.avg_pool2d, {"pool_size": (2, 2), "strides": (2, 2), "ceil_mode": True}),
    ],
    ids=["max", "max-ceil", "max-dilated", "avg", "avg-include-pad", "avg-ceil"],
)
def test_pool2d(pool: Callable, attrs: dict) -> None:
    offload(lambda x: pool(x, **attrs), {"x": (1, 3, 9, 8)})


def test_avg_pool_with_ceil_mode_counting_padding_stays_on_the_host() -> None:
    attrs = {"pool_size": (2, 2), "strides": (2, 2), "ceil_mode": True, "count_include_pad": True}
    offload(
        lambda x: relay.nn.relu(relay.nn.avg_pool2d(x, **attrs)),
        {"x": (1, 3, 9, 9)},
        host=["relay.nn.avg_pool2d"],
    )


def test_max_pool_with_a_window_in_the_padding_only_stays_on_the_host() -> None:
    # relay's maximum over padding only is -inf, oneDNN's the lowest float.
    attrs = {"pool_size": (2, 2), "padding": (2, 2)}
    offload(
        lambda x: relay.tanh(relay.nn.max_pool2d(x, **attrs)),
        {"x": (1, 2, 5, 5)},
        host=["relay.nn.max_pool2d"],
    )


@pytest.mark.parametrize("pool", [relay.nn.global_avg_pool2d, relay.nn.global_max_pool2d])
def test_global_pool2d(pool: Callable) -> None:
    offload(pool, {"x": (2, 5, 6, 7)})


@pytest.mark.parametrize(("shape", "axis"), [((3, 10), -1), ((2, 4, 3, 3), 1)])
def test_softmax(shape: tuple, axis: int) -> None:
    offload(lambda x: relay.nn.softmax(x, axis=axis), {"x": shape})


def test_concatenate_of_inputs_and_kernels() -> None:
    def body(a: relay.Expr, b: relay.Expr) -> relay.Expr:
        return relay.concatenate([relay.nn.relu(a), b, relay.tanh(a)], axis=1)

    offload(body, {"a": (1, 3, 4, 4), "b": (1, 2, 4, 4)})


# ---------------------------------------------------------------------------------------------
# Networks


def conv_bn_relu_net() -> tuple[tvm.IRModule, dict[str, np.ndarray]]:
    """Two conv-bn-relu blocks, a residual add, pooling, an unsupported flatten, a dense head."""
    x = relay.var("x", shape=(1, 4, 9, 11))
    names = ["w1", "g1", "b1", "m1", "v1", "w2", "dense_w"]
    shapes = [(8, 4, 3, 3), (8,), (8,), (8,), (8,), (8, 8, 3, 3), (5, 8)]
    ws = {n: relay.var(n, shape=s) for n, s in zip(names, shapes, strict=True)}
    y = relay.nn.conv2d(x, ws["w1"], padding=(1, 1))
    y = relay.nn.batch_norm(y, ws["g1"], ws["b1"], ws["m1"], ws["v1"])[0]
    y = relay.nn.relu(y)
    z = relay.nn.relu(relay.nn.conv2d(y, ws["w2"], padding=(1, 1))) + y
    h = relay.nn.batch_flatten(relay.nn.max_pool2d(z, pool_size=(9, 11)))
    out = relay.nn.dense(h, ws["dense_w"])
    mod = tvm.IRModule.from_expr(relay.Function([x, *ws.values()], out))
    params = {n: rand(*s) for n, s in zip(names, shapes, strict=True)}
    params["v1"] = np.abs(params["v1"]) + 0.5
    return mod, params


def test_conv_bn_relu_network_matches_the_llvm_build(tmp_path: Path) -> None:
    mod, params = conv_bn_relu_net()
    partitioned = partition_for_dnnl(mod, params)
    # batch_flatten is not oneDNN's: the host runs it between two dnnl functions.
    assert host_ops(partitioned) == ["relay.nn.batch_flatten"]
    assert len(external(partitioned)) == 2
    factory = relay.build(partitioned, target="llvm")
    x = rand(1, 4, 9, 11)
    (got,) = run_factory(factory, x=x)
    (cpu,) = run_factory(relay.build(mod, target="llvm", params=params), x=x)
    np.testing.assert_allclose(got, cpu, rtol=1e-4, atol=1e-4 * np.abs(cpu).max())
    # The batch norm folded into the first convolution: conv + bias + relu, then conv + relu +
    # residual add, then the pool.
    first = [n for n in graph_json(factory)[0]["nodes"] if n["op"] == "kernel"]
    assert [n["name"] for n in first] == ["nn.conv2d", "nn.conv2d", "nn.max_pool2d"]
    assert first[0]["attrs"]["bias"] and first[0]["attrs"]["post_ops"] == [{"op": "nn.relu"}]
    assert [p["op"] for p in first[1]["attrs"]["post_ops"]] == ["nn.relu", "add"]
    # An exported library embeds the weights and the runtime; it runs the same.
    path = tmp_path / "net.so"
    factory.export_library(path)
    (loaded,) = run_factory(load_factory(path), x=x)
    np.testing.assert_array_equal(loaded, got)


AOT_MAIN = r"""
#include <stdio.h>
#include "model.h"

int main(int argc, char **argv) {
  static float x[XTVM_MODEL_INPUT_0_SIZE], out[XTVM_MODEL_OUTPUT_0_SIZE];
  FILE *f = fopen(argv[1], "rb");
  if (argc != 3 || !f || fread(x, 1, sizeof x, f) != sizeof x) return 2;
  fclose(f);
  const void *inputs[] = {x};
  void *outputs[] = {out};
  if (xtvm_model_run(inputs, outputs) != 0) return 3;
  f = fopen(argv[2], "wb");
  if (!f || fwrite(out, 1, sizeof out, f) != sizeof out) return 4;
  fclose(f);
  return 0;
}
"""


def test_aot_c_program_runs_the_offloaded_network(tmp_path: Path) -> None:
    mod, params = conv_bn_relu_net()
    factory = relay.build(partition_for_dnnl(mod, params), target="llvm")
    export_aot(factory, tmp_path / "model.so")
    (tmp_path / "main.c").write_text(AOT_MAIN)
    subprocess.run(
        [CC, "-std=c99", "-O2", "-I", str(tmp_path), str(tmp_path / "main.c"), "-o",
         str(tmp_path / "main"), str(tmp_path / "model.so"), f"-Wl,-rpath,{tmp_path}"],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    x = rand(1, 4, 9, 11)
    x.tofile(tmp_path / "in.bin")
    command = [str(tmp_path / "main"), str(tmp_path / "in.bin"), str(tmp_path / "out.bin")]
    result = subprocess.run(command, capture_output=True, text=True, check=False, timeout=60)
    assert result.returncode == 0, result.stderr
    got = np.fromfile(tmp_path / "out.bin", dtype=np.float32)
    (expected,) = run_factory(factory, x=x)
    np.testing.assert_allclose(got, expected.ravel(), rtol=1e-5, atol=1e-5)


def test_thread_count_change_builds_the_graph_again() -> None:
    """oneDNN primitives keep the thread count they were created for; the runtime keeps one
    graph per count, so set_num_threads takes effect on the next call."""
    from xtvm.runtime.threads import num_threads, set_num_threads

    mod, params = conv_bn_relu_net()
    factory = relay.build(partition_for_dnnl(mod, params), target="llvm")
    x = rand(1, 4, 9, 11)
    try:
        set_num_threads(1)
        (one,) = run_factory(factory, x=x)
        set_num_threads(2)
        (two,) = run_factory(factory, x=x)
    finally:
        set_num_threads(num_threads())
    np.testing.assert_allclose(one, two, rtol=1e-5, atol=1e-5 * np.abs(one).max())


def light_model(name: str) -> tuple[tvm.IRModule, dict[str, np.ndarray], str, np.ndarray]:
    from xtvm.api.relay.frontend import from_onnx

    model, data, x = onnx_light_model(name, RNG, drop_softmax=True)
    mod, params = from_onnx(model)
    return mod, params, data, x


@pytest.mark.parametrize("name", ["squeezenet", pytest.param("resnet50", marks=pytest.mark.slow)])
def test_light_model_with_convolutions_offloaded(name: str) -> None:
    mod, params, data, x = light_model(name)
    partitioned = partition_for_dnnl(mod, params)
    left = host_ops(partitioned)
    assert "relay.nn.conv2d" not in left and "relay.nn.relu" not in left
    factory = relay.build(partitioned, target="llvm")
    (got,) = run_factory(factory, **{data: x})
    (cpu,) = run_factory(relay.build(mod, target="llvm", params=params), **{data: x})
    np.testing.assert_allclose(got, cpu, rtol=1e-3, atol=1e-4 * np.abs(cpu).max())


# ---------------------------------------------------------------------------------------------
# Predicates, errors


def test_unsupported_ops_and_layouts_stay_on_the_host() -> None:
    def body(x: relay.Expr, w: relay.Expr) -> relay.Expr:
        nhwc = relay.nn.conv2d(x, w, data_layout="NHWC", kernel_layout="HWIO")
        return relay.nn.relu(relay.exp(nhwc))

    offload(
        body, {"x": (1, 5, 5, 3)}, {"w": rand(3, 3, 3, 4)}, host=["relay.nn.conv2d", "relay.exp"]
    )


def test_codegen_refuses_an_unsupported_op() -> None:
    x = relay.var("x", shape=(2, 3))
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.exp(x)))
    main = next(f for f in mod.xdsl.ops if isinstance(f, func.FuncOp))
    with pytest.raises(DiagnosticError, match=r"'relay\.exp' op is not supported by the dnnl"):
        dnnl_codegen(main, "llvm")


def test_missing_onednn_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dnnl, "unavailable_reason", lambda: "oneDNN missing: install libdnnl-dev")
    x = relay.var("x", shape=(2, 3))
    mod = partition_for_dnnl(tvm.IRModule.from_expr(relay.Function([x], relay.nn.relu(x))))
    (function,) = external(mod).values()
    with pytest.raises(DnnlUnavailableError, match="libdnnl-dev"):
        dnnl_codegen(function, "llvm")


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> ctypes.CDLL:
    """The runtime alone, as a library called through ctypes."""
    path = tmp_path_factory.mktemp("dnnl") / "runtime.so"
    flags = ["-O2", "-fopenmp", "-shared", "-fPIC"]
    subprocess.run([CC, *flags, "-o", str(path), str(dnnl.RUNTIME_SOURCE), "-ldnnl"], check=True)
    library = ctypes.CDLL(str(path))
    library.xtvm_dnnl_last_error.restype = ctypes.c_char_p
    return library


def run_json(runtime: ctypes.CDLL, graph: dict | str, *arrays: np.ndarray, outputs: int = 1) -> str:
    """Run `graph` on `arrays` (inputs, then outputs); the error, "" on success."""
    handle = ctypes.c_void_p()
    pointers = [a.ctypes.data_as(ctypes.c_void_p) for a in arrays]
    n_in = len(arrays) - outputs
    ins = (ctypes.c_void_p * max(n_in, 1))(*pointers[:n_in])
    outs = (ctypes.c_void_p * outputs)(*pointers[n_in:])
    weights = ctypes.c_char_p(b"\0" * 64)
    text = (graph if isinstance(graph, str) else json.dumps(graph)).encode()
    status = runtime.xtvm_dnnl_run(ctypes.byref(handle), text, weights, ins, n_in, outs, outputs)
    runtime.xtvm_dnnl_release(ctypes.byref(handle))
    return "" if status == 0 else runtime.xtvm_dnnl_last_error().decode()


def kernel(name: str, inputs: list[int], shape: list[int], **attrs: object) -> dict:
    return {"op": "kernel", "name": name, "inputs": inputs, "shape": shape, "attrs": attrs}


def test_runtime_runs_a_json_graph_and_reports_errors(runtime: ctypes.CDLL) -> None:
    x, out = rand(2, 3), np.zeros((2, 3), np.float32)
    inp = {"op": "input", "name": "x", "shape": [2, 3], "dtype": "float32"}
    graph = {"nodes": [inp, kernel("nn.relu", [0], [2, 3])], "arg_nodes": [0], "heads": [1]}
    assert run_json(runtime, graph, x, out) == ""
    np.testing.assert_array_equal(out, np.maximum(x, 0))
    graph["nodes"][1]["name"] = "nn.gelu"
    assert run_json(runtime, graph, x, out) == "node 1 (nn.gelu): unsupported op 'nn.gelu'"
    # oneDNN's own refusal: a weight whose channels do not match the data's.
    w = {"op": "const", "name": "w", "shape": [1, 1, 1, 1], "offset": 0}
    x4 = {"op": "input", "name": "x", "shape": [1, 2, 3, 3], "dtype": "float32"}
    conv = kernel(
        "nn.conv2d",
        [0, 1],
        [1, 1, 3, 3],
        strides=[1, 1],
        padding=[0, 0, 0, 0],
        dilation=[1, 1],
        groups=1,
    )
    graph = {"nodes": [x4, w, conv], "arg_nodes": [0], "heads": [2]}
    error = run_json(runtime, graph, rand(1, 2, 3, 3), np.zeros((1, 1, 3, 3), np.float32))
    assert "node 2 (nn.conv2d)" in error
    assert "dnnl_dilated_convolution_forward_desc_init" in error and "invalid_arguments" in error
    assert run_json(runtime, '{"nodes": [}', x, out).startswith("graph JSON: unexpected character")


# ---------------------------------------------------------------------------------------------
# The weights file


def test_weights_file_is_reused_only_from_a_trusted_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file of the right name and size planted in the cache is replaced, not assembled in; an
    untrusted cache directory is not used at all."""
    root = tmp_path / "cache"
    monkeypatch.setenv("XTVM_CACHE_DIR", str(root))
    blob = bytes(range(256)) * 4
    path = dnnl.weights_file(blob)
    assert path.is_relative_to(root) and path.read_bytes() == blob
    path.write_bytes(b"\0" * len(blob))
    assert dnnl.weights_file(blob).read_bytes() == blob
    root.chmod(0o777)
    private = dnnl.weights_file(blob)
    assert not private.is_relative_to(root) and private.read_bytes() == blob
    assert private.parent.stat().st_mode & 0o077 == 0
