"""Measuring candidates: build each in a child process, time it in another.

`LocalBuilder` forks one child per candidate that instantiates the template with the config,
compiles it and writes a shared library (a fork: the child has the template, wherever it was
defined); `LocalRunner` keeps one worker interpreter that loads each library and times it on
random inputs; `RPCRunner` times them on a device a tracker assigns (`xtvm.rpc.runner`), for
which `LocalBuilder(build_func=cc.cross_compiler(...))` links them. Both wait at most `timeout`
seconds: a candidate
that fails, crashes its process or runs too long gives a `MeasureResult` with an error code
(`MeasureErrorNo`) and the tuning goes on (a dead or stuck worker is replaced).

Candidates whose final code is identical are measured once: the builder hashes the target and
the kernel's tir after every pass (`optimize_cpu_tir`, what LLVM IR is emitted from) and skips
code generation and linking of a hash already built; `create_measure_batch` gives such a
candidate a copy of the first one's measurement, marked with `duplicate_of` (that config's
index) and `code_hash`. Different knobs often lower alike (a column-block order of a single
block, a tile the pass pipeline unrolls the same), and a trial costs about a second of build.

Messages between processes are JSON. Children inherit the environment: `XTVM_NUM_THREADS`
sets the threads a candidate is timed with.
"""

from __future__ import annotations

import functools
import hashlib
import json
import multiprocessing
import os
import select
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Collection, Iterable, MutableMapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from xtvm.rpc.runner import time_on_device
from xtvm.runtime.module import CLOCKS
from xtvm.tuning.space import ConfigEntity
from xtvm.tuning.task import Task

ENTRY = "default_function"
FLUSH_BYTES = 64 << 20  # written between timed runs with `cache_flush`: twice a large L3
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
    code_hash: str = ""  # of the candidate's final code ("" when not known)
    duplicate_of: int | None = None  # the config whose measurement of the same code this is
    verdict: str = ""  # "chosen" or "rejected" by a re-check against the default (`recheck`)


