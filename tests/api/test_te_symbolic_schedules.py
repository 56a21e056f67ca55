"""Schedules of symbolic-shape computations (`n = te.var("n")`) build for llvm and compute what
numpy computes for several n, including extents no split factor divides, n = 0 and n = 1:
splits, nparts, tile, reorder, fuse, vectorize, parallel, unroll, compute_at (nested, of
reductions, with te.min/te.max in the read indices and the shapes), cache_read, cache_write
and compute_inline."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

import xtvm as tvm
from xtvm import te

RNG = np.random.default_rng(3)
N_VALUES = (0, 1, 5, 8, 13, 33)

Reference = Callable[..., np.ndarray]


@dataclass
class Case:
    """A schedule, its arguments, the numpy reference of its output from its input arrays,
    and the input shapes for a value of n (an int is a scalar argument)."""

    schedule: te.Schedule
    args: list
    reference: Reference
    shapes: Callable[[int], list[tuple[int, ...] | int]]


CASES: dict[str, Callable[[], Case]] = {}


def case(build: Callable[[], Case]) -> Callable[[], Case]:
    CASES[build.__name__] = build
    return build


def vector_chain() -> tuple[te.Tensor, te.Tensor, te.Tensor]:
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    C = te.compute((n,), lambda i: B[i] + 1.0, name="C")
    return A, B, C


def rows_chain() -> tuple[te.Tensor, te.Tensor, te.Tensor]:
    n = te.var("n")
    A = te.placeholder((n, 12), name="A")
    B = te.compute((n, 12), lambda i, j: A[i, j] + 1.0, name="B")
    C = te.compute((n, 12), lambda i, j: B[i, j] * 3.0, name="C")
    return A, B, C


def vector(n: int) -> list[tuple[int, ...] | int]:
    return [(n,)]


def rows(n: int) -> list[tuple[int, ...] | int]:
    return [(n, 12)]


@case
def split_not_dividing_inline_parallel_vectorize() -> Case:
    A, B, C = vector_chain()
    s = te.create_schedule(C.op)
    s[B].compute_inline()
    outer, inner = s[C].split(C.op.axis[0], factor=8)
    s[C].parallel(outer)
    s[C].vectorize(inner)
    return Case(s, [A, C], lambda a: a * 2 + 1, vector)


@case
def split_nparts() -> Case:
    A, _, C = vector_chain()
    s = te.create_schedule(C.op)
    s[C].split(C.op.axis[0], nparts=3)
    return Case(s, [A, C], lambda a: a * 2 + 1, vector)


@case
def compute_at_outer_split() -> Case:
    A, B, C = vector_chain()
    s = te.create_schedule(C.op)
    outer, _ = s[C].split(C.op.axis[0], factor=8)
    s[B].compute_at(s[C], outer)
    return Case(s, [A, C], lambda a: a * 2 + 1, vector)


@case
def compute_at_inner_split() -> Case:
    A, B, C = vector_chain()
    s = te.create_schedule(C.op)
    _, inner = s[C].split(C.op.axis[0], factor=8)
    s[B].compute_at(s[C], inner)
    return Case(s, [A, C], lambda a: a * 2 + 1, vector)


@case
def compute_at_vectorized_both() -> Case:
    A, B, C = vector_chain()
    s = te.create_schedule(C.op)
    outer, inner = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], outer)
    s[B].vectorize(B.op.axis[0])
    s[C].vectorize(inner)
    s[C].parallel(outer)
    return Case(s, [A, C], lambda a: a * 2 + 1, vector)


@case
def compute_at_nested_with_unroll() -> Case:
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((n,), lambda i: B[i] * 2.0, name="C")
    D = te.compute((n,), lambda i: C[i] - 3.0, name="D")
    s = te.create_schedule(D.op)
    outer, inner = s[D].split(D.op.axis[0], factor=8)
    s[C].compute_at(s[D], outer)
    c_outer, _ = s[C].split(C.op.axis[0], factor=2)
    s[B].compute_at(s[C], c_outer)
    s[D].unroll(inner)
    return Case(s, [A, D], lambda a: (a + 1) * 2 - 3, vector)


@case
def stencil_clamped_by_min_max() -> Case:
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    C = te.compute((n,), lambda i: B[te.max(i - 1, 0)] + B[i] + B[te.min(i + 1, n - 1)], name="C")
    s = te.create_schedule(C.op)
    outer, _ = s[C].split(C.op.axis[0], factor=8)
    s[B].compute_at(s[C], outer)

    def reference(a: np.ndarray) -> np.ndarray:
        b, i = a * 2, np.arange(len(a))
        return b[np.maximum(i - 1, 0)] + b + b[np.minimum(i + 1, len(a) - 1)]

    return Case(s, [A, C], reference, vector)


@case
def stencil_window_of_n_plus_2() -> Case:
    n = te.var("n")
    A = te.placeholder((n + 2,), name="A")
    B = te.compute((n + 2,), lambda i: A[i] * 2.0, name="B")
    C = te.compute((n,), lambda i: B[i] + B[i + 1] + B[i + 2], name="C")
    s = te.create_schedule(C.op)
    outer, _ = s[C].split(C.op.axis[0], factor=8)
    s[B].compute_at(s[C], outer)
    return Case(s, [n, A, C], lambda a: 2 * (a[:-2] + a[1:-1] + a[2:]), lambda n: [n, (n + 2,)])


@case
def min_in_a_condition() -> Case:
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    C = te.compute((n,), lambda i: te.if_then_else(i < te.min(n, 5), B[i], B[i] + 1.0), name="C")
    s = te.create_schedule(C.op)
    outer, _ = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], outer)
    return Case(
        s, [A, C], lambda a: np.where(np.arange(len(a)) < min(len(a), 5), 2 * a, 2 * a + 1), vector
    )


@case
def min_and_max_in_shapes() -> Case:
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n - 1,), lambda i: A[i + 1] - A[i], name="B")
    C = te.compute((te.min(n - 1, 6),), lambda i: B[i] * 2.0, name="C")
    D = te.compute(
        (te.max(n, 3),), lambda i: te.if_then_else(i < te.min(n - 1, 6), C[i], 0.0), name="D"
    )
    s = te.create_schedule(D.op)
    outer, _ = s[D].split(D.op.axis[0], factor=2)
    s[D].parallel(outer)
    c_outer, _ = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], c_outer)

    def reference(a: np.ndarray) -> np.ndarray:
        d = np.zeros(max(len(a), 3), "float32")
        m = min(len(a) - 1, 6)
        d[:m] = np.diff(a)[:m] * 2
        return d

    return Case(s, [A, D], reference, lambda n: [(n + 1,)])


@case
def tile_reorder_vectorize() -> Case:
    A, B, C = rows_chain()
    s = te.create_schedule(C.op)
    s[B].compute_inline()
    i_outer, j_outer, i_inner, j_inner = s[C].tile(C.op.axis[0], C.op.axis[1], 5, 4)
    s[C].reorder(j_outer, i_outer, i_inner, j_inner)
    s[C].vectorize(j_inner)
    return Case(s, [A, C], lambda a: (a + 1) * 3, rows)


@case
def tile_compute_at_parallel() -> Case:
    A, B, C = rows_chain()
    s = te.create_schedule(C.op)
    i_outer, j_outer, _, _ = s[C].tile(C.op.axis[0], C.op.axis[1], 5, 4)
    s[B].compute_at(s[C], j_outer)
    s[C].parallel(i_outer)
    return Case(s, [A, C], lambda a: (a + 1) * 3, rows)


@case
def tile_two_symbolic_extents() -> Case:
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), name="A")
    B = te.compute((n, m), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((n, m), lambda i, j: B[i, j] - 1.0, name="C")
    s = te.create_schedule(C.op)
    _, j_outer, _, _ = s[C].tile(C.op.axis[0], C.op.axis[1], 3, 5)
    s[B].compute_at(s[C], j_outer)
    return Case(s, [A, C], lambda a: a * 2 - 1, lambda n: [(n, n + 3)])


@case
def compute_at_box_symbolic_in_one_dimension() -> Case:
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), name="A")
    B = te.compute((n, m), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((n, m), lambda i, j: B[i, j] + 1.0, name="C")
    s = te.create_schedule(C.op)
    outer, _ = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], outer)
    return Case(s, [A, C], lambda a: a * 2 + 1, lambda n: [(n, 2 * n + 1)])


@case
def clamped_2d_window_at_a_tile() -> Case:
    n = te.var("n")
    A = te.placeholder((n, n), name="A")
    B = te.compute((n, n), lambda i, j: A[i, j] + 1.0, name="B")
    C = te.compute(
        (n, n), lambda i, j: B[te.min(i + 1, n - 1), j] + B[i, te.max(j - 1, 0)], name="C"
    )
    s = te.create_schedule(C.op)
    _, j_outer, _, _ = s[C].tile(C.op.axis[0], C.op.axis[1], 4, 4)
    s[B].compute_at(s[C], j_outer)

    def reference(a: np.ndarray) -> np.ndarray:
        b, i = a + 1, np.arange(a.shape[0])
        return b[np.minimum(i + 1, len(i) - 1)] + b[:, np.maximum(i - 1, 0)]

    return Case(s, [A, C], reference, lambda n: [(n, n)])


@case
def fuse_split_parallel_vectorize() -> Case:
    A, _, C = rows_chain()
    s = te.create_schedule(C.op)
    fused = s[C].fuse(C.op.axis[0], C.op.axis[1])
    outer, inner = s[C].split(fused, factor=16)
    s[C].parallel(outer)
    s[C].vectorize(inner)
    return Case(s, [A, C], lambda a: (a + 1) * 3, rows)


@case
def fuse_compute_at() -> Case:
    A, B, C = rows_chain()
    s = te.create_schedule(C.op)
    fused = s[C].fuse(C.op.axis[0], C.op.axis[1])
    outer, _ = s[C].split(fused, factor=16)
    s[B].compute_at(s[C], outer)
    return Case(s, [A, C], lambda a: (a + 1) * 3, rows)


@case
def fuse_compute_at_vectorized_axis() -> Case:
    n = te.var("n")
    A = te.placeholder((n, 6), name="A")
    B = te.compute((n, 6), lambda i, j: A[i, j] * A[i, j], name="B")
    C = te.compute((n, 6), lambda i, j: B[i, j] + A[i, j], name="C")
    s = te.create_schedule(C.op)
    outer, inner = s[C].split(s[C].fuse(*C.op.axis), factor=8)
    s[C].vectorize(inner)
    s[C].parallel(outer)
    s[B].compute_at(s[C], inner)
    return Case(s, [A, C], lambda a: a * a + a, lambda n: [(n, 6)])


@case
def cache_read_at() -> Case:
    A, B, C = rows_chain()
    s = te.create_schedule(C.op)
    cached = s.cache_read(B, "local", [C])
    outer, _ = s[C].split(C.op.axis[0], factor=4)
    s[cached].compute_at(s[C], outer)
    return Case(s, [A, C], lambda a: (a + 1) * 3, rows)


@case
def cache_write_at() -> Case:
    A, B, C = rows_chain()
    s = te.create_schedule(C.op)
    cached = s.cache_write(C, "local")
    outer, _ = s[C].split(C.op.axis[0], factor=3)
    s[cached].compute_at(s[C], outer)
    s[B].compute_inline()
    return Case(s, [A, C], lambda a: (a + 1) * 3, rows)


@case
def matmul_register_tile_symbolic_rows() -> Case:
    n = te.var("n")
    A = te.placeholder((n, 16), name="A")
    B = te.placeholder((16, 8), name="B")
    k = te.reduce_axis((0, 16), name="k")
    C = te.compute((n, 8), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    cached = s.cache_write(C, "local")
    i_outer, j_outer, _, j_inner = s[C].tile(C.op.axis[0], C.op.axis[1], 4, 8)
    s[cached].compute_at(s[C], j_outer)
    s[C].parallel(i_outer)
    s[C].vectorize(j_inner)
    s[cached].split(cached.op.reduce_axis[0], factor=4)
    s[cached].vectorize(cached.op.axis[1])
    return Case(s, [A, B, C], lambda a, b: a @ b, lambda n: [(n, 16), (16, 8)])


@case
def matmul_symbolic_reduction_cache_read_at_reduce_axis() -> Case:
    n = te.var("n")
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, 8), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, 8), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    cached_a = s.cache_read(A, "local", [C])
    cached_c = s.cache_write(C, "local")
    outer, _ = s[C].split(C.op.axis[0], factor=4)
    s[cached_c].compute_at(s[C], outer)
    k_outer, _ = s[cached_c].split(cached_c.op.reduce_axis[0], factor=3)
    s[cached_a].compute_at(s[cached_c], k_outer)
    s[C].vectorize(C.op.axis[1])
    return Case(s, [A, B, C], lambda a, b: a @ b, lambda n: [(n, n), (n, 8)])


@case
def row_max_at_symbolic_rows() -> Case:
    n = te.var("n")
    A = te.placeholder((n, 10), name="A")
    k = te.reduce_axis((0, 10), name="k")
    B = te.compute((n,), lambda i: te.max(A[i, k], axis=k), name="B")
    C = te.compute((n, 10), lambda i, j: te.exp(A[i, j] - B[i]), name="C")
    s = te.create_schedule(C.op)
    outer, _ = s[C].split(C.op.axis[0], factor=3)
    s[B].compute_at(s[C], outer)
    s[C].vectorize(C.op.axis[1])
    s[C].parallel(outer)
    return Case(s, [A, C], lambda a: np.exp(a - a.max(1, keepdims=True)), lambda n: [(n, 10)])


@case
def row_sums_over_symbolic_columns() -> Case:
    n = te.var("n")
    A = te.placeholder((8, n), name="A")
    k = te.reduce_axis((0, n), name="k")
    B = te.compute((8,), lambda i: te.sum(A[i, k], axis=k), name="B")
    C = te.compute((8,), lambda i: B[i] * 2.0, name="C")
    s = te.create_schedule(C.op)
    s[B].split(B.op.reduce_axis[0], factor=4)
    outer, _ = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], outer)
    return Case(s, [A, C], lambda a: a.sum(1) * 2, lambda n: [(8, n)])


@pytest.mark.parametrize("name", list(CASES))
def test_symbolic_schedule_builds_and_matches_numpy(name: str) -> None:
    built = CASES[name]()
    f = tvm.build(built.schedule, built.args, target="llvm")
    for n in N_VALUES:
        inputs = [
            RNG.standard_normal(shape).astype("float32") if isinstance(shape, tuple) else shape
            for shape in built.shapes(n)
        ]
        expected = built.reference(*[x for x in inputs if isinstance(x, np.ndarray)])
        out = np.full(expected.shape, np.nan, "float32")
        f(*inputs, out)
        np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5, err_msg=f"n = {n}")
