"""Where tuning could speed a whole model up: each kernel of its default build at 1 thread
(thread clock), with its FLOPs, bytes, share of its roofline and the time it would save at
85 % of it; never asserted.

A kernel's roofline time is the larger of FLOPs / FMA peak (one core's, measured as
`tuning.py` does) and bytes / memory bandwidth (one core's stream copy of 64 MiB, measured
here); bytes are its arguments' sizes (each read or written once: a lower bound). Headroom
is the sum over kernels of what exceeds 1/0.85 of its roofline time; the bound on a tuned
model is then total / (total - headroom). MODEL is a light model name or an .onnx file
(inputs from the .npz beside it, as `export_models.py` writes them).

    python benchmarks/kernel_headroom.py /tmp/full/mobilenetv3.dynamo.onnx --top 15
    python benchmarks/kernel_headroom.py resnet50 squeezenet

Measured on the shared 2-core machine (one core: FMA peak 257-269 GFLOP/s, stream copy
36-39 GB/s), median of 10 runs a kernel; kernels' ms at 1 thread, the bound = total / (total -
headroom):

    model (batch 1)                        kernels ms   GFLOP   headroom ms   bound
    mobilenetv3.dynamo (MobileNetV3-small)      0.94    0.13        0.14      1.17x
    efficientnet.dynamo (EfficientNet-B0)       6.39    0.80        1.69      1.36x
    convnext.dynamo (ConvNeXt-atto)             7.00    1.18        1.40      1.25x
    vit.dynamo (ViT-tiny)                      13.96    2.55        1.47      1.12x
    bert.dynamo (BERT-base, seq 128)          137.01   22.53       30.66      1.29x
    gpt2.dynamo (GPT-2 small, seq 64)          61.84   11.11        9.79      1.19x
    llama.dynamo (small Llama, seq 64)         37.40    6.36        6.97      1.23x
    shufflenet (onnx light, v1, 4 groups)       2.33    0.26        0.81      1.53x
    inception_v1 (onnx light)                  11.13    1.79        2.57      1.30x
    densenet121 (onnx light)                   22.61    4.22        2.78      1.14x
    resnet50 (onnx light)                      31.49    6.50        3.41      1.12x
    vgg19 (onnx light)                        103.97   11.49       36.48      1.54x

The bound overstates what schedules can recover where the roofline leaves work out:
- efficientnet: its largest headroom (1x1 conv2d with 16-32 input channels at 112x112 and
  56x56, 37-44 % of the peak) is in kernels whose SiLU epilogue (a vector exp and a division
  per output, counted as 3 FLOPs) costs about as much as their 16-24 FMAs per output.
- inception_v1: its two LRN kernels, `x / (...) ** 0.75`, took 3.07 ms (14.36 in all, bound
  1.64x) at 5-6 % of the memory roofline while the LLVM backend called libm's powf once per
  vector lane; with pow by a constant as square roots (backends/llvm/power.py) they take
  0.31 and 0.08 ms (35-47 % of it).
- vgg19: the headroom is in winograd kernels (34-58 % of the roofline of their FLOPs, the
  transforms counted), whose 224x224 and 112x112 layers stream transformed tiles 2.25x the
  input's size through memory. The template's transform knobs (`unroll_input`,
  `unroll_output`, `block_r`) reach that time: 1.13x on the kernels, 1.45x on the 224x224
  layer (`winograd_knobs.py`).
- bert: two thirds of its headroom (20.4 ms) was one kernel, the FFN's down-projection
  (128x3072 by 3072x768, bias and residual fused; 12 calls, 4.4 ms each) at 52 % of the
  peak, while the up-projection of the same FLOPs ran at 82 %. Measured again inside the
  model at a lower load (`autotvm_model.py --kernels`) it ran at 78 % (2.99 ms): its 9.4 MB
  of weights stream from memory on every call, and other processes' use of the memory bus
  slows it though the thread clock counts only this thread. The headroom of kernels that
  stream their weights is the load's, not the schedule's: with that run's in-model times
  (products at 78-86 % of the peak, kernels 111.2 ms) BERT's bound is about 1.06x.
- shufflenet: its group 1x1 conv2d (4 groups, 34-136 channels a group; about 1.5 of the
  2.3 ms) run at 50-59 % of the peak and its depthwise conv2d (with the channel shuffle
  fused into their input) at 35-76 % of the memory roofline: the headroom lies in kernels
  whose templates have the knobs (channel and column tile, rows, reduction blocks, whole
  planes), hence the model `autotvm_model.py` tunes for the goal.
"""

from __future__ import annotations

import os

os.environ.setdefault("XTVM_NUM_THREADS", "1")  # before xtvm starts any thread pool

import argparse
import time
from typing import Any

