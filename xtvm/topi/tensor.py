"""What TOPI computes read, and the index arithmetic they share.

A compute reads its inputs through `x[indices]`: te tensors (placeholders and computes), and
`Filled` tensors, one value everywhere (a splat `relay.const`), whose reads are that constant
and which never get a buffer. Index helpers turn output indices into input indices for numpy
broadcasting, row-major flattening and its inverse.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from xtvm import te
from xtvm.te.expr import PrimExpr

Index = PrimExpr | int


@dataclass(frozen=True)
class Filled:
    """A tensor holding `value` everywhere: reading it at any index is the constant itself."""

    shape: tuple[int, ...]
    dtype: str
    value: float | int | bool

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __call__(self, *indices: object) -> PrimExpr:
        if len(indices) != self.ndim:
            raise IndexError(f"a {self.ndim}-d constant is read with {len(indices)} indices")
        return te.const(self.value, self.dtype)

    def __getitem__(self, indices: object) -> PrimExpr:
        return self(*(indices if isinstance(indices, tuple) else (indices,)))


TensorLike = te.Tensor | Filled


def static_shape(x: TensorLike) -> tuple[int, ...]:
    """The shape of `x` as ints (relay shapes are static)."""
    return tuple(int(d) for d in x.shape)  # type: ignore[arg-type]


def is_float(dtype: str) -> bool:
    return dtype.startswith("float")


def accumulator(dtype: str) -> str:
    """The dtype sums accumulate in: float16 widens to float32, as the relay interpreter does."""
    return "float32" if dtype == "float16" else dtype


def lowest(dtype: str) -> float | int | bool:
    """The identity of max: -inf for floats, the smallest integer otherwise."""
    if is_float(dtype):
        return -math.inf
    return False if dtype == "bool" else int(np.iinfo(dtype).min)


def highest(dtype: str) -> float | int | bool:
    if is_float(dtype):
        return math.inf
    return True if dtype == "bool" else int(np.iinfo(dtype).max)


def broadcast_shape(*shapes: Sequence[int]) -> tuple[int, ...]:
    """numpy's broadcast of `shapes` (the relay verifier has already checked they broadcast)."""
    return tuple(np.broadcast_shapes(*(tuple(s) for s in shapes)))


def broadcast_index(indices: Sequence[Index], shape: Sequence[int]) -> tuple[Index, ...]:
    """The indices into a tensor of `shape` that numpy broadcasting reads at output `indices`:
    right-aligned, size-1 dimensions read at 0."""
    lead = len(indices) - len(shape)
    return tuple(0 if d == 1 else indices[lead + k] for k, d in enumerate(shape))


def ravel(indices: Sequence[Index], shape: Sequence[int]) -> Index:
    """The row-major linear index of `indices` in `shape`."""
    linear: Index = 0
    for index, dim in zip(indices, shape, strict=True):
        linear = index if isinstance(linear, int) and linear == 0 else linear * dim + index
    return linear


def unravel(linear: Index, shape: Sequence[int]) -> tuple[Index, ...]:
    """The indices in `shape` of a row-major linear index (the inverse of `ravel`).

    A `shape` of no elements has no index to give: a compute reading such a tensor has no
    elements either, so it gets zeros, which are never evaluated."""
    if math.prod(shape) == 0:
        return tuple(0 for _ in shape)
    out: list[Index] = []
    stride = math.prod(shape)
    for dim in shape:
        stride //= dim
        if dim == 1:
            out.append(0)
            continue
        quotient = linear // stride if stride != 1 else linear
        out.append(quotient % dim if stride * dim != math.prod(shape) else quotient)
    return tuple(out)
