"""xtvm-run: run a library written by xtvm-compile on .npy inputs, optionally timing it.

    xtvm-run model.so --input data=x.npy [--output out.npy] [--benchmark 100] [--profile 10]

Inputs are named as in the model (ONNX names are accepted); `--output` saves the first output
(`out.npy`; further outputs as `out.1.npy`, ...). Without it the outputs' shapes and first
values are printed. `--benchmark N` runs N times and prints mean/median/min/max milliseconds;
`--profile N` times each kernel over N runs and prints them slowest first.
User errors (missing file, malformed --input, wrong shape) are one line and exit 1.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from xtvm.tools.cli import run_tool


class ToolError(Exception):
    """A user error: printed as one line, exit 1."""


def parse_input(text: str) -> tuple[str, str]:
    """`data=x.npy` → ("data", "x.npy")."""
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise ToolError(f"invalid --input '{text}' (expected NAME=FILE.npy)")
    return name, path


def build_argparser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="xtvm-run", description="Run a compiled model.")
    p.add_argument("library", help="a shared library written by xtvm-compile")
    p.add_argument("--input", action="append", default=[], metavar="NAME=FILE")
    p.add_argument("--output", metavar="FILE.npy", help="save the outputs")
    p.add_argument("--benchmark", type=int, default=0, metavar="N", help="time N runs")
    p.add_argument(
        "--profile", type=int, default=0, metavar="N", help="time each kernel over N runs"
    )
    p.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    return p


def run(args: argparse.Namespace) -> int:
    from xtvm.runtime.graph_executor import GraphInputError, load_factory

    if not Path(args.library).is_file():
        raise ToolError(f"cannot open library '{args.library}'")
    try:
        executor = load_factory(args.library).create()
    except (OSError, ValueError) as exc:
        raise ToolError(str(exc)) from None
    for name, path in map(parse_input, args.input):
        try:
            value = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise ToolError(f"cannot read input '{name}' from '{path}': {exc}") from None
        try:
            executor.set_input(name, value)
        except GraphInputError as exc:
            raise ToolError(str(exc)) from None
    executor.run()
    outputs = [executor.get_output(i).numpy() for i in range(executor.get_num_outputs())]
    if args.output:
        base = Path(args.output)
        for i, out in enumerate(outputs):
            np.save(base if i == 0 else base.with_suffix(f".{i}.npy"), out)
    else:
        for i, out in enumerate(outputs):
            print(f"output {i}: {out.dtype}{list(out.shape)} {out.ravel()[:8]}")
    if args.benchmark > 0:
        times = []
        for _ in range(args.benchmark):
            start = time.perf_counter()
            executor.run()
            times.append((time.perf_counter() - start) * 1e3)
        print(
            f"latency over {len(times)} runs (ms): mean {statistics.fmean(times):.3f}  "
            f"median {statistics.median(times):.3f}  min {min(times):.3f}  max {max(times):.3f}"
        )
    if args.profile > 0:
        print(executor.profile(args.profile))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_argparser().parse_args(argv)
    return run_tool("xtvm-run", run, args, (ToolError,))


if __name__ == "__main__":
    sys.exit(main())
