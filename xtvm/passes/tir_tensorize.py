"""`tir-tensorize`: replace each loop nest marked `tensorize` by its tensor intrinsic's code.

`te.tensorize` (TVM's `s[C].tensorize(axis, intrin)`) makes convert-te-to-tir annotate the loop
of the axis, `tir.for ... annotations {tensorize = "gemm8x8x8"}`. A tensor intrinsic declares
what it computes (a te computation: its tir, the *description*, is a kernel over its buffers)
and how (its lowering: statements calling the hardware, usually `tir.call_extern`). This pass
checks, as TVM's tensorize does, that the marked nest computes exactly the description:

- the loops of the nest are those of the description (same extents, same order);
- every statement, load and arithmetic op corresponds to the description's;
- each buffer is accessed with the same pattern: indices whose parts that vary inside the nest
  equal the description's, leaving per buffer one region start (affine in the outer loops)
  where the intrinsic's buffer is bound. Leading dimensions of extent 1 may be dropped (a 2-d
  tensor's row bound to a 1-d intrinsic buffer).

Then the nest is replaced by the intrinsic's lowering, its buffers bound to `memref.subview`s
of the regions (a view passed to `tir.call_extern` is a pointer to its first element in the
compiled backends, a numpy view in the interpreter). A reduction whose reduce loops all lie in
the nest uses the intrinsic's `body`; one with reduce loops outside it (convert-te-to-tir then
guards the nest's init by `scf.if` on their first iteration) runs `reset` under that guard then
`update` (or, without a `reset`, `body` on the first iteration and `update` on the others).

    tir.for %ii = %c0 to %c8 serial { ... C[...] += A[...] * B[...] } annotations {tensorize = "g"}
    // becomes
    %A_view = memref.subview %A[...] ...   ...   tir.call_extern "gemm"(%A_view, ...)

A nest that does not match is a located error at the loop or op that differs, saying why.
Intrinsics are found by name in the registry below (`te.register_tensor_intrin` fills it).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    IndexType,
    MemRefType,
    ModuleOp,
    StridedLayoutAttr,
    StringAttr,
)
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xtvm.dialects import tir
from xtvm.dialects.registry import shared_context
from xtvm.ir.diagnostics import DiagnosticError as LocatedError
from xtvm.ir.errors import DiagnosticError
from xtvm.ir.verify import located_error, verify_diagnostics
from xtvm.passes.convert_te_to_tir import TENSORIZE_ANNOTATION, ConvertTeToTirPass
from xtvm.passes.tir_bounds import EntryConstants, LinearForm, constant_value, linear_form
from xtvm.te.expr import Tensor, Var
from xtvm.te.intrinsic_registry import (
    BufferBinding,
    TensorIntrinsic,
    TensorizeError,
    intrinsic_names,
    lookup_intrinsic,
)
from xtvm.te.lower import schedule_to_module
from xtvm.te.schedule import Schedule

# ---------------------------------------------------------------------------------------------
# Matching a loop nest against a description


class Mismatch(Exception):
    """The nest differs from the description at `op`."""

    def __init__(self, op: Operation, message: str) -> None:
        super().__init__(message)
        self.op = op
        self.message = message


def is_statement(op: Operation) -> bool:
    """Whether `op` is compared as a statement (in order) rather than as a value."""
    if isinstance(op, tir.YieldOp | scf.YieldOp | func.ReturnOp | memref.LoadOp):
        return False
    return not (op.dialect_name() in ("arith", "math") and not op.regions)


def loop_name(loop: tir.ForOp) -> str:
    return loop.induction_variable.name_hint or "loop"


def buffer_name(value: SSAValue) -> str:
    return value.name_hint or "buffer"


@dataclass
class Access:
    """The kernel buffer bound to one argument of the description, and the region bound."""

    buffer: SSAValue
    offsets: list[LinearForm]  # per dimension of `buffer`: the region start
    dropped: int  # leading dimensions of extent 1 the intrinsic buffer does not have


@dataclass
class NestMatch:
    """The correspondence between a marked nest and an intrinsic's description."""

    root: tir.ForOp
    description: func.FuncOp
    loops: dict[SSAValue, SSAValue] = field(default_factory=dict)  # desc iv -> nest iv
    values: dict[SSAValue, SSAValue] = field(default_factory=dict)  # desc value -> nest value
    accesses: dict[int, Access] = field(default_factory=dict)  # desc argument -> access
    guard: scf.IfOp | None = None  # the init guard on the outer reduce loops

    @property
    def inner(self) -> set[SSAValue]:
        return set(self.loops.values())

    def match(self) -> None:
        desc = [op for op in self.description.body.block.ops if is_statement(op)]
        if len(desc) != 1 or not isinstance(desc[0], tir.ForOp):
            raise Mismatch(self.root, "the intrinsic's description is not one loop nest")
        self.match_statements(desc, [self.root], self.root)

    def statements(self, block: Block) -> list[Operation]:
        """The statements of a nest block; the init guard's body stands for the guard."""
        found: list[Operation] = []
        for op in block.ops:
            if not is_statement(op):
                continue
            if isinstance(op, scf.IfOp) and not self.depends(op.cond) and not op.results:
                if self.guard is not None or op.false_region.blocks:
                    raise Mismatch(op, "the loop nest has a condition the intrinsic does not")
                self.guard = op
                found.extend(o for o in op.true_region.block.ops if is_statement(o))
                continue
            found.append(op)
        return found

    def match_statements(
        self, desc: Sequence[Operation], nest: Sequence[Operation], where: Operation
    ) -> None:
        if len(desc) != len(nest):
            raise Mismatch(
                where,
                f"the loop body has {len(nest)} statements ({listing(nest)}), the intrinsic's "
                f"has {len(desc)} ({listing(desc)})",
            )
        for d, n in zip(desc, nest, strict=True):
            if isinstance(d, tir.ForOp) and isinstance(n, tir.ForOp):
                self.match_loop(d, n)
            elif isinstance(d, memref.StoreOp) and isinstance(n, memref.StoreOp):
                self.match_access(d, n)
                self.match_value(d.value, n.value)
            else:
                raise Mismatch(
                    n,
                    f"operation differs: the loop nest has {describe(n)}, the intrinsic "
                    f"{describe(d)}",
                )

    def match_loop(self, d: tir.ForOp, n: tir.ForOp) -> None:
        extents = []
        for loop in (d, n):
            lower, upper = constant_value(loop.lower_bound), constant_value(loop.upper_bound)
            if lower != 0 or upper is None:
                raise Mismatch(n, f"loop '{loop_name(loop)}' does not have a constant extent")
            extents.append(upper)
        if extents[0] != extents[1]:
            raise Mismatch(
                n,
                f"loop '{loop_name(n)}' has extent {extents[1]}, the intrinsic's loop "
                f"'{loop_name(d)}' has {extents[0]}",
            )
        self.loops[d.induction_variable] = n.induction_variable
        body = [op for op in d.body.block.ops if is_statement(op)]
        self.match_statements(body, self.statements(n.body.block), n)

    def varies(self, value: SSAValue) -> bool:
        """Whether `value` is defined inside the nest (so may vary with its loops)."""
        owner = value.owner
        block = owner if isinstance(owner, Block) else owner.parent_block()
        while block is not None:
            parent = block.parent_op()
            if parent is self.root:
                return True
            block = parent.parent_block() if parent is not None else None
        return False

    def depends(self, value: SSAValue) -> bool:
        """Whether `value` may change with the loops of the nest."""
        if value in self.inner:
            return True
        if not self.varies(value):
            return False
        owner = value.owner
        if not isinstance(owner, Operation) or owner.regions:
            return True
        return any(self.depends(v) for v in owner.operands)

    def match_value(self, d: SSAValue, n: SSAValue) -> None:
        known = self.values.get(d)
        if known is not None:
            if known is not n:
                raise Mismatch(
                    owner_op(n, self.root),
                    "operation differs: a value the intrinsic uses "
                    "twice is computed twice in the loop nest",
                )
            return
        if d.type != n.type:
            raise Mismatch(
                owner_op(n, self.root),
                f"type differs: the loop nest has {n.type} where the intrinsic has {d.type}",
            )
        if isinstance(d.type, IndexType):
            if self.inner_form(n) != self.desc_form(d) or self.outer_form(n).terms:
                raise Mismatch(
                    owner_op(n, self.root), "an index used as a value differs from the intrinsic's"
                )
            self.values[d] = n
            return
        dop, nop = d.owner, n.owner
        if not isinstance(dop, Operation) or not isinstance(nop, Operation):
            raise Mismatch(owner_op(n, self.root), "operation differs: a value is not computed")
        loads = isinstance(dop, memref.LoadOp)
        if type(dop) is not type(nop) or (len(dop.operands) != len(nop.operands) and not loads):
            raise Mismatch(
                nop,
                f"operation differs: the loop nest computes '{nop.name}' where the "
                f"intrinsic computes '{dop.name}'",
            )
        if isinstance(dop, memref.LoadOp):
            assert isinstance(nop, memref.LoadOp)
            self.match_access(dop, nop)
        elif dop.properties != nop.properties or dop.attributes != nop.attributes:
            raise Mismatch(nop, f"operation differs: '{nop.name}' has other attributes")
        else:
            for do, no in zip(dop.operands, nop.operands, strict=True):
                self.match_value(do, no)
        self.values[d] = n

    def desc_form(self, value: SSAValue) -> dict[SSAValue, int] | None:
        """A description index as coefficients of the nest's loops (its constant under None)."""
        form = linear_form(value)
        terms: dict[SSAValue | None, int] = {None: form.constant} if form.constant else {}
        for atom, coefficient in form.terms.items():
            if atom not in self.loops:
                return {}  # not affine in the loops: differs from every nest form
            terms[self.loops[atom]] = coefficient
        return terms  # type: ignore[return-value]

    def inner_form(self, value: SSAValue) -> dict[SSAValue, int]:
        """The part of a nest index that varies in the nest, as loop coefficients."""
        form = linear_form(value)
        terms: dict[SSAValue | None, int] = {}
        for atom, coefficient in form.terms.items():
            if atom in self.inner:
                terms[atom] = coefficient
            elif self.depends(atom):
                raise Mismatch(
                    owner_op(value, self.root),
                    "an index is not an affine function of the loops of the nest",
                )
        return terms  # type: ignore[return-value]

    def outer_form(self, value: SSAValue) -> LinearForm:
        """The part of a nest index fixed in the nest: the start of the region it reads."""
        form = linear_form(value)
        return LinearForm(
            {a: c for a, c in form.terms.items() if a not in self.inner}, form.constant
        )

    def match_access(
        self, d: memref.LoadOp | memref.StoreOp, n: memref.LoadOp | memref.StoreOp
    ) -> None:
        arg = d.memref
        if not isinstance(arg, BlockArgument) or arg.block is not self.description.body.block:
            raise Mismatch(n, "the intrinsic accesses a buffer that is not its argument")
        desc_type, nest_type = arg.type, n.memref.type
        assert isinstance(desc_type, MemRefType) and isinstance(nest_type, MemRefType)
        name = buffer_name(n.memref)
        dropped = nest_type.get_num_dims() - desc_type.get_num_dims()
        if desc_type.element_type != nest_type.element_type or dropped < 0:
            raise Mismatch(
                n,
                f"buffer {name} of type {nest_type} cannot hold the intrinsic's "
                f"{buffer_name(arg)} of type {desc_type}",
            )
        access = self.accesses.get(arg.index)
        if access is not None and access.buffer is not n.memref:
            raise Mismatch(
                n,
                f"the loop nest accesses {name} where the intrinsic accesses "
                f"{buffer_name(access.buffer)}",
            )
        inner = [self.inner_form(i) for i in n.indices]
        outer = [self.outer_form(i) for i in n.indices]
        wanted = [self.desc_form(i) for i in d.indices]
        expected = [{}] * dropped + [{k: c for k, c in w.items() if k} for w in wanted]
        if inner != expected:
            raise Mismatch(
                n,
                f"{name} is accessed at [{render(inner)}] in the loop nest, the intrinsic's "
                f"{buffer_name(arg)} at [{render(expected)}]",
            )
        for position, w in enumerate(wanted):  # constants of the description's indices
            start = outer[dropped + position]
            outer[dropped + position] = LinearForm(start.terms, start.constant - w.get(None, 0))
        if access is None:
            self.accesses[arg.index] = Access(n.memref, outer, dropped)
        elif [(o.terms, o.constant) for o in access.offsets] != [
            (o.terms, o.constant) for o in outer
        ]:
            raise Mismatch(n, f"{name} is accessed in two different regions in the loop nest")


