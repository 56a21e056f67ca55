"""External codegens (bring your own codegen): partitioned relay functions compiled to C.

After `relay-partition-graph`, `@main` calls `func.func private @tvmgen_default_<compiler>_main_N`
functions carrying `compiler = "<compiler>"` and `global_symbol`. `relay.build` hands each such
function to the codegen registered under its `compiler` attribute, compiles the C it returns
next to the host kernels and calls it from the graph like any kernel. As TVM registers
`relay.ext.<compiler>` as a global function, `register_codegen("name")` also registers the
codegen as the global function `relay.ext.name`.

THE INTERFACE (stable; the `ccompiler`, `dnnl` and `accel` codegens implement it):

    codegen(function: func.FuncOp, target: str) -> ExternalFunction

- `function` is the partitioned relay function (a private copy: the codegen may change it);
  its arguments and results are tensors of static shape. `target` is `relay.build`'s target
  string (the host's, e.g. "llvm").
- The result is an `ExternalFunction`: the C symbol (the function's `global_symbol`), its
  parameters (inputs then outputs), a C translation unit defining
  `void symbol(void *in0, ..., void *out0, ...)` over C-contiguous buffers — the ABI of
  compiled kernels — and what compiling and linking it needs (include dirs, extra C sources,
  `-l` libraries). Every translation unit is compiled on its own with
  `gcc -O3 -march=native -fPIC -fopenmp`, so helpers should be `static`.
- A codegen that cannot take the function raises an error (a located `DiagnosticError` at the
  op it refuses, as the other backends do); `relay.build` lets it through.

    @register_codegen("mycodegen")
    def mycodegen(function: func.FuncOp, target: str) -> ExternalFunction:
        return ExternalFunction(symbol, params, c_source)

`get_codegen(name)` finds a registered codegen; a module `xtvm.backends.external.<name>` is
imported the first time `name` is asked for, so the built-in codegens register themselves
lazily. An unknown name raises `UnknownCodegenError`, listing the registered ones.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from xdsl.dialects import func

from xtvm.runtime.module import Param
from xtvm.runtime.registry import get_global_func, list_global_func_names, register_func

GLOBAL_PREFIX = "relay.ext."


@dataclass(frozen=True)
class ExternalFunction:
    """What a codegen returns for one partitioned function: C source and how to build it."""

    symbol: str
    """The C symbol defined by `c_source`, the function's `global_symbol`."""
    params: list[Param]
    """Inputs then outputs, static shapes: `void symbol(void *in0, ..., void *out0, ...)`."""
    c_source: str
    """A C translation unit defining `symbol`."""
    include_dirs: tuple[str, ...] = ()
    extra_sources: tuple[Path, ...] = ()
    """C files compiled along (e.g. a runtime shipped with the codegen); each once per build."""
    libraries: tuple[str, ...] = ()
    """Libraries linked with `-l` (("dnnl",) is -ldnnl)."""
    description: str = ""
    """What the external module's `get_source()` shows (e.g. a subgraph's JSON); "" is the C."""

    @property
    def source_text(self) -> str:
        return self.description or self.c_source


class Codegen(Protocol):
    def __call__(self, function: func.FuncOp, target: str) -> ExternalFunction: ...


class UnknownCodegenError(LookupError):
    """No codegen is registered under a `compiler` name."""


_CODEGENS: dict[str, Codegen] = {}


def register_codegen(name: str) -> Callable[[Codegen], Codegen]:
    """Register a codegen for `compiler = "name"` (and as the global `relay.ext.name`).

    A second registration under the same name replaces the first.
    """

    def register(codegen: Codegen) -> Codegen:
        _CODEGENS[name] = codegen
        register_func(GLOBAL_PREFIX + name, codegen, override=True)
        return codegen

    return register


def registered_codegens() -> list[str]:
    """The codegen names known: registered ones, `relay.ext.*` functions, and the package's."""
    for module in pkgutil.iter_modules(__path__):
        if not module.name.startswith("_"):
            try:
                importlib.import_module(f"{__name__}.{module.name}")
            except Exception:  # a module that cannot load (its library missing) offers no codegen
                continue
    names = set(_CODEGENS)
    names |= {
        n.removeprefix(GLOBAL_PREFIX)
        for n in list_global_func_names()
        if n.startswith(GLOBAL_PREFIX)
    }
    return sorted(names)


def builtin_codegen(name: str) -> Codegen | None:
    """The codegen registered as `name` by `register_codegen`, importing the package's module
    `name` if need be; None if there is none (global functions are not consulted)."""
    if name not in _CODEGENS and name.isidentifier():
        try:
            importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
    return _CODEGENS.get(name)


def resolve_global(name: str) -> Codegen | None:
    """`relay.ext.<name>` for a codegen not loaded yet (a registry resolver: TVM registers
    its codegens as these global functions when it loads)."""
    return (
        builtin_codegen(name.removeprefix(GLOBAL_PREFIX))
        if name.startswith(GLOBAL_PREFIX)
        else None
    )


def get_codegen(name: str) -> Codegen:
    """The codegen for `compiler = "name"`, importing `xtvm.backends.external.<name>` if need be.

    A function registered with `tvm.register_func("relay.ext.name")` is found too.
    """
    codegen = builtin_codegen(name) or get_global_func(GLOBAL_PREFIX + name, allow_missing=True)
    if codegen is None:
        known = ", ".join(registered_codegens()) or "none"
        raise UnknownCodegenError(f"no external codegen '{name}' is registered (codegens: {known})")
    return codegen


__all__ = [
    "Codegen",
    "ExternalFunction",
    "UnknownCodegenError",
    "builtin_codegen",
    "get_codegen",
    "register_codegen",
    "registered_codegens",
]
