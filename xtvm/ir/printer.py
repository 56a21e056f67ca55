"""The printer: xDSL's, choosing per op between its custom form and the generic form.

An op prints in its custom form only where the loaded grammar reads that form back (its
assembly format was translated, or a dialect wrote rules for it); every other op prints in the
generic form, so printed text always parses. `generic=True` forces the generic form and
`mlir_compat=True` writes properties as attributes, the form MLIR 16 reads.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from io import StringIO

from xdsl.dialects.builtin import UnregisteredOp
from xdsl.ir import Operation
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove

from xtvm.ir.context import IRContext


class IRPrinter(Printer):
    """xDSL's printer restricted to the custom forms `custom_ops` admits."""

    custom_ops: frozenset[type[Operation]] = frozenset()
    custom_filter: Callable[[Operation], bool] = staticmethod(lambda op: True)

    def uses_custom_format(self, op: Operation) -> bool:
        return (
            not self.print_generic_format
            and type(op) in self.custom_ops
            and Operation.print is not type(op).print
            and self.custom_filter(op)
        )

    def print_op(self, op: Operation) -> None:
        scope = bool(op.get_traits_of_type(IsolatedFromAbove))
        begin_op_pos = self._current_column
        self._print_results(op)
        if scope:
            self.enter_scope()
        custom = not isinstance(op, UnregisteredOp) and self.uses_custom_format(op)
        if isinstance(op, UnregisteredOp):
            self.print_string(f'"{op.op_name.data}"')
        elif custom:
            self.print_string(op.name)
        else:
            self.print_string(f'"{op.name}"')
        end_op_pos = self._current_column
        if op in self.diagnostic.op_messages:
            for message in self.diagnostic.op_messages[op]:
                self._add_message_on_next_line(message, begin_op_pos, end_op_pos)
        if isinstance(op, UnregisteredOp):
            op_name = op.op_name
            del op.attributes["op_name__"]
            self.print_op_with_default_format(op)
            op.attributes["op_name__"] = op_name
        elif custom:
            op.print(self)
            if self.print_debuginfo:
                self.print_string(" ")
                self.print_attribute(op.location)
        else:
            self.print_op_with_default_format(op)
        if scope:
            self.exit_scope()


def print_ir(
    op: Operation,
    ctx: IRContext,
    *,
    generic: bool = False,
    mlir_compat: bool = False,
    debuginfo: bool = False,
) -> str:
    """The text of `op` (usually a module), ending with a newline."""
    stream = StringIO()
    printer = IRPrinter(
        stream=stream,
        print_generic_format=generic or mlir_compat,
        print_properties_as_attributes=mlir_compat,
        print_debuginfo=debuginfo,
    )
    printer.custom_ops = frozenset(ctx.custom_ops)
    printer.custom_filter = ctx.printable
    printer.print_op(op)
    stream.write("\n")
    text = stream.getvalue()
    return mlir16_spelling(text) if mlir_compat else text


MLIR16_RENAMES = (
    ("operandSegmentSizes = ", "operand_segment_sizes = "),
    ("resultSegmentSizes = ", "result_segment_sizes = "),
    ('"arith.maximumf"', '"arith.maxf"'),
    ('"arith.minimumf"', '"arith.minf"'),
)
DEFAULT_OVERFLOW = re.compile(r"(, )?overflowFlags = #arith\.overflow<none>(, )?")


def mlir16_spelling(text: str) -> str:
    """MLIR 16's names for what newer MLIR (and xDSL) spell differently.

    Segment sizes and the NaN-propagating float max/min were renamed in MLIR 17, and arith's
    overflow flags appeared in MLIR 19; the default flags (`none`) are dropped, which means
    the same.
    """
    for new, old in MLIR16_RENAMES:
        text = text.replace(new, old)
    return DEFAULT_OVERFLOW.sub(lambda m: ", " if m.group(1) and m.group(2) else "", text)
