"""Tuning measurements through Ray: candidates measured per minute with 1 and 2 workers
(`RayBuilder(n_parallel=w)`, `RayRunner(num_workers=w)` on a local Ray instance of 2 CPUs);
never asserted. Needs Ray (`pip install 'xtvm[distributed]'`).

The same `--candidates` auto-scheduler candidates of a matmul are built and timed with each
worker count, after a warm-up batch that starts the actors; printed: wall time, candidates per
minute, and the speed-up of 2 workers over 1.

    python benchmarks/tuning_ray.py --candidates 16

On the 2 cores with nothing else running (load about 1), `--size 256`: 48 candidates, 403 ->
737 and 405 -> 759 a minute (1.83x and 1.87x); 16 candidates, 537 -> 955 (1.78x, the
warm-up weighs more). At a load of 10-11 the same gave 0.96-1.26x: the scaling needs free
cores.
"""

from __future__ import annotations

import os

os.environ.setdefault("XTVM_NUM_THREADS", "1")  # before xtvm starts any thread pool

import argparse
import time

from xtvm import auto_scheduler, te
from xtvm.topi import nn
from xtvm.tuning.auto_scheduler.search_policy import ProgramMeasurer


@auto_scheduler.register_workload
def ray_bench_matmul(n: int) -> list[te.Tensor]:
    a = te.placeholder((n, n), name="A")
    b = te.placeholder((n, n), name="B")
    return [a, b, nn.matmul(a, b, False, False)]


def main() -> None:
    import ray

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--candidates", type=int, default=16)
    parser.add_argument("--size", type=int, default=128, help="of the square matmul")
    options = parser.parse_args()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    task = auto_scheduler.SearchTask(func=ray_bench_matmul, args=(options.size,))
    policy = auto_scheduler.SketchPolicy(task, program_cost_model="random", verbose=0)
    states = policy.next_states(options.candidates + 4)
    warm, timed = states[:4], states[4:]
    rates = {}
    for workers in (1, 2):
        builder = auto_scheduler.RayBuilder(timeout=60, n_parallel=workers)
        runner = auto_scheduler.RayRunner(number=3, repeat=2, timeout=20, num_workers=workers)
        measurer = ProgramMeasurer(builder, runner)
        measurer.measure(task, policy, warm)
        start = time.perf_counter()
        _, results = measurer.measure(task, policy, timed)
        seconds = time.perf_counter() - start
        measurer.close()
        failed = sum(r.error_no != 0 for r in results)
        rates[workers] = 60 * len(timed) / seconds
        print(
            f"{workers} worker(s): {len(timed)} candidates in {seconds:.1f} s, "
            f"{rates[workers]:.1f} per minute" + (f" ({failed} failed)" if failed else "")
        )
    print(f"2 workers / 1 worker: {rates[2] / rates[1]:.2f}x")
    ray.shutdown()


if __name__ == "__main__":
    main()
