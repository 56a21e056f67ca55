"""TVM's Relay text format read into an IRModule, so existing Relay programs come in unchanged.

The input is what TVM's `mod.astext()` prints, its metadata section included (metadata.py):
`#[version = "0.0.5"]`, `def @main(%x: Tensor[(1, 3), float32]) { %0 = nn.relu(%x); ... }`.
lark parses it with `text.lark`; the tree is then built through the Python API
(`relay.nn.conv2d`, ...), so an op call is checked exactly as if written in Python. Every
error, syntax or semantic, is a `DiagnosticError` located at the offending token.
"""

from __future__ import annotations

import ast
import difflib
import inspect
import re
import typing
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np
from lark import Lark, Token, Tree, UnexpectedCharacters, UnexpectedInput, UnexpectedToken
from xdsl.utils.exceptions import VerifyException

from xtvm.api.ir_module import IRModule
from xtvm.api.relay.adt import (
    Clause,
    Constructor,
    Match,
    Pattern,
    PatternConstructor,
    PatternTuple,
    PatternVar,
    PatternWildcard,
    RefCreate,
    RefRead,
    RefWrite,
    TypeData,
)
from xtvm.api.relay.convert import ConversionError
from xtvm.api.relay.expr import (
    HOOKS,
    Call,
    Constant,
    Expr,
    Function,
    GlobalVar,
    If,
    Let,
    Op,
    RelayTypeError,
    Tuple,
    TupleGetItem,
    Var,
    const,
    has_type,
)
from xtvm.api.relay.metadata import (
    MetadataError,
    MetaTable,
    checked_table,
    decode_section,
    split_section,
)
from xtvm.api.relay.op_table import operator_table
from xtvm.api.relay.ty import (
    Any,
    FuncType,
    GlobalTypeVar,
    RefType,
    TensorType,
    TupleType,
    Type,
    TypeCall,
    TypeVar,
    dtype_name,
)
from xtvm.ir.diagnostics import DiagnosticError, Location, SourceFile
from xtvm.ir.errors import DiagnosticError as TVMDiagnosticError
from xtvm.ir.parser import lark_error_to_diagnostic

GRAMMAR = Path(__file__).with_name("text.lark")

AttrValue = int | float | bool | str | None | list["AttrValue"]

# Operands that TVM passes as scalar expressions but the Python API takes as numbers:
# `nn.pad(%x, 0f, pad_width=...)` is `relay.nn.pad(x, pad_width, pad_value=0.0)`.
SCALAR_OPERANDS: dict[str, dict[int, str]] = {"nn.pad": {1: "pad_value"}, "full": {0: "fill_value"}}

# Attributes whose Python API parameter has another name: `unique(%x, sorted=False)` is
# `relay.unique(x, is_sorted=False)`.
ATTRIBUTE_PARAMETERS: dict[str, dict[str, str]] = {"unique": {"sorted": "is_sorted"}}

# How a syntax error names what was expected (lark's punctuation names and this grammar's).
TOKEN_NAMES = {
    "LOCAL": "%variable",
    "GLOBAL": "@function",
    "NAME": "name",
    "NUMBER": "number",
    "INDEX": "field index",
    "STRING": "string",
    "LPAR": "'('",
    "RPAR": "')'",
    "LSQB": "'['",
    "RSQB": "']'",
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "COMMA": "','",
    "COLON": "':'",
    "SEMICOLON": "';'",
    "EQUAL": "'='",
    "DOT": "'.'",
    "DEF": "'def'",
    "FN": "'fn'",
    "LET": "'let'",
    "$END": "end of input",
}

NUMBER_SUFFIX = re.compile(r"(?P<kind>[fiu])(?P<bits>[0-9]*)$")


E = typing.TypeVar("E", bound=Expr)  # an expression kind, kept through a check


@cache
def relay_text_parser() -> Lark:
    return Lark(
        GRAMMAR.read_text(),
        parser="lalr",
        start=["start", "expression"],
        propagate_positions=True,
        maybe_placeholders=True,
    )


