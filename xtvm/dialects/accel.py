"""The accel dialect: a piece of hardware described as data.

An `accel.target` names a device and holds what the compiler needs to know about it: its
on-chip memories (scratchpads, each a storage scope that te's cache stages can use), the DMA
functions that move tiles between main memory and a scratchpad, and its tensor intrinsics, each
with its semantics as a te computation and the extern functions it lowers to:

    accel.target @vta header "vta_sim.h" {
      accel.memory "inp" size 32768 align 16 : i8
      accel.dma "vta_load_inp" load "inp"
      accel.dma "vta_store_acc" store "acc"
      accel.intrin "gemm" ins(%a : tensor<8x8xi8> in "inp", %b : tensor<8x8xi8> in "wgt")
          outs("acc") body "vta_gemm" reset "vta_gemm_reset" update "vta_gemm_update" {
        %c = te.compute "C" { ... } {axis_names = ["i", "j"]} : tensor<8x8xi32>
        accel.yield %c : tensor<8x8xi32>
      }
    }

`size` is in bytes, `align` the byte alignment of every buffer placed in the memory, the type
the element type of its buffers. A DMA's direction is `load` (main memory to the scratchpad)
or `store` (back). A reduction intrinsic (its compute yields a te.reduce) names the functions
that compute a whole tile (`body`), zero the accumulator (`reset`) and accumulate into it
(`update`); an element-wise one names `body` only. `xtvm.target.load` reads such a file and
registers the target; `xtvm.backends.accel` emits C calling these functions.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from lark import Token
from xdsl.dialects.builtin import (
    I64,
    ArrayAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
)
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsolatedFromAbove, IsTerminator, NoTerminator
from xdsl.utils.exceptions import VerifyException

from xtvm.dialects import te
from xtvm.ir.context import SyntaxExtension
from xtvm.ir.parser import IRBuilder, PendingArg, decode_string

DMA_DIRECTIONS = ("load", "store")
BUILTIN_SCOPES = ("global", "shared", "local", "warp")  # TVM's; a target adds its own

_OpT = TypeVar("_OpT", bound=Operation)


def element_bytes(typ: Attribute) -> int:
    """Bytes of one element of an integer or float type (at least one)."""
    width = getattr(typ, "bitwidth", None)
    if width is None:
        width = getattr(getattr(typ, "width", None), "data", 8)
    return max(1, (int(width) + 7) // 8)


def names_of(attr: ArrayAttr[StringAttr]) -> list[str]:
    return [a.data for a in attr.data]


def print_attributes(printer: Printer, op: Operation) -> None:
    if op.attributes:
        printer.print_string(" attributes ")
        printer.print_attr_dict(op.attributes)


def parent_target(op: Operation) -> TargetOp | None:
    parent = op.parent_op()
    return parent if isinstance(parent, TargetOp) else None


def target_label(target: TargetOp | None) -> str:
    return f"target @{target.sym_name.data}" if target is not None else "its target"


def earlier_duplicate(op: _OpT, same: Callable[[_OpT], bool]) -> tuple[TargetOp, _OpT] | None:
    """The first op of `op`'s kind before `op` in its target's body for which `same` holds,
    with the target; None where there is none or `op` is outside a target."""
    target = parent_target(op)
    if target is None:
        return None
    for other in target.body.block.ops:
        if other is op:
            return None
        if isinstance(other, type(op)) and same(other):
            return target, other
    return None


@irdl_op_definition
class TargetOp(IRDLOperation):
    """A device: its memories, DMA functions and tensor intrinsics.

    `accel.target @vta header "vta_sim.h" { ... }`
    """

    name = "accel.target"
    sym_name = prop_def(StringAttr)
    header = opt_prop_def(StringAttr)
    body = region_def("single_block")
    traits = traits_def(IsolatedFromAbove(), NoTerminator())

    def __init__(self, name: str, ops: list[Operation] | None = None, header: str | None = None):
        props: dict[str, Attribute] = {"sym_name": StringAttr(name)}
        if header is not None:
            props["header"] = StringAttr(header)
        super().__init__(properties=props, regions=[Region(Block(ops or []))])

    def memories(self) -> list[MemoryOp]:
        return [op for op in self.body.block.ops if isinstance(op, MemoryOp)]

    def memory(self, scope: str) -> MemoryOp | None:
        return next((m for m in self.memories() if m.memory_name.data == scope), None)

    def verify_(self) -> None:
        for op in self.body.block.ops:
            if not isinstance(op, MemoryOp | DmaOp | IntrinOp):
                raise VerifyException(
                    f"'{self.name}' op holds accel.memory, accel.dma and accel.intrin ops only, "
                    f"got '{op.name}'"
                )

    def print(self, printer: Printer) -> None:
        printer.print_string(" @" + self.sym_name.data)
        if self.header is not None:
            printer.print_string(" header ")
            printer.print_string_literal(self.header.data)
        print_attributes(printer, self)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)


def check_scope(op: Operation, scope: str, what: str) -> MemoryOp | None:
    """The memory `scope` of `op`'s target; a located error when the target has none."""
    target = parent_target(op)
    if target is None:
        return None
    memory = target.memory(scope)
    if memory is None:
        known = ", ".join(m.memory_name.data for m in target.memories()) or "none"
        raise VerifyException(
            f"'{op.name}' op {what} unknown memory '{scope}' of {target_label(target)} "
            f"(memories: {known})"
        )
    return memory


