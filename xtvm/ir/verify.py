"""Verification with located diagnostics.

xDSL's `verify()` stops at the first failing op and reports it by reprinting the module; here
every op is verified on its own, and each failure becomes a diagnostic at the op's location
(`file:line:col` of its name in the source, or of the nearest located ancestor).
"""

from __future__ import annotations

from collections.abc import Mapping

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from xtvm.ir.diagnostics import Diagnostic, DiagnosticError, Location, Severity, SourceFile

PREFIX = "Operation does not verify: "
VERIFIER_ERRORS = (VerifyException, DiagnosticException, ValueError)


def op_location(op: Operation, sources: Mapping[str, SourceFile]) -> Location | None:
    """Where `op` was written, or where its nearest located ancestor was."""
    current: Operation | None = op
    while current is not None:
        loc = current.location
        if isinstance(loc, FileLineColLoc):
            name = loc.filename.data
            return Location(sources.get(name), loc.line.data, loc.column.data)
        current = current.parent_op()
    return None


def clean_message(op: Operation, message: str) -> str:
    """MLIR's wording: `'dialect.op' op message`, without xDSL's prefixes."""
    lines = [line.strip() for line in message.split("\n") if line.strip()]
    message = lines[0] if lines else ""
    if message.endswith(":") and len(lines) > 1:
        # IRDL constraint errors give their reason on the next line.
        message = f"{message} {lines[1]}"
    if message.startswith(PREFIX):
        message = message[len(PREFIX) :]
    message = message.replace(f" in operation '{op.name}'", "")
    quoted = f"'{op.name}' op"
    if message.startswith(quoted):
        return message
    for prefix in (f"{op.name}: ", f"Operation {op.name} "):
        if message.startswith(prefix):
            message = message[len(prefix) :]
    if message.startswith("op "):
        message = message[3:]
    return f"{quoted} {message[:1].lower() + message[1:]}"


def verify_diagnostics(root: Operation, sources: Mapping[str, SourceFile]) -> list[Diagnostic]:
    """One error diagnostic per op that fails its own verification.

    Ops nested in a failing op are not verified: their verifiers may read the broken parent
    (func.return reads its function's type) and would only repeat or obscure the first error.
    """
    found: list[Diagnostic] = []
    failed: set[Operation] = set()
    for op in root.walk():
        parent = op.parent_op()
        if parent is not None and parent in failed:
            failed.add(op)
            continue
        try:
            op.verify(verify_nested_ops=False)
        except Exception as exc:
            # xDSL's memref.load/store verifiers raise a bare `Exception` for a user error;
            # a verifier tripping over a malformed op (KeyError, ...) is reported as such.
            if isinstance(exc, VERIFIER_ERRORS) or type(exc) is Exception:
                message = clean_message(op, str(exc))
            else:
                message = f"'{op.name}' op is malformed ({type(exc).__name__}: {exc})"
            failed.add(op)
            found.append(Diagnostic(Severity.ERROR, message, op_location(op, sources)))
    return found


def verify_or_raise(root: Operation, sources: Mapping[str, SourceFile]) -> None:
    diagnostics = verify_diagnostics(root, sources)
    if diagnostics:
        raise DiagnosticError(diagnostics)


def located_error(op: Operation, message: str) -> DiagnosticError:
    """An error at `op`, naming its file so that the tools fill in the source line.

    A pass has no source text; `xtvm-opt` re-anchors a location whose source is set.
    """
    location = op_location(op, {})
    loc = op.location
    if location is not None and isinstance(loc, FileLineColLoc):
        location = Location(SourceFile(loc.filename.data, ""), location.line, location.column)
    return DiagnosticError.at(location, message)
