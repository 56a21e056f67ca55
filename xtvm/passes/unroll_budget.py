"""The op budget of full unrolling, shared by `scf-for-loop-unroll` and `tir-unroll`: a loop
whose unrolling would make more than `max-ops` ops is left rolled, with a remark."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import TypeVar

from xdsl.ir import Operation

from xtvm.ir.diagnostics import Remark

LoopT = TypeVar("LoopT", bound=Operation)


def unrolled_size(op: Operation, trips: Callable[[Operation], int | None]) -> int:
    """How many ops `op` becomes once it and the loops inside it are unrolled, `trips` giving
    the trip count of each loop to unroll (None for any other op)."""
    nested = sum(unrolled_size(o, trips) for r in op.regions for b in r.blocks for o in b.ops)
    count = trips(op)
    return 1 + nested if count is None else count * nested


def over_budget(
    loop: LoopT,
    trips: Callable[[Operation], int | None],
    max_ops: int,
    refused: set[LoopT],
) -> bool:
    """Whether unrolling `loop` makes more than `max_ops` ops; if so `loop` joins `refused`
    and a remark says so (warned at the caller of the pattern's `match_and_rewrite`)."""
    size = unrolled_size(loop, trips)
    if size <= max_ops:
        return False
    refused.add(loop)
    message = (
        f"'{loop.name}' op left rolled: unrolling it makes {size} ops, more than max-ops={max_ops}"
    )
    warnings.warn(Remark(message, loop), stacklevel=3)
    return True