def strip_comments(text: str) -> str:
    """`text` with its comments blanked out, newlines kept: `/* ... */` nest, as in TVM."""
    out: list[str] = []
    depth, i = 0, 0
    while i < len(text):
        pair = text[i : i + 2]
        if pair == "/*":
            depth, i = depth + 1, i + 2
            out.append("  ")
        elif pair == "*/" and depth:
            depth, i = depth - 1, i + 2
            out.append("  ")
        elif depth == 0 and pair == "//":
            end = text.find("\n", i)
            end = len(text) if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif depth == 0 and text[i] == '"':  # a string may hold comment markers
            end = i + 1
            while end < len(text) and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append(text[i : end + 1])
            i = end + 1
        else:
            out.append(text[i] if depth == 0 or text[i] == "\n" else " ")
            i += 1
    return "".join(out)


def parse(
    text: str,
    source_name: str = "from_string",
    init_module: IRModule | None = None,
    init_meta_table: Mapping[str, Sequence[object]] | None = None,
) -> IRModule:
    """An IRModule from TVM's Relay text; any error is a located `tvm.error.DiagnosticError`.
    With `init_module`, the text extends a copy of it: it may use its types and functions.
    `meta[relay.Constant][i]` names the text's `#[metadata]` section, or `init_meta_table`."""
    source = SourceFile(source_name, text)
    with tvm_errors(source):
        program, meta = read_metadata(text, init_meta_table)
        tree = relay_text_parser().parse(strip_comments(program), start="start")
        return ModuleBuilder(source, init_module, meta).build(tree)
    raise AssertionError("unreachable")


def parse_expr(text: str, source_name: str = "from_string") -> Expr:
    """An expression from TVM's Relay text (what `expr.astext()` prints: `free_var %x: ...;`
    declarations, bindings, then the expression, then any `#[metadata]` section)."""
    source = SourceFile(source_name, text)
    with tvm_errors(source):
        program, meta = read_metadata(text, None)
        tree = relay_text_parser().parse(strip_comments(program), start="expression")
        body = tree.children[-1]
        assert isinstance(body, Tree)
        builder = ModuleBuilder(source, None, meta)
        builder.open_globals = True
        for node in tree.children[:-1]:
            if isinstance(node, Tree):
                builder.type_definition(node, IRModule())
        return builder.body(body, Scope())
    raise AssertionError("unreachable")


def read_metadata(
    text: str, init_meta_table: Mapping[str, Sequence[object]] | None
) -> tuple[str, MetaTable]:
    """The program part of `text` and the meta table its references name: the text's own
    `#[metadata]` section, else the one given; a malformed section is a DiagnosticError."""
    program, section = split_section(text)
    try:
        table = checked_table(init_meta_table)
        if section is not None:
            table = decode_section(section)
    except MetadataError as err:
        where = "#[metadata]" if section is not None else "init_meta_table"
        raise DiagnosticError.at(None, f"{where}: {err}") from None
    return program, table


@contextmanager
def tvm_errors(source: SourceFile) -> Iterator[None]:
    """Syntax and semantic errors as TVM's `DiagnosticError` (a `TVMError`), located."""
    try:
        yield
    except UnexpectedInput as exc:
        raise TVMDiagnosticError(syntax_error(exc, source).diagnostics) from None
    except RecursionError:
        error = DiagnosticError.at(None, "input is nested too deeply")
        raise TVMDiagnosticError(error.diagnostics) from None
    except TVMDiagnosticError:
        raise
    except DiagnosticError as exc:
        raise TVMDiagnosticError(exc.diagnostics) from None


META_REFERENCE = re.compile(r"meta\[([^\]]*)\]\[([0-9]+)\]")
# Infix operators of the text and the operators they call.
BINARY_OPERATORS = {
    "+": "add",
    "-": "subtract",
    "*": "multiply",
    "/": "divide",
    "<": "less",
    ">": "greater",
    "<=": "less_equal",
    ">=": "greater_equal",
    "==": "equal",
    "!=": "not_equal",
}


def syntax_error(exc: UnexpectedInput, source: SourceFile) -> DiagnosticError:
    """lark's located syntax error, with what was expected named in this grammar's terms."""
    located = lark_error_to_diagnostic(exc, source)
    diagnostic = located.diagnostics[0]
    expected: set[str] = set()
    if isinstance(exc, UnexpectedToken):
        expected = exc.expected
    elif isinstance(exc, UnexpectedCharacters):
        expected = exc.allowed or set()
    names = sorted({TOKEN_NAMES[t] for t in expected if t in TOKEN_NAMES})
    head = diagnostic.message.split(", expected")[0]
    message = f"{head}, expected {' or '.join(names)}" if names else head
    return DiagnosticError.at(diagnostic.location, message)


