"""Tuning records: one JSON object a line, appended as candidates are measured.

A line holds the format version, the xtvm version, the target, the workload (template name
and arguments), the config (`ConfigEntity.to_json_dict`) and the result (seconds per run,
error code and message, total seconds, timestamp):

    {"version": 1, "xtvm_version": "0.13.0", "target": "llvm",
     "workload": ["matmul.cpu", 64, 64, 64, "float32"],
     "config": {"index": 5, "entity": [["tile_y", "sp", [-1, 8]], ...]},
     "result": {"costs": [1.2e-05], "error_no": 0, "error_msg": "", "all_cost": 0.6,
                "timestamp": 1700000000.0, "code_hash": "9f2c..."}}

A candidate whose final code equals one already measured is not measured again: its result
copies that one's and names it, `"duplicate_of": <config index>`. A tuner's best re-checked
against the default schedule (`recheck`) leaves both re-check measurements, the one used
marked `"verdict": "chosen"` and the other `"rejected"`.

The target is the full string the candidate was built for (`llvm -mcpu=skylake-avx512`).
`apply_history_best(records)` makes templates built inside it, and the kernels of
`relay.build`, use the fastest config recorded for their workload and target: one recorded
for the same target string if any, else one of the same target kind; where a workload has a
chosen record, the latest chosen one instead (a config that lost its re-check is not used).
`load_from_file(f, target)` keeps the records of a target kind; `distill(log, out)` keeps the
record used of each workload and target.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from xtvm.ir.version import TVM_VERSION
from xtvm.tuning.measure import MeasureErrorNo, MeasureInput, MeasureResult
from xtvm.tuning.space import ConfigEntity, ConfigSpace
from xtvm.tuning.task import DispatchContext, Task, Workload, target_kind, workload_of

FORMAT_VERSION = 1
CHOSEN, REJECTED = "chosen", "rejected"  # a re-check's verdict (`recheck`)
VERDICTS = ("", CHOSEN, REJECTED)
Record = tuple[MeasureInput, MeasureResult]


def encode(inp: MeasureInput, result: MeasureResult) -> str:
    """One record as a line of JSON (no newline)."""
    return json.dumps(
        {
            "version": FORMAT_VERSION,
            "xtvm_version": TVM_VERSION,
            "target": inp.target,
            "workload": list(inp.task.workload),
            "config": inp.config.to_json_dict(),
            "result": result_to_json(result),
        }
    )


def result_to_json(result: MeasureResult) -> dict[str, object]:
    """A measurement as the `result` object of a record (auto_scheduler's records too), with
    the hash of the candidate's code when known and, for a candidate not measured because its
    code was, `duplicate_of`: the config index whose measurement it copies."""
    data: dict[str, object] = {
        "costs": result.costs,
        "error_no": int(result.error_no),
        "error_msg": result.error_msg,
        "all_cost": result.all_cost,
        "timestamp": result.timestamp,
    }
    if result.code_hash:
        data["code_hash"] = result.code_hash
    if result.duplicate_of is not None:
        data["duplicate_of"] = result.duplicate_of
    if result.verdict:
        data["verdict"] = result.verdict
    return data


def result_from_json(r: dict[str, Any]) -> MeasureResult:
    duplicate_of = r.get("duplicate_of")
    verdict = str(r.get("verdict", ""))
    if verdict not in VERDICTS:
        raise ValueError(f"tuning record with verdict '{verdict}' (expected chosen or rejected)")
    return MeasureResult(
        r["costs"],
        r["error_no"],
        r["all_cost"],
        r["timestamp"],
        r.get("error_msg", ""),
        str(r.get("code_hash", "")),
        None if duplicate_of is None else int(duplicate_of),
        verdict,
    )


def decode(line: str) -> Record:
    data = json.loads(line)
    if data.get("version") != FORMAT_VERSION:
        raise ValueError(f"tuning record of format version {data.get('version')}, expected 1")
    name, *args = data["workload"]
    task = Task(name, args, data["target"])
    config = ConfigEntity.from_json_dict(data["config"])
    return MeasureInput(data["target"], task, config), result_from_json(data["result"])


class RecordError(ValueError):
    """A line of a records file that is not a tuning record: the message names the file and
    line."""


def load_from_file(filename: str | Path, target: object = None) -> Iterator[Record]:
    """The records of a log file, in order (blank lines skipped); with `target`, only those
    of its kind (`llvm` records for `llvm -mcpu=...`). A line that is not a record raises
    `RecordError` with its file and line number."""
    kind = None if target is None else target_kind(target)
    with open(filename) as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = decode(line)
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                what = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
                raise RecordError(f"{filename}:{number}: not a tuning record: {what}") from None
            if kind is None or target_kind(record[0].target) == kind:
                yield record


def save_to_file(filename: str | Path, records: Iterable[Record]) -> None:
    """Append records to a log file."""
    with open(filename, "a") as f:
        for inp, result in records:
            f.write(encode(inp, result) + "\n")


def cost_of(result: MeasureResult) -> float:
    """Mean seconds of a successful result; infinity for an error."""
    if result.error_no != MeasureErrorNo.NO_ERROR or not result.costs:
        return float("inf")
    return sum(result.costs) / len(result.costs)


def fastest(result: MeasureResult) -> float:
    """The least seconds of a result's repeats (load on a shared machine only adds time to
    a run); infinity for an error."""
    return min(result.costs) if cost_of(result) < float("inf") else float("inf")


def record_key(inp: MeasureInput) -> tuple[str, Workload]:
    return target_kind(inp.target), inp.task.workload


def best_records(
    records: Iterable[Record], exact: bool = False
) -> dict[tuple[str, Workload], Record]:
    """The record to use of each (target kind, workload), or of each (target string, workload)
    when `exact`: the latest chosen by a re-check where there is one, else the fastest
    successful one."""
    best: dict[tuple[str, Workload], Record] = {}
    chosen: dict[tuple[str, Workload], Record] = {}
    for inp, result in records:
        key = (inp.target, inp.task.workload) if exact else record_key(inp)
        if cost_of(result) == float("inf"):
            continue
        if result.verdict == CHOSEN:
            chosen[key] = (inp, result)
        if key not in best or cost_of(result) < cost_of(best[key][1]):
            best[key] = (inp, result)
    return {**best, **chosen}


def pick_best(in_file: str | Path, out_file: str | Path) -> None:
    """Write the best record of each workload (and target kind) of `in_file` to `out_file`."""
    best = best_records(load_from_file(in_file))
    Path(out_file).write_text("".join(encode(*r) + "\n" for r in best.values()))


def distill(in_file: str | Path, out_file: str | Path) -> int:
    """Write the best record of each workload and target string of `in_file` to `out_file`
    (a log to ship with a model); returns how many."""
    best = best_records(load_from_file(in_file), exact=True)
    Path(out_file).write_text("".join(encode(*r) + "\n" for r in best.values()))
    return len(best)


class ApplyHistoryBest(DispatchContext):
    """Templates get the fastest recorded config of their workload (else the outer context's
    answer: outside any, the template's defaults)."""

    def __init__(self, records: str | Path | Iterable[Record]) -> None:
        super().__init__()
        if isinstance(records, str | Path):
            records = load_from_file(records)
        records = list(records)
        self.best = best_records(records)
        self.exact = best_records(records, exact=True)

    def _record(self, target: str, workload: Workload) -> Record | None:
        workload = workload_of(workload[0], workload[1:])
        return self.exact.get((target, workload)) or self.best.get((target_kind(target), workload))

    def _query_inside(self, target: str, workload: Workload) -> ConfigSpace | None:
        found = self._record(target, workload)
        return found[0].config if found else None

    def _cost(self, target: str, workload: Workload) -> float | None:
        found = self._record(target, workload)
        return fastest(found[1]) if found else None


def apply_history_best(records: str | Path | Iterable[Record]) -> ApplyHistoryBest:
    """`with autotvm.apply_history_best("tune.log"): ...` builds with the best configs."""
    return ApplyHistoryBest(records)
