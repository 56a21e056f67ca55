"""Measuring candidates: build each in a child process, time it in another.

`LocalBuilder` forks one child per candidate that instantiates the template with the config,
compiles it and writes a shared library (a fork: the child has the template, wherever it was
defined); `LocalRunner` keeps one worker interpreter that loads each library and times it on
random inputs; `RPCRunner` times them on a device a tracker assigns (`xtvm.rpc.runner`), for
which `LocalBuilder(build_func=cc.cross_compiler(...))` links them. Both wait at most `timeout`
seconds: a candidate
that fails, crashes its process or runs too long gives a `MeasureResult` with an error code
(`MeasureErrorNo`) and the tuning goes on (a dead or stuck worker is replaced).

Messages between processes are JSON. Children inherit the environment: `XTVM_NUM_THREADS`
sets the threads a candidate is timed with.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import select
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from xtvm.rpc.runner import time_on_device
from xtvm.tuning.space import ConfigEntity
from xtvm.tuning.task import Task

ENTRY = "default_function"
WORKER_START_S = 30  # more time for a fresh runner worker's first reply (it imports xtvm)


class MeasureErrorNo(IntEnum):
    """TVM's error codes of a measurement."""

    NO_ERROR = 0
    INSTANTIATION_ERROR = 1
    COMPILE_HOST = 2
    COMPILE_DEVICE = 3
    RUNTIME_DEVICE = 4
    WRONG_ANSWER = 5
    BUILD_TIMEOUT = 6
    RUN_TIMEOUT = 7
    UNKNOWN_ERROR = 8


@dataclass
class MeasureInput:
    """A candidate: a task and one config of its space, for a target."""

    target: str
    task: Task
    config: ConfigEntity


@dataclass
class MeasureResult:
    """Seconds per run (one per repeat), or an error code and its message."""

    costs: list[float]
    error_no: int
    all_cost: float
    timestamp: float
    error_msg: str = ""


@dataclass
class BuildResult:
    """A built candidate's library and its arguments ([shape, dtype] each), or an error."""

    filename: str | None
    arg_info: list[list[Any]] = field(default_factory=list)
    error_no: int = MeasureErrorNo.NO_ERROR
    error_msg: str = ""
    time_cost: float = 0.0


def receive(conn: Connection, timeout: float) -> dict[str, Any] | None:
    """The child's JSON reply, or None when it gave none within `timeout` (or died)."""
    try:
        if conn.poll(timeout):
            return json.loads(conn.recv_bytes())
    except (EOFError, OSError):
        pass
    return None


class LocalBuilder:
    """Compile each candidate in a forked child, at most `timeout` seconds each; `build_func`
    links its library (`export_library`'s fcompile, e.g. `cc.cross_compiler(...)`)."""

    def __init__(
        self,
        timeout: float = 10,
        n_parallel: int | None = None,
        build_func: str | Callable[..., object] = "default",
    ) -> None:
        self.timeout = timeout
        self.build_func = None if isinstance(build_func, str) else build_func
        self.n_parallel = n_parallel or 1
        self.directory = Path(tempfile.mkdtemp(prefix="xtvm-autotvm-"))
        self._count = 0

    def build(self, inputs: Sequence[MeasureInput]) -> list[BuildResult]:
        return [self.build_one(inp) for inp in inputs]

    def build_one(self, inp: MeasureInput) -> BuildResult:
        self._count += 1
        path = self.directory / f"candidate{self._count}.so"
        start = time.perf_counter()
        context = multiprocessing.get_context("fork")
        receiver, sender = context.Pipe(duplex=False)
        process = context.Process(
            target=build_in_child, args=(inp, str(path), sender, self.build_func)
        )
        process.start()
        sender.close()
        reply = receive(receiver, self.timeout)
        if reply is None and time.perf_counter() - start >= self.timeout:
            process.kill()
            reply = {"error_no": MeasureErrorNo.BUILD_TIMEOUT, "error": "build timed out"}
        process.join()
        receiver.close()
        if reply is None:
            reply = {
                "error_no": MeasureErrorNo.COMPILE_HOST,
                "error": f"the build process died (exit code {process.exitcode})",
            }
        return BuildResult(
            reply.get("filename"),
            reply.get("arg_info", []),
            reply.get("error_no", MeasureErrorNo.NO_ERROR),
            reply.get("error", ""),
            time.perf_counter() - start,
        )


