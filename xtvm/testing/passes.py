"""Helpers for pass tests: run passes with the verifier after each, count ops."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xtvm.ir.printer import print_ir
from xtvm.ir.registry import default_context
from xtvm.ir.verify import verify_diagnostics

CTX = default_context()


def run(module: ModuleOp, *passes: ModulePass) -> ModuleOp:
    """Apply `passes` in order; the module must verify after each (its text on failure)."""
    for p in passes:
        p.apply(CTX.xdsl_context, module)
        assert verify_diagnostics(module, {}) == [], print_ir(module, CTX)
    return module


def count(module: ModuleOp, op_type: type) -> int:
    """How many ops of `op_type` the module holds, nested ones included."""
    return sum(isinstance(op, op_type) for op in module.walk())
