"""Measurement on a Ray cluster: `RayBuilder` compiles candidates as Ray tasks, `RayRunner`
times them on measuring actors, so that tuning runs on any number of machines with no tracker
of its own (TVM uses an RPC tracker; `RPCRunner` is that).

- `RayBuilder(timeout=, resources=)`: each candidate is a Ray task (one CPU) that
  instantiates, compiles and exports it (`measure.build_candidate`) and returns the library's
  bytes, which the driver writes to its own directory. An auto-scheduler candidate travels
  with its workload's tensors, so that no worker needs the workload registered. A build past
  `timeout` is cancelled (its worker killed) and is a BUILD_TIMEOUT; a build that raises or
  whose worker dies is an error, as with `LocalBuilder`.
- `RayRunner(number=, repeat=, min_repeat_ms=, timeout=, num_workers=, resources=)`: one
  measuring actor per device, `resources` choosing the devices (a custom resource or label
  such as `{"cpu-znver4": 1}`). An actor holds no CPU in Ray's accounting: it idles while the
  builds of the next round run (a tuner builds a round, then times it), and CPUs it held
  would starve them. An actor keeps a `LocalRunner`: the
  library's bytes are shipped to it and timed in the actor's own worker process, with
  `LocalRunner`'s semantics (a candidate that crashes or hangs costs a RUNTIME_DEVICE or
  RUN_TIMEOUT, its worker is replaced). An actor that dies or stops answering is replaced,
  and its candidate gets the same codes.

Jobs and replies travel by Ray's own serialization: a Ray cluster is trusted as the driver's
own processes are. Ray is optional (`pip install xtvm[distributed]`); without `ray.init()`
first, the first use starts a local instance (`address` joins a cluster instead).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

from xtvm.tuning.measure import (
    WORKER_START_S,
    BuildResult,
    LocalRunner,
    MeasureErrorNo,
    MeasureInput,
    MeasureResult,
    build_candidate,
    failed_build,
)

POLL_S = 0.02  # how often the driver looks at unfinished jobs
ACTOR_SLACK_S = 10  # beyond the runner's own timeout, before an actor is taken as stuck


def ray_module(address: str | None = None) -> Any:
    """The `ray` package, initialized (a local instance unless `address`)."""
    try:
        import ray
    except ImportError:
        raise ImportError(
            "RayBuilder and RayRunner need Ray: pip install 'xtvm[distributed]'"
        ) from None
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    return ray


def workload_of(inp: MeasureInput) -> tuple[str, list[Any]] | None:
    """An auto-scheduler candidate's workload key and tensors, to register on the worker."""
    key = getattr(inp.task, "workload_key", None)
    if key is None:
        return None
    from xtvm.tuning.auto_scheduler.workload_registry import workload_tensors

    return key, workload_tensors(key)


def build_remote(
    inp: MeasureInput,
    workload: tuple[str, list[Any]] | None,
    build_func: Callable[..., object] | None,
    known: Collection[str] = (),
) -> dict[str, Any]:
    """The body of a build task: the builder's reply, the library's bytes in `library`."""
    if workload is not None:
        from xtvm.tuning.auto_scheduler.workload_registry import register_workload_tensors

        register_workload_tensors(*workload)
    with tempfile.TemporaryDirectory(prefix="xtvm-ray-build-") as tmp:
        reply = build_candidate(inp, str(Path(tmp) / "candidate.so"), build_func, known)
        if "filename" in reply:
            reply["library"] = Path(reply.pop("filename")).read_bytes()
    return reply


class RayBuilder:
    """Compile candidates as Ray tasks, at most `n_parallel` at once (the cluster's CPUs by
    default), each at most `timeout` seconds."""

    def __init__(
        self,
        timeout: float = 10,
        n_parallel: int | None = None,
        build_func: str | Callable[..., object] = "default",
        resources: dict[str, float] | None = None,
        address: str | None = None,
    ) -> None:
        self.timeout = timeout
        self._n_parallel = n_parallel
        self.build_func = None if isinstance(build_func, str) else build_func
        self.resources = resources
        self.address = address
        self.directory = Path(tempfile.mkdtemp(prefix="xtvm-ray-"))
        self._count = 0
        self._task: Any = None

    @property
    def n_parallel(self) -> int:
        """Builds at once (a tuner's batch): as given, else the cluster's CPUs."""
        if self._n_parallel is None:
            cpus = ray_module(self.address).cluster_resources().get("CPU", 1)
            self._n_parallel = max(1, int(cpus))
        return self._n_parallel

    def build(
        self, inputs: Sequence[MeasureInput], known: Collection[str] = ()
    ) -> list[BuildResult]:
        """Build the candidates in parallel; one whose code hash is in `known` is not."""
        known = frozenset(known)
        ray = ray_module(self.address)
        if self._task is None:
            self._task = ray.remote(build_remote).options(
                num_cpus=1, resources=self.resources, max_retries=0
            )
        parallel = self.n_parallel
        results: list[BuildResult | None] = [None] * len(inputs)
        pending: dict[Any, tuple[int, float]] = {}
        submitted = 0
        while submitted < len(inputs) or pending:
            while submitted < len(inputs) and len(pending) < parallel:
                inp = inputs[submitted]
                ref = self._task.remote(inp, workload_of(inp), self.build_func, known)
                pending[ref] = (submitted, time.perf_counter())
                submitted += 1
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=POLL_S)
            for ref in ready:
                index, start = pending.pop(ref)
                results[index] = self._finish(ray, ref, start)
            now = time.perf_counter()
            for ref, (index, start) in list(pending.items()):
                if now - start > self.timeout:
                    ray.cancel(ref, force=True)
                    del pending[ref]
                    results[index] = BuildResult(
                        None, [], MeasureErrorNo.BUILD_TIMEOUT, "build timed out", now - start
                    )
        return [r for r in results if r is not None]

    def _finish(self, ray: Any, ref: Any, start: float) -> BuildResult:
        try:
            reply = ray.get(ref)
        except Exception as exc:  # the task raised, or its worker died
            return BuildResult(
                None, [], MeasureErrorNo.COMPILE_HOST, f"the build task failed: {exc}",
                time.perf_counter() - start,
            )  # fmt: skip
        filename = None
        if "library" in reply:
            self._count += 1
            path = self.directory / f"candidate{self._count}.so"
            path.write_bytes(reply["library"])
            filename = str(path)
        return BuildResult.of_reply(reply, filename, time.perf_counter() - start)


