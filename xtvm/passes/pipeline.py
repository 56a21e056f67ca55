"""Pass pipelines: `a{opt=1},b` and MLIR's nested `builtin.module(func.func(a),b)`, parsed
against the registry with located, suggesting errors.

    pipeline ::= element (`,` element)*
    element  ::= anchor `(` pipeline? `)`          (an op name: builtin.module, func.func, ...)
               | pass-name (`{` option* `}`)?
    option   ::= key (`=` value (`,` value)*)?      (options separated by spaces)
    value    ::= "quoted string" | bare             (bare: up to a space, `,`, `{` or `}`)

A bare value is a bool (`true`, `false`), an integer, a float, or else a string, so paths need
no quotes (`relay-print-dot{output=out/g.dot}`).
"""

from __future__ import annotations

import difflib
import re
import typing
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, fields

from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import ArgSpec, ParameterType

from xtvm.ir.diagnostics import DiagnosticError, Location, SourceFile
from xtvm.passes import PassLoader


def did_you_mean(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    if close:
        return "; did you mean " + " or ".join(f"'{c}'" for c in close) + "?"
    return "; known: " + ", ".join(sorted(known))


def option_fields(pass_type: type[ModulePass]) -> list[tuple[str, str, str]]:
    """(option name in kebab-case, type, default) for each option of a pass."""
    hints = typing.get_type_hints(pass_type)
    rows = []
    for f in fields(pass_type):
        if f.name == "name":
            continue
        if f.default is not MISSING:
            default = repr(f.default)
        elif f.default_factory is not MISSING:
            default = repr(f.default_factory())
        else:
            default = "required"
        hint = hints.get(f.name, f.type)
        type_name = getattr(hint, "__name__", None) or str(hint).replace("typing.", "")
        rows.append((f.name.replace("_", "-"), type_name, default))
    return rows


@dataclass
class Nest:
    """Passes nested under an op name: they run on each op of that name directly inside the
    module they are given (see `xtvm.tools.opt`)."""

    anchor: str
    items: list[PipelineItem]

    @property
    def name(self) -> str:
        return f"{self.anchor}({','.join(item.name for item in self.items)})"


PipelineItem = ModulePass | Nest

NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*")
BARE = re.compile(r'[^\s,{}"]+')
QUOTED = re.compile(r'"((?:\\.|[^"\\\n])*)"')
INT = re.compile(r"[-+]?[0-9]+")
FLOAT = re.compile(r"[-+]?([0-9]+\.[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?|[-+]?[0-9]+[eE][-+]?[0-9]+")
ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


def bare_value(text: str) -> ParameterType:
    if text in ("true", "false"):
        return text == "true"
    if INT.fullmatch(text):
        return int(text)
    if FLOAT.fullmatch(text):
        return float(text)
    return text


class PipelineParser:
    """Recursive descent over one pipeline text; `origin` names it in errors (`-p`, ...)."""

    def __init__(self, text: str, origin: str, registry: Mapping[str, PassLoader]) -> None:
        self.text = text
        self.pos = 0
        self.source = SourceFile(origin, text)
        self.registry = registry

    def error(self, message: str, pos: int | None = None) -> DiagnosticError:
        at = self.pos if pos is None else pos
        line = self.text.count("\n", 0, at) + 1
        column = at - (self.text.rfind("\n", 0, at) + 1) + 1
        return DiagnosticError.at(Location(self.source, line, column), message)

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        self.skip_space()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, char: str, what: str) -> None:
        if self.peek() != char:
            found = f"'{self.peek()}'" if self.peek() else "the end"
            raise self.error(f"expected '{char}' {what}, found {found}")
        self.pos += 1

    def parse(self) -> list[PipelineItem]:
        if not self.peek():
            raise self.error("empty pass pipeline")
        items = self.pipeline()
        if self.peek():
            raise self.error(f"expected ',' or the end of the pipeline, found '{self.peek()}'")
        return items

    def pipeline(self) -> list[PipelineItem]:
        items = [self.element()]
        while self.peek() == ",":
            self.pos += 1
            items.append(self.element())
        return items

    def element(self) -> PipelineItem:
        self.skip_space()
        start = self.pos
        match = NAME.match(self.text, self.pos)
        if match is None:
            found = f"'{self.peek()}'" if self.peek() else "the end"
            raise self.error(f"expected a pass or op name, found {found}")
        self.pos = match.end()
        name = match.group()
        if self.peek() == "(":
            self.pos += 1
            items = [] if self.peek() == ")" else self.pipeline()
            self.expect(")", f"to close '{name}('")
            return Nest(name, items)
        options: dict[str, tuple[ParameterType, ...]] = {}
        option_at: dict[str, int] = {}
        if self.peek() == "{":
            self.pos += 1
            while self.peek() not in ("}", ""):
                key_match = KEY.match(self.text, self.pos)
                if key_match is None:
                    raise self.error(f"expected an option name, found '{self.peek()}'")
                key = key_match.group()
                if key in options:
                    raise self.error(f"option '{key}' is given twice", self.pos)
                option_at[key] = self.pos
                self.pos = key_match.end()
                values: list[ParameterType] = []
                if self.pos < len(self.text) and self.text[self.pos] == "=":
                    self.pos += 1
                    values.append(self.value(key))
                    while self.pos < len(self.text) and self.text[self.pos] == ",":
                        self.pos += 1
                        values.append(self.value(key))
                options[key] = tuple(values)
            self.expect("}", f"to close the options of '{name}'")
        return self.instantiate(name, start, options, option_at)

    def value(self, key: str) -> ParameterType:
        quoted = QUOTED.match(self.text, self.pos)
        if quoted is not None:
            self.pos = quoted.end()
            return re.sub(r"\\(.)", lambda m: ESCAPES.get(m.group(1), m.group(1)), quoted[1])
        if self.text.startswith('"', self.pos):
            raise self.error("unterminated string")
        bare = BARE.match(self.text, self.pos)
        if bare is None:
            raise self.error(f"expected a value for option '{key}'")
        self.pos = bare.end()
        return bare_value(bare.group())

    def instantiate(
        self,
        name: str,
        at: int,
        options: dict[str, tuple[ParameterType, ...]],
        option_at: dict[str, int],
    ) -> ModulePass:
        loader = self.registry.get(name)
        if loader is None:
            raise self.error(
                f"unknown pass '{name}'" + did_you_mean(name, sorted(self.registry)), at
            )
        pass_type = loader()
        known = [option for option, _, _ in option_fields(pass_type)]
        for given in options:
            if given.replace("_", "-") not in known:
                hint = did_you_mean(given, known) if known else "; it takes no options"
                message = f"unknown option '{given}' for pass '{name}'{hint}"
                raise self.error(message, option_at[given])
        try:
            return pass_type.from_pass_spec(ArgSpec(name, options))
        except Exception as exc:
            raise self.error(f"invalid options for pass '{name}': {exc}", at) from None


def parse_pipeline(
    spec: str, registry: Mapping[str, PassLoader], origin: str = "pass-pipeline"
) -> list[PipelineItem]:
    """The items of a pipeline text: passes and `anchor(...)` nests, in order."""
    return PipelineParser(spec, origin, registry).parse()


def parse_passes(spec: str, registry: Mapping[str, PassLoader]) -> list[ModulePass]:
    """The passes of a flat pipeline string (no `anchor(...)` nests)."""
    passes: list[ModulePass] = []
    for item in parse_pipeline(spec, registry):
        if isinstance(item, Nest):
            raise DiagnosticError.at(None, f"'{item.anchor}(...)' nests are not allowed here")
        passes.append(item)
    return passes
