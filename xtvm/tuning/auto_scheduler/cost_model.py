"""The cost models: which candidates are worth measuring.

`XGBModel` (TVM's, the default) ranks candidates by gradient-boosted trees (`cost_model.Booster`)
on the features of their lowered tir (`features.tir_features`: loop extents, parallel,
vector and unrolled loops, flop per byte, each buffer's strides, reuse and footprint) beside
their sketch features, retrained after every measured round. Lowering a candidate costs about
10 ms, and the evolution scores thousands a round, so the evolution is screened by trees on
the sketch features alone and only the `rerank_factor` x (candidates to measure) best of it
are lowered and ranked by the trees on tir. `RandomModel` is random search: uniform samples of
the sketches, no evolution.

`RidgeModel`'s features come from the candidate (its sketch, splits and unrolled loops), not from
lowered tir. Per sketch, the features are the log2 of every tile length (the outer part
included), the log2 volume of each tiling level, the unroll flags and the squares of all of
them, so that the linear model can place an optimum inside a range; other sketches' blocks
are zero. `RidgeModel` fits the measured throughput relative to the best (1 for the best, 0 for
a failure) by ridge regression; until it has seen `MIN_SAMPLES` candidates it predicts noise.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from xtvm.tuning.auto_scheduler.loop_state import DEFAULT_STATE, SplitStep
from xtvm.tuning.auto_scheduler.sketch import Candidate, Sketch
from xtvm.tuning.cost_model import (
    Booster,
    PackSumBooster,
    schedule_features,
    schedule_store_features,
)
from xtvm.tuning.features import LENGTH

MIN_SAMPLES = 8
FEATURES = ("kernel", "store")  # XGBModel's tir features: one vector a kernel, or a row a store
LEVELS = 4  # tiling levels a split makes at most


def raw_features(candidate: Candidate, sketch: Sketch) -> list[float]:
    values: list[float] = []
    volumes = [0.0] * (2 * LEVELS)  # per level, spatial (4-way splits) then reduction splits
    for index, lengths in zip(sketch.split_ids, candidate.lengths, strict=True):
        step = sketch.steps[index]
        assert isinstance(step, SplitStep)
        parts = [step.extent // math.prod(lengths), *lengths]
        logs = [math.log2(p) for p in parts]
        values.extend(logs)
        base = 0 if len(parts) == LEVELS else LEVELS
        for k, v in enumerate(logs[:LEVELS]):
            volumes[base + k] += v
    return values + volumes + [float(u) for u in candidate.unroll]


class FeatureSpace:
    """Where each sketch's block of features lies in the vector of a task's candidates."""

    def __init__(self, sketches: Sequence[Sketch]) -> None:
        self.sketches = list(sketches)
        self.offsets: list[int] = []
        size = 0
        for k, sketch in enumerate(self.sketches):
            self.offsets.append(size)
            width = len(raw_features(self.blank(k), sketch))
            size += 1 + 2 * width
        self.size = size

    def blank(self, k: int) -> Candidate:
        sketch = self.sketches[k]
        lengths = tuple(sketch.steps[i].lengths for i in sketch.split_ids)  # type: ignore[attr-defined]
        return Candidate(k, lengths, (False,) * len(sketch.unroll))

    def features(self, candidates: Sequence[Candidate]) -> np.ndarray:
        out = np.zeros((len(candidates), self.size))
        for row, c in enumerate(candidates):
            x = np.array(raw_features(c, self.sketches[c.sketch]))
            start = self.offsets[c.sketch]
            out[row, start] = 1.0
            out[row, start + 1 : start + 1 + len(x)] = x
            out[row, start + 1 + len(x) : start + 1 + 2 * len(x)] = x * x
        return out


class RidgeModel:
    """Ridge regression of relative throughput on candidate features."""

    def __init__(self, space: FeatureSpace, alpha: float = 10.0, seed: int = 0) -> None:
        self.space = space
        self.alpha = alpha
        self.rng = random.Random(seed)
        self.xs: list[np.ndarray] = []
        self.costs: list[float] = []
        self.weights: np.ndarray | None = None
        self.mean = np.zeros(space.size)
        self.scale = np.ones(space.size)

    def update(self, candidates: Sequence[Candidate], costs: Sequence[float]) -> None:
        """Add measured candidates (seconds; infinity for a failure) and refit."""
        if candidates:
            self.xs.extend(self.space.features(candidates))
            self.costs.extend(costs)
        finite = [c for c in self.costs if math.isfinite(c)]
        if len(self.costs) < MIN_SAMPLES or not finite:
            return
        best = min(finite)
        y = np.array([best / c if math.isfinite(c) else 0.0 for c in self.costs])
        x = np.array(self.xs)
        self.mean = x.mean(axis=0)
        self.scale = x.std(axis=0) + 1e-6
        z = (x - self.mean) / self.scale
        gram = z.T @ z + self.alpha * np.eye(z.shape[1])
        self.weights = np.linalg.solve(gram, z.T @ (y - y.mean()))
        self.bias = float(y.mean())

    @property
    def trained(self) -> bool:
        return self.weights is not None

    def predict(self, candidates: Sequence[Candidate]) -> np.ndarray:
        if self.weights is None:
            return np.array([self.rng.random() for _ in candidates])
        z = (self.space.features(candidates) - self.mean) / self.scale
        return z @ self.weights + self.bias


class RandomModel:
    """Random search (TVM's `RandomModel`): no evolution, candidates sampled uniformly."""

    uniform = True

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def attach(self, task: Any, sketches: Sequence[Sketch]) -> RandomModel:
        return self

    def update(self, candidates: Sequence[Candidate], costs: Sequence[float]) -> None:
        pass

    @property
    def trained(self) -> bool:
        return False

    def predict(self, candidates: Sequence[Candidate]) -> np.ndarray:
        return np.array([self.rng.random() for _ in candidates])


class SharedModel:
    """One set of boosted trees on the tir features of every task's measured candidates
    (TVM's task scheduler shares its cost model so): the features of lowered tir do not
    depend on the task, so what one task taught ranks the candidates of the next before it
    has measured any. Throughput is relative to each task's best and the ranking compares
    candidates of one task only. A task's default schedule joins its group when measured."""

    def __init__(self, num_warmup_sample: int = MIN_SAMPLES, loss: str = "rank", seed: int = 0):
        self.num_warmup_sample = num_warmup_sample
        self.trees = Booster(loss, seed=seed)
        self.rows: list[np.ndarray] = []
        self.costs: list[float] = []
        self.groups: list[str] = []

    def update(self, group: str, rows: np.ndarray, costs: Sequence[float]) -> None:
        """Add measured rows of task `group` and refit."""
        self.rows.extend(rows)
        self.costs.extend(costs)
        self.groups.extend([group] * len(costs))
        if len(self.costs) >= self.num_warmup_sample:
            self.trees.fit(np.stack(self.rows), self.costs, self.groups)

    @property
    def trained(self) -> bool:
        return self.trees.trained

    def predict(self, rows: np.ndarray) -> np.ndarray:
        return self.trees.predict(rows)


def interleave(*orders: Sequence[int]) -> np.ndarray:
    """Scores that pick the first of each order in turn, then the second of each, ...:
    higher is picked earlier; an index keeps its best place."""
    size = len(orders[0])
    place = np.full(size, np.inf)
    for turn, order in enumerate(orders):
        for position, index in enumerate(order):
            place[index] = min(place[index], position * len(orders) + turn)
    return -place


class XGBModel:
    """Boosted trees on the lowered tir of candidates, trees on their sketch features
    screening the evolution (see the module docstring). `attach(task, sketches)` binds it to
    a task; until `num_warmup_sample` candidates are measured it scores at random.

    With `shared` (a `SharedModel`, as `TaskScheduler` gives every task's model) the
    shortlist is ranked by the trees shared by all tasks until the task's own trees (on tir
    and sketch features) are trained: ranking a task's later rounds by the shared trees on tir
    alone found slower kernels than its own trees (benchmarks/tuning_shared.py). With
    `near_default`, until the task has measured a candidate of its own, half of its picks are
    the shortlist's nearest neighbours of the default schedule in tir features (its measured
    baseline), interleaved with the model's favourites; off by default, since on squeezenet's
    conv2d kernels those first rounds were slower than random ones."""

    def __init__(
        self,
        num_warmup_sample: int = MIN_SAMPLES,
        loss: str = "rank",
        rerank_factor: int = 4,
        seed: int = 0,
        shared: SharedModel | None = None,
        near_default: bool = False,
        feature: str = "kernel",
    ) -> None:
        if feature not in FEATURES:
            raise ValueError(f"unknown feature kind '{feature}' ({', '.join(FEATURES)})")
        if feature == "store" and (shared is not None or near_default):
            raise ValueError("a shared model and near_default need feature='kernel'")
        self.feature = feature
        self.num_warmup_sample = num_warmup_sample
        self.rerank_factor = rerank_factor
        self.rng = random.Random(seed)
        self.shared = shared
        self.near_default = near_default
        # the shortlist's trees: on a kernel's tir and sketch features, or summed per store
        self.trees: Booster | PackSumBooster = (
            Booster(loss, seed=seed) if feature == "kernel" else PackSumBooster(seed=seed)
        )
        self.screen = Booster(loss, seed=seed)  # on sketch features: the evolution
        self.candidates: list[Candidate] = []
        self.costs: list[float] = []
        self._features: dict[Candidate, np.ndarray] = {}
        self.default: np.ndarray | None = None  # tir features of the default schedule

    def attach(self, task: Any, sketches: Sequence[Sketch]) -> XGBModel:
        self.task, self.sketches = task, list(sketches)
        self.space = FeatureSpace(sketches)
        return self

    def note_default(self, cost: float) -> None:
        """The task's default schedule was measured: its features anchor the first round,
        and it joins the shared model's group of this task."""
        s, args = self.task.instantiate(DEFAULT_STATE)
        self.default = schedule_features(s, args)
        if self.shared is not None and math.isfinite(cost):
            self.shared.update(self.task.workload_key, self.default[None, :], [cost])

    def features(self, candidates: Sequence[Candidate]) -> Any:
        """Each candidate's tir features then its sketch features (a matrix), or with
        `feature="store"` its per-store rows (a list of matrices); cached."""
        for c in candidates:
            if c not in self._features:
                s, args = self.task.instantiate(c.state(self.sketches))
                if self.feature == "store":
                    self._features[c] = schedule_store_features(s, args)
                else:
                    self._features[c] = np.concatenate(
                        [schedule_features(s, args), self.space.features([c])[0]]
                    )
        found = [self._features[c] for c in candidates]
        return found if self.feature == "store" else np.stack(found)

    def update(self, candidates: Sequence[Candidate], costs: Sequence[float]) -> None:
        """Add measured candidates (seconds; infinity for a failure) and refit (the shared
        trees too, when shared)."""
        self.candidates.extend(candidates)
        self.costs.extend(costs)
        if self.shared is not None and candidates:
            rows = self.features(candidates)[:, :LENGTH]
            self.shared.update(self.task.workload_key, rows, costs)
        if len(self.costs) >= self.num_warmup_sample:
            self.screen.fit(self.space.features(self.candidates), self.costs)
            self.trees.fit(self.features(self.candidates), self.costs)

    @property
    def trained(self) -> bool:
        return self.screen.trained

    def predict(self, candidates: Sequence[Candidate]) -> np.ndarray:
        """The screening score of many candidates (random before the first fit)."""
        if not self.screen.trained:
            return np.array([self.rng.random() for _ in candidates])
        return self.screen.predict(self.space.features(candidates))

    @property
    def first_round(self) -> bool:
        """No candidate of the task measured yet and something better than chance to rank
        its first shortlist (which is then widened)."""
        guided = self.near_default or (self.shared is not None and self.shared.trained)
        return guided and not self.candidates

    def rank(self, candidates: Sequence[Candidate]) -> np.ndarray:
        """The score of a shortlist by the trees on its lowered tir (the shared ones until
        the task's own are trained); with `near_default`, the default's neighbours interleaved."""
        if self.trees.trained:
            scores = self.trees.predict(self.features(candidates))
        elif self.shared is not None and self.shared.trained:
            scores = self.shared.predict(self.features(candidates)[:, :LENGTH])
        else:
            scores = self.predict(candidates)
        if not self.near_default or self.default is None or not self.first_round:
            return scores
        rows = self.features(candidates)[:, :LENGTH]
        scale = np.vstack([rows, self.default]).std(axis=0) + 1e-6
        distance = np.linalg.norm((rows - self.default) / scale, axis=1)
        by_model = sorted(range(len(candidates)), key=lambda k: -scores[k])
        nearest = sorted(range(len(candidates)), key=lambda k: distance[k])
        return interleave(by_model, nearest)
