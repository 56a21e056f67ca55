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
    """Print `<prefix>Current/Best: x/y GFLOPS | Progress: (i/total)` after each batch."""

    def show(tuner: Any, inputs: Sequence[MeasureInput], results: Sequence[MeasureResult]) -> None:
        flop = tuner.task.flop
        current = 0.0
        for result in results:
            if result.error_no == MeasureErrorNo.NO_ERROR and flop:
                current = max(current, flop / cost_of(result))
        out = stream or sys.stdout
        out.write(
            f"{prefix}Current/Best: {current / 1e9:7.2f}/{tuner.best_flops / 1e9:7.2f} GFLOPS"
            f" | Progress: ({tuner.trial}/{total})\n"
        )
        out.flush()

    return show
