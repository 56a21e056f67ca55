"""The search: sketches filled in at random, evolved under the cost model, measured.

Each round `SketchPolicy.continue_search_one_round` makes a population of candidates (random
fillings of the sketches and mutants of the fastest measured ones), evolves it for a few generations
(the fittest by the model's score are kept and mutated), then measures the best scored that were
never measured, a few random ones among them (`eps_greedy`) so that the model sees beyond its own
taste. A task's first round (its screen untrained) lowers a `FIRST_ROUND_WIDEN` times longer
shortlist, for the tir model (shared by `TaskScheduler`'s tasks) and the default schedule's
neighbourhood to choose from. Measured costs retrain the model. `program_cost_model` picks it:
`"xgb"` (`XGBModel`, the default: the best of the screened population re-ranked on their lowered
tir), `"ridge"` (sketch features only) or `"random"` (random search), or a model object.
"""

from __future__ import annotations

import functools
import math
import random
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from xtvm.te.expr import Tensor
from xtvm.te.schedule import Schedule
from xtvm.tuning import measure
from xtvm.tuning.auto_scheduler.compute_dag import ComputeDAG
from xtvm.tuning.auto_scheduler.cost_model import FeatureSpace, RandomModel, RidgeModel, XGBModel
from xtvm.tuning.auto_scheduler.loop_state import DEFAULT_STATE, State
from xtvm.tuning.auto_scheduler.measure_record import MeasureInput, cost_of
from xtvm.tuning.auto_scheduler.sketch import (
    Candidate,
    decode,
    generate_sketches,
    mutate,
    sample,
)
from xtvm.tuning.measure import MeasureResult
from xtvm.tuning.recheck import RECHECK_PAIRS, recheck, thread_clock

FIRST_ROUND_WIDEN = 4  # a task's first shortlist is this much longer: its screen is untrained
MeasureCallback = Callable[[Any, Sequence[MeasureInput], Sequence[MeasureResult]], None]


class TaskLike(Protocol):
    workload_key: str
    target: str
    compute_dag: ComputeDAG
    desc: str

    def instantiate(self, state: State) -> tuple[Schedule, list[Tensor]]: ...


class LocalRunner(measure.LocalRunner):
    """AutoTVM's runner with TVM's auto_scheduler arguments and defaults (at least 100 ms a
    measurement); `enable_cpu_cache_flush` evicts the caches before each run, as TVM's."""

    def __init__(
        self,
        timeout: float = 10,
        number: int = 3,
        repeat: int = 1,
        min_repeat_ms: float = 100,
        cooldown_interval: float = 0.0,
        enable_cpu_cache_flush: bool = False,
    ) -> None:
        super().__init__(
            number, repeat, min_repeat_ms, timeout, cooldown_interval,
            cache_flush=enable_cpu_cache_flush,
        )  # fmt: skip


class ProgramMeasurer:
    """Builds and times candidates with AutoTVM's builder and runner (child processes)."""

    def __init__(
        self,
        builder: measure.LocalBuilder,
        runner: measure.LocalRunner,
        callbacks: Sequence[MeasureCallback] = (),
    ) -> None:
        self.builder, self.runner, self.callbacks = builder, runner, list(callbacks)

    def measure(
        self, task: TaskLike, policy: Any, states: Sequence[State]
    ) -> tuple[list[MeasureInput], list[MeasureResult]]:
        # the builder's child calls task.instantiate(state): the task replays the steps
        jobs = [measure.MeasureInput(task.target, task, state) for state in states]  # type: ignore[arg-type]
        results = self.runner.run(jobs, self.builder.build(jobs))
        inputs = [MeasureInput(task.workload_key, task.target, s) for s in states]
        for callback in self.callbacks:
            callback(policy, inputs, results)
        return inputs, results

    def run_states(self, task: TaskLike, states: Sequence[State]) -> list[MeasureResult]:
        """Build and time `states` of `task` (no callbacks: not trials)."""
        jobs = [measure.MeasureInput(task.target, task, s) for s in states]  # type: ignore[arg-type]
        return self.runner.run(jobs, self.builder.build(jobs))

    def recheck(self, task: TaskLike, policy: Any, pairs: int = RECHECK_PAIRS) -> State | None:
        """Measure the policy's best against the default schedule again (`recheck.recheck`:
        interleaved pairs, each built and timed afresh) and pass both re-check records to
        the callbacks, the one to use marked chosen. Returns that state, or None when the
        task has no default or its best is the default or not measured."""
        best = policy.best_state
        if getattr(task, "default_schedule", None) is None or best is None or best.is_default:
            return None

        def measure_pair(*states: State) -> tuple[MeasureResult, MeasureResult]:
            first, second = self.run_states(task, states)
            return first, second

        with thread_clock(getattr(self, "runner", None)):
            wins, on_default, on_best = recheck(DEFAULT_STATE, best, measure_pair, pairs)
        policy._note(DEFAULT_STATE, cost_of(on_default))  # the policy learns the fresh costs
        policy._note(best, cost_of(on_best))
        inputs = [MeasureInput(task.workload_key, task.target, s) for s in (DEFAULT_STATE, best)]
        for callback in self.callbacks:
            callback(policy, inputs, [on_default, on_best])
        return best if wins else DEFAULT_STATE

    def close(self) -> None:
        self.runner.close()


