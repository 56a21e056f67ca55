"""The cost model: which candidates are worth measuring.

Features come from the candidate (its sketch, splits and unrolled loops), not from lowered tir:
lowering a candidate takes as long as a quarter of building it, and the search scores
thousands. Per sketch, the features are the log2 of every tile length (the outer part
included), the log2 volume of each tiling level, the unroll flags and the squares of all of
them, so that the linear model can place an optimum inside a range; other sketches' blocks
are zero. `RidgeModel` fits the measured throughput relative to the best (1 for the best, 0 for
a failure) by ridge regression; until it has seen `MIN_SAMPLES` candidates it predicts noise.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import numpy as np

from xtvm.tuning.auto_scheduler.loop_state import SplitStep
from xtvm.tuning.auto_scheduler.sketch import Candidate, Sketch

MIN_SAMPLES = 8
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
