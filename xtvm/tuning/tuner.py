"""Tuners: which configs of a task's space to measure next.

`tuner.tune(n_trial, measure_option, early_stopping, callbacks)` measures batches of configs
that `next_batch` proposes until `n_trial` are measured, the space is exhausted, or
`early_stopping` trials pass with no better one; each batch is passed to the callbacks
(`callback.log_to_file`, `callback.progress_bar`). `best_config` and `best_flops` hold the
fastest so far. The best is then re-checked against the default schedule (`recheck`): the
two re-check records go to the callbacks too, the one to use (`chosen`) marked so, which is
what `apply_history_best` of the log then applies. `load_history(records)` resumes: the
task's recorded configs count as measured (never measured again, counted in `n_trial`) and
teach a model-based tuner.

- `GridSearchTuner`, `RandomTuner`: index order, or random without repeats.
- `XGBTuner`: TVM's model-based tuner. Every `plan_size` measurements it fits a cost model
  (`cost_model.XGBoostCostModel`, gradient-boosted trees on tir features) and plans the
  next `plan_size` configs: the model's best of a random pool of unmeasured configs, with
  an `epsilon` share drawn at random from the rest of the pool (exploration). Its first
  plan, before any model, is the default schedule's config and random ones.
- `GATuner`: a genetic search over knob choices, fitness the measured throughput; the
  default schedule's config is in the first generation.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from xtvm.tuning.cost_model import XGBoostCostModel
from xtvm.tuning.measure import (
    MeasureInput,
    MeasureResult,
    create_measure_batch,
    remember,
)
from xtvm.tuning.measure import (
    measure_option as default_measure_option,
)
from xtvm.tuning.recheck import RECHECK_PAIRS, recheck, thread_clock
from xtvm.tuning.record import Record, cost_of, fastest, record_key
from xtvm.tuning.space import ConfigEntity, ConfigSpace
from xtvm.tuning.task import Task, target_kind

Callback = Callable[["Tuner", Sequence[MeasureInput], Sequence[MeasureResult]], None]


class Tuner:
    """The tuning loop; subclasses say which configs come next."""

    def __init__(self, task: Task) -> None:
        self.task = task
        self.space = task.config_space
        self.best_config: ConfigEntity | None = None
        self.best_cost = float("inf")
        self.best_flops = 0.0
        self.best_measure_pair: tuple[MeasureInput, MeasureResult] | None = None
        self.trial = 0  # configs measured so far
        self.visited: set[int] = set()
        self.history: list[Record] = []  # records taken by `load_history`
        # what to use after `tune`: the best unless its re-check against the default lost
        self.chosen: Record | None = None

    def has_next(self) -> bool:
        return len(self.visited) < len(self.space)

    def next_batch(self, batch_size: int) -> list[ConfigEntity]:
        raise NotImplementedError

    def take(self, index: int, batch: list[ConfigEntity]) -> None:
        """Add config `index` to `batch` unless it was measured or taken already."""
        if index not in self.visited:
            self.visited.add(index)
            batch.append(self.space.get(index))

    def update(self, inputs: Sequence[MeasureInput], results: Sequence[MeasureResult]) -> None:
        """Learn from measured configs (a model-based tuner would; these need not)."""

    def note(self, inp: MeasureInput, result: MeasureResult) -> bool:
        """Count one measured config; whether it is the best so far."""
        self.trial += 1
        self.visited.add(inp.config.index)
        cost = cost_of(result)
        if cost >= self.best_cost:  # an error costs infinity
            return False
        self.best_cost, self.best_config = cost, inp.config
        self.best_flops = self.task.flop / cost if self.task.flop else 0.0
        self.best_measure_pair = (inp, result)
        return True

    def load_history(self, records: Iterable[Record]) -> int:
        """Take the task's records (same workload and target kind) as measured: they are
        skipped, count as trials and teach the tuner. Returns how many were taken."""
        key = (target_kind(self.task.target), self.task.workload)
        taken: list[Record] = []
        for inp, result in records:
            index = inp.config.index
            if record_key(inp) != key or index in self.visited or not 0 <= index < len(self.space):
                continue
            if result.verdict:
                continue  # a re-check's measurement, not a trial
            if self.space.get(index) != inp.config:
                continue  # the template's knobs changed since
            taken.append((inp, result))
            self.note(inp, result)
        self.history += taken
        if taken:
            self.update([r[0] for r in taken], [r[1] for r in taken])
        return len(taken)

    def tune(
        self,
        n_trial: int,
        measure_option: dict[str, Any] | None = None,
        early_stopping: int | None = None,
        callbacks: Sequence[Callback] = (),
        recheck: int = RECHECK_PAIRS,
    ) -> None:
        """Measure up to `n_trial` configs (see the module docstring), then re-check the best
        against the default schedule in `recheck` interleaved pairs (0: not at all) and pass
        both re-check records to the callbacks: the one used is marked chosen."""
        option = measure_option or default_measure_option()
        remember(option.setdefault("measured", {}), self.history)  # their code is measured
        measure = create_measure_batch(option)
        batch_size = option["builder"].n_parallel
        best_trial = started = self.trial
        try:
            while self.trial < n_trial and self.has_next():
                configs = self.next_batch(min(batch_size, n_trial - self.trial))
                if not configs:
                    break
                inputs = [MeasureInput(self.task.target, self.task, c) for c in configs]
                results = measure(inputs)
                for inp, result in zip(inputs, results, strict=True):
                    if self.note(inp, result):
                        best_trial = self.trial
                self.update(inputs, results)
                for callback in callbacks:
                    callback(self, inputs, results)
                if early_stopping is not None and self.trial - best_trial >= early_stopping:
                    break
            if recheck > 0 and self.trial > started:  # a resumed run with nothing new: done
                checked = self.recheck(option, recheck)
                for callback in callbacks if checked else ():
                    callback(self, [c[0] for c in checked], [c[1] for c in checked])
        finally:
            option["runner"].close()

    def recheck(self, option: dict[str, Any], pairs: int = RECHECK_PAIRS) -> list[Record]:
        """Measure the best config against the default one again (`recheck.recheck`), each
        pair built and timed afresh, and set `chosen` to the record of the one to use.
        Returns the two re-check records, or none when there is nothing to re-check (no
        best, it is the default, or the template has no default point)."""
        default = self.task.default_index()
        best = self.best_measure_pair
        if best is None or default is None or best[0].config.index == default:
            self.chosen = best
            return []
        inputs = (
            MeasureInput(self.task.target, self.task, self.space.get(default)),
            MeasureInput(self.task.target, self.task, best[0].config),
        )

        def measure_pair(*pair: MeasureInput) -> tuple[MeasureResult, MeasureResult]:
            first, second = create_measure_batch({**option, "measured": {}})(pair)
            return first, second

        with thread_clock(option["runner"]):
            wins, on_default, on_best = recheck(*inputs, measure_pair, pairs)
        records = [(inputs[0], on_default), (inputs[1], on_best)]
        self.chosen = records[1] if wins else records[0]
        return records


class GridSearchTuner(Tuner):
    """Every config in index order (but those `load_history` took)."""

    def __init__(self, task: Task) -> None:
        super().__init__(task)
        self.counter = 0

    def next_batch(self, batch_size: int) -> list[ConfigEntity]:
        configs = []
        while len(configs) < batch_size and self.counter < len(self.space):
            self.take(self.counter, configs)  # not one measured before (a resumed run)
            self.counter += 1
        return configs


class RandomTuner(Tuner):
    """Configs drawn at random, none twice (`seed` makes the order repeatable)."""

    def __init__(self, task: Task, seed: int | None = None) -> None:
        super().__init__(task)
        self.rng = random.Random(seed)

    def next_batch(self, batch_size: int) -> list[ConfigEntity]:
        configs = []
        total = len(self.space)
        while len(configs) < batch_size and len(self.visited) < total:
            self.take(self.rng.randrange(total), configs)
        return configs


def knob_choices(space: ConfigSpace, index: int) -> list[int]:
    """The candidate chosen for each knob by the point `index` (first knob fastest)."""
    choices = []
    for candidates in space.space_map.values():
        choices.append(index % len(candidates))
        index //= len(candidates)
    return choices


def index_of(space: ConfigSpace, choices: Sequence[int]) -> int:
    index, scale = 0, 1
    for choice, candidates in zip(choices, space.space_map.values(), strict=True):
        index += choice * scale
        scale *= len(candidates)
    return index


class XGBTuner(Tuner):
    """Configs a learned cost model ranks best (see the module docstring)."""

    def __init__(
        self,
        task: Task,
        plan_size: int = 32,
        feature_type: str = "tir",
        loss_type: str = "rank",
        num_threads: int = 1,
        pool_size: int | None = None,
        epsilon: float = 0.1,
        seed: int | None = None,
    ) -> None:
        super().__init__(task)
        self.plan_size = plan_size
        self.pool_size = pool_size or 8 * plan_size
        self.epsilon = epsilon
        self.rng = random.Random(seed)
        self.model = XGBoostCostModel(task, feature_type, loss_type, num_threads, seed=seed or 0)
        self.plan: list[int] = []
        self.xs: list[int] = []
        self.ys: list[float] = []
        self.fitted_at = 0  # measurements when the model was last fit

    def pool(self) -> list[int]:
        """Unmeasured configs: all of them in a small space, else a random sample."""
        total, wanted = len(self.space), self.pool_size
        if total - len(self.visited) <= wanted:
            return [i for i in range(total) if i not in self.visited]
        found: set[int] = set()
        while len(found) < wanted:
            index = self.rng.randrange(total)
            if index not in self.visited:
                found.add(index)
        return sorted(found)

    def make_plan(self) -> list[int]:
        pool = self.pool()
        self.rng.shuffle(pool)
        if not self.model.trained:
            # the default schedule first: what the tuning must beat
            default = self.task.default_index()
            first = [] if default is None or default in self.visited else [default]
            return first + [i for i in pool if i != default][: self.plan_size - len(first)]
        scores = self.model.predict(pool)
        order = [pool[k] for k in np.argsort(-scores, kind="stable")]
        explore = round(self.epsilon * self.plan_size)
        best = order[: self.plan_size - explore]
        rest = order[len(best) :]
        return best + self.rng.sample(rest, min(explore, len(rest)))

    def next_batch(self, batch_size: int) -> list[ConfigEntity]:
        configs: list[ConfigEntity] = []
        while len(configs) < batch_size and self.has_next():
            if not self.plan:
                self.plan = self.make_plan()
                if not self.plan:
                    break
            self.take(self.plan.pop(0), configs)
        return configs

    def update(self, inputs: Sequence[MeasureInput], results: Sequence[MeasureResult]) -> None:
        for inp, result in zip(inputs, results, strict=True):
            self.xs.append(inp.config.index)
            self.ys.append(cost_of(result))
        if len(self.xs) - self.fitted_at >= self.plan_size or (
            not self.model.trained and len(self.xs) >= self.plan_size
        ):
            self.model.fit(self.xs, self.ys)
            self.fitted_at = len(self.xs)
            self.plan = []  # plan again with the new model


class GATuner(Tuner):
    """A genetic search: a population of `pop_size` configs; each generation keeps the
    `elite_num` fastest and breeds the rest from parents drawn by throughput, crossing knob
    choices over and mutating each with probability `mutation_prob`."""

    def __init__(
        self,
        task: Task,
        pop_size: int = 16,
        elite_num: int = 3,
        mutation_prob: float = 0.1,
        seed: int | None = None,
    ) -> None:
        super().__init__(task)
        self.pop_size = min(pop_size, len(self.space))
        self.elite_num = min(elite_num, self.pop_size)
        self.mutation_prob = mutation_prob
        self.rng = random.Random(seed)
        self.sizes = [len(c) for c in self.space.space_map.values()]
        self.scores: dict[int, float] = {}
        self.generation = self.rng.sample(range(len(self.space)), self.pop_size)
        default = task.default_index()  # the default schedule joins the first generation
        if default is not None and default not in self.generation:
            self.generation[0] = default
        self.pending = list(self.generation)

    def breed(self) -> list[int]:
        ranked = sorted(self.scores, key=lambda i: -self.scores[i])
        elites = ranked[: self.elite_num]
        parents = ranked[: max(self.pop_size, 2)]
        weights = [self.scores[i] + 1e-12 for i in parents]
        children: list[int] = []
        tries = 0
        while len(children) < self.pop_size - len(elites) and tries < 50 * self.pop_size:
            tries += 1
            a, b = self.rng.choices(parents, weights=weights, k=2)
            genes_a, genes_b = knob_choices(self.space, a), knob_choices(self.space, b)
            point = self.rng.randrange(len(self.sizes) + 1)
            genes = genes_a[:point] + genes_b[point:]
            for k, size in enumerate(self.sizes):
                if self.rng.random() < self.mutation_prob:
                    genes[k] = self.rng.randrange(size)
            child = index_of(self.space, genes)
            if child not in self.visited and child not in children:
                children.append(child)
        while len(children) < self.pop_size - len(elites) and self.has_next():
            child = self.rng.randrange(len(self.space))  # the search ran dry: a random one
            if child not in self.visited and child not in children:
                children.append(child)
        return elites + children

    def next_batch(self, batch_size: int) -> list[ConfigEntity]:
        configs: list[ConfigEntity] = []
        while len(configs) < batch_size and self.has_next():
            if not self.pending:
                if any(i not in self.scores for i in self.generation if i in self.visited):
                    break  # the generation is not measured yet
                self.generation = self.breed()
                self.pending = [i for i in self.generation if i not in self.visited]
                if not self.pending:
                    break
            self.take(self.pending.pop(0), configs)
        return configs

    def update(self, inputs: Sequence[MeasureInput], results: Sequence[MeasureResult]) -> None:
        for inp, result in zip(inputs, results, strict=True):
            cost = cost_of(result)
            self.scores[inp.config.index] = 0.0 if math.isinf(cost) else 1.0 / cost


class NeighbourTuner(Tuner):
    """A local search from the default schedule: the default config first, then the configs
    one knob away from the fastest measured so far (the nearest candidate of each knob, then
    two steps away), in an order `seed` shuffles. When the fastest config's neighbourhood is
    measured, the next fastest one's is searched; when every measured config's is, a random
    config restarts the search. The defaults of topi are good: a search that starts from them
    and moves knob by knob finds what beats them in a few trials, where a random first round
    (XGBTuner's, before its model trains) rarely comes near them."""

    def __init__(self, task: Task, seed: int | None = None, max_step: int = 2) -> None:
        super().__init__(task)
        self.rng = random.Random(seed)
        self.max_step = max_step
        self.sizes = [len(c) for c in self.space.space_map.values()]
        self.default = task.default_index()
        self.costs: dict[int, float] = {}
        self.done: set[int] = set()  # centers whose neighbourhood is measured

    def neighbours(self, index: int) -> list[int]:
        """Unmeasured configs one knob away from `index`, nearer candidates first."""
        genes = knob_choices(self.space, index)
        found: list[int] = []
        for step in range(1, self.max_step + 1):
            ring = []
            for k, size in enumerate(self.sizes):
                for move in (-step, step):
                    if 0 <= genes[k] + move < size:
                        changed = list(genes)
                        changed[k] += move
                        ring.append(index_of(self.space, changed))
            self.rng.shuffle(ring)
            found += [i for i in ring if i not in self.visited and i not in found]
        return found

    def next_batch(self, batch_size: int) -> list[ConfigEntity]:
        configs: list[ConfigEntity] = []
        if self.default is not None:
            self.take(self.default, configs)
        while len(configs) < batch_size and self.has_next():
            centers = sorted(
                (i for i in self.costs if i not in self.done), key=lambda i: self.costs[i]
            )
            if self.default is not None and self.default not in self.costs.keys() | self.done:
                centers.insert(0, self.default)  # not measured yet: its neighbours first
            for center in centers:
                candidates = self.neighbours(center)
                if candidates:
                    for index in candidates[: batch_size - len(configs)]:
                        self.take(index, configs)
                    break
                self.done.add(center)
            else:  # every neighbourhood measured (or nothing measured yet): restart
                unmeasured = len(self.space) - len(self.visited)
                if unmeasured <= 0:
                    break
                pick = self.rng.randrange(unmeasured)
                for index in range(len(self.space)):
                    if index not in self.visited:
                        if pick == 0:
                            self.take(index, configs)
                            break
                        pick -= 1
        return configs

    def update(self, inputs: Sequence[MeasureInput], results: Sequence[MeasureResult]) -> None:
        for inp, result in zip(inputs, results, strict=True):
            self.costs[inp.config.index] = fastest(result)  # the search follows the least
