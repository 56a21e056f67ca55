"""Threads: xtvm against onnxruntime at 1 thread, 2 threads, and 2 threads with a core taken.

Per workload (each in a fresh subprocess): median latency of xtvm's graph executor and of
onnxruntime at 1 thread (interleaved), at 2 threads, and at 2 threads while a busy loop holds
one core (another process on a shared machine: a thread pool that waits for a descheduled
thread collapses), with the ratio xtvm / onnxruntime of each (<= 1: xtvm as fast or faster)
and the largest difference of the outputs relative to the largest output.

Workloads: MobileNetV2 and MobileNetV3-small (`mobile.py`), a BERT layer (seq 128,
`transformer_layers.py`) and light ResNet-50 (`models.py`).

`--calibrate WORKLOAD` measures where threads pay off: it builds the workload with every
parallel loop kept parallel and with every one serial, times each kernel (2 threads against
1) and prints them by their estimated work (`tir-serialize-parallel`'s ops), the numbers
its `MIN_PARALLEL_WORK` comes from.

    python benchmarks/threads.py                         # all workloads, 20 runs each
    python benchmarks/threads.py mobilenet_v2 --repeat 10
    python benchmarks/threads.py --calibrate mobilenet_v2
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import onnx
from mobile import WORKLOADS as MOBILE
from models import (
    aligned,
    busy_core,
    child_rows,
    interleaved_samples,
    light_model,
    max_rel_diff,
)
from transformer_layers import WORKLOADS as TRANSFORMERS

Workload = Callable[[], tuple[onnx.ModelProto, str, np.ndarray]]
CONDITIONS = ("1t", "2t", "2t+busy")


def random_input(build: Callable[[], tuple[onnx.ModelProto, list[int]]]) -> Workload:
    """A builder of (model, input name, input) from one of (model, input shape)."""

    def workload() -> tuple[onnx.ModelProto, str, np.ndarray]:
        model, shape = build()
        return model, "x", np.random.default_rng(1).standard_normal(shape).astype(np.float32)

    return workload


WORKLOADS: dict[str, Workload] = {
    "mobilenet_v2": random_input(MOBILE["mobilenet_v2"]),
    "mobilenet_v3_small": random_input(MOBILE["mobilenet_v3_small"]),
    "bert_layer": random_input(TRANSFORMERS["bert_layer"]),
    "resnet50": lambda: light_model("resnet50"),
}


def build(model: onnx.ModelProto) -> Any:
    """`relay.build` of `model` as a graph module."""
    import xtvm as tvm
    from xtvm import relay
    from xtvm.api.relay.frontend import from_onnx
    from xtvm.contrib import graph_executor

    mod, params = from_onnx(model)
    factory = relay.build(mod, target="llvm", params=params)
    return graph_executor.GraphModule(factory["default"](tvm.cpu()))


def measure(name: str, repeat: int) -> dict[str, Any]:
    """All numbers for workload `name` (run in its own process)."""
    import onnxruntime as ort

    from xtvm.runtime.threads import set_num_threads

    model, data, x = WORKLOADS[name]()
    row: dict[str, Any] = {"workload": name}
    start = time.perf_counter()
    module = build(model)
    row["build_s"] = time.perf_counter() - start
    module.set_input(data, x)
    serialized = model.SerializeToString()
    for condition in CONDITIONS:
        threads = int(condition[0])
        set_num_threads(threads)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        session = ort.InferenceSession(serialized, options, providers=["CPUExecutionProvider"])
        spinner = busy_core() if condition.endswith("busy") else None
        try:
            samples = interleaved_samples(
                [module.run, lambda s=session: s.run(None, {data: x})],
                repeat,
                interleave=threads == 1,
            )
        finally:
            if spinner is not None:
                spinner.kill()
                spinner.wait()
        ours, theirs = map(statistics.median, samples)
        row[f"xtvm_{condition}_ms"], row[f"ort_{condition}_ms"] = 1e3 * ours, 1e3 * theirs
    expected = session.run(None, {data: x})[0]
    module.run()
    got = module.get_output(0).numpy()
    row["max_rel_diff"] = max_rel_diff(got, expected)
    return row


def table(rows: list[dict[str, Any]]) -> str:
    head = ["workload", "build s"]
    for c in CONDITIONS:
        head += [f"xtvm {c} ms", f"ort {c} ms", f"ratio {c}"]
    lines = [[*head, "max rel diff"]]
    for r in rows:
        if "error" in r:
            lines.append([r["workload"], f"error: {r['error']}"])
            continue
        line = [r["workload"], f"{r['build_s']:.1f}"]
        for c in CONDITIONS:
            ours, theirs = r[f"xtvm_{c}_ms"], r[f"ort_{c}_ms"]
            line += [f"{ours:.2f}", f"{theirs:.2f}", f"{ours / theirs:.2f}"]
        diff = r["max_rel_diff"]
        lines.append([*line, "shape!" if diff is None else f"{diff:.1e}"])
    return aligned(lines)


def kernel_work(model: onnx.ModelProto) -> dict[str, float]:
    """The estimated work (ops) of each kernel's largest parallel loop, all kept parallel."""
    from xdsl.dialects import func

    from xtvm.api.relay.frontend import from_onnx
    from xtvm.driver.relay_build import lower_for_build
    from xtvm.passes import tir_serialize_parallel as serialize

    mod, params = from_onnx(model)
    _, kernels = lower_for_build(mod, params)
    return {
        f.sym_name.data: max(map(serialize.parallel_work, serialize.outermost_parallel(f)))
        for f in kernels.ops
        if isinstance(f, func.FuncOp) and serialize.outermost_parallel(f)
    }


