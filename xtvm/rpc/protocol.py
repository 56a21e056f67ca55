"""The RPC wire format (docs/rpc-protocol.md): framed messages of a JSON header and raw bytes.

A message is `b"XRPC"`, the header's length (u32, big-endian), the body's length (u64,
big-endian), the header (a UTF-8 JSON object with a string `kind`), then the body. Tensors
travel as `{"dtype", "shape", "nbytes"}` descriptors in the header whose bytes follow one
another in the body, in C order. Every length is checked against `Limits` before anything is
read or allocated; nothing received is unpickled or evaluated.
"""

from __future__ import annotations

import json
import math
import socket
import struct
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

PROTOCOL_VERSION = 1
MAGIC = b"XRPC"
PREFIX = struct.Struct(">4sIQ")
MAX_NDIM = 32
MAX_NAME_LENGTH = 255
# The dtypes a tensor may have on the wire (fixed size, no objects).
DTYPES = frozenset(
    (
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
    )
)


# How a float argument that JSON cannot hold travels: `{"float": "inf"}`.
NON_FINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def float_json(value: float) -> float | str:
    """`value` as the wire carries a float: itself, or the name of a non-finite one."""
    if math.isfinite(value):
        return value
    return "nan" if math.isnan(value) else "inf" if value > 0 else "-inf"


class RPCError(RuntimeError):
    """The remote side reported an error, or the session ended."""


class ProtocolError(RPCError):
    """A message that breaks the protocol: bad framing, an oversized length, a malformed header."""


@dataclass(frozen=True)
class Limits:
    """Bounds on what one peer accepts from the other."""

    max_header: int = 1 << 20  # bytes of JSON
    max_body: int = 1 << 30  # bytes in one message
    max_array: int = 1 << 30  # bytes of one array
    max_session_bytes: int = 4 << 30  # arrays alive plus files uploaded, per session
    max_handles: int = 1 << 16  # objects alive per session
    max_modules: int = 64  # libraries loaded at once per session


Message = tuple[dict[str, Any], bytes | bytearray]


def encode(header: Mapping[str, Any], size: int) -> bytes:
    """The prefix and header of a message whose body has `size` bytes."""
    text = json.dumps(header, separators=(",", ":"), allow_nan=False).encode()
    return PREFIX.pack(MAGIC, len(text), size) + text


def send(sock: socket.socket, header: Mapping[str, Any], body: Any = b"") -> None:
    """Write one message; `body` is bytes or a sequence of buffers sent one after another."""
    parts = [body] if isinstance(body, bytes | bytearray | memoryview) else list(body)
    views = [memoryview(p).cast("B") for p in parts]
    size = sum(v.nbytes for v in views)
    prefix = encode(header, size)
    if size < 65536:
        sock.sendall(b"".join([prefix, *(bytes(v) for v in views)]))
        return
    sock.sendall(prefix)
    for view in views:
        sock.sendall(view)


def read_exact(sock: socket.socket, size: int) -> bytearray:
    """Exactly `size` bytes; an end of stream before them is a `ProtocolError`."""
    buffer = bytearray(size)
    view = memoryview(buffer)
    got = 0
    while got < size:
        count = sock.recv_into(view[got:], min(size - got, 1 << 22))
        if count == 0:
            raise ProtocolError("the connection closed in the middle of a message")
        got += count
    return buffer


def receive(sock: socket.socket, limits: Limits) -> Message | None:
    """The next message, or None when the peer closed the connection between messages."""
    first = sock.recv(PREFIX.size)
    if not first:
        return None
    prefix = bytes(first) + bytes(read_exact(sock, PREFIX.size - len(first)))
    magic, header_size, body_size = PREFIX.unpack(prefix)
    if magic != MAGIC:
        raise ProtocolError(f"not an xtvm RPC message (starts with {magic!r})")
    if header_size > limits.max_header:
        raise ProtocolError(f"header of {header_size} bytes exceeds {limits.max_header}")
    if body_size > limits.max_body:
        raise ProtocolError(f"body of {body_size} bytes exceeds {limits.max_body}")
    header = decode_header(read_exact(sock, header_size))
    return header, read_exact(sock, body_size) if body_size else b""


def decode_header(data: bytes | bytearray) -> dict[str, Any]:
    try:
        header = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ProtocolError(f"header is not JSON: {exc}") from None
    if not isinstance(header, dict) or not isinstance(header.get("kind"), str):
        raise ProtocolError("header must be a JSON object with a string 'kind'")
    return header


# ---------------------------------------------------------------------------------------------
# Reading header fields