class MeasureWorker:
    """A measuring actor: times libraries in its own `LocalRunner` worker process."""

    def __init__(self) -> None:
        self.runner = LocalRunner()
        self.directory = Path(tempfile.mkdtemp(prefix="xtvm-ray-run-"))
        self.count = 0

    def measure(
        self, library: bytes, arg_info: list[Any], settings: dict[str, float]
    ) -> dict[str, Any]:
        for name, value in settings.items():
            setattr(self.runner, name, value)
        self.count += 1
        path = self.directory / f"candidate{self.count}.so"
        path.write_bytes(library)
        result = self.runner.run_one(BuildResult(str(path), arg_info))  # removes the file
        return {"costs": result.costs, "error_no": result.error_no, "error": result.error_msg}

    def close(self) -> None:
        self.runner.close()


class RayRunner(LocalRunner):
    """Time candidates on `num_workers` measuring actors (one per device, placed by
    `resources`), at most `timeout` seconds a candidate."""

    def __init__(
        self,
        number: int = 4,
        repeat: int = 3,
        min_repeat_ms: float = 0,
        timeout: float = 10,
        cooldown_interval: float = 0.0,
        num_workers: int = 1,
        resources: dict[str, float] | None = None,
        address: str | None = None,
    ) -> None:
        super().__init__(number, repeat, min_repeat_ms, timeout, cooldown_interval)
        if num_workers < 1:
            raise ValueError(f"RayRunner: num_workers must be at least 1, got {num_workers}")
        self.num_workers = num_workers
        self.resources = resources
        self.address = address
        self._actors: list[Any] = []
        self._fresh_actors: set[int] = set()  # actors whose runner has not started a worker

    def _actor(self, ray: Any) -> Any:
        options: dict[str, Any] = {"max_restarts": 0, "num_cpus": 0}
        if self.resources is not None:
            options["resources"] = self.resources
        return ray.remote(MeasureWorker).options(**options).remote()

    def _settings(self) -> dict[str, float]:
        return {
            "number": self.number,
            "repeat": self.repeat,
            "min_repeat_ms": self.min_repeat_ms,
            "timeout": self.timeout,
            "cooldown_interval": self.cooldown_interval,
        }

    def run(
        self, inputs: Sequence[MeasureInput], builds: Sequence[BuildResult]
    ) -> list[MeasureResult]:
        ray = ray_module(self.address)
        while len(self._actors) < self.num_workers:
            self._fresh_actors.add(len(self._actors))
            self._actors.append(self._actor(ray))
        results: list[MeasureResult | None] = [failed_build(b) for b in builds]
        queue = [k for k, r in enumerate(results) if r is None]
        free = list(range(self.num_workers))
        pending: dict[Any, tuple[int, int, float]] = {}  # ref -> (job, actor, start)
        while queue or pending:
            while queue and free:
                job, slot = queue.pop(0), free.pop(0)
                build = builds[job]
                assert build.filename is not None
                library = Path(build.filename).read_bytes()
                Path(build.filename).unlink(missing_ok=True)
                ref = self._actors[slot].measure.remote(library, build.arg_info, self._settings())
                pending[ref] = (job, slot, time.perf_counter())
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=POLL_S)
            now = time.perf_counter()
            for ref in ready:
                job, slot, start = pending.pop(ref)
                try:
                    reply = ray.get(ref)
                except Exception as exc:  # the actor died: a new one for the next job
                    self._actors[slot] = self._actor(ray)
                    self._fresh_actors.add(slot)
                    reply = {"error_no": MeasureErrorNo.RUNTIME_DEVICE, "error": str(exc)}
                else:
                    self._fresh_actors.discard(slot)
                results[job] = self._result(builds[job], reply, now - start)
                free.append(slot)
            for ref, (job, slot, start) in list(pending.items()):
                limit = self.timeout + ACTOR_SLACK_S
                limit += (WORKER_START_S + ACTOR_SLACK_S) * (slot in self._fresh_actors)
                if now - start > limit:  # the actor is stuck: replace it
                    ray.kill(self._actors[slot])
                    self._actors[slot] = self._actor(ray)
                    self._fresh_actors.add(slot)
                    del pending[ref]
                    reply = {"error_no": MeasureErrorNo.RUN_TIMEOUT, "error": "run timed out"}
                    results[job] = self._result(builds[job], reply, now - start)
                    free.append(slot)
        return [r for r in results if r is not None]

    @staticmethod
    def _result(build: BuildResult, reply: dict[str, Any], elapsed: float) -> MeasureResult:
        return MeasureResult(
            reply.get("costs", []),
            int(reply.get("error_no", MeasureErrorNo.NO_ERROR)),
            build.time_cost + elapsed,
            time.time(),
            reply.get("error", ""),
            build.code_hash,
        )

    def close(self) -> None:
        if self._actors:
            ray = ray_module(self.address)
            for actor in self._actors:
                ray.kill(actor)
        self._actors = []
        self._fresh_actors = set()


__all__ = ["RayBuilder", "RayRunner"]