def owner_op(value: SSAValue, fallback: Operation) -> Operation:
    owner = value.owner
    return owner if isinstance(owner, Operation) else fallback


def describe(op: Operation) -> str:
    if isinstance(op, tir.ForOp):
        return f"loop '{loop_name(op)}'"
    if isinstance(op, memref.StoreOp):
        return f"a store to {buffer_name(op.memref)}"
    return f"'{op.name}'"


def listing(ops: Sequence[Operation]) -> str:
    return ", ".join(describe(o) for o in ops) or "none"


def render(forms: Sequence[dict[SSAValue, int]]) -> str:
    def term(value: SSAValue, coefficient: int) -> str:
        name = value.name_hint or "?"
        return name if coefficient == 1 else f"{coefficient}*{name}"

    return ", ".join(" + ".join(term(v, c) for v, c in f.items()) or "0" for f in forms)


# ---------------------------------------------------------------------------------------------
# Replacing a nest


class Emitter:
    """Ops inserted before the nest, with `index` constants from the function's entry."""

    def __init__(self, root: tir.ForOp) -> None:
        self.root = root
        self.ops: list[Operation] = []
        function = root.parent_op()
        while function is not None and not isinstance(function, func.FuncOp):
            function = function.parent_op()
        assert function is not None
        self.constants = EntryConstants(function)

    def add(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def index(self, value: int) -> SSAValue:
        return self.constants(value)

    def linear(self, form: LinearForm, match: NestMatch) -> SSAValue:
        result: SSAValue | None = None
        for atom, coefficient in form.terms.items():
            term = self.hoist(atom, match)
            if coefficient != 1:
                term = self.add(arith.MuliOp(term, self.index(coefficient)))
            result = term if result is None else self.add(arith.AddiOp(result, term))
        if result is None:
            return self.index(form.constant)
        if form.constant:
            result = self.add(arith.AddiOp(result, self.index(form.constant)))
        return result

    def add_if(
        self, condition: SSAValue, then: list[Operation], other: list[Operation] | None = None
    ) -> None:
        regions = [Region(Block([*then, scf.YieldOp()]))]
        if other is not None:
            regions.append(Region(Block([*other, scf.YieldOp()])))
        self.ops.append(scf.IfOp(condition, [], *regions))

    def hoist(self, value: SSAValue, match: NestMatch) -> SSAValue:
        """`value` computed before the nest (it depends only on values outside it)."""
        if not match.varies(value):
            return value
        op = value.owner
        assert isinstance(op, Operation) and not op.regions
        operands = [self.hoist(v, match) for v in op.operands]
        clone = op.clone()
        for position, operand in enumerate(operands):
            clone.operands[position] = operand
        self.ops.append(clone)
        return clone.results[value.index]  # type: ignore[attr-defined]

    def strides(self, buffer: SSAValue) -> tuple[list[SSAValue], list[int | None]]:
        """The row-major strides of a kernel buffer (dynamic ones from memref.dim)."""
        typ = buffer.type
        assert isinstance(typ, MemRefType)
        static = typ.get_strides() or [None] * typ.get_num_dims()
        values: list[SSAValue] = []
        running: SSAValue = self.index(1)
        for dim in reversed(range(typ.get_num_dims())):
            known = static[dim]
            values.append(self.index(known) if known is not None else running)
            if dim and static[dim - 1] is None:
                extent = typ.get_shape()[dim]
                size = (
                    self.index(extent)
                    if extent >= 0
                    else self.add(memref.DimOp.from_source_and_index(buffer, self.index(dim)))
                )
                running = self.add(arith.MuliOp(values[-1], size))
        return values[::-1], list(static)

    def bind(self, access: Access, desc_type: MemRefType, match: NestMatch) -> BufferBinding:
        typ = access.buffer.type
        assert isinstance(typ, MemRefType)
        strides, static_strides = self.strides(access.buffer)
        starts = [self.linear(o, match) for o in access.offsets]
        static_starts = [o.constant if not o.terms else None for o in access.offsets]
        sizes = [1] * access.dropped + list(desc_type.get_shape())
        kept = static_strides[access.dropped :]
        view_offset: int | None = 0
        for start, stride in zip(static_starts, static_strides, strict=True):
            if start is None or stride is None:
                view_offset = None
                break
            view_offset += start * stride
        view_type = MemRefType(
            typ.element_type,
            desc_type.get_shape(),
            StridedLayoutAttr(kept, view_offset),
            typ.memory_space,
        )
        view = self.add(
            memref.SubviewOp.get(
                access.buffer,
                [s if c is None else c for s, c in zip(starts, static_starts, strict=True)],
                sizes,
                [1] * len(sizes),
                view_type,
            )
        )
        view.name_hint = f"{buffer_name(access.buffer)}_view"
        elem_offset: SSAValue | None = None
        for start, stride in zip(starts, strides, strict=True):
            term = self.add(arith.MuliOp(start, stride))
            elem_offset = term if elem_offset is None else self.add(arith.AddiOp(elem_offset, term))
        return BufferBinding(
            view,
            elem_offset if elem_offset is not None else self.index(0),
            strides[access.dropped :],
            kept,
            view_offset,
        )


# Lowered descriptions, as long as their intrinsic lives.
_TIR_DESCRIPTIONS: weakref.WeakKeyDictionary[TensorIntrinsic, func.FuncOp] = (
    weakref.WeakKeyDictionary()
)


def tir_description(intrinsic: TensorIntrinsic) -> func.FuncOp:
    """The intrinsic's description as tir: a description still in te (a computation without a
    schedule) goes through convert-te-to-tir once."""
    cached = _TIR_DESCRIPTIONS.get(intrinsic)
    if cached is not None:
        return cached
    description = intrinsic.description()
    if any(op.dialect_name() == "te" for op in description.walk()):
        module = ModuleOp([description.clone()])
        ConvertTeToTirPass().apply(shared_context().xdsl_context, module)
        lowered = module.body.block.first_op
        assert isinstance(lowered, func.FuncOp)
        module.body.block.detach_op(lowered)
        description = lowered
    _TIR_DESCRIPTIONS[intrinsic] = description
    return description


def tensorize(loop: tir.ForOp, intrinsic: TensorIntrinsic) -> None:
    """Replace the nest rooted at `loop` by `intrinsic`'s lowering (see the module docs)."""
    description = tir_description(intrinsic)
    match = NestMatch(loop, description)
    try:
        match.match()
    except Mismatch as error:
        raise located_error(
            error.op,
            f"cannot tensorize loop '{loop_name(loop)}' with intrinsic '{intrinsic.name}': "
            f"{error.message}",
        ) from None
    args = description.body.block.args
    missing = [buffer_name(a) for a in args if a.index not in match.accesses]
    if missing:
        raise located_error(
            loop, f"cannot tensorize with '{intrinsic.name}': its buffers {missing} are unused"
        )
    emitter = Emitter(loop)
    bindings = []
    for arg in args:
        desc_type = arg.type
        assert isinstance(desc_type, MemRefType)
        bindings.append(emitter.bind(match.accesses[arg.index], desc_type, match))

    def lower(part: str) -> list[Operation] | None:
        try:
            return intrinsic.lowering(part, bindings)
        except TensorizeError as error:
            raise located_error(
                loop, f"cannot tensorize loop '{loop_name(loop)}' with '{intrinsic.name}': {error}"
            ) from None

    if match.guard is None:
        ops = lower("body")
        if ops is None:
            reset, update = lower("reset"), lower("update")
            if reset is None or update is None:
                raise located_error(loop, f"tensor intrinsic '{intrinsic.name}' has no body")
            ops = reset + update
        emitter.ops.extend(ops)
    else:
        first = emitter.hoist(match.guard.cond, match)
        update = lower("update")
        if update is None:
            raise located_error(
                loop,
                f"cannot tensorize loop '{loop_name(loop)}' with '{intrinsic.name}': reduce "
                "loops outside it split the reduction, and the intrinsic has no update",
            )
        reset = lower("reset")
        if reset is not None:
            emitter.add_if(first, reset)
            emitter.ops.extend(update)
        else:
            body = lower("body")
            if body is None:
                raise located_error(loop, f"tensor intrinsic '{intrinsic.name}' has no body")
            emitter.add_if(first, body, update)
    Rewriter.insert_op(emitter.ops, InsertPoint.before(loop))
    Rewriter.erase_op(loop)
    for op in reversed(emitter.ops):  # offsets and strides the lowering does not use
        unused = op.results and all(not r.uses for r in op.results) and not op.regions
        if unused and not isinstance(op, tir.CallExternOp):  # a call is kept for its effect
            Rewriter.erase_op(op)


@dataclass(frozen=True)
class TirTensorizePass(ModulePass):
    """Replace loop nests marked `tensorize` by their tensor intrinsic's code.

    `tir.for %i ... annotations {tensorize = "gemm"}` over a nest computing what intrinsic
    `gemm` declares becomes its lowering (`tir.call_extern "gemm8x8x8"(%A_view, ...)`).
    """

    name = "tir-tensorize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        marked = [
            loop
            for loop in op.walk()
            if isinstance(loop, tir.ForOp)
            and loop.annotations is not None
            and TENSORIZE_ANNOTATION in loop.annotations.data
        ]
        for loop in marked:
            name = loop.annotations.data[TENSORIZE_ANNOTATION]  # type: ignore[union-attr]
            if not isinstance(name, StringAttr):
                raise located_error(loop, "the tensorize annotation must name an intrinsic")
            intrinsic = lookup_intrinsic(name.data)
            if intrinsic is None:
                known = ", ".join(intrinsic_names()) or "none"
                raise located_error(
                    loop, f"unknown tensor intrinsic '{name.data}' (registered: {known})"
                )
            tensorize(loop, intrinsic)


def lower_schedule(s: Schedule, args: Sequence[Tensor | Var], name: str = "main") -> ModuleOp:
    """The tir kernel of te schedule `s` over `args`: convert-te-to-tir, then tir-tensorize for
    the `s[C].tensorize` marks (what `tvm.lower` runs, and codegens that schedule their own
    kernels). Schedule errors are TVM's: DiagnosticError, a TVMError."""
    module = schedule_to_module(s, args, name)
    ctx = shared_context().xdsl_context
    try:
        ConvertTeToTirPass().apply(ctx, module)
        TirTensorizePass().apply(ctx, module)
    except LocatedError as error:  # TVM raises its schedule errors here, as TVMErrors
        raise DiagnosticError(error.diagnostics) from None
    diagnostics = verify_diagnostics(module, {})
    if diagnostics:
        raise RuntimeError("lowering produced invalid IR:\n" + "\n".join(map(str, diagnostics)))
    return module
