"""The system C compiler (`CC`, default gcc): one way to run it, to link with it and to report
its failures.

The C backend compiles kernels with it, external codegens their translation units, and the
LLVM backend and the AOT writer link shared libraries with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from xtvm.runtime import native
from xtvm.runtime.native import NativeBuildError


class CompileError(NativeBuildError):
    """The C compiler rejected the generated source, or is missing."""


def run_c_compiler(
    arguments: Sequence[str],
    what: str,
    error: type[Exception] = CompileError,
    compiler: str | None = None,
) -> None:
    """Run `compiler arguments` (default `$CC`); a missing compiler or a failure raises `error`
    naming `what` (`CompileError` unless told)."""
    native.run_c_compiler(arguments, what, error, compiler)


def link_shared(
    path: Path,
    inputs: Sequence[Path],
    libraries: Sequence[str] = (),
    flags: Sequence[str] = (),
    error: type[Exception] = CompileError,
) -> None:
    """Link `inputs` (objects, or sources compiled on the way) into the shared library `path`,
    with `-l` of each of `libraries`, libgomp and libm.

    Inside `export_library(path, fcompile)` the link is `fcompile`'s (a cross compiler's).
    `-Bsymbolic`: the library's calls bind to its own definitions, not to a same-named symbol
    an earlier library made global (a simulator both loaded for a test and linked in here).
    """
    from xtvm.runtime.module import EXPORT_LINKER

    libs = [*(f"-l{lib}" for lib in libraries), "-lgomp", "-lm"]
    fcompile = EXPORT_LINKER.get()
    if fcompile is not None:
        fcompile(str(path), [str(i) for i in inputs], options=[*flags, "-Wl,-Bsymbolic", *libs])
        return
    arguments = [*flags, "-shared", "-Wl,-Bsymbolic", "-o", str(path), *(str(i) for i in inputs)]
    run_c_compiler([*arguments, *libs], str(path), error)


def cached_object(
    source: Path, flags: Sequence[str], error: type[Exception] = CompileError
) -> Path:
    """`source` (a self-contained C file: system headers only) compiled to an object with
    `flags`, kept in the per-user cache (`native.cached_build`): a tuner exports a library per
    candidate, each with the same thread pool and nearly the same packed entries, and
    compiling those was most of a link."""
    return native.cached_build(source, [*flags, "-c"], ".o", str(source), error)
