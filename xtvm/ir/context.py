"""The IR context: loaded dialects, their syntax, and the lark parser composed from them.

The grammar of the whole tool is the core grammar (core.lark: generic form, builtin types and
attributes) plus, for every loaded dialect, the rules generated from its ops' assembly formats
and the rules of its own `.lark` fragment. The composed parser is built once per set of dialects
(and kept in the per-user cache, see `grammar_cache`), so loading a plugin dialect extends the
syntax without editing xtvm.
"""

from __future__ import annotations

import gc
import hashlib
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lark import Lark, Token
from lark.exceptions import UnexpectedInput
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Dialect, Operation
from xdsl.irdl import IRDLOperation

from xtvm.ir.diagnostics import DiagnosticError, Location, SourceFile
from xtvm.ir.format import OpFormat, op_format
from xtvm.ir.grammar_cache import cached_lark
from xtvm.ir.lexer import FastContextualLexer
from xtvm.ir.parser import IRBuilder, lark_error_to_diagnostic

CORE_GRAMMAR = Path(__file__).with_name("core.lark")


Callback = Callable[[IRBuilder, list[Any]], Any]


@dataclass
class SyntaxExtension:
    """Hand-written custom syntax a dialect contributes: lark rules plus their callbacks.

    `grammar` adds rules and extends `custom_op` (ops), `type` or `attr` with `%extend`;
    `callbacks` maps rule names to functions `(builder, children) -> object`; `custom_ops` lists
    the op classes whose xDSL `print` writes exactly what these rules read. `printable`, if
    given, says of an op whether its custom form keeps everything the op holds (else it prints
    in the generic form); it answers True for ops it does not know.
    """

    grammar: str
    callbacks: Mapping[str, Callback]
    custom_ops: Sequence[type[Operation]] = ()
    printable: Callable[[Operation], bool] | None = None

    @staticmethod
    def from_file(
        path: Path,
        callbacks: Mapping[str, Callback],
        custom_ops: Sequence[type[Operation]] = (),
        printable: Callable[[Operation], bool] | None = None,
    ) -> SyntaxExtension:
        return SyntaxExtension(path.read_text(), callbacks, custom_ops, printable)


