"""Helpers for the RPC tests: the kernel libraries every server is tested with, the checks
that run them (and a small CNN) in a remote session against numpy, and raw connections for
sending what the client never would (tests/rpc/test_rpc.py for the Python and
the native device server, tests/rpc/test_device.py for the emulated devices)."""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import xtvm as tvm
from xtvm import te
from xtvm.rpc.protocol import MAGIC, PREFIX, Limits, receive
from xtvm.testing.passes import CTX

# A library whose kernel dereferences NULL: it must end only its own session. It carries the
# packed entry the C device runtime calls (xtvm/backends/packed.py).
CRASHING_LIBRARY = r"""
#include <stdint.h>
typedef union { int64_t v_int64; double v_float64; void *v_handle; } xtvm_value;
const char *xtvm_module_metadata =
    "{\"crash\": [{\"name\": \"a\", \"dtype\": \"float32\", \"shape\": [4]}], \"#status\": []}";
void crash(float *a) { a[0] = *(volatile float *)0; }
int32_t xtvm_packed_crash(const xtvm_value *v, const int32_t *codes, int32_t count) {
  (void)codes; (void)count; crash((float *)v[0].v_handle); return 0;
}
"""

# Scalars of every kind the C ABIs pass differently: float and double (float registers),
# int32 and int8 (sign extension), int64 (a register pair on 32-bit arm).
SCALARS = """
func.func @axpby(%X: memref<?xf32>, %Y: memref<?xf32>, %alpha: f32, %beta: f64, %k: i32,
                 %b: i8, %big: i64) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %X, %c0 : memref<?xf32>
  %bf = arith.truncf %beta : f64 to f32
  %kf = arith.sitofp %k : i32 to f32
  %bb = arith.sitofp %b : i8 to f32
  %shift = arith.constant 40 : i64
  %high = arith.shrsi %big, %shift : i64
  %hf = arith.sitofp %high : i64 to f32
  tir.for %i = %c0 to %n serial {
    %x = memref.load %X[%i] : memref<?xf32>
    %ax = arith.mulf %x, %alpha : f32
    %s = arith.addf %ax, %bf : f32
    %t = arith.addf %s, %kf : f32
    %u = arith.addf %t, %bb : f32
    %v = arith.addf %u, %hf : f32
    memref.store %v, %Y[%i] : memref<?xf32>
  }
  func.return
}
"""
WIDE_TERMS = 24  # buffers and float weights interleaved: 24 * 2 + 2 + 25 dims > 64 words


def wide_kernel(terms: int = WIDE_TERMS) -> str:
    """`wide(X0, w0, X1, w1, ..., Y, bias)`: Y = sum_k w_k * X_k + bias, each X_k of its own
    dynamic length (an int64 each after the parameters), so a call has over 64 values."""
    params = ", ".join(f"%X{k}: memref<?xf32>, %w{k}: f32" for k in range(terms))
    body = [f"    %a{k} = memref.load %X{k}[%i] : memref<?xf32>" for k in range(terms)]
    total = "%bias32"
    for k in range(terms):
        body.append(f"    %m{k} = arith.mulf %a{k}, %w{k} : f32")
        body.append(f"    %s{k} = arith.addf {total}, %m{k} : f32")
        total = f"%s{k}"
    return "\n".join(
        [
            f"func.func @wide({params}, %Y: memref<?xf32>, %bias: f64) {{",
            "  %c0 = arith.constant 0 : index",
            "  %n = memref.dim %Y, %c0 : memref<?xf32>",
            "  %bias32 = arith.truncf %bias : f64 to f32",
            "  tir.for %i = %c0 to %n serial {",
            *body,
            f"    memref.store {total}, %Y[%i] : memref<?xf32>",
            "  }",
            "  func.return",
            "}",
        ]
    )