@irdl_op_definition
class MemoryOp(IRDLOperation):
    """An on-chip memory, usable as a storage scope: size in bytes, buffer alignment in bytes.

    `accel.memory "inp" size 32768 align 16 : i8`
    """

    name = "accel.memory"
    memory_name = prop_def(StringAttr, prop_name="name")
    size = prop_def(IntegerAttr[I64])
    align = prop_def(IntegerAttr[I64])
    element_type = prop_def(TypeAttribute)
    traits = lazy_traits_def(lambda: (HasParent(TargetOp),))

    def __init__(self, name: str, size: int, align: int, element_type: Attribute) -> None:
        super().__init__(
            properties={
                "name": StringAttr(name),
                "size": IntegerAttr(size, i64),
                "align": IntegerAttr(align, i64),
                "element_type": element_type,
            }
        )

    def verify_(self) -> None:
        size, align = self.size.value.data, self.align.value.data
        if size <= 0:
            raise VerifyException(f"'{self.name}' op size must be positive, got {size}")
        if align <= 0 or align & (align - 1):
            raise VerifyException(f"'{self.name}' op align must be a power of two, got {align}")
        if size % element_bytes(self.element_type):
            raise VerifyException(
                f"'{self.name}' op size {size} is not a whole number of {self.element_type} "
                "elements"
            )
        if self.memory_name.data in BUILTIN_SCOPES:
            raise VerifyException(
                f"'{self.name}' op name '{self.memory_name.data}' is one of TVM's built-in scopes"
            )
        found = earlier_duplicate(self, lambda o: o.memory_name.data == self.memory_name.data)
        if found is not None:
            raise VerifyException(
                f"'{self.name}' op redefines memory '{self.memory_name.data}' of "
                f"{target_label(found[0])}"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.memory_name.data)
        printer.print_string(f" size {self.size.value.data} align {self.align.value.data} : ")
        printer.print_attribute(self.element_type)
        print_attributes(printer, self)


@irdl_op_definition
class DmaOp(IRDLOperation):
    """An extern function copying a tile between main memory and a scratchpad.

    `accel.dma "vta_load_inp" load "inp"`. The function's C signature is
    `void f(T *dst, const T *src, int64_t rows, int64_t cols, int64_t dst_stride,
    int64_t src_stride)` (T the memory's element type, strides in elements): `rows` rows of
    `cols` contiguous elements.
    """

    name = "accel.dma"
    function = prop_def(StringAttr)
    direction = prop_def(StringAttr)
    scope = prop_def(StringAttr)
    traits = lazy_traits_def(lambda: (HasParent(TargetOp),))

    def __init__(self, function: str, direction: str, scope: str) -> None:
        super().__init__(
            properties={
                "function": StringAttr(function),
                "direction": StringAttr(direction),
                "scope": StringAttr(scope),
            }
        )

    def verify_(self) -> None:
        direction = self.direction.data
        if direction not in DMA_DIRECTIONS:
            raise VerifyException(
                f"'{self.name}' op direction must be one of {', '.join(DMA_DIRECTIONS)}, "
                f"got '{direction}'"
            )
        check_scope(self, self.scope.data, "moves data of")
        found = earlier_duplicate(
            self, lambda o: o.direction.data == direction and o.scope.data == self.scope.data
        )
        if found is not None:
            raise VerifyException(
                f"'{self.name}' op: memory '{self.scope.data}' already has a {direction} DMA "
                f"('{found[1].function.data}')"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.function.data)
        printer.print_string(f" {self.direction.data} ")
        printer.print_string_literal(self.scope.data)
        print_attributes(printer, self)


@irdl_op_definition
class YieldOp(IRDLOperation):
    """The tensors an intrinsic's semantics compute (its outputs)."""

    name = "accel.yield"
    values = var_operand_def(TensorType)
    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(IntrinOp)))
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue | Operation) -> None:
        super().__init__(operands=[list(values)])