@dataclass
class IRContext:
    """Dialects known to the tools, with their syntax; builds and caches the parser."""

    dialects: list[Dialect] = field(default_factory=list)
    extensions: list[SyntaxExtension] = field(default_factory=list)
    allow_unregistered: bool = False
    _lark: Lark | None = field(default=None, init=False, repr=False)
    _xdsl: Context | None = field(default=None, init=False, repr=False)
    _builder: IRBuilder | None = field(default=None, init=False, repr=False)
    _formats: dict[str, OpFormat] = field(default_factory=dict, init=False, repr=False)
    _custom_ops: set[type[Operation]] = field(default_factory=set, init=False, repr=False)

    def load_dialect(self, dialect: Dialect, extension: SyntaxExtension | None = None) -> None:
        if any(d.name == dialect.name for d in self.dialects):
            raise ValueError(f"dialect '{dialect.name}' is already loaded")
        self.dialects.append(dialect)
        if extension is not None:
            self.extensions.append(extension)
        self._lark = None
        self._xdsl = None

    def add_extension(self, extension: SyntaxExtension) -> None:
        self.extensions.append(extension)
        self._lark = None

    @property
    def xdsl_context(self) -> Context:
        """The xDSL context of the loaded dialects (built once per dialect set)."""
        if self._xdsl is None:
            self._xdsl = Context(allow_unregistered=self.allow_unregistered)
            for dialect in self.dialects:
                self._xdsl.load_dialect(dialect)
        return self._xdsl

    @property
    def custom_ops(self) -> set[type[Operation]]:
        """Op classes printed in their custom form (the grammar reads it back)."""
        self.parser()
        return self._custom_ops

    def printable(self, op: Operation) -> bool:
        """Whether `op`'s custom form keeps everything (every extension's `printable` agrees)."""
        return all(e.printable(op) for e in self.extensions if e.printable is not None)

    def operations(self) -> Iterable[type[Operation]]:
        for dialect in self.dialects:
            yield from dialect.operations

    # ------------------------------------------------------------------ grammar

    def grammar(self) -> tuple[str, dict[str, Callback]]:
        """The composed lark grammar and the callbacks of its non-core rules."""
        callbacks: dict[str, Callback] = {}
        hand_ops: set[type[Operation]] = set()
        fragments: list[str] = []
        for extension in self.extensions:
            fragments.append(extension.grammar)
            callbacks.update(extension.callbacks)
            hand_ops.update(extension.custom_ops)

        # Ops with a translatable assembly format: one rule per distinct body, the op names
        # as alternative keyword terminals.
        terminals: dict[str, str] = {}
        bodies: dict[str, list[str]] = {}
        group_rules: set[str] = set()
        self._formats = {}
        for op_type in self.operations():
            if op_type in hand_ops or not issubclass(op_type, IRDLOperation):
                continue
            fmt = op_format(op_type)
            if fmt is None:
                continue
            self._formats[op_type.name] = fmt
            terminal = "OPK_" + re.sub(r"\W", "_", op_type.name).upper()
            while terminal in terminals and terminals[terminal] != op_type.name:
                terminal += "_"
            terminals[terminal] = op_type.name
            bodies.setdefault(fmt.body, []).append(terminal)
            group_rules.update(fmt.group_rules)

        lines: list[str] = []
        alternatives: list[str] = []
        for body, names in sorted(bodies.items()):
            rule = "fmt_" + hashlib.md5(body.encode()).hexdigest()[:10]
            lines.append(f"{rule}: ({' | '.join(names)}) {body}")
            alternatives.append(rule)
            callbacks[rule] = self._format_callback
        lines.extend(sorted(group_rules))
        for rule in sorted(r.split(":")[0] for r in group_rules):
            callbacks[rule] = _group_callback
        for terminal, name in sorted(terminals.items()):
            lines.append(f'{terminal}: "{name}"')
        if alternatives:
            lines.append("%extend custom_op: " + "\n    | ".join(alternatives))

        self._custom_ops = hand_ops | {op for op in self.operations() if op.name in self._formats}
        text = "\n".join([CORE_GRAMMAR.read_text(), *fragments, *lines]) + "\n"
        return text, callbacks

    def _format_callback(self, builder: IRBuilder, children: list[Any]) -> Operation:
        token: Token = children[0]
        return self._formats[str(token)].build(builder, token, children[1:])

    def parser(self) -> tuple[Lark, IRBuilder]:
        if self._lark is not None and self._builder is not None:
            return self._lark, self._builder
        text, callbacks = self.grammar()
        bound: dict[str, Any] = {name: _bind(fn) for name, fn in callbacks.items()}
        builder_type = type("BoundIRBuilder", (IRBuilder,), bound)
        builder = builder_type(self.xdsl_context)
        builder.allow_unregistered = self.allow_unregistered
        self._lark = cached_lark(
            text,
            lexer=FastContextualLexer,
            transformer=builder,
            maybe_placeholders=True,
            lexer_callbacks={"OP_NAME": _unknown_op(builder)},
        )
        builder.lexer = self._lark.parser.lexer
        self._builder = builder
        return self._lark, builder

    # ------------------------------------------------------------------ parsing

    def parse(self, text: str, filename: str = "<input>", first_line: int = 1) -> ModuleOp:
        """Parse `text` into a module; errors are raised as located `DiagnosticError`s.

        `first_line` is the line of `text`'s first line in the original file, so a piece of a
        split input file reports the lines of the file.
        """
        lark, builder = self.parser()
        source = SourceFile(filename, text, first_line)
        builder.reset(source)
        padded = "\n" * (first_line - 1) + text
        # Parsing allocates many small objects and frees none: the cyclic collector only
        # costs time here (a quarter of a large parse).
        collecting = gc.isenabled()
        gc.disable()
        try:
            module = lark.parse(padded)
        except UnexpectedInput as exc:
            raise lark_error_to_diagnostic(exc, source) from None
        except RecursionError:
            raise DiagnosticError.at(None, "input is nested too deeply") from None
        except ValueError as exc:
            # Python refuses to convert integers of more than sys.get_int_max_str_digits()
            # digits (4300), which bounds the time a literal can take; no type holds them.
            if "integer string conversion" not in str(exc):
                raise
            limit = sys.get_int_max_str_digits()
            literal = re.search(rf"[0-9]{{{limit + 1},}}", padded)
            if literal is None:
                raise
            line = padded.count("\n", 0, literal.start()) + 1
            column = literal.start() - padded.rfind("\n", 0, literal.start())
            message = f"integer literal has more than {limit} digits"
            raise DiagnosticError.at(Location(source, line, column), message) from None
        finally:
            if collecting:
                gc.enable()
        return module


def _bind(fn: Callback) -> Callable[[IRBuilder, list[Any]], Any]:
    """A rule callback as a method of the builder class lark calls."""

    def method(self: IRBuilder, children: list[Any]) -> Any:
        return fn(self, children)

    return method


def _group_callback(builder: IRBuilder, children: list[Any]) -> list[Any]:
    return children


def _unknown_op(builder: IRBuilder) -> Callable[[Token], Token]:
    def fail(token: Token) -> Token:
        builder.source_token = token
        raise builder.unknown_op_error(token)

    return fail
