"""Start-up time of xtvm's tools, side by side with xDSL's `xdsl-opt`; optionally the lit suite.

Each command runs as a fresh process, as a shell or lit runs it, `--repeats` times; the table
gives the median and the best wall time and the median CPU time (user + system) of the child.
The goal is 0.3 s of wall time for `xtvm-opt --help` and for a trivial parse (a three-line
`func.func`) on a quiet machine. On a shared machine wall time counts waiting for a core: the CPU
column is the steadier figure. The first call after a change of the grammar's sources fills the
per-user cache (`XTVM_CACHE_DIR`), so one untimed call of each command comes first.

    python benchmarks/startup.py                 # every tool's --help, the trivial parse
    python benchmarks/startup.py --repeats 20
    python benchmarks/startup.py --lit           # also the whole lit suite, once
    python benchmarks/startup.py --lit lit_tests/ir

Measured on the shared 2-core machine (load 7 to 11, so wall times are 2-3x the CPU times),
CPU seconds, before and after lazy dialect registration and lazy tool imports:

    xtvm-opt --help          0.07 -> 0.07      xdsl-opt --help           0.14-0.16
    xtvm-opt trivial.mlir    0.54 -> 0.23      xdsl-opt trivial.mlir     0.17-0.19
    xtvm-opt --list-passes   0.51 -> 0.20
    xtvm-translate --help    0.48 -> 0.05      (and compile, import-onnx, tune alike)
    lit lit_tests (96 files, warm cache)   151 s CPU, 7 m 10 s wall -> 104 s CPU, 4 m 39 s wall

On a quiet moment of the same machine (load 0.6), wall seconds, median of 10:

    xtvm-opt --help          0.065             xdsl-opt --help           0.157
    xtvm-opt trivial.mlir    0.226             xdsl-opt trivial.mlir     0.167
    lit lit_tests (101 files)   54.5 s wall, 106.6 s CPU
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TRIVIAL = "func.func @f() {\n  func.return\n}\n"
GOAL_S = 0.3


@dataclass
class Timing:
    name: str
    wall: list[float]
    cpu: list[float]

    def row(self) -> str:
        median = statistics.median(self.wall)
        goal = "" if median <= GOAL_S else "  (over the goal)"
        return (
            f"  {self.name:<34} {median:7.3f} {min(self.wall):7.3f} "
            f"{statistics.median(self.cpu):7.3f}{goal}"
        )


def tool(name: str, module: str) -> list[str]:
    """The console script `name` next to this Python, else `python -m module`."""
    script = Path(sys.executable).with_name(name)
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", module]


def run_once(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of `command` (which must succeed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def measure(name: str, command: list[str], repeats: int, env: dict[str, str]) -> Timing:
    run_once(command, env)  # fills the cache, warms the file system
    timing = Timing(name, [], [])
    for _ in range(repeats):
        wall, cpu = run_once(command, env)
        timing.wall.append(wall)
        timing.cpu.append(cpu)
    return timing


def commands(trivial: str) -> list[tuple[str, list[str]]]:
    opt = tool("xtvm-opt", "xtvm.tools.opt")
    found = [
        ("xtvm-opt --help", [*opt, "--help"]),
        ("xtvm-opt trivial.mlir", [*opt, trivial]),
        ("xtvm-opt --list-passes", [*opt, "--list-passes"]),
    ]
    for name, module in (
        ("xtvm-translate", "xtvm.tools.translate"),
        ("xtvm-run", "xtvm.tools.run"),
        ("xtvm-compile", "xtvm.tools.compile"),
        ("xtvm-import-onnx", "xtvm.tools.import_onnx"),
        ("xtvm-tune", "xtvm.tools.tune"),
    ):
        found.append((f"{name} --help", [*tool(name, module), "--help"]))
    xdsl_opt = shutil.which("xdsl-opt", path=str(Path(sys.executable).parent))
    if xdsl_opt is not None:
        found.append(("xdsl-opt --help (peer)", [xdsl_opt, "--help"]))
        found.append(("xdsl-opt trivial.mlir (peer)", [xdsl_opt, trivial]))
    return found


def time_lit(path: str, env: dict[str, str]) -> None:
    lit = shutil.which("lit", path=str(Path(sys.executable).parent)) or "lit"
    wall, cpu = run_once([lit, path, "-q"], env)
    print(f"  lit {path}: {wall:.1f} s wall, {cpu:.1f} s CPU ({os.cpu_count()} cores)")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    p.add_argument("--repeats", type=int, default=10, help="timed runs of each command")
    p.add_argument(
        "--lit",
        nargs="?",
        const="lit_tests",
        default=None,
        metavar="PATH",
        help="also time `lit PATH -q` once (default PATH: lit_tests)",
    )
    args = p.parse_args(argv)
    if args.repeats < 1:
        p.error("--repeats must be at least 1")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    with tempfile.TemporaryDirectory() as tmp:
        trivial = Path(tmp, "trivial.mlir")
        trivial.write_text(TRIVIAL)
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        print(f"  {'command':<34} {'median':>7} {'best':>7} {'CPU':>7}   (seconds)")
        for name, command in commands(str(trivial)):
            print(measure(name, command, args.repeats, env).row(), flush=True)
    if args.lit is not None:
        time_lit(args.lit, env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
