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

# Public module name -> the module that implements it.
API_MODULES = {
    "error": "xtvm.ir.errors",
    "_ffi": "xtvm.api._ffi",
    "relay": "xtvm.api.relay",
    "transform": "xtvm.api.transform",
    "nd": "xtvm.runtime.ndarray",
    "container": "xtvm.runtime.container",
    "parser": "xtvm.api.parser",
    "tir": "xtvm.api.tir",
    "autotvm": "xtvm.tuning",
    "auto_scheduler": "xtvm.tuning.auto_scheduler",
    # TVM's module inside a package that is xtvm's own (`tvm.driver` is xtvm.driver).
    "driver.build_module": "xtvm.api.build",
    "ir.module": "xtvm.api.ir_module",
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
# TVM's names in TVM modules that are lower layers of xtvm (`tvm.ir.IRModule`,
# `tvm.runtime.convert`): added to those packages as they load, so that they import nothing
# from the layers that implement the names.
PACKAGE_NAMES = {
    "xtvm.ir": {
        "structural_equal": "xtvm.api.structural_equal",
        "assert_structural_equal": "xtvm.api.structural_equal",
        "register_op_attr": "xtvm.passes.byoc_targets",
        "IRModule": "xtvm.api.ir_module",
        "Op": "xtvm.api.relay.expr",
        "Range": "xtvm.te.expr",
        "save_json": "xtvm.te.json_graph",
        "load_json": "xtvm.te.json_graph",
    },
    "xtvm.runtime": {"convert": "xtvm.api.convert"},
}
# xtvm packages that are also TVM's module of that name.
SUBPACKAGES = ("ir", "target", "runtime", "topi", "testing", "contrib", "rpc", "te")


def _target(fullname: str) -> str | None:
    """The implementing module of an aliased name such as `xtvm.relay.transform`."""
    if not fullname.startswith(f"{__name__}."):
        return None
    parts = fullname.removeprefix(f"{__name__}.").split(".")
    for cut in range(len(parts), 0, -1):  # the longest aliased prefix
        real = API_MODULES.get(".".join(parts[:cut]))
        if real is not None:
            return ".".join([real, *parts[cut:]])
    return None


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


class _NamesLoader(importlib.abc.Loader):
    """Loads a package of `PACKAGE_NAMES` as usual, then serves its TVM names on first use."""

    def __init__(self, loader: importlib.abc.Loader, names: dict[str, str]) -> None:
        self.loader = loader
        self.names = names

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)
        own = module.__dict__.get("__getattr__")
        names = self.names

        def __getattr__(name: str) -> Any:
            if name in names:
                return getattr(importlib.import_module(names[name]), name)
            if own is not None:
                return own(name)
            raise AttributeError(f"module '{module.__name__}' has no attribute '{name}'")

        module.__getattr__ = __getattr__  # type: ignore[method-assign]


class _NamesFinder(importlib.abc.MetaPathFinder):
    """Finds the packages of `PACKAGE_NAMES` where they are, loading them with _NamesLoader."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname not in PACKAGE_NAMES:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _NamesLoader(spec.loader, PACKAGE_NAMES[fullname])
        return spec


sys.meta_path.insert(0, _AliasFinder())
sys.meta_path.insert(0, _NamesFinder())

# After the finders: this loads xtvm.ir, which gets its TVM names.
from xtvm.ir.version import TVM_VERSION as __version__  # noqa: E402, F401


def __getattr__(name: str) -> Any:
    if name in API_MODULES or name in SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in API_NAMES:
        module, attr = API_NAMES[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'xtvm' has no attribute '{name}'")
