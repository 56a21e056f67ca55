"""TVM's `relay.testing.byoc`: `CcompilerAnnotator`, which marks each add -> subtract ->
multiply chain of a function for the `ccompiler` codegen by hand (compiler_begin on the
chain's inputs, compiler_end on the multiply), as TVM's BYOC tests expect."""

from __future__ import annotations

from typing import Any

from xtvm.api.relay.expr import Call, Var
from xtvm.api.relay.expr_functor import ExprMutator
from xtvm.api.relay.op import tensor
from xtvm.api.relay.op.annotation import compiler_begin, compiler_end

COMPILER = "ccompiler"


class CcompilerAnnotator(ExprMutator):
    """Annotates `multiply(subtract(add(a, b), c), d)` chains for ccompiler.

    Visiting runs from the output: a multiply opens the chain (`state` 1), the add under it
    begins the region at its arguments (`state` 2), and the multiply then ends it. Variables
    read by the subtract or the multiply enter the region through a compiler_begin too.
    """

    def __init__(self) -> None:
        super().__init__()
        self.state = 0

    def _begin_var(self, expr: Any) -> Any:
        visited = self.visit(expr)
        return compiler_begin(visited, COMPILER) if isinstance(visited, Var) else visited

    def visit_call(self, call: Call) -> Any:
        name = getattr(call.op, "name", None)
        if name == "add" and self.state == 1:
            lhs, rhs = [compiler_begin(self.visit(a), COMPILER) for a in call.args]
            self.state = 2
            return tensor.add(lhs, rhs)
        if name == "subtract" and self.state == 1:
            return tensor.subtract(self._begin_var(call.args[0]), self._begin_var(call.args[1]))
        if name == "multiply":
            self.state = 1
            out = tensor.multiply(self._begin_var(call.args[0]), self._begin_var(call.args[1]))
            if self.state == 2:
                out = compiler_end(out, COMPILER)
            self.state = 0
            return out
        return super().visit_call(call)
