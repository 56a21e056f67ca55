"""TVM's `tvm.contrib.cc`: link shared libraries with the system or a cross C compiler.

`lib.export_library("k.so", cc.cross_compiler("aarch64-linux-gnu-gcc"))` links an aarch64
library (of a module built for `llvm -mtriple=aarch64-linux-gnu`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xtvm.backends.toolchain import run_c_compiler


def create_shared(
    output: str,
    objects: str | Sequence[str],
    options: Sequence[str] | None = None,
    cc: str | None = None,
) -> None:
    """Link `objects` into the shared library `output` with `cc` (default `$CC` or gcc)."""
    files = [objects] if isinstance(objects, str) else list(objects)
    # Options that name libraries go after the objects that use them.
    libs = [o for o in options or () if o.startswith("-l")]
    flags = [o for o in options or () if not o.startswith("-l")]
    arguments = ["-shared", "-fPIC", *flags, "-o", output, *files, *libs]
    run_c_compiler(arguments, output, compiler=cc)


def cross_compiler(
    compile_func: str | Callable[..., None],
    options: Sequence[str] | None = None,
    output_format: str = "so",
) -> Callable[..., None]:
    """A linker like `create_shared` that runs `compile_func` (a compiler name such as
    `aarch64-linux-gnu-gcc`, or another linker function) with `options` added."""
    base = list(options or ())

    def link(
        output: str,
        objects: str | Sequence[str],
        options: Sequence[str] | None = None,
        cc: str | None = None,
    ) -> None:
        all_options = [*base, *(options or ())]
        if callable(compile_func):
            compile_func(output, objects, all_options)
        else:
            create_shared(output, objects, all_options, cc=compile_func)

    link.output_format = output_format  # type: ignore[attr-defined]
    return link
