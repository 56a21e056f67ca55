"""Malformed input never crashes the front end: it ends in OK or in located diagnostics.

A few hundred mutants of the seed inputs (the same ones for every run), random token sequences
from the grammar's vocabulary (hypothesis), and one run of the real `xtvm-opt` on a broken file.
`benchmarks/fuzz_parser.py` runs the same classifier on many more mutants.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xtvm.dialects.registry import default_context
from xtvm.ir.context import IRContext
from xtvm.testing.fuzz import (
    SEED_SNIPPETS,
    Outcome,
    Result,
    classify,
    grammar_vocabulary,
    mutants,
    seed_texts,
)

ROOT = Path(__file__).resolve().parents[2]
MUTANTS = 300
FAILED = (Outcome.CRASH, Outcome.HANG)


@functools.cache
def context() -> IRContext:
    return default_context()


@functools.cache
def vocabulary() -> list[str]:
    return grammar_vocabulary(context())


def describe(text: str, result: Result) -> str:
    return (
        f"{result.outcome.name} in {result.stage}: {result.kind}\n"
        f"input: {text!r}\n{result.message}\n{result.traceback}"
    )


def test_seed_snippets_are_valid() -> None:
    # Mutants start from valid IR, so that most edits leave a nearly valid program.
    for snippet in SEED_SNIPPETS:
        result = classify(context(), snippet)
        assert result.outcome is Outcome.OK, describe(snippet, result)


def test_mutants_end_in_diagnostics_not_crashes() -> None:
    seeds = seed_texts([ROOT / "lit_tests", ROOT / "examples"])
    failures = []
    counts = dict.fromkeys(Outcome, 0)
    for text in mutants(seeds, vocabulary(), MUTANTS, seed=0):
        result = classify(context(), text)
        counts[result.outcome] += 1
        if result.outcome in FAILED:
            failures.append(describe(text, result))
    assert not failures, f"{len(failures)} of {MUTANTS} mutants failed:\n\n" + "\n\n".join(
        failures[:3]
    )
    assert counts[Outcome.DIAGNOSTIC] > 0 and counts[Outcome.OK] > 0


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=st.data())
def test_token_sequences_end_in_diagnostics(data: st.DataObject) -> None:
    tokens = data.draw(st.lists(st.sampled_from(vocabulary()), min_size=1, max_size=30))
    separator = data.draw(st.sampled_from([" ", "", "\n"]))
    # Half the cases start inside a valid snippet, so the tokens reach deeper parser states.
    snippet = data.draw(st.sampled_from(("", *SEED_SNIPPETS)))
    cut = data.draw(st.integers(0, len(snippet)))
    text = snippet[:cut] + " " + separator.join(tokens) + " " + snippet[cut:]
    result = classify(context(), text)
    assert result.outcome not in FAILED, describe(text, result)


def xtvm_opt() -> list[str]:
    script = Path(sys.executable).with_name("xtvm-opt")
    if script.exists():
        return [str(script)]
    found = shutil.which("xtvm-opt")
    return [found] if found else [sys.executable, "-m", "xtvm.tools.opt"]


def test_tool_reports_malformed_input_with_a_caret(tmp_path: Path) -> None:
    source = tmp_path / "broken.mlir"
    source.write_text(
        "func.func @f(%a: i32) -> i32 {\n  %b = arith.addi %a, : i32\n  func.return %b : i32\n}\n"
    )
    run = subprocess.run(
        [*xtvm_opt(), str(source)], capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr
    assert "internal error" not in run.stderr
    lines = run.stderr.splitlines()
    heads = [i for i, line in enumerate(lines) if re.match(r".*broken\.mlir:2:\d+: error: ", line)]
    assert heads, run.stderr
    head = heads[0]
    column = int(lines[head].split("broken.mlir:2:")[1].split(":")[0])
    assert lines[head + 1] == "  %b = arith.addi %a, : i32"
    assert lines[head + 2] == " " * (column - 1) + "^"
