"""Per-store tir features (Ansor's) and the pack-sum model that sums a score per store."""

from __future__ import annotations

import math

import numpy as np
import pytest

from xtvm import te
from xtvm.topi import nn
from xtvm.tuning.cost_model import PackSumBooster, lowered, schedule_store_features
from xtvm.tuning.features import STORE, STORE_BUFFER, STORE_LENGTH, store_features


def column(name: str, buffer: int | None = None) -> int:
    """Index of figure `name` in a store row (of the `buffer`-th buffer block when given)."""
    if buffer is None:
        return STORE.index(name)
    return len(STORE) + buffer * len(STORE_BUFFER) + STORE_BUFFER.index(name)


def matmul(n: int, m: int, k: int) -> tuple[te.Tensor, te.Tensor, te.Tensor]:
    a, b = te.placeholder((n, k), name="A"), te.placeholder((k, m), name="B")
    return a, b, nn.matmul(a, b, False, False)


def log2p(x: float) -> float:
    return math.log2(1 + x)


def test_matmul_rows_describe_the_initialisation_and_the_update() -> None:
    a, b, c = matmul(16, 32, 8)
    rows = schedule_store_features(te.create_schedule(c.op), [a, b, c])
    assert rows.shape == (2, STORE_LENGTH)
    init, update = rows
    assert init[column("float_ops_per_iteration")] == 0
    assert init[column("loops")] == 2 and init[column("trip_count")] == log2p(16 * 32)
    assert update[column("loops")] == 3 and update[column("trip_count")] == log2p(16 * 32 * 8)
    assert update[column("float_ops_per_iteration")] == 2
    assert update[column("adds_and_muls")] == 2
    assert update[column("loads_per_iteration")] == 3  # C, A, B
    assert update[column("accumulates")] == 1 and init[column("accumulates")] == 0
    assert update[column("stores_to_local")] == 0
    # buffer 0 is C: the reduction loop r (innermost) does not move it, 8 reuses 1 apart
    assert update[column("innermost_stride", 0)] == 0
    assert update[column("reuse_count", 0)] == log2p(8)
    assert update[column("reuse_distance", 0)] == log2p(1)
    assert update[column("bytes_touched", 0)] == log2p(16 * 32 * 4)
    # A and B, each loaded once an iteration: along r, A steps by 1 and B by a row (32)
    strides = sorted(update[column("innermost_stride", k)] for k in (1, 2))
    assert strides == [log2p(1), log2p(32)]
    assert update[column("intensity_moved")] == pytest.approx(2 / (4 * 4))


def test_schedule_primitives_show_in_the_rows() -> None:
    a, b, c = matmul(64, 64, 64)
    s = te.create_schedule(c.op)
    i, j = s[c].op.axis
    jo, ji = s[c].split(j, factor=16)
    (r,) = s[c].op.reduce_axis
    s[c].reorder(i, jo, r, ji)
    s[c].vectorize(ji)
    s[c].parallel(i)
    (init, update) = schedule_store_features(s, [a, b, c])
    # the initialisation is a loop nest of its own, left serial
    assert init[column("parallel_extent")] == log2p(1) and init[column("vector_lanes")] == 1
    assert update[column("parallel_extent")] == log2p(64)
    assert update[column("parallel_loops")] == 1
    assert update[column("vector_lanes")] == log2p(16)
    assert update[column("innermost_vectorized")] == 1
    assert update[column("trip_per_thread")] == pytest.approx(log2p(64 * 64 * 64 / 64))
    assert update[column("vector_stride", 0)] == log2p(1)  # C along the vector: contiguous
    assert update[column("unit_stride", 0)] == 1
    # B is walked contiguously along the vector; A not along j (4 x 16): reused 64 times
    b_block = next(k for k in (1, 2) if update[column("vector_stride", k)] == log2p(1))
    a_block = 3 - b_block
    assert update[column("vector_stride", a_block)] == 0
    assert update[column("reuse_count", a_block)] == log2p(64)


def test_fused_loops_keep_their_strides() -> None:
    """A fused loop split back by division and remainder: the store's address steps by one
    along it (the old linear forms gave up on a division)."""
    a = te.placeholder((8, 16), name="A")
    b = te.compute((8, 16), lambda i, j: a[i, j] * te.const(2.0, "float32"), name="B")
    s = te.create_schedule(b.op)
    fused = s[b].fuse(*s[b].op.axis)
    s[b].vectorize(fused)
    module = lowered(s, [a, b])
    assert module is not None
    (row,) = store_features(module)
    assert row[column("innermost_stride", 0)] == log2p(1)
    assert row[column("innermost_stride", 1)] == log2p(1)
    assert row[column("float_ops_per_iteration")] == 1


def test_pack_sum_model_scores_kernels_as_the_sum_of_their_stores() -> None:
    pytest.importorskip("xgboost")
    rng = np.random.default_rng(0)

    def kernel() -> tuple[np.ndarray, float]:
        """1-3 stores; a store's time grows with its first figure, the kernel's is the sum;
        the last figure is the number of stores (as `stores_in_kernel`)."""
        count = int(rng.integers(1, 4))
        rows = rng.uniform(0, 1, (count, 4)).astype("float32")
        rows[:, 3] = count
        return rows, float(sum(1e-3 * (1 + 4 * row[0]) for row in rows))

    train = [kernel() for _ in range(120)]
    model = PackSumBooster()
    assert not model.trained and list(model.predict([train[0][0]])) == [0.0]
    model.fit([p for p, _ in train], [c for _, c in train])
    assert model.trained
    test = [kernel() for _ in range(40)]
    scores = model.predict([p for p, _ in test])
    # higher score = faster: the ranking of unseen kernels follows their true speed
    order = np.argsort(np.argsort(scores))
    truth = np.argsort(np.argsort([-c for _, c in test]))
    assert np.corrcoef(order, truth)[0, 1] > 0.9
    # a kernel's score is the sum of its rows' scores
    pack = test[0][0]
    singles = model.predict([row[None, :] for row in pack])
    assert model.predict([pack])[0] == pytest.approx(float(singles.sum()), rel=1e-5)
