"""The RPC client: TVM's `rpc.connect`, remote modules, functions, devices and arrays.

remote = rpc.connect("127.0.0.1", 9090)
remote.upload("k.so"); f = remote.load_module("k.so")
dev = remote.cpu(0); a = tvm.nd.array(x, dev); f["add"](a, b, c); c.numpy()

Every object made on the server is a handle in this process; when the last reference here
goes, its handle is queued and freed with the session's next request. `LocalSession()` gives
the same interface over a session handler in this process (no socket, no child process).
"""

from __future__ import annotations

import shutil
import socket
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from xtvm.rpc.protocol import (
    PROTOCOL_VERSION,
    Limits,
    ProtocolError,
    RPCError,
    float_json,
    pack_tensors,
    receive,
    send,
    split_tensors,
    wire_array,
)
from xtvm.runtime.module import BenchmarkResult
from xtvm.runtime.ndarray import Device, NDArray, OffHostNDArray

Reply = tuple[dict[str, Any], bytes | bytearray]


class SocketTransport:
    """Requests over a connected socket, one at a time."""

    def __init__(self, sock: socket.socket, limits: Limits) -> None:
        self.sock = sock
        self.limits = limits

    def request(self, header: dict[str, Any], buffers: Sequence[Any]) -> Reply:
        send(self.sock, header, buffers)
        reply = receive(self.sock, self.limits)
        if reply is None:
            raise RPCError("the server closed the session")
        return reply

    def close(self) -> None:
        try:
            send(self.sock, {"kind": "shutdown"})
            self.sock.settimeout(5)
            receive(self.sock, self.limits)
        except (OSError, ProtocolError):
            pass
        self.sock.close()


class LocalTransport:
    """Requests answered by a session handler in this process (TVM's LocalSession)."""

    def __init__(self) -> None:
        from xtvm.rpc.session import SessionHandler

        self.directory = Path(tempfile.mkdtemp(prefix="xtvm-rpc-local-"))
        self.handler = SessionHandler(self.directory, Limits())

    def request(self, header: dict[str, Any], buffers: Sequence[Any]) -> Reply:
        body = b"".join(bytes(memoryview(b).cast("B")) for b in buffers)
        reply, out = self.handler.answer(header, body)
        return reply, b"".join(bytes(memoryview(b).cast("B")) for b in out)

    def close(self) -> None:
        self.handler.objects.clear()
        shutil.rmtree(self.directory, ignore_errors=True)


