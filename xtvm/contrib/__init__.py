"""TVM's `tvm.contrib`: `from xtvm.contrib import graph_executor`; its modules also load on
first attribute access (`tvm.contrib.graph_executor.create(...)`), as TVM scripts use them."""

from __future__ import annotations

import importlib
from types import ModuleType

SUBMODULES = ("cblas", "cc", "cudnn", "debugger", "graph_executor", "nvcc", "utils")


def __getattr__(name: str) -> ModuleType:
    if name in SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
