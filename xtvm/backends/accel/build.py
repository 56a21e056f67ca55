"""Accelerator C → shared library → runtime module, next to a simulator of the target.

`load_simulator(sources, include_dirs)` compiles a C implementation of a target's functions
(a functional simulator, or a driver) into a shared library loaded with RTLD_GLOBAL, so that
kernel libraries loaded afterwards resolve their calls against it; Python reads its counters
through the returned `ctypes.CDLL`. `build_accel(module, target)` renders the kernels with the
target's tables, compiles them as the C backend does (the target header's folder on the include
path) and loads them.
"""

from __future__ import annotations

import ctypes
import hashlib
import tempfile
from collections.abc import Sequence
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp

from xtvm.backends.accel.codegen import render_accel
from xtvm.backends.c.build import CFLAGS, compile_c
from xtvm.ir.symbols import c_string_literal
from xtvm.runtime.module import METADATA_SYMBOL, Module, load_library, metadata_json, signatures_of
from xtvm.target.accel import AccelTarget

SIMULATORS: dict[str, ctypes.CDLL] = {}
SIM_FLAGS = ("-O2", "-shared", "-fPIC", "-std=gnu99")


def include_flags(dirs: Sequence[Path]) -> tuple[str, ...]:
    return tuple(f"-I{d}" for d in dirs)


def load_simulator(
    sources: Sequence[str | Path], include_dirs: Sequence[str | Path] = ()
) -> ctypes.CDLL:
    """The shared library of `sources` (C files), compiled once per process and content."""
    files = [Path(s).resolve() for s in sources]
    dirs = [Path(d).resolve() for d in include_dirs] or sorted({f.parent for f in files})
    text = "\n".join(f'#include "{f}"' for f in files) + "\n"
    key = hashlib.md5((text + "".join(f.read_text() for f in files)).encode()).hexdigest()
    if key in SIMULATORS:
        return SIMULATORS[key]
    directory = Path(tempfile.mkdtemp(prefix="xtvm-sim-"))
    library = directory / "libsim.so"
    compile_c(text, library, (*SIM_FLAGS, *include_flags(dirs)))
    SIMULATORS[key] = ctypes.CDLL(str(library), mode=ctypes.RTLD_GLOBAL)
    return SIMULATORS[key]


def build_accel(module: ModuleOp, target: AccelTarget, simulator: object = None) -> Module:
    """A runtime module of the tir kernels in `module` for `target`; `get_source()` is the C.

    The target's functions must already be loaded (`load_simulator`); `simulator` is kept
    alive with the module.
    """
    source = render_accel(module, target)
    signatures = signatures_of(module)
    metadata_text = metadata_json(signatures, status=signatures)
    metadata = f"const char *{METADATA_SYMBOL} = {c_string_literal(metadata_text)};\n"
    dirs = [target.header.parent] if target.header is not None else []
    with tempfile.TemporaryDirectory(prefix="xtvm-accel-") as tmp:
        library = Path(tmp) / "module.so"
        compile_c(source + "\n" + metadata, library, (*CFLAGS, *include_flags(dirs)))
        loaded = load_library(library)

    def get_source(fmt: str) -> str:
        if fmt not in ("c", "", "ll"):  # "ll": Module.get_source's default
            raise ValueError(f"unknown source format '{fmt}' (known: c)")
        return source

    return Module(
        signatures,
        loaded._address,
        keepalive=(loaded, simulator),
        source=get_source,
        type_key="accel",
        status=loaded.status_functions,
        last_error=loaded._last_error,
    )