class RPCSession:
    """A session with a server: upload, load_module, devices (TVM's RPCSession)."""

    def __init__(self, transport: SocketTransport | LocalTransport, limits: Limits) -> None:
        self.transport: SocketTransport | LocalTransport | None = transport
        self.limits = limits
        self.lock = threading.RLock()
        self.released: list[int] = []  # handles whose last local reference is gone

    def request(self, header: dict[str, Any], buffers: Sequence[Any] = ()) -> Reply:
        """Send one request and return the reply; a remote error raises `RPCError`."""
        with self.lock:
            if self.transport is None:
                raise RPCError("the session has ended")
            if self.released and header["kind"] != "free":
                handles, self.released = self.released, []
                self.request({"kind": "free", "handles": handles})
            try:
                reply, body = self.transport.request(header, buffers)
            except (OSError, ProtocolError) as exc:
                self.end()
                raise RPCError(f"the session has ended: {exc}") from None
            if reply["kind"] != "error":
                return reply, body
            message = f"{reply.get('type', 'Error')}: {reply.get('message', '')}"
            if reply.get("fatal"):
                self.end()
                raise RPCError(f"{message} (the session has ended)")
            raise RPCError(message)

    def release(self, handle: int) -> None:
        self.released.append(handle)

    def end(self) -> None:
        transport, self.transport = self.transport, None
        if transport is not None:
            transport.close()

    close = end

    def __enter__(self) -> RPCSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.end()

    # -- TVM's RPCSession methods --------------------------------------------------------------

    def upload(self, data: str | Path | bytes | bytearray, target: str | None = None) -> None:
        """Send a file (a path, or bytes with a `target` name) to the session's directory."""
        if isinstance(data, bytes | bytearray):
            if target is None:
                raise ValueError("upload: bytes need a target name")
            blob = bytes(data)
        else:
            blob = Path(data).read_bytes()
            target = target or Path(data).name
        self.request({"kind": "upload", "name": target}, [blob])

    def download(self, path: str) -> bytes:
        return self.request({"kind": "download", "name": path})[1]

    def remove(self, path: str) -> None:
        """Delete an uploaded file from the session's directory (a loaded module stays)."""
        self.request({"kind": "remove", "name": path})

    def load_module(self, path: str) -> RemoteModule:
        """Load an uploaded library (`export_library`'s) on the server."""
        reply, _ = self.request({"kind": "load_module", "name": path})
        return RemoteModule(self, reply["handle"], list(reply["functions"]))

    def cpu(self, dev_id: int = 0) -> RemoteDevice:
        return RemoteDevice("cpu", dev_id, self)

    def device(self, dev_type: str, dev_id: int = 0) -> RemoteDevice:
        return RemoteDevice(dev_type, dev_id, self)

    def array(self, values: np.ndarray, device: RemoteDevice) -> RemoteNDArray:
        array = wire_array(values)
        descriptors, buffers = pack_tensors([array])
        reply, _ = self.request({"kind": "alloc", "tensors": descriptors}, buffers)
        return RemoteNDArray(self, reply["handle"], array.shape, array.dtype.name, device)

    def empty(self, shape: tuple[int, ...], dtype: str, device: RemoteDevice) -> RemoteNDArray:
        descriptor = {"dtype": np.dtype(dtype).name, "shape": list(shape)}
        reply, _ = self.request({"kind": "alloc", "descriptor": descriptor})
        return RemoteNDArray(self, reply["handle"], shape, np.dtype(dtype).name, device)


@dataclass(frozen=True)
class RemoteDevice(Device):
    """A device of a remote session: `tvm.nd.array(x, remote.cpu(0))` makes arrays there."""

    session: RPCSession | None = field(default=None, compare=False, repr=False)

    @property
    def exist(self) -> bool:
        return self.device_type == "cpu"

    def array_from(self, values: np.ndarray) -> NDArray:
        assert self.session is not None
        return self.session.array(values, self)

    def empty_array(self, shape: tuple[int, ...], dtype: str) -> NDArray:
        assert self.session is not None
        return self.session.empty(shape, dtype, self)

    def __str__(self) -> str:
        return f"remote[{self.device_type}({self.device_id})]"


class Handle:
    """An object on the server; its handle is freed when this goes."""

    def __init__(self, session: RPCSession, handle: int) -> None:
        self.session = session
        self.handle = handle

    def __del__(self) -> None:
        session = getattr(self, "session", None)
        if session is not None and session.transport is not None:
            session.release(self.handle)


class RemoteNDArray(OffHostNDArray, Handle):
    """An array in a remote session's memory; `.numpy()` copies it here."""

    def __init__(
        self,
        session: RPCSession,
        handle: int,
        shape: Sequence[int],
        dtype: str,
        device: RemoteDevice,
    ) -> None:
        Handle.__init__(self, session, handle)
        self._shape = tuple(int(d) for d in shape)
        self._dtype = dtype
        self.device = device

    @property
    def dtype(self) -> str:
        return self._dtype

    def numpy(self) -> np.ndarray:
        reply, body = self.session.request({"kind": "copy_from", "array": self.handle})
        [values] = split_tensors(reply.get("tensors"), body, self.session.limits)
        return values

    asnumpy = numpy

    def copyfrom(self, source: np.ndarray | NDArray) -> NDArray:
        values = wire_array(source.numpy() if isinstance(source, NDArray) else source)
        if values.shape != self.shape:
            raise ValueError(f"copyfrom: shape {values.shape} differs from {self.shape}")
        descriptors, buffers = pack_tensors([values.astype(self._dtype, copy=False)])
        self.session.request(
            {"kind": "copy_to", "array": self.handle, "tensors": descriptors}, buffers
        )
        return self

    def __repr__(self) -> str:
        return f"<tvm.nd.NDArray shape={self.shape}, {self.device}>"


