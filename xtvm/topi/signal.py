"""TOPI's signal transforms: the short-time Fourier transform, as one reduction stage."""

from __future__ import annotations

import math

from xtvm import te
from xtvm.te.expr import PrimExpr
from xtvm.topi.tensor import TensorLike, static_shape


def stft(
    data: TensorLike,
    window: TensorLike,
    n_fft: int,
    hop_length: int,
    win_length: int,
    normalized: bool,
    onesided: bool,
) -> te.Tensor:
    """out[.., r, f, 0 / 1] = +/- the sum over k < win_length of window[k] *
    data[.., f * hop_length + k] * cos / sin(2 pi r k / win_length), over sqrt(n_fft) when
    normalized (TVM's kernel)."""
    shape = static_shape(data)
    dtype = data.dtype
    frames = (shape[-1] - n_fft) // hop_length + 1
    rows = n_fft // 2 + 1 if onesided else n_fft
    k = te.reduce_axis((0, win_length), "k")
    scale = 1 / math.sqrt(n_fft) if normalized else 1.0

    def body(*i: PrimExpr) -> PrimExpr:
        *lead, r, f, part = i
        angle = (r * k).astype(dtype) * te.const(2 * math.pi / win_length, dtype)
        wave = te.if_then_else(part.equal(0), te.cos(angle), -te.sin(angle))
        sample = data(*lead, f * hop_length + k) * window(k).astype(dtype)
        return te.sum(sample * wave * te.const(scale, dtype), axis=k)

    return te.compute([*shape[:-1], rows, frames, 2], body, name="T_stft", tag="comm_reduce")
