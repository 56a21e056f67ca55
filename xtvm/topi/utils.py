"""TVM's `topi.utils` shape helpers: a shape of te constants (or a relay type's shape) as
Python ints."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from xtvm.te.expr import IntImm, PrimExpr


def get_const_int(expr: object) -> int:
    """`expr` (an int or an integer constant) as an int; a symbolic value is a `ValueError`."""
    if isinstance(expr, int | np.integer):
        return int(expr)
    if isinstance(expr, IntImm):
        return int(expr.value)
    if isinstance(expr, PrimExpr):
        raise ValueError(f"expected a constant integer, got the expression {expr}")
    raise TypeError(f"expected an integer, got {type(expr).__name__}")


def get_const_tuple(in_tuple: Iterable[object]) -> tuple[int, ...]:
    """`in_tuple` as a tuple of ints; symbolic dimensions are kept as they are, as in TVM."""
    return tuple(
        e if isinstance(e, PrimExpr) and not isinstance(e, IntImm) else get_const_int(e)
        for e in in_tuple
    )