def encode_args(
    session: RPCSession, args: Sequence[Any], inline: bool
) -> tuple[list[dict[str, Any]], list[np.ndarray]]:
    """The wire form of call arguments; local arrays travel inline only where `inline`."""
    encoded: list[dict[str, Any]] = []
    tensors: list[np.ndarray] = []
    for arg in args:
        if isinstance(arg, RemoteNDArray):
            if arg.session is not session:
                raise ValueError("an array of another session was passed to a remote function")
            encoded.append({"array": arg.handle})
        elif isinstance(arg, np.ndarray | NDArray):
            if not inline:
                raise TypeError("remote kernels take remote arrays: tvm.nd.array(x, remote.cpu(0))")
            tensors.append(wire_array(arg.numpy() if isinstance(arg, NDArray) else arg))
            encoded.append({"tensor": len(tensors) - 1})
        elif isinstance(arg, Device):
            encoded.append({"device": [arg.device_type, arg.device_id]})
        elif isinstance(arg, bool | np.bool_):
            encoded.append({"int": int(arg)})
        elif isinstance(arg, int | np.integer):
            encoded.append({"int": int(arg)})
        elif isinstance(arg, float | np.floating):
            encoded.append({"float": float_json(float(arg))})
        elif isinstance(arg, str):
            encoded.append({"str": arg})
        else:
            raise TypeError(f"cannot pass a {type(arg).__name__} to a remote function")
    return encoded, tensors


class RemoteFunction(Handle):
    """A function of a remote module: `f(a, b, c)` with remote arrays and scalars."""

    def __init__(self, session: RPCSession, handle: int, name: str, inline: bool = False) -> None:
        super().__init__(session, handle)
        self.name = name
        self.inline = inline

    def __call__(self, *args: Any) -> Any:
        encoded, tensors = encode_args(self.session, args, self.inline)
        descriptors, buffers = pack_tensors(tensors)
        header = {"kind": "call", "function": self.handle, "args": encoded, "tensors": descriptors}
        reply, _ = self.session.request(header, buffers)
        return self.decode(reply.get("ret"), args)

    def decode(self, ret: Any, args: Sequence[Any]) -> Any:
        if ret is None:
            return None
        if "array" in ret:
            device = next((a for a in args if isinstance(a, RemoteDevice)), self.session.cpu())
            return RemoteNDArray(self.session, ret["array"], ret["shape"], ret["dtype"], device)
        if "module" in ret:
            return RemoteGraphExecutor(self.session, ret["module"], list(ret["inputs"]))
        if "int" in ret:
            return int(ret["int"])
        return ret

    def time(
        self, args: Sequence[Any], number: int, repeat: int, min_repeat_ms: float
    ) -> BenchmarkResult:
        encoded, tensors = encode_args(self.session, args, self.inline)
        descriptors, buffers = pack_tensors(tensors)
        header = {
            "kind": "time_evaluator",
            "function": self.handle,
            "args": encoded,
            "tensors": descriptors,
            "number": number,
            "repeat": repeat,
            "min_repeat_ms": min_repeat_ms,
        }
        reply, _ = self.session.request(header, buffers)
        return BenchmarkResult([float(r) for r in reply["results"]])