@dataclass
class BuildResult:
    """A built candidate's library and its arguments ([shape, dtype] each), or an error;
    `duplicate` when its code (`code_hash`) was built already, so nothing was built. `warm`:
    the arguments a model's kernels before it just wrote (in cache when it runs there)."""

    filename: str | None
    arg_info: list[list[Any]] = field(default_factory=list)
    error_no: int = MeasureErrorNo.NO_ERROR
    error_msg: str = ""
    time_cost: float = 0.0
    code_hash: str = ""
    duplicate: bool = False
    warm: list[int] = field(default_factory=list)

    @classmethod
    def of_reply(cls, reply: dict[str, Any], filename: str | None, seconds: float) -> BuildResult:
        """The result of a builder's JSON reply (`build_candidate`'s)."""
        return cls(
            filename,
            reply.get("arg_info", []),
            reply.get("error_no", MeasureErrorNo.NO_ERROR),
            reply.get("error", ""),
            seconds,
            reply.get("code_hash", ""),
            bool(reply.get("duplicate", False)),
            [int(k) for k in reply.get("warm", [])],
        )


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

    def build(
        self, inputs: Sequence[MeasureInput], known: Collection[str] = ()
    ) -> list[BuildResult]:
        """Build each candidate, in order; one whose code hash is in `known`, or is that of
        an earlier candidate of `inputs`, is not built (`duplicate`)."""
        seen = set(known)
        results = []
        for inp in inputs:
            result = self.build_one(inp, seen)
            if result.code_hash and result.error_no == MeasureErrorNo.NO_ERROR:
                seen.add(result.code_hash)
            results.append(result)
        return results

    def build_one(self, inp: MeasureInput, known: Collection[str] = ()) -> BuildResult:
        self._count += 1
        path = self.directory / f"candidate{self._count}.so"
        start = time.perf_counter()
        context = multiprocessing.get_context("fork")
        receiver, sender = context.Pipe(duplex=False)
        process = context.Process(
            target=build_in_child, args=(inp, str(path), sender, self.build_func, known)
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
        return BuildResult.of_reply(reply, reply.get("filename"), time.perf_counter() - start)


def code_hash(target: str, module: object) -> str:
    """The hash of a kernel's final tir (printed) and its target: equal hashes, equal code."""
    return hashlib.sha256(f"{target}\n{module}".encode()).hexdigest()


def build_candidate(
    inp: MeasureInput,
    path: str,
    build_func: Callable[..., object] | None = None,
    known: Collection[str] = (),
) -> dict[str, Any]:
    """Instantiate, compile and export one candidate to `path`: the JSON-able reply of a
    builder (`filename`, `arg_info` and `code_hash`, or `error_no` and `error`). A CPU
    candidate whose code hash is in `known` is not compiled: `{"code_hash", "duplicate"}`.
    A model's kernel (`Task.kernel`) is lowered as `relay.build` lowers it; a template's as
    `tvm.build` does (which also unrolls the loops a schedule marks)."""
    from xtvm.driver.build import CPU_TARGETS, build, compile_cpu, lower, optimize_cpu_tir
    from xtvm.driver.relay_build import lower_kernels
    from xtvm.te.lower import schedule_to_module

    kernel = getattr(inp.task, "kernel", None)  # a model's kernel (auto-scheduler: none)
    try:
        s, args = inp.task.instantiate(inp.config)
    except Exception:
        return {"error_no": MeasureErrorNo.INSTANTIATION_ERROR, "error": traceback.format_exc()}
    reply: dict[str, Any] = {}
    try:
        if inp.target.split()[0] in CPU_TARGETS:
            if kernel is not None:
                tir = schedule_to_module(s, args, ENTRY)  # a model's kernel: as relay.build
                lower_kernels(tir)
            else:
                tir = lower(s, args, name=ENTRY)
                optimize_cpu_tir(tir)
            reply["code_hash"] = code_hash(inp.target, tir)
            if reply["code_hash"] in known:
                return {**reply, "duplicate": True}
            module = compile_cpu(tir, inp.target, ENTRY)
        else:
            module = build(s, args, target=inp.target, name=ENTRY)
        module.export_library(path, build_func)
    except Exception:
        return {"error_no": MeasureErrorNo.COMPILE_HOST, "error": traceback.format_exc()}
    info = [[[int(d) for d in t.shape], str(t.dtype)] for t in args]
    warm = list(range(kernel.inputs)) if kernel is not None else []
    return {**reply, "filename": path, "arg_info": info, "warm": warm}


def build_in_child(
    inp: MeasureInput,
    path: str,
    conn: Connection,
    build_func: Callable[..., object] | None = None,
    known: Collection[str] = (),
) -> None:
    """`build_candidate` in a forked child; the reply goes back as JSON."""
    conn.send_bytes(json.dumps(build_candidate(inp, path, build_func, known)).encode())
    conn.close()


def failed_build(build: BuildResult) -> MeasureResult | None:
    """The result of a candidate whose build failed (its error), or None when it built."""
    if build.error_no != MeasureErrorNo.NO_ERROR or build.filename is None:
        return MeasureResult(
            [], int(build.error_no), build.time_cost, time.time(), build.error_msg, build.code_hash
        )
    return None


class LocalRunner:
    """Time each built candidate in a worker process: `repeat` measurements of `number`
    runs each (longer while under `min_repeat_ms`), at most `timeout` seconds a candidate.
    `clock="thread"` times the worker thread's CPU time (`time_function`): at one thread on
    a shared machine, the candidates compare by what they cost, not by the load. With
    `cache_flush`, caches are evicted before each run (untimed): the kernel reads its weights
    from memory, as inside a model, not from the cache its last run filled; a model's kernel
    (`BuildResult.warm`) then has the inputs that the kernels before it wrote read back into
    the cache, as they are when it runs in the model (TVM flushes all but the first
    argument)."""

    def __init__(
        self,
        number: int = 4,
        repeat: int = 3,
        min_repeat_ms: float = 0,
        timeout: float = 10,
        cooldown_interval: float = 0.0,
        clock: str = "wall",
        cache_flush: bool = False,
    ) -> None:
        self.number = number
        self.cache_flush = cache_flush
        self.repeat = repeat
        self.min_repeat_ms = min_repeat_ms
        self.timeout = timeout
        self.cooldown_interval = cooldown_interval
        if clock not in CLOCKS:
            raise ValueError(f"unknown clock '{clock}' ({', '.join(CLOCKS)})")
        self.clock = clock
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
            "clock": self.clock,
            "flush": self.cache_flush,
            "warm": build.warm,
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
            build.code_hash,
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
        return MeasureResult(
            timing.costs, int(error_no), elapsed, time.time(), timing.message, build.code_hash
        )


def serve_runs() -> None:
    """The runner's worker: time the libraries named on stdin (a JSON request a line), a JSON
    reply a line on stdout, until stdin closes."""
    import numpy as np

    from xtvm.runtime.loader import load_module

    rng = np.random.default_rng(0)
    polluter = np.zeros(FLUSH_BYTES // 4, np.float32)

    def evict(warm: Sequence[np.ndarray]) -> None:
        polluter[::16] += 1.0  # a write to every cache line: the caches hold this instead
        for array in warm:
            array.sum()  # read back: what the model's kernels before it just wrote

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
                clock=request.get("clock", "wall"),
                flush=(
                    functools.partial(evict, [arrays[k] for k in request.get("warm", [])])
                    if request.get("flush")
                    else None
                ),
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


MeasuredCode = MutableMapping[str, tuple[int, MeasureResult]]


def remember(measured: MeasuredCode, records: Iterable[tuple[MeasureInput, MeasureResult]]) -> None:
    """Enter recorded measurements with a code hash in `measured` (a resumed tuning does not
    measure their code again); the first record of a code wins."""
    for inp, result in records:
        if result.code_hash:
            index = inp.config.index if result.duplicate_of is None else result.duplicate_of
            measured.setdefault(result.code_hash, (index, result))


def reuse(result: MeasureResult, index: int, build: BuildResult) -> MeasureResult:
    """The measurement of config `index` as that of another config with the same code."""
    return MeasureResult(
        list(result.costs),
        result.error_no,
        build.time_cost,
        time.time(),
        result.error_msg,
        build.code_hash,
        index,
    )


def create_measure_batch(
    option: dict[str, Any],
) -> Callable[[Sequence[MeasureInput]], list[MeasureResult]]:
    """Build then run a batch of candidates; a candidate whose code was measured already (in
    `option["measured"]`, code hash -> (config index, result), which this fills) or earlier
    in the batch gets that measurement (`reuse`) instead of its own."""
    builder: LocalBuilder = option["builder"]
    runner: LocalRunner = option["runner"]
    measured: MeasuredCode = option.setdefault("measured", {})

    def measure(inputs: Sequence[MeasureInput]) -> list[MeasureResult]:
        builds = builder.build(inputs, known=set(measured))
        run, first = [], set()  # the candidates to run: each new code once
        for k, build in enumerate(builds):
            code = build.code_hash
            if not code or (code not in measured and code not in first):
                run.append(k)
                first.add(code)
        ran = runner.run([inputs[k] for k in run], [builds[k] for k in run])
        results: dict[int, MeasureResult] = dict(zip(run, ran, strict=True))
        for k in run:
            if builds[k].code_hash:
                measured[builds[k].code_hash] = (inputs[k].config.index, results[k])
        for k, build in enumerate(builds):
            if k not in results:
                index, result = measured[build.code_hash]
                results[k] = reuse(result, index, build)
        return [results[k] for k in range(len(builds))]

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
