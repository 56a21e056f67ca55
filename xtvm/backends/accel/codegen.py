"""tir → C for an accelerator described in `accel` IR: the C walker with a target's tables.

What differs from plain C (everything else is `CRenderer`'s):

- a buffer whose memory space is one of the target's memories lives in that scratchpad: one
  static array per memory, sized as declared (`static int8_t vta_inp[32768]`), and each such
  `memref.alloc` a pointer into it at an offset planned once per function (first fit over the
  buffers live at that point, aligned as declared). A buffer that does not fit, or whose
  element type is not the memory's, is a located error;
- a loop nest that only copies between main memory and a scratchpad (the copy stage of
  `cache_read`/`cache_write`) becomes calls of the target's DMA function, one per row of
  contiguous elements: `vta_load_inp(dst, src, rows, cols, dst_stride, src_stride)`;
- the target's header, which declares its functions, is included instead of prototypes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, NoneAttr
from xdsl.ir import Operation, SSAValue

from xtvm.backends.c.codegen import (
    LIBM_NAMES,
    Buffer,
    CRenderer,
    FunctionState,
    fail,
    memory_scope,
    memref_type,
    strip,
)
from xtvm.dialects import tir
from xtvm.target.accel import AccelTarget, Memory

GLOBAL_SCOPES = ("", "global")
INDEX_OPS = (arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.ConstantOp)


@dataclass
class Placement:
    """Where a scratchpad buffer lives: its memory and its offset in elements."""

    memory: Memory
    offset: int


@dataclass
class Affine:
    """An index as `const + sum(coeffs[iv] * iv) + sum(terms)`: ivs of the copy nest, terms C
    expressions of values defined outside it."""

    const: int = 0
    coeffs: dict[SSAValue, int] = field(default_factory=dict)
    terms: list[str] = field(default_factory=list)

    def scaled(self, factor: int) -> Affine:
        return Affine(
            self.const * factor,
            {v: c * factor for v, c in self.coeffs.items()},
            [f"{t} * {factor}" if factor != 1 else t for t in self.terms] if factor else [],
        )

    def plus(self, other: Affine) -> Affine:
        coeffs = dict(self.coeffs)
        for v, c in other.coeffs.items():
            coeffs[v] = coeffs.get(v, 0) + c
        return Affine(self.const + other.const, coeffs, self.terms + other.terms)

    def base(self) -> str:
        """The C expression of the index where every nest iv is 0."""
        parts = [*self.terms]
        if self.const or not parts:
            parts.append(str(self.const))
        return " + ".join(parts)


@dataclass
class Copy:
    """A loop nest copying `src` into `dst` element by element with affine indices."""

    loops: list[tir.ForOp]
    extents: list[str]
    dst: SSAValue
    src: SSAValue
    dst_index: Affine
    src_index: Affine


class AccelRenderer(CRenderer):
    """C for one accelerator target: scratchpad arrays, DMA calls, the target's header."""

    language: ClassVar[str] = "accel C"

    def __init__(self, target: AccelTarget) -> None:
        self.target = target
        header = target.header.name if target.header is not None else None
        self.prelude = (*CRenderer.prelude, *([f'#include "{header}"'] if header else []))
        self.placements: dict[SSAValue, Placement] = {}

    # -- the module -------------------------------------------------------------------------

    def scratchpad(self, memory: Memory) -> str:
        return f"{self.target.name}_{memory.name}"

    def extern_prototypes(self, functions: Sequence[func.FuncOp]) -> list[str]:
        """The scratchpads (planned here, for all kernels) and prototypes of the externs that
        are not the target's (its header declares those)."""
        used: set[str] = set()
        for function in functions:
            used |= self.plan_scratchpads(function)
        lines = []
        for memory in self.target.memories.values():
            if memory.name not in used:
                continue
            element = self.ctype(memory.element_type, functions[0])
            count = memory.size // memory.element_bytes
            lines.append(
                f"static {element} {self.scratchpad(memory)}[{count}] "
                f"__attribute__((aligned({max(memory.align, memory.element_bytes)})));"
            )
        seen: dict[str, str] = {}
        for function in functions:
            for op in function.walk():
                if not isinstance(op, tir.CallExternOp):
                    continue
                name = op.callee.data
                if name in LIBM_NAMES or name in self.target.functions:
                    continue
                ret = self.ctype(op.res[0].type, op) if op.res else "void"
                args = ", ".join(self.argument_type(a.type, op) for a in op.args) or "void"
                seen.setdefault(name, f"{ret} {name}({args});")
        return lines + list(seen.values())

    def plan_scratchpads(self, function: func.FuncOp) -> set[str]:
        """Place every scratchpad buffer of `function` (first fit, in program order, a buffer
        freed at its dealloc); the memories used."""
        live: dict[str, list[tuple[int, int, SSAValue]]] = {}
        used: set[str] = set()
        for op in function.walk():
            if isinstance(op, memref.DeallocOp) and op.memref in self.placements:
                scope = self.placements[op.memref].memory.name
                live[scope] = [b for b in live.get(scope, []) if b[2] is not op.memref]
                continue
            if not isinstance(op, memref.AllocOp | memref.AllocaOp):
                continue
            typ = memref_type(op.memref.type, op)
            memory = self.target.memories.get(memory_scope(typ))
            if memory is None:
                continue
            used.add(memory.name)
            self.placements[op.memref] = self.place(
                op, typ, memory, live.setdefault(memory.name, [])
            )
        return used

    def place(
        self,
        op: Operation,
        typ: MemRefType,
        memory: Memory,
        live: list[tuple[int, int, SSAValue]],
    ) -> Placement:
        label = f"scratchpad '{memory.name}' of target @{self.target.name}"
        if typ.element_type != memory.element_type:
            raise fail(
                op,
                f"'{op.name}' op buffer of {typ.element_type} cannot live in {label}, whose "
                f"elements are {memory.element_type}",
            )
        shape = typ.get_shape()
        if any(d < 0 for d in shape):
            raise fail(op, f"'{op.name}' op buffer {typ} in {label} needs a static shape")
        count = 1
        for d in shape:
            count *= d
        size = max(count, 1) * memory.element_bytes
        align = max(memory.align, memory.element_bytes)
        offset = 0
        for start, end, _ in sorted(live):
            if offset + size <= start:
                break
            offset = max(offset, -(-end // align) * align)
        if offset + size > memory.size:
            in_use = sum(end - start for start, end, _ in live)
            name = op.results[0].name_hint or "buffer"
            raise fail(
                op,
                f"'{op.name}' op buffer '{name}' of {size} bytes does not fit {label} "
                f"({memory.size} bytes, {in_use} in use)",
            )
        live.append((offset, offset + size, op.results[0]))
        return Placement(memory, offset // memory.element_bytes)

    # -- ops --------------------------------------------------------------------------------

    def emit_memref_alloc(self, state: FunctionState, op: memref.AllocOp) -> None:
        placement = self.placements.get(op.memref)
        if placement is None:
            super().emit_memref_alloc(state, op)
            return
        typ = memref_type(op.memref.type, op)
        name = self.fresh(state, op.memref.name_hint or "buf")
        state.buffers[op.memref] = Buffer(
            name, [str(d) for d in typ.get_shape()], placement.memory.name
        )
        element = self.ctype(typ.element_type, op)
        address = f"{self.scratchpad(placement.memory)} + {placement.offset}"
        self.line(state, f"{element} *{self.restrict} {name} = {address};")

    emit_memref_alloca = emit_memref_alloc

    def emit_tir_for(self, state: FunctionState, op: tir.ForOp) -> None:
        copy = self.match_copy(state, op)
        if copy is None:
            super().emit_tir_for(state, op)
            return
        self.emit_dma(state, op, copy)

    # -- copies as DMA ----------------------------------------------------------------------

    def scope_of(self, value: SSAValue) -> str:
        return memory_scope(value.type) if isinstance(value.type, MemRefType) else ""

    def match_copy(self, state: FunctionState, op: tir.ForOp) -> Copy | None:
        """The copy `op`'s loop nest does between main memory and a scratchpad, if that is all
        it does (index arithmetic, one load, one store of the loaded value)."""
        loops: list[tir.ForOp] = []
        current: tir.ForOp = op
        body_ops: list[Operation] = []
        while True:
            loops.append(current)
            body_ops = [o for o in current.body.block.ops if not isinstance(o, tir.YieldOp)]
            inner = [o for o in body_ops if isinstance(o, tir.ForOp)]
            if not inner:
                break
            if len(inner) != 1 or any(
                not isinstance(o, INDEX_OPS) for o in body_ops if o is not inner[0]
            ):
                return None
            current = inner[0]
        loads = [o for o in body_ops if isinstance(o, memref.LoadOp)]
        stores = [o for o in body_ops if isinstance(o, memref.StoreOp)]
        if len(loads) != 1 or len(stores) != 1 or stores[0].value is not loads[0].res:
            return None
        if any(not isinstance(o, (*INDEX_OPS, memref.LoadOp, memref.StoreOp)) for o in body_ops):
            return None
        load, store = loads[0], stores[0]
        src_scope, dst_scope = self.scope_of(load.memref), self.scope_of(store.memref)
        loading = dst_scope in self.target.memories and src_scope in GLOBAL_SCOPES
        storing = src_scope in self.target.memories and dst_scope in GLOBAL_SCOPES
        if not (loading or storing):
            return None
        ivs = {loop.induction_variable for loop in loops}
        extents: list[str] = []
        for loop in loops:
            lower = self.outer_affine(state, loop.lower_bound, ivs, loop)
            upper = self.outer_affine(state, loop.upper_bound, ivs, loop)
            if (
                lower is None
                or upper is None
                or lower.coeffs
                or upper.coeffs
                or lower.base() != "0"
            ):
                return None
            extents.append(upper.base())
        dst_index = self.linear_index(state, store.memref, store.indices, ivs, store)
        src_index = self.linear_index(state, load.memref, load.indices, ivs, load)
        if dst_index is None or src_index is None:
            return None
        return Copy(loops, extents, store.memref, load.memref, dst_index, src_index)

    def linear_index(
        self,
        state: FunctionState,
        buffer: SSAValue,
        indices: Sequence[SSAValue],
        ivs: set[SSAValue],
        where: Operation,
    ) -> Affine | None:
        typ = buffer.type
        if not isinstance(typ, MemRefType) or any(d < 0 for d in typ.get_shape()):
            return None
        if not isinstance(typ.layout, NoneAttr):
            return None  # a strided view: not a plain row-major copy
        shape = typ.get_shape()
        total = Affine()
        for position, index in enumerate(indices):
            affine = self.outer_affine(state, index, ivs, where)
            if affine is None:
                return None
            stride = 1
            for d in shape[position + 1 :]:
                stride *= d
            total = total.plus(affine.scaled(stride))
        return total

    def outer_affine(
        self, state: FunctionState, value: SSAValue, ivs: set[SSAValue], where: Operation
    ) -> Affine | None:
        """`value` as an affine form of the copy nest's ivs; None where it is not one."""
        if value in ivs:
            return Affine(coeffs={value: 1})
        if value in state.names:  # defined before the nest: known to C
            number = state.constants.get(value)
            if isinstance(number, int):
                return Affine(const=number)
            return Affine(terms=[f"({strip(state.names[value])})"])
        op = value.owner
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
            return Affine(const=op.value.value.data)
        if not isinstance(op, arith.AddiOp | arith.SubiOp | arith.MuliOp):
            return None
        lhs = self.outer_affine(state, op.lhs, ivs, where)
        rhs = self.outer_affine(state, op.rhs, ivs, where)
        if lhs is None or rhs is None:
            return None
        if isinstance(op, arith.AddiOp):
            return lhs.plus(rhs)
        if isinstance(op, arith.SubiOp):
            return lhs.plus(rhs.scaled(-1))
        for factor, other in ((lhs, rhs), (rhs, lhs)):
            if not factor.coeffs and not factor.terms:
                return other.scaled(factor.const)
        if lhs.coeffs or rhs.coeffs:
            return None  # a product of ivs: not affine
        return Affine(terms=[f"({lhs.base()}) * ({rhs.base()})"])

    def emit_dma(self, state: FunctionState, op: tir.ForOp, copy: Copy) -> None:
        """Calls of the target's DMA function: the innermost contiguous loops are a row, the
        loop around them the rows; outer loops of the nest stay C loops around the call."""
        dst_scope, src_scope = self.scope_of(copy.dst), self.scope_of(copy.src)
        direction = "load" if dst_scope in self.target.memories else "store"
        scope = dst_scope if direction == "load" else src_scope
        dma = self.target.dma(direction, scope)
        if dma is None:
            raise fail(
                op,
                f"target @{self.target.name} has no {direction} DMA for scratchpad '{scope}' "
                f"(copy into {self.scope_of(copy.dst) or 'main memory'})",
            )
        ivs = [loop.induction_variable for loop in copy.loops]
        dst_coeff, src_coeff = copy.dst_index.coeffs, copy.src_index.coeffs
        position, cols = len(ivs) - 1, "1"
        if dst_coeff.get(ivs[-1], 0) == 1 == src_coeff.get(ivs[-1], 0):
            position, cols = len(ivs) - 2, copy.extents[-1]
            # Loops whose rows follow each other on both sides lengthen the row.
            while (
                position >= 0
                and cols.isdigit()
                and copy.extents[position].isdigit()
                and dst_coeff.get(ivs[position], 0) == int(cols) == src_coeff.get(ivs[position], 0)
            ):
                cols = str(int(cols) * int(copy.extents[position]))
                position -= 1
        row_iv = ivs[position] if position >= 0 else None
        rows = copy.extents[position] if row_iv is not None else "1"
        dst_stride = str(dst_coeff.get(row_iv, 0)) if row_iv is not None else "0"
        src_stride = str(src_coeff.get(row_iv, 0)) if row_iv is not None else "0"
        outer = ivs[: max(position, 0)]
        names = {}
        for iv, extent in zip(outer, copy.extents, strict=False):
            name = self.fresh(state, iv.name_hint or "i")
            names[iv] = name
            self.line(state, f"for (int64_t {name} = 0; {name} < {extent}; ++{name}) {{")
            state.depth += 1
        dst = self.address(state, copy.dst, copy.dst_index, names, op)
        src = self.address(state, copy.src, copy.src_index, names, op)
        args = [dst, src, rows, cols, dst_stride, src_stride]
        self.line(state, f"{dma.function}({', '.join(args)});")
        for _ in outer:
            state.depth -= 1
            self.line(state, "}")

    def address(
        self,
        state: FunctionState,
        buffer: SSAValue,
        index: Affine,
        names: dict[SSAValue, str],
        where: Operation,
    ) -> str:
        parts = [] if index.base() == "0" else [index.base()]
        for iv, name in names.items():
            coeff = index.coeffs.get(iv, 0)
            if coeff:
                parts.append(name if coeff == 1 else f"{name} * {coeff}")
        pointer = self.buffer(state, buffer, where).name
        return f"{pointer} + {' + '.join(parts)}" if parts else pointer


def render_accel(module: ModuleOp, target: AccelTarget) -> str:
    """The C source of the tir kernels of `module` for `target`."""
    return AccelRenderer(target).render(module)
