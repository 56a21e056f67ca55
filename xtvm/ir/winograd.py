"""Winograd minimal filtering F(m x m, 3 x 3) for stride-1 3x3 convolutions.

An output tile of m x m is `A^T [(G g G^T) * (B^T d B)] A` for the (m + 2) x (m + 2) input
tile `d` and the 3 x 3 kernel `g`: (m + 2)^2 products per channel pair instead of 9 m^2 (4x
fewer for m = 4). The kernel transform `G g G^T` is done once, at compile time; what remains
per call is the input transform, one matrix product per position of the (m + 2) x (m + 2)
tile (over channels, batched over tiles) and the output transform.

The matrices are Lavin and Gray's (interpolation points 0, +-1, +-2, infinity for m = 4), the
ones NNPACK and TVM use. In float32 the result differs from a direct convolution by about
1e-5 of its largest value for m = 4 (1e-6 for m = 2).

The kernel is stored `[alpha, alpha, C, K]` (TVM's NHWC winograd weight), or packed as
`[alpha, alpha, K / b, C, b]`: per block of b output channels one contiguous slab, the walk of
the CPU schedule's register tile.
"""

from __future__ import annotations

import numpy as np

TILE_SIZES = (2, 4)

_MATRICES: dict[int, tuple[list[list[float]], list[list[float]], list[list[float]]]] = {
    # (A^T, B^T, G)
    2: (
        [[1, 1, 1, 0], [0, 1, -1, -1]],
        [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]],
        [[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]],
    ),
    4: (
        [[1, 1, 1, 1, 1, 0], [0, 1, -1, 2, -2, 0], [0, 1, 1, 4, 4, 0], [0, 1, -1, 8, -8, 1]],
        [
            [4, 0, -5, 0, 1, 0],
            [0, -4, -4, 1, 1, 0],
            [0, 4, -4, -1, 1, 0],
            [0, -2, -1, 2, 1, 0],
            [0, 2, -1, -2, 1, 0],
            [0, 4, 0, -5, 0, 1],
        ],
        [
            [1 / 4, 0, 0],
            [-1 / 6, -1 / 6, -1 / 6],
            [-1 / 6, 1 / 6, -1 / 6],
            [1 / 24, 1 / 12, 1 / 6],
            [1 / 24, -1 / 12, 1 / 6],
            [0, 0, 1],
        ],
    ),
}


def matrices(tile_size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A^T, B^T, G) of F(tile_size, 3), float64: (m, alpha), (alpha, alpha), (alpha, 3)."""
    a_t, b_t, g = _MATRICES[tile_size]
    return np.array(a_t), np.array(b_t), np.array(g)


def transform_kernel(
    kernel_hwio: np.ndarray, tile_size: int, block: int | None = None
) -> np.ndarray:
    """`G g G^T` of an HWIO 3x3 kernel: `[alpha, alpha, C, K]`, or packed
    `[alpha, alpha, K / block, C, block]` when `block` is given (computed in float64)."""
    _, _, g = matrices(tile_size)
    u = np.einsum("ai,ijck,bj->abck", g, kernel_hwio.astype(np.float64), g, optimize=True)
    if block is not None:
        alpha, _, c, k = u.shape
        u = u.reshape(alpha, alpha, c, k // block, block).transpose(0, 1, 3, 2, 4)
    return np.ascontiguousarray(u.astype(kernel_hwio.dtype))


def unpack_kernel(u: np.ndarray) -> np.ndarray:
    """A transformed kernel as `[alpha, alpha, C, K]`, whether packed or not."""
    if u.ndim == 4:
        return u
    alpha, _, blocks, c, block = u.shape
    return u.transpose(0, 1, 3, 2, 4).reshape(alpha, alpha, c, blocks * block)


def conv2d_nhwc(
    data: np.ndarray, u: np.ndarray, tile_size: int, padding: tuple[int, int, int, int]
) -> np.ndarray:
    """The winograd convolution of NHWC `data` with the transformed kernel `u`, in `data`'s
    type (the relay interpreter's rule; it rounds as the compiled kernel does)."""
    a_t, b_t, _ = (m.astype(data.dtype) for m in matrices(tile_size))
    u = unpack_kernel(u)
    m, alpha = tile_size, tile_size + 2
    top, left, bottom, right = padding
    n, h, w, _ = data.shape
    out_h, out_w = h + top + bottom - 2, w + left + right - 2
    tiles_h, tiles_w = -(-out_h // m), -(-out_w // m)
    padded = np.zeros((n, tiles_h * m + 2, tiles_w * m + 2, data.shape[3]), data.dtype)
    rows, cols = min(h + top, padded.shape[1]) - top, min(w + left, padded.shape[2]) - left
    padded[:, top : top + rows, left : left + cols] = data[:, :rows, :cols]
    tiles = np.stack(
        [
            np.stack(
                [padded[:, m * i : m * i + alpha, m * j : m * j + alpha] for j in range(tiles_w)], 1
            )
            for i in range(tiles_h)
        ],
        1,
    )  # n, tiles_h, tiles_w, alpha, alpha, C
    v = np.einsum("ai,nxyijc,bj->abnxyc", b_t, tiles, b_t, optimize=True)
    product = np.einsum("abnxyc,abck->abnxyk", v, u, optimize=True)
    y = np.einsum("ra,abnxyk,sb->nxrysk", a_t, product, a_t, optimize=True)
    y = y.reshape(n, tiles_h * m, tiles_w * m, -1)
    return np.ascontiguousarray(y[:, :out_h, :out_w])