def calibrate(name: str, runs: int) -> str:
    """Per kernel with a parallel loop: its work and its time serial at 1 thread and
    parallel at 2 threads (each kernel timed inside its graph, `runs` runs)."""
    from xtvm.passes import tir_serialize_parallel as serialize
    from xtvm.runtime.threads import set_num_threads

    model, data, x = WORKLOADS[name]()
    serialize.MIN_PARALLEL_WORK = 0
    work = kernel_work(model)
    times = {}
    for label, min_work, threads in (("serial", float("inf"), 1), ("parallel", 0, 2)):
        serialize.MIN_PARALLEL_WORK = min_work
        module = build(model)
        module.set_input(data, x)
        set_num_threads(threads)
        profile = module.module.profile(runs)
        times[label] = {kernel: s / calls for kernel, calls, s in profile.by_kernel()}
    lines = [["kernel", "work (ops)", "serial 1t us", "parallel 2t us", "speed-up"]]
    for kernel, ops in sorted(work.items(), key=lambda item: item[1]):
        one, two = times["serial"][kernel], times["parallel"][kernel]
        lines.append(
            [kernel, f"{ops:.0f}", f"{1e6 * one:.1f}", f"{1e6 * two:.1f}", f"{one / two:.2f}"]
        )
    return aligned(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("workloads", nargs="*", default=list(WORKLOADS), help="of the above")
    parser.add_argument("--repeat", type=int, default=20, help="timed runs per measurement")
    parser.add_argument("--calibrate", choices=list(WORKLOADS), help="per-kernel thresholds")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # child process: print one JSON row
    args = parser.parse_args()
    if args.calibrate:
        print(calibrate(args.calibrate, args.repeat))
        return 0
    if args.one:
        print(json.dumps(measure(args.one, args.repeat)))
        return 0
    unknown = sorted(set(args.workloads) - set(WORKLOADS))
    if unknown:
        parser.error(f"unknown workload(s) {', '.join(unknown)} (of {', '.join(WORKLOADS)})")
    commands = [
        (
            [sys.executable, __file__, "--one", name, "--repeat", str(args.repeat)],
            {"workload": name},
        )
        for name in args.workloads
    ]
    print(table(child_rows(commands, busy=False)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
