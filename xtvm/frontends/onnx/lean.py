"""An ONNX file read with the weights apart from the protobuf: the model is held once.

`onnx.load` reads the whole file into memory, parses it into protobuf messages holding every
initializer's `raw_data`, and `numpy_helper.to_array` copies each out again: BERT-base's
440 MB of weights were held two and three times over. `read_lean(path)` walks the protobuf
wire format of the file instead (ModelProto.graph, then GraphProto.initializer), reads the
`raw_data` of each large initializer of a plain numeric type straight from the file into a
`bytes` of its own, and parses the rest of the file (nodes, types, small tensors) with
protobuf. The weights come back as numpy views of those bytes, which the relay constants
then share (`relay.dense_from_numpy`). A file the walk does not understand (a malformed
length, a group) is read by `onnx.load` as before, so errors stay onnx's.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import numpy as np
import onnx
from onnx import TensorProto

from xtvm.frontends.onnx.errors import OnnxImportError
from xtvm.frontends.onnx.tensors import expected_bytes

# ModelProto.graph, GraphProto.initializer, and TensorProto's data_type and raw_data.
MODEL_GRAPH, GRAPH_INITIALIZER, TENSOR_DATA_TYPE, TENSOR_RAW_DATA = 7, 5, 2, 9
LEN, VARINT, FIXED64, FIXED32 = 2, 0, 1, 5
# Initializers with more raw bytes than this are read apart; smaller ones stay in the proto.
APART_BYTES = 1 << 16
NUMERIC = frozenset(
    (
        TensorProto.FLOAT,
        TensorProto.DOUBLE,
        TensorProto.FLOAT16,
        TensorProto.INT8,
        TensorProto.INT16,
        TensorProto.INT32,
        TensorProto.INT64,
        TensorProto.UINT8,
        TensorProto.UINT16,
        TensorProto.UINT32,
        TensorProto.UINT64,
        TensorProto.BOOL,
    )
)


class WireError(ValueError):
    """The file is not protobuf this walk reads (onnx.load is left to report it)."""


def read_varint(f: BinaryIO) -> int:
    value, shift = 0, 0
    while True:
        byte = f.read(1)
        if not byte or shift > 63:
            raise WireError("truncated varint")
        value |= (byte[0] & 0x7F) << shift
        shift += 7
        if byte[0] < 0x80:
            return value


def varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def fields(f: BinaryIO, start: int, end: int) -> Iterator[tuple[int, int, int, int, int]]:
    """(number, wire type, start of the field, start of its value, end) of each field of the
    message in bytes [start, end) of `f`; a varint's value is read at the value's start."""
    position = start
    while position < end:
        f.seek(position)
        tag = read_varint(f)
        value_start = f.tell()
        wire = tag & 7
        if wire == VARINT:
            read_varint(f)
            field_end = f.tell()
        elif wire in (FIXED64, FIXED32):
            field_end = value_start + (8 if wire == FIXED64 else 4)
        elif wire == LEN:
            length = read_varint(f)
            value_start = f.tell()
            field_end = value_start + length
        else:
            raise WireError(f"wire type {wire}")
        if field_end > end:
            raise WireError("a field reaches past its message")
        yield tag >> 3, wire, position, value_start, field_end
        position = field_end


def read_span(f: BinaryIO, start: int, end: int) -> bytes:
    f.seek(start)
    data = f.read(end - start)
    if len(data) != end - start:
        raise WireError("truncated file")
    return data


def lean_tensor(f: BinaryIO, start: int, end: int, read: bool) -> tuple[bytes, bytes | None]:
    """The TensorProto in [start, end) without its raw data if that is to be read apart, and
    the raw data (None: the tensor is kept whole; b"": left out unread, without `read`)."""
    data_type, raw = None, None
    others: list[tuple[int, int]] = []  # the spans of the other fields
    for number, wire, field_start, value_start, field_end in fields(f, start, end):
        if number == TENSOR_DATA_TYPE and wire == VARINT:
            f.seek(value_start)
            data_type = read_varint(f)
        if number == TENSOR_RAW_DATA and wire == LEN:
            raw = (value_start, field_end)
        else:
            others.append((field_start, field_end))
    if data_type not in NUMERIC or raw is None or raw[1] - raw[0] <= APART_BYTES:
        return read_span(f, start, end), None
    # the other fields only: the raw data is read once, apart (not also inside the whole)
    kept = b"".join(read_span(f, *span) for span in others)
    return kept, read_span(f, *raw) if read else b""


def lean_graph(f: BinaryIO, start: int, end: int, read: bool) -> tuple[bytes, list[bytes | None]]:
    """The GraphProto in [start, end) with large raw data left out, and the raw data of each
    initializer in order (None where it stays in the proto)."""
    out = bytearray()
    apart: list[bytes | None] = []
    for number, wire, field_start, value_start, field_end in fields(f, start, end):
        if number == GRAPH_INITIALIZER and wire == LEN:
            tensor, raw = lean_tensor(f, value_start, field_end, read)
            out += varint(GRAPH_INITIALIZER << 3 | LEN) + varint(len(tensor)) + tensor
            apart.append(raw)
        else:
            out += read_span(f, field_start, field_end)
    return bytes(out), apart


def read_lean(path: Path, weights: bool = True) -> tuple[onnx.ModelProto, dict[int, np.ndarray]]:
    """The model in `path` and the weights read apart, by position among the graph's
    initializers (whose protos keep their name, type and dims, but no data). Without
    `weights`, the large weights are left out unread (the graph's structure only)."""
    try:
        with path.open("rb") as f:
            size = f.seek(0, 2)
            out = bytearray()
            apart: list[bytes | None] | None = None
            for number, wire, field_start, value_start, field_end in fields(f, 0, size):
                if number == MODEL_GRAPH and wire == LEN and apart is None:
                    graph, apart = lean_graph(f, value_start, field_end, weights)
                    out += varint(MODEL_GRAPH << 3 | LEN) + varint(len(graph)) + graph
                else:
                    out += read_span(f, field_start, field_end)
        model = onnx.ModelProto()
        model.ParseFromString(bytes(out))
    except Exception:  # not protobuf this walk reads: onnx.load reports what is wrong
        return onnx.load(str(path), load_external_data=False), {}
    arrays: dict[int, np.ndarray] = {}
    for index, (tensor, raw) in enumerate(zip(model.graph.initializer, apart or [], strict=False)):
        if raw is None or not weights:
            continue
        what = f"initializer '{tensor.name}'"
        expected = expected_bytes(tensor, what)
        if expected != len(raw):
            raise OnnxImportError(
                f"{what} holds {len(raw)} bytes of data but its shape {list(tensor.dims)} "
                f"of {onnx.helper.tensor_dtype_to_string(tensor.data_type)} needs {expected}"
            )
        dtype = onnx.helper.tensor_dtype_to_np_dtype(tensor.data_type).newbyteorder("<")
        arrays[index] = np.frombuffer(raw, dtype).reshape(list(tensor.dims))
    return model, arrays
