"""CUDA benchmarks: relay.build(target="cuda") with the default GPU schedules, on a GPU.

- fp32 matmul 4096^3 (relay nn.matmul, the shared-memory tiled default schedule) against
  cuBLAS through cupy or torch (whichever imports; TF32 off, so both are plain fp32), as
  GFLOP/s and the ratio xtvm / cuBLAS;
- the elementwise chain add -> relu -> multiply on 64M floats (one fused kernel): achieved
  memory bandwidth (bytes read and written over the time) against the device's peak (from the
  driver's memory clock and bus width).

Medians of repeated runs, each synchronised; the first run (PTX compilation) is not timed.
Where no CUDA GPU exists (`tvm.cuda(0).exist` is False) it says so and exits 0.

    python benchmarks/cuda.py [--n 4096] [--elements 67108864] [--repeat 10]

NVIDIA H200 (driver 580, CUDA 13.0), torch 2.11's cuBLAS at 49.5-50.6 TFLOP/s:

    matmul 4096^3, sums through the output buffer per k step of 32 (16x16 threads of 4x4)
        18.6 TFLOP/s, 7.37 ms (cuBLAS takes 0.38x the time)
    registers accumulate an 8x8 tile over all of k (shared tiles relaxed over the block's
    threads, k steps of 8, padded shared rows)
        27.8 TFLOP/s, 4.94 ms (cuBLAS 0.56x); dense (weights [n, k]) 25.1 TFLOP/s
    add -> relu -> multiply, 64M floats: 3.65 TB/s of 4.81 (76 %)

A sweep of the module's knobs (xtvm.topi.schedule_cuda) gave 22.7-30.1 TFLOP/s, the best
unrolling each step's k loop with two blocks an SM (registers capped at 128, some spilled);
without padded shared rows 18.3 (matmul) and 9.8 (dense). Double buffering the global loads
is the next step.
"""

from __future__ import annotations

import argparse
import ctypes
import statistics
import time
from collections.abc import Callable

import numpy as np

import xtvm as tvm
from xtvm import relay
from xtvm.contrib import graph_executor

RNG = np.random.default_rng(0)


def median_seconds(call: Callable[[], object], repeat: int) -> float:
    call()  # warm-up: PTX compiled and loaded, buffers touched
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def xtvm_runner(fn: relay.Function, inputs: dict[str, np.ndarray]) -> Callable[[], object]:
    """relay.build for cuda; `run()` launches every kernel and synchronises."""
    factory = relay.build(tvm.IRModule.from_expr(fn), target="cuda")
    module = graph_executor.GraphModule(factory["default"](tvm.cuda(0)))
    module.set_input(**inputs)
    return module.run


def cublas_matmul(a: np.ndarray, b: np.ndarray) -> tuple[str, Callable[[], object]] | None:
    """cuBLAS SGEMM through cupy or torch, synchronised; None when neither imports."""
    try:
        import cupy

        da, db = cupy.asarray(a), cupy.asarray(b)

        def run_cupy() -> object:
            out = da @ db
            cupy.cuda.Device().synchronize()
            return out

        return "cuBLAS (cupy)", run_cupy
    except ImportError:
        pass
    try:
        import torch

        torch.backends.cuda.matmul.allow_tf32 = False
        ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()

        def run_torch() -> object:
            out = ta @ tb
            torch.cuda.synchronize()
            return out

        return "cuBLAS (torch)", run_torch
    except ImportError:
        return None


def peak_bandwidth() -> float:
    """Bytes/s the device's memory moves at most: 2 transfers a clock x bus width."""
    from xtvm.runtime.cuda import require

    lib = require(0)
    clock_khz, bus_bits = ctypes.c_int(), ctypes.c_int()
    lib.cuDeviceGetAttribute(ctypes.byref(clock_khz), 36, 0)  # MEMORY_CLOCK_RATE
    lib.cuDeviceGetAttribute(ctypes.byref(bus_bits), 37, 0)  # GLOBAL_MEMORY_BUS_WIDTH
    return 2 * clock_khz.value * 1e3 * bus_bits.value / 8


def device_name() -> str:
    from xtvm.runtime.cuda import require

    lib = require(0)
    name = ctypes.create_string_buffer(256)
    lib.cuDeviceGetName(name, 256, 0)
    return name.value.decode()


def matmul_row(n: int, repeat: int) -> None:
    a, b = RNG.standard_normal((n, n), "float32"), RNG.standard_normal((n, n), "float32")
    x, y = relay.var("a", shape=(n, n)), relay.var("b", shape=(n, n))
    ours = median_seconds(
        xtvm_runner(relay.Function([x, y], relay.nn.matmul(x, y)), {"a": a, "b": b}), repeat
    )
    flops = 2 * n**3
    print(
        f"matmul {n}^3 fp32, xtvm default schedule: {ours * 1e3:9.3f} ms "
        f"{flops / ours / 1e9:9.1f} GFLOP/s"
    )
    peer = cublas_matmul(a, b)
    if peer is None:
        print("  cuBLAS: skipped (neither cupy nor torch imports)")
        return
    name, call = peer
    theirs = median_seconds(call, repeat)
    print(
        f"  {name}: {theirs * 1e3:9.3f} ms {flops / theirs / 1e9:9.1f} GFLOP/s;"
        f" xtvm / cuBLAS time: {ours / theirs:.2f}"
    )


def elementwise_row(elements: int, repeat: int) -> None:
    shape = (elements // 1024, 1024)
    p, q, r = (RNG.standard_normal(shape, "float32") for _ in range(3))
    u, v, w = (relay.var(k, shape=shape) for k in "pqr")
    chain = relay.multiply(relay.nn.relu(relay.add(u, v)), w)
    ours = median_seconds(
        xtvm_runner(relay.Function([u, v, w], chain), {"p": p, "q": q, "r": r}), repeat
    )
    moved = 4 * p.nbytes  # three tensors read, one written
    peak = peak_bandwidth()
    print(
        f"add -> relu -> multiply on {elements} floats: {ours * 1e3:9.3f} ms "
        f"{moved / ours / 1e9:8.1f} GB/s of {peak / 1e9:.0f} GB/s peak "
        f"({moved / ours / peak:.0%})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=4096)
    parser.add_argument("--elements", type=int, default=64 * 1024 * 1024)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    if not tvm.cuda(0).exist:
        print("cuda benchmark skipped: no CUDA GPU here (tvm.cuda(0).exist is False)")
        return
    print(f"device: {device_name()}")
    matmul_row(args.n, args.repeat)
    elementwise_row(args.elements, args.repeat)


if __name__ == "__main__":
    main()
