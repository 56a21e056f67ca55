"""Whole transformer models through `xtvm-compile`: compile seconds and peak memory.

BERT-base (12 encoder layers at seq 128 with word, position and token-type embeddings: 110M
parameters) and GPT-2 small (12 decoder layers at seq 64, token and position embeddings, the
vocabulary projection tied to the token embedding through a Transpose: 124M parameters), built
with onnx.helper and random weights (`transformers.py`'s layers). Per model: the bytes of the
ONNX initializers, then `xtvm-compile model.onnx -o model.so` (and `--emit aot`) in a child
process: wall seconds (inside the tool's `main`), CPU seconds of the process and of the
compiler and linker it runs (wall time on a busy shared machine is several times that), its
peak resident set (`VmHWM`) and the peak as a multiple of the weights, and the library's size.
`--check` also runs the library once (through `tvm.runtime.load_module`, or the AOT entry
point) and compares it with onnxruntime; `--stages` runs the tool's steps in a fresh process
and prints seconds and peak memory after each (where the time goes).

    python benchmarks/compile_big.py                     # both models, library only
    python benchmarks/compile_big.py bert_base --aot --check
    python benchmarks/compile_big.py gpt2_small --stages
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from models import aligned
from onnx import TensorProto, helper
from transformer_layers import HIDDEN, VOCABULARY, Graph

BERT_VOCABULARY, BERT_POSITIONS, BERT_SEQ, GPT2_POSITIONS, GPT2_SEQ = 30522, 512, 128, 1024, 64


def ids_model(g: Graph, y: str, seq: int, out: list[int]) -> onnx.ModelProto:
    graph = helper.make_graph(
        g.nodes,
        "transformer",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, seq])],
        [helper.make_tensor_value_info(y, TensorProto.FLOAT, out)],
        g.initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def positions(g: Graph, table: str, seq: int) -> str:
    """Rows 0..seq-1 of a position-embedding table."""
    return g.op("Gather", table, g.const(np.arange(seq, dtype=np.int64)[None], "positions"))


def bert_base() -> onnx.ModelProto:
    g = Graph()
    words = g.op("Gather", g.weight(BERT_VOCABULARY, HIDDEN, scale=0.02), "input_ids")
    position = positions(g, g.weight(BERT_POSITIONS, HIDDEN, scale=0.02), BERT_SEQ)
    zeros = g.const(np.zeros((1, BERT_SEQ), np.int64))
    token_type = g.op("Gather", g.weight(2, HIDDEN, scale=0.02), zeros)
    y = g.layer_norm(g.op("Add", g.op("Add", words, position), token_type))
    for _ in range(12):
        y = g.bert_layer(y, BERT_SEQ)
    return ids_model(g, y, BERT_SEQ, [1, BERT_SEQ, HIDDEN])


def gpt2_small() -> onnx.ModelProto:
    g = Graph()
    tokens = g.weight(VOCABULARY, HIDDEN, scale=0.02)
    y = g.op("Gather", tokens, "input_ids")
    y = g.op("Add", y, positions(g, g.weight(GPT2_POSITIONS, HIDDEN, scale=0.01), GPT2_SEQ))
    for _ in range(12):
        y = g.gpt2_layer(y, GPT2_SEQ)
    logits = g.op("MatMul", g.layer_norm(y), g.op("Transpose", tokens, perm=[1, 0]))
    return ids_model(g, logits, GPT2_SEQ, [1, GPT2_SEQ, VOCABULARY])


MODELS: dict[str, tuple[Callable[[], onnx.ModelProto], int]] = {
    "bert_base": (bert_base, BERT_SEQ),
    "gpt2_small": (gpt2_small, GPT2_SEQ),
}


def weight_bytes(model: onnx.ModelProto) -> int:
    return sum(len(t.raw_data) for t in model.graph.initializer)


def peak_mib() -> float:
    """This process's peak resident set (`VmHWM`: unlike `ru_maxrss`, not inherited from the
    process that forked it, which holds the model)."""
    status = Path("/proc/self/status").read_text()
    return int(next(ln for ln in status.splitlines() if ln.startswith("VmHWM:")).split()[1]) / 1024


def compile_child(model_path: Path, output: Path, emit: str) -> dict[str, Any]:
    """Run xtvm-compile in a child process whose own peak resident set is reported."""
    code = (
        "import resource, sys, time\n"
        "from xtvm.tools.compile import main\n"
        "start = time.perf_counter()\n"
        "rc = main(sys.argv[1:])\n"
        "seconds = time.perf_counter() - start\n"
        "from compile_big import peak_mib\n"
        "cpu = sum(getattr(resource.getrusage(w), f) for w in (resource.RUSAGE_SELF, "
        "resource.RUSAGE_CHILDREN) for f in ('ru_utime', 'ru_stime'))\n"
        "print('XTVM-COMPILE', rc, seconds, int(peak_mib() * 2**20), cpu)\n"
    )
    args = [str(model_path), "-o", str(output), "--emit", emit]
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).parent,
    )
    wall = time.perf_counter() - start
    line = next((ln for ln in result.stdout.splitlines() if ln.startswith("XTVM-COMPILE")), None)
    if result.returncode or line is None:
        return {"error": (result.stderr.strip().splitlines() or ["?"])[-1]}
    _, _, seconds, peak, cpu = line.split()
    return {
        "process_s": wall,
        "compile_s": float(seconds),
        "cpu_s": float(cpu),
        "peak_bytes": int(peak),
    }


def check(library: Path, model: onnx.ModelProto, seq: int, aot: bool) -> float:
    """Largest difference of the library's output from onnxruntime's, relative to its max."""
    import onnxruntime as ort

    ids = np.random.default_rng(1).integers(0, 1000, (1, seq), dtype=np.int64)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (expected,) = session.run(None, {"input_ids": ids})
    if aot:
        import ctypes

        lib = ctypes.CDLL(str(library))
        got = np.empty_like(expected)
        inputs = (ctypes.c_void_p * 1)(ids.ctypes.data)
        outputs = (ctypes.c_void_p * 1)(got.ctypes.data)
        assert lib.xtvm_model_run(inputs, outputs) == 0
    else:
        import xtvm as tvm
        from xtvm.contrib import graph_executor

        lib = tvm.runtime.load_module(str(library))
        module = graph_executor.GraphModule(lib["default"](tvm.cpu()))
        module.set_input("input_ids", ids)
        module.run()
        got = module.get_output(0).numpy()
    return float(np.abs(got - expected).max() / np.abs(expected).max())


def stages(model_path: Path, output: Path) -> None:
    """The tool's steps in this process (a fresh one), with seconds and peak memory after each."""
    from xtvm.driver.relay_build import build
    from xtvm.frontends.onnx import import_onnx

    rows = [["step", "seconds", "peak MiB"]]
    start = time.perf_counter()

    def step(name: str) -> None:
        nonlocal start
        rows.append([name, f"{time.perf_counter() - start:.2f}", f"{peak_mib():.0f}"])
        start = time.perf_counter()

    step("(start)")
    module, params = import_onnx(model_path)
    step("import_onnx")
    factory = build(module, "llvm -opt-level=3", params)
    step("relay.build")
    factory.export_library(output)
    step("export_library")
    print(aligned(rows))


