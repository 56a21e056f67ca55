"""TVM's schedules in Python: `s = te.create_schedule(C.op)`, `s[C].split(...)`, ...

Each primitive called on a stage is recorded as the te-dialect op that says the same thing,
in call order; lowering applies them (`convert-te-to-tir`). Axes are IterVars named as TVM
names them (`i.outer`, `i.inner`, `i.j.fused`), which is how the IR refers to them.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Operation

from xtvm.api.te.expr import ComputeOp, IterVar, Tensor
from xtvm.api.te.expr import Operation as TeOperation
from xtvm.dialects import te


class Stage:
    """The schedule of one compute operation."""

    def __init__(self, op: ComputeOp, schedule: Schedule) -> None:
        self.op = op
        self.schedule = schedule
        self.leaf_iter_vars: list[IterVar] = [*op.axis, *op.reduce_axis]

    def _record(self, primitive: Operation) -> None:
        self.schedule.primitives.append(primitive)

    def _check_leaf(self, axis: IterVar, what: str) -> None:
        if not any(axis is leaf for leaf in self.leaf_iter_vars):
            names = ", ".join(v.name for v in self.leaf_iter_vars)
            raise ValueError(
                f"{what}: {axis.name} is not a loop of stage {self.op.name} (loops: {names})"
            )

    def _replace(self, old: Sequence[IterVar], new: Sequence[IterVar]) -> None:
        position = next(i for i, v in enumerate(self.leaf_iter_vars) if v is old[0])
        self.leaf_iter_vars[position : position + len(old)] = list(new)

    def split(
        self, parent: IterVar, factor: int | None = None, nparts: int | None = None
    ) -> tuple[IterVar, IterVar]:
        """Split `parent` into (outer, inner) by an inner `factor` or an outer `nparts`."""
        self._check_leaf(parent, "split")
        if (factor is None) == (nparts is None):
            raise ValueError("split: give exactly one of factor and nparts")
        amount = int(factor if factor is not None else nparts)  # type: ignore[arg-type]
        if amount < 1:
            raise ValueError(f"split: factor/nparts must be positive, got {amount}")
        extent = parent.dom.extent
        inner_extent = amount if factor is not None else -(-extent // amount)
        outer_extent = -(-extent // amount) if factor is not None else amount
        outer = IterVar(outer_extent, f"{parent.name}.outer", parent.iter_type)
        inner = IterVar(inner_extent, f"{parent.name}.inner", parent.iter_type)
        self._replace([parent], [outer, inner])
        props = te.properties_of(
            axis=parent.name, factor=factor, nparts=nparts, outer=outer.name, inner=inner.name
        )
        self._record(te.SplitOp(self.op.name, **props))
        return outer, inner

    def tile(
        self, x_parent: IterVar, y_parent: IterVar, x_factor: int, y_factor: int
    ) -> tuple[IterVar, IterVar, IterVar, IterVar]:
        """Split two axes and order them (x.outer, y.outer, x.inner, y.inner)."""
        xo, xi = self.split(x_parent, factor=x_factor)
        yo, yi = self.split(y_parent, factor=y_factor)
        self.reorder(xo, yo, xi, yi)
        return xo, yo, xi, yi

    def reorder(self, *order: IterVar) -> None:
        for axis in order:
            self._check_leaf(axis, "reorder")
        if len({id(a) for a in order}) != len(order):
            raise ValueError("reorder: an axis appears twice")
        positions = sorted(
            next(i for i, v in enumerate(self.leaf_iter_vars) if v is a) for a in order
        )
        for position, axis in zip(positions, order, strict=True):
            self.leaf_iter_vars[position] = axis
        self._record(te.ReorderOp(self.op.name, **te.properties_of(order=[a.name for a in order])))

    def fuse(self, *axes: IterVar) -> IterVar:
        """Fuse adjacent axes (outermost first) into one."""
        for axis in axes:
            self._check_leaf(axis, "fuse")
        if len(axes) < 2:
            raise ValueError("fuse: give at least two axes")
        first = next(i for i, v in enumerate(self.leaf_iter_vars) if v is axes[0])
        if [id(v) for v in self.leaf_iter_vars[first : first + len(axes)]] != [id(a) for a in axes]:
            raise ValueError("fuse: the axes must be adjacent loops, outermost first")
        extent = 1
        for axis in axes:
            extent *= axis.dom.extent
        fused = IterVar(extent, ".".join(a.name for a in axes) + ".fused", axes[0].iter_type)
        self._replace(list(axes), [fused])
        props = te.properties_of(axes=[a.name for a in axes], fused=fused.name)
        self._record(te.FuseOp(self.op.name, **props))
        return fused

    def _annotate(self, op_class: type[te.AxisAnnotationOp], axis: IterVar, what: str) -> None:
        self._check_leaf(axis, what)
        self._record(op_class(self.op.name, **te.properties_of(axis=axis.name)))

    def parallel(self, axis: IterVar) -> None:
        self._annotate(te.ParallelOp, axis, "parallel")

    def vectorize(self, axis: IterVar) -> None:
        self._annotate(te.VectorizeOp, axis, "vectorize")

    def unroll(self, axis: IterVar) -> None:
        self._annotate(te.UnrollOp, axis, "unroll")

    def bind(self, axis: IterVar, thread: IterVar) -> None:
        self._check_leaf(axis, "bind")
        if thread.iter_type != IterVar.THREAD_INDEX:
            raise ValueError("bind: the second argument must be a te.thread_axis")
        self._record(
            te.BindOp(self.op.name, **te.properties_of(axis=axis.name, thread=thread.thread_tag))
        )

    def compute_inline(self) -> None:
        self._record(te.ComputeInlineOp(self.op.name))

    def compute_root(self) -> None:
        self._record(te.ComputeRootOp(self.op.name))

    def compute_at(self, parent: Stage, axis: IterVar) -> None:
        raise NotImplementedError(
            "compute_at is not supported yet; use compute_inline or compute_root"
        )

    def cache_read(self, *args: object) -> None:
        raise NotImplementedError("cache_read is not supported yet")

    def cache_write(self, *args: object) -> None:
        raise NotImplementedError("cache_write is not supported yet")


class Schedule:
    """Stages of every compute operation the outputs depend on; `s[C]` is C's stage."""

    def __init__(self, outputs: Sequence[TeOperation]) -> None:
        self.outputs = list(outputs)
        self.primitives: list[Operation] = []
        self.stages: list[Stage] = []
        self._by_op: dict[int, Stage] = {}
        for op in post_order_ops(self.outputs):
            if isinstance(op, ComputeOp):
                stage = Stage(op, self)
                self.stages.append(stage)
                self._by_op[id(op)] = stage

    def __getitem__(self, key: Tensor | TeOperation) -> Stage:
        op = key.op if isinstance(key, Tensor) else key
        stage = self._by_op.get(id(op))
        if stage is None:
            raise KeyError(f"{op.name} has no stage in this schedule (placeholders have none)")
        return stage


def post_order_ops(outputs: Sequence[TeOperation]) -> list[TeOperation]:
    """Operations the outputs depend on, producers first."""
    order: list[TeOperation] = []
    seen: set[int] = set()
    stack: list[tuple[TeOperation, bool]] = [(op, False) for op in reversed(outputs)]
    while stack:
        op, expanded = stack.pop()
        if expanded:
            order.append(op)
            continue
        if id(op) in seen:
            continue
        seen.add(id(op))
        stack.append((op, True))
        for tensor in reversed(op.input_tensors):  # type: ignore[attr-defined]
            stack.append((tensor.op, False))
    return order


def create_schedule(ops: TeOperation | Sequence[TeOperation]) -> Schedule:
    return Schedule([ops] if isinstance(ops, TeOperation) else list(ops))
