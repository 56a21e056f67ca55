"""Verification with located diagnostics.

xDSL's `verify()` stops at the first failing op and reports it by reprinting the module; here
every op is verified on its own, and each failure becomes a diagnostic at the op's location
(`file:line:col` of its name in the source, or of the nearest located ancestor).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from xdsl.dialects import func
from xdsl.dialects.builtin import FileLineColLoc, IndexType, MemRefType, VectorType
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from xtvm.ir.diagnostics import Diagnostic, DiagnosticError, Location, Severity, SourceFile

PREFIX = "Operation does not verify: "
MAX_BUFFER_BYTES = 1 << 62  # a buffer's byte size must fit in int64 with room to round up
# Walks of the IR recurse once per level of nesting and xDSL's `walk` costs time quadratic in
# the depth; programs nest a few dozen levels, so deeper input is refused at verification.
MAX_NESTING = 1000
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


def too_deep(root: Operation, limit: int = MAX_NESTING) -> Operation | None:
    """The first op nested more than `limit` ops deep below `root`, found without recursion."""
    stack = [(root, 0)]
    while stack:
        op, depth = stack.pop()
        if depth > limit:
            return op
        for region in reversed(op.regions):
            for block in reversed(region.blocks):
                stack.extend((child, depth + 1) for child in reversed(list(block.ops)))
    return None


def verify_diagnostics(root: Operation, sources: Mapping[str, SourceFile]) -> list[Diagnostic]:
    """One error diagnostic per op that fails its own verification.

    Ops nested in a failing op are not verified: their verifiers may read the broken parent
    (func.return reads its function's type) and would only repeat or obscure the first error.
    IR nested deeper than MAX_NESTING is one error at the first op too deep.
    """
    deep = too_deep(root)
    if deep is not None:
        message = f"'{deep.name}' op is nested more than {MAX_NESTING} ops deep (xtvm's limit)"
        return [Diagnostic(Severity.ERROR, message, op_location(deep, sources))]
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
            continue
        oversized = oversized_buffer(op)
        if oversized:
            found.append(Diagnostic(Severity.ERROR, oversized, op_location(op, sources)))
    return found


def element_bytes(typ: Attribute) -> int:
    """The bytes of one element of a memref (index: 8)."""
    if isinstance(typ, VectorType):
        return math.prod(typ.get_shape()) * element_bytes(typ.element_type)
    if isinstance(typ, IndexType):
        return 8
    width = getattr(typ, "bitwidth", 64)
    return max(1, (int(width) + 7) // 8)


def oversized_buffer(op: Operation) -> str | None:
    """Why a memref that `op` defines (a result, or a function argument) cannot exist: the
    byte size of its static dimensions is beyond MAX_BUFFER_BYTES, so `sizeof * n` would
    wrap in the generated code (C: to 4 bytes for memref<4611686018427387905xf32>)."""
    types: list[tuple[str, Attribute]] = [("result", r.type) for r in op.results]
    if isinstance(op, func.FuncOp):
        types += [(f"argument {k}", t) for k, t in enumerate(op.function_type.inputs.data)]
    for what, typ in types:
        if not isinstance(typ, MemRefType):
            continue
        size = element_bytes(typ.element_type) * math.prod(d for d in typ.get_shape() if d >= 0)
        if size > MAX_BUFFER_BYTES:
            return (
                f"'{op.name}' op {what} of type {typ} needs {size} bytes, more than the "
                f"{MAX_BUFFER_BYTES} (2^62) a buffer may have"
            )
    return None


def verify_or_raise(root: Operation, sources: Mapping[str, SourceFile]) -> None:
    diagnostics = verify_diagnostics(root, sources)
    if diagnostics:
        raise DiagnosticError(diagnostics)


def located_error(op: Operation, message: str) -> DiagnosticError:
    """An error at `op`, naming its file so that the tools fill in the source line.

    A pass has no source text; `xtvm-opt` re-anchors a location whose source is set. An op
    created by a pass is located at its nearest located ancestor.
    """
    current: Operation | None = op
    while current is not None and not isinstance(current.location, FileLineColLoc):
        current = current.parent_op()
    if current is None:
        return DiagnosticError.at(None, message)
    loc = current.location
    assert isinstance(loc, FileLineColLoc)
    source = SourceFile(loc.filename.data, "")
    return DiagnosticError.at(Location(source, loc.line.data, loc.column.data), message)


def refuse_multiple_blocks(root: Operation, what: str) -> None:
    """Raise an error at the first op under `root` with a region of several blocks, which
    `what` (a pass or backend that handles structured control flow only) cannot process."""
    for op in root.walk():
        for region in op.regions:
            count = len(region.blocks)
            if count > 1:
                raise located_error(
                    op,
                    f"'{op.name}' op has a region of {count} blocks; {what} handles "
                    "single-block regions only (structured control flow)",
                )


def operation_in_flight(exc: BaseException) -> Operation | None:
    """The op `exc` was raised about: its `op` attribute, else the op the innermost frame of
    the traceback was working on (a local variable holding a located op, `op` preferred).

    A pass or backend that trips over input it does not expect raises a plain Python error;
    this names the op it was processing, so that the error can point at the source.
    """
    op = getattr(exc, "op", None)
    if isinstance(op, Operation):
        return op
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):
        values = dict(frame.f_locals)
        candidates = [values.pop("op", None), *values.values()]
        for value in candidates:
            if isinstance(value, Operation) and op_location(value, {}) is not None:
                return value
    return None


def failure_error(
    exc: BaseException, what: str, sources: Mapping[str, SourceFile]
) -> DiagnosticError:
    """A located error for an exception raised while doing `what` (`pass 'cse' failed`).

    It names the op being processed and points at it; a `RecursionError` reads as input
    nested too deeply, since every walk of the IR recurses once per level of nesting.
    """
    op = operation_in_flight(exc)
    location = op_location(op, sources) if op is not None else None
    on = f" on '{op.name}' op" if op is not None else ""
    if isinstance(exc, RecursionError):
        reason = "the IR is nested too deeply (Python's recursion limit was reached)"
    else:
        reason = str(exc).split("\n")[0] or type(exc).__name__
    return DiagnosticError.at(location, f"{what}{on}: {reason}")