def measure(name: str, args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    make, seq = MODELS[name]
    model = make()
    path = tmp / f"{name}.onnx"
    onnx.save(model, path)
    row: dict[str, Any] = {"model": name, "weight_bytes": weight_bytes(model)}
    if args.stages:
        command = [sys.executable, __file__, "--stages-of", str(path)]
        subprocess.run(command, check=False)
        return row
    for emit in ("library", *(["aot"] if args.aot else [])):
        output = tmp / f"{name}.{emit}.so"
        row[emit] = compile_child(path, output, emit)
        if "error" in row[emit]:
            continue
        row[emit]["library_bytes"] = output.stat().st_size
        if args.check:
            row[emit]["max_rel_diff"] = check(output, model, seq, emit == "aot")
        output.unlink()
    return row


def table(rows: list[dict[str, Any]]) -> str:
    lines = [["model", "emit", "weights MB", "compile s", "cpu s", "peak MB", "peak/weights"]]
    lines[0] += ["lib MB", "diff"]
    for row in rows:
        weights = row["weight_bytes"]
        for emit in ("library", "aot"):
            r = row.get(emit)
            if r is None:
                continue
            if "error" in r:
                lines.append([row["model"], emit, f"error: {r['error']}"])
                continue
            diff = r.get("max_rel_diff")
            lines.append(
                [
                    row["model"],
                    emit,
                    f"{weights / 1e6:.0f}",
                    f"{r['compile_s']:.1f}",
                    f"{r['cpu_s']:.1f}",
                    f"{r['peak_bytes'] / 1e6:.0f}",
                    f"{r['peak_bytes'] / weights:.2f}",
                    f"{r['library_bytes'] / 1e6:.0f}",
                    "-" if diff is None else f"{diff:.1e}",
                ]
            )
    return aligned(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="*", default=list(MODELS), help="of the above")
    parser.add_argument("--aot", action="store_true", help="also compile with --emit aot")
    parser.add_argument("--check", action="store_true", help="run the library against ORT")
    parser.add_argument("--stages", action="store_true", help="time the tool's steps")
    parser.add_argument("--stages-of", help=argparse.SUPPRESS)  # child: the steps of a model
    args = parser.parse_args()
    if args.stages_of:
        stages(Path(args.stages_of), Path(args.stages_of).with_suffix(".so"))
        return 0
    os.environ.setdefault("XTVM_CACHE_DIR", tempfile.mkdtemp(prefix="xtvm-cache-"))
    rows = []
    with tempfile.TemporaryDirectory(prefix="xtvm-big-") as tmp:
        for name in args.models:
            rows.append(measure(name, args, Path(tmp)))
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    if not args.stages:
        print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
