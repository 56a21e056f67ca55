"""xtvm-run: run a library written by xtvm-compile on .npy inputs, optionally timing it.

    xtvm-run model.so --input data=x.npy [--output out.npy] [--benchmark 100] [--profile 10]
                      [--threads 2]

Inputs are named as in the model (ONNX names are accepted); `--output` saves the first output
(`out.npy`; further outputs as `out.1.npy`, ...). Without it the outputs' shapes and values
are printed (all values up to 1000 per output, else numpy's summary, said so). `--benchmark N` runs
`--warmup` untimed times, then N timed ones, and prints mean/median/p90/min/max milliseconds;
`--profile N` times each kernel over N runs and prints them slowest first. `--threads N` runs
parallel loops on N threads (default: `XTVM_NUM_THREADS`, else all cores).
Every input that is not a weight must be given once, as an array of its exact shape and type.
User errors (missing file, malformed --input, wrong shape) are one line and exit 1.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from xtvm.tools.cli import load_npy, run_tool


class ToolError(Exception):
    """A user error: printed as one line, exit 1."""


def parse_input(text: str) -> tuple[str, str]:
    """`data=x.npy` → ("data", "x.npy")."""
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise ToolError(f"invalid --input '{text}' (expected NAME=FILE.npy)")
    return name, path


def build_argparser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="xtvm-run", description="Run a compiled model.", allow_abbrev=False
    )
    p.add_argument("library", help="a shared library written by xtvm-compile")
    p.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="NAME=FILE",
        help="the value of model input NAME from a .npy file (once per input that is not a weight)",
    )
    p.add_argument("--output", metavar="FILE.npy", help="save the outputs")
    p.add_argument(
        "--benchmark",
        type=int,
        default=0,
        metavar="N",
        help="time N runs after the warm-up; print mean, median, p90, min and max",
    )
    p.add_argument(
        "--warmup", type=int, default=3, metavar="N", help="untimed runs before --benchmark (3)"
    )
    p.add_argument(
        "--profile", type=int, default=0, metavar="N", help="time each kernel over N runs"
    )
    p.add_argument(
        "--threads",
        type=positive_int,
        metavar="N",
        help="threads for parallel loops (default: XTVM_NUM_THREADS, else all cores)",
    )
    p.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    return p


def positive_int(text: str) -> int:
    """An option's value that must be a positive integer (argparse reports the error)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'")
    return value


def read_inputs(texts: Sequence[str]) -> dict[str, np.ndarray]:
    """The arrays of `--input NAME=FILE` options by name; a name given twice is an error."""
    inputs: dict[str, np.ndarray] = {}
    for name, path in map(parse_input, texts):
        if name in inputs:
            raise ToolError(f"--input '{name}' is given twice")
        inputs[name] = load_npy(path, f"input '{name}'")
    return inputs


def bind_inputs(executor: Any, weights: Collection[str], inputs: Mapping[str, np.ndarray]) -> None:
    """Set every graph input that is not a weight from `inputs`: none missing, none unknown."""
    from xtvm.runtime.graph_executor import GraphInputError

    names = [n for n in executor.input_order if n not in weights]
    listed = ", ".join(repr(n) for n in names) or "none"
    unknown = [n for n in inputs if n not in names]
    if unknown:
        raise ToolError(f"the model has no input '{unknown[0]}' (inputs: {listed})")
    missing = [n for n in names if n not in inputs]
    if missing:
        raise ToolError(
            f"no value for input{'s' if len(missing) > 1 else ''} "
            + ", ".join(repr(n) for n in missing)
            + f" (give --input NAME=FILE.npy for each of: {listed})"
        )
    for name, value in inputs.items():
        try:
            executor.set_input(name, value)
        except GraphInputError as exc:
            raise ToolError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    from xtvm.runtime.graph_executor import GraphInputError, load_factory
    from xtvm.runtime.threads import set_num_threads

    if not Path(args.library).is_file():
        raise ToolError(f"cannot open library '{args.library}'")
    if args.output and not Path(args.output).resolve().parent.is_dir():
        raise ToolError(f"cannot write '{args.output}': no such directory")
    inputs = read_inputs(args.input)
    if args.threads is not None:
        set_num_threads(args.threads)
    try:
        factory = load_factory(args.library)
        executor = factory.create()
    except (OSError, ValueError) as exc:
        raise ToolError(str(exc)) from None
    bind_inputs(executor, factory.params, inputs)
    try:
        executor.run()
    except GraphInputError as exc:  # a weight the library does not hold
        raise ToolError(str(exc)) from None
    outputs = [executor.get_output(i).numpy() for i in range(executor.get_num_outputs())]
    if args.output:
        base = Path(args.output)
        for i, out in enumerate(outputs):
            np.save(base if i == 0 else base.with_suffix(f".{i}.npy"), out)
    else:
        for i, out in enumerate(outputs):
            print(format_output(i, out))
    if args.benchmark > 0:
        print(benchmark(executor.run, args.benchmark, max(args.warmup, 0)))
    if args.profile > 0:
        print(executor.profile(args.profile))
    return 0


FULL_PRINT_LIMIT = 1000


def format_output(index: int, value: np.ndarray) -> str:
    """`output I: dtype[shape]` and the values: all of them up to FULL_PRINT_LIMIT, else numpy's
    summary with a note saying so."""
    head = f"output {index}: {value.dtype}{list(value.shape)}"
    if value.size <= FULL_PRINT_LIMIT:
        return head + "\n" + np.array2string(value, threshold=sys.maxsize)
    note = f" ({value.size} values, summarised; --output FILE.npy saves them all)"
    return head + note + "\n" + np.array2string(value, threshold=FULL_PRINT_LIMIT)


def benchmark(run: Callable[[], object], runs: int, warmup: int) -> str:
    """Time `runs` calls of `run` after `warmup` untimed ones: the report, in milliseconds."""
    warm = []
    for _ in range(warmup):
        start = time.perf_counter()
        run()
        warm.append((time.perf_counter() - start) * 1e3)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1e3)
    first = f", first {warm[0]:.3f} ms, last {warm[-1]:.3f} ms" if warm else ""
    return (
        f"warm-up: {warmup} runs{first}\n"
        f"latency over {runs} runs (ms): mean {statistics.fmean(times):.3f}  "
        f"median {statistics.median(times):.3f}  p90 {float(np.percentile(times, 90)):.3f}  "
        f"min {min(times):.3f}  max {max(times):.3f}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = build_argparser().parse_args(argv)
    return run_tool("xtvm-run", run, args, (ToolError,))


if __name__ == "__main__":
    sys.exit(main())
