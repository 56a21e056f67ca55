"""TVM's `tvm.tir.ir_builder`: statements appended in order, `ib.get()` returns them.

ib = tvm.tir.ir_builder.create()
ib.emit(tvm.tir.call_extern("int32", "gemm8x8x8", a.access_ptr("r"), c.access_ptr("w")))
body = ib.get()
"""

from __future__ import annotations

from xtvm.te.expr import PrimExpr
from xtvm.te.stmt import Evaluate, SeqStmt, Stmt


class IRBuilder:
    """Collects statements; an expression emitted is evaluated for its effect (a call)."""

    def __init__(self) -> None:
        self.statements: list[Stmt] = []

    def emit(self, stmt: Stmt | PrimExpr) -> None:
        if isinstance(stmt, PrimExpr):
            stmt = Evaluate(stmt)
        if not isinstance(stmt, Stmt):
            raise TypeError(f"ir_builder.emit: expected a statement or a call, got {stmt!r}")
        self.statements.append(stmt)

    def get(self) -> Stmt:
        return SeqStmt(list(self.statements))


def create() -> IRBuilder:
    return IRBuilder()
