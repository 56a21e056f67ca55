"""ONNX light model-zoo models (batch 1, random weights): xtvm against onnxruntime.

Per model: ONNX import time, `relay.build` time and peak memory (the highest resident set
sampled during the build less the one before it), then median latency of xtvm's graph
executor and of onnxruntime (interleaved at one thread), with 1 and 2 threads (`set_num_threads` /
`intra_op_num_threads`), their ratio, and the largest absolute difference of the outputs. A
final Softmax is cut off so that logits are compared (random weights saturate the softmax to
one-hot). Each model runs in a fresh subprocess; a build over `--compile-limit` s is skipped.
`--busy` keeps a busy loop running on one core meanwhile (another process holding a core, as
on a shared machine: thread pools that spin while waiting for a descheduled thread collapse).

    python benchmarks/models.py                      # the six models, 10 runs each
    python benchmarks/models.py squeezenet --repeat 5
    python benchmarks/models.py resnet50 --busy      # with one core taken
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import onnx

from xtvm.testing.onnx_models import light_model as onnx_light_model

MODELS = ["resnet50", "squeezenet", "inception_v1", "shufflenet", "densenet121", "vgg19"]
THREADS = (1, 2)


def interleaved_samples(
    fns: list[Callable[[], Any]],
    repeat: int,
    interleave: bool = True,
    clock: Callable[[], float] = time.perf_counter,
) -> list[list[float]]:
    """`repeat` wall times of each of `fns` (after one warm-up call each); with `clock=
    time.thread_time`, the calling thread's CPU times (at one thread: what other processes'
    load does not change).

    With `interleave`, the calls run in blocks of about 0.1 s of each function in turn: on a
    shared machine whose load drifts, both sides of a ratio see the same conditions instead
    of one running in a quiet spell and the other in a busy one. Otherwise each function runs
    all its calls in one block (runtimes with thread pools: a pool woken by the other side's
    blocks slowed both sides down several times over, even after a pause). Each block starts
    after a pause and an uncounted call.
    """
    block = max(1, min(int(0.1 / max(warm_up(fn), 1e-6)) for fn in fns)) if interleave else repeat
    times: list[list[float]] = [[] for _ in fns]
    while len(times[0]) < repeat:
        for fn, samples in zip(fns, times, strict=True):
            time.sleep(0.3)
            fn()
            for _ in range(min(block, repeat - len(samples))):
                start = clock()
                fn()
                samples.append(clock() - start)
    return times


def warm_up(fn: Callable[[], Any]) -> float:
    """Call `fn` once; the seconds it took."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def rss_mib() -> float:
    """The process's current resident set."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


class PeakRss:
    """Samples the resident set every `interval` seconds while in the `with` block."""

    def __init__(self, interval: float = 0.005) -> None:
        self.interval = interval
        self.peak = 0.0
        self._stop = threading.Event()

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, rss_mib())
            time.sleep(self.interval)

    def __enter__(self) -> PeakRss:
        self.start = rss_mib()
        self.peak = self.start
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss_mib())


def graph_module(factory: Any, value: np.ndarray, name: str) -> Any:
    """A CPU graph executor of `relay.build`'s `factory`, with input `name` set to `value`."""
    import xtvm as tvm
    from xtvm.contrib import graph_executor

    module = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    module.set_input(name, value)
    return module


def light_model(name: str) -> tuple[onnx.ModelProto, str, np.ndarray]:
    """Light model `name` with random weights and no final Softmax, its data input's name and
    a random value for it."""
    return onnx_light_model(name, np.random.default_rng(1), drop_softmax=True)


def load_model(name: str) -> tuple[Any, dict[str, Any], dict[str, np.ndarray]]:
    """A relay module, its params and its graph inputs: an .onnx file with the inputs of the
    .npz beside it (as `export_models.py` writes them), or a light model by name."""
    from pathlib import Path

    from xtvm.api.relay.frontend import from_onnx

    if not name.endswith(".onnx"):
        model, data, x = light_model(name)
        mod, params = from_onnx(model, {data: x.shape})
        return mod, params, {data: x}
    path = Path(name)
    if not path.is_file() or not path.with_suffix(".npz").is_file():
        raise SystemExit(f"{name}: no such .onnx file with a .npz of its inputs beside it")
    mod, params = from_onnx(path)
    return mod, params, load_inputs(path)


