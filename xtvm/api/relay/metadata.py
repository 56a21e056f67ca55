"""The metadata section of TVM's Relay text: the constants that `meta[relay.Constant][i]`
references name, and the size variables of shapes (`meta[tir.SizeVar][i]`), as TVM writes them
after `#[metadata]` (its node JSON, each tensor a base64 NDArray blob), so `mod.astext()` reads
back and TVM's printed programs read in.

Only `relay.Constant` and `tir.SizeVar` tables are understood; the JSON is read with `json` and
every blob's header is checked against its length before any data is used.
"""

from __future__ import annotations

import base64
import json
import struct
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from xtvm.api.relay.expr import Constant
from xtvm.te.expr import Var, size_var

SECTION = "#[metadata]"
MAGIC = 0xDD5E40F096B4A13F  # TVM's NDArray serialisation magic
MAX_BYTES = 1 << 31  # a section larger than this is refused
# DLPack type codes (int, uint, float, bfloat) to numpy kinds.
CODES = {0: "int", 1: "uint", 2: "float"}
KIND_CODES = {"i": 0, "u": 1, "b": 1, "f": 2}


class MetadataError(ValueError):
    """A metadata section that is not TVM's format (or names what xtvm cannot read)."""


MetaTable = dict[str, list[Any]]  # relay.Constant: Constants, tir.SizeVar: te Vars
KINDS = ("relay.Constant", "tir.SizeVar")


def split_section(text: str) -> tuple[str, str | None]:
    """The program text and its metadata JSON (None without a section)."""
    head, found, tail = text.partition(f"\n{SECTION}")
    if not found:
        if text.startswith(SECTION):
            return "", text[len(SECTION) :]
        return text, None
    return head + "\n", tail


def encode_array(data: np.ndarray) -> str:
    """One tensor as TVM's base64 NDArray blob (CPU device, little-endian)."""
    data = np.ascontiguousarray(data)
    if data.dtype == np.bool_:
        code, bits = 1, 1
    elif data.dtype.kind in KIND_CODES:
        code, bits = KIND_CODES[data.dtype.kind], data.dtype.itemsize * 8
    else:
        raise MetadataError(f"a constant of dtype {data.dtype} has no TVM encoding")
    raw = data.astype(data.dtype.newbyteorder("<")).tobytes()
    header = struct.pack("<QQiiiBBH", MAGIC, 0, 1, 0, data.ndim, code, bits, 1)
    header += struct.pack(f"<{data.ndim}q", *data.shape) + struct.pack("<q", len(raw))
    return base64.b64encode(header + raw).decode("ascii")


def decode_array(blob: str) -> np.ndarray:
    """A tensor from TVM's base64 NDArray blob; a malformed blob is a MetadataError."""
    try:
        raw = base64.b64decode(blob, validate=True)
    except (ValueError, TypeError) as err:
        raise MetadataError(f"a metadata tensor is not base64: {err}") from None
    fixed = struct.calcsize("<QQiiiBBH")
    if len(raw) < fixed:
        raise MetadataError("a metadata tensor is truncated")
    magic, _, _, _, ndim, code, bits, lanes = struct.unpack_from("<QQiiiBBH", raw)
    if magic != MAGIC:
        raise MetadataError("a metadata tensor lacks TVM's NDArray magic")
    if not 0 <= ndim <= 32 or lanes != 1 or code not in CODES or bits not in (1, 8, 16, 32, 64):
        raise MetadataError(f"a metadata tensor has an unsupported header (ndim {ndim})")
    if (code, bits) == (2, 8) or (bits == 1 and code != 1):
        raise MetadataError(f"a metadata tensor has an unsupported type (code {code}, {bits})")
    end = fixed + 8 * ndim + 8
    if len(raw) < end:
        raise MetadataError("a metadata tensor is truncated")
    shape = struct.unpack_from(f"<{ndim}q", raw, fixed)
    (size,) = struct.unpack_from("<q", raw, fixed + 8 * ndim)
    dtype = np.dtype("bool") if bits == 1 else np.dtype(f"<{CODES[code][0]}{bits // 8}")
    if any(d < 0 for d in shape) or size != int(np.prod(shape)) * dtype.itemsize:
        raise MetadataError(f"a metadata tensor's size {size} does not match its shape {shape}")
    if len(raw) != end + size:
        raise MetadataError("a metadata tensor's data does not match its declared size")
    return np.frombuffer(raw, dtype, offset=end).reshape(shape).astype(dtype.newbyteorder("="))


