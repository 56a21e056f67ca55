"""Checking a tuning's records inside the model they were tuned for.

A tuner decides each kernel's record by timing the kernel alone; inside the model the same
config can still be slower than the default schedule (another code path of the fused
kernel, another cache state: a ShuffleNet group conv 1.15x faster alone ran 2.5x slower in
the model). `check_model_records(mod, params, records, inputs=, target=, out=)`:

1. builds the model twice: by default (no records) and inside `apply_history_best(records)`,
   each under a `TracingContext`, which notes the kernels that ask for each workload;
2. times every kernel call of both builds at one thread by the thread's CPU clock, the two
   builds taking turns in rounds (`interleaved_kernel_seconds`);
3. for each record a kernel of the tuned build used, sums the time of its kernels (over all
   their calls) in the tuned build and that of the same layers' kernels in the default
   build (the kernels that asked for its workload, or for another implementation of its
   layer); a record whose kernels are slower in the tuned model is dropped, with every
   record of its workload (so that no other record of it takes its place);
4. where the whole tuned model is still slower and no record was, drops the record of least
   gain; where anything was dropped, builds and checks again, at most `max_checks` times.

The kept records are written to `out` (the input's lines minus the dropped workloads' for
the target's kind; records of other targets stay as they are). `ModelCheck.table()` prints
the decisions; `settled` says whether the last check dropped nothing, so the kept records'
build was measured no slower than the default build, kernel by kernel and in all.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from xtvm.tuning.record import (
    ApplyHistoryBest,
    Record,
    RecordError,
    encode,
    load_from_file,
    record_key,
)
from xtvm.tuning.task import FallbackContext, TracingContext, Workload, target_kind

# the per-call seconds of the default and the tuned build (tests inject made-up ones)
Timer = Callable[[Any, Any], tuple[Sequence[float], Sequence[float]]]
MAX_CHECKS = 3
RUNS = 20


class ModelCheckError(ValueError):
    """The records or the model cannot be checked (unreadable records, builds that do not
    run); the message says why."""


@dataclass
class RecordCheck:
    """One record as the model ran it: its kernels' seconds a run, summed over their calls."""

    target: str
    workload: Workload
    kernels: tuple[str, ...]  # the tuned build's kernels that used it
    calls: int  # their calls a run
    default_s: float  # the same layers' kernels in the default build
    tuned_s: float
    same_code: bool = False  # its kernels lower as the default build's: nothing to decide
    kept: bool = True

    @property
    def speedup(self) -> float:
        return self.default_s / self.tuned_s if self.tuned_s > 0 else math.inf


@dataclass
class Check:
    """One build-and-time round: the record rows and both builds' total kernel seconds."""

    rows: list[RecordCheck]
    default_s: float
    tuned_s: float

    @property
    def dropped(self) -> list[RecordCheck]:
        return [r for r in self.rows if not r.kept]


@dataclass
class ModelCheck:
    """What `check_model_records` found: every check, the records kept and dropped."""

    target: str
    checks: list[Check] = field(default_factory=list)
    kept: list[Record] = field(default_factory=list)
    dropped: list[Record] = field(default_factory=list)
    other_targets: int = 0  # records of other target kinds, left as they are
    settled: bool = True  # the last check dropped nothing
    message: str = ""  # why nothing was timed, where nothing was

    @property
    def rows(self) -> list[RecordCheck]:
        """Each checked workload's row: the check that dropped it, else the last one's."""
        return [row for row, _ in self.decisions()]

    def decisions(self) -> list[tuple[RecordCheck, int]]:
        """Each checked workload's row and the number of the check it comes from (1 first)."""
        final: dict[Workload, tuple[RecordCheck, int]] = {}
        for k, check in enumerate(self.checks):
            for row in check.rows:
                if row.workload not in final or final[row.workload][0].kept:
                    final[row.workload] = row, k + 1
        return list(final.values())

    def table(self) -> str:
        """The decisions as a table: workload, calls, default and tuned ms, kept."""
        lines = [f"model check ({self.target}): {self.message}"] if self.message else []
        if self.rows:
            lines.append(
                f"{'calls':>5} {'default ms':>10} {'tuned ms':>9} {'x':>6} kept workload"
                "  (noK: dropped by check K)"
            )
        for row, k in self.decisions():
            kept = "yes" if row.kept else f"no{k}"
            workload = f"{row.workload[0]} {', '.join(map(str, row.workload[1:]))}"
            same = " (default code)" if row.same_code else ""
            lines.append(
                f"{row.calls:5} {row.default_s * 1e3:10.3f} {row.tuned_s * 1e3:9.3f} "
                f"{row.speedup:5.2f}x {kept:4} {workload}{same}"
            )
        for k, check in enumerate(self.checks):
            ratio = check.default_s / check.tuned_s if check.tuned_s > 0 else math.inf
            lines.append(
                f"check {k + 1}: all kernels {check.default_s * 1e3:.3f} ms default, "
                f"{check.tuned_s * 1e3:.3f} ms tuned ({ratio:.2f}x), "
                f"{len(check.dropped)} record(s) dropped"
            )
        if self.other_targets:
            lines.append(f"{self.other_targets} record(s) of other targets left as they are")
        if not self.settled:
            lines.append(
                f"not settled after {len(self.checks)} checks: the last one still dropped "
                "records (the kept ones were not measured together again)"
            )
        return "\n".join(lines)