def load_inputs(path: Any) -> dict[str, np.ndarray]:
    """The graph inputs stored beside the .onnx file `path` (numpy arrays only, no pickles)."""
    with np.load(path.with_suffix(".npz"), allow_pickle=False) as arrays:
        return {k.removeprefix("in__"): arrays[k] for k in arrays.files if k.startswith("in__")}


def child_row(command: list[str], row: dict[str, Any], **run_args: Any) -> dict[str, Any]:
    """The JSON row a child process prints last; `row` with an "error" (the last line of its
    stderr) where it fails."""
    done = subprocess.run(command, capture_output=True, text=True, check=False, **run_args)
    if done.returncode:
        reason = (done.stderr.strip().splitlines() or ["?"])[-1][:120]
        return {**row, "error": reason}
    return json.loads(done.stdout.strip().splitlines()[-1])


def time_against_ort(
    row: dict[str, Any], module: Any, model: onnx.ModelProto, data: str, x: np.ndarray, repeat: int
) -> tuple[np.ndarray, np.ndarray]:
    """Median times of graph module `module` and onnxruntime on `model` (input `data` = `x`)
    at each of THREADS into `row`; the two outputs, xtvm's then onnxruntime's."""
    import onnxruntime as ort

    from xtvm.runtime.threads import set_num_threads

    serialized = model.SerializeToString()
    for threads in THREADS:
        set_num_threads(threads)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        session = ort.InferenceSession(serialized, options, providers=["CPUExecutionProvider"])
        ours, theirs = map(
            statistics.median,
            interleaved_samples(
                [module.run, lambda s=session: s.run(None, {data: x})],
                repeat,
                interleave=threads == 1,
            ),
        )
        row[f"xtvm_{threads}t_ms"], row[f"ort_{threads}t_ms"] = 1e3 * ours, 1e3 * theirs
    expected = session.run(None, {data: x})[0]
    module.run()
    return module.get_output(0).numpy(), expected


def max_rel_diff(got: np.ndarray, expected: np.ndarray) -> float | None:
    """The largest difference of two outputs relative to the largest expected value (None
    when their shapes differ)."""
    if got.shape != expected.shape:
        return None
    return float(np.abs(got - expected).max() / np.abs(expected).max())


class CompileTimeout(Exception):
    pass


