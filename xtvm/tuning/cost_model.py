"""A learned cost model of a task's configs: gradient-boosted trees (xgboost) on features.

TVM's `XGBoostCostModel`: a config is described by the features of its lowered tir
(`features.tir_features`: loop extents, parallel and vector loops, arithmetic per byte,
per-buffer strides and reuse), by its knob values (`feature_type="knob"`), or both
(`"tir+knob"`, as the auto-scheduler's per-kernel features add the tile sizes); the model is
fit on the measured configs, labelled with their throughput relative to the best one (an
error is 0), and ranks unmeasured configs. `loss="rank"` fits a pairwise ranking (only the
order matters to a tuner), `"reg"` a regression of the throughput. `Booster` is that model on
any feature matrix (the auto-scheduler's `XGBModel` uses it too), `schedule_features` the
features of any schedule. `PackSumBooster` is Ansor's model on per-store features
(`schedule_store_features`): a score per store, summed per kernel.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from xtvm import te
from xtvm.dialects.registry import shared_context
from xtvm.passes.convert_te_to_tir import ConvertTeToTirPass
from xtvm.te.lower import schedule_to_module
from xtvm.tuning.features import LENGTH, STORE_LENGTH, store_features, tir_features
from xtvm.tuning.task import Task

FEATURE_TYPES = ("tir", "knob", "tir+knob")


def lowered(s: te.Schedule, args: Sequence[te.Tensor]) -> ModuleOp | None:
    """A schedule's loops as convert-te-to-tir makes them (no tensorize, no verifier: the
    build checks those, and this runs for many more candidates than are built); None when it
    does not lower."""
    try:
        module = schedule_to_module(s, list(args), "main")
        ConvertTeToTirPass().apply(shared_context().xdsl_context, module)
        return module
    except Exception:
        return None


def schedule_features(s: te.Schedule, args: Sequence[te.Tensor]) -> np.ndarray:
    """`tir_features` of a schedule's lowered loops; zeros when it does not lower."""
    module = lowered(s, args)
    return tir_features(module) if module is not None else np.zeros(LENGTH, dtype=np.float32)


def schedule_store_features(s: te.Schedule, args: Sequence[te.Tensor]) -> np.ndarray:
    """`store_features` of a schedule's lowered loops (a row per store); one row of zeros
    when it does not lower."""
    module = lowered(s, args)
    if module is None:
        return np.zeros((1, STORE_LENGTH), dtype=np.float32)
    return store_features(module)


def relative_throughput(costs: Sequence[float], groups: Sequence[object] | None) -> np.ndarray:
    """Each cost's throughput over the best of its group (all one group without `groups`);
    0 for an error (an infinite cost)."""
    throughput = np.array([0.0 if not np.isfinite(c) else 1.0 / c for c in costs])
    keys = [None] * len(costs) if groups is None else list(groups)
    label = np.zeros(len(costs))
    for key in dict.fromkeys(keys):
        rows = [k for k, g in enumerate(keys) if g == key]
        best = throughput[rows].max()
        label[rows] = throughput[rows] / best if best > 0 else 0.0
    return label


class Booster:
    """Gradient-boosted trees fit on feature rows labelled with throughput relative to the
    best (an error is 0): `loss="rank"` a pairwise ranking, `"reg"` a regression."""

    def __init__(self, loss: str = "rank", num_threads: int = 1, rounds: int = 60, seed: int = 0):
        if loss not in ("rank", "reg"):
            raise ValueError(f"unknown loss '{loss}' (rank or reg)")
        import xgboost  # the project's dependency; imported when a model is made

        self.xgb = xgboost
        self.params = {
            "max_depth": 3,
            "gamma": 1e-4,
            "min_child_weight": 1,
            "subsample": 1.0,
            "eta": 0.3,
            "lambda": 1.0,
            "alpha": 0.0,
            "objective": "rank:pairwise" if loss == "rank" else "reg:squarederror",
            "nthread": num_threads,
            "seed": seed,
            "verbosity": 0,
        }
        self.rounds = rounds
        self.booster: object | None = None

    def fit(
        self, matrix: np.ndarray, costs: Sequence[float], groups: Sequence[object] | None = None
    ) -> None:
        """Fit on measured rows (`costs` in seconds, infinity for an error). With `groups`
        (a task per row), throughput is relative to the best of each group and a ranking
        compares rows of one group only: costs of different tasks do not compare."""
        label = relative_throughput(costs, groups)
        if len(costs) < 2 or label.max() <= 0:
            return
        if groups is None:
            data = self.xgb.DMatrix(matrix, label=label)
        else:
            keys = list(dict.fromkeys(groups))
            place = {key: k for k, key in enumerate(keys)}
            order = sorted(range(len(costs)), key=lambda k: place[groups[k]])
            data = self.xgb.DMatrix(np.asarray(matrix)[order], label=label[order])
            data.set_group([sum(g == key for g in groups) for key in keys])
        self.booster = self.xgb.train(self.params, data, self.rounds)

    @property
    def trained(self) -> bool:
        return self.booster is not None

    def predict(self, matrix: np.ndarray) -> np.ndarray:
        """Scores of rows, higher predicted faster (zeros before the first fit)."""
        if self.booster is None or len(matrix) == 0:
            return np.zeros(len(matrix))
        return self.booster.predict(self.xgb.DMatrix(matrix))  # type: ignore[attr-defined]


