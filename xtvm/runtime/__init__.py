"""Runtime: modules, arrays, devices and reference interpreters.

As `tvm.runtime`: `load_module(path)`, `Module`, `PackedFunc`, `register_func`,
`get_global_func`, `enabled`, the `container` module (loaded on first use, so the
interpreters import nothing they do not need),
and `convert`, which belongs to the TVM face (xtvm/api/convert.py): the package `xtvm`
adds it (`PACKAGE_NAMES` in xtvm/__init__.py).
`set_num_threads(n)` sets the thread count of compiled CPU code (at start `XTVM_NUM_THREADS`,
default all cores).
"""

from __future__ import annotations

import importlib
from typing import Any

_NAMES = {
    "Module": "xtvm.runtime.module",
    "PackedFunc": "xtvm.runtime.module",
    "load_module": "xtvm.runtime.loader",
    "register_func": "xtvm.runtime.registry",
    "get_global_func": "xtvm.runtime.registry",
    "list_global_func_names": "xtvm.runtime.registry",
    "set_num_threads": "xtvm.runtime.threads",
    "enabled": "xtvm.runtime.ndarray",
}


_SUBMODULES = ("container",)


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"xtvm.runtime.{name}")
    if name in _NAMES:
        return getattr(importlib.import_module(_NAMES[name]), name)
    raise AttributeError(f"module 'xtvm.runtime' has no attribute '{name}'")
