"""Model importers under TVM's names: `relay.frontend.from_onnx`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import onnx

from xtvm.api.ir_module import IRModule
from xtvm.frontends.onnx import ShapeArg, import_onnx
from xtvm.frontends.onnx.importer import FOLD_LIMIT


def from_onnx(
    model: onnx.ModelProto | str | Path,
    shape: ShapeArg | None = None,
    dtype: str | Mapping[str, str] = "float32",
    *,
    base_dir: str | Path | None = None,
    fold_limit: int = FOLD_LIMIT,
) -> tuple[IRModule, dict[str, np.ndarray]]:
    """TVM's `relay.frontend.from_onnx`: an `IRModule` and its params (see
    `xtvm.frontends.onnx.import_onnx`)."""
    module, params = import_onnx(model, shape, dtype, base_dir=base_dir, fold_limit=fold_limit)
    return IRModule(module), params
