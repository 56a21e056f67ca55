"""C source → shared library → runtime module.

`build_c(module)` renders the kernels, appends the signature metadata as
`const char *xtvm_module_metadata = "...";` (what `load_module` reads, as the LLVM backend
embeds it), compiles with `gcc -O3 -march=native -fopenmp -shared -fPIC` (`CC` overrides the
compiler) into a temporary library and loads it with `load_module`. C sources the kernels'
loops import (`pragma_import_c`, TVM's `s[C].pragma(axis, "import_c", source)`: the extern
functions a tensor intrinsic calls) are compiled into the same library, and so are the
kernels' packed entries (`xtvm.backends.packed`).
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp

from xtvm.backends.c.codegen import imported_sources, render_c
from xtvm.backends.packed import packed_source
from xtvm.backends.toolchain import run_c_compiler
from xtvm.ir.symbols import c_string_literal
from xtvm.runtime.module import METADATA_SYMBOL, Module, load_library, metadata_json, signatures_of

CFLAGS = ("-O3", "-march=native", "-fopenmp", "-shared", "-fPIC", "-std=gnu99")


def compile_c(
    source: str, output: Path, flags: tuple[str, ...] = CFLAGS, extra: Sequence[str] = ()
) -> None:
    """Compile C `source` (and the `extra` sources, each its own translation unit) into the
    shared library `output`."""
    source_path = output.with_suffix(".c")
    source_path.write_text(source)
    extra_paths = []
    for position, text in enumerate(extra):
        path = output.with_name(f"{output.stem}_import{position}.c")
        path.write_text(text)
        extra_paths.append(str(path))
    run_c_compiler([*flags, "-o", str(output), str(source_path), *extra_paths, "-lm"], str(output))


def build_c(module: ModuleOp) -> Module:
    """A runtime module of the tir kernels in `module`, compiled as C; `get_source()` is the C."""
    source = render_c(module)
    signatures = signatures_of(module)
    metadata_text = metadata_json(signatures, status=signatures)
    metadata = f"const char *{METADATA_SYMBOL} = {c_string_literal(metadata_text)};\n"
    with tempfile.TemporaryDirectory(prefix="xtvm-c-") as tmp:
        library = Path(tmp) / "module.so"
        extra = [*imported_sources(module), packed_source(signatures, signatures)]
        compile_c(source + "\n" + metadata, library, extra=extra)
        binary = library.read_bytes()
        loaded = load_library(library)  # dlopen keeps the mapping once the file is gone

    def get_source(fmt: str) -> str:
        if fmt not in ("c", "", "ll"):
            raise ValueError(f"unknown source format '{fmt}' (known: c)")
        return source

    def export(path: Path) -> None:
        path.write_bytes(binary)

    return Module(
        signatures,
        loaded._address,
        keepalive=loaded,
        source=get_source,
        exporter=export,
        type_key="c",
        status=loaded.status_functions,
        last_error=loaded._last_error,
    )
