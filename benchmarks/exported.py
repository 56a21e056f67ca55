"""Models exported from PyTorch (`export_models.py`): xtvm against onnxruntime, side by side.

For each `.onnx` file of a directory (with the `.npz` of inputs `export_models.py` writes
beside it): ONNX import and `relay.build` seconds and peak build memory, then the median
latency of xtvm's graph executor and of onnxruntime at each thread count (interleaved at one
thread, as `models.py` does), their ratio (<= 1: xtvm as fast or faster), and the largest
difference of all outputs relative to the largest output. Each file runs in a fresh
subprocess; `--busy` keeps one core busy meanwhile.

Measured at 1 thread, median of 5 to 10 interleaved runs, on a shared 2-core machine (load
average 8 to 11, so only the ratios mean something), torch 2.14 / transformers 5.24 / timm 1.0
exports at `--size full`, xtvm / onnxruntime 1.32:

    bert.dynamo (BERT-base, seq 128)     0.79     bert.torchscript   0.98
    gpt2.dynamo (GPT-2 small, seq 64)    0.97     gpt2.torchscript   0.95
    vit.dynamo (ViT-tiny)                1.00     llama.dynamo       0.91-1.00
    convnext.dynamo (ConvNeXt-atto)      1.09-1.13
    efficientnet.dynamo (EfficientNet-B0)  0.86-1.16
    mobilenetv3.dynamo (MobileNetV3-small) 1.22
    lstm.dynamo (2 layers, bidirectional, 512 hidden, 64 steps)  0.99-1.43, 66 s to build
    (50 CPU seconds since tir-loop-partition keeps a worklist and passes verify once; 43-44
    since relay-fuse-ops stopped walking the whole function per merge and per group; 41 -> 18
    on a quiet machine since a loop partition keeps only the branch a segment takes and
    dead-code checks stop at the first effect). Quiet machine: 17.3 ms against onnxruntime's
    16.8 (1.03), of which the kernels are 14.3 ms: the rest is the executor's 1045 calls.
    Since run() makes them from one native table (runtime/call_list.py), interleaved in one
    process on the shared machine: 14.7-16.2 ms against 15.6-18.5 ms through the Python loop
    of ctypes calls (0.4-0.9 us a call), onnxruntime 16.1-19.9 (ratio 0.81-0.92, was 0.93-0.97).

All outputs within 2.1e-6 of onnxruntime's (relative to the largest).

Since relay-split-to-slices (GPT-2's Q/K/V split and the LSTM's gate splits fused into their
readers) and tir-serialize-parallel's costs of transcendentals and gathers (softmax, K's
transpose into heads now parallel), in one process against a build without them, thread-time
minimum of 15 runs at 1 thread, load 9-10 (outputs bit-identical): GPT-2 (torchscript) 58.6
-> 56.5 ms (onnxruntime 65.7), LSTM 14.0 -> 13.8 ms in 789 calls instead of 1045
(onnxruntime 14.7), ViT 13.1 and ConvNeXt 6.9 unchanged. At 2 threads the machine gave no
second core often enough to measure (per-kernel speed-ups of 1.0 even for 1 ms products).

Since weights of 1 MB or more are packed into column panels at compile time
(relay-alter-dense-layout), vector exp stopped underflowing through a microcode assist (a
causal mask's -3.4e38: Llama's softmax 107 -> 55 us), rotary keys transposed for Q.K^T run on
buffers (147 -> 15 us a layer) and the executor's buffers sit on transparent huge pages: in
one process, old and new libraries on the new runtime, thread-time median of 10-20 runs at 1
thread, load 3-8 (onnxruntime in brackets): small Llama 34.1 -> 30.6 ms (39.2; its kernels
31.9 -> 28.7 ms), BERT 116.4 -> 106.3 (135.2), GPT-2 58.9 -> 53.5 (68.4), ViT 13.5 -> 13.4
(15.5), LSTM 14.0 -> 13.7 (16.0); huge pages alone, one library: Llama 33.2-34.0 -> 32.3-33.2.
`relay.build`'s peak memory grows by the packed copies (Llama 56 -> 130 MiB, GPT-2 149 ->
366) while the caller keeps its params; `xtvm-compile`, which hands them over, stays at
664 MB for GPT-2 small.

Since the two directions of a bidirectional layer advance together (one nn.batch_matmul
of both per step, `frontends/onnx/recurrent.py`), the LSTM runs 399 kernel calls instead of
789 and builds in 6.2-7.0 s instead of 16.4-16.7. Quiet machine (load 0.8-1.5), runs of
this script alternating with a build of the tree before, xtvm / onnxruntime ms (ratio):
1 thread 13.7-14.8 / 15.5-16.1 (0.81-0.91), before 14.3-15.5 (0.78-0.96); 2 threads
7.56-8.86 / 9.27-10.71 (0.82-0.84 in four runs), before 8.62 and 9.87 (0.86, 1.01);
`--busy`, 2 threads 13.66 / 17.35 (0.79), before 14.51 / 16.99 (0.85). The product of both
directions runs 1.89x faster on 2 threads than on 1, the two separate ones 1.79x.

    python benchmarks/export_models.py /tmp/full --size full bert gpt2 --exporter dynamo
    python benchmarks/exported.py /tmp/full --threads 1 --repeat 5
    python benchmarks/exported.py /tmp/full bert.dynamo
    python benchmarks/exported.py /tmp/full gpt2.dynamo --kernels 15 --repeat 20

`--kernels N` also prints the N slowest kernels of each model at each thread count: every
call's fastest of `--repeat` runs (`profile(fastest=True)`), the thread counts taking turns
for five rounds, and the speed-up from the first count to the last, with the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from models import PeakRss, aligned, child_rows, interleaved_samples, latency_table, load_inputs


def measure(path: Path, repeat: int, threads: list[int], kernels: int = 0) -> dict[str, Any]:
    """All numbers for one exported model (run in its own process)."""
    import onnxruntime as ort

    import xtvm as tvm
    from xtvm import relay
    from xtvm.api.relay.frontend import from_onnx
    from xtvm.contrib import graph_executor
    from xtvm.runtime.threads import set_num_threads

    inputs = load_inputs(path)
    row: dict[str, Any] = {"model": path.stem, "MiB": path.stat().st_size / 2**20}
    start = time.perf_counter()
    mod, params = from_onnx(path)
    row["import_s"] = time.perf_counter() - start
    start = time.perf_counter()
    with PeakRss() as memory:
        factory = relay.build(mod, target="llvm", params=params)
    row["build_s"] = time.perf_counter() - start
    row["build_mib"] = memory.peak - memory.start
    module = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    for name, value in inputs.items():
        module.set_input(name, value)

    for count in threads:
        set_num_threads(count)
        options = ort.SessionOptions()
        options.intra_op_num_threads = count
        options.inter_op_num_threads = 1
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        ours, theirs = map(
            statistics.median,
            interleaved_samples(
                [module.run, lambda s=session: s.run(None, inputs)], repeat, interleave=count == 1
            ),
        )
        row[f"xtvm_{count}t_ms"], row[f"ort_{count}t_ms"] = 1e3 * ours, 1e3 * theirs
    if kernels:
        row["kernels"] = kernel_times(module, threads, repeat)
        row["load"] = os.getloadavg()[0]
    expected = session.run(None, inputs)
    module.run()
    got = [module.get_output(i).numpy() for i in range(len(expected))]
    if any(g.shape != e.shape for g, e in zip(got, expected, strict=True)):
        row["max_rel_diff"] = None
    else:
        scale = max(float(np.abs(e).max()) for e in expected) or 1.0
        diff = max(float(np.abs(g - e).max()) for g, e in zip(got, expected, strict=True))
        row["max_rel_diff"] = diff / scale
    return row


def kernel_times(module: Any, threads: list[int], runs: int, rounds: int = 5) -> list[Any]:
    """[kernel, calls, {threads: seconds per run}] for every kernel: each call's fastest run
    of `runs` (per round) and `rounds` rounds, the thread counts taking turns (so that a
    drifting load reaches every count alike)."""
    from xtvm.runtime.threads import set_num_threads

    executor = module._executor()
    best: dict[int, list[float]] = {n: [float("inf")] * len(executor.calls) for n in threads}
    for _ in range(rounds):
        for count in threads:
            set_num_threads(count)
            seconds = executor.profile(runs, fastest=True).seconds
            best[count] = [min(a, b) for a, b in zip(best[count], seconds, strict=True)]
    rows: dict[str, list[Any]] = {}
    for position, name in enumerate(executor.call_names):
        entry = rows.setdefault(name, [name, 0, dict.fromkeys(threads, 0.0)])
        entry[1] += 1
        for count in threads:
            entry[2][count] += best[count][position]
    return list(rows.values())


def kernel_table(row: dict[str, Any], threads: list[int], top: int) -> str:
    """The `top` kernels of `row` slowest at the last thread count, and the sum of all."""
    last, first = threads[-1], threads[0]
    kernels = sorted(row["kernels"], key=lambda k: -k[2][str(last)])
    header = ["kernel", "calls", *(f"{n}t ms" for n in threads), f"{first}t/{last}t"]
    lines = [header]
    for name, calls, seconds in kernels[:top]:
        times = [seconds[str(n)] for n in threads]
        lines.append([name[:60], str(calls), *(f"{1e3 * t:.3f}" for t in times), speedup(times)])
    totals = [sum(k[2][str(n)] for k in kernels) for n in threads]
    calls = sum(k[1] for k in kernels)
    lines.append(["all kernels", str(calls), *(f"{1e3 * t:.3f}" for t in totals), speedup(totals)])
    return f"{row['model']} (load {row['load']:.1f}):\n" + aligned(lines)


def speedup(times: list[float]) -> str:
    return f"{times[0] / times[-1]:.2f}" if times[-1] > 0 else "-"


def table(rows: list[dict[str, Any]], threads: list[int]) -> str:
    leading = [
        ("MiB", lambda r: f"{r['MiB']:.1f}"),
        ("import s", lambda r: f"{r['import_s']:.2f}"),
        ("build s", lambda r: f"{r['build_s']:.1f}"),
        ("build MiB", lambda r: f"{r['build_mib']:.0f}"),
    ]
    return latency_table(rows, "model", leading, threads)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("directory", type=Path, help="of .onnx files with their .npz inputs")
    parser.add_argument("models", nargs="*", help="file names without .onnx (default: all)")
    parser.add_argument("--repeat", type=int, default=10, help="timed runs per measurement")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2], help="thread counts")
    parser.add_argument("--busy", action="store_true", help="keep one core busy meanwhile")
    parser.add_argument("--kernels", type=int, default=0, help="print the N slowest kernels")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # child process: print one JSON row
    args = parser.parse_intermixed_args()
    if args.one:
        row = measure(args.directory / args.one, args.repeat, args.threads, args.kernels)
        print(json.dumps(row))
        return 0
    names = args.models or sorted(p.stem for p in args.directory.glob("*.onnx"))
    missing = [n for n in names if not (args.directory / f"{n}.onnx").is_file()]
    if missing or not names:
        parser.error(f"no such model in {args.directory}: {', '.join(missing) or 'none at all'}")
    options = ["--repeat", str(args.repeat), "--threads", *map(str, args.threads)]
    options += ["--kernels", str(args.kernels)]
    commands = [
        (
            [sys.executable, __file__, str(args.directory), "--one", f"{name}.onnx", *options],
            {"model": name},
        )
        for name in names
    ]
    rows = child_rows(commands, args.busy)
    print(table(rows, args.threads))
    for row in rows:
        if row.get("kernels"):
            print()
            print(kernel_table(row, args.threads, args.kernels))
    return 0


if __name__ == "__main__":
    sys.exit(main())