class PackSumBooster:
    """Ansor's per-store model: trees score each row of a kernel (one per buffer store,
    `store_features`) and a kernel's score is the sum of its rows' scores, fit by squared
    error to its throughput relative to the best (of its group, with `groups`), weighted by
    that throughput so that the fast kernels are fit best."""

    def __init__(self, num_threads: int = 1, rounds: int = 80, seed: int = 0) -> None:
        import xgboost  # the project's dependency; imported when a model is made

        self.xgb = xgboost
        self.params = {
            "max_depth": 6,
            "gamma": 1e-4,
            "min_child_weight": 0,
            "eta": 0.2,
            "lambda": 1.0,
            "base_score": 0.0,
            "nthread": num_threads,
            "seed": seed,
            "verbosity": 0,
        }
        self.rounds = rounds
        self.booster: object | None = None

    def fit(
        self,
        packs: Sequence[np.ndarray],
        costs: Sequence[float],
        groups: Sequence[object] | None = None,
    ) -> None:
        """Fit on measured kernels: `packs[k]` the rows of kernel k, `costs[k]` its seconds
        (infinity for an error)."""
        label = relative_throughput(costs, groups)
        if len(costs) < 2 or label.max() <= 0:
            return
        ids = np.repeat(np.arange(len(packs)), [len(p) for p in packs])
        weight = np.maximum(label, 0.1)  # errors still count, a little

        def pack_sum_square_error(preds: np.ndarray, _: object) -> tuple[np.ndarray, np.ndarray]:
            sums = np.bincount(ids, weights=preds, minlength=len(packs))
            return (sums[ids] - label[ids]) * weight[ids], weight[ids]

        data = self.xgb.DMatrix(np.concatenate(packs), label=label[ids])
        self.booster = self.xgb.train(self.params, data, self.rounds, obj=pack_sum_square_error)

    @property
    def trained(self) -> bool:
        return self.booster is not None

    def predict(self, packs: Sequence[np.ndarray]) -> np.ndarray:
        """Each kernel's score, the sum of its rows' (zeros before the first fit)."""
        if self.booster is None or not packs:
            return np.zeros(len(packs))
        ids = np.repeat(np.arange(len(packs)), [len(p) for p in packs])
        rows = self.booster.predict(self.xgb.DMatrix(np.concatenate(packs)))  # type: ignore[attr-defined]
        return np.bincount(ids, weights=rows, minlength=len(packs))


class XGBoostCostModel:
    """Predicts a score (higher is faster) for config indices of `task`'s space."""

    def __init__(
        self,
        task: Task,
        feature_type: str = "tir",
        loss: str = "rank",
        num_threads: int = 1,
        rounds: int = 60,
        seed: int = 0,
    ) -> None:
        if feature_type not in FEATURE_TYPES:
            raise ValueError(
                f"unknown feature type '{feature_type}' (one of {', '.join(FEATURE_TYPES)})"
            )
        self.model = Booster(loss, num_threads, rounds, seed)
        self.task = task
        self.feature_type = feature_type
        self._features: dict[int, np.ndarray] = {}

    def features(self, index: int) -> np.ndarray:
        """The feature vector of config `index` (cached); zeros when it does not lower."""
        found = self._features.get(index)
        if found is not None:
            return found
        config = self.task.config_space.get(index)
        knobs = np.asarray(config.get_flatten_feature(), dtype=np.float32)
        if self.feature_type == "knob":
            found = knobs
        else:
            try:
                found = schedule_features(*self.task.instantiate(config))
            except Exception:  # a config the template rejects: no loops to describe
                found = np.zeros(LENGTH, dtype=np.float32)
            if self.feature_type == "tir+knob":
                found = np.concatenate([found, knobs])
        self._features[index] = found
        return found

    def matrix(self, indices: Sequence[int]) -> np.ndarray:
        return np.stack([self.features(i) for i in indices])

    def fit(self, indices: Sequence[int], costs: Sequence[float]) -> None:
        """Fit on measured configs (`costs` in seconds, infinity for an error)."""
        if len(indices) >= 2:
            self.model.fit(self.matrix(indices), costs)

    @property
    def trained(self) -> bool:
        return self.model.trained

    def predict(self, indices: Sequence[int]) -> np.ndarray:
        """Scores of configs, higher predicted faster (zeros before the first fit)."""
        if not self.model.trained or not indices:
            return np.zeros(len(indices))
        return self.model.predict(self.matrix(indices))


__all__ = [
    "Booster",
    "PackSumBooster",
    "XGBoostCostModel",
    "schedule_features",
    "schedule_store_features",
]
