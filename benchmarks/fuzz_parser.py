"""Mutation fuzzer for xtvm's text front end: parse, verify and print random broken inputs.

Seeds are the built-in snippets of `xtvm.testing.fuzz` plus every `*.mlir` file under
`lit_tests/` and `examples/`; each mutant gets 1-3 random edits (truncation, deleted, duplicated
or swapped spans and lines, bit flips, grammar tokens inserted). Every mutant must end as OK or
as located diagnostics; the script counts the outcomes, groups crashes by cause, saves a
reproducer per cause (with a minimized version) and prints the first few with tracebacks.

    python benchmarks/fuzz_parser.py                     # 10000 mutants, seed 0
    python benchmarks/fuzz_parser.py --count 500 --seed 7
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from xtvm.dialects.registry import default_context
from xtvm.testing.fuzz import (
    Outcome,
    Result,
    classify,
    grammar_vocabulary,
    minimize,
    mutants,
    seed_texts,
)

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=10_000, help="number of mutants")
    p.add_argument("--seed", type=int, default=0, help="random seed")
    p.add_argument("--timeout", type=float, default=5.0, help="seconds per mutant")
    p.add_argument("--show", type=int, default=5, help="crash causes printed in full")
    p.add_argument("--out", type=Path, default=None, help="reproducer folder (default: temp)")
    p.add_argument("--no-round-trip", action="store_true", help="skip the reparse check")
    p.add_argument("--no-minimize", action="store_true", help="save reproducers as found")
    args = p.parse_args(argv)

    ctx = default_context()
    seeds = seed_texts([ROOT / "lit_tests", ROOT / "examples"])
    vocabulary = grammar_vocabulary(ctx)
    out = args.out or Path(tempfile.mkdtemp(prefix="xtvm-fuzz-"))
    out.mkdir(parents=True, exist_ok=True)
    print(f"{len(seeds)} seeds, {len(vocabulary)} vocabulary tokens, {args.count} mutants")

    counts: Counter[Outcome] = Counter()
    causes: dict[str, tuple[Result, str, int]] = {}
    per_cause: Counter[str] = Counter()
    start = time.perf_counter()
    for index, text in enumerate(mutants(seeds, vocabulary, args.count, args.seed)):
        result = classify(ctx, text, timeout=args.timeout, round_trip=not args.no_round_trip)
        counts[result.outcome] += 1
        if result.outcome in (Outcome.CRASH, Outcome.HANG):
            key = result.signature
            per_cause[key] += 1
            causes.setdefault(key, (result, text, index))
        if (index + 1) % 1000 == 0:
            rate = (index + 1) / (time.perf_counter() - start)
            print(f"  {index + 1} mutants, {rate:.0f}/s, {len(causes)} crash causes", flush=True)

    elapsed = time.perf_counter() - start
    print(f"\n{args.count} mutants in {elapsed:.1f} s (seed {args.seed})")
    for outcome in Outcome:
        print(f"  {outcome.name:<11} {counts[outcome]:>6}")
    if not causes:
        print("no crashes or hangs")
        return 0

    print(f"\n{len(causes)} distinct crash/hang causes; reproducers in {out}")
    for number, (key, (result, text, index)) in enumerate(causes.items(), 1):
        (out / f"crash-{number:02d}.mlir").write_text(text)
        small = text
        if not args.no_minimize and result.outcome is Outcome.CRASH:
            small = minimize(
                text, lambda t, key=key: classify(ctx, t, timeout=args.timeout).signature == key
            )
        (out / f"crash-{number:02d}.min.mlir").write_text(small)
        # A crash that a fresh context does not repeat depends on state left by earlier inputs.
        fresh = classify(default_context(), small, timeout=args.timeout)
        stateful = "" if fresh.signature == key else "  (not repeated in a fresh context)"
        print(f"\n[{number}] {per_cause[key]}x  {key}{stateful}")
        print(f"    mutant #{index}: {out / f'crash-{number:02d}.mlir'}")
        if number > args.show:
            print(f"    {result.message.splitlines()[0] if result.message else ''}")
            continue
        print("    " + "\n    ".join(result.message.splitlines()))
        print("    minimized input:")
        print("      " + "\n      ".join(repr(line) for line in small.split("\n")))
        if result.traceback:
            print("    " + "\n    ".join(result.traceback.rstrip().splitlines()[-10:]))
    return 1


if __name__ == "__main__":
    sys.exit(main())
