"""The IR context: loaded dialects, their syntax, and the lark parser composed from them.

The grammar of the whole tool is the core grammar (core.lark: generic form, builtin types and
attributes) plus, for every loaded dialect, the rules generated from its ops' assembly formats
and the rules of its own `.lark` fragment. The composed parser is built once per set of dialects
(and kept in the per-user cache, see `grammar_cache`), so loading a plugin dialect extends the
syntax without editing xtvm. The cache is found by a hash of the grammar's sources
(`IRContext.syntax_key`), so a tool that finds it composes nothing: it translates the assembly
format of an op only when the parser first meets that op.
"""

from __future__ import annotations

import gc
import hashlib
import json
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import lark
from lark import Lark, Token
from lark.exceptions import UnexpectedInput
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Dialect, Operation
from xdsl.irdl import IRDLOperation

from xtvm.ir import cache
from xtvm.ir import format as format_module
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
        lines.extend(sorted(group_rules))
        for terminal, name in sorted(terminals.items()):
            lines.append(f'{terminal}: "{name}"')
        if alternatives:
            lines.append("%extend custom_op: " + "\n    | ".join(alternatives))

        self._custom_ops = hand_ops | {op for op in self.operations() if op.name in self._formats}
        text = "\n".join([CORE_GRAMMAR.read_text(), *fragments, *lines]) + "\n"
        return text, callbacks

    def syntax_key(self) -> str | None:
        """A hash of everything the composed grammar is derived from, found without composing
        it: the grammar files and fragments, the code that translates assembly formats (ours
        and xDSL's), and every op's name, class, assembly format and module source (files by
        `cache.source_stamp`). None where an op has no module source to hash (a class made
        inside a function): then nothing is cached."""
        digest = hashlib.sha256(f"{SYNTAX_FORMAT} {lark.__version__}\n".encode())
        for path in (CORE_GRAMMAR, Path(__file__), Path(format_module.__file__)):
            digest.update(cache.source_stamp(path))
        for extension in self.extensions:
            digest.update(extension.grammar.encode())
            custom = [(op.__module__, op.__qualname__) for op in extension.custom_ops]
            digest.update(repr((sorted(extension.callbacks), custom)).encode())
        modules = dict.fromkeys(FORMAT_SOURCES)
        for op in self.operations():
            if "<locals>" in op.__qualname__:
                return None
            fmt = getattr(op, "assembly_format", None)
            digest.update(repr((op.name, op.__module__, op.__qualname__, fmt)).encode())
            digest.update(repr(issubclass(op, IRDLOperation)).encode())
            modules[op.__module__] = None
        for name in modules:
            file = getattr(sys.modules.get(name), "__file__", None)
            if file is None:
                return None
            try:
                digest.update(cache.source_stamp(file))
            except OSError:
                return None
        return digest.hexdigest()

    def _format_callback(self, builder: IRBuilder, children: list[Any]) -> Operation:
        token: Token = children[0]
        name = str(token)
        fmt = self._formats.get(name)
        if fmt is None:
            fmt = self._formats[name] = self._format_of(name)
        return fmt.build(builder, token, children[1:])

    def _format_of(self, name: str) -> OpFormat:
        """The generated syntax of the op `name`, translated when the parser first meets it
        (the grammar came from the cache)."""
        hand_ops = {op for e in self.extensions for op in e.custom_ops}
        for op_type in self.operations():
            if op_type.name == name and op_type not in hand_ops:
                fmt = op_format(op_type)  # type: ignore[arg-type]
                if fmt is not None:
                    return fmt
        raise KeyError(name)

    def parser(self) -> tuple[Lark, IRBuilder]:
        if self._lark is not None and self._builder is not None:
            return self._lark, self._builder
        key = self.syntax_key()
        formats = read_syntax_index(key) if key is not None else None
        if formats is None:
            text, callbacks = self.grammar()
            formats = sorted(self._formats)
            if key is not None:
                write_syntax_index(key, formats)
            grammar: str | Callable[[], str] = text
        else:
            callbacks = {}
            hand_ops: set[type[Operation]] = set()
            for extension in self.extensions:
                callbacks.update(extension.callbacks)
                hand_ops.update(extension.custom_ops)
            known = set(formats)
            self._formats = {}
            self._custom_ops = hand_ops | {op for op in self.operations() if op.name in known}
            grammar = lambda: self.grammar()[0]  # noqa: E731  (only on a cache miss)
        bound: dict[str, Any] = {name: _bind(fn) for name, fn in callbacks.items()}
        bound["__getattr__"] = _generated_rule_callback(self)
        builder_type = type("BoundIRBuilder", (IRBuilder,), bound)
        builder = builder_type(self.xdsl_context)
        builder.allow_unregistered = self.allow_unregistered
        self._lark = cached_lark(
            grammar,
            lexer=FastContextualLexer,
            identity=key,
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


def _generated_rule_callback(ctx: IRContext) -> Callable[[IRBuilder, str], Any]:
    """The builder's callbacks of the rules generated from assembly formats, found by name:
    `fmt_group_*` rules hand their children on, the other `fmt_*` rules build an op."""

    def lookup(builder: IRBuilder, name: str) -> Any:
        if name.startswith("fmt_group_"):
            return lambda children: children
        if name.startswith("fmt_"):
            return lambda children: ctx._format_callback(builder, children)
        raise AttributeError(name)

    return lookup


SYNTAX_FORMAT = 1
# xDSL's assembly formats, which the generated rules follow (imported by xtvm.ir.format).
FORMAT_SOURCES = ("xdsl.irdl.declarative_assembly_format",)


def read_syntax_index(key: str) -> list[str] | None:
    """The names of the ops with generated syntax, as cached for the grammar `key` names."""
    raw = cache.read(f"syntax-{key[:32]}.json")
    if raw is None:
        return None
    try:
        entry = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(entry, dict) or entry.get("key") != key:
        return None
    formats = entry.get("formats")
    if not isinstance(formats, list):
        return None
    if not all(isinstance(name, str) for name in formats):
        return None
    return formats


def write_syntax_index(key: str, formats: list[str]) -> None:
    cache.write(f"syntax-{key[:32]}.json", json.dumps({"key": key, "formats": formats}).encode())


def _unknown_op(builder: IRBuilder) -> Callable[[Token], Token]:
    def fail(token: Token) -> Token:
        builder.source_token = token
        raise builder.unknown_op_error(token)

    return fail
