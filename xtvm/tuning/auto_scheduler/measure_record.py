"""Auto-scheduler records: one JSON object a line, never pickle.

A line holds the format version, the xtvm version, the target, the workload key (`[name,
*args]`), the candidate's steps (each `[kind, stage, ...]`, see `loop_state`) and the result:

    {"version": 1, "kind": "auto_scheduler", "xtvm_version": "0.13.0", "target": "llvm",
     "workload_key": ["matmul", 64, 64, 64, "float32"],
     "steps": [["CW", "C"], ["SP", "C", 0, 64, [2, 8, 4]], ...],
     "result": {"costs": [1.2e-05], "error_no": 0, "error_msg": "", "all_cost": 0.6,
                "timestamp": 1700000000.0}}
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xtvm.ir.version import TVM_VERSION
from xtvm.tuning.auto_scheduler.loop_state import State
from xtvm.tuning.measure import MeasureResult
from xtvm.tuning.record import CHOSEN, cost_of, result_from_json, result_to_json
from xtvm.tuning.task import target_kind

FORMAT_VERSION = 1


@dataclass(frozen=True)
class MeasureInput:
    """A candidate of a task: the task's workload key and target, and the candidate's steps."""

    workload_key: str
    target: str
    state: State


def encode(inp: MeasureInput, result: MeasureResult) -> str:
    return json.dumps(
        {
            "version": FORMAT_VERSION,
            "kind": "auto_scheduler",
            "xtvm_version": TVM_VERSION,
            "target": inp.target,
            "workload_key": json.loads(inp.workload_key),
            "steps": inp.state.to_json(),
            "result": result_to_json(result),
        }
    )


def decode(line: str) -> tuple[MeasureInput, MeasureResult]:
    data = json.loads(line)
    if data.get("version") != FORMAT_VERSION or data.get("kind") != "auto_scheduler":
        raise ValueError(
            f"not an auto_scheduler record of format version {FORMAT_VERSION}: {line[:80]}"
        )
    key = json.dumps(data["workload_key"])
    state = State.from_json(data["steps"])
    return MeasureInput(key, data["target"], state), result_from_json(data["result"])


def load_records(filename: str | Path) -> Iterator[tuple[MeasureInput, MeasureResult]]:
    """The records of a log file, in order (blank lines skipped)."""
    with open(filename) as f:
        for line in f:
            if line.strip():
                yield decode(line)


def save_records(
    filename: str | Path, inputs: Sequence[MeasureInput], results: Sequence[MeasureResult]
) -> None:
    with open(filename, "a") as f:
        for inp, result in zip(inputs, results, strict=True):
            f.write(encode(inp, result) + "\n")


def records_of(
    filename: str | Path, workload_key: str, target: str
) -> list[tuple[MeasureInput, MeasureResult]]:
    """The records of one workload on targets of `target`'s kind."""
    if not Path(filename).exists():
        return []
    kind = target_kind(target)
    return [
        (inp, res)
        for inp, res in load_records(filename)
        if inp.workload_key == workload_key and target_kind(inp.target) == kind
    ]


def load_best_record(
    filename: str | Path, workload_key: str, target: str = "llvm"
) -> tuple[MeasureInput, MeasureResult] | None:
    """The latest record of the workload chosen by a re-check against the default
    (`recheck`), else its fastest successful one, or None."""
    best = chosen = None
    for inp, res in records_of(filename, workload_key, target):
        if cost_of(res) < float("inf") and res.verdict == CHOSEN:
            chosen = (inp, res)
        if cost_of(res) < float("inf") and (best is None or cost_of(res) < cost_of(best[1])):
            best = (inp, res)
    return chosen or best


class RecordReader:
    """TVM's reader: iterate over `(MeasureInput, MeasureResult)` of a log file."""

    def __init__(self, filename: str | Path) -> None:
        self.filename = filename

    def __iter__(self) -> Iterator[tuple[MeasureInput, MeasureResult]]:
        return load_records(self.filename)

    def read_lines(self) -> tuple[list[MeasureInput], list[MeasureResult]]:
        records = list(self)
        return [r[0] for r in records], [r[1] for r in records]


class RecordToFile:
    """A measure callback appending each measured candidate to `filename`."""

    def __init__(self, filename: str | Path) -> None:
        self.filename = filename

    def __call__(
        self, policy: Any, inputs: Sequence[MeasureInput], results: Sequence[MeasureResult]
    ) -> None:
        save_records(self.filename, inputs, results)
