"""The IR context: loaded dialects, their syntax, and the lark parser composed from them.

Dialects and syntax extensions may be registered by name (`module:attribute`) and imported only
when the text or the IR first needs them, so a tool that reads a `func` file imports neither
llvm nor affine (xDSL translates every op's assembly format when its class is defined, most of
a tool's start-up). The cache entry found by a hash of the registrations (`registration_key`)
says which extension owns which rule and op, and which files the grammar came from.

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
import importlib
import importlib.util
import json
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import lark
from lark import Lark, Token
from lark.exceptions import UnexpectedInput
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Dialect, Operation
from xdsl.irdl import IRDLOperation

from xtvm.ir import cache
from xtvm.ir.diagnostics import DiagnosticError, Location, SourceFile
from xtvm.ir.grammar_cache import cached_lark
from xtvm.ir.lexer import FastContextualLexer
from xtvm.ir.parser import IRBuilder, lark_error_to_diagnostic

if TYPE_CHECKING:
    from xtvm.ir.format import OpFormat

CORE_GRAMMAR = Path(__file__).with_name("core.lark")
# The translation of assembly formats (xtvm.ir.format), imported when an op first needs it.
FORMAT_MODULE = Path(__file__).with_name("format.py")


Callback = Callable[[IRBuilder, list[Any]], Any]


@dataclass
class SyntaxExtension:
    """Hand-written custom syntax a dialect contributes: lark rules plus their callbacks.

    `grammar` adds rules and extends `custom_op` (ops), `type` or `attr` with `%extend`;
    `callbacks` maps rule names to functions `(builder, children) -> object`; `custom_ops` lists
    the ops (classes or names) whose xDSL `print` writes exactly what these rules read.
    `printable`, if given, says of one of those ops whether its custom form keeps everything
    the op holds (else it prints in the generic form); it is asked about no other op. `source`
    is the file `grammar` was read from, which the cache watches.
    """

    grammar: str
    callbacks: Mapping[str, Callback]
    custom_ops: Sequence[type[Operation] | str] = ()
    printable: Callable[[Operation], bool] | None = None
    source: Path | None = None

    @staticmethod
    def from_file(
        path: Path,
        callbacks: Mapping[str, Callback],
        custom_ops: Sequence[type[Operation] | str] = (),
        printable: Callable[[Operation], bool] | None = None,
    ) -> SyntaxExtension:
        return SyntaxExtension(path.read_text(), callbacks, custom_ops, printable, path)

    @property
    def custom_op_names(self) -> list[str]:
        return [op if isinstance(op, str) else op.name for op in self.custom_ops]


def resolve(path: str) -> Any:
    """The object a `module:attribute` path names (importing the module)."""
    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module), attribute)


@dataclass
class SyntaxIndex:
    """What the parser and printer need to know of the composed grammar without importing a
    dialect: the ops with generated syntax, and the extension (by position) owning each custom
    op and rule callback (-1: an op with generated syntax)."""

    syntax_key: str | None
    formats: list[str]
    custom: dict[str, int]
    rules: dict[str, int]


@dataclass
class IRContext:
    """Dialects known to the tools, with their syntax; builds and caches the parser.

    A dialect or extension is held as its object, or as the `module:attribute` path it is
    imported from when first needed (`register_dialect`, `add_extension`).
    """

    allow_unregistered: bool = False
    _dialects: dict[str, Dialect | str] = field(default_factory=dict, init=False, repr=False)
    _extensions: list[SyntaxExtension | str] = field(default_factory=list, init=False, repr=False)
    # every registration in order, by path or as the object given: the registration key
    _registered: list[tuple[str, Dialect | SyntaxExtension | str]] = field(
        default_factory=list, init=False, repr=False
    )
    _lark: Lark | None = field(default=None, init=False, repr=False)
    _xdsl: Context | None = field(default=None, init=False, repr=False)
    _builder: IRBuilder | None = field(default=None, init=False, repr=False)
    _formats: dict[str, OpFormat] = field(default_factory=dict, init=False, repr=False)
    _index: SyntaxIndex | None = field(default=None, init=False, repr=False)
    _custom_ops: CustomOps | None = field(default=None, init=False, repr=False)

    def load_dialect(self, dialect: Dialect, extension: SyntaxExtension | None = None) -> None:
        self._add_dialect(dialect.name, dialect, extension)

    def register_dialect(self, name: str, dialect: str, extension: str | None = None) -> None:
        """Know the dialect `name` without importing it: `dialect` and `extension` (its syntax)
        are `module:attribute` paths, imported when the text or the IR first uses the dialect."""
        self._add_dialect(name, dialect, extension)

    def _add_dialect(
        self, name: str, dialect: Dialect | str, extension: SyntaxExtension | str | None
    ) -> None:
        if name in self._dialects:
            raise ValueError(f"dialect '{name}' is already loaded")
        self._dialects[name] = dialect
        self._registered.append((name, dialect))
        if extension is not None:
            self.add_extension(extension)
        self._lark = None
        self._xdsl = None

    def add_extension(self, extension: SyntaxExtension | str) -> None:
        """Add syntax: a `SyntaxExtension`, or the `module:attribute` path of one."""
        self._extensions.append(extension)
        self._registered.append(("", extension))
        self._lark = None

    @property
    def dialect_names(self) -> list[str]:
        """The names of the known dialects (importing none)."""
        return list(self._dialects)

    def dialect(self, name: str) -> Dialect:
        """The dialect `name`, imported now if it was registered by path."""
        entry = self._dialects[name]
        if isinstance(entry, str):
            entry = resolve(entry)
            if not isinstance(entry, Dialect) or entry.name != name:
                raise ValueError(f"'{self._dialects[name]}' is not the dialect '{name}'")
            self._dialects[name] = entry
        return entry

    @property
    def dialects(self) -> list[Dialect]:
        """Every known dialect (imported now where needed)."""
        return [self.dialect(name) for name in self._dialects]

    def extension(self, position: int) -> SyntaxExtension:
        """The extension at `position`, imported now if it was registered by path."""
        entry = self._extensions[position]
        if isinstance(entry, str):
            entry = resolve(entry)
            if not isinstance(entry, SyntaxExtension):
                raise ValueError(f"'{self._extensions[position]}' is not a syntax extension")
            self._extensions[position] = entry
        return entry

    @property
    def extensions(self) -> list[SyntaxExtension]:
        """Every syntax extension (imported now where needed)."""
        return [self.extension(i) for i in range(len(self._extensions))]

    @property
    def xdsl_context(self) -> Context:
        """The xDSL context of the known dialects (built once per dialect set); a dialect
        registered by path is imported when xDSL first looks up one of its ops or attributes."""
        if self._xdsl is None:
            xdsl = Context(allow_unregistered=self.allow_unregistered)
            for name, entry in self._dialects.items():
                if isinstance(entry, str):
                    xdsl.register_dialect(name, lambda name=name: self.dialect(name))
                else:
                    xdsl.load_dialect(entry)
            self._xdsl = xdsl
        return self._xdsl

    @property
    def custom_ops(self) -> CustomOps:
        """Op classes printed in their custom form (the grammar reads it back)."""
        self.parser()
        assert self._custom_ops is not None
        return self._custom_ops

    def printable(self, op: Operation) -> bool:
        """Whether the custom form of `op` (one of `custom_ops`) keeps everything, as the
        extension that owns it judges."""
        if self._index is None:
            self.parser()
        assert self._index is not None
        owner = self._index.custom.get(op.name, -1)
        if owner < 0:
            return True
        judge = self.extension(owner).printable
        return judge is None or judge(op)

    def operations(self) -> Iterable[type[Operation]]:
        for dialect in self.dialects:
            yield from dialect.operations

    # ------------------------------------------------------------------ grammar

    def grammar(self) -> tuple[str, dict[str, Callback]]:
        """The composed lark grammar and the callbacks of its non-core rules."""
        from xtvm.ir.format import op_format

        callbacks: dict[str, Callback] = {}
        hand_ops: set[str] = set()
        fragments: list[str] = []
        for extension in self.extensions:
            fragments.append(extension.grammar)
            callbacks.update(extension.callbacks)
            hand_ops.update(extension.custom_op_names)

        # Ops with a translatable assembly format: one rule per distinct body, the op names
        # as alternative keyword terminals.
        terminals: dict[str, str] = {}
        bodies: dict[str, list[str]] = {}
        group_rules: set[str] = set()
        self._formats = {}
        for op_type in self.operations():
            if op_type.name in hand_ops or not issubclass(op_type, IRDLOperation):
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

        text = "\n".join([CORE_GRAMMAR.read_text(), *fragments, *lines]) + "\n"
        return text, callbacks

    def syntax_key(self) -> str | None:
        """A hash of everything the composed grammar is derived from, found without composing
        it: the grammar files and fragments, the code that translates assembly formats (ours
        and xDSL's), and every op's name, class, assembly format and module source (files by
        `cache.source_stamp`). None where an op has no module source to hash (a class made
        inside a function): then nothing is cached."""
        sources = self._syntax_sources()
        return None if sources is None else sources[0]

    def _syntax_sources(self) -> tuple[str, list[str]] | None:
        """`syntax_key` and the files it stamps."""
        digest = hashlib.sha256(f"{SYNTAX_FORMAT} {lark.__version__}\n".encode())
        files = [str(path) for path in (CORE_GRAMMAR, Path(__file__), FORMAT_MODULE)]
        for path in files:
            digest.update(cache.source_stamp(path))
        for extension in self.extensions:
            digest.update(extension.grammar.encode())
            custom = extension.custom_op_names
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
            files.append(file)
        return digest.hexdigest(), files

    def registration_key(self) -> str | None:
        """A hash of the registrations, found without importing a dialect: names, paths and
        the files they resolve to; for a dialect given as an object, its ops' names, classes
        and modules; for an extension given as an object, its grammar, rules and ops. None
        where an op has no module source (a class made inside a function)."""
        fields: list[object] = [SYNTAX_FORMAT, lark.__version__]
        for name, entry in self._registered:
            if isinstance(entry, str):
                files = [module_file(entry)]
                fields.append([name, entry, files])
            elif isinstance(entry, SyntaxExtension):
                grammar = hashlib.sha256(entry.grammar.encode()).hexdigest()
                files = [str(entry.source)]
                fields.append([grammar, files, sorted(entry.callbacks), entry.custom_op_names])
            else:
                ops = [(op.name, op.__module__, op.__qualname__) for op in entry.operations]
                if any("<locals>" in op[2] for op in ops):
                    return None
                files = [getattr(sys.modules.get(op[1]), "__file__", None) for op in ops]
                fields.append([name, ops, files])
            if None in files:
                return None
        return hashlib.sha256(json.dumps(fields).encode()).hexdigest()

    def _build_index(self) -> tuple[SyntaxIndex, str | None]:
        """The syntax index, from the loaded dialects and extensions (importing them all), and
        the composed grammar where it had to be composed."""
        sources = self._syntax_sources()
        key = None if sources is None else sources[0]
        formats = read_syntax_index(key) if key is not None else None
        text = None
        if formats is None:
            text, _ = self.grammar()
            formats = sorted(self._formats)
            if key is not None:
                write_syntax_index(key, formats)
        custom: dict[str, int] = dict.fromkeys(formats, -1)
        rules: dict[str, int] = {}
        for position, extension in enumerate(self.extensions):
            custom.update(dict.fromkeys(extension.custom_op_names, position))
            rules.update(dict.fromkeys(extension.callbacks, position))
        index = SyntaxIndex(key, formats, custom, rules)
        registration = self.registration_key()
        if registration is not None and sources is not None:
            files = list(sources[1])
            for extension in self.extensions:
                if extension.source is not None:
                    files.append(str(extension.source))
            files += [module_file(e) for _, e in self._registered if isinstance(e, str)]
            write_registration_index(registration, index, files)
        return index, text

    def _format_callback(self, builder: IRBuilder, children: list[Any]) -> Operation:
        token: Token = children[0]
        name = str(token)
        fmt = self._formats.get(name)
        if fmt is None:
            fmt = self._formats[name] = self._format_of(name)
        return fmt.build(builder, token, children[1:])

    def _format_of(self, name: str) -> OpFormat:
        """The generated syntax of the op `name`, translated when the parser first meets it
        (the grammar came from the cache); its dialect is imported now if need be."""
        from xtvm.ir.format import op_format

        assert self._index is not None
        op_type = self.xdsl_context.get_optional_op(name)
        if self._index.custom.get(name) == -1 and op_type is not None:
            if issubclass(op_type, IRDLOperation):
                fmt = op_format(op_type)
                if fmt is not None:
                    return fmt
        raise KeyError(name)

    def parser(self) -> tuple[Lark, IRBuilder]:
        if self._lark is not None and self._builder is not None:
            return self._lark, self._builder
        registration = self.registration_key()
        index = read_registration_index(registration) if registration is not None else None
        text = None
        if index is None:
            index, text = self._build_index()
        self._index = index
        self._custom_ops = CustomOps(self)
        if text is None:
            self._formats = {}
        grammar: str | Callable[[], str] = (
            text if text is not None else lambda: self.grammar()[0]  # only on a cache miss
        )
        builder_type = type("BoundIRBuilder", (IRBuilder,), {"__getattr__": _rule_callback(self)})
        builder = builder_type(self.xdsl_context)
        builder.allow_unregistered = self.allow_unregistered
        self._lark = cached_lark(
            grammar,
            lexer=FastContextualLexer,
            identity=index.syntax_key,
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


def _rule_callback(ctx: IRContext) -> Callable[[IRBuilder, str], Any]:
    """The builder's rule callbacks, found by name on a rule's first reduction: `fmt_group_*`
    rules (generated from assembly formats) hand their children on, the other `fmt_*` rules
    build an op, and an extension's rule imports that extension (and its dialects) now."""

    def lookup(builder: IRBuilder, name: str) -> Any:
        if name.startswith("fmt_group_"):
            return lambda children: children
        if name.startswith("fmt_"):
            return lambda children: ctx._format_callback(builder, children)
        assert ctx._index is not None
        owner = ctx._index.rules.get(name)
        if owner is None:
            raise AttributeError(name)
        fn = ctx.extension(owner).callbacks[name]
        return lambda children: fn(builder, children)

    return lookup


class CustomOps:
    """The op classes of a context printed in their custom form, found by name: asking about
    a class imports no other dialect."""

    def __init__(self, ctx: IRContext):
        self.ctx = ctx
        self.known: dict[type[Operation], bool] = {}

    def __contains__(self, op_type: object) -> bool:
        found = self.known.get(op_type)  # type: ignore[call-overload]
        if found is None:
            assert self.ctx._index is not None
            name = getattr(op_type, "name", None)
            found = (
                isinstance(name, str)
                and name in self.ctx._index.custom
                and self.ctx.xdsl_context.get_optional_op(name) is op_type
            )
            self.known[op_type] = found  # type: ignore[index]
        return found


def module_file(path: str) -> str | None:
    """The source file of the module a `module:attribute` path names, found without running
    it (its parent packages are imported)."""
    module = path.partition(":")[0]
    loaded = sys.modules.get(module)
    if loaded is not None:
        return getattr(loaded, "__file__", None)
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    return None if spec is None else spec.origin


SYNTAX_FORMAT = 2
# xDSL's assembly formats, which the generated rules follow (imported by xtvm.ir.format).
FORMAT_SOURCES = ("xdsl.irdl.declarative_assembly_format",)


def read_syntax_index(key: str) -> list[str] | None:
    """The names of the ops with generated syntax, as cached for the grammar `key` names."""
    entry = read_entry(f"syntax-{key[:32]}.json", key)
    formats = None if entry is None else entry.get("formats")
    if not isinstance(formats, list) or not all(isinstance(n, str) for n in formats):
        return None
    return formats


def write_syntax_index(key: str, formats: list[str]) -> None:
    cache.write(f"syntax-{key[:32]}.json", json.dumps({"key": key, "formats": formats}).encode())


def read_entry(name: str, key: str) -> dict[str, Any] | None:
    """The JSON object cached as `name` for `key`, or None."""
    raw = cache.read(name)
    if raw is None:
        return None
    try:
        entry = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(entry, dict) or entry.get("key") != key:
        return None
    return entry


def read_registration_index(key: str) -> SyntaxIndex | None:
    """The syntax index cached for the registrations `key` names, if every file it was made
    from is unchanged."""
    entry = read_entry(f"registration-{key[:32]}.json", key)
    if entry is None:
        return None
    try:
        files, syntax_key = entry["files"], entry["syntax_key"]
        formats, custom, rules = entry["formats"], entry["custom"], entry["rules"]
        for path, stamp in files:
            if cache.source_stamp(path).decode() != stamp:
                return None
    except (KeyError, TypeError, ValueError, OSError):
        return None
    fields_ok = (
        isinstance(syntax_key, str)
        and isinstance(formats, list)
        and all(isinstance(n, str) for n in formats)
        and isinstance(custom, dict)
        and isinstance(rules, dict)
        and all(isinstance(v, int) for v in [*custom.values(), *rules.values()])
    )
    return SyntaxIndex(syntax_key, formats, custom, rules) if fields_ok else None


def write_registration_index(key: str, index: SyntaxIndex, files: list[str | None]) -> None:
    try:
        stamps = [[f, cache.source_stamp(f).decode()] for f in dict.fromkeys(files) if f]
    except OSError:
        return
    entry = {
        "key": key,
        "files": stamps,
        "syntax_key": index.syntax_key,
        "formats": index.formats,
        "custom": index.custom,
        "rules": index.rules,
    }
    cache.write(f"registration-{key[:32]}.json", json.dumps(entry).encode())


def _unknown_op(builder: IRBuilder) -> Callable[[Token], Token]:
    def fail(token: Token) -> Token:
        builder.source_token = token
        raise builder.unknown_op_error(token)

    return fail
