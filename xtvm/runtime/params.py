"""The weights a `relay.build` library embeds: one blob of an index and aligned raw arrays.

`GraphExecutorFactory.export_library` streams the params into a file of this format and has
the assembler embed it (`.incbin`) as the symbol `xtvm_graph_params`, beside the graph JSON
(`xtvm_graph_json`) and the blob's size (`xtvm_graph_params_size`): the weights never pass
through LLVM IR, numpy's `savez` or an in-memory copy, and the loaded library maps them from
the file. The layout (all integers little-endian):

    0   "XTVMPAR1"                       magic
    8   uint64 n                         bytes of the index
    16  index: n bytes of JSON           [{"name", "dtype", "shape", "offset"}, ...]
        zero padding to a multiple of 64
    D   data: each array row-major, little-endian, at D + its offset (a multiple of 64)

`dtype` is numpy's name (`float32`, `int64`, `bool`, ...); an array's size is its shape's
product times the dtype's size. Readers (`read_params` here, `load_params` in the C runtime)
refuse an index over `MAX_INDEX_BYTES`, an unknown dtype, more than 32 dimensions, a negative
dimension, an array reaching past the blob and a repeated name; nothing is unpickled.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import BinaryIO

import numpy as np

from xtvm.runtime.module import GRAPH_SYMBOL, PARAMS_SIZE_SYMBOL, PARAMS_SYMBOL

MAGIC = b"XTVMPAR1"
ALIGN = 64
MAX_INDEX_BYTES = 1 << 26
MAX_NDIM = 32
# The dtypes the C runtime knows (runtime.h's xtvm_dtype).
DTYPES = frozenset(
    "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64".split()
)


class ParamsFormatError(ValueError):
    """An embedded params blob that is not in this format or is inconsistent."""


def aligned(value: int) -> int:
    return (value + ALIGN - 1) // ALIGN * ALIGN


def layout(params: Mapping[str, np.ndarray]) -> tuple[bytes, dict[str, int], int]:
    """The bytes before the data (magic, index length, index, padding), where in the blob
    each array starts, and the blob's size."""
    index: list[dict[str, object]] = []
    offsets: dict[str, int] = {}
    end = 0  # of the data, relative to its start
    for name, value in params.items():
        array = np.asarray(value)
        if array.dtype.name not in DTYPES:
            raise ParamsFormatError(f"param '{name}': dtype {array.dtype} cannot be embedded")
        offsets[name] = aligned(end)
        end = offsets[name] + array.nbytes
        shape = list(array.shape)
        index.append(
            {"name": name, "dtype": array.dtype.name, "shape": shape, "offset": offsets[name]}
        )
    text = json.dumps(index).encode()
    data_start = aligned(16 + len(text))
    head = MAGIC + len(text).to_bytes(8, "little") + text
    head += b"\0" * (data_start - len(head))
    return head, {n: data_start + o for n, o in offsets.items()}, data_start + end


def write_params(out: BinaryIO, params: Mapping[str, np.ndarray]) -> int:
    """Write `params` to `out` in this format, one array at a time; the bytes written."""
    head, starts, size = layout(params)
    out.write(head)
    written = len(head)
    for name, value in params.items():
        array = np.asarray(value)
        out.write(b"\0" * (starts[name] - written))
        little = array.astype(array.dtype.newbyteorder("<"), order="C", copy=False)
        out.write(np.ascontiguousarray(little).reshape(-1).view(np.uint8).data)
        written = starts[name] + array.nbytes
    return size


def save_params(path: Path, params: Mapping[str, np.ndarray]) -> int:
    """`write_params` into the file `path`; the bytes written."""
    with path.open("wb") as out:
        return write_params(out, params)


