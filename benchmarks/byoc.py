"""BYOC: light model-zoo models with oneDNN offload (the dnnl codegen) against the all-LLVM build.

Per model and thread count, in a fresh process (OMP_NUM_THREADS and XTVM_NUM_THREADS set, so
that oneDNN's primitives are created for that many threads): `relay.build` time of both
builds, the first dnnl run (oneDNN creates its primitives then), median latency of each with
the graph executor (runs of the two interleaved, so that both see the same load), their ratio
(LLVM / dnnl: above 1 means oneDNN is faster), the fastest run of each, and the largest
absolute difference of the outputs. A final Softmax is cut off so that logits are compared.

    python benchmarks/byoc.py                      # light_resnet50, 1 and 2 threads
    python benchmarks/byoc.py squeezenet resnet50 --repeat 5
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

sys.path.insert(0, str(Path(__file__).parent))
from models import THREADS, aligned, child_row, interleaved_samples, light_model


def measure(name: str, threads: int, repeat: int) -> dict[str, Any]:
    """Both builds of one model at one thread count (run in its own process)."""
    import xtvm as tvm
    from xtvm import relay
    from xtvm.api.relay.frontend import from_onnx
    from xtvm.api.relay.op.contrib.dnnl import partition_for_dnnl
    from xtvm.backends.external.dnnl import unavailable_reason
    from xtvm.contrib import graph_executor

    row: dict[str, Any] = {"model": name, "threads": threads}
    if unavailable_reason():
        row["error"] = unavailable_reason()
        return row
    model, data, x = light_model(name)
    mod, params = from_onnx(model)

    start = time.perf_counter()
    llvm = relay.build(mod, target="llvm", params=params)
    row["llvm_build_s"] = time.perf_counter() - start
    start = time.perf_counter()
    partitioned = partition_for_dnnl(mod, params)
    dnnl = relay.build(partitioned, target="llvm")
    row["dnnl_build_s"] = time.perf_counter() - start
    row["dnnl_functions"] = len(dnnl.get_lib().imported_modules[0].signatures)

    modules = {}
    for kind, factory in (("llvm", llvm), ("dnnl", dnnl)):
        modules[kind] = graph_executor.GraphModule(factory["default"](tvm.cpu()))
        modules[kind].set_input(data, x)
    start = time.perf_counter()
    modules["dnnl"].run()  # oneDNN builds its primitives on the first call
    row["dnnl_first_ms"] = 1e3 * (time.perf_counter() - start)
    # Interleaved, so that both see the same load from whatever else runs on the machine.
    samples = interleaved_samples([m.run for m in modules.values()], repeat)
    for kind, seconds in zip(modules, samples, strict=True):
        row[f"{kind}_ms"] = 1e3 * statistics.median(seconds)
        row[f"{kind}_min_ms"] = 1e3 * min(seconds)
    outputs = {kind: m.get_output(0).numpy() for kind, m in modules.items()}
    row["max_abs_diff"] = float(np.abs(outputs["dnnl"] - outputs["llvm"]).max())
    row["max_abs_out"] = float(np.abs(outputs["llvm"]).max())
    return row


def table(rows: list[dict[str, Any]]) -> str:
    head = ["model", "thr", "llvm build s", "dnnl build s", "dnnl 1st ms", "llvm ms", "dnnl ms"]
    head += ["llvm/dnnl", "min llvm/dnnl", "max|diff|", "max|out|"]
    lines = [head]
    for r in rows:
        if "error" in r:
            lines.append([r["model"], str(r["threads"]), f"error: {r['error']}"])
            continue
        lines.append(
            [
                r["model"],
                str(r["threads"]),
                f"{r['llvm_build_s']:.1f}",
                f"{r['dnnl_build_s']:.1f}",
                f"{r['dnnl_first_ms']:.1f}",
                f"{r['llvm_ms']:.2f}",
                f"{r['dnnl_ms']:.2f}",
                f"{r['llvm_ms'] / r['dnnl_ms']:.2f}",
                f"{r['llvm_min_ms']:.2f}/{r['dnnl_min_ms']:.2f}",
                f"{r['max_abs_diff']:.2e}",
                f"{r['max_abs_out']:.2e}",
            ]
        )
    return aligned(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="*", default=["resnet50"], help="light model names")
    parser.add_argument("--repeat", type=int, default=10, help="timed runs per measurement")
    parser.add_argument("--threads", type=int, nargs="*", default=list(THREADS))
    parser.add_argument("--one", help=argparse.SUPPRESS)  # child process: print one JSON row
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.threads[0], args.repeat)))
        return 0
    rows = []
    for name in args.models:
        for threads in args.threads:
            env = os.environ | {"OMP_NUM_THREADS": str(threads), "XTVM_NUM_THREADS": str(threads)}
            command = [sys.executable, __file__, "--one", name, "--threads", str(threads)]
            command += ["--repeat", str(args.repeat)]
            row = child_row(command, {"model": name, "threads": threads}, env=env)
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