def encode_section(constants: Sequence[Constant], size_vars: Sequence[Var] = ()) -> str:
    """The `#[metadata]` JSON of `constants` and `size_vars`, as TVM's save_json writes it."""
    nodes: list[dict[str, Any]] = [{"type_key": ""}, {"type_key": "Map", "keys": [], "data": []}]

    def table(kind: str, entries: list[dict[str, Any]]) -> None:
        nodes[1]["keys"].append(kind)
        nodes[1]["data"].append(len(nodes))
        first = len(nodes) + 1
        nodes.append({"type_key": "Array", "data": list(range(first, first + len(entries)))})
        nodes.extend(entries)

    if constants:
        attrs = [
            {"_checked_type_": "0", "data": str(i), "span": "0"} for i in range(len(constants))
        ]
        table("relay.Constant", [{"type_key": "relay.Constant", "attrs": a} for a in attrs])
    if size_vars:
        vars_at = len(nodes) + 1
        types_at = vars_at + len(size_vars)  # each var's PrimType, after the vars
        table(
            "tir.SizeVar",
            [
                {
                    "type_key": "tir.SizeVar",
                    "attrs": {
                        "dtype": v.dtype,
                        "name": v.name,
                        "span": "0",
                        "type_annotation": str(types_at + k),
                    },
                }
                for k, v in enumerate(size_vars)
            ],
        )
        nodes.extend(
            {"type_key": "PrimType", "attrs": {"dtype": v.dtype, "span": "0"}} for v in size_vars
        )
    section = {
        "root": 1,
        "nodes": nodes,
        "b64ndarrays": [encode_array(c.data.numpy()) for c in constants],
        "attrs": {"tvm_version": "0.13.0"},
    }
    return json.dumps(section, indent=2)


def decode_section(text: str) -> MetaTable:
    """The constant table of a `#[metadata]` section; other tables are a MetadataError."""
    if len(text) > MAX_BYTES:
        raise MetadataError("the metadata section is too large")
    try:
        section = json.loads(text)
        nodes, root = section["nodes"], section["root"]
        arrays = section.get("b64ndarrays", [])
        table = nodes[root]
        if table.get("type_key") != "Map":
            raise MetadataError("the metadata root is not a map")
        out: MetaTable = {}
        for key, index in zip(table["keys"], table["data"], strict=True):
            if key not in KINDS:
                raise MetadataError(
                    f"metadata of '{key}' cannot be read (only {' and '.join(KINDS)})"
                )
            entries = nodes[int(index)]
            if entries.get("type_key") != "Array":
                raise MetadataError(f"metadata '{key}' is not an array")
            items: list[Any] = []
            for item in entries.get("data", []):
                node = nodes[int(item)]
                if node.get("type_key") != key:
                    raise MetadataError(
                        f"a metadata entry of '{key}' is a '{node.get('type_key')}'"
                    )
                if key == "tir.SizeVar":
                    name, dtype = node["attrs"]["name"], node["attrs"].get("dtype", "int32")
                    if not isinstance(name, str) or dtype not in ("int32", "int64"):
                        raise MetadataError(f"a metadata size variable is malformed: {node}")
                    items.append(size_var(name, dtype))
                    continue
                blob = arrays[int(node["attrs"]["data"])]
                items.append(Constant(decode_array(blob)))
            out[key] = items
        return out
    except MetadataError:
        raise
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as err:
        raise MetadataError(f"the metadata section is not TVM's format: {err!r}") from None


def checked_table(table: Mapping[str, Sequence[object]] | None) -> MetaTable:
    """A meta table given to `tvm.parser.parse`: lists of constants by kind."""
    out: MetaTable = {}
    kinds = {"relay.Constant": Constant, "tir.SizeVar": Var}
    for key, items in (table or {}).items():
        if key not in kinds or not all(isinstance(c, kinds[key]) for c in items):
            raise MetadataError(
                f"meta table '{key}': only lists of relay.Constant or tir.SizeVar are supported"
            )
        out[key] = list(items)
    return out
