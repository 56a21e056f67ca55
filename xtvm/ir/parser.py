"""The lark front end: reduces the grammar straight into xDSL IR.

`IRBuilder` is a lark `Transformer` applied inline by the LALR parser, so no parse tree is built:
each rule's callback receives the already-built children (types, attributes, values, regions) and
returns the object for its rule. SSA names live in a stack of scopes, one per region being
parsed; a region's scope opens when its `{` is reduced, which lets ops inside it resolve
names of block arguments declared before the brace (function headers, loop headers).
Uses before definition become `ForwardDeclaredValue`s, resolved when the name is defined.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lark import Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    BFloat16Type,
    ComplexType,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    Float80Type,
    Float128Type,
    FloatAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NameLoc,
    NoneType,
    Signedness,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    TupleType,
    UnitAttr,
    UnrankedMemRefType,
    UnrankedTensorType,
    VectorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.parser import Parser as XParser
from xdsl.parser.core import ForwardDeclaredValue
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.mlir_lexer import MLIRLexer

from xtvm.ir.diagnostics import DiagnosticError, Location, SourceFile

FLOAT_TYPES: dict[str, Attribute] = {
    "f16": Float16Type(),
    "bf16": BFloat16Type(),
    "f32": Float32Type(),
    "f64": Float64Type(),
    "f80": Float80Type(),
    "f128": Float128Type(),
}
I64 = IntegerType(64)
MAX_INT_WIDTH = (1 << 24) - 1  # as MLIR
MAX_DENSE_ELEMENTS = 1 << 26

# xDSL's string-literal pattern nests `+` inside `*` and backtracks exponentially on an
# unterminated string; this one matches the same strings in linear time.
MLIRLexer._unescaped_characters_regex = re.compile(
    r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"'
)
I1 = IntegerType(1)
INDEX = IndexType()
NONE_TYPE = NoneType()
FileLineColLoc = builtin.FileLineColLoc
LOC_FIELDS = tuple(name for name, _ in FileLineColLoc.get_irdl_definition().parameters)
assert LOC_FIELDS == ("filename", "line", "column"), LOC_FIELDS


def symbol_name(token: str) -> str:
    """The name of a SYMBOL token (`@name` or `@"quoted name"`), without the `@`."""
    return decode_string(token[1:]) if token[1] == '"' else str(token)[1:]


def decode_string(token: str) -> str:
    """Decode an MLIR string literal (with quotes): `\\n`, `\\t`, `\\"`, `\\\\`, `\\HH`."""
    body = token[1:-1]
    if "\\" not in body:
        return body
    out = bytearray()
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out += c.encode()
            i += 1
            continue
        nxt = body[i + 1]
        simple = {"n": b"\n", "t": b"\t", '"': b'"', "\\": b"\\"}
        if nxt in simple:
            out += simple[nxt]
            i += 2
        else:
            out.append(int(body[i + 1 : i + 3], 16))
            i += 3
    return out.decode("utf-8", errors="replace")


@dataclass
class Scope:
    """Names visible in one region being parsed, and the blocks of that region."""

    values: dict[str, SSAValue] = field(default_factory=dict)
    forward: dict[str, tuple[ForwardDeclaredValue, Token]] = field(default_factory=dict)
    labels: dict[str, Block] = field(default_factory=dict)
    forward_labels: dict[str, Token] = field(default_factory=dict)
    blocks: list[Block] = field(default_factory=list)
    current: Block = field(default_factory=Block)
    entry_is_implicit: bool = True


@dataclass
class PendingArg:
    """An entry-block argument declared before its region's `{` (function or loop header)."""

    name: Token
    type: Attribute
    attrs: DictionaryAttr | None = None
    location: Attribute | None = None