def make_model(spec: object, task: TaskLike, sketches: Sequence[Any], seed: int) -> Any:
    """The cost model `spec` names ("xgb", "xgb.kernel" or "xgb.store": its features one
    vector a kernel or a row a store; "ridge", "random"), or `spec` itself, bound to the
    task."""
    if spec == "ridge":
        return RidgeModel(FeatureSpace(sketches), seed=seed)
    if isinstance(spec, str):
        models = {
            "xgb": XGBModel,
            "xgb.kernel": XGBModel,
            "xgb.store": functools.partial(XGBModel, feature="store"),
            "random": RandomModel,
        }
        if spec not in models:
            raise ValueError(f"unknown cost model '{spec}' ({', '.join([*models, 'ridge'])})")
        spec = models[spec](seed=seed)
    if hasattr(spec, "attach"):
        return spec.attach(task, sketches)
    return spec


class SketchPolicy:
    """TVM's sketch policy for one task: rule-made sketches, evolution under a learned model."""

    def __init__(
        self,
        task: TaskLike,
        program_cost_model: object = "xgb",
        seed: int | None = None,
        verbose: int = 1,
        population: int = 2048,
        generations: int = 4,
        eps_greedy: float = 0.1,
    ) -> None:
        self.task = task
        self.sketches = generate_sketches(task.compute_dag)
        self.rng = random.Random(0 if seed is None else seed)
        self.model = make_model(program_cost_model, task, self.sketches, seed or 0)
        self.verbose = verbose
        self.population = population
        self.generations = generations
        self.eps_greedy = eps_greedy
        self.measured: dict[State, float] = {}
        self.candidate_of: dict[State, Candidate] = {}
        self.best_cost = math.inf
        self.best_state: State | None = None
        self.trials = 0

    def preload(self, records: Iterable[tuple[MeasureInput, MeasureResult]]) -> None:
        """Learn from records of earlier runs; their candidates are not measured again."""
        found, costs = [], []
        for inp, result in records:
            self._note(inp.state, cost_of(result))
            if inp.state.is_default:
                self._noted_default(cost_of(result))
            candidate = decode(inp.state, self.sketches)
            if candidate is not None:
                found.append(candidate)
                costs.append(cost_of(result))
        self.model.update(found, costs)

    def measure_default(self, measurer: ProgramMeasurer) -> None:
        """Measure the compiler's default schedule of a relay kernel (not a trial): the
        baseline that a searched candidate must beat to be applied. The model builds with
        it, so a failure is transient (a build timeout on a loaded machine): measured again
        once; an infinite baseline would make every slow candidate look like a win."""
        if getattr(self.task, "default_schedule", None) is None or DEFAULT_STATE in self.measured:
            return
        for _ in range(2):
            _, results = measurer.measure(self.task, self, [DEFAULT_STATE])
            self._note(DEFAULT_STATE, cost_of(results[0]))
            if math.isfinite(cost_of(results[0])):
                break
        self._noted_default(self.measured[DEFAULT_STATE])

    def _noted_default(self, cost: float) -> None:
        if hasattr(self.model, "note_default"):  # the model seeds its first round near it
            self.model.note_default(cost)

    def _note(self, state: State, cost: float) -> None:
        self.measured[state] = min(cost, self.measured.get(state, math.inf))
        if cost < self.best_cost:
            self.best_cost, self.best_state = cost, state

    def _state(self, candidate: Candidate) -> State:
        state = candidate.state(self.sketches)
        self.candidate_of.setdefault(state, candidate)
        return state

    def _fittest_measured(self, count: int) -> list[Candidate]:
        ranked = sorted(  # by cost alone: states do not compare, and costs may tie
            (s for s, cost in self.measured.items() if math.isfinite(cost)),
            key=lambda s: self.measured[s],
        )
        found = []
        for state in ranked:
            candidate = self.candidate_of.get(state) or decode(state, self.sketches)
            if candidate is not None:
                found.append(candidate)
            if len(found) == count:
                break
        return found

    def _evolve(self) -> list[Candidate]:
        """A population evolved under the model, best scored first."""
        if getattr(self.model, "uniform", False):  # random search: no evolution
            return [sample(self.rng, self.sketches) for _ in range(self.population)]
        parents = self._fittest_measured(8)
        population = [sample(self.rng, self.sketches) for _ in range(self.population // 2)]
        while parents and len(population) < self.population:
            population.append(mutate(self.rng, self.rng.choice(parents), self.sketches))
        while len(population) < self.population:
            population.append(sample(self.rng, self.sketches))
        for _ in range(self.generations if self.model.trained else 0):
            scores = self.model.predict(population)
            order = sorted(range(len(population)), key=lambda k: -scores[k])
            elite = [population[k] for k in order[: len(population) // 4]]
            population = elite + [
                mutate(self.rng, self.rng.choice(elite), self.sketches)
                for _ in range(self.population - len(elite))
            ]
        unique = list(dict.fromkeys(population))
        scores = self.model.predict(unique)
        return [unique[k] for k in sorted(range(len(unique)), key=lambda k: -scores[k])]

    def next_states(self, count: int) -> list[State]:
        """`count` candidates never measured, the model's favourites and a few random."""
        chosen: list[State] = []
        for _ in range(4):  # a small space may need several populations
            ranked = [c for c in self._evolve() if self._state(c) not in self.measured]
            if hasattr(self.model, "rank") and ranked:
                widen = FIRST_ROUND_WIDEN if getattr(self.model, "first_round", False) else 1
                shortlist = ranked[: widen * self.model.rerank_factor * count]
                scores = self.model.rank(shortlist)
                order = sorted(range(len(shortlist)), key=lambda k: -scores[k])
                ranked = [shortlist[k] for k in order] + ranked[len(shortlist) :]
            randoms = sum(self.rng.random() < self.eps_greedy for _ in range(count))
            for candidate in ranked[: count - randoms] + self.rng.sample(
                ranked, min(randoms, len(ranked))
            ):
                state = self._state(candidate)
                if state not in chosen and len(chosen) < count:
                    chosen.append(state)
            if len(chosen) == count:
                break
        return chosen

    def continue_search_one_round(
        self, num_measure: int, measurer: ProgramMeasurer
    ) -> tuple[list[MeasureInput], list[MeasureResult]]:
        states = self.next_states(num_measure)
        if not states:
            return [], []
        inputs, results = measurer.measure(self.task, self, states)
        costs = [cost_of(r) for r in results]
        for state, cost in zip(states, costs, strict=True):
            self._note(state, cost)
        self.trials += len(states)
        self.model.update([self.candidate_of[s] for s in states], costs)
        if self.verbose:
            flop = self.task.compute_dag.flop_ct
            gflops = flop / self.best_cost / 1e9 if math.isfinite(self.best_cost) else 0.0
            failed = sum(not math.isfinite(c) for c in costs)
            sys.stdout.write(
                f"{self.task.desc}: {self.trials} trials, best {gflops:.2f} GFLOP/s"
                + (f" ({failed} of {len(costs)} failed)" if failed else "")
                + "\n"
            )
        return inputs, results
