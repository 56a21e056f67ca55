"""Tensors read from an ONNX file, checked before numpy allocates anything they declare.

A tensor's dims must be non-negative and its element count bounded; its data (raw bytes, a
typed field, or a slice of an external file) must hold exactly what the dims declare. External
data is read only from inside an explicit base directory (the model file's directory for a
path, `base_dir=` for an in-memory ModelProto), never relative to the current directory.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper
from onnx.external_data_helper import ExternalDataInfo

from xtvm.frontends.onnx.errors import OnnxImportError

# No tensor of an imported model (an input, a weight, a node's output) may have more elements.
MAX_ELEMENTS = 1 << 32

# The repeated field holding the values of each element type when raw_data is not used (the
# others use int32_data); complex numbers take two entries per element.
TYPED_FIELDS = {
    TensorProto.FLOAT: "float_data",
    TensorProto.COMPLEX64: "float_data",
    TensorProto.DOUBLE: "double_data",
    TensorProto.COMPLEX128: "double_data",
    TensorProto.INT64: "int64_data",
    TensorProto.UINT32: "uint64_data",
    TensorProto.UINT64: "uint64_data",
}
COMPLEX = (TensorProto.COMPLEX64, TensorProto.COMPLEX128)
# Types packing several elements in a byte: their sizes are left to onnx's own reader.
PACKED = frozenset(
    getattr(TensorProto, n)
    for n in ("INT4", "UINT4", "FLOAT4E2M1", "INT2", "UINT2")
    if hasattr(TensorProto, n)
)


def check_dims(dims: list[int], what: str) -> int:
    """The element count of `dims`, which must be non-negative and within MAX_ELEMENTS."""
    negative = [d for d in dims if d < 0]
    if negative:
        raise OnnxImportError(f"{what} has a negative dimension {negative[0]} (shape {dims})")
    count = math.prod(dims)
    if count > MAX_ELEMENTS:
        raise OnnxImportError(
            f"{what} has {count} elements (shape {dims}), more than the limit of {MAX_ELEMENTS}"
        )
    return count


def typed_field(tensor: TensorProto) -> str:
    """The repeated field that holds `tensor`'s values when it has no raw_data."""
    return TYPED_FIELDS.get(tensor.data_type, "int32_data")


def read_external(tensor: TensorProto, base_dir: Path | None, what: str) -> bytes:
    """The bytes of an external tensor, from a file inside `base_dir` only."""
    try:
        info = ExternalDataInfo(tensor)
    except ValueError as exc:
        raise OnnxImportError(f"{what}: invalid external data: {exc}") from None
    location = info.location
    if base_dir is None:
        raise OnnxImportError(
            f"{what} keeps its data in the external file '{location}': give the directory "
            "holding it (base_dir=, the model file's directory) or import from the file's path"
        )
    if not location or Path(location).is_absolute() or Path(location).drive:
        raise OnnxImportError(
            f"{what}: external data location '{location}' must be a path relative to the "
            "model's directory"
        )
    base = base_dir.resolve()
    path = (base / location).resolve()
    if not path.is_relative_to(base):
        raise OnnxImportError(
            f"{what}: external data location '{location}' is outside the model's directory"
        )
    if not path.is_file():
        raise OnnxImportError(f"{what}: external data file '{location}' does not exist")
    size = path.stat().st_size
    offset = info.offset or 0
    length = size - offset if info.length is None else info.length
    if offset + length > size:
        raise OnnxImportError(
            f"{what}: external data '{location}' holds {size} bytes, fewer than offset "
            f"{offset} + length {length}"
        )
    expected = expected_bytes(tensor, what)
    if expected is not None and length != expected:
        raise OnnxImportError(
            f"{what}: external data of {length} bytes for shape {list(tensor.dims)} of "
            f"{helper.tensor_dtype_to_string(tensor.data_type)} ({expected} bytes)"
        )
    with open(path, "rb") as stream:
        stream.seek(offset)
        return stream.read(length)


def expected_bytes(tensor: TensorProto, what: str) -> int | None:
    """The raw byte size `tensor`'s dims declare (None for strings and sub-byte types)."""
    count = check_dims(list(tensor.dims), what)
    try:
        dtype = helper.tensor_dtype_to_np_dtype(tensor.data_type)
    except Exception:
        return None
    if dtype.kind in "OSU" or tensor.data_type in PACKED:
        return None
    return count * dtype.itemsize


def check_data(tensor: TensorProto, what: str) -> None:
    """The data in `tensor` is exactly as much as its dims declare."""
    expected = expected_bytes(tensor, what)
    if expected is None:
        return
    if tensor.HasField("raw_data"):
        held, declared = len(tensor.raw_data), expected
    else:
        entries = len(getattr(tensor, typed_field(tensor)))
        held = entries
        declared = math.prod(tensor.dims) * (2 if tensor.data_type in COMPLEX else 1)
        if entries == 0 and declared == 0:
            return
    if held != declared:
        unit = "bytes" if tensor.HasField("raw_data") else "values"
        raise OnnxImportError(
            f"{what} holds {held} {unit} of data but its shape {list(tensor.dims)} of "
            f"{helper.tensor_dtype_to_string(tensor.data_type)} needs {declared}"
        )


def tensor_array(tensor: TensorProto, what: str) -> np.ndarray:
    """`tensor` as a numpy array, its size and data checked first (`what` names it).

    External data is inlined beforehand, once per model, by `resolve_external_data`."""
    check_data(tensor, what)
    try:
        return onnx.numpy_helper.to_array(tensor)
    except Exception as exc:
        raise OnnxImportError(f"{what} cannot be read: {exc}") from None


def graph_tensors(graph: onnx.GraphProto) -> list[tuple[TensorProto, str]]:
    """Every tensor a graph holds (initializers, node attributes, subgraphs), each named."""
    out = [(t, f"initializer '{t.name}'") for t in graph.initializer]
    for node in graph.node:
        for a in node.attribute:
            where = f"attribute '{a.name}' of node '{node.name or node.op_type}'"
            if a.HasField("t"):
                out.append((a.t, where))
            out.extend((t, where) for t in a.tensors)
            for g in [a.g] if a.HasField("g") else []:
                out.extend(graph_tensors(g))
            for g in a.graphs:
                out.extend(graph_tensors(g))
    return out


def resolve_external_data(model: onnx.ModelProto, base_dir: Path | None) -> onnx.ModelProto:
    """`model`, or a copy whose external tensors hold their data, read from `base_dir` only."""
    if not any(t.data_location == TensorProto.EXTERNAL for t, _ in graph_tensors(model.graph)):
        return model
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for tensor, what in graph_tensors(copy.graph):
        if tensor.data_location == TensorProto.EXTERNAL:
            data = read_external(tensor, base_dir, what)
            tensor.data_location = TensorProto.DEFAULT
            del tensor.external_data[:]
            tensor.raw_data = data
    return copy
