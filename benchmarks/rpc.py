"""RPC over loopback: round-trip latency, upload and array-transfer throughput, for the Python
server, the C device server (`xtvm-rpc-device`) native and emulated under qemu-user, and a
LocalSession.

Each server runs on 127.0.0.1 (a fresh port) with one session. Latency: the median of N round
trips of the smallest request (copying a 4-byte array back), of a kernel call on 1024 floats,
and of the kernel's remote time (time_evaluator, which excludes the network) for reference; a
LocalSession (same handler as the Python server, no socket) shows the protocol's own cost.
Throughput: uploading a file (`remote.upload`), then arrays to (`tvm.nd.array(x, dev)`) and
from (`.numpy()`) the server, 1 KiB up to --max-mib (x16 a step), in MiB/s, beside numpy's
in-process copy. An emulated architecture is left out where its cross compiler or qemu is
missing.

    python benchmarks/rpc.py
    python benchmarks/rpc.py --rounds 2000 --max-mib 64 --emulate aarch64,riscv64,armv7
"""

from __future__ import annotations

import argparse
import contextlib
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

import xtvm as tvm
from xtvm import rpc, te
from xtvm.contrib import cc
from xtvm.rpc.device import build_device_server

# name: (gcc triple, LLVM triple, qemu)
EMULATED = {
    "aarch64": ("aarch64-linux-gnu", "aarch64-linux-gnu", "qemu-aarch64"),
    "riscv64": ("riscv64-linux-gnu", "riscv64-linux-gnu", "qemu-riscv64"),
    "armv7": ("arm-linux-gnueabihf", "armv7l-linux-gnueabihf", "qemu-arm"),
}


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


@contextlib.contextmanager
def device_server(command: list[str]) -> Iterator[rpc.RPCSession]:
    """A session with a device server started by `command` (on a free port)."""
    process = subprocess.Popen([*command, "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        port = int(re.search(r":(\d+)", process.stdout.readline()).group(1))  # type: ignore[union-attr]
        with rpc.connect("127.0.0.1", port) as session:
            yield session
    finally:
        process.terminate()
        process.wait()


def scale_library(directory: Path, name: str, target: str, compiler: str | None) -> Path:
    a = te.placeholder((1024,), name="A")
    c = te.compute((1024,), lambda i: a[i] * 2.0, name="C")
    kernel = tvm.build(te.create_schedule(c.op), [a, c], target, name="scale")
    path = directory / name / "scale.so"
    path.parent.mkdir()
    kernel.export_library(path, cc.cross_compiler(compiler) if compiler else None)
    return path


def latency(session: rpc.RPCSession, library: Path, rounds: int) -> tuple[float, float, float]:
    session.upload(library)
    module = session.load_module(library.name)
    scale = module["scale"]
    dev = session.cpu(0)
    tiny = tvm.nd.array(np.zeros(1, "float32"), dev)
    x = tvm.nd.array(np.ones(1024, "float32"), dev)
    y = tvm.nd.empty((1024,), "float32", dev)
    alone = module.time_evaluator("scale", dev, number=1000)(x, y).mean
    return median_seconds(tiny.numpy, rounds), median_seconds(lambda: scale(x, y), rounds), alone


def throughput(session: rpc.RPCSession, size: int) -> tuple[float, float, float]:
    """Upload, array upload and array download of `size` bytes: MiB/s each."""
    dev = session.cpu(0)
    values = np.random.default_rng(0).standard_normal(size // 4).astype("float32")
    blob = values.tobytes()
    rounds = max(3, min(100, (32 << 20) // size))
    file_up = best_seconds(lambda: session.upload(blob, "blob.bin"), rounds)
    # Each upload's array is freed with the next request (one small message more).
    up = best_seconds(lambda: tvm.nd.array(values, dev), rounds)
    array = tvm.nd.array(values, dev)
    down = best_seconds(array.numpy, rounds)
    mib = size / (1 << 20)
    return mib / file_up, mib / up, mib / down


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000, help="round trips per latency row")
    parser.add_argument("--max-mib", type=int, default=256, help="largest array, MiB")
    parser.add_argument(
        "--emulate", default="aarch64,riscv64", help="device servers to run under qemu-user"
    )
    args = parser.parse_args()

    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        host_library = scale_library(tmp, "host", "llvm", None)
        python_server = stack.enter_context(rpc.Server(port=0))
        native = build_device_server(tmp / "xtvm-rpc-device")
        sessions: dict[str, tuple[rpc.RPCSession, Path]] = {
            "python": (
                stack.enter_context(rpc.connect("127.0.0.1", python_server.port)),
                host_library,
            ),
            "device": (stack.enter_context(device_server([str(native)])), host_library),
        }
        for name in [n for n in args.emulate.split(",") if n]:
            triple, llvm_triple, qemu = EMULATED[name]
            if shutil.which(f"{triple}-gcc") is None or shutil.which(qemu) is None:
                print(f"({name}: no {triple}-gcc or {qemu}, left out)")
                continue
            binary = build_device_server(tmp / f"xtvm-rpc-device-{name}", triple)
            command = [qemu, "-L", f"/usr/{triple}", str(binary)]
            library = scale_library(tmp, name, f"llvm -mtriple={llvm_triple}", f"{triple}-gcc")
            sessions[f"qemu-{name}"] = (stack.enter_context(device_server(command)), library)
        sessions["local"] = (stack.enter_context(rpc.LocalSession()), host_library)

        names = list(sessions)
        print(f"{'latency (median of ' + str(args.rounds) + ')':<32}", end="")
        print("".join(f"{n:>14}" for n in names))
        rows = {n: latency(s, lib, args.rounds) for n, (s, lib) in sessions.items()}
        labels = ("copy 4 bytes back (.numpy())", "kernel call, 1024 floats", "kernel alone")
        for i, label in enumerate(labels):
            print(f"{label:<32}" + "".join(f"{rows[n][i] * 1e6:>12.2f}us" for n in names))

        print()
        remote = [n for n in names if n != "local"]
        print("throughput, MiB/s: upload / array upload / array download")
        print(f"{'size':>8}" + "".join(f"{n:>22}" for n in remote) + f"{'numpy copy':>12}")
        size = 1024
        while size <= args.max_mib << 20:
            label = f"{size >> 10} KiB" if size < 1 << 20 else f"{size >> 20} MiB"
            cells = []
            for name in remote:
                up, array_up, down = throughput(sessions[name][0], size)
                cells.append(f"{up:>6.0f}/{array_up:>6.0f}/{down:>6.0f}")
            values = np.zeros(size // 4, "float32")
            copy = best_seconds(values.copy, max(3, min(100, (32 << 20) // size)))
            print(
                f"{label:>8}" + "".join(f"{c:>22}" for c in cells)
                + f"{size / (1 << 20) / copy:>12.0f}"
            )  # fmt: skip
            size *= 16


if __name__ == "__main__":
    main()
