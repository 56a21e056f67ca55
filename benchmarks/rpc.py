"""RPC over loopback: round-trip latency and array-transfer throughput.

A server on 127.0.0.1 (a fresh port) and one session. Latency: the median of N round trips of
the smallest request (copying a 4-byte array back), of a kernel call on 1024 floats, and of
the kernel's remote time (time_evaluator, which excludes the network) for reference; the
same request through a LocalSession (same handler, no socket) shows the protocol's own cost.
Throughput: upload to (`tvm.nd.array(x, dev)`) and download from (`.numpy()`) the server of
arrays of 1 KiB up to --max-mib (x16 a step), in MiB/s, beside numpy's in-process copy.

    python benchmarks/rpc.py
    python benchmarks/rpc.py --rounds 2000 --max-mib 64
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import xtvm as tvm
from xtvm import rpc, te


def median_seconds(call: Callable[[], object], rounds: int) -> float:
    call()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def best_seconds(call: Callable[[], object], rounds: int) -> float:
    call()
    return min(median_seconds(call, 1) for _ in range(rounds))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000, help="round trips per latency row")
    parser.add_argument("--max-mib", type=int, default=256, help="largest array, MiB")
    args = parser.parse_args()

    a = te.placeholder((1024,), name="A")
    c = te.compute((1024,), lambda i: a[i] * 2.0, name="C")
    kernel = tvm.build(te.create_schedule(c.op), [a, c], "llvm", name="scale")
    with tempfile.TemporaryDirectory() as tmp, rpc.Server(port=0) as server:
        path = Path(tmp) / "scale.so"
        kernel.export_library(path)
        remote = rpc.connect("127.0.0.1", server.port)
        local = rpc.LocalSession()
        print(f"{'latency (median of ' + str(args.rounds) + ')':<40} {'server':>12} {'local':>12}")
        rows = {}
        for name, session in (("server", remote), ("local", local)):
            session.upload(path)
            scale = session.load_module("scale.so")["scale"]
            dev = session.cpu(0)
            tiny = tvm.nd.array(np.zeros(1, "float32"), dev)
            x = tvm.nd.array(np.ones(1024, "float32"), dev)
            y = tvm.nd.empty((1024,), "float32", dev)
            remote_time = session.load_module("scale.so").time_evaluator("scale", dev, number=1000)(
                x, y
            )
            rows[name] = (
                median_seconds(tiny.numpy, args.rounds),
                median_seconds(lambda f=scale, x=x, y=y: f(x, y), args.rounds),
                remote_time.mean,
            )
        labels = ("copy 4 bytes back (.numpy())", "kernel call, 1024 floats", "kernel alone")
        for i, label in enumerate(labels):
            print(
                f"{label:<40} {rows['server'][i] * 1e6:>10.1f}us {rows['local'][i] * 1e6:>10.1f}us"
            )

        print()
        print(f"{'array size':>12} {'upload MiB/s':>14} {'download MiB/s':>15} {'numpy copy':>12}")
        dev = remote.cpu(0)
        size = 1024
        while size <= args.max_mib << 20:
            values = np.random.default_rng(0).standard_normal(size // 4).astype("float32")
            rounds = max(3, min(200, (64 << 20) // size))
            # Each upload's array is freed with the next request (one small message more).
            up = best_seconds(lambda v=values: tvm.nd.array(v, dev), rounds)
            array = tvm.nd.array(values, dev)
            down = best_seconds(array.numpy, rounds)
            copy = best_seconds(values.copy, rounds)
            mib = size / (1 << 20)
            label = f"{size >> 10} KiB" if size < 1 << 20 else f"{size >> 20} MiB"
            print(f"{label:>12} {mib / up:>14.0f} {mib / down:>15.0f} {mib / copy:>12.0f}")
            size *= 16
        remote.close()
        local.close()


if __name__ == "__main__":
    main()