def write_kernel_libraries(
    directory: Path, target: str = "llvm", linker: Callable[..., object] | None = None
) -> Path:
    """`add.so` (1-d, dynamic length), `matmul.so` (16x24 @ 24x8), `scalars.so` (`axpby`)
    and `wide.so` in `directory`, built for `target` and linked by `linker`."""
    n = te.var("n")
    a = te.placeholder((n,), name="A")
    b = te.placeholder((n,), name="B")
    c = te.compute((n,), lambda i: a[i] + b[i], name="C")
    x = te.placeholder((16, 24), name="X")
    w = te.placeholder((24, 8), name="W")
    k = te.reduce_axis((0, 24), name="k")
    y = te.compute((16, 8), lambda i, j: te.sum(x[i, k] * w[k, j], axis=k), name="Y")
    libraries: dict[str, Any] = {
        "add": tvm.build(te.create_schedule(c.op), [a, b, c], target, name="add"),
        "matmul": tvm.build(te.create_schedule(y.op), [x, w, y], target, name="matmul"),
        "scalars": tvm.build(CTX.parse(SCALARS, "scalars.mlir"), target=target),
        "wide": tvm.build(CTX.parse(wide_kernel(), "wide.mlir"), target=target),
    }
    for name, library in libraries.items():
        library.export_library(directory / f"{name}.so", linker)
    return directory


def check_kernels(remote: Any, directory: Path, rng: np.random.Generator) -> None:
    """Upload `add.so` and `matmul.so` of `directory`, run and time them remotely; compare
    with numpy."""
    for name in ("add.so", "matmul.so"):
        remote.upload(directory / name)
    add = remote.load_module("add.so")
    matmul = remote.load_module("matmul.so")
    assert add.functions == ["add"] and matmul.functions == ["matmul"]
    dev = remote.cpu(0)
    x = rng.standard_normal(1000).astype("float32")
    y = rng.standard_normal(1000).astype("float32")
    a, b = tvm.nd.array(x, dev), tvm.nd.array(y, dev)
    c = tvm.nd.empty((1000,), "float32", dev)
    add["add"](a, b, c)
    np.testing.assert_allclose(c.numpy(), x + y, rtol=1e-6)
    p = rng.standard_normal((16, 24)).astype("float32")
    q = rng.standard_normal((24, 8)).astype("float32")
    out = tvm.nd.empty((16, 8), "float32", dev)
    matmul["matmul"](tvm.nd.array(p, dev), tvm.nd.array(q, dev), out)
    np.testing.assert_allclose(out.numpy(), p @ q, rtol=1e-4, atol=1e-5)
    timing = add.time_evaluator("add", dev, number=20, repeat=3)(a, b, c)
    assert len(timing.results) == 3 and 0 < timing.mean < 0.01


def check_scalar_kernels(remote: Any, directory: Path, rng: np.random.Generator) -> None:
    """Run `axpby` (float, double and integer scalars) and `wide` (over 64 argument values,
    float weights among the buffers) of `directory` remotely; compare with numpy."""
    for name in ("scalars.so", "wide.so"):
        remote.upload(directory / name)
    dev = remote.cpu(0)
    axpby = remote.load_module("scalars.so")["axpby"]
    x = rng.standard_normal(37).astype("float32")
    out = tvm.nd.empty((37,), "float32", dev)
    axpby(tvm.nd.array(x, dev), out, 2.5, 0.25, -3, 7, 5 << 40)
    np.testing.assert_allclose(out.numpy(), x * 2.5 + 0.25 - 3 + 7 + 5, rtol=1e-6, atol=1e-6)
    axpby(tvm.nd.array(x, dev), out, -1, 1e300 * 0, 2**31 - 1, -128, -(1 << 62))
    np.testing.assert_allclose(out.numpy(), -x + 2**31 - 1 - 128 - (1 << 22), rtol=1e-6)
    axpby(tvm.nd.array(x, dev), out, 1.0, -np.inf, 0, 0, 0)  # non-finite floats travel by name
    np.testing.assert_array_equal(out.numpy(), np.full(37, -np.inf, "float32"))
    axpby(tvm.nd.array(x, dev), out, np.float32("nan"), 0.0, 0, 0, 0)
    assert np.isnan(out.numpy()).all()
    wide = remote.load_module("wide.so")["wide"]
    xs = [rng.standard_normal(9).astype("float32") for _ in range(WIDE_TERMS)]
    weights = [float(k) - 10.5 for k in range(WIDE_TERMS)]
    args: list[Any] = []
    for values, weight in zip(xs, weights, strict=True):
        args += [tvm.nd.array(values, dev), weight]
    y = tvm.nd.empty((9,), "float32", dev)
    wide(*args, y, 0.5)
    expected = sum(w * v for w, v in zip(weights, xs, strict=True)) + 0.5
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-5, atol=1e-4)
    timing = remote.load_module("wide.so").time_evaluator("wide", dev, number=2)(*args, y, 0.5)
    assert timing.mean > 0