@irdl_op_definition
class IntrinOp(IRDLOperation):
    """A tensor intrinsic: its semantics as te computations over its operand tiles, the scopes
    its operands and results live in, and the extern functions it lowers to.

    `accel.intrin "gemm" ins(%a : tensor<8x8xi8> in "inp", ...) outs("acc") body "f" reset "g"
    update "h" { te.compute ...; accel.yield %c : tensor<8x8xi32> }`
    """

    name = "accel.intrin"
    intrin_name = prop_def(StringAttr, prop_name="name")
    in_scopes = prop_def(ArrayAttr[StringAttr])
    out_scopes = prop_def(ArrayAttr[StringAttr])
    body_fn = prop_def(StringAttr, prop_name="body")
    reset_fn = opt_prop_def(StringAttr, prop_name="reset")
    update_fn = opt_prop_def(StringAttr, prop_name="update")
    semantics = region_def("single_block")
    traits = lazy_traits_def(lambda: (HasParent(TargetOp), IsolatedFromAbove()))

    def __init__(
        self,
        name: str,
        in_scopes: list[str],
        out_scopes: list[str],
        body: str,
        semantics: Region,
        reset: str | None = None,
        update: str | None = None,
    ) -> None:
        props: dict[str, Attribute] = {
            "name": StringAttr(name),
            "in_scopes": te.names_attr(in_scopes),
            "out_scopes": te.names_attr(out_scopes),
            "body": StringAttr(body),
        }
        if reset is not None:
            props["reset"] = StringAttr(reset)
        if update is not None:
            props["update"] = StringAttr(update)
        super().__init__(properties=props, regions=[semantics])

    @property
    def inputs(self) -> tuple[SSAValue, ...]:
        return tuple(self.semantics.block.args)

    def outputs(self) -> list[SSAValue]:
        last = self.semantics.block.last_op
        return list(last.values) if isinstance(last, YieldOp) else []

    def is_reduction(self) -> bool:
        return any(
            isinstance(v.owner, te.ComputeOp) and v.owner.reduction() is not None
            for v in self.outputs()
        )

    def verify_(self) -> None:
        label = f"intrinsic '{self.intrin_name.data}'"
        args = self.inputs
        in_scopes = names_of(self.in_scopes)
        out_scopes = names_of(self.out_scopes)
        if len(in_scopes) != len(args):
            raise VerifyException(
                f"'{self.name}' op {label} has {len(args)} operands but {len(in_scopes)} "
                "operand scopes"
            )
        last = self.semantics.block.last_op
        if not isinstance(last, YieldOp) or not last.values:
            raise VerifyException(f"'{self.name}' op {label} must end with an accel.yield")
        outputs = list(last.values)
        if len(out_scopes) != len(outputs):
            raise VerifyException(
                f"'{self.name}' op {label} yields {len(outputs)} tensors but names "
                f"{len(out_scopes)} result scopes"
            )
        tiles = [
            (f"operand {i}", v, s) for i, (v, s) in enumerate(zip(args, in_scopes, strict=True))
        ]
        tiles += [
            (f"result {i}", v, s) for i, (v, s) in enumerate(zip(outputs, out_scopes, strict=True))
        ]
        for what, value, scope in tiles:
            self.check_tile(label, what, value, scope)
        for position, value in enumerate(outputs):
            if not isinstance(value.owner, te.ComputeOp):
                raise VerifyException(
                    f"'{self.name}' op {label}: result {position} is not defined by a te.compute"
                )
        reduction = self.is_reduction()
        if reduction and (self.reset_fn is None or self.update_fn is None):
            raise VerifyException(
                f"'{self.name}' op {label} is a reduction: it needs reset and update functions"
            )
        if not reduction and (self.reset_fn is not None or self.update_fn is not None):
            raise VerifyException(
                f"'{self.name}' op {label} is no reduction: it takes no reset or update function"
            )
        found = earlier_duplicate(self, lambda o: o.intrin_name == self.intrin_name)
        if found is not None:
            raise VerifyException(f"'{self.name}' op redefines {label} of {target_label(found[0])}")

    def check_tile(self, label: str, what: str, value: SSAValue, scope: str) -> None:
        typ = value.type
        if not isinstance(typ, TensorType) or any(d < 0 for d in typ.get_shape()):
            raise VerifyException(
                f"'{self.name}' op {label}: {what} must be a static tensor, got {typ}"
            )
        memory = check_scope(self, scope, f"{label}: {what} lives in")
        if memory is None:
            return
        element = typ.get_element_type()
        if element != memory.element_type:
            raise VerifyException(
                f"'{self.name}' op {label}: {what} of type {typ} does not match memory "
                f"'{scope}' of {memory.element_type}"
            )
        count = 1
        for d in typ.get_shape():
            count *= d
        size = count * element_bytes(element)
        if size > memory.size.value.data:
            raise VerifyException(
                f"'{self.name}' op {label}: {what} of {size} bytes does not fit memory "
                f"'{scope}' of {memory.size.value.data} bytes"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.intrin_name.data)
        printer.print_string(" ins(")
        for position, (arg, scope) in enumerate(
            zip(self.inputs, names_of(self.in_scopes), strict=False)
        ):
            if position:
                printer.print_string(", ")
            printer.print_ssa_value(arg)
            printer.print_string(" : ")
            printer.print_attribute(arg.type)
            printer.print_string(" in ")
            printer.print_string_literal(scope)
        printer.print_string(") outs(")
        for position, scope in enumerate(names_of(self.out_scopes)):
            if position:
                printer.print_string(", ")
            printer.print_string_literal(scope)
        printer.print_string(") body ")
        printer.print_string_literal(self.body_fn.data)
        for keyword, fn in (("reset", self.reset_fn), ("update", self.update_fn)):
            if fn is not None:
                printer.print_string(f" {keyword} ")
                printer.print_string_literal(fn.data)
        print_attributes(printer, self)
        printer.print_string(" ")
        printer.print_region(self.semantics, print_entry_block_args=False)


