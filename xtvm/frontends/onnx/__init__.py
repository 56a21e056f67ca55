"""The ONNX frontend: ModelProto → relay (`import_onnx`; TVM's `relay.frontend.from_onnx`
is xtvm/api/relay/frontend.py).

    module, params = import_onnx("resnet.onnx")
    outputs = evaluate(module, [image], params=params)

`importer` checks the model and walks its graph; `converters` holds one row per ONNX op type,
joined here by the rows of `indexing` (gather/scatter, scans), `recurrent` (LSTM, GRU, RNN)
`attention` (Attention, RMSNormalization) and `vision` (RoiAlign);
`resize` builds the interpolation matrices of Resize/Upsample; `tensors` reads tensors
(external data included) after checking their sizes.
"""

from __future__ import annotations

from xtvm.frontends.onnx import attention, indexing, recurrent, vision
from xtvm.frontends.onnx.converters import CONVERTERS
from xtvm.frontends.onnx.errors import OnnxImportError
from xtvm.frontends.onnx.importer import ShapeArg, import_onnx

CONVERTERS.update(attention.CONVERTERS)
CONVERTERS.update(indexing.CONVERTERS)
CONVERTERS.update(recurrent.CONVERTERS)
CONVERTERS.update(vision.CONVERTERS)
SUPPORTED_OPS: tuple[str, ...] = tuple(sorted(CONVERTERS))

__all__ = ["CONVERTERS", "SUPPORTED_OPS", "OnnxImportError", "ShapeArg", "import_onnx"]