def get(header: Mapping[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    """Field `name` of `header`, which must have type `kind` (bool is no int here)."""
    value = header.get(name)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        value = None
    if not isinstance(value, kinds):
        names = " or ".join(k.__name__ for k in kinds)
        raise ProtocolError(f"'{header.get('kind')}' message: field '{name}' must be {names}")
    return value


def get_int(header: Mapping[str, Any], name: str, low: int, high: int) -> int:
    value = get(header, name, int)
    if not low <= value <= high:
        raise ProtocolError(f"field '{name}' = {value} is outside [{low}, {high}]")
    return value


def get_name(header: Mapping[str, Any], name: str) -> str:
    value = get(header, name, str)
    if not 0 < len(value) <= MAX_NAME_LENGTH:
        raise ProtocolError(f"field '{name}' must have 1 to {MAX_NAME_LENGTH} characters")
    return value


# ---------------------------------------------------------------------------------------------
# Tensors


def tensor_descriptor(array: np.ndarray) -> dict[str, Any]:
    return {"dtype": array.dtype.name, "shape": list(array.shape), "nbytes": array.nbytes}


def wire_array(values: Any) -> np.ndarray:
    """`values` as a C-contiguous array of a wire dtype (refused otherwise)."""
    array = np.ascontiguousarray(values)
    if array.dtype.name not in DTYPES:
        raise TypeError(f"arrays of dtype {array.dtype} cannot be sent (dtypes: {sorted(DTYPES)})")
    return array


def check_descriptor(descriptor: Any, limits: Limits) -> tuple[np.dtype, tuple[int, ...], int]:
    """The dtype, shape and byte size a tensor descriptor names, all within `limits`."""
    if not isinstance(descriptor, dict):
        raise ProtocolError("a tensor descriptor must be an object")
    dtype = get(descriptor, "dtype", str)
    if dtype not in DTYPES:
        raise ProtocolError(f"unsupported tensor dtype {dtype[:32]!r}")
    shape = get(descriptor, "shape", list)
    if len(shape) > MAX_NDIM:
        raise ProtocolError(f"tensor of rank {len(shape)} exceeds {MAX_NDIM}")
    if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
        raise ProtocolError("tensor dimensions must be non-negative integers")
    itemsize = np.dtype(dtype).itemsize
    if any(d > limits.max_array for d in shape):
        raise ProtocolError(f"tensor dimension exceeds {limits.max_array}")
    nbytes = math.prod(shape) * itemsize
    if nbytes > limits.max_array:
        raise ProtocolError(f"tensor of {nbytes} bytes exceeds {limits.max_array}")
    return np.dtype(dtype), tuple(shape), nbytes


def split_tensors(
    descriptors: Any, body: bytes | bytearray, limits: Limits, offset: int = 0
) -> list[np.ndarray]:
    """The tensors `descriptors` lay out in `body` from `offset` (views of a bytearray body,
    copies of a bytes one, so always writable)."""
    if not isinstance(descriptors, list) or len(descriptors) > limits.max_handles:
        raise ProtocolError("'tensors' must be a list of descriptors")
    arrays: list[np.ndarray] = []
    for descriptor in descriptors:
        dtype, shape, nbytes = check_descriptor(descriptor, limits)
        if descriptor.get("nbytes") != nbytes or offset + nbytes > len(body):
            raise ProtocolError("tensor bytes do not match the descriptor or the body")
        chunk = np.frombuffer(body, dtype=np.uint8, count=nbytes, offset=offset)
        array = chunk.view(dtype).reshape(shape)
        arrays.append(array if isinstance(body, bytearray) else array.copy())
        offset += nbytes
    if offset != len(body):
        raise ProtocolError(f"body has {len(body) - offset} bytes beyond its tensors")
    return arrays


def pack_tensors(arrays: Sequence[np.ndarray]) -> tuple[list[dict[str, Any]], list[memoryview]]:
    """Descriptors and body buffers of `arrays` (each a C-contiguous wire array)."""
    return [tensor_descriptor(a) for a in arrays], [
        memoryview(a.reshape(-1)).cast("B") for a in arrays
    ]


def check_file_name(name: str) -> str:
    """An upload name confined to the session directory: one plain path component."""
    if (
        not name
        or len(name) > MAX_NAME_LENGTH
        or "/" in name
        or "\\" in name
        or "\0" in name
        or name in (".", "..")
        or name.startswith(".")
    ):
        raise ProtocolError(f"refused file name {name[:64]!r}: names are one plain component")
    return name


def close_listener(sock: socket.socket) -> None:
    """Close a listening socket, waking a thread blocked in its `accept` (close alone does not)."""
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()


class Listener:
    """A listening socket on `host:port` (port 0: any free port, see `.port`) served by daemon
    threads; subclasses say which connections to admit, how to handle one and what to release
    on close."""

    def __init__(self, host: str, port: int) -> None:
        self.sock = socket.create_server((host, port))
        self.host = host
        self.port: int = self.sock.getsockname()[1]
        self.lock = threading.Condition()
        self.closed = False
        self.threads: list[threading.Thread] = []

    def spawn(self, target: object, *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)  # type: ignore[arg-type]
        thread.start()
        self.threads.append(thread)

    def accept_loop(self) -> None:
        while True:
            try:
                conn, address = self.sock.accept()
            except OSError:
                return  # closed
            with self.lock:
                if self.closed:
                    conn.close()
                    return
                admitted = self.admit(conn)
            self.handle(conn, address[0], admitted)

    def admit(self, conn: socket.socket) -> bool:
        """Whether to take `conn` (called under the lock while open)."""
        return True

    def handle(self, conn: socket.socket, peer: str, admitted: bool) -> None:
        """Serve (or refuse) a connection `admit` was asked about."""
        raise NotImplementedError

    def close(self) -> None:
        """Stop accepting, `release` what is held, and join the threads."""
        with self.lock:
            if self.closed:
                return
            self.closed = True
            self.lock.notify_all()
        close_listener(self.sock)
        self.release()
        for thread in self.threads:
            thread.join(timeout=10)

    def release(self) -> None:
        """End what the listener holds (called once by `close`, after the socket is closed)."""
