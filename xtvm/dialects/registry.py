"""The dialects every xtvm tool loads, with their syntax extensions."""

from __future__ import annotations

from functools import cache

from xdsl.dialects import (
    affine,
    arith,
    bufferization,
    builtin,
    cf,
    func,
    llvm,
    math,
    memref,
    scf,
    vector,
)

from xtvm.ir.context import IRContext

UPSTREAM_DIALECTS = (
    builtin.Builtin,
    func.Func,
    arith.Arith,
    math.Math,
    scf.Scf,
    memref.MemRef,
    cf.Cf,
    affine.Affine,
    vector.Vector,
    bufferization.Bufferization,
    llvm.LLVM,
)


def default_context(allow_unregistered: bool = False) -> IRContext:
    """An IR context with the upstream dialects and every xtvm dialect loaded."""
    from xtvm.ir.upstream import UPSTREAM_SYNTAX
    from xtvm.ir.upstream_affine import AFFINE_SYNTAX
    from xtvm.ir.upstream_llvm import LLVM_SYNTAX

    ctx = IRContext(allow_unregistered=allow_unregistered)
    for dialect in UPSTREAM_DIALECTS:
        ctx.load_dialect(dialect)
    ctx.add_extension(UPSTREAM_SYNTAX)
    ctx.add_extension(LLVM_SYNTAX)
    ctx.add_extension(AFFINE_SYNTAX)
    for dialect, extension in xtvm_dialects():
        ctx.load_dialect(dialect, extension)
    return ctx


@cache
def shared_context() -> IRContext:
    """One context for the whole process, for code that runs passes or prints on its own
    (the Python API, build pipelines); tools make their own with the flags they were given."""
    return default_context()


def xtvm_dialects() -> list[tuple[builtin.Dialect, object | None]]:
    """xtvm's own dialects that are present in this installation."""
    found: list[tuple[builtin.Dialect, object | None]] = []
    from xtvm.dialects.accel import ACCEL_SYNTAX, Accel
    from xtvm.dialects.relay import Relay
    from xtvm.dialects.te import Te
    from xtvm.dialects.tir import TIR_SYNTAX, Tir

    found.append((Relay, None))
    found.append((Te, None))
    found.append((Tir, TIR_SYNTAX))
    found.append((Accel, ACCEL_SYNTAX))
    return found
