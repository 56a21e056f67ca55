"""`image.affine_grid` and `image.grid_sample`: sampling grids of affine matrices, and
sampling data at a grid's normalized coordinates (TVM's topi.image.grid_sample)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from xtvm import te
from xtvm.te.expr import PrimExpr
from xtvm.topi.elementwise import round_half_even
from xtvm.topi.tensor import TensorLike, static_shape


def affine_grid(theta: TensorLike, target_shape: Sequence[int]) -> te.Tensor:
    """(N, 2, H, W): channel k at (i, j) is theta[n, k] . (x, y, 1), with y = -1 + i * step
    and step (2 - 1e-7) / (H - 1) (x likewise over W), as TVM steps."""
    dtype = theta.dtype
    height, width = target_shape
    y_step = te.const((2.0 - 1e-7) / (height - 1), dtype)
    x_step = te.const((2.0 - 1e-7) / (width - 1), dtype)
    start = te.const(-1.0, dtype)

    def body(n: PrimExpr, k: PrimExpr, i: PrimExpr, j: PrimExpr) -> PrimExpr:
        y = start + i.astype(dtype) * y_step
        x = start + j.astype(dtype) * x_step
        return theta(n, k, 0) * x + theta(n, k, 1) * y + theta(n, k, 2)

    shape = [static_shape(theta)[0], 2, height, width]
    return te.compute(shape, body, name="T_affine_grid", tag="injective")


class Sampler:
    """Reads of `data` (N, C, spatial...) at source coordinates, as grid_sample pads them."""

    def __init__(self, data: TensorLike, padding_mode: str, align_corners: bool) -> None:
        self.data, self.padding_mode, self.align_corners = data, padding_mode, align_corners
        self.sizes = static_shape(data)[2:]
        self.dtype = data.dtype

    def const(self, value: float) -> PrimExpr:
        return te.const(value, self.dtype)

    def unnormalize(self, c: PrimExpr, size: int) -> PrimExpr:
        """-1 and 1 at the corner pixels' centres (align_corners) or outer edges."""
        if self.align_corners:
            return (c + self.const(1.0)) * self.const(size - 1) / self.const(2.0)
        return self.const(-0.5) + (c + self.const(1.0)) * self.const(size) / self.const(2.0)

    def reflect(self, c: PrimExpr, size: int) -> PrimExpr:
        """A coordinate outside [lo, lo + span] folded back in (lo = 0, span = size - 1 when
        align_corners; lo = -0.5, span = size otherwise)."""
        lo, span = (0.0, size - 1) if self.align_corners else (-0.5, size)
        distance = te.abs(self.const(lo) - c)
        times = distance.astype("int32") // max(span, 1)
        extra = distance - times.astype(self.dtype) * self.const(span)
        folded = te.if_then_else(
            (times % 2).equal(0), extra + self.const(lo), self.const(span + lo) - extra
        )
        inside = te.all(c >= self.const(lo), c <= self.const(span + lo))
        return te.if_then_else(inside, c, folded)

    def clip(self, c: PrimExpr, size: int) -> PrimExpr:
        return te.min(te.max(c, self.const(0.0)), self.const(size - 1))

    def pad(self, c: PrimExpr, size: int) -> PrimExpr:
        """`c` after the padding mode: reflected and clipped, clipped, or as it is (zeros)."""
        if self.padding_mode == "reflection":
            c = self.reflect(c, size)
        return c if self.padding_mode == "zeros" else self.clip(c, size)

    def pixel(self, n: PrimExpr, ch: PrimExpr, at: Sequence[PrimExpr]) -> PrimExpr:
        """data[n, ch, at...] at int32 coordinates, 0 outside (reads clamped in bounds)."""
        inside = te.all(*(te.all(a >= 0, a < s) for a, s in zip(at, self.sizes, strict=True)))
        clamped = [te.min(te.max(a, 0), s - 1) for a, s in zip(at, self.sizes, strict=True)]
        return te.if_then_else(inside, self.data(n, ch, *clamped), self.const(0.0))


def cubic_weights(t: PrimExpr, const: object) -> list[PrimExpr]:
    """The weights of the taps at -1, 0, 1, 2 of cubic convolution (a = -0.75)."""
    a = -0.75
    c = const  # the dtype's constants

    def near(f: PrimExpr) -> PrimExpr:
        return (c(a + 2) * f - c(a + 3)) * f * f + c(1.0)  # type: ignore[operator]

    def far(f: PrimExpr) -> PrimExpr:
        return ((c(a) * f - c(5 * a)) * f + c(8 * a)) * f - c(4 * a)  # type: ignore[operator]

    one, two = c(1.0), c(2.0)  # type: ignore[operator]
    return [far(t + one), near(t), near(one - t), far(two - t)]


def grid_sample(
    data: TensorLike, grid: TensorLike, method: str, padding_mode: str, align_corners: bool
) -> te.Tensor:
    """(N, C, grid's spatial...): data sampled at grid's (x, y[, z]) in [-1, 1], at the
    nearest pixel (halves to even), bilinearly, or bicubically (2-d; padding per tap)."""
    s = Sampler(data, padding_mode, align_corners)
    rank = len(s.sizes)

    def body(n: PrimExpr, ch: PrimExpr, *p: PrimExpr) -> PrimExpr:
        raw = [grid(n, rank - 1 - k, *p) for k in range(rank)]
        coords = [s.unnormalize(c, size) for c, size in zip(raw, s.sizes, strict=True)]
        if method == "bicubic":
            return bicubic(s, n, ch, coords)
        coords = [s.pad(c, size) for c, size in zip(coords, s.sizes, strict=True)]
        if method == "nearest":
            return s.pixel(n, ch, [round_half_even(c).astype("int32") for c in coords])
        lows = [te.floor(c) for c in coords]
        fractions = [c - low for c, low in zip(coords, lows, strict=True)]
        total: PrimExpr | None = None
        for corner in itertools.product((0, 1), repeat=rank):
            weight: PrimExpr | None = None
            for f, up in zip(fractions, corner, strict=True):
                w = f if up else s.const(1.0) - f
                weight = w if weight is None else weight * w
            at = [low.astype("int32") + up for low, up in zip(lows, corner, strict=True)]
            term = s.pixel(n, ch, at) * weight
            total = term if total is None else total + term
        assert total is not None
        return total

    shape = [*static_shape(data)[:2], *static_shape(grid)[2:]]
    return te.compute(shape, body, name="T_grid_sample", tag="injective")


def bicubic(s: Sampler, n: PrimExpr, ch: PrimExpr, coords: Sequence[PrimExpr]) -> PrimExpr:
    """4 x 4 cubic convolution around (y, x); each tap's coordinate takes the padding."""
    y, x = coords
    y0, x0 = te.floor(y), te.floor(x)
    wy, wx = cubic_weights(y - y0, s.const), cubic_weights(x - x0, s.const)

    def tap(c: PrimExpr, size: int) -> PrimExpr:
        return c.astype("int32") if s.padding_mode == "zeros" else s.pad(c, size).astype("int32")

    total: PrimExpr | None = None
    for i in range(4):
        row_at = tap(y0 + s.const(i - 1), s.sizes[0])
        row: PrimExpr | None = None
        for j in range(4):
            term = s.pixel(n, ch, [row_at, tap(x0 + s.const(j - 1), s.sizes[1])]) * wx[j]
            row = term if row is None else row + term
        assert row is not None
        total = row * wy[i] if total is None else total + row * wy[i]
    assert total is not None
    return total
