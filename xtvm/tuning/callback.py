"""Callbacks a tuner calls after each measured batch."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from xtvm.tuning.measure import MeasureErrorNo, MeasureInput, MeasureResult
from xtvm.tuning.record import cost_of, encode

CallbackFn = Any  # Callable[[Tuner, Sequence[MeasureInput], Sequence[MeasureResult]], None]


def log_to_file(filename: str | Path) -> CallbackFn:
    """Append each measured config to `filename` as a JSON line (`record` format)."""

    def log(_tuner: Any, inputs: Sequence[MeasureInput], results: Sequence[MeasureResult]) -> None:
        with open(filename, "a") as f:
            for inp, result in zip(inputs, results, strict=True):
                f.write(encode(inp, result) + "\n")

    return log


def progress_bar(total: int, prefix: str = "", stream: TextIO | None = None) -> CallbackFn:
    """A tqdm bar of the trials with the best GFLOPS so far; with `stream`, a line
    `<prefix>Current/Best: x/y GFLOPS | Progress: (i/total)` after each batch instead."""
    if stream is None:
        try:
            return tqdm_bar(total, prefix)
        except ImportError:  # tqdm is a dependency; lines on stdout all the same
            stream = sys.stdout

    def show(tuner: Any, inputs: Sequence[MeasureInput], results: Sequence[MeasureResult]) -> None:
        current = current_flops(tuner, results)
        out = stream or sys.stdout
        out.write(
            f"{prefix}Current/Best: {current / 1e9:7.2f}/{tuner.best_flops / 1e9:7.2f} GFLOPS"
            f" | Progress: ({tuner.trial}/{total})\n"
        )
        out.flush()

    return show


def current_flops(tuner: Any, results: Sequence[MeasureResult]) -> float:
    """FLOP/s of the fastest successful result of a batch (0 when none)."""
    flop, current = tuner.task.flop, 0.0
    for result in results:
        if result.error_no == MeasureErrorNo.NO_ERROR and flop:
            current = max(current, flop / cost_of(result))
    return current


def tqdm_bar(total: int, prefix: str = "") -> CallbackFn:
    """A tqdm progress bar on stderr: trials done (resumed ones included) and best GFLOPS."""
    from tqdm import tqdm

    bar = tqdm(total=total, desc=prefix.strip() or None, unit="trial", file=sys.stderr)

    def show(tuner: Any, inputs: Sequence[MeasureInput], results: Sequence[MeasureResult]) -> None:
        bar.n = min(tuner.trial, total)
        now = current_flops(tuner, results)
        bar.set_postfix_str(f"best {tuner.best_flops / 1e9:.2f} GFLOPS, now {now / 1e9:.2f}")
        if tuner.trial >= total or not tuner.has_next():
            bar.close()

    return show
