"""The printer: xDSL's, choosing per op between its custom form and the generic form.

An op prints in its custom form only where the loaded grammar reads that form back (its
assembly format was translated, or a dialect wrote rules for it); every other op prints in the
generic form, so printed text always parses. `generic=True` forces the generic form and
`mlir_compat=True` writes properties as attributes, the form MLIR 16 reads.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterable, Mapping, Sequence

from xdsl.dialects.builtin import UnregisteredOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove

from xtvm.ir.context import IRContext


class TextParts:
    """A write-only text stream that collects its pieces, joined once at the end."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.write = self.parts.append

    def getvalue(self) -> str:
        return "".join(self.parts)


class IRPrinter(Printer):
    """xDSL's printer restricted to the custom forms `custom_ops` admits.

    Printing a large module repeats the same few types and attributes many times: the text of
    each attribute (found by identity, then by equality), function type and attribute
    dictionary is produced once per printer and reused, and text goes to a list of pieces
    rather than through `print()` (`print_string`).
    """

    custom_ops: Container[type[Operation]] = frozenset()
    custom_filter: Callable[[Operation], bool] = staticmethod(lambda op: True)

    def start(self) -> TextParts:
        """Direct the output to a fresh `TextParts` (returned) and empty the caches."""
        self.stream = self.out = TextParts()
        self.attribute_text: dict[int, tuple[Attribute, str]] = {}
        # by equality: attributes, and function types and attribute dictionaries as tuples
        self.equal_attribute_text: dict[object, str] = {}
        self.scope_ops: dict[type[Operation], bool] = {}
        return self.out

    def print_string(self, text: str, *, indent: int | None = None) -> None:
        if "\n" in text:
            super().print_string(text, indent=indent)
            return
        self._current_column += len(text)
        self.out.write(text)

    def print_attribute(self, attribute: Attribute) -> None:
        known = self.attribute_text.get(id(attribute))
        if known is not None and known[0] is attribute:
            self._current_column += len(known[1])
            self.out.write(known[1])
            return
        text = self.print_once(attribute, lambda: super(IRPrinter, self).print_attribute(attribute))
        if "\n" not in text:
            # the object is kept with its text, so its id is not reused while it is cached
            self.attribute_text[id(attribute)] = (attribute, text)

    def print_once(self, key: object, write: Callable[[], None]) -> str:
        """Print what `write()` prints, reusing the text printed for an equal `key` earlier;
        the text, which is kept for `key` unless it spans lines."""
        try:
            text = self.equal_attribute_text.get(key)
        except TypeError:  # unhashable: printed every time
            parts, first = self.out.parts, len(self.out.parts)
            write()
            return "".join(parts[first:])
        if text is not None:
            self.print_string(text)
            return text
        parts, first = self.out.parts, len(self.out.parts)
        write()
        text = "".join(parts[first:])
        if "\n" not in text:
            self.equal_attribute_text[key] = text
        return text

    def print_function_type(
        self, input_types: Iterable[Attribute], output_types: Iterable[Attribute]
    ) -> None:
        inputs, outputs = tuple(input_types), tuple(output_types)
        parent = super()
        self.print_once(
            ("->", inputs, outputs), lambda: parent.print_function_type(inputs, outputs)
        )

    def print_attr_dict(self, attr_dict: Mapping[str, Attribute]) -> None:
        parent = super()
        self.print_once(("{}", tuple(attr_dict.items())), lambda: parent.print_attr_dict(attr_dict))

    def _print_results(self, op: Operation) -> None:
        results = op.results
        if not results:
            return
        for i, result in enumerate(results):
            if i:
                self.print_string(", ")
            self.print_ssa_value(result)
        self.print_string(" = ")

    def print_op_with_default_format(self, op: Operation) -> None:
        if self.print_properties_as_attributes:
            super().print_op_with_default_format(op)
            return
        # xDSL's generic form, without the calls that print nothing
        self.print_operands(op.operands)
        if op.successors:
            self.print_successors(op.successors)
        if op.properties:
            self.print_string(" <")
            self.print_attr_dict(op.properties)
            self.print_string(">")
        if op.regions:
            self.print_regions(op.regions)
        if op.attributes:
            self.print_string(" ")
            self.print_attr_dict(op.attributes)
        self.print_string(" : ")
        self.print_operation_type(op)

    def print_operands(self, operands: Sequence[SSAValue]) -> None:
        self.print_string("(")
        for i, operand in enumerate(operands):
            if i:
                self.print_string(", ")
            self.print_operand(operand)
        self.print_string(")")

    def uses_custom_format(self, op: Operation) -> bool:
        return (
            not self.print_generic_format
            and type(op) in self.custom_ops
            and Operation.print is not type(op).print
            and self.custom_filter(op)
        )

    def print_op(self, op: Operation) -> None:
        scope = self.scope_ops.get(type(op))
        if scope is None:
            scope = self.scope_ops[type(op)] = bool(op.get_traits_of_type(IsolatedFromAbove))
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
    printer = IRPrinter(
        print_generic_format=generic or mlir_compat,
        print_properties_as_attributes=mlir_compat,
        print_debuginfo=debuginfo,
    )
    printer.custom_ops = ctx.custom_ops
    printer.custom_filter = ctx.printable
    out = printer.start()
    printer.print_op(op)
    out.write("\n")
    text = out.getvalue()
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
