"""Re-checking a tuner's best against the default schedule before it is used.

A tuner picks its best from a few short timings of each candidate; on a shared machine a
lucky timing makes a config look faster than the default schedule that it is not. Before a
best is used, `recheck` measures the default and the best again in interleaved pairs (default,
best, default, best, ...), each pair a fresh build and run, timed by the thread's CPU clock
when candidates run at one thread (the load of other processes then adds nothing). The best is
kept only when it is faster in more than half of the pairs *and* its least time is below the
default's; otherwise the default stays.

The decision is recorded: the winner's re-check measurements (every repeat of every pair) go
to the log as one record marked `"verdict": "chosen"`, the loser's as `"rejected"`. Where a
workload has a chosen record, `apply_history_best` (and the auto-scheduler's
`ApplyHistoryBest`) use the latest one instead of the fastest timing, so a build with the log
is never given a config that lost its re-check.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from xtvm.runtime.threads import num_threads
from xtvm.tuning.measure import MeasureErrorNo, MeasureResult
from xtvm.tuning.record import CHOSEN, REJECTED, fastest

RECHECK_PAIRS = 3
Candidate = TypeVar("Candidate")


@contextlib.contextmanager
def thread_clock(runner: Any) -> Iterator[None]:
    """Time by the thread's CPU clock while inside, when the candidates run at one thread
    and the runner has a clock to set (a `LocalRunner`); otherwise as it is."""
    old = getattr(runner, "clock", None)
    if old is None or num_threads() != 1:
        yield
        return
    runner.clock = "thread"
    try:
        yield
    finally:
        runner.clock = old


def best_wins(default: Sequence[MeasureResult], best: Sequence[MeasureResult]) -> bool:
    """Whether the best beat the default in its re-check: faster (by each measurement's least
    repeat) in more than half of the pairs, and least overall below the default's."""
    pairs = list(zip(default, best, strict=True))
    wins = sum(fastest(b) < fastest(d) for d, b in pairs)
    least_best = min((fastest(b) for b in best), default=float("inf"))
    least_default = min((fastest(d) for d in default), default=float("inf"))
    return 2 * wins > len(pairs) and least_best < least_default


def merged(results: Sequence[MeasureResult], verdict: str) -> MeasureResult:
    """One result of a candidate's re-check measurements: all their repeats (an error if any
    failed), marked `verdict`."""
    failed = next((r for r in results if r.error_no != MeasureErrorNo.NO_ERROR), None)
    costs = [] if failed is not None else [c for r in results for c in r.costs]
    return MeasureResult(
        costs,
        failed.error_no if failed is not None else MeasureErrorNo.NO_ERROR,
        sum(r.all_cost for r in results),
        time.time(),
        failed.error_msg if failed is not None else "",
        results[0].code_hash if results else "",
        verdict=verdict,
    )


def recheck(
    default: Candidate,
    best: Candidate,
    measure_pair: Callable[[Candidate, Candidate], tuple[MeasureResult, MeasureResult]],
    pairs: int = RECHECK_PAIRS,
) -> tuple[bool, MeasureResult, MeasureResult]:
    """Measure `default` and `best` in `pairs` interleaved pairs (`measure_pair` builds and
    times both afresh); returns whether the best wins and both merged results, the winner's
    marked chosen and the loser's rejected."""
    measured = [measure_pair(default, best) for _ in range(max(1, pairs))]
    on_default = [m[0] for m in measured]
    on_best = [m[1] for m in measured]
    wins = best_wins(on_default, on_best)
    return (
        wins,
        merged(on_default, REJECTED if wins else CHOSEN),
        merged(on_best, CHOSEN if wins else REJECTED),
    )


__all__ = ["RECHECK_PAIRS", "best_wins", "merged", "recheck", "thread_clock"]
