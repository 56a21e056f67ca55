"""The C backend: tir kernels rendered as C99 (one walker, per-target tables), compiled with
the system C compiler into a shared library and loaded as a runtime module."""

from xtvm.backends.c.build import build_c, compile_c
from xtvm.backends.c.codegen import CodegenError, CRenderer, render_c
from xtvm.backends.toolchain import CompileError

__all__ = ["CRenderer", "CodegenError", "CompileError", "build_c", "compile_c", "render_c"]