def small_cnn(rng: np.random.Generator) -> tuple[Any, dict[str, np.ndarray]]:
    """A relay CNN on a 1x3x12x12 `data` (conv, bias, relu, pool, dense, softmax) and its
    weights."""
    from xtvm import relay

    x = relay.var("data", shape=(1, 3, 12, 12))
    w1 = relay.var("w1", shape=(6, 3, 3, 3))
    b1 = relay.var("b1", shape=(6,))
    dense_w = relay.var("dense_w", shape=(5, 6))
    y = relay.nn.bias_add(relay.nn.conv2d(x, w1, padding=(1, 1)), b1)
    y = relay.nn.max_pool2d(relay.nn.relu(y), pool_size=(2, 2), strides=(2, 2))
    y = relay.nn.batch_flatten(relay.nn.global_avg_pool2d(y))
    out = relay.nn.softmax(relay.nn.dense(y, dense_w))
    mod = tvm.IRModule.from_expr(relay.Function([x, w1, b1, dense_w], out))
    shapes = {"w1": (6, 3, 3, 3), "b1": (6,), "dense_w": (5, 6)}
    params = {n: rng.standard_normal(s).astype("float32") for n, s in shapes.items()}
    return mod, params


def check_buffer_views(
    module: Any, reference: Callable[[np.ndarray], np.ndarray], rng: np.random.Generator
) -> None:
    """`get_output` and `get_input` of a graph module refer to the executor's buffers, as
    TVM's do: an output taken before a run shows that run's result, and values written into
    `get_input("data")` are what the next run reads (`data` must have been set once)."""
    shape = module.get_input_info()[0]["data"]
    data = rng.standard_normal(shape).astype("float32")
    out = module.get_output(0)
    module.get_input("data").copyfrom(data)
    module.run()
    np.testing.assert_allclose(out.numpy(), reference(data), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(module.get_input("data").numpy(), data)


def frame(header: bytes, body: bytes = b"") -> bytes:
    """A message of raw `header` bytes (well-formed JSON or not) and `body`."""
    return PREFIX.pack(MAGIC, len(header), len(body)) + header + body


def raw_session(port: int, key: str, seconds: float = 60) -> socket.socket:
    """A connection past the handshake, for sending what the client never would (waiting
    while the server is at its session limit: ended sessions take a moment to exit, longer
    under emulation on a loaded machine)."""
    deadline = time.monotonic() + seconds
    while True:
        sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        sock.sendall(frame(b'{"kind":"hello","version":1,"key":"%s"}' % key.encode()))
        reply = receive(sock, Limits())
        assert reply is not None
        if reply[0]["kind"] == "hello":
            return sock
        sock.close()
        assert "busy" in str(reply[0]) and time.monotonic() < deadline, reply[0]
        time.sleep(0.2)


def ends_with_error(sock: socket.socket, pattern: str) -> None:
    """The server answers a fatal `error` matching `pattern`, then closes the connection."""
    reply = receive(sock, Limits())
    assert reply is not None and reply[0]["kind"] == "error" and reply[0]["fatal"]
    assert re.search(pattern, reply[0]["message"]), reply[0]["message"]
    try:  # (reset where the server left bytes unread)
        assert receive(sock, Limits()) is None
    except ConnectionResetError:
        pass
    sock.close()
