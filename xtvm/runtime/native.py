"""The system C compiler (`CC`, default gcc) as the runtime uses it: run it (`run_c_compiler`,
which `backends.toolchain` builds on), and build its small C helpers (`runtime/c/*.c`) once.

The thread pool (`threads.py`) and the graph executor's call runner (`call_list.py`) are C
sources shipped with xtvm: the first use compiles one with `$CC` (default gcc) into a shared
library kept in the per-user cache, named by a hash of the source, the compiler and the flags,
so later processes load it without compiling.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from xtvm.ir import cache as user_cache


class NativeBuildError(RuntimeError):
    """A C source of the runtime could not be compiled (no C compiler, or it failed)."""


def run_c_compiler(
    arguments: Sequence[str],
    what: str,
    error: type[Exception] = NativeBuildError,
    compiler: str | None = None,
) -> None:
    """Run `compiler arguments` (default `$CC`, else gcc); a missing compiler or a failure
    raises `error` naming `what`."""
    hint = "" if compiler else " (set CC)"
    compiler = compiler or os.environ.get("CC", "gcc")
    command = [compiler, *arguments]
    try:
        result = subprocess.run(command, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise error(f"no C compiler '{compiler}' to build {what}{hint}") from None
    if result.returncode:
        raise error(f"{' '.join(command)} failed:\n{result.stderr}")


def build_c_library(
    source_path: Path,
    flags: Sequence[str],
    what: str,
    error: type[Exception] = NativeBuildError,
) -> Path:
    """The shared library of `source_path` built with `flags`: from the per-user cache when it
    holds one built from this source, else compiled now (and cached). `what` names it in the
    `error` raised when it cannot be built."""
    return cached_build(source_path, flags, ".so", what, error)


def cached_build(
    source_path: Path,
    arguments: Sequence[str],
    suffix: str,
    what: str,
    error: type[Exception] = NativeBuildError,
) -> Path:
    """`source_path` compiled with `arguments` into a file ending in `suffix` (a shared
    library, or an object with `-c`), kept in the per-user cache under the hash of the source,
    the compiler and the arguments, so that later builds and processes reuse it; without a
    trusted cache, a private copy."""
    source = source_path.read_bytes()
    compiler = os.environ.get("CC", "gcc")
    key = hashlib.sha256(source + compiler.encode() + " ".join(arguments).encode()).hexdigest()
    name = f"{source_path.stem}-{key[:32]}{suffix}"
    if user_cache.read(name) is not None:
        return user_cache.cache_dir() / name
    with tempfile.TemporaryDirectory(prefix="xtvm-native-") as tmp:
        built = Path(tmp) / name
        run_c_compiler([*arguments, "-o", str(built), str(source_path)], what, error)
        data = built.read_bytes()
    cached = user_cache.write(name, data)
    if cached is not None:
        return cached
    private = Path(tempfile.mkdtemp(prefix="xtvm-native-")) / name
    private.write_bytes(data)
    return private
