"""Winograd F(m x m, 3 x 3) convolution (NHWC) as te stages.

The stages (see `xtvm.ir.winograd` for the algorithm; `alpha = m + 2`, r a tile over batch and
tile rows and columns, padded to a whole number of the product's register-tile rows):

    pad      P[n, y, x, c]        the input zero-padded to whole tiles
    rows     [r, i, mu, c]        sum_j d[i, j] B[j, mu]           (d: tile r of P)
    input    V[nu, mu, r, c]      sum_i B[i, nu] rows[r, i, mu, c]  (B^T d B)
    product  M[nu, mu, r, k]      sum_c V[nu, mu, r, c] U[nu, mu, c, k]: alpha^2 matrix products
    columns  [r, a, s, k]         sum_b M[a, b, r, k] A[b, s]
    output   Y[n, h, w, k]        sum_a A[a, h % m] columns[r(h, w), a, w % m, k]  (A^T M A)

A, B are small constant stages (TVM's `const_matrix`: selects on the indices, computed once
per call into a buffer) and each transform is a sum of alpha terms written out, so the
transforms are elementwise stages the schedule places freely (and the output one takes a
fused elementwise tail). This is compact code that compiles fast, at about 1.6x the multiplies
of transforms specialised to each coordinate without B's and A's zeros, still a small share
next to the products.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterable, Sequence

import numpy as np

from xtvm import te
from xtvm.ir import winograd
from xtvm.te.expr import PrimExpr
from xtvm.topi.tensor import TensorLike, static_shape

ROWS = 4  # rows (tiles) of the product's register tile; tiles are padded to a multiple
COLUMNS = 32  # output channels of that tile (two vectors)
LANES = 16  # channels per vector in the transforms
K_UNROLL = 4  # reduction steps unrolled in the product
PRODUCT_TAG = "conv2d_winograd_nhwc"
OUTPUT_TAG = "conv2d_winograd_output"
MATRIX_TAG = "winograd_matrix"


def total(terms: Iterable[PrimExpr]) -> PrimExpr:
    """The sum of `terms`, written out (a transform's alpha terms, no reduction loop)."""
    return functools.reduce(operator.add, terms)


def const_matrix(values: np.ndarray, name: str) -> te.Tensor:
    """A 2-d constant as a stage: a chain of selects on its indices."""

    dtype = str(values.dtype)

    def body(i: PrimExpr, j: PrimExpr) -> PrimExpr:
        value: PrimExpr = te.const(0.0, dtype)
        for (a, b), v in np.ndenumerate(values):
            if v != 0:
                value = te.if_then_else(te.all(i.equal(a), j.equal(b)), te.const(v, dtype), value)
        return value

    return te.compute(values.shape, body, name=name, tag=MATRIX_TAG)


def conv2d_winograd_nhwc(
    data: TensorLike, kernel: TensorLike, tile_size: int, padding: Sequence[int]
) -> te.Tensor:
    """NHWC `data` convolved with the transformed 3x3 `kernel` ([alpha, alpha, C, K] or packed
    [alpha, alpha, K / b, C, b]), stride 1."""
    a_t, b_t, _ = winograd.matrices(tile_size)
    m, alpha = tile_size, tile_size + 2
    pt, pl, pb, pr = padding
    n, h, w, channels = static_shape(data)
    shape = static_shape(kernel)
    packed = len(shape) == 5
    out_channels = shape[2] * shape[4] if packed else shape[3]
    block = shape[4] if packed else out_channels
    out_h, out_w = h + pt + pb - 2, w + pl + pr - 2
    tiles_w = -(-out_w // m)
    tiles = -(-out_h // m) * tiles_w
    per_batch = -(-tiles // ROWS) * ROWS  # tile rows padded to whole register tiles
    rows_h = -(-per_batch // tiles_w)  # tile rows the padded input covers
    dtype = data.dtype
    b_matrix = const_matrix(b_t.T.astype(dtype), "winograd_B")  # B[j, mu]
    a_matrix = const_matrix(a_t.T.astype(dtype), "winograd_A")  # A[b, s]

    def pad_body(b: PrimExpr, y: PrimExpr, x: PrimExpr, c: PrimExpr) -> PrimExpr:
        inside = [y >= pt] if pt else []
        inside += [y < h + pt, x < w + pl] + ([x >= pl] if pl else [])
        return te.if_then_else(te.all(*inside), data(b, y - pt, x - pl, c), 0.0)

    padded = te.compute(
        (n, rows_h * m + 2, tiles_w * m + 2, channels), pad_body, name="winograd_pad", tag="pad"
    )

    def origin(r: PrimExpr) -> tuple[PrimExpr | int, PrimExpr, PrimExpr]:
        """(batch, first input row, first input column) of tile `r`."""
        t = r % per_batch if n > 1 else r
        return (r // per_batch if n > 1 else 0), (t // tiles_w) * m, (t % tiles_w) * m

    def rows_body(r: PrimExpr, i: PrimExpr, mu: PrimExpr, c: PrimExpr) -> PrimExpr:
        b, y, x = origin(r)
        return total(padded(b, y + i, x + j, c) * b_matrix(j, mu) for j in range(alpha))

    half = te.compute((n * per_batch, alpha, alpha, channels), rows_body, name="winograd_rows")
    tiles_v = te.compute(
        (alpha, alpha, n * per_batch, channels),
        lambda nu, mu, r, c: total(b_matrix(i, nu) * half(r, i, mu, c) for i in range(alpha)),
        name="winograd_input",
    )
    rc = te.reduce_axis((0, channels), "rc")

    def weight(nu: PrimExpr, mu: PrimExpr, k: PrimExpr) -> PrimExpr:
        if packed:
            return kernel(nu, mu, k // block, rc, k % block)
        return kernel(nu, mu, rc, k)

    product = te.compute(
        (alpha, alpha, n * per_batch, out_channels),
        lambda nu, mu, r, k: te.sum(tiles_v(nu, mu, r, rc) * weight(nu, mu, k), axis=rc),
        name="winograd_product",
        tag=PRODUCT_TAG,
        attrs={
            "tile_size": tile_size,
            "workload": (
                "conv2d_winograd",
                (n, h, w, channels),
                tuple(shape),
                tile_size,
                tuple(padding),
                dtype,
            ),
        },
    )
    columns = te.compute(
        (n * per_batch, alpha, m, out_channels),
        lambda r, a, s, k: total(product(a, j, r, k) * a_matrix(j, s) for j in range(alpha)),
        name="winograd_columns",
    )

    def out_body(b: PrimExpr, y: PrimExpr, x: PrimExpr, k: PrimExpr) -> PrimExpr:
        r = (y // m) * tiles_w + x // m
        if n > 1:
            r = b * per_batch + r
        return total(a_matrix(a, y % m) * columns(r, a, x % m, k) for a in range(alpha))

    return te.compute(
        (n, out_h, out_w, out_channels), out_body, name="conv2d_winograd", tag=OUTPUT_TAG
    )
