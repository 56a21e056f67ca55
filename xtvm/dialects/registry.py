"""The dialects every xtvm tool knows, with their syntax extensions.

They are registered by path (`module:attribute`): a dialect's module is imported only when the
text or the IR first uses it, so reading a `func` file imports neither llvm nor affine.
"""

from __future__ import annotations

from functools import cache

from xdsl.ir import Dialect

from xtvm.ir.context import IRContext, resolve

# name -> the path of the dialect
UPSTREAM_DIALECT_PATHS = {
    "builtin": "xdsl.dialects.builtin:Builtin",
    "func": "xdsl.dialects.func:Func",
    "arith": "xdsl.dialects.arith:Arith",
    "math": "xdsl.dialects.math:Math",
    "scf": "xdsl.dialects.scf:Scf",
    "memref": "xdsl.dialects.memref:MemRef",
    "cf": "xdsl.dialects.cf:Cf",
    "affine": "xdsl.dialects.affine:Affine",
    "vector": "xdsl.dialects.vector:Vector",
    "bufferization": "xdsl.dialects.bufferization:Bufferization",
    "llvm": "xdsl.dialects.llvm:LLVM",
}
UPSTREAM_EXTENSIONS = (
    "xtvm.ir.upstream:UPSTREAM_SYNTAX",
    "xtvm.ir.upstream_llvm:LLVM_SYNTAX",
    "xtvm.ir.upstream_affine:AFFINE_SYNTAX",
)
# name -> the paths of the dialect and of its syntax extension
XTVM_DIALECT_PATHS: dict[str, tuple[str, str | None]] = {
    "relay": ("xtvm.dialects.relay:Relay", None),
    "te": ("xtvm.dialects.te:Te", None),
    "tir": ("xtvm.dialects.tir:Tir", "xtvm.dialects.tir:TIR_SYNTAX"),
    "accel": ("xtvm.dialects.accel:Accel", "xtvm.dialects.accel:ACCEL_SYNTAX"),
}


def upstream_dialects() -> list[Dialect]:
    """The upstream (xDSL) dialects every tool knows (importing them all)."""
    return [resolve(path) for path in UPSTREAM_DIALECT_PATHS.values()]


def default_context(allow_unregistered: bool = False) -> IRContext:
    """An IR context that knows the upstream dialects and every xtvm dialect."""
    ctx = IRContext(allow_unregistered=allow_unregistered)
    for name, path in UPSTREAM_DIALECT_PATHS.items():
        ctx.register_dialect(name, path)
    for extension in UPSTREAM_EXTENSIONS:
        ctx.add_extension(extension)
    for name, (path, extension) in XTVM_DIALECT_PATHS.items():
        ctx.register_dialect(name, path, extension)
    return ctx


@cache
def shared_context() -> IRContext:
    """One context for the whole process, for code that runs passes or prints on its own
    (the Python API, build pipelines); tools make their own with the flags they were given."""
    return default_context()
