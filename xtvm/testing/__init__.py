"""Helpers shared by tests, and TVM's `tvm.testing` names (`assert_allclose`, `enabled_targets`,
`parametrize_targets`, `parameter`, ...) from `utils`."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_file(name: str, path: Path) -> ModuleType:
    """Execute the Python file `path` as module `name`, registered in `sys.modules` (so that
    its dataclasses and pickling find it), and return the module."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


from xtvm.testing.utils import (  # noqa: E402
    assert_allclose,
    device_enabled,
    enabled_targets,
    fixture,
    known_failing_targets,
    main,
    parameter,
    parameters,
    parametrize_targets,
    requires_arm_dot,
    requires_cascadelake,
    requires_cuda,
    requires_gpu,
    requires_llvm,
    requires_skylake_avx512,
    requires_tensorcore,
    requires_x,
    requires_x86,
    skip_if_wheel_test,
    uses_gpu,
)

__all__ = [
    "assert_allclose",
    "device_enabled",
    "enabled_targets",
    "fixture",
    "known_failing_targets",
    "load_file",
    "main",
    "parameter",
    "parameters",
    "parametrize_targets",
    "requires_arm_dot",
    "requires_cascadelake",
    "requires_cuda",
    "requires_gpu",
    "requires_llvm",
    "requires_skylake_avx512",
    "requires_tensorcore",
    "requires_x",
    "requires_x86",
    "skip_if_wheel_test",
    "uses_gpu",
]