class RemoteModule(Handle):
    """A module loaded in a remote session: `m["name"]` is a `RemoteFunction`."""

    def __init__(self, session: RPCSession, handle: int, functions: list[str]) -> None:
        super().__init__(session, handle)
        self.functions = functions
        self.cache: dict[str, RemoteFunction] = {}

    def get_function(self, name: str) -> RemoteFunction:
        if name not in self.cache:
            reply, _ = self.session.request(
                {"kind": "get_function", "module": self.handle, "name": name}
            )
            self.cache[name] = RemoteFunction(self.session, reply["handle"], name, self.inline)
        return self.cache[name]

    inline = False  # whether functions take local arrays (sent with the call)

    def __getitem__(self, name: str) -> RemoteFunction:
        return self.get_function(name)

    def __contains__(self, name: str) -> bool:
        return name in self.functions

    def time_evaluator(
        self,
        name: str,
        dev: Device | None = None,
        number: int = 10,
        repeat: int = 1,
        min_repeat_ms: float = 0,
    ) -> Callable[..., BenchmarkResult]:
        """A function timing `name` on the server (seconds per call, per repeat)."""
        function = self.get_function(name)
        return lambda *args: function.time(args, number, repeat, min_repeat_ms)

    def __repr__(self) -> str:
        return f"RemoteModule({', '.join(self.functions)})"


class RemoteGraphExecutor(RemoteModule):
    """A graph executor in a remote session (what `rlib["default"](dev)` returns), with the
    methods `graph_executor.GraphModule` calls."""

    inline = True

    def __init__(self, session: RPCSession, handle: int, inputs: list[str]) -> None:
        super().__init__(session, handle, ["set_input", "run", "get_output", "get_input"])
        self.input_order = inputs

    def set_input(self, key: str | int | None = None, value: Any = None, **params: Any) -> None:
        if key is not None:
            self["set_input"](key, value)
        for name, array in params.items():
            self["set_input"](name, array)

    def run(self, **inputs: Any) -> None:
        if inputs:
            self.set_input(**inputs)
        self["run"]()

    def get_output(self, index: int, out: NDArray | None = None) -> NDArray:
        value = self["get_output"](index)
        return value if out is None else out.copyfrom(value.numpy())

    def get_input(self, key: str | int) -> NDArray:
        return self["get_input"](key)

    def get_num_inputs(self) -> int:
        return self["get_num_inputs"]()

    def get_num_outputs(self) -> int:
        return self["get_num_outputs"]()

    def get_input_info(self) -> tuple[dict[str, tuple[int, ...]], dict[str, str]]:
        info = self["get_input_info"]()
        return {k: tuple(v) for k, v in info["shapes"].items()}, dict(info["dtypes"])

    def benchmark(self, number: int = 10, repeat: int = 3) -> BenchmarkResult:
        return self.time_evaluator("run", None, number, repeat)()

    def time_evaluator(
        self,
        name: str,
        dev: Device | None = None,
        number: int = 10,
        repeat: int = 1,
        min_repeat_ms: float = 0,
    ) -> Callable[..., BenchmarkResult]:
        if name != "run":
            raise ValueError(f"time_evaluator: a graph executor times 'run', not '{name}'")
        return super().time_evaluator(name, dev, number, repeat, min_repeat_ms)


def connect(
    url: str, port: int, key: str = "", session_timeout: float = 0, timeout: float = 30
) -> RPCSession:
    """A session with the server at `url:port` (TVM's `rpc.connect`).

    `key` must match the server's; `session_timeout` (seconds, 0 for none) ends the session on
    the server after that long; `timeout` bounds connecting and the handshake.
    """
    limits = Limits()
    sock = socket.create_connection((url, port), timeout=timeout)
    try:
        hello = {"kind": "hello", "version": PROTOCOL_VERSION, "key": key}
        if session_timeout:
            hello["session_timeout"] = session_timeout
        send(sock, hello)
        reply = receive(sock, limits)
        if reply is None:
            raise RPCError(f"{url}:{port} closed the connection during the handshake")
        if reply[0]["kind"] != "hello":
            raise RPCError(f"{url}:{port} refused the session: {reply[0].get('message', '')}")
    except BaseException:
        sock.close()
        raise
    sock.settimeout(None)
    return RPCSession(SocketTransport(sock, limits), limits)


def LocalSession() -> RPCSession:
    """A session served in this process: the RPC interface without a server."""
    return RPCSession(LocalTransport(), Limits())