class IRBuilder(Transformer):
    """Callbacks of the core grammar; dialect callbacks are bound onto a subclass."""

    def __init__(self, ctx: Context):
        super().__init__(visit_tokens=False)
        self.ctx = ctx
        self.allow_unregistered = False
        self.opaque_cache: dict[tuple[str, str], Attribute] = {}
        self.op_classes: dict[str, type[Operation]] = {}  # registered ops, by name
        self.lexer: Any = None
        self.reset(SourceFile("<input>", ""))

    def reset(self, source: SourceFile) -> None:
        self.source = source
        self.scopes: list[Scope] = [Scope()]
        self.scopes[0].blocks.append(self.scopes[0].current)
        self.pending_args: list[PendingArg] | None = None
        self.attr_aliases: dict[str, Attribute] = {}
        self.type_aliases: dict[str, Attribute] = {}
        self.filename_attr = StringAttr(source.name)
        # Equal types and attributes are built once per parse and shared (they are immutable):
        # a large module repeats the same few many times.
        self.interned: dict[object, Any] = {}
        self.int_attrs: dict[int, builtin.IntAttr] = {}
        # Checks that wait for the whole input (an undeclared name is reported before them).
        self.deferred: list[Callable[[], None]] = []

    # ------------------------------------------------------------------ diagnostics

    def location(self, token: Token | None) -> Location | None:
        if token is None or token.line is None:
            return None
        return Location(self.source, token.line, token.column)

    def error(self, token: Token | None, message: str) -> DiagnosticError:
        """A located error at `token`, or at the last token read when there is none."""
        if token is None and self.lexer is not None:
            token = getattr(self.lexer, "last_token", None)
        return DiagnosticError.at(self.location(token), message)

    # ------------------------------------------------------------------ scopes and values

    @property
    def scope(self) -> Scope:
        return self.scopes[-1]

    def lookup(self, name: str) -> SSAValue | None:
        for scope in reversed(self.scopes):
            value = scope.values.get(name)
            if value is not None:
                return value
        return None

    def resolve(self, token: Token, expected: Attribute | None = None) -> SSAValue:
        """The value named by `token`; a forward reference if not defined yet."""
        name = str(token)
        value = self.lookup(name)
        if value is None:
            for scope in reversed(self.scopes):
                if name in scope.forward:
                    value = scope.forward[name][0]
                    break
        if value is None:
            if expected is None:
                raise self.error(token, f"use of undeclared SSA value '{name}'")
            value = ForwardDeclaredValue(expected)
            self.scope.forward[name] = (value, token)
            return value
        if expected is not None and value.type != expected:
            raise self.error(
                token,
                f"use of value '{name}' expects different type than prior uses: "
                f"'{expected}' vs '{value.type}'",
            )
        return value

    def resolve_all(self, tokens: Sequence[Token], types: Sequence[Attribute]) -> list[SSAValue]:
        return [self.resolve(t, ty) for t, ty in zip(tokens, types, strict=True)]

    def define(self, token: Token, value: SSAValue, number: int | None = None) -> None:
        """Bind `token`'s name to `value`; `number` binds `%name#number` of a result group."""
        name = str(token)
        if "#" in name:
            raise self.error(token, f"invalid SSA value name '{name}' in a definition")
        hint = name[1:]
        if number is not None:
            name = f"{name}#{number}"
        scope = self.scope
        if name in scope.values:
            raise self.error(token, f"redefinition of SSA value '{name}'")
        scope.values[name] = value
        if not hint.isdigit() and SSAValue.is_valid_name(hint):
            value.name_hint = hint
        for s in reversed(self.scopes):
            if not s.forward:
                continue
            entry = s.forward.pop(name, None)
            if entry is None:
                continue
            forward, use = entry
            if forward.type != value.type:
                raise self.error(
                    use,
                    f"use of value '{name}' expects different type than its definition: "
                    f"'{forward.type}' vs '{value.type}'",
                )
            forward.replace_all_uses_with(value)

    def block_for_label(self, token: Token) -> Block:
        label = str(token)
        block = self.scope.labels.get(label)
        if block is None:
            block = self.named_block(label)
            self.scope.labels[label] = block
            self.scope.forward_labels[label] = token
        return block

    @staticmethod
    def named_block(label: str) -> Block:
        """A new block keeping `label` (without `^`) as its name, unless it is a default name."""
        block = Block()
        name = label[1:]
        if Block.is_valid_name(name) and not Block.is_default_block_name(name):
            block.name_hint = name
        return block

    def add_op(self, op: Operation) -> None:
        self.scope.current.add_op(op)

    def set_entry_args(self, args: list[PendingArg]) -> None:
        """Declare the entry-block arguments of the next region to be opened."""
        self.pending_args = args

    def record(self, op: Operation, token: Token) -> Operation:
        """Locate `op` at its name token, as MLIR does (a trailing `loc(...)` overrides it)."""
        if token.line is not None:
            op.location = self.location_attr(token)
        return op

    def location_attr(self, token: Token) -> builtin.FileLineColLoc:
        """The location of `token` as an attribute. Its parts are valid by construction, so
        it is made without xDSL's verifier (a tenth of the cost of a small op)."""
        loc = FileLineColLoc.__new__(FileLineColLoc)
        setattr_ = object.__setattr__
        setattr_(loc, LOC_FIELDS[0], self.filename_attr)
        setattr_(loc, LOC_FIELDS[1], self.int_attr_of(token.line))
        setattr_(loc, LOC_FIELDS[2], self.int_attr_of(token.column))
        return loc

    def int_attr_of(self, value: int) -> builtin.IntAttr:
        attr = self.int_attrs.get(value)
        if attr is None:
            attr = self.int_attrs[value] = builtin.IntAttr(value)
        return attr

    def intern(self, key: object, build: Callable[[], Any]) -> Any:
        """The value built for `key` earlier in this parse, else `build()` (kept for `key`)."""
        value = self.interned.get(key)
        if value is None:
            value = self.interned[key] = build()
        return value

    # ------------------------------------------------------------------ top level

    def start(self, _children: list[Any]) -> ModuleOp:
        top = self.scopes[0]
        self.check_unresolved(top)
        for check in self.deferred:
            check()
        ops = list(top.current.ops)
        if len(ops) == 1 and isinstance(ops[0], ModuleOp):
            ops[0].detach()
            return ops[0]
        block = top.current
        return ModuleOp(Region([block]))

    def check_unresolved(self, scope: Scope) -> None:
        for name, (_, token) in scope.forward.items():
            raise self.error(token, f"use of undeclared SSA value '{name}'")
        for label, token in scope.forward_labels.items():
            raise self.error(token, f"reference to an undefined block '{label}'")

    def attr_alias_def(self, children: list[Any]) -> None:
        token, attr = children
        self.attr_aliases[str(token)] = attr
        self.forget_spans()

    def type_alias_def(self, children: list[Any]) -> None:
        token, typ = children
        self.type_aliases[str(token)] = typ
        self.forget_spans()

    def forget_spans(self) -> None:
        """Texts read before an alias (re)definition may mean something else after it."""
        seen = getattr(self.lexer, "seen", None)
        if seen is not None:
            seen.clear()

    def seen_span(self, children: list[Token]) -> Any:
        """The value of a span the lexer recognised as read before (xtvm/ir/lexer.py)."""
        return children[0].value

    def file_metadata(self, children: list[Any]) -> None:
        raise self.error(children[0], "file metadata sections ({-# ... #-}) are not supported")

    def attr_alias_use(self, children: list[Any]) -> Attribute:
        token = children[0]
        attr = self.attr_aliases.get(str(token))
        if attr is None:
            raise self.error(token, f"undefined attribute alias '{token}'")
        return attr

    def type_alias_use(self, children: list[Any]) -> Attribute:
        token = children[0]
        typ = self.type_aliases.get(str(token))
        if typ is None:
            raise self.error(token, f"undefined type alias '{token}'")
        return typ

    # ------------------------------------------------------------------ operations

    def operation(self, children: list[Any]) -> Operation:
        results, op, loc = children
        if results is not None:
            count = sum(n for _, n in results)
            if count != len(op.results):
                token = results[0][0]
                raise self.error(
                    token,
                    f"operation '{op.name}' has {len(op.results)} results but {count} "
                    "names were given",
                )
            index = 0
            for token, n in results:
                if n == 1:
                    self.define(token, op.results[index])
                else:
                    for k in range(n):
                        self.define(token, op.results[index + k], k)
                index += n
        if loc is not None:
            op.location = loc
        self.add_op(op)
        return op

    def op_results(self, children: list[Any]) -> list[tuple[Token, int]]:
        return children

    def result_group(self, children: list[Any]) -> tuple[Token, int]:
        token, count = children
        return (token, 1 if count is None else int(count))

    def custom_op(self, children: list[Any]) -> Operation:
        return children[0]

    def unknown_custom_op(self, children: list[Any]) -> Operation:
        raise self.unknown_op_error(children[0])

    def unknown_op_error(self, token: Token) -> DiagnosticError:
        name = str(token)
        if self.ctx.get_optional_op(name) is not None:
            return self.error(
                token,
                f"operation '{name}' has no custom syntax; write it in the generic form "
                f'"{name}"(...)',
            )
        return self.error(token, f"unknown operation '{name}'")

    def op_class(self, token: Token, name: str) -> type[Operation]:
        op_type = self.op_classes.get(name)
        if op_type is not None:
            return op_type
        op_type = self.ctx.get_optional_op(name)
        if op_type is not None:
            self.op_classes[name] = op_type
        else:
            if self.allow_unregistered:
                return builtin.UnregisteredOp.with_name(name)
            raise self.error(token, f"unknown operation '{name}'")
        return op_type

    def generic_op(self, children: list[Any]) -> Operation:
        name_tok, uses, successors, props, regions, attrs, fn_type = children
        name = decode_string(name_tok)
        op_type = self.op_class(name_tok, name)
        uses = uses or []
        inputs = fn_type.inputs.data
        if len(uses) != len(inputs):
            raise self.error(
                name_tok,
                f"'{name}' op has {len(uses)} operands but its type lists {len(inputs)}",
            )
        operands = self.resolve_all(uses, inputs)
        properties = dict(props) if props else {}
        attributes = dict(attrs) if attrs else {}
        if attributes:
            self.attributes_as_properties(op_type, properties, attributes)
        try:
            return op_type.create(
                operands=operands,
                result_types=fn_type.outputs.data,
                properties=properties,
                attributes=attributes,
                regions=regions or (),
                successors=successors or (),
                location=None if name_tok.line is None else self.location_attr(name_tok),
            )
        except (VerifyException, ValueError, TypeError) as exc:
            raise self.error(name_tok, f"'{name}' op {exc}") from None

    @staticmethod
    def attributes_as_properties(
        op_type: type[Operation], properties: dict[str, Attribute], attributes: dict[str, Any]
    ) -> None:
        """Move what MLIR 16 (and our --mlir-compat output) writes as attributes to where
        newer MLIR keeps it: renamed segment sizes, and the op's properties."""
        op_def = getattr(op_type, "get_irdl_definition", None)
        for old, new in (
            ("operand_segment_sizes", "operandSegmentSizes"),
            ("result_segment_sizes", "resultSegmentSizes"),
        ):
            if old in attributes:  # MLIR 16's spelling
                attributes[new] = attributes.pop(old)
        if op_def is not None:
            # MLIR before properties (and our --mlir-compat output) writes them as attributes.
            for prop_name in op_def().properties:
                if prop_name in attributes and prop_name not in properties:
                    properties[prop_name] = attributes.pop(prop_name)

    def value_uses(self, children: list[Token]) -> list[Token]:
        return children

    def value_use(self, children: list[Token]) -> Token:
        return children[0]

    def successors(self, children: list[Block]) -> list[Block]:
        return children

    def successor(self, children: list[Token]) -> Block:
        return self.block_for_label(children[0])

    def properties(self, children: list[Any]) -> dict[str, Attribute]:
        return children[0]

    def region_list(self, children: list[Region]) -> list[Region]:
        return children

    def region_open(self, _children: list[Any]) -> None:
        scope = Scope()
        pending, self.pending_args = self.pending_args, None
        self.scopes.append(scope)
        if pending is not None:
            scope.current = Block(arg_types=[a.type for a in pending])
            scope.entry_is_implicit = False
            for arg, value in zip(pending, scope.current.args, strict=True):
                self.define(arg.name, value)
                if arg.location is not None:
                    value.location = arg.location
        scope.blocks.append(scope.current)

    def region(self, _children: list[Any]) -> Region:
        scope = self.scopes.pop()
        if scope.forward:
            # Uses in a nested region may be defined later in an enclosing one.
            parent = self.scope
            for name, entry in scope.forward.items():
                parent.forward.setdefault(name, entry)
        for label, token in scope.forward_labels.items():
            raise self.error(token, f"reference to an undefined block '{label}'")
        blocks = scope.blocks
        if (
            len(blocks) == 1
            and scope.entry_is_implicit
            and not blocks[0].ops
            and not blocks[0].args
            and not scope.labels
        ):
            return Region()
        return Region(blocks)

    def block_label(self, children: list[Any]) -> None:
        token, *args = children
        args = [a for a in args if a is not None]
        scope = self.scope
        label = str(token)
        if label in scope.labels and label not in scope.forward_labels:
            raise self.error(token, f"redefinition of block '{label}'")
        block = scope.labels.get(label)
        scope.forward_labels.pop(label, None)
        current = scope.current
        reuse_entry = (
            scope.entry_is_implicit
            and len(scope.blocks) == 1
            and not current.ops
            and not current.args
            and block is None
        )
        if block is None:
            block = self.named_block(label)
            scope.labels[label] = block
        for arg_token, arg_type, arg_loc in args:
            value = block.insert_arg(arg_type, len(block.args))
            self.define(arg_token, value)
            if arg_loc is not None:
                value.location = arg_loc
        if reuse_entry:
            scope.blocks[0] = block
        else:
            scope.blocks.append(block)
        scope.entry_is_implicit = False
        scope.current = block

    def block_arg(self, children: list[Any]) -> tuple[Token, Attribute, Attribute | None]:
        token, typ, loc = children
        return (token, typ, loc)

    def trailing_loc(self, children: list[Any]) -> Attribute:
        return children[0]

    def loc_unknown(self, _children: list[Any]) -> Attribute:
        return builtin.UnknownLoc()

    def loc_file_line_col(self, children: list[Any]) -> Attribute:
        name, line, col = children
        return builtin.FileLineColLoc(
            StringAttr(decode_string(name)), builtin.IntAttr(int(line)), builtin.IntAttr(int(col))
        )

    def loc_name(self, children: list[Any]) -> Attribute:
        return NameLoc(StringAttr(decode_string(children[0])), builtin.NoneAttr())

    def loc_opaque(self, children: list[Any]) -> Attribute:
        return self.parse_with_xdsl(children[0], f"loc({children[0]})", "attribute")

    def loc_attr(self, children: list[Any]) -> Attribute:
        return children[0]

    # ------------------------------------------------------------------ types

    def int_type(self, children: list[Token]) -> Attribute:
        key = ("int_type", str(children[0]))
        known = self.interned.get(key)
        if known is not None:
            return known
        typ = self.interned[key] = self.new_int_type(children)
        return typ

    def new_int_type(self, children: list[Token]) -> Attribute:
        text = str(children[0])
        if len(text.lstrip("sui")) > 8 or int(text.lstrip("sui")) > MAX_INT_WIDTH:
            raise self.error(children[0], f"integer bitwidth is limited to {MAX_INT_WIDTH} bits")
        if text[0] == "s":
            return IntegerType(int(text[2:]), Signedness.SIGNED)
        if text[0] == "u":
            return IntegerType(int(text[2:]), Signedness.UNSIGNED)
        return IntegerType(int(text[1:]))

    def float_type(self, children: list[Token]) -> Attribute:
        text = str(children[0])
        typ = FLOAT_TYPES.get(text)
        if typ is None:
            raise self.error(children[0], f"unsupported float type '{text}'")
        return typ

    def index_type(self, _children: list[Any]) -> Attribute:
        return INDEX

    def none_type(self, _children: list[Any]) -> Attribute:
        return NONE_TYPE

    def types(self, children: list[Attribute]) -> list[Attribute]:
        return children

    @staticmethod
    def dims(token: Token | None) -> list[int]:
        if token is None:
            return []
        return [DYNAMIC_INDEX if d == "?" else int(d) for d in str(token).split("x")[:-1]]

    def tensor_type(self, children: list[Any]) -> Attribute:
        dims, elem, encoding = children
        key = ("tensor", str(dims), elem, encoding)
        return self.intern(key, lambda: self.new_tensor_type(dims, elem, encoding))

    def new_tensor_type(self, dims: Token | None, elem: Any, encoding: Any) -> Attribute:
        if encoding is None:
            return TensorType(elem, self.dims(dims))
        return TensorType(elem, self.dims(dims), encoding)

    def unranked_tensor_type(self, children: list[Any]) -> Attribute:
        return UnrankedTensorType(children[0])

    def memref_type(self, children: list[Any]) -> Attribute:
        dims, elem, first, second = children
        key = ("memref", str(dims), elem, first, second)
        return self.intern(key, lambda: self.new_memref_type(dims, elem, first, second))

    def new_memref_type(self, dims: Token | None, elem: Any, first: Any, second: Any) -> Attribute:
        layout: Attribute = builtin.NoneAttr()
        space: Attribute = builtin.NoneAttr()
        if second is not None:
            layout, space = first, second
        elif first is not None:
            if isinstance(first, builtin.MemRefLayoutAttr):
                layout = first
            else:
                space = first
        return MemRefType(elem, self.dims(dims), layout, space)

    def unranked_memref_type(self, children: list[Any]) -> Attribute:
        elem, space = children
        return UnrankedMemRefType.from_type(elem, space or builtin.NoneAttr())

    def vector_type(self, children: list[Any]) -> Attribute:
        dims, elem = children
        return self.intern(("vector", str(dims), elem), lambda: VectorType(elem, self.dims(dims)))

    def tuple_type(self, children: list[Any]) -> Attribute:
        return TupleType(tuple(children[0] or ()))

    def complex_type(self, children: list[Any]) -> Attribute:
        return ComplexType(children[0])

    def function_type(self, children: list[Any]) -> FunctionType:
        inputs, results = children
        if not isinstance(results, list):
            results = [results]
        inputs = tuple(inputs or ())
        key = ("->", inputs, tuple(results))
        return self.intern(key, lambda: FunctionType.from_lists(inputs, results))

    def result_type_list(self, children: list[Any]) -> list[Attribute]:
        return children[0] or []

    def dialect_type(self, children: list[Any]) -> Attribute:
        name, body = children
        return self.parse_with_xdsl(name, str(name) + (body or ""), "type")

    # ------------------------------------------------------------------ attributes

    def typed_int(self, token: Token, value: int, typ: Attribute | None) -> Attribute:
        if typ is None:
            typ = I64
        known = self.interned.get(("int", value, typ))
        if known is not None:
            return known
        attr = self.interned[("int", value, typ)] = self.new_typed_int(token, value, typ)
        return attr

    def new_typed_int(self, token: Token, value: int, typ: Attribute) -> Attribute:
        if isinstance(typ, (IntegerType, IndexType)):
            try:
                return IntegerAttr(value, typ)
            except (VerifyException, ValueError) as exc:
                raise self.error(token, str(exc)) from None
        if isinstance(typ, builtin.AnyFloat):
            return self.float_value(token, float(value), typ)
        raise self.error(token, f"integer literal with non-integer type '{typ}'")

    def float_value(self, token: Token, value: float, typ: Attribute) -> Attribute:
        try:
            return FloatAttr(value, typ)  # type: ignore[arg-type]
        except (OverflowError, ValueError, VerifyException) as exc:
            raise self.error(token, f"float literal {token} does not fit '{typ}': {exc}") from None

    def int_attr(self, children: list[Any]) -> Attribute:
        token, typ = children
        return self.typed_int(token, int(token), typ)

    def hex_attr(self, children: list[Any]) -> Attribute:
        token, typ = children
        value = int(str(token), 16)
        if isinstance(typ, builtin.AnyFloat):
            width = getattr(typ, "bitwidth", 64)
            if value >= 1 << width:
                raise self.error(token, f"hexadecimal float literal {token} is wider than '{typ}'")
            try:
                bits = self.float_from_bits(value, typ)
            except ValueError:
                raise self.error(
                    token, f"hexadecimal literals of '{typ}' are not supported"
                ) from None
            return self.float_value(token, bits, typ)
        return self.typed_int(token, value, typ)

    @staticmethod
    def float_from_bits(bits: int, typ: Attribute) -> float:
        import numpy as np  # (numpy costs a tool's start-up a tenth of a second)

        from xtvm.ir.numpy_types import numpy_dtype

        dtype = numpy_dtype(typ)
        return float(np.array([bits], f"u{dtype.itemsize}").view(dtype)[0])

    def float_attr(self, children: list[Any]) -> Attribute:
        token, typ = children
        if typ is None:
            typ = Float64Type()
        if not isinstance(typ, builtin.AnyFloat):
            raise self.error(token, f"float literal with non-float type '{typ}'")
        return self.float_value(token, float(token), typ)

    def true_attr(self, _children: list[Any]) -> Attribute:
        return IntegerAttr(1, I1)

    def false_attr(self, _children: list[Any]) -> Attribute:
        return IntegerAttr(0, I1)

    def unit_attr(self, _children: list[Any]) -> Attribute:
        return UnitAttr()

    def string_attr(self, children: list[Any]) -> Attribute:
        return StringAttr(decode_string(children[0]))

    def array_attr(self, children: list[Any]) -> Attribute:
        if children == [None]:
            return ArrayAttr(())
        return ArrayAttr(children)

    def attr_dict(self, children: list[Any]) -> dict[str, Attribute]:
        if children == [None]:
            return {}
        return dict(children)

    def dictionary_attr(self, children: list[Any]) -> Attribute:
        return DictionaryAttr(children[0])

    def attr_entry(self, children: list[Any]) -> tuple[str, Attribute]:
        key, value = children
        name = decode_string(key) if key.type == "STRING" else str(key)
        return (name, UnitAttr() if value is None else value)

    def type_attr(self, children: list[Any]) -> Attribute:
        return children[0]

    def symbol_ref(self, children: list[Token]) -> Attribute:
        names = [symbol_name(t) for t in children]
        return SymbolRefAttr(names[0], names[1:])

    def dialect_attr(self, children: list[Any]) -> Attribute:
        name, body = children
        return self.parse_with_xdsl(name, str(name) + (body or ""), "attribute")

    def builtin_opaque_attr(self, children: list[Any]) -> Attribute:
        name, body = children
        return self.parse_with_xdsl(name, str(name) + body, "attribute")

    def dense_resource_attr(self, children: list[Any]) -> Attribute:
        name, body, typ = children
        return self.parse_with_xdsl(name, f"{name}{body} : {typ}", "attribute")

    def xdsl_parser(self, text: str) -> XParser:
        """An xDSL parser over `text`, for dialect parameter syntax we delegate to xDSL."""
        return XParser(self.ctx, text, self.source.name)

    def parse_with_xdsl(self, token: Token, text: str, kind: str) -> Attribute:
        """Parse a dialect type or attribute with its own (xDSL) parameter parser.

        Attributes are immutable, so results are cached by text for the context's lifetime.
        """
        key = (kind, text)
        cached = self.opaque_cache.get(key)
        if cached is not None:
            return cached
        result = self.parse_with_xdsl_uncached(token, text, kind)
        self.opaque_cache[key] = result
        return result

    def parse_with_xdsl_uncached(self, token: Token, text: str, kind: str) -> Attribute:
        parser = XParser(self.ctx, text, self.source.name)
        try:
            result = parser.parse_type() if kind == "type" else parser.parse_attribute()
            if parser.pos != len(text):
                raise self.error(token, f"unexpected trailing text in {kind} '{text}'")
        except ParseError as exc:
            message = str(exc).splitlines()[-1].strip() or "malformed " + kind
            raise self.error(token, f"invalid {kind} '{text}': {message}") from None
        except DiagnosticError:
            raise
        except Exception as exc:
            raise self.error(token, f"invalid {kind} '{text}': {exc}") from None
        return result

    # dense<...> literals: nested lists of python scalars

    def dense_attr(self, children: list[Any]) -> Attribute:
        token, literal, typ = children
        if not isinstance(typ, (TensorType, VectorType, MemRefType)):
            raise self.error(
                token, f"dense elements need a tensor, vector or memref type, got '{typ}'"
            )
        shape = list(typ.get_shape())
        if any(d < 0 for d in shape):
            raise self.error(token, f"dense literal needs a static shape, got '{typ}'")
        elem = typ.get_element_type()
        count = 1
        for d in shape:
            count *= d
        if count > MAX_DENSE_ELEMENTS:
            raise self.error(
                token,
                f"dense literal of {count} elements is too large for text "
                f"(at most {MAX_DENSE_ELEMENTS}); keep large weights in a parameter table",
            )
        if literal is None:
            values: list[Any] = []
        elif isinstance(literal, list):
            values = self.flatten_dense(token, literal, shape)
        else:
            values = [literal] * count
        if isinstance(literal, str):
            return self.dense_from_hex(literal, typ)
        if isinstance(elem, ComplexType):
            # Complex elements: xDSL's reader builds the attribute from the literal's text.
            text = f"dense<{self.dense_text(literal)}> : {typ}"
            return self.parse_with_xdsl(token, text, "attribute")
        if any(isinstance(v, tuple) for v in values):
            raise self.error(token, f"complex dense literal for non-complex type '{typ}'")
        if len(values) != count:
            raise self.error(
                token, f"dense literal has {len(values)} elements but type '{typ}' needs {count}"
            )
        if isinstance(elem, builtin.AnyFloat):
            values = [float(v) for v in values]
        else:
            values = [int(v) for v in values]
        try:
            return DenseIntOrFPElementsAttr.from_list(typ, values)
        except Exception as exc:
            raise self.error(token, f"invalid dense literal: {exc}") from None

    def dense_from_hex(self, literal: str, typ: Any) -> Attribute:
        import numpy as np

        from xtvm.ir.numpy_types import numpy_dtype

        data = bytes.fromhex(literal[2:])
        array = np.frombuffer(data, dtype=numpy_dtype(typ.get_element_type()))
        count = int(np.prod(typ.get_shape()))
        if array.size == 1 and count != 1:
            array = np.full(count, array[0])
        return DenseIntOrFPElementsAttr.from_list(typ, array.tolist())

    def flatten_dense(self, token: Token, literal: list[Any], shape: list[int]) -> list[Any]:
        if not shape:
            raise self.error(token, "nested dense literal for a 0-d type")
        if len(literal) != shape[0]:
            raise self.error(
                token,
                f"dense literal dimension has {len(literal)} elements, type says {shape[0]}",
            )
        flat: list[Any] = []
        for item in literal:
            if isinstance(item, list):
                flat.extend(self.flatten_dense(token, item, shape[1:]))
            else:
                if len(shape) != 1:
                    raise self.error(token, "dense literal is not nested deeply enough")
                flat.append(item)
        return flat

    def dense_list(self, children: list[Any]) -> list[Any]:
        return [] if children == [None] else children

    def dense_int(self, children: list[Token]) -> int:
        return int(children[0])

    def dense_float(self, children: list[Token]) -> float:
        return float(children[0])

    def dense_hex(self, children: list[Token]) -> int:
        return int(str(children[0]), 16)

    def dense_true(self, _children: list[Any]) -> int:
        return 1

    def dense_false(self, _children: list[Any]) -> int:
        return 0

    def dense_complex(self, children: list[Any]) -> tuple[Any, Any]:
        return (children[0], children[1])

    @classmethod
    def dense_text(cls, literal: Any) -> str:
        """The text of a parsed dense literal (nested lists, pairs and numbers)."""
        if literal is None:
            return ""
        if isinstance(literal, list):
            return "[" + ", ".join(cls.dense_text(v) for v in literal) + "]"
        if isinstance(literal, tuple):
            return f"({cls.dense_text(literal[0])}, {cls.dense_text(literal[1])})"
        text = repr(literal)
        if isinstance(literal, float) and "." not in text:
            text = text.replace("e", ".0e")  # MLIR float literals need the dot
        return text

    def dense_string(self, children: list[Token]) -> str:
        text = decode_string(children[0])
        if text.startswith("0x"):
            return text
        raise self.error(children[0], "string dense literals are not supported")

    def dense_array_attr(self, children: list[Any]) -> Attribute:
        elem, items = children
        values = [self.scalar(t) for t in (items or [])]
        if not isinstance(elem, IntegerType | builtin.AnyFloat):
            raise self.error(None, f"dense array element type must be int or float, got {elem}")
        try:
            if isinstance(elem, builtin.AnyFloat):
                return DenseArrayBase.from_list(elem, [float(v) for v in values])
            ints = tuple(int(v) for v in values)
            # interned like types (`array<i32: 0, 1>` recurs in every op with segment sizes);
            # floats are not, as -0.0 would read back as an equal 0.0
            return self.intern(
                ("array", elem, ints), lambda: DenseArrayBase.from_list(elem, list(ints))
            )
        except (NotImplementedError, ValueError, OverflowError, VerifyException) as exc:
            raise self.error(None, f"invalid dense array: {exc}") from None

    def dense_array_items(self, children: list[Any]) -> list[Any]:
        return children

    @staticmethod
    def scalar(value: Any) -> Any:
        if isinstance(value, Token):
            if value.type == "FLOAT":
                return float(value)
            if value.type == "HEX":
                return int(str(value), 16)
            return int(value)
        return value


