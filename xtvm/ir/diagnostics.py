"""Located diagnostics: `file:line:col: error: message`, the source line and a caret.

Every error a user can cause (malformed text, unknown names, verifier and pass failures) is
raised as a `DiagnosticError` carrying one or more `Diagnostic`s; the tools render them and exit
1. Positions are kept as (line, column) in the original file, also for split input files.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum


class Severity(Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"
    REMARK = "remark"


@dataclass(frozen=True)
class SourceFile:
    """The text of one input, with the line offset of its first line in the original file."""

    name: str
    text: str
    first_line: int = 1

    def line_text(self, line: int) -> str | None:
        """The text of `line` (numbered as in the original file), or None if out of range."""
        index = line - self.first_line
        lines = self.text.split("\n")
        if 0 <= index < len(lines):
            return lines[index]
        return None


@dataclass(frozen=True)
class Location:
    """A point in a source file; `line` and `column` are 1-based, as in the original file."""

    source: SourceFile | None
    line: int
    column: int

    @property
    def filename(self) -> str:
        return self.source.name if self.source else "<unknown>"


@dataclass
class Diagnostic:
    """One message with a severity and an optional location, plus attached notes."""

    severity: Severity
    message: str
    location: Location | None = None
    notes: list[Diagnostic] = field(default_factory=list)

    def render(self, show_source: bool = True) -> str:
        head = f"{self.severity.value}: {self.message}"
        out: list[str] = []
        loc = self.location
        if loc is None:
            out.append(head)
        else:
            out.append(f"{loc.filename}:{loc.line}:{loc.column}: {head}")
            text = loc.source.line_text(loc.line) if loc.source else None
            if show_source and text is not None:
                out.append(text)
                caret_pad = "".join(c if c == "\t" else " " for c in text[: loc.column - 1])
                out.append(caret_pad + "^")
        out.extend(note.render(show_source) for note in self.notes)
        return "\n".join(out)


class DiagnosticError(Exception):
    """An error meant for the user: it renders as located diagnostics, never as a traceback."""

    def __init__(self, diagnostics: Diagnostic | Sequence[Diagnostic]):
        self.diagnostics = (
            [diagnostics] if isinstance(diagnostics, Diagnostic) else list(diagnostics)
        )
        super().__init__(self.render(show_source=False))

    @classmethod
    def at(cls, location: Location | None, message: str) -> DiagnosticError:
        return cls(Diagnostic(Severity.ERROR, message, location))

    def render(self, show_source: bool = True) -> str:
        return "\n".join(d.render(show_source) for d in self.diagnostics)


class Remark(UserWarning):
    """A pass did less than it could and says why (a loop left rolled): not an error.

    Passes raise it with `warnings.warn`; `op` is the op it is about, so that the tools render
    it as a located `remark:` (and `--verify-diagnostics` can expect it).
    """

    def __init__(self, message: str, op: object | None = None) -> None:
        super().__init__(message)
        self.op = op