# ---------------------------------------------------------------------------------------------
# Literals


def number_value(text: str) -> tuple[int | float, str]:
    """A TVM numeric literal's value and dtype: `1f` float32, `2i64` int64, `-1` int32."""
    suffix = NUMBER_SUFFIX.search(text)
    digits = text[: suffix.start()] if suffix else text
    is_float = any(c in digits for c in ".eE")
    if suffix is None:
        return (float(digits), "float32") if is_float else (int(digits), "int32")
    kind, bits = suffix["kind"], suffix["bits"]
    if kind == "f":
        return float(digits), f"float{bits or 32}"
    prefix = "u" if kind == "u" else ""
    return int(float(digits)) if is_float else int(digits), f"{prefix}int{bits or 32}"


def string_value(token: Token) -> str:
    return str(ast.literal_eval(str(token)))


def is_incomplete(node: Tree) -> bool:
    """Whether a type node is `_`, TVM's incomplete type."""
    return node.data == "scalar_type" and str(node.children[0]) == "_"


def present(children: Sequence[object]) -> Iterator[Tree | Token]:
    """The children lark filled in (optional parts left out are None placeholders)."""
    for child in children:
        if isinstance(child, Tree | Token):
            yield child


# ---------------------------------------------------------------------------------------------
# Building


@dataclass
class Scope:
    """The `%names` visible in a function body; a nested `fn` sees its parent's names."""

    parent: Scope | None = None
    names: dict[str, Expr] = field(default_factory=dict)

    def lookup(self, name: str) -> Expr | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None


