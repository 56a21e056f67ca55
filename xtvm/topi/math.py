"""TVM's `tvm.topi.math`: elementwise math by TVM's module path (`from tvm.topi.math import
cast`); the computes live in `elementwise`."""

from __future__ import annotations

from xtvm.te.expr import PrimExpr, const
from xtvm.topi.elementwise import cast as cast_tensor
from xtvm.topi.elementwise import clip


def cast(x: object, dtype: str, span: object = None) -> object:
    """`x` as `dtype`: a tensor elementwise, a scalar expression as its cast."""
    if isinstance(x, PrimExpr):
        return x.astype(dtype)
    if isinstance(x, int | float):
        return const(x, dtype)
    return cast_tensor(x, dtype)  # type: ignore[arg-type]


__all__ = ["cast", "clip"]