def read_records(records: str | Path | Iterable[Record]) -> list[Record]:
    """The records of a file (or as given), with a clear error for a file that is none."""
    if not isinstance(records, str | Path):
        return list(records)
    path = Path(records)
    if not path.is_file():
        raise ModelCheckError(f"no records file '{path}'")
    try:
        return list(load_from_file(path))
    except RecordError as exc:  # names the line
        raise ModelCheckError(f"'{path}' is not a tuning records file: {exc}") from None


def build_traced(
    mod: Any, params: Mapping[str, Any] | None, target: str, records: Sequence[Record] | None
) -> tuple[Any, TracingContext, ApplyHistoryBest | None]:
    """The model built by default (`records` None) or with `records`, and the tracing of
    which kernels asked for which workload."""
    from xtvm.driver.relay_build import build

    history = ApplyHistoryBest(records) if records is not None else None
    # the fallback first: a caller's dispatch context does not leak into the builds
    with FallbackContext(), history or contextlib.nullcontext(), TracingContext() as tracing:
        factory = build(mod, target, dict(params or {}))
    assert isinstance(tracing, TracingContext)
    return factory, tracing, history


def executor(factory: Any, inputs: Mapping[str, Any], seed: int = 0) -> Any:
    """A graph executor of `factory` with `inputs` set, and random values for the inputs
    of the graph that `inputs` leaves unset."""
    from xtvm.runtime.ndarray import cpu

    module = factory["default"](cpu())
    module.set_input(**inputs)
    rng = np.random.default_rng(seed)
    for name in sorted(module.unset):
        entry = module.entries[module.inputs[name]]
        if np.issubdtype(entry.dtype, np.floating):
            value = rng.uniform(-1, 1, entry.shape).astype(entry.dtype)
        else:
            value = np.zeros(entry.shape, entry.dtype)
        module.set_input(name, value)
    return module


def one_thread_timer(runs: int) -> Timer:
    """Both builds' per-call median seconds over `runs` runs, at one thread, by the thread's
    CPU clock, in interleaved rounds."""
    from xtvm.runtime.profiling import interleaved_kernel_seconds
    from xtvm.runtime.threads import get_num_threads, set_num_threads

    def timer(default: Any, tuned: Any) -> tuple[Sequence[float], Sequence[float]]:
        threads = get_num_threads()
        set_num_threads(1)
        try:
            before, after = interleaved_kernel_seconds(
                [default, tuned], runs, clock=time.thread_time, pause=0.05
            )
        finally:
            set_num_threads(threads)
        return before, after

    return timer


def seconds_of(names: Sequence[str], seconds: Sequence[float], kernels: set[str]) -> float:
    """The seconds of the calls of `kernels` (summed over their calls)."""
    return sum(s for n, s in zip(names, seconds, strict=True) if n in kernels)


