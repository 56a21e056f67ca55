"""xtvm: a deep-learning compiler stack in the MLIR style, built on xDSL.

`import xtvm as tvm` gives TVM's Python surface: `tvm.relay`, `tvm.te`, `tvm.autotvm`,
`tvm.lower`, `tvm.transform`, `tvm.nd`, `tvm.IRModule`, `tvm.cpu`, `tvm.ir.structural_equal`,
... Those names live in `xtvm.api` and are loaded on first use, so tools that do not need them
start fast; `import xtvm.relay` and `from xtvm.relay import transform` work as well. xtvm's own
packages that double as TVM's modules (`tvm.ir`, `tvm.target`, `tvm.runtime`, `tvm.topi`,
`tvm.testing`, `tvm.contrib`) are likewise imported on first access.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType
from typing import Any

from xtvm.ir.version import TVM_VERSION as __version__  # noqa: F401

# Public module name -> the module that implements it.
API_MODULES = {
    "error": "xtvm.ir.errors",
    "_ffi": "xtvm.api._ffi",
    "relay": "xtvm.api.relay",
    "transform": "xtvm.api.transform",
    "nd": "xtvm.runtime.ndarray",
    "parser": "xtvm.api.parser",
    "tir": "xtvm.api.tir",
    "autotvm": "xtvm.tuning",
}
# Public attribute -> (module, name).
API_NAMES = {
    "IRModule": ("xtvm.api.ir_module", "IRModule"),
    "cpu": ("xtvm.runtime.ndarray", "cpu"),
    "cuda": ("xtvm.runtime.ndarray", "cuda"),
    "device": ("xtvm.runtime.ndarray", "Device"),
    "lower": ("xtvm.api.build", "lower"),
    "build": ("xtvm.api.build", "build"),
    "register_func": ("xtvm.runtime.registry", "register_func"),
    "get_global_func": ("xtvm.runtime.registry", "get_global_func"),
    "TVMError": ("xtvm.ir.errors", "TVMError"),
}
# xtvm packages that are also TVM's module of that name.
SUBPACKAGES = ("ir", "target", "runtime", "topi", "testing", "contrib", "rpc", "te")


def _target(fullname: str) -> str | None:
    """The implementing module of an aliased name such as `xtvm.relay.transform`."""
    head, _, rest = fullname.removeprefix(f"{__name__}.").partition(".")
    if not fullname.startswith(f"{__name__}.") or head not in API_MODULES:
        return None
    return API_MODULES[head] + (f".{rest}" if rest else "")


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Makes `xtvm.relay[...]` the very module object `xtvm.api.relay[...]`."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if _target(fullname) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        real = _target(spec.name)
        assert real is not None
        return importlib.import_module(real)

    def exec_module(self, module: ModuleType) -> None:
        pass


sys.meta_path.insert(0, _AliasFinder())


def __getattr__(name: str) -> Any:
    if name in API_MODULES or name in SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in API_NAMES:
        module, attr = API_NAMES[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'xtvm' has no attribute '{name}'")
