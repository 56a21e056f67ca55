"""The compute DAG of a workload: its stages, what each reads and who reads it, its flop.

The sketch rules ask the DAG which stages reduce (tiled), which are elementwise (inlined or
fused into a tiled producer) and which are outputs; `flop_ct` gives tuning its GFLOP/s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xtvm.te.expr import (
    Binary,
    Call,
    ComputeOp,
    PlaceholderOp,
    Read,
    Reduce,
    Select,
    Tensor,
    children,
)
from xtvm.te.schedule import Schedule, create_schedule, post_order_ops


@dataclass
class StageInfo:
    """What the sketch rules need to know of one compute stage."""

    name: str
    op: ComputeOp
    consumers: list[str]
    is_output: bool

    @property
    def has_reduction(self) -> bool:
        return bool(self.op.reduce_axis)

    @property
    def spatial_extents(self) -> list[int]:
        return [int(a.dom.extent) for a in self.op.axis]  # type: ignore[call-overload]

    @property
    def reduce_extents(self) -> list[int]:
        return [int(a.dom.extent) for a in self.op.reduce_axis]  # type: ignore[call-overload]


class ComputeDAG:
    """The stages of `tensors` (a workload's arguments), producers first."""

    def __init__(self, tensors: Sequence[Tensor]) -> None:
        self.tensors = list(tensors)
        ops = post_order_ops([t.op for t in self.tensors])
        read: set[int] = {id(t.op) for op in ops for t in op.input_tensors}  # type: ignore[attr-defined]
        self.outputs = [
            t for t in self.tensors if not isinstance(t.op, PlaceholderOp) and id(t.op) not in read
        ]
        computes = [op for op in ops if isinstance(op, ComputeOp)]
        self.stages: list[StageInfo] = []
        for op in computes:
            consumers = [c.name for c in computes if any(t.op is op for t in c.input_tensors)]
            self.stages.append(StageInfo(op.name, op, consumers, id(op) not in read))
        self.flop_ct = float(sum(stage_flop(op) for op in computes))

    def stage(self, name: str) -> StageInfo:
        return next(s for s in self.stages if s.name == name)

    def create_schedule(self) -> Schedule:
        return create_schedule([t.op for t in self.outputs])


def stage_flop(op: ComputeOp) -> int:
    """Floating-point operations of a stage: the arithmetic of its value per point (indices
    not counted, a reduction's combine once) times the points of its spatial and reduce axes."""
    per_point = 0
    pending = list(op.bodies)
    while pending:
        node = pending.pop()
        if isinstance(node, Read):
            continue  # index arithmetic is not the kernel's flop
        if isinstance(node, Binary | Call | Reduce):
            per_point += 1
        if isinstance(node, Select):  # a condition (padding's bounds) is not arithmetic
            pending.extend([node.true_value, node.false_value])
        else:
            pending.extend(children(node))
    points = 1
    for axis in [*op.axis, *op.reduce_axis]:
        points *= int(axis.dom.extent)  # type: ignore[call-overload]
    return points * per_point
