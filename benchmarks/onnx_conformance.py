"""ONNX backend node tests per supported op: a table op → passed / failed / skipped.

Runs every node test of `onnx.backend.test` whose op is one xtvm converts, through
`xtvm.onnx_backend.XtvmBackend`, and compares with the shipped reference outputs like
`BackendTest` does. Skipped: tests of the op that also use an unsupported op or element type.

    python benchmarks/onnx_conformance.py             # all supported ops
    python benchmarks/onnx_conformance.py Conv Resize # only these ops
    python benchmarks/onnx_conformance.py --failures  # also print why each failure failed
    python benchmarks/onnx_conformance.py --compiled  # relay.build + graph executor

With `--isolate` (the default with `--compiled`) each test runs in a forked child, so a
crashing kernel (a segfault) or one over `--timeout` seconds fails that test only.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
import warnings
from collections import defaultdict

import numpy as np
from onnx.backend.test.loader import load_model_tests
from onnx.backend.test.runner import _normalize_tensor

from xtvm.frontends.onnx import CONVERTERS
from xtvm.onnx_backend import XtvmBackend, snake, supported_node_tests


def run_case(case: object, compiled: bool = False) -> str | None:
    """None if the test passes, else the reason it fails (`compiled`: through relay.build)."""
    try:
        rep = XtvmBackend.prepare(case.model, compiled=compiled)  # type: ignore[attr-defined]
        for inputs, refs in case.data_sets:  # type: ignore[attr-defined]
            outputs = rep.run([_normalize_tensor(x) for x in inputs])
            if len(outputs) != len(refs):
                return f"{len(outputs)} outputs, expected {len(refs)}"
            for i, (out, ref) in enumerate(zip(outputs, refs, strict=True)):
                ref = _normalize_tensor(ref)
                if out.shape != ref.shape or out.dtype != ref.dtype:
                    return f"output {i}: {out.dtype}{out.shape}, expected {ref.dtype}{ref.shape}"
                rtol, atol = case.rtol, case.atol  # type: ignore[attr-defined]
                if not np.allclose(out, ref, rtol=rtol, atol=atol, equal_nan=True):
                    return f"output {i}: values differ (max {np.abs(out - ref).max():.3g})"
    except Exception as exc:
        return f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
    return None


def run_isolated(case: object, compiled: bool, timeout: int) -> str | None:
    """`run_case` in a forked child: a crash or a timeout is the failure's reason."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report through the pipe, never return into the caller
        os.close(read)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.alarm(timeout)
        try:
            reason = run_case(case, compiled)
        except BaseException as exc:
            reason = f"{type(exc).__name__}: {exc}"
        with os.fdopen(write, "w") as out:
            out.write(json.dumps(reason))
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        text = pipe.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        sig = signal.Signals(os.WTERMSIG(status))
        return f"timed out (> {timeout} s)" if sig == signal.SIGALRM else f"crashed ({sig.name})"
    return json.loads(text) if text else f"child exited with {os.WEXITSTATUS(status)}"


def op_of(name: str) -> str | None:
    """The supported op a node test is named after (longest matching snake-case prefix)."""
    stem = name.removeprefix("test_")
    names = {snake(op): op for op in CONVERTERS}
    hits = [s for s in names if stem.startswith((s, s.replace("_", "")))]
    return names[max(hits, key=len)] if hits else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("ops", nargs="*", help="only these ONNX op types")
    parser.add_argument("--failures", action="store_true", help="print each failure's reason")
    parser.add_argument(
        "--compiled", action="store_true", help="compile with relay.build, not the interpreter"
    )
    parser.add_argument(
        "--isolate",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="run each test in a forked child (default: with --compiled)",
    )
    parser.add_argument("--timeout", type=int, default=120, help="seconds per isolated test")
    args = parser.parse_args()
    isolate = args.compiled if args.isolate is None else args.isolate
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    selected = supported_node_tests()
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    failures: list[tuple[str, str]] = []
    start = time.perf_counter()
    for case in load_model_tests(kind="node"):
        op = selected.get(case.name) or op_of(case.name)
        if op is None or (args.ops and op not in args.ops):
            continue
        if case.name not in selected:
            counts[op][2] += 1
            continue
        if isolate:
            reason = run_isolated(case, args.compiled, args.timeout)
        else:
            reason = run_case(case, args.compiled)
        counts[op][0 if reason is None else 1] += 1
        if reason is not None:
            failures.append((case.name, reason))
    elapsed = time.perf_counter() - start
    width = max([len(op) for op in counts] + [8])
    print(f"{'op':<{width}}  {'passed':>6}  {'failed':>6}  {'skipped':>7}")
    for op in sorted(counts):
        p, f, s = counts[op]
        print(f"{op:<{width}}  {p:>6}  {f:>6}  {s:>7}")
    totals = [sum(c[i] for c in counts.values()) for i in range(3)]
    print(f"{'total':<{width}}  {totals[0]:>6}  {totals[1]:>6}  {totals[2]:>7}")
    print(f"({elapsed:.1f} s, {'compiled' if args.compiled else 'interpreted'})")
    if args.failures:
        for name, reason in failures:
            print(f"FAIL {name}: {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