def lark_error_to_diagnostic(exc: UnexpectedInput, source: SourceFile) -> DiagnosticError:
    """Turn a lark syntax error into a located diagnostic."""
    line = getattr(exc, "line", None)
    column = getattr(exc, "column", None)
    if isinstance(exc, UnexpectedToken):
        token = exc.token
        if token.type == "$END":
            message = "unexpected end of input"
            line, column = last_position(source)
        else:
            message = f"unexpected '{token}'"
        expected = describe_expected(exc.expected)
        if expected:
            message += f", expected {expected}"
    elif isinstance(exc, UnexpectedCharacters):
        ch = source.text.split("\n")[line - source.first_line][column - 1 : column]
        message = f"unexpected character '{ch}'" if ch else "unexpected character"
        expected = describe_expected(exc.allowed)
        if expected:
            message += f", expected {expected}"
    elif isinstance(exc, UnexpectedEOF):
        message = "unexpected end of input"
        line, column = last_position(source)
    else:
        message = "syntax error"
    if line is None or line < 0:
        line, column = last_position(source)
    return DiagnosticError.at(Location(source, line, column or 1), message)


def last_position(source: SourceFile) -> tuple[int, int]:
    lines = source.text.rstrip("\n").split("\n")
    return (source.first_line + len(lines) - 1, len(lines[-1]) + 1)