def build_candidate(
    inp: MeasureInput, path: str, build_func: Callable[..., object] | None = None
) -> dict[str, Any]:
    """Instantiate, compile and export one candidate to `path`: the JSON-able reply of a
    builder (`filename` and `arg_info`, or `error_no` and `error`)."""
    from xtvm.driver.build import build

    try:
        s, args = inp.task.instantiate(inp.config)
    except Exception:
        return {"error_no": MeasureErrorNo.INSTANTIATION_ERROR, "error": traceback.format_exc()}
    try:
        module = build(s, args, target=inp.target, name=ENTRY)
        module.export_library(path, build_func)
    except Exception:
        return {"error_no": MeasureErrorNo.COMPILE_HOST, "error": traceback.format_exc()}
    info = [[[int(d) for d in t.shape], str(t.dtype)] for t in args]
    return {"filename": path, "arg_info": info}


def build_in_child(
    inp: MeasureInput,
    path: str,
    conn: Connection,
    build_func: Callable[..., object] | None = None,
) -> None:
    """`build_candidate` in a forked child; the reply goes back as JSON."""
    conn.send_bytes(json.dumps(build_candidate(inp, path, build_func)).encode())
    conn.close()


def failed_build(build: BuildResult) -> MeasureResult | None:
    """The result of a candidate whose build failed (its error), or None when it built."""
    if build.error_no != MeasureErrorNo.NO_ERROR or build.filename is None:
        return MeasureResult([], int(build.error_no), build.time_cost, time.time(), build.error_msg)
    return None


class LocalRunner:
    """Time each built candidate in a worker process: `repeat` measurements of `number`
    runs each (longer while under `min_repeat_ms`), at most `timeout` seconds a candidate."""

    def __init__(
        self,
        number: int = 4,
        repeat: int = 3,
        min_repeat_ms: float = 0,
        timeout: float = 10,
        cooldown_interval: float = 0.0,
    ) -> None:
        self.number = number
        self.repeat = repeat
        self.min_repeat_ms = min_repeat_ms
        self.timeout = timeout
        self.cooldown_interval = cooldown_interval
        self._worker: subprocess.Popen[bytes] | None = None
        self._fresh = False  # the worker has not answered yet (it is still importing)

    def _start(self) -> subprocess.Popen[bytes]:
        if self._worker is None or self._worker.poll() is not None:
            # a fresh interpreter: OpenMP's thread pool does not survive a fork
            code = "from xtvm.tuning.measure import serve_runs; serve_runs()"
            root = str(Path(__file__).resolve().parents[3])
            path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
            self._worker = subprocess.Popen(
                [sys.executable, "-c", code],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env={**os.environ, "PYTHONPATH": path},
            )
            self._fresh = True
        return self._worker

    def _stop(self) -> None:
        if self._worker is not None:
            if self._worker.poll() is None:
                self._worker.kill()
            self._worker.wait()
            for stream in (self._worker.stdin, self._worker.stdout):
                if stream is not None:
                    stream.close()
        self._worker = None

    def close(self) -> None:
        self._stop()

    def run(
        self, inputs: Sequence[MeasureInput], builds: Sequence[BuildResult]
    ) -> list[MeasureResult]:
        return [self.run_one(build) for build in builds]

    def run_one(self, build: BuildResult) -> MeasureResult:
        start = time.perf_counter()
        failed = failed_build(build)
        if failed is not None:
            return failed
        request = {
            "filename": build.filename,
            "arg_info": build.arg_info,
            "number": self.number,
            "repeat": self.repeat,
            "min_repeat_ms": self.min_repeat_ms,
        }
        worker = self._start()
        assert worker.stdin is not None and worker.stdout is not None
        reply = None
        try:
            worker.stdin.write(json.dumps(request).encode() + b"\n")
            worker.stdin.flush()
            # the first request also waits for the worker to import xtvm
            timeout = self.timeout + WORKER_START_S * self._fresh
            if select.select([worker.stdout], [], [], timeout)[0]:
                line = worker.stdout.readline()
                reply = json.loads(line) if line else None
            self._fresh = False
        except OSError:
            pass
        if reply is None:
            dead = worker.poll() is not None
            self._stop()
            code = MeasureErrorNo.RUNTIME_DEVICE if dead else MeasureErrorNo.RUN_TIMEOUT
            reply = {"error_no": code, "error": "the run crashed" if dead else "run timed out"}
        Path(build.filename).unlink(missing_ok=True)
        if self.cooldown_interval:
            time.sleep(self.cooldown_interval)
        elapsed = build.time_cost + time.perf_counter() - start
        return MeasureResult(
            reply.get("costs", []),
            reply.get("error_no", MeasureErrorNo.NO_ERROR),
            elapsed,
            time.time(),
            reply.get("error", ""),
        )


