"""TVM's error classes (`tvm.error`): what TVM scripts catch.

`TVMError` is a `RuntimeError`, as in TVM. xtvm's schedule primitives raise `ScheduleError`,
which is also a `ValueError` (what they raised before they were TVM's), and `tvm.lower`
re-raises the located diagnostics of its passes as `DiagnosticError`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xtvm.ir.diagnostics import Diagnostic
from xtvm.ir.diagnostics import DiagnosticError as LocatedError


class TVMError(RuntimeError):
    """An error raised by xtvm's TVM API where TVM raises `tvm.error.TVMError`."""


class DiagnosticError(TVMError, LocatedError):
    """A located error of the compiler (a pass or the verifier) met through the TVM API."""

    def __init__(self, diagnostics: Diagnostic | Sequence[Diagnostic]) -> None:
        LocatedError.__init__(self, diagnostics)


class ScheduleError(TVMError, ValueError):
    """A schedule primitive that TVM refuses (a duplicate axis, fusing non-adjacent loops)."""


class OpError(TVMError):
    """An operator used in a way TVM does not allow."""


class OpNotImplemented(OpError, NotImplementedError):
    """What TVM raises for an operator or feature without an implementation."""


class InternalError(TVMError):
    """An unexpected internal error."""


__all__ = [
    "DiagnosticError",
    "InternalError",
    "OpError",
    "OpNotImplemented",
    "ScheduleError",
    "TVMError",
]
