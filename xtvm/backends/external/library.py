"""The external functions of a build as object code, a JIT library and link inputs.

`compile_external(functions)` compiles every codegen's translation unit (and each extra source
once) to an object with `gcc -c -O3 -march=native -fPIC -fopenmp` (`CC` overrides the
compiler), links the objects into a temporary shared library that the JIT path loads, and keeps
the objects and `-l` libraries so that `export_library` and the AOT library link them into
theirs. The runtime module it makes (`type_key` "external") is what `lib.imported_modules`
holds; its `get_source()` shows each codegen's description.
"""

from __future__ import annotations

import ctypes
import os
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from xtvm.backends.external import ExternalFunction
from xtvm.backends.toolchain import CompileError, link_shared, run_c_compiler
from xtvm.ir.symbols import symbol_error
from xtvm.runtime.module import Module, Param

CFLAGS = ("-O3", "-march=native", "-fPIC", "-fopenmp", "-std=gnu99")


def compile_object(source: Path, output: Path, include_dirs: Sequence[str] = ()) -> None:
    """Compile the C file `source` into the object `output`."""
    includes = [f"-I{d}" for d in include_dirs]
    run_c_compiler([*CFLAGS, *includes, "-c", "-o", str(output), str(source)], str(source))


@dataclass
class ExternalLibrary:
    """The compiled external functions of one build."""

    functions: list[ExternalFunction]
    objects: dict[str, bytes]  # file name -> object code
    libraries: tuple[str, ...]
    module: Module  # the JIT library, callable by symbol

    @property
    def signatures(self) -> dict[str, list[Param]]:
        return {f.symbol: list(f.params) for f in self.functions}

    def write_objects(self, directory: Path) -> list[Path]:
        """Write the objects into `directory`; their paths, for a link command."""
        paths: list[Path] = []
        for name, code in self.objects.items():
            paths.append(directory / name)
            paths[-1].write_bytes(code)
        return paths


def compile_external(functions: Sequence[ExternalFunction]) -> ExternalLibrary:
    """Compile and load `functions`; each symbol must be a C identifier, and unique (codegens
    check theirs with a location; this is the check no codegen can skip)."""
    seen: set[str] = set()
    for f in functions:
        problem = symbol_error(f.symbol, "external function symbol")
        if problem is not None:
            raise CompileError(problem)
        if f.symbol in seen:
            raise CompileError(f"two external functions define the symbol '{f.symbol}'")
        seen.add(f.symbol)
    libraries = tuple(dict.fromkeys(lib for f in functions for lib in f.libraries))
    with tempfile.TemporaryDirectory(prefix="xtvm-external-") as tmp:
        directory = Path(tmp)
        jobs: list[tuple[Path, Path, tuple[str, ...]]] = []
        for k, f in enumerate(functions):
            source = directory / f"external{k}_{f.symbol}.c"
            source.write_text(f.c_source)
            jobs.append((source, source.with_suffix(".o"), f.include_dirs))
        extra: dict[Path, tuple[str, ...]] = {}
        for f in functions:
            for path in f.extra_sources:
                extra[Path(path).resolve()] = extra.get(Path(path).resolve(), ()) + f.include_dirs
        for k, (path, includes) in enumerate(extra.items()):
            jobs.append(
                (path, directory / f"extra{k}_{path.stem}.o", tuple(dict.fromkeys(includes)))
            )
        with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
            list(pool.map(lambda job: compile_object(*job), jobs))
        objects = {output.name: output.read_bytes() for _, output, _ in jobs}
        library_path = directory / "external.so"
        link_shared(library_path, [output for _, output, _ in jobs], libraries)
        library = ctypes.CDLL(str(library_path))  # dlopen keeps the mapping once the file goes

    def address(name: str) -> int:
        return ctypes.cast(getattr(library, name), ctypes.c_void_p).value or 0

    def source(fmt: str) -> str:
        return "\n".join(f.source_text.rstrip() + "\n" for f in functions)

    signatures = {f.symbol: list(f.params) for f in functions}
    module = Module(signatures, address, keepalive=library, source=source, type_key="external")
    return ExternalLibrary(list(functions), objects, libraries, module)