class RPCRunner(LocalRunner):
    """Time each built candidate on a device of `key` that the tracker at `host:port` assigns
    (TVM's RPCRunner), a session per candidate ended after `timeout` seconds by the server."""

    def __init__(
        self,
        key: str,
        host: str,
        port: int,
        priority: int = 1,
        timeout: float = 10,
        n_parallel: int | None = None,
        number: int = 4,
        repeat: int = 3,
        min_repeat_ms: float = 0,
        cooldown_interval: float = 0.0,
    ) -> None:
        super().__init__(number, repeat, min_repeat_ms, timeout, cooldown_interval)
        self.key, self.tracker, self.priority = key, (host, port), priority

    def run_one(self, build: BuildResult) -> MeasureResult:
        failed = failed_build(build)
        if failed is not None:
            return failed
        start = time.perf_counter()
        timing = time_on_device(
            self.tracker,
            self.key,
            build.filename,
            ENTRY,
            build.arg_info,
            self.number,
            self.repeat,
            self.min_repeat_ms,
            self.timeout,
            self.priority,
        )
        Path(build.filename).unlink(missing_ok=True)
        if self.cooldown_interval:
            time.sleep(self.cooldown_interval)
        codes = {"": MeasureErrorNo.NO_ERROR, "timeout": MeasureErrorNo.RUN_TIMEOUT}
        error_no = codes.get(timing.failure, MeasureErrorNo.RUNTIME_DEVICE)
        elapsed = build.time_cost + time.perf_counter() - start
        return MeasureResult(timing.costs, int(error_no), elapsed, time.time(), timing.message)


def serve_runs() -> None:
    """The runner's worker: time the libraries named on stdin (a JSON request a line), a JSON
    reply a line on stdout, until stdin closes."""
    import numpy as np

    from xtvm.runtime.loader import load_module

    rng = np.random.default_rng(0)
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # kernels' prints must not mix with the replies
    for line in sys.stdin.buffer:
        request = json.loads(line)
        try:
            module = load_module(request["filename"])
            arrays = [
                rng.uniform(-1, 1, shape).astype(dtype) for shape, dtype in request["arg_info"]
            ]
            timer = module.time_evaluator(
                ENTRY,
                number=request["number"],
                repeat=request["repeat"],
                min_repeat_ms=request["min_repeat_ms"],
            )
            reply: dict[str, Any] = {"costs": timer(*arrays).results}
        except Exception:
            reply = {"error_no": MeasureErrorNo.RUNTIME_DEVICE, "error": traceback.format_exc()}
        out.write(json.dumps(reply).encode() + b"\n")
        out.flush()


def measure_option(
    builder: LocalBuilder | None = None, runner: LocalRunner | RPCRunner | None = None
) -> dict[str, Any]:
    """How tuners measure: `measure_option(builder=LocalBuilder(), runner=LocalRunner())`."""
    return {"builder": builder or LocalBuilder(), "runner": runner or LocalRunner()}


def create_measure_batch(
    option: dict[str, Any],
) -> Callable[[Sequence[MeasureInput]], list[MeasureResult]]:
    builder: LocalBuilder = option["builder"]
    runner: LocalRunner = option["runner"]

    def measure(inputs: Sequence[MeasureInput]) -> list[MeasureResult]:
        return runner.run(inputs, builder.build(inputs))

    return measure


__all__ = [
    "LocalBuilder",
    "LocalRunner",
    "MeasureErrorNo",
    "MeasureInput",
    "MeasureResult",
    "RPCRunner",
    "measure_option",
]