import numpy as np
from models import load_model
from tuning import fma_peak

from xtvm.runtime.profiling import kernel_seconds

EFFICIENCY = 0.85  # the share of its roofline a tuned kernel is taken to reach


def stream_bandwidth() -> float:
    """Bytes per second one core copies between two 64 MiB arrays (the fastest of 10)."""
    a = np.ones(1 << 24, np.float32)
    b = np.empty_like(a)
    times = []
    for _ in range(10):
        start = time.thread_time()
        np.copyto(b, a)
        times.append(time.thread_time() - start)
    return 2 * a.nbytes / min(times)


def kernel_flops(mod: Any, params: Any) -> dict[str, float]:
    """FLOPs of each kernel of `mod`'s default build, by kernel name."""
    from xtvm.driver.relay_build import lower_to_te
    from xtvm.tuning.auto_scheduler.compute_dag import ComputeDAG
    from xtvm.tuning.auto_scheduler.relay_integration import TracingEnvironment

    with TracingEnvironment(include_simple_tasks=True) as tracing:
        lower_to_te(mod, params, "llvm")
    flops = {}
    for key, tensors in tracing.tensors.items():
        flop = ComputeDAG(tensors).flop_ct
        for name in tracing.kernels[key]:
            flops[name] = flop
    return flops


def call_bytes(executor: Any) -> list[int]:
    """Bytes of the arguments of each kernel call of a graph executor, in call order."""
    graph = executor.graph
    nodes, row_ptr, entries = graph["nodes"], graph["node_row_ptr"], executor.entries
    sizes = []
    for nid, node in enumerate(nodes):
        if node["op"] != "tvm_op" or node["attrs"]["func_name"] not in executor.call_names:
            continue
        args = [entries[row_ptr[n] + i] for n, i, _ in node["inputs"]]
        args += entries[row_ptr[nid] : row_ptr[nid + 1]]
        sizes.append(sum(a.nbytes for a in args))
    return sizes


def report(name: str, runs: int, top: int, peak: float, bandwidth: float) -> None:
    import xtvm as tvm
    from xtvm import relay
    from xtvm.contrib import graph_executor

    mod, params, inputs = load_model(name)
    flops = kernel_flops(mod, params)
    factory = relay.build(mod, target="llvm", params=params)
    module = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    for key, value in inputs.items():
        module.set_input(key, value)
    executor = module._executor()
    seconds = kernel_seconds(executor, runs)
    sizes = call_bytes(executor)
    rows: dict[str, list[float]] = {}
    for kernel, t, size in zip(executor.call_names, seconds, sizes, strict=True):
        row = rows.setdefault(kernel, [0, 0.0, 0.0, 0.0])
        row[0] += 1
        row[1] += t
        row[2] += flops.get(kernel, 0.0)
        row[3] += size
    total = sum(seconds)
    headroom = 0.0
    table = []
    for kernel, (calls, t, flop, size) in rows.items():
        roof = max(flop / (peak * 1e9), size / bandwidth)
        saved = max(0.0, t - roof / EFFICIENCY)
        headroom += saved
        bound = "mem" if size / bandwidth > flop / (peak * 1e9) else "fma"
        table.append((saved, kernel, int(calls), t, flop, roof / t if t else 0.0, bound))
    table.sort(reverse=True)
    print(f"\n{name}: {len(seconds)} calls, kernels {total * 1e3:.3f} ms, "
          f"{sum(flops.get(k, 0) for k in executor.call_names) / 1e9:.2f} GFLOP; headroom at "
          f"{EFFICIENCY:.0%} of the roofline {headroom * 1e3:.3f} ms "
          f"(bound {total / max(total - headroom, 1e-12):.2f}x)")  # fmt: skip
    print(f"{'kernel':58} {'calls':>5} {'ms':>8} {'MFLOP':>8} {'roof':>5} {'by':>3} {'saved':>7}")
    for saved, kernel, calls, t, flop, share, bound in table[:top]:
        print(f"{kernel[:58]:58} {calls:5} {t * 1e3:8.3f} {flop / 1e6:8.1f} {share:5.0%} "
              f"{bound:>3} {saved * 1e3:7.3f}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="+", help="light model names or .onnx files")
    parser.add_argument("--runs", type=int, default=10, help="timed runs of every kernel")
    parser.add_argument("--top", type=int, default=12, help="kernels listed per model")
    options = parser.parse_args()
    peak = fma_peak("thread")
    bandwidth = stream_bandwidth()
    print(f"one core: FMA peak {peak:.1f} GFLOP/s, stream copy {bandwidth / 1e9:.1f} GB/s")
    for name in options.models:
        report(name, options.runs, options.top, peak, bandwidth)


if __name__ == "__main__":
    main()
