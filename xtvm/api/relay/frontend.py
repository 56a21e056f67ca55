"""Model importers under TVM's names: `relay.frontend.from_onnx`."""

from __future__ import annotations

from typing import Any


def from_onnx(model: Any, shape: Any = None, dtype: str = "float32", **kwargs: Any) -> Any:
    """`(IRModule, params)` of an ONNX model (a ModelProto or a path); see xtvm.frontends.onnx."""
    from xtvm.frontends.onnx import from_onnx as importer

    return importer(model, shape, dtype, **kwargs)