def check_once(
    mod: Any,
    params: Mapping[str, Any] | None,
    inputs: Mapping[str, Any],
    target: str,
    records: Sequence[Record],
    timer: Timer,
    default: tuple[Any, TracingContext],
) -> Check | None:
    """Build with `records`, time both builds and decide each used record (None: no
    kernel of the tuned build used any record)."""
    factory, tracing, history = build_traced(mod, params, target, records)
    assert history is not None
    used = {
        w: kernels - {""}  # "": a query outside any kernel
        for w, kernels in tracing.kernels.items()
        if history.cost(target, w) is not None and kernels - {""}
    }
    if not used:
        return None
    default_module = executor(default[0], inputs)
    tuned_module = executor(factory, inputs)
    before, after = timer(default_module, tuned_module)
    default_names, tuned_names = default_module.call_names, tuned_module.call_names
    if len(before) != len(default_names) or len(after) != len(tuned_names):
        raise ModelCheckError("the timer gave another number of kernel calls than the builds")
    default_code, tuned_code = kernel_code(default[0]), kernel_code(factory)
    rows = []
    for workload, kernels in used.items():
        layer = {workload, *tracing.groups.get(workload, ())}
        default_kernels = set().union(*(default[1].kernels.get(w, set()) for w in layer))
        same = kernels == default_kernels and all(
            k in default_code and tuned_code.get(k) == default_code[k] for k in kernels
        )
        rows.append(
            RecordCheck(
                target,
                workload,
                tuple(sorted(kernels)),
                sum(name in kernels for name in tuned_names),
                seconds_of(default_names, before, default_kernels),
                seconds_of(tuned_names, after, kernels),
                same_code=same,
            )
        )
    check = Check(rows, sum(before), sum(after))
    for row in rows:
        row.kept = row.same_code or row.tuned_s <= row.default_s
    blamable = [r for r in rows if not r.same_code]
    if not check.dropped and blamable and check.tuned_s > check.default_s:
        # every record's kernels are no slower, the model is: the least gain goes
        max(blamable, key=lambda r: r.tuned_s - r.default_s).kept = False
    return check


def kernel_code(factory: Any) -> dict[str, str]:
    """The tir of each kernel of a build, by name (None where the build keeps none)."""
    kernels = getattr(factory, "kernels", None)
    if kernels is None:
        return {}
    return {
        op.sym_name.data: str(op)
        for op in kernels.body.block.ops
        if getattr(op, "sym_name", None) is not None
    }


def check_model_records(
    mod: Any,
    params: Mapping[str, Any] | None,
    records: str | Path | Iterable[Record],
    inputs: Mapping[str, Any] | None = None,
    target: str = "llvm",
    out: str | Path | None = None,
    runs: int = RUNS,
    max_checks: int = MAX_CHECKS,
    timer: Timer | None = None,
    verbose: bool = False,
) -> ModelCheck:
    """Keep the records that make the model's kernels no slower (see the module docstring);
    `inputs` are the graph's data inputs (random values where missing), `timer` replaces the
    timing (tests), `out` gets the kept records."""
    if runs < 1 or max_checks < 1:
        raise ValueError("runs and max_checks must be at least 1")
    target = str(target)
    everything = read_records(records)
    kind = target_kind(target)
    mine = [r for r in everything if target_kind(r[0].target) == kind]
    result = ModelCheck(target, other_targets=len(everything) - len(mine))
    timer = timer or one_thread_timer(runs)
    inputs = dict(inputs or {})
    dropped: set[tuple[str, Workload]] = set()
    if not mine:
        result.message = (
            "no records to check" if not everything else f"no records for target kind '{kind}'"
        )
    else:
        factory, tracing, _ = build_traced(mod, params, target, None)
        result.settled = False
        for _ in range(max_checks):
            kept = [r for r in mine if record_key(r[0]) not in dropped]
            check = check_once(mod, params, inputs, target, kept, timer, (factory, tracing))
            if check is None:  # no record left that a kernel uses: the default build
                if not result.checks:
                    result.message = "no kernel of the model uses any of the records"
                result.settled = True
                break
            result.checks.append(check)
            if verbose:
                print(result.table(), flush=True)
            dropped |= {(kind, row.workload) for row in check.dropped}
            if not check.dropped:
                result.settled = True
                break
    result.kept = [r for r in everything if record_key(r[0]) not in dropped]
    result.dropped = [r for r in everything if record_key(r[0]) in dropped]
    if out is not None:
        Path(out).write_text("".join(encode(*r) + "\n" for r in result.kept))
    return result


__all__ = ["Check", "ModelCheck", "ModelCheckError", "RecordCheck", "check_model_records"]
