"""`tvm.runtime.load_module`: a shared library written by `export_library`, its kernels
callable, and for a library of `relay.build` `lib["default"](dev)` creating its graph
executor, as TVM's does; for a library of `export_aot`, an executor of its entry point with
the same interface."""

from __future__ import annotations

import weakref
from pathlib import Path

from xtvm.runtime.aot_executor import aot_factory
from xtvm.runtime.graph_executor import factory_of
from xtvm.runtime.module import Module, load_library


def load_module(path: str | Path) -> Module:
    """The module of the library at `path`."""
    module = load_library(path)
    owner = weakref.ref(module)  # no cycle: the module goes when its last user does
    if module.graph_library is not None:
        module.default_factory = lambda: factory_of(owner(), path).create  # type: ignore[arg-type]
    elif module.model_metadata is not None:
        module.default_factory = lambda: aot_factory(owner())
    return module
