"""TVM's schedules in Python: `s = te.create_schedule(C.op)`, `s[C].split(...)`, ...

Each primitive called on a stage is recorded as the te-dialect op that says the same thing,
in call order; lowering applies them (`convert-te-to-tir`). Axes are IterVars named as TVM
names them (`i.outer`, `i.inner`, `i.j.fused`), which is how the IR refers to them.

`s.cache_read` / `s.cache_write` add stages here as TVM does (`A.shared` with axes `ax0, ...`;
`C.local` with axes `i.c, ...` and C's reduce axes, C becoming a copy of it), so that later
primitives can name them; their IR ops take the cached tensor as an operand, so they are
built with the kernel (`CachePrimitive`).

`s.transpose_read` (not TVM's) changes the computation instead: a new stage holds an operand
with its last two axes swapped and the readers read it; the schedule lowers a rewritten copy
of each reader's operation (`Schedule.rewritten`), the computation itself left unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation, SSAValue

from xtvm.dialects import te
from xtvm.dialects.te import PrimitiveOp
from xtvm.ir import traversal
from xtvm.ir.errors import ScheduleError
from xtvm.te.expr import (
    IDENTITY,
    CommReducer,
    ComputeOp,
    IterVar,
    PrimExpr,
    Read,
    Reduce,
    ScanOp,
    Select,
    StringImm,
    Tensor,
    make_const,
    substitute,
)
from xtvm.te.expr import Operation as TeOperation
from xtvm.te.intrinsic_registry import registry_name
from xtvm.te.stmt import Buffer, ExternOp  # noqa: F401 (tvm.te.schedule.Buffer)


@dataclass(frozen=True)
class Split:
    """`s[C].split` made `outer` and `inner` of `parent` (an entry of `Stage.relations`)."""

    parent: IterVar
    outer: IterVar
    inner: IterVar
    factor: int | None
    nparts: int | None


@dataclass(frozen=True)
class Fuse:
    """`s[C].fuse` made `fused` of the adjacent axes `outer`, ..., `inner`."""

    outer: IterVar
    inner: IterVar
    fused: IterVar


@dataclass(frozen=True)
class Singleton:
    """`s[C].fuse()` with no axes made `iter`, a loop of one iteration (of a 0-d stage)."""

    iter: IterVar


@dataclass
class IterVarAttr:
    """What primitives said about a loop: `s[C].iter_var_attrs[xi].iter_type`."""

    iter_type: int
    pragma_keys: list[StringImm] = field(default_factory=list)
    pragma_values: list[object] = field(default_factory=list)
    tensor_intrin: object = None


class Stage:
    """The schedule of one compute operation."""

    def __init__(self, op: ComputeOp | ScanOp | ExternOp, schedule: Schedule) -> None:
        self.op = op
        self.schedule = schedule
        self.leaf_iter_vars: list[IterVar] = [*op.axis, *op.reduce_axis]
        self.all_iter_vars: list[IterVar] = list(self.leaf_iter_vars)
        self.tensor = op.output(0)  # what readers read, also once cache_write makes it a copy
        self.reads: list[Tensor] = op.input_tensors  # as cache_read/cache_write redirect them
        self.attach: str | tuple[Stage, IterVar] = "root"  # or "inline"
        self.scheduled = False
        self.threads: dict[str, IterVar] = {}
        self.relations: list[Split | Fuse | Singleton] = []
        self.iter_var_attrs: dict[IterVar, IterVarAttr] = {}
        self.scope = ""

    @property
    def origin_op(self) -> TeOperation:
        return self.op

    def _record(self, primitive: Operation) -> None:
        """Record a primitive; an op of several outputs is one te.compute per output (named
        `C`, `C.v1`, ...), each scheduled alike."""
        self.scheduled = True
        self.schedule.primitives.append(primitive)
        for name in self.op.output_names[1:]:
            assert isinstance(primitive, PrimitiveOp)
            twin = primitive.clone()
            twin.properties["stage"] = StringAttr(name)
            self.schedule.primitives.append(twin)

    def _attr(self, axis: IterVar) -> IterVarAttr:
        return self.iter_var_attrs.setdefault(axis, IterVarAttr(axis.iter_type))

    def _new_axes(self, *axes: IterVar) -> None:
        self.all_iter_vars.extend(axes)

    def _check_leaf(self, axis: IterVar, what: str) -> None:
        if not any(axis is leaf for leaf in self.leaf_iter_vars):
            names = ", ".join(v.name for v in self.leaf_iter_vars)
            raise ScheduleError(
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
            raise ScheduleError("split: give exactly one of factor and nparts")
        amount = int(factor if factor is not None else nparts)  # type: ignore[arg-type]
        if amount < 1:
            raise ScheduleError(f"split: factor/nparts must be positive, got {amount}")
        extent = parent.dom.extent
        divided = (
            -(-extent // amount) if isinstance(extent, int) else (extent + amount - 1) // amount
        )
        inner_extent = amount if factor is not None else divided
        outer_extent = divided if factor is not None else amount
        outer = IterVar(outer_extent, f"{parent.name}.outer", parent.iter_type)
        inner = IterVar(inner_extent, f"{parent.name}.inner", parent.iter_type)
        self._replace([parent], [outer, inner])
        self._new_axes(outer, inner)
        self.relations.append(Split(parent, outer, inner, factor, nparts))
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
            raise ScheduleError("reorder: an axis appears twice")
        positions = sorted(
            next(i for i, v in enumerate(self.leaf_iter_vars) if v is a) for a in order
        )
        for position, axis in zip(positions, order, strict=True):
            self.leaf_iter_vars[position] = axis
        self._record(te.ReorderOp(self.op.name, **te.properties_of(order=[a.name for a in order])))

    def fuse(self, *axes: IterVar) -> IterVar:
        """Fuse adjacent axes (outermost first) into one; one axis is returned as it is, and
        no axis gives a loop of one iteration outside the others (TVM's singleton)."""
        for axis in axes:
            self._check_leaf(axis, "fuse")
        if not axes:
            singleton = IterVar(1, "singleton")
            self.leaf_iter_vars.insert(0, singleton)
            self._new_axes(singleton)
            self.relations.append(Singleton(singleton))
            return singleton
        if len(axes) == 1:
            return axes[0]
        first = next(i for i, v in enumerate(self.leaf_iter_vars) if v is axes[0])
        if [id(v) for v in self.leaf_iter_vars[first : first + len(axes)]] != [id(a) for a in axes]:
            raise ScheduleError(
                "fuse: the axes must be adjacent loops, outermost first; loops are "
                + ", ".join(v.name for v in self.leaf_iter_vars)
            )
        extent = axes[0].dom.extent
        for axis in axes[1:]:
            extent = extent * axis.dom.extent
        fused = IterVar(extent, ".".join(a.name for a in axes) + ".fused", axes[0].iter_type)
        self._replace(list(axes), [fused])
        self._new_axes(fused)
        self.relations.append(Fuse(axes[0], axes[-1], fused))
        props = te.properties_of(axes=[a.name for a in axes], fused=fused.name)
        self._record(te.FuseOp(self.op.name, **props))
        return fused

    def _annotate(
        self,
        op_class: type[te.AxisAnnotationOp],
        axis: IterVar,
        what: str,
        iter_type: int,
        reduction: bool = False,
    ) -> None:
        self._check_leaf(axis, what)
        if (
            axis.iter_type == IterVar.COMM_REDUCE
            and iter_type != IterVar.Unrolled
            and not reduction
        ):
            raise ScheduleError(f"{what}: cannot {what} reduce axis {axis.name}")
        self._attr(axis).iter_type = iter_type
        if any(axis is r.iter for r in self.relations if isinstance(r, Singleton)):
            return  # a loop of one iteration: nothing to mark
        self._record(op_class(self.op.name, **te.properties_of(axis=axis.name)))

    def parallel(self, axis: IterVar) -> None:
        self._annotate(te.ParallelOp, axis, "parallel", IterVar.Parallelized)

    def vectorize(self, axis: IterVar, reduction: bool = False) -> None:
        """Vectorize the loop of `axis`. A reduce axis is refused, as TVM does, unless
        `reduction=True`: xtvm then keeps a vector of partial results (tir-vector-accumulate)."""
        self._annotate(te.VectorizeOp, axis, "vectorize", IterVar.Vectorized, reduction)

    def unroll(self, axis: IterVar) -> None:
        self._annotate(te.UnrollOp, axis, "unroll", IterVar.Unrolled)

    def set_scope(self, scope: str) -> None:
        """Keep this stage's buffer in storage scope `scope` (`shared`, `local`, ...)."""
        check_scope(scope)
        self.scope = scope
        self._record(te.SetScopeOp(self.op.name, **te.properties_of(scope=scope)))

    def bind(self, axis: IterVar, thread: IterVar) -> None:
        """Bind the loop of `axis` to a GPU thread axis; a thread binds one loop per stage."""
        self._check_leaf(axis, "bind")
        if thread.iter_type != IterVar.THREAD_INDEX:
            raise ScheduleError("bind: the second argument must be a te.thread_axis")
        bound = self.threads.get(thread.thread_tag)
        if bound is not None and bound is not axis:
            raise ScheduleError(
                f"bind: {thread.thread_tag} is already bound to {bound.name} of stage "
                f"{self.op.name}"
            )
        self.threads[thread.thread_tag] = axis
        self._attr(axis).iter_type = IterVar.THREAD_INDEX
        self._record(
            te.BindOp(self.op.name, **te.properties_of(axis=axis.name, thread=thread.thread_tag))
        )

    def pragma(self, var: IterVar, pragma_type: str, pragma_value: int | str | None = None) -> None:
        """Annotate the loop of `var` with `pragma_<pragma_type>` (value 1 when none is given)."""
        self._check_leaf(var, "pragma")
        attr = self._attr(var)
        attr.pragma_keys.append(StringImm(pragma_type))
        attr.pragma_values.append(pragma_value)
        if pragma_type in PRAGMA_ITER_TYPES:  # TVM's pragma spellings of the loop kinds
            getattr(self, pragma_type)(var)
            return
        props = te.properties_of(axis=var.name, key=pragma_type, value=pragma_value)
        self._record(te.PragmaOp(self.op.name, **props))

    def tensorize(self, var: IterVar, tensor_intrin: object) -> None:
        """Compute the loops of `var` and those inside it with a tensor intrinsic
        (`te.decl_tensor_intrin`, or the name it is registered under); `tvm.lower` matches
        those loops against the intrinsic's computation and replaces them with its lowering."""
        self._check_leaf(var, "tensorize")
        attr = self._attr(var)
        attr.iter_type, attr.tensor_intrin = IterVar.Tensorized, tensor_intrin
        props = te.properties_of(axis=var.name, intrin=registry_name(tensor_intrin))
        self._record(te.TensorizeOp(self.op.name, **props))

    def storage_align(self, axis: IterVar, factor: int, offset: int) -> None:
        """Pad the stride of `axis`'s buffer dimension to `factor * k + offset` (bank conflicts)."""
        if not any(axis is a for a in self.op.axis):
            raise ScheduleError(
                f"storage_align: {axis.name} is not a data-parallel root axis of stage "
                f"{self.op.name}"
            )
        if factor < 1 or not 0 <= offset < factor:
            raise ScheduleError(
                f"storage_align: need factor >= 1 and 0 <= offset < factor, got {factor}, {offset}"
            )
        props = te.properties_of(axis=axis.name, factor=factor, offset=offset)
        self._record(te.StorageAlignOp(self.op.name, **props))

    def compute_inline(self) -> None:
        self.attach = "inline"
        self._record(te.ComputeInlineOp(self.op.name))

    def compute_root(self) -> None:
        self.attach = "root"
        self._record(te.ComputeRootOp(self.op.name))

    def compute_at(self, parent: Stage, scope: IterVar) -> None:
        """Compute this stage inside loop `scope` of `parent`, which must read it, over the
        region `parent` reads in one iteration of that loop. As in TVM, an attachment that
        cannot be (at itself, at a stage that does not read it) fails in `tvm.lower`."""
        parent._check_leaf(scope, "compute_at")
        self.attach = (parent, scope)
        props = te.properties_of(parent=parent.op.name, axis=scope.name)
        self._record(te.ComputeAtOp(self.op.name, **props))


@dataclass
class CachePrimitive:
    """A cache_read or cache_write, built once the kernel defines the tensor it caches."""

    source: Tensor
    cache: Tensor
    build: Callable[[SSAValue], Operation]


class Schedule:
    """Stages of every compute operation the outputs depend on; `s[C]` is C's stage."""

    def __init__(self, outputs: Sequence[TeOperation]) -> None:
        self.outputs = list(outputs)
        self.primitives: list[Operation | CachePrimitive] = []
        # id of an operation of the computation -> the operation that computes it in this
        # schedule, its body rewritten (`transpose_read`); its outputs stand for the original's
        self.rewritten: dict[int, ComputeOp] = {}
        self.stages: list[Stage] = []
        self._by_op: dict[int, Stage] = {}
        taken: set[str] = set()
        for op in post_order_ops(self.outputs):
            if op.name in taken:  # TVM allows two stages of one name; the IR names stages
                op.name = next(
                    f"{op.name}_{k}" for k in range(1, 10**6) if f"{op.name}_{k}" not in taken
                )
            taken.update(getattr(op, "output_names", [op.name]))
            if isinstance(op, ComputeOp | ScanOp | ExternOp):
                stage = Stage(op, self)
                self.stages.append(stage)
                self._by_op[id(op)] = stage

    def normalize(self) -> Schedule:
        """TVM rebases loops to start at 0 here; xtvm's always do."""
        return self

    def __getitem__(self, key: Tensor | TeOperation) -> Stage:
        op = key.op if isinstance(key, Tensor) else key
        stage = self._by_op.get(id(op))
        if stage is None:
            raise KeyError(f"{op.name} has no stage in this schedule (placeholders have none)")
        return stage

    def reads_through_inlined(self, stage: Stage) -> list[Tensor]:
        """The tensors `stage` reads, directly or through the stages inlined into it."""
        found: list[Tensor] = []
        pending = list(stage.reads)
        while pending:
            tensor = pending.pop()
            if any(tensor is t for t in found):
                continue
            found.append(tensor)
            producer = self._by_op.get(id(tensor.op))
            if producer is not None and producer.attach == "inline":
                pending.extend(producer.reads)
        return found

    def _fresh_name(self, name: str) -> str:
        taken = {s.op.name for s in self.stages}
        if name not in taken:
            return name
        return next(f"{name}{k}" for k in range(1, len(taken) + 2) if f"{name}{k}" not in taken)

    def cache_read(
        self, tensor: Tensor, scope: str, readers: Sequence[Tensor | TeOperation]
    ) -> Tensor:
        """A stage `<tensor>.<scope>` copying `tensor` into a `scope` buffer; `readers` read
        the copy instead. Returns the copy."""
        check_scope(scope)
        reader_stages = [self[r] for r in readers]
        for reader in reader_stages:
            if not any(tensor is t for t in reader.reads):
                raise ScheduleError(f"cache_read: {reader.op.name} does not read {tensor.name}")
        axes = [IterVar(d, f"ax{k}") for k, d in enumerate(tensor.shape)]
        op = ComputeOp(
            self._fresh_name(f"{tensor.name}.{scope}"), "", axes, Read(tensor, tuple(axes))
        )
        cache = op.output(0)
        producer = self._by_op.get(id(tensor.op))
        stage = Stage(op, self)
        self.stages.insert(self.stages.index(producer) + 1 if producer else 0, stage)
        self._by_op[id(op)] = stage
        for reader in reader_stages:
            reader.reads = [cache if t is tensor else t for t in reader.reads]
        names = [r.op.name for r in reader_stages]
        self.primitives.append(
            CachePrimitive(tensor, cache, lambda v: te.CacheReadOp(v, op.name, scope, names))
        )
        return cache

    def transpose_read(self, tensor: Tensor, readers: Sequence[Tensor | TeOperation]) -> Tensor:
        """A stage `<tensor>.T` holding `tensor` with its last two axes swapped, which the
        compute stages `readers` read instead (their indices swapped alike): a product's
        operand read [..., n, k] becomes [..., k, n], so that a tile vectorized along n loads
        it contiguously. Not in TVM's te (its x86 schedules pack such operands in the
        compute). It changes the readers' computation, so call it before their other
        primitives; the operations themselves stay as they were (a new operation per reader,
        in `rewritten`, is what the schedule lowers), so the computation can be scheduled
        afresh. Returns the new stage's tensor, to be scheduled as any (computed at a tile's
        loop, its buffer is one panel of the transposed operand)."""
        if len(tensor.shape) < 2:
            raise ScheduleError(f"transpose_read: {tensor.name} has fewer than two axes")
        reader_stages = [self[r] for r in readers]
        for reader in reader_stages:
            if not isinstance(reader.op, ComputeOp) or not any(tensor is t for t in reader.reads):
                raise ScheduleError(f"transpose_read: {reader.op.name} does not read {tensor.name}")
            if reader.scheduled:
                raise ScheduleError(
                    f"transpose_read: call it before the other primitives of {reader.op.name}"
                )
        *lead, second, last = tensor.shape
        axes = [IterVar(d, f"ax{k}") for k, d in enumerate((*lead, last, second))]
        *outer, along_last, along_second = axes
        op = ComputeOp(
            self._fresh_name(f"{tensor.name}.T"),
            "injective",
            axes,
            Read(tensor, (*outer, along_second, along_last)),
        )
        swapped = op.output(0)

        def swap(indices: tuple[PrimExpr, ...]) -> PrimExpr:
            *head, a, b = indices
            return Read(swapped, (*head, b, a))

        for reader in reader_stages:
            current = reader.op
            assert isinstance(current, ComputeOp)
            bodies = [substitute(b, {}, {id(tensor): swap}) for b in current.bodies]
            new = ComputeOp(current.name, current.tag, current.axis, bodies, current.attrs)
            origin = next((k for k, op in self.rewritten.items() if op is current), id(current))
            self.rewritten[origin] = new
            self._by_op[id(new)] = reader
            reader.op = new
            reader.reads = [swapped if t is tensor else t for t in reader.reads]
        producer = self._by_op.get(id(tensor.op))
        stage = Stage(op, self)
        self.stages.insert(self.stages.index(producer) + 1 if producer else 0, stage)
        self._by_op[id(op)] = stage
        return swapped

    def cache_write(self, tensor: Tensor | Sequence[Tensor], scope: str) -> Tensor:
        """A stage `<tensor>.<scope>` computing `tensor` into a `scope` buffer; `tensor`'s
        stage becomes a copy of it (keeping its axes). Returns the new stage's tensor."""
        check_scope(scope)
        if not isinstance(tensor, Tensor):
            if len(tensor) != 1:
                raise NotImplementedError("cache_write of several outputs is not supported")
            tensor = tensor[0]
        stage = self[tensor]
        if stage.scheduled:
            raise ScheduleError(
                f"cache_write: call it before the other primitives of stage {stage.op.name}"
            )
        original = stage.op
        axes = [IterVar(a.dom.extent, f"{a.name}.c") for a in original.axis]
        renamed = {id(a): b for a, b in zip(original.axis, axes, strict=True)}
        body = substitute(original.body, renamed)
        op = ComputeOp(self._fresh_name(f"{original.name}.{scope}"), original.tag, axes, body)
        cache = op.output(0)
        cache_stage = Stage(op, self)
        cache_stage.reads = stage.reads
        self.stages.insert(self.stages.index(stage), cache_stage)
        self._by_op[id(op)] = cache_stage
        copy = ComputeOp(
            original.name, original.tag, original.axis, Read(cache, tuple(original.axis))
        )
        stage.op = copy
        stage.leaf_iter_vars = list(original.axis)
        stage.reads = [cache]
        self._by_op[id(copy)] = stage
        self.primitives.append(
            CachePrimitive(tensor, cache, lambda v: te.CacheWriteOp(v, op.name, scope))
        )
        return cache

    def rfactor(self, tensor: Tensor, axis: IterVar, factor_axis: int = 0) -> Tensor:
        """Factor the reduction of `tensor` over reduce loop `axis` out into a new stage
        (TVM's rfactor): it computes, for each value of `axis` (a new data-parallel axis at
        position `factor_axis`), the reduction over the remaining reduce loops; `tensor`
        then reduces that stage over `axis`. `axis` is an original reduce axis or a part of
        one split once; call rfactor before `tensor`'s other primitives. Returns the new
        stage's tensor (schedulable as any: `s[BF].parallel(BF.op.axis[0])`)."""
        stage = self[tensor]
        op = stage.op
        body = op.body if isinstance(op, ComputeOp) else None
        if not isinstance(body, Reduce) or len(op.outputs) != 1:
            raise ScheduleError(f"rfactor: stage {op.name} is not a reduction of one value")
        assert isinstance(op, ComputeOp)
        stage._check_leaf(axis, "rfactor")
        splits = [r for r in stage.relations if isinstance(r, Split)]
        if len(stage.relations) > 1 or (splits and axis not in (splits[0].outer, splits[0].inner)):
            raise ScheduleError(
                "rfactor: call it after splitting only the reduce axis it factors, once"
            )
        recorded = [
            p
            for p in self.primitives
            if isinstance(p, PrimitiveOp) and p.stage.data in op.output_names
        ]
        if any(not isinstance(p, te.SplitOp) for p in recorded) or stage.attach != "root":
            raise ScheduleError(
                "rfactor: call it after splitting only the reduce axis it factors, once"
            )
        split = splits[0] if splits else None
        if not 0 <= factor_axis <= len(op.axis):
            raise ScheduleError(f"rfactor: factor_axis {factor_axis} out of range")
        spatial = [IterVar(a.dom.extent, a.name) for a in op.axis]
        rf = IterVar(axis.dom.extent, axis.name)
        mapping: dict[int, PrimExpr] = {id(a): b for a, b in zip(op.axis, spatial, strict=True)}
        reduce_axes: list[IterVar] = []
        guard: PrimExpr | None = None
        for k in body.axes:
            if split is None or k is not split.parent:
                if k is axis:
                    mapping[id(k)] = rf
                else:
                    mapping[id(k)] = fresh = IterVar(k.dom.extent, k.name, IterVar.COMM_REDUCE)
                    reduce_axes.append(fresh)
                continue
            other = split.outer if axis is split.inner else split.inner
            rest = IterVar(other.dom.extent, other.name, IterVar.COMM_REDUCE)
            reduce_axes.append(rest)
            outer, inner = (rf, rest) if axis is split.outer else (rest, rf)
            mapping[id(k)] = value = outer * split.inner.dom.extent + inner
            extent = k.dom.extent
            covered = split.outer.dom.extent * split.inner.dom.extent  # type: ignore[operator]
            if not (isinstance(extent, int) and isinstance(covered, int) and covered == extent):
                guard = value < extent
        if split is not None and split.parent not in body.axes:
            raise ScheduleError(f"rfactor: {axis.name} is not a part of a reduce axis")
        source = substitute(body.source, mapping)
        if guard is not None:
            combiner = body.combiner
            identity = (
                combiner.identity(source.dtype)
                if isinstance(combiner, CommReducer)
                else make_const(IDENTITY[combiner](source.dtype), source.dtype)
            )
            source = Select(guard, source, identity)
        spatial.insert(factor_axis, rf)
        factored = ComputeOp(
            self._fresh_name(f"{op.name}.rf"),
            op.tag,
            spatial,
            Reduce(body.combiner, source, tuple(reduce_axes)) if reduce_axes else source,
        )
        result = factored.output(0)
        kept = IterVar(axis.dom.extent, f"{axis.name}.v", IterVar.COMM_REDUCE)
        indices: list[PrimExpr] = list(op.axis)
        indices.insert(factor_axis, kept)
        new_body = Reduce(body.combiner, Read(result, tuple(indices)), (kept,), init=body.init)
        op.bodies = [new_body]
        op.body = new_body
        op.reduce_axis = [kept]
        self.primitives = [p for p in self.primitives if not any(p is r for r in recorded)]
        stage.leaf_iter_vars = [*op.axis, kept]
        stage.all_iter_vars = list(stage.leaf_iter_vars)
        stage.relations = []
        stage.iter_var_attrs = {}
        stage.reads = [result]
        stage.scheduled = False
        factored_stage = Stage(factored, self)
        self.stages.insert(self.stages.index(stage), factored_stage)
        self._by_op[id(factored)] = factored_stage
        return result


PRAGMA_ITER_TYPES = ("vectorize", "unroll", "parallel")


def check_scope(scope: str) -> None:
    if not te.is_memory_scope(scope):
        known = ", ".join(sorted(te.MEMORY_SCOPES))
        raise ScheduleError(
            f"unknown storage scope '{scope}' (known: {known}); a target declares its own with "
            "xtvm.dialects.te.register_memory_scope"
        )


def post_order_ops(outputs: Sequence[TeOperation]) -> list[TeOperation]:
    """Operations the outputs depend on, producers first."""
    return traversal.post_order(
        outputs,
        lambda op: [tensor.op for tensor in op.input_tensors],  # type: ignore[attr-defined]
    )


def create_schedule(ops: TeOperation | Sequence[TeOperation]) -> Schedule:
    return Schedule([ops] if isinstance(ops, TeOperation) else list(ops))