PUNCTUATION_NAMES = {
    "LPAR": "(",
    "RPAR": ")",
    "LSQB": "[",
    "RSQB": "]",
    "LBRACE": "{",
    "RBRACE": "}",
    "LESSTHAN": "<",
    "MORETHAN": ">",
    "COMMA": ",",
    "COLON": ":",
    "EQUAL": "=",
    "__ANON_ARROW": "->",
}

TOKEN_NAMES = {
    "VALUE_ID": "SSA value",
    "CARET_ID": "block label",
    "SYMBOL": "symbol",
    "STRING": "string",
    "BARE_ID": "identifier",
    "INT": "integer",
    "FLOAT": "float",
    "INT_TYPE": "type",
    "FLOAT_TYPE": "type",
    "OP_NAME": "operation name",
    "$END": "end of input",
}


def describe_expected(expected: Any) -> str:
    names: list[str] = []
    for name in sorted(expected or ()):
        if name in ("COMMENT", "CUSTOM_OP_PLACEHOLDER") or name.startswith("__ANON"):
            continue
        pretty = TOKEN_NAMES.get(name)
        if pretty is None:
            pretty = PUNCTUATION_NAMES.get(name)
        if pretty is None:
            if name.startswith("OPK_") or name.isupper():
                continue
            pretty = name
        if pretty not in names:
            names.append(pretty)
    if not names or len(names) > 8:
        return ""
    quoted = [
        n if (n[0].isalpha() and " " in n) or n in TOKEN_NAMES.values() else f"'{n}'" for n in names
    ]
    return " or ".join(quoted)
