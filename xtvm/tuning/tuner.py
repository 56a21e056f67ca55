"""Tuners: which configs of a task's space to measure next.

`tuner.tune(n_trial, measure_option, early_stopping, callbacks)` measures batches of configs
that `next_batch` proposes until `n_trial` are measured, the space is exhausted, or
`early_stopping` trials pass with no better one; each batch is passed to the callbacks
(`callback.log_to_file`, `callback.progress_bar`). `best_config` and `best_flops` hold the
fastest so far.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from xtvm.tuning.measure import (
    MeasureInput,
    MeasureResult,
    create_measure_batch,
)
from xtvm.tuning.measure import (
    measure_option as default_measure_option,
)
from xtvm.tuning.record import cost_of
from xtvm.tuning.space import ConfigEntity
from xtvm.tuning.task import Task

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

    def has_next(self) -> bool:
        return len(self.visited) < len(self.space)

    def next_batch(self, batch_size: int) -> list[ConfigEntity]:
        raise NotImplementedError

    def update(self, inputs: Sequence[MeasureInput], results: Sequence[MeasureResult]) -> None:
        """Learn from measured configs (a model-based tuner would; these need not)."""

    def tune(
        self,
        n_trial: int,
        measure_option: dict[str, Any] | None = None,
        early_stopping: int | None = None,
        callbacks: Sequence[Callback] = (),
    ) -> None:
        option = measure_option or default_measure_option()
        measure = create_measure_batch(option)
        batch_size = option["builder"].n_parallel
        best_trial = 0
        try:
            while self.trial < n_trial and self.has_next():
                configs = self.next_batch(min(batch_size, n_trial - self.trial))
                if not configs:
                    break
                inputs = [MeasureInput(self.task.target, self.task, c) for c in configs]
                results = measure(inputs)
                for inp, result in zip(inputs, results, strict=True):
                    self.trial += 1
                    cost = cost_of(result)
                    if cost < self.best_cost:  # an error costs infinity
                        self.best_cost, self.best_config = cost, inp.config
                        self.best_flops = self.task.flop / cost if self.task.flop else 0.0
                        self.best_measure_pair = (inp, result)
                        best_trial = self.trial
                self.update(inputs, results)
                for callback in callbacks:
                    callback(self, inputs, results)
                if early_stopping is not None and self.trial - best_trial >= early_stopping:
                    break
        finally:
            option["runner"].close()


class GridSearchTuner(Tuner):
    """Every config in index order."""

    def __init__(self, task: Task) -> None:
        super().__init__(task)
        self.counter = 0

    def next_batch(self, batch_size: int) -> list[ConfigEntity]:
        configs = []
        while len(configs) < batch_size and self.counter < len(self.space):
            configs.append(self.space.get(self.counter))
            self.visited.add(self.counter)
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
            index = self.rng.randrange(total)
            if index not in self.visited:
                self.visited.add(index)
                configs.append(self.space.get(index))
        return configs