def read_params(blob: np.ndarray) -> dict[str, np.ndarray]:
    """The arrays of a blob (a uint8 array) as read-only views of it: nothing is copied."""
    size = blob.size
    if size < 16 or bytes(blob[:8]) != MAGIC:
        raise ParamsFormatError(
            "the embedded params are not in xtvm's format (magic XTVMPAR1): export the "
            "library again with this version"
        )
    length = int.from_bytes(bytes(blob[8:16]), "little")
    if length > min(MAX_INDEX_BYTES, size - 16):
        raise ParamsFormatError(f"the params index claims {length} bytes, the blob has {size}")
    try:
        index = json.loads(bytes(blob[16 : 16 + length]))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ParamsFormatError(f"the params index is not JSON: {exc}") from None
    if not isinstance(index, list):
        raise ParamsFormatError("the params index is not a list")
    data_start = aligned(16 + length)
    params: dict[str, np.ndarray] = {}
    for position, entry in enumerate(index):
        name, dtype, shape, offset = (
            entry.get(k) if isinstance(entry, dict) else None
            for k in ("name", "dtype", "shape", "offset")
        )
        if (
            not isinstance(name, str)
            or dtype not in DTYPES
            or not isinstance(shape, list)
            or len(shape) > MAX_NDIM
            or not all(type(d) is int and d >= 0 for d in shape)
            or type(offset) is not int
            or offset < 0
        ):
            raise ParamsFormatError(f"params index entry {position} is malformed")
        if name in params:
            raise ParamsFormatError(f"param '{name}' appears twice in the params index")
        element = np.dtype(dtype).newbyteorder("<")
        start = data_start + offset
        end = start + math.prod(shape) * element.itemsize
        if end > size:
            raise ParamsFormatError(f"param '{name}' reaches past the end of the params blob")
        view = blob[start:end].view(element).reshape(shape)
        view.flags.writeable = False
        params[name] = view
    return params


def assembly_string(path: Path) -> str:
    """`path` as a string literal of the GNU assembler."""
    return '"' + str(path.resolve()).replace("\\", "\\\\").replace('"', '\\"') + '"'


def embedding_assembly(graph_path: Path, params_path: Path, params_size: int) -> str:
    """A `.S` file defining the graph JSON (NUL-terminated), the params blob (64-byte aligned)
    and its size from the two files, with `.incbin`: the assembler copies the bytes."""

    def symbol(name: str) -> list[str]:
        return [f"\t.globl {name}", f"\t.type {name}, %object", f"{name}:"]

    return "\n".join(
        [
            '\t.section .rodata.xtvm_graph,"a"',
            *symbol(GRAPH_SYMBOL),
            f"\t.incbin {assembly_string(graph_path)}",
            "\t.byte 0",
            f"\t.size {GRAPH_SYMBOL}, . - {GRAPH_SYMBOL}",
            "\t.balign 8",
            *symbol(PARAMS_SIZE_SYMBOL),
            f"\t.quad {params_size}",
            f"\t.size {PARAMS_SIZE_SYMBOL}, 8",
            '\t.section .rodata.xtvm_params,"a"',
            f"\t.balign {ALIGN}",
            *symbol(PARAMS_SYMBOL),
            f"\t.incbin {assembly_string(params_path)}",
            "\t.byte 0",  # never empty
            f"\t.size {PARAMS_SYMBOL}, . - {PARAMS_SYMBOL}",
            '\t.section .note.GNU-stack,"",%progbits',  # `%`: `@` starts a comment on arm
            "",
        ]
    )


def write_embedding(directory: Path, graph_json: str, params: Mapping[str, np.ndarray]) -> Path:
    """Write the graph, the params blob and the `.S` embedding them into `directory`; the
    `.S` file's path (the C compiler that links the library assembles it)."""
    graph_path = directory / "graph.json"
    graph_path.write_bytes(graph_json.encode())
    params_path = directory / "params.bin"
    size = save_params(params_path, params)
    source = directory / "graph.S"
    source.write_text(embedding_assembly(graph_path, params_path, size))
    return source