# ---------------------------------------------------------------------------------------------
# Custom syntax (accel.lark); each callback builds the op its printer above writes.


def string(token: Token) -> str:
    return decode_string(str(token))


def accel_target(b: IRBuilder, children: list[Any]) -> Operation:
    token, symbol, header, attrs, region = children
    name = decode_string(str(symbol)[1:]) if str(symbol)[1] == '"' else str(symbol)[1:]
    if not region.blocks:
        region = Region(Block())
    op = TargetOp.create(
        properties={
            "sym_name": StringAttr(name),
            **({"header": StringAttr(string(header))} if header is not None else {}),
        },
        regions=[region],
    )
    op.attributes.update(attrs or {})
    return b.record(op, token)


def accel_memory(b: IRBuilder, children: list[Any]) -> Operation:
    token, name, size, align, typ, attrs = children
    op = MemoryOp(string(name), int(size), int(align), typ)
    op.attributes.update(attrs or {})
    return b.record(op, token)


def accel_dma(b: IRBuilder, children: list[Any]) -> Operation:
    token, function, direction, scope, attrs = children
    op = DmaOp(string(function), str(direction), string(scope))
    op.attributes.update(attrs or {})
    return b.record(op, token)


def accel_operand(b: IRBuilder, children: list[Any]) -> tuple[Token, Attribute, str]:
    name, typ, scope = children
    return (name, typ, string(scope))


def accel_operands(b: IRBuilder, children: list[Any]) -> list[Any]:
    return children


def accel_scopes(b: IRBuilder, children: list[Any]) -> list[str]:
    return [string(c) for c in children]


def accel_calls(b: IRBuilder, children: list[Any]) -> list[str | None]:
    return [None if c is None else string(c) for c in children]


def accel_intrin_head(b: IRBuilder, children: list[Any]) -> dict[str, Any]:
    token, name, operands, scopes, calls, attrs = children
    operands = operands or []
    b.set_entry_args([PendingArg(o[0], o[1]) for o in operands])
    return {
        "token": token,
        "name": string(name),
        "types": [o[1] for o in operands],
        "in_scopes": [o[2] for o in operands],
        "out_scopes": scopes or [],
        "calls": calls,
        "attrs": attrs or {},
    }


def accel_intrin(b: IRBuilder, children: list[Any]) -> Operation:
    head, region = children
    if not region.blocks:
        region = Region(Block(arg_types=head["types"]))
    body, reset, update = head["calls"]
    op = IntrinOp(head["name"], head["in_scopes"], head["out_scopes"], body, region, reset, update)
    op.attributes.update(head["attrs"])
    return b.record(op, head["token"])


ACCEL_SYNTAX = SyntaxExtension.from_file(
    Path(__file__).with_name("accel.lark"),
    {
        "accel_target": accel_target,
        "accel_memory": accel_memory,
        "accel_dma": accel_dma,
        "accel_operand": accel_operand,
        "accel_operands": accel_operands,
        "accel_scopes": accel_scopes,
        "accel_calls": accel_calls,
        "accel_intrin_head": accel_intrin_head,
        "accel_intrin": accel_intrin,
    },
    custom_ops=[TargetOp, MemoryOp, DmaOp, IntrinOp],
)

Accel = Dialect(
    "accel",
    [
        # The device
        TargetOp,
        MemoryOp,
        DmaOp,
        # Tensor intrinsics
        IntrinOp,
        YieldOp,
    ],
    [],
)