def measure(name: str, repeat: int, compile_limit: float) -> dict[str, Any]:
    """All numbers for one model (run in its own process)."""
    import xtvm as tvm
    from xtvm import relay
    from xtvm.api.relay.frontend import from_onnx
    from xtvm.contrib import graph_executor

    model, data, x = light_model(name)
    shape = list(x.shape)
    row: dict[str, Any] = {"model": name, "input": shape}

    start = time.perf_counter()
    mod, params = from_onnx(model)
    row["import_s"] = time.perf_counter() - start

    def expire(*_: Any) -> None:
        raise CompileTimeout

    signal.signal(signal.SIGALRM, expire)
    signal.alarm(int(compile_limit))
    start = time.perf_counter()
    try:
        with PeakRss() as memory:
            factory = relay.build(mod, target="llvm", params=params)
    except CompileTimeout:
        row["skipped"] = f"relay.build over {compile_limit:.0f} s"
        return row
    finally:
        signal.alarm(0)
    row["compile_s"] = time.perf_counter() - start
    row["compile_mem_mib"] = memory.peak - memory.start
    module = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    module.set_input(data, x)

    got, expected = time_against_ort(row, module, model, data, x, repeat)
    row["max_abs_diff"] = (
        float(np.abs(got - expected).max()) if got.shape == expected.shape else None
    )
    row["max_abs_out"] = float(np.abs(expected).max())
    return row


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as a text table."""
    head = ["model", "import s", "build s", "build MiB"]
    for t in THREADS:
        head += [f"xtvm {t}t ms", f"ort {t}t ms", f"ratio {t}t"]
    head += ["max|diff|", "max|out|"]
    lines = [head]
    for r in rows:
        if "error" in r or "skipped" in r:
            lines.append(
                [
                    r["model"],
                    f"{r.get('import_s', float('nan')):.2f}",
                    r.get("skipped") or f"error: {r['error']}",
                ]
            )
            continue
        line = [
            r["model"],
            f"{r['import_s']:.2f}",
            f"{r['compile_s']:.1f}",
            f"{r['compile_mem_mib']:.0f}",
        ]
        line += latency_cells(r)
        diff = r["max_abs_diff"]
        line += ["shape!" if diff is None else f"{diff:.2e}", f"{r['max_abs_out']:.2e}"]
        lines.append(line)
    return aligned(lines)


def latency_cells(row: dict[str, Any], threads: Sequence[int] = THREADS) -> list[str]:
    """xtvm's and onnxruntime's milliseconds and their ratio, per thread count, of `row`."""
    cells = []
    for t in threads:
        ours, theirs = row[f"xtvm_{t}t_ms"], row[f"ort_{t}t_ms"]
        cells += [f"{ours:.2f}", f"{theirs:.2f}", f"{ours / theirs:.2f}"]
    return cells


def latency_table(
    rows: Sequence[dict[str, Any]],
    name: str,
    leading: Sequence[tuple[str, Callable[[dict[str, Any]], str]]],
    threads: Sequence[int] = THREADS,
) -> str:
    """Rows as an aligned table: `row[name]`, the `leading` (header, cell) columns, the
    latency cells per thread count and the largest relative difference; a failed row shows
    its error."""
    head = [name, *(header for header, _ in leading)]
    for t in threads:
        head += [f"xtvm {t}t ms", f"ort {t}t ms", f"ratio {t}t"]
    lines = [[*head, "max rel diff"]]
    for r in rows:
        if "error" in r:
            lines.append([r[name], f"error: {r['error']}"])
            continue
        diff = r["max_rel_diff"]
        cells = [cell(r) for _, cell in leading] + latency_cells(r, threads)
        lines.append([r[name], *cells, "shape!" if diff is None else f"{diff:.1e}"])
    return aligned(lines)


def child_rows(
    commands: Sequence[tuple[list[str], dict[str, Any]]], busy: bool
) -> list[dict[str, Any]]:
    """The JSON row of each (command, row on failure), run one after another and echoed to
    stderr, with a busy loop holding one core meanwhile when `busy`."""
    spinner = busy_core() if busy else None
    rows = []
    try:
        for command, row in commands:
            rows.append(child_row(command, row))
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    finally:
        if spinner is not None:
            spinner.kill()
            spinner.wait()
    return rows


def aligned(lines: list[list[str]]) -> str:
    """Text columns: the first left-aligned, the rest right-aligned, as wide as the first line."""
    widths = [max(len(line[i]) for line in lines if i < len(line)) for i in range(len(lines[0]))]
    return "\n".join(
        "  ".join(
            c.rjust(w) if i else c.ljust(w)
            for i, (c, w) in enumerate(zip(line, widths, strict=False))
        )
        for line in lines
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="*", default=MODELS, help=f"of {', '.join(MODELS)}")
    parser.add_argument("--repeat", type=int, default=10, help="timed runs per measurement")
    parser.add_argument("--compile-limit", type=float, default=180, help="seconds per build")
    parser.add_argument("--busy", action="store_true", help="keep one core busy meanwhile")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # child process: print one JSON row
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.repeat, args.compile_limit)))
        return 0
    busy = busy_core() if args.busy else None
    try:
        rows = measure_all(args)
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()
    print(table(rows))
    return 0


def busy_core() -> subprocess.Popen[bytes]:
    """A process spinning on the last core this one may use."""
    core = max(os.sched_getaffinity(0))
    return subprocess.Popen(
        [sys.executable, "-c", "while True: pass"],
        preexec_fn=lambda: os.sched_setaffinity(0, {core}),
    )


def measure_all(args: argparse.Namespace) -> list[dict[str, Any]]:
    """One row per model of `args.models`, each measured in a child process."""
    rows = []
    for name in args.models:
        command = [
            sys.executable,
            __file__,
            "--one",
            name,
            "--repeat",
            str(args.repeat),
            "--compile-limit",
            str(args.compile_limit),
        ]
        try:
            row = child_row(command, {"model": name}, timeout=args.compile_limit + 600)
        except subprocess.TimeoutExpired:
            row = {"model": name, "error": "timed out"}
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    return rows


if __name__ == "__main__":
    sys.exit(main())
