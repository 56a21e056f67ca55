"""Lark rules generated from xDSL declarative assembly formats.

An op's `assembly_format` is its one declaration of custom syntax: xDSL prints it, and this
module turns the same `FormatProgram` into a lark rule plus a builder that fills xDSL's
`ParsingState` and reuses its type inference. So the text our printer writes is, by
construction, the text our grammar reads. Ops whose format uses a directive this module does
not translate (custom directives, for instance) print and parse in the generic form.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lark import Token
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    i64,
)
from xdsl.dialects.utils.dynamic_index_list import DynamicIndexList
from xdsl.ir import Attribute, Data, ParametrizedAttribute
from xdsl.irdl import IRDLOperation
from xdsl.irdl import declarative_assembly_format as daf
from xdsl.irdl.operations import VarIRConstruct
from xdsl.parser import Parser as XParser
from xdsl.utils.exceptions import ParseError, VerifyException

# A handler fills the parsing state from the one child its lark fragment produced.
Handler = Callable[["FormatBuilder", daf.ParsingState, Any], None]


class Unsupported(Exception):
    """The format uses a directive that has no lark translation."""


@dataclass
class Element:
    text: str
    handler: Handler | None  # None: the fragment produces no child (literals)


@dataclass(frozen=True)
class OperandRef:
    """An operand name; not a sequence, unlike the token itself (xDSL counts sequences)."""

    token: Token


def refs(tokens: Sequence[Token] | None) -> list[OperandRef]:
    return [OperandRef(t) for t in tokens or ()]


def literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@dataclass
class FormatBuilder:
    """What a handler needs from the parser: resolving names and raising located errors."""

    builder: Any  # xtvm.ir.parser.IRBuilder
    name_token: Token

    def parse_parameters(self, base: type[Attribute], body: str) -> Attribute:
        parser = XParser(self.builder.ctx, body, self.builder.source.name)
        try:
            if issubclass(base, ParametrizedAttribute):
                attr = base.new(base.parse_parameters(parser))
            else:
                attr = base.new(base.parse_parameter(parser))  # type: ignore[attr-defined]
        except ParseError as exc:
            message = str(exc).splitlines()[-1].strip()
            raise self.builder.error(self.name_token, f"invalid {base.name}: {message}") from None
        return attr


def optional_wrapper(text: str, optional: bool) -> str:
    return f"[{text}]" if optional else text


def translate(directive: daf.FormatDirective, rules: list[str]) -> Element:
    """The lark fragment for one directive, and how its child fills the parsing state."""
    d = directive
    if isinstance(d, daf.WhitespaceDirective):
        return Element("", None)
    if isinstance(d, daf.PunctuationDirective):
        return Element(literal(d.punctuation), None)
    if isinstance(d, daf.KeywordDirective):
        return Element(literal(d.keyword), None)
    if isinstance(d, daf.OperandVariable):
        return Element("value_use", lambda fb, st, c: d.set(st, OperandRef(c)))
    if isinstance(d, daf.VariadicOperandVariable):
        return Element("[value_uses]", lambda fb, st, c: d.set(st, refs(c)))
    if isinstance(d, daf.OptionalOperandVariable):
        return Element(
            "[value_use]", lambda fb, st, c: d.set(st, None if c is None else OperandRef(c))
        )
    if isinstance(d, daf.OperandsDirective):

        def set_operands(fb: FormatBuilder, st: daf.ParsingState, c: Any) -> None:
            d._set_using_variadic_index(
                st.op_type, st.operands, VarIRConstruct.OPERAND, "operand", refs(c)
            )

        return Element("[value_uses]", set_operands)
    if isinstance(d, daf.TypeDirective):
        inner = d.inner
        if inner.is_variadic_like():
            return Element("[types]", lambda fb, st, c: d.set(st, c or ()))
        if inner.is_optional_like():
            return Element("[type]", lambda fb, st, c: d.set(st, () if c is None else (c,)))
        return Element("type", lambda fb, st, c: d.set(st, (c,)))
    if isinstance(d, daf.FunctionalTypeDirective):

        def set_functional(fb: FormatBuilder, st: daf.ParsingState, c: Any) -> None:
            d.operand_typeable_directive.set_types(st, c.inputs.data)
            d.result_typeable_directive.set_types(st, c.outputs.data)

        return Element("function_type", set_functional)
    if isinstance(d, daf.AttrDictDirective):
        text = '["attributes" attr_dict]' if d.with_keyword else "[attr_dict]"

        def set_attr_dict(fb: FormatBuilder, st: daf.ParsingState, c: Any) -> None:
            attrs = dict(c or {})
            clash = d.reserved_attr_names & attrs.keys()
            if clash:
                raise fb.builder.error(
                    fb.name_token,
                    f"attributes {', '.join(sorted(clash))} are written elsewhere in the "
                    "op's syntax and must not appear in its attribute dictionary",
                )
            for name in [k for k in attrs if k in d.expected_properties]:
                st.properties[name] = attrs.pop(name)
            st.attributes |= attrs

        return Element(text, set_attr_dict)
    if isinstance(d, daf.OptionalUnitAttrVariable):
        raise Unsupported("unit attribute outside an optional group")
    if isinstance(d, daf.AttributeVariable):
        return translate_attribute(d, rules)
    if isinstance(d, DynamicIndexList):
        return translate_dynamic_index_list(d, rules)
    if isinstance(d, daf.VariadicRegionVariable):
        rules.append("fmt_group_regions: region*")
        return Element("fmt_group_regions", lambda fb, st, c: d.set(st, c))
    if isinstance(d, daf.OptionalRegionVariable):
        return Element("[region]", lambda fb, st, c: d.set(st, c))
    if isinstance(d, daf.RegionVariable):
        return Element("region", lambda fb, st, c: d.set(st, c))
    if isinstance(d, daf.SuccessorVariable):
        return Element("successor", lambda fb, st, c: d.set(st, c))
    if isinstance(d, daf.OptionalGroupDirective):
        return translate_optional_group(d, rules)
    raise Unsupported(type(d).__name__)


def translate_attribute(d: daf.AttributeVariable, rules: list[str]) -> Element:
    def setter(convert: Callable[[FormatBuilder, Any], Attribute]) -> Handler:
        def handle(fb: FormatBuilder, st: daf.ParsingState, c: Any) -> None:
            if c is not None:
                d.set(st, convert(fb, c))

        return handle

    optional = d.is_optional
    if isinstance(d, daf.SymbolNameAttributeVariable):
        return Element(
            optional_wrapper("SYMBOL", optional),
            setter(lambda fb, t: StringAttr(fb.builder.symbol_ref([t]).root_reference.data)),
        )
    if isinstance(d, daf.TypedAttributeVariable):
        base, typ = d.unique_base, d.unique_type
        if issubclass(base, IntegerAttr):
            return Element(
                optional_wrapper("INT", optional), setter(lambda fb, t: IntegerAttr(int(t), typ))
            )
        if issubclass(base, FloatAttr):
            return Element(
                optional_wrapper("FLOAT", optional),
                setter(lambda fb, t: FloatAttr(float(t), typ)),  # type: ignore[arg-type]
            )
        raise Unsupported(f"typed attribute of {base.__name__}")
    if isinstance(d, daf.UniqueBaseAttributeVariable):
        base = d.unique_base
        if issubclass(base, StringAttr):
            from xtvm.ir.parser import decode_string

            return Element(
                optional_wrapper("STRING", optional),
                setter(lambda fb, t: StringAttr(decode_string(t))),
            )
        if issubclass(base, SymbolRefAttr):
            return Element(optional_wrapper("symbol_ref", optional), setter(lambda fb, a: a))
        if issubclass(base, (ParametrizedAttribute, Data)):
            return Element(
                optional_wrapper("OPAQUE_BODY", optional),
                setter(lambda fb, t: fb.parse_parameters(base, str(t))),
            )
        raise Unsupported(f"attribute base {base.__name__}")
    if isinstance(d, daf.DenseArrayAttributeVariable):
        return translate_dense_array(d, rules)
    return Element(optional_wrapper("attr", optional), setter(lambda fb, a: a))


# Index lists of integers and SSA values (`[0, %i, 4]`), and lists of numbers (`[1, 2]`).
INDEX_LIST_RULES = [
    'fmt_group_index_list: "[" [fmt_group_index ("," fmt_group_index)*] "]"',
    "fmt_group_index: INT | value_use",
    'fmt_group_number_list: "[" [fmt_group_number ("," fmt_group_number)*] "]"',
    "fmt_group_number: INT | FLOAT",
]


def flatten(children: Any) -> list[Any]:
    """The items of a list rule: its children, `[None]` when it is empty."""
    return [] if children in (None, [None]) else [c[0] for c in children]


def translate_dynamic_index_list(d: DynamicIndexList, rules: list[str]) -> Element:
    rules.extend(INDEX_LIST_RULES)

    def handle(fb: FormatBuilder, st: daf.ParsingState, c: Any) -> None:
        dynamic: list[OperandRef] = []
        static: list[int] = []
        for item in flatten(c):
            if item.type == "INT":
                static.append(int(item))
            else:
                static.append(DYNAMIC_INDEX)
                dynamic.append(OperandRef(item))
        d.dynamic_position.set(st, dynamic)
        d.static_position.set(st, DenseArrayBase.from_list(i64, static))

    return Element("fmt_group_index_list", handle)


def translate_dense_array(d: daf.DenseArrayAttributeVariable, rules: list[str]) -> Element:
    rules.extend(INDEX_LIST_RULES)
    elt = d.elt_type

    def handle(fb: FormatBuilder, st: daf.ParsingState, c: Any) -> None:
        if c is None:
            return
        items = flatten(c)
        if isinstance(elt, IntegerType):
            d.set(st, DenseArrayBase.from_list(elt, [int(t) for t in items]))
        else:
            d.set(st, DenseArrayBase.from_list(elt, [float(t) for t in items]))

    return Element(optional_wrapper("fmt_group_number_list", d.is_optional), handle)


def translate_optional_group(d: daf.OptionalGroupDirective, rules: list[str]) -> Element:
    if d.else_elements:
        raise Unsupported("optional group with else branch")
    first = d.then_first
    then = [*d.then_whitespace, first, *d.then_elements]
    parts: list[str] = []
    handlers: list[tuple[daf.FormatDirective, Handler]] = []
    unit_anchor: daf.OptionalUnitAttrVariable | None = None
    for element in then:
        if isinstance(element, daf.OptionalUnitAttrVariable):
            unit_anchor = element
            continue
        translated = translate(element, rules)
        # Inside a present group every element is present.
        text = translated.text
        if text.startswith("[") and text.endswith("]") and not text.startswith('["'):
            text = text[1:-1]
        if text:
            parts.append(text)
        if translated.handler is not None:
            handlers.append((element, translated.handler))
    if not parts:
        raise Unsupported("empty optional group")
    body = " ".join(parts)
    name = f"fmt_group_{hashlib.md5(body.encode()).hexdigest()[:10]}"
    rules.append(f"{name}: {body}")
    elements = [element for element in then]

    def handle(fb: FormatBuilder, st: daf.ParsingState, c: Any) -> None:
        if c is None:
            for element in elements:
                element.set_empty(st)
            return
        if unit_anchor is not None:
            unit_anchor.set(st, UnitAttr())
        for (_, handler), child in zip(handlers, c, strict=True):
            handler(fb, st, child)

    return Element(f"[{name}]", handle)


@dataclass
class OpFormat:
    """The generated syntax of one op: its rule body and the handlers of its children."""

    op_type: type[IRDLOperation]
    program: daf.FormatProgram
    body: str
    group_rules: list[str]
    handlers: list[Handler]

    def build(self, builder: Any, name_token: Token, children: Sequence[Any]) -> IRDLOperation:
        """Build the op from the children of its rule (the name token excluded)."""
        op_type = self.op_type
        op_def = op_type.get_irdl_definition()
        state = daf.ParsingState(op_type)
        fb = FormatBuilder(builder, name_token)
        try:
            for handler, child in zip(self.handlers, children, strict=True):
                handler(fb, state, child)
        except VerifyException as exc:
            raise builder.error(name_token, f"'{op_type.name}' op {exc}") from None
        try:
            operands_tokens = [o if o is not None else () for o in state.operands]
            self.program.resolve_constraint_variables(state, op_def)
            operand_types = self.program.resolve_operand_types(state, op_def)
            result_types = self.program.resolve_result_types(state, op_def)
        except VerifyException as exc:
            raise builder.error(name_token, f"'{op_type.name}' op {exc}") from None
        operands = []
        for tokens, types in zip(operands_tokens, operand_types, strict=True):
            if len(tokens) != len(types):
                raise builder.error(
                    name_token,
                    f"'{op_type.name}' op has {len(tokens)} operands but {len(types)} types",
                )
            operands.append(builder.resolve_all([r.token for r in tokens], types))
        try:
            op = op_type.build(
                result_types=result_types,
                operands=operands,
                attributes=state.attributes,
                properties=state.properties,
                regions=[r if r is not None else () for r in state.regions],
                successors=[s if s is not None else () for s in state.successors],
            )
        except (VerifyException, ValueError, TypeError) as exc:
            raise builder.error(name_token, f"'{op_type.name}' op {exc}") from None
        return builder.record(op, name_token)


def op_format(op_type: type[IRDLOperation]) -> OpFormat | None:
    """The generated syntax of `op_type`, or None if it has no translatable assembly format."""
    op_def = op_type.get_irdl_definition()
    if op_def.assembly_format is None:
        return None
    try:
        program = daf.FormatProgram.from_str(op_def.assembly_format, op_def)
    except Exception:
        return None
    rules: list[str] = []
    parts: list[str] = []
    handlers: list[Handler] = []
    try:
        for stmt in program.stmts:
            element = translate(stmt, rules)
            if element.text:
                parts.append(element.text)
            if element.handler is not None:
                handlers.append(element.handler)
    except Unsupported:
        return None
    return OpFormat(op_type, program, " ".join(parts), rules, handlers)