class ModuleBuilder:
    """Builds the parse tree of one text into an IRModule through the Python API.

    Definitions are built callee first, so a call `@f(...)` finds the type of `@f` when its
    own type is inferred; each `GlobalVar` is created once and typed from its function.
    """

    def __init__(
        self,
        source: SourceFile,
        init_module: IRModule | None = None,
        meta: MetaTable | None = None,
    ) -> None:
        self.source = source
        self.meta = meta or {}
        self.init_module = init_module
        self.global_vars: dict[str, GlobalVar] = {}
        self.open_globals = False  # an expression may name functions of a module not given
        self.type_defs: dict[str, TypeData] = {}
        self.constructors: dict[str, Constructor] = {}
        self.type_vars: dict[str, TypeVar] = {}  # the type parameters in scope
        self.declared_params: dict[str, list[TypeVar]] = {}
        if init_module is not None:
            for data in init_module.type_definitions.values():
                self.type_defs[data.header.name_hint] = data
                self.constructors.update({c.name_hint: c for c in data.constructors})
            for gv in init_module.get_global_vars():
                self.global_vars[gv.name_hint] = gv

    # -- locations and errors ----------------------------------------------------------------

    def location(self, node: Tree | Token) -> Location:
        if isinstance(node, Token):
            return Location(self.source, node.line or 1, node.column or 1)
        first = node.children[0] if node.children else None
        if node.meta.empty and isinstance(first, Tree | Token):
            return self.location(first)
        return Location(self.source, getattr(node.meta, "line", 1), getattr(node.meta, "column", 1))

    def error(self, node: Tree | Token, message: str) -> DiagnosticError:
        return DiagnosticError.at(self.location(node), message)

    # -- module ------------------------------------------------------------------------------

    def build(self, tree: Tree) -> IRModule:
        definitions: dict[str, Tree] = {}
        mod = IRModule() if self.init_module is None else self.init_module.copy()
        for node in tree.children:
            if isinstance(node, Tree) and node.data in ("type_definition", "extern_type"):
                self.type_definition(node, mod)
        for node in tree.children:
            if not isinstance(node, Tree) or node.data != "definition":
                continue  # the version header, type definitions
            name = str(node.children[0])[1:]
            if name in definitions or name in self.global_vars:
                raise self.error(node.children[0], f"function @{name} is defined twice")
            definitions[name] = node
        for name, node in definitions.items():
            declared = self.declared_type(node)
            if declared is not None:  # recursive calls of a declared function are typed
                self.global_vars[name] = GlobalVar(name, declared)
        functions = {name: self.definition(definitions[name]) for name in self.order(definitions)}
        for name, fn in functions.items():
            try:
                mod[name] = fn
            except (ConversionError, RelayTypeError, ValueError) as exc:
                raise self.error(definitions[name], f"in function @{name}: {exc}") from None
        return mod

    def order(self, definitions: Mapping[str, Tree]) -> list[str]:
        """Function names, each after the functions it calls; a cycle is an error."""
        done: list[str] = []
        visiting: set[str] = set()

        def visit(name: str) -> None:
            if name in done:
                return
            visiting.add(name)
            body = definitions[name].children[-1]
            assert isinstance(body, Tree)
            for token in body.scan_values(lambda v: isinstance(v, Token) and v.type == "GLOBAL"):
                callee = str(token)[1:]
                if callee not in definitions and callee in self.global_vars:
                    continue  # a function of the initial module
                if callee not in definitions:
                    raise self.error(token, f"undefined function @{callee}")
                if callee in visiting and callee in self.global_vars:
                    continue  # recursion through a declared signature
                if callee in visiting:
                    raise self.error(
                        token, f"recursive call of @{callee} from @{name} is not supported"
                    )
                visit(callee)
            visiting.discard(name)
            done.append(name)

        for name in definitions:
            visit(name)
        return done

    def type_definition(self, node: Tree, mod: IRModule) -> None:
        """`type List[A] { Cons(A, List[A]), Nil }` (or `extern type T[A]`) into `mod`."""
        name_token, params, *constructor_nodes = node.children
        name = str(name_token)
        if name in self.type_defs:
            raise self.error(name_token, f"type {name} is defined twice")
        if name in self.type_vars:
            raise self.error(name_token, f"type {name} has the name of a type parameter")
        if name in self.constructors:
            raise self.error(name_token, f"type {name} has the name of a constructor")
        header = GlobalTypeVar(name)
        type_vars = self.type_params(params)
        self.type_defs[name] = TypeData(header, type_vars, [])  # a constructor may name it
        outer, self.type_vars = self.type_vars, {v.name_hint: v for v in type_vars}
        try:
            constructors = []
            for item in present(constructor_nodes):
                ctor_token, *inputs = item.children
                ctor_name = str(ctor_token)
                if ctor_name in self.constructors or ctor_name in self.type_defs:
                    raise self.error(ctor_token, f"constructor {ctor_name} is defined twice")
                types = [self.type(t) for t in present(inputs)]
                constructor = Constructor(ctor_name, types, header)
                self.constructors[ctor_name] = constructor
                constructors.append(constructor)
        finally:
            self.type_vars = outer
        data = TypeData(header, type_vars, constructors)
        self.type_defs[name] = data
        mod[header] = data

    def type_params(self, node: object) -> list[TypeVar]:
        if not isinstance(node, Tree):
            return []
        names = [str(t) for t in present(node.children)]
        for token in present(node.children):
            if names.count(str(token)) > 1:
                raise self.error(token, f"type parameter {token} is declared twice")
        return [TypeVar(n) for n in names]

    def declared_type(self, node: Tree) -> FuncType | None:
        """The type a definition declares (all parameters typed and a return type), or None."""
        _name, type_params, items, ret_type, _body = node.children
        if not isinstance(ret_type, Tree):
            return None
        tvars = self.type_params(type_params)
        outer, self.type_vars = self.type_vars, self.type_vars | {v.name_hint: v for v in tvars}
        try:
            params: list[Type] = []
            for item in present(items.children if isinstance(items, Tree) else []):
                if item.data == "attr":
                    continue
                typ = item.children[1]
                if not isinstance(typ, Tree):
                    return None
                params.append(self.type(typ))
            self.declared_params[str(node.children[0])[1:]] = tvars
            return FuncType(params, self.type(ret_type), tvars)
        finally:
            self.type_vars = outer

    def definition(self, node: Tree) -> Function:
        name_token, type_params, items, ret_type, body = node.children
        assert isinstance(name_token, Token) and isinstance(body, Tree)
        tvars = self.declared_params.get(str(name_token)[1:]) or self.type_params(type_params)
        fn = self.function(node, [items], ret_type, body, Scope(), tvars)
        name = str(name_token)[1:]
        gv = self.global_vars.get(name)
        if gv is None:
            typ = fn.checked_type
            assert isinstance(typ, FuncType)
            self.global_vars[name] = GlobalVar(name, typ)
        return fn

    # -- functions and bodies ----------------------------------------------------------------

    def function(
        self,
        node: Tree,
        item_lists: Sequence[object],
        ret_type: object,
        body: Tree,
        parent: Scope,
        type_params: Sequence[TypeVar] = (),
    ) -> Function:
        """A function from its parameter and attribute items; its type is checked here."""
        outer = self.type_vars
        self.type_vars = outer | {v.name_hint: v for v in type_params}
        try:
            return self.function_in_scope(node, item_lists, ret_type, body, parent, type_params)
        finally:
            self.type_vars = outer

    def function_in_scope(
        self,
        node: Tree,
        item_lists: Sequence[object],
        ret_type: object,
        body: Tree,
        parent: Scope,
        type_params: Sequence[TypeVar],
    ) -> Function:
        scope = Scope(parent)
        params: list[Var] = []
        attrs: dict[str, object] = {}
        for items in present(item_lists):
            for item in present(items.children if items.data == "items" else [items]):
                if item.data == "attr":
                    key, value = self.attr(item)
                    attrs[key] = value
                    continue
                token, typ = item.children
                name = str(token)
                if name in scope.names:
                    raise self.error(token, f"parameter {name} is declared twice")
                param = Var(name[1:], self.annotation(typ))
                scope.names[name] = param
                params.append(param)
        result = self.annotation(ret_type)
        fn = Function(params, self.body(body, scope), result, type_params, attrs=attrs)
        if any(p.type_annotation is None for p in params):
            return fn  # typed where it is used, as TVM's InferType would
        return self.checked(fn, node)  # infers and checks the declared result type

    def body(self, node: Tree, scope: Scope) -> Expr:
        """The body's final expression; `let` bindings wrap it as relay `Let`s."""
        lets: list[tuple[Var, Expr]] = []
        *statements, result = node.children
        for statement in statements:
            assert isinstance(statement, Tree)
            if statement.data == "bind":
                token, value = statement.children
                scope.names[str(token)] = self.expr(value, scope)
                continue
            if statement.data == "sequence":  # `e; rest` is `let %_ = e; rest`
                lets.append((Var("_"), self.expr(statement.children[0], scope)))
                continue
            if statement.data == "free_var":
                token, typ = statement.children
                free = Var(str(token)[1:], self.annotation(typ))
                scope.names[str(token)] = free
                continue
            token, typ, value = statement.children
            bound = self.expr(value, scope)
            var = Var(str(token)[1:], self.annotation(typ))
            if var.type_annotation is None:
                var.bound_value = bound  # typed by its value, as `Let` does
            lets.append((var, bound))
            scope.names[str(token)] = var
        expr = self.expr(result, scope)
        for var, bound in reversed(lets):
            expr = Let(var, bound, expr)
        return expr

    # -- expressions -------------------------------------------------------------------------

    def expr(self, node: object, scope: Scope) -> Expr:
        if isinstance(node, Token):  # a parenthesised expression keeps no tree of its own
            raise self.error(node, f"unexpected '{node}'")
        assert isinstance(node, Tree)
        kind = node.data
        if kind == "local":
            token = node.children[0]
            found = scope.lookup(str(token))
            if found is None:
                raise self.error(token, f"undefined variable {token}")
            return found
        if kind == "global_ref":
            return self.global_var(node.children[0])
        if kind == "number":
            value, dtype = number_value(str(node.children[0]))
            return self.constant(node, value, dtype)
        if kind in ("true", "false"):
            return const(kind == "true")
        if kind == "tuple":
            return Tuple([self.expr(child, scope) for child in present(node.children)])
        if kind == "project":
            return self.project(node, scope)
        if kind == "call":
            return self.call(node, scope)
        if kind == "binary":
            lhs, operator, rhs = node.children
            assert isinstance(operator, Token)
            name = Token.new_borrow_pos("NAME", BINARY_OPERATORS[str(operator)], operator)
            return self.operator_call(name, [self.expr(lhs, scope), self.expr(rhs, scope)], {})
        if kind == "negate":
            operand = self.expr(node.children[0], scope)
            if isinstance(operand, Constant) and operand.data.shape == ():
                return const(-operand.data.numpy(), operand.data.dtype)
            name = Token("NAME", "negative")
            return self.operator_call(name, [operand], {})
        if kind == "if_else":
            cond, then, other = node.children
            assert isinstance(then, Tree) and isinstance(other, Tree)
            return If(
                self.expr(cond, scope),
                self.body(then, Scope(scope)),
                self.body(other, Scope(scope)),
            )
        if kind == "scope":  # `(let %v = e; ...; result)`: bindings local to the parentheses
            return self.body(node, Scope(scope))
        if kind == "function":
            type_params, items, ret_type, *attrs, body = node.children
            assert isinstance(body, Tree)
            tvars = self.type_params(type_params)
            return self.function(node, [items, *attrs], ret_type, body, scope, tvars)
        if kind == "ref_create":
            return RefCreate(self.expr(node.children[0], scope))
        if kind == "match":
            return self.match(node, scope)
        if kind == "op_name" and str(node.children[0]) in self.constructors:
            constructor = self.constructors[str(node.children[0])]
            # a constructor without fields is a value (`Nil`), as TVM's parser reads it
            return constructor if constructor.inputs else Call(constructor, [])
        if kind == "op_name":
            try:
                return Op.get(str(node.children[0]))  # type: ignore[return-value]  (TVM's ir.Op)
            except ValueError:
                raise self.error(node, f"unknown operator '{node.children[0]}'") from None
        if kind == "meta":
            return self.meta_constant(node)
        raise self.error(node, f"unsupported expression '{kind}'")

    def meta_constant(self, node: Tree) -> Constant:
        """The constant `meta[relay.Constant][i]` names in the meta table."""
        return self.meta_entry(node, str(node.children[0]), "relay.Constant")  # type: ignore[return-value]

    def meta_entry(self, where: Tree | Token, text: str, wanted: str) -> object:
        """The entry of the meta table a `meta[<wanted>][i]` reference names."""
        match = META_REFERENCE.fullmatch(text)
        assert match is not None  # the token's own pattern
        kind, index = match.group(1), int(match.group(2))
        if kind != wanted:
            raise self.error(where, f"{text}: only {wanted} meta references are supported here")
        table = self.meta.get(kind, [])
        if index >= len(table):
            raise self.error(
                where,
                f"{text} is not in the meta table ({len(table)} entries of {kind}); the text "
                "needs its #[metadata] section or a meta table given to parse",
            )
        return table[index]

    def constant(self, node: Tree, value: int | float, dtype: str) -> Constant:
        text = str(node.children[0])
        if (
            dtype == "int32"
            and NUMBER_SUFFIX.search(text) is None
            and not -(2**31) <= value < 2**31
        ):
            dtype = "int64"  # an unsuffixed integer too wide for int32, as TVM reads it
        try:
            with np.errstate(over="ignore"):  # an overflow is reported below
                result = const(value, dtype)
        except (ValueError, TypeError, OverflowError) as exc:
            raise self.error(node, f"bad constant {text}: {exc}") from None
        stored = result.data.numpy().item()
        close = isinstance(value, float) and abs(stored - value) <= abs(value) * 1e-3
        if dtype.startswith("float") and abs(value) > float(np.finfo(dtype_name(dtype)).max):
            close = False
        if stored != value and not close:
            raise self.error(node, f"bad constant {text}: not representable as {dtype}")
        return result

    def global_var(self, token: Token) -> GlobalVar:
        gv = self.global_vars.get(str(token)[1:])
        if gv is None and self.open_globals:
            gv = self.global_vars[str(token)[1:]] = GlobalVar(str(token)[1:])
        if gv is None:
            raise self.error(token, f"undefined function {token}")
        return gv

    def project(self, node: Tree, scope: Scope) -> Expr:
        base_node, index_token = node.children
        base = self.expr(base_node, scope)
        index = int(str(index_token))
        if isinstance(base, Call) and getattr(base.op, "name", None) == "nn.dropout" and index == 0:
            return base  # TVM's dropout is a (data, mask) pair; xtvm's is its data alone
        item = TupleGetItem(base, index)
        if not has_type(base):
            return item  # typed where the base's type is known (a pattern variable)
        return self.checked(item, index_token)

    def call(self, node: Tree, scope: Scope) -> Expr:
        callee_node, args_node = node.children
        args: list[Expr] = []
        attrs: dict[str, AttrValue] = {}
        for arg in present(args_node.children if isinstance(args_node, Tree) else []):
            if isinstance(arg, Tree) and arg.data == "attr":
                key, value = self.attr(arg)
                if key in attrs:
                    raise self.error(arg, f"attribute '{key}' is given twice")
                attrs[key] = value
            else:
                args.append(self.expr(arg, scope))
        assert isinstance(callee_node, Tree)
        if callee_node.data == "op_name":
            name = str(callee_node.children[0])
            if name in self.constructors:
                return self.typed(Call(self.constructors[name], args), callee_node)
            if name in ("ref_read", "ref_write"):
                expected = 1 if name == "ref_read" else 2
                if len(args) != expected or attrs:
                    raise self.error(callee_node, f"{name} takes {expected} operand(s)")
                ref = RefRead(args[0]) if name == "ref_read" else RefWrite(args[0], args[1])
                return self.typed(ref, callee_node)
            return self.operator_call(callee_node.children[0], args, attrs)
        callee = self.expr(callee_node, scope)
        if attrs:
            raise self.error(callee_node, "attributes are only accepted by operator calls")
        if not isinstance(callee, GlobalVar | Function | Var | Call):
            raise self.error(callee_node, "only functions and operators can be called")
        call = Call(callee, args)  # type: ignore[arg-type]  (a Var holding a function)
        if self.open_globals or not all(has_type(a) for a in [*args, callee]):
            return call  # an expression is type-checked where it is used, as in TVM
        return self.checked(call, callee_node)

    def checked(self, expr: E, node: Tree | Token) -> E:
        """`expr`, type-checked now: a type error is reported at `node`."""
        try:
            expr.checked_type  # noqa: B018  (inference is the check)
        except RelayTypeError as exc:
            raise self.error(node, str(exc)) from None
        return expr

    def typed(self, expr: Expr, node: Tree) -> Expr:
        """`expr`, type-checked now when its operands' types are known."""
        if all(has_type(c) for c in expr.children()):
            self.checked(expr, node)
        return expr

    def match(self, node: Tree, scope: Scope) -> Match:
        """`match (e) { pattern => body, ... }`; `match?` need not cover every value."""
        partial, data_node, *clause_nodes = node.children
        data = self.expr(data_node, scope)
        clauses = []
        for clause in present(clause_nodes):
            lhs, rhs = clause.children
            inner = Scope(scope)
            pattern = self.pattern(lhs, inner)
            value = self.body(rhs, inner) if rhs.data == "body" else self.expr(rhs, inner)
            clauses.append(Clause(pattern, value))
        return Match(data, clauses, complete=partial is None)

    def pattern(self, node: Tree, scope: Scope) -> Pattern:
        kind = node.data
        if kind == "pattern_var":
            token, typ = node.children
            if str(token) in scope.names:
                raise self.error(token, f"{token} is bound twice in this pattern")
            var = Var(str(token)[1:], self.annotation(typ))
            scope.names[str(token)] = var
            return PatternVar(var)
        if kind == "pattern_tuple":
            return PatternTuple([self.pattern(p, scope) for p in present(node.children)])
        name_token, *subpatterns = node.children
        name = str(name_token)
        if kind == "pattern_name" and name == "_":
            return PatternWildcard()
        constructor = self.constructors.get(name)
        if constructor is None:
            raise self.error(name_token, f"unknown constructor {name} in a pattern")
        return PatternConstructor(constructor, [self.pattern(p, scope) for p in subpatterns])

    def operator_call(
        self, name_token: Token, args: Sequence[Expr], attrs: Mapping[str, AttrValue]
    ) -> Expr:
        """A call of the API function named `name_token`, attributes as keyword arguments."""
        name = str(name_token)
        table = operator_table()
        operator = table.get(name)
        if operator is None:
            close = difflib.get_close_matches(name, list(table), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise self.error(name_token, f"unknown operator '{name}'{hint}")
        renamed = ATTRIBUTE_PARAMETERS.get(name, {})
        attrs = {renamed.get(key, key): value for key, value in attrs.items()}
        positional: list[object] = list(args)
        keywords: dict[str, object] = dict(attrs)
        for position, keyword in sorted(SCALAR_OPERANDS.get(name, {}).items(), reverse=True):
            if position < len(positional):
                keywords[keyword] = self.scalar(name_token, name, positional.pop(position))
        signature = inspect.signature(operator)
        for key in attrs:
            if key not in signature.parameters:
                known = ", ".join(list(signature.parameters)[len(args) :]) or "none"
                raise self.error(
                    name_token, f"'{name}' has no attribute '{key}' (known attributes: {known})"
                )
        try:
            signature.bind(*positional, **keywords)
        except TypeError as exc:
            raise self.error(name_token, f"'{name}': {exc}") from None
        try:
            result = operator(*positional, **keywords)
            # a module is type-checked as it is read (TVM's parser runs InferType on it); an
            # expression is not (TVM's parse_expr leaves that to InferType)
            if not self.open_globals and all(has_type(a) for a in args):
                result.checked_type  # noqa: B018
        except (RelayTypeError, VerifyException, ValueError, TypeError) as exc:
            message = str(exc)
            if not message.startswith(("'", f"{name.split('.')[-1]}:")):
                message = f"'{name}': {message}"  # say which op, unless the API already did
            raise self.error(name_token, message) from None
        return result

    def scalar(self, name_token: Token, name: str, operand: Expr) -> int | float | bool:
        """The number held by a scalar constant operand (see `SCALAR_OPERANDS`)."""
        if not isinstance(operand, Constant) or operand.data.shape != ():
            raise self.error(name_token, f"'{name}': this operand must be a scalar constant")
        return operand.data.numpy().item()

    # -- attributes and types ----------------------------------------------------------------

    def attr(self, node: Tree) -> tuple[str, AttrValue]:
        key, value = node.children
        return str(key), self.value(value)

    def value(self, node: object) -> AttrValue:
        assert isinstance(node, Tree)
        kind = node.data
        if kind == "number":
            return number_value(str(node.children[0]))[0]
        if kind == "string":
            return string_value(node.children[0])  # type: ignore[arg-type]
        if kind == "bare_name":
            return str(node.children[0])
        if kind == "list":
            return [self.value(child) for child in present(node.children)]
        if kind == "meta":
            raise self.error(node, "meta-data attributes are not supported")
        return {"true": True, "false": False, "none": None}[kind]

    def annotation(self, node: object) -> Type | None:
        """A declared type; none when absent or `_` (TVM's incomplete type: inferred)."""
        if not isinstance(node, Tree) or is_incomplete(node):
            return None
        return self.type(node)

    def type(self, node: object) -> Type:
        assert isinstance(node, Tree)
        kind = node.data
        if is_incomplete(node):
            raise self.error(node, "an incomplete type `_` can only be a whole annotation")
        try:
            if kind == "tensor_type":
                shape, dtype = node.children
                assert isinstance(shape, Tree)
                return TensorType(self.shape(shape), dtype_name(str(dtype)))
            if kind == "scalar_type" and str(node.children[0]) in self.type_vars:
                return self.type_vars[str(node.children[0])]
            if kind == "scalar_type" and str(node.children[0]) in self.type_defs:
                return self.type_call(node, str(node.children[0]), [])
            if kind == "scalar_type":
                return TensorType((), dtype_name(str(node.children[0])))
        except ValueError as exc:
            raise self.error(node, str(exc)) from None
        if kind == "type_call":
            name_token, *args = node.children
            return self.type_call(node, str(name_token), [self.type(a) for a in present(args)])
        if kind == "func_type":
            params_node, *rest = node.children
            tvars = self.type_params(params_node)
            outer, self.type_vars = self.type_vars, self.type_vars | {v.name_hint: v for v in tvars}
            try:
                fields = [self.type(child) for child in present(rest)]
            finally:
                self.type_vars = outer
            return FuncType(fields[:-1], fields[-1], tvars)
        fields = [self.type(child) for child in present(node.children)]
        if kind == "ref_type":
            return RefType(fields[0])
        return TupleType(tuple(fields))

    def type_call(self, node: Tree, name: str, args: list[Type]) -> Type:
        data = self.type_defs.get(name)
        if data is None:
            raise self.error(node, f"unknown type {name}")
        if len(args) != len(data.type_vars):
            raise self.error(
                node, f"type {name} takes {len(data.type_vars)} type argument(s), got {len(args)}"
            )
        return TypeCall(data.header, args)

    def shape(self, node: Tree) -> list[int | Any]:
        dims: list[int | Any] = []
        for dim in present(node.children):
            assert isinstance(dim, Token)
            if dim.type == "DYNAMIC":
                dims.append(Any())  # relay.Any()
                continue
            if dim.type == "META":  # a size variable: `meta[tir.SizeVar][i]`
                dims.append(self.meta_entry(dim, str(dim), "tir.SizeVar"))  # type: ignore[arg-type]
                continue
            value = number_value(str(dim))[0]
            if not isinstance(value, int) or value < 0:
                raise self.error(dim, f"a dimension must be a non-negative integer, got {dim}")
            dims.append(value)
        return dims


HOOKS["parse"] = parse
