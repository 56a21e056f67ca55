"""One RPC session on the serving side: the objects a client made and the requests on them.

`SessionHandler.handle` answers one request (header and body in, header and body buffers out)
and keeps the session's state: files uploaded into its private directory, loaded modules,
functions, graph executors and arrays, each under an integer handle. The server runs every
session in a process of its own (`python -m xtvm.rpc.session`, see `serve_connection`), so a
kernel that crashes ends only that process; `LocalSession` runs a handler in the caller's.
"""

from __future__ import annotations

import _ctypes
import ctypes
import gc
import hmac
import json
import math
import os
import signal
import socket
import sys
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from xtvm.rpc.protocol import (
    NON_FINITE,
    PROTOCOL_VERSION,
    Limits,
    ProtocolError,
    check_descriptor,
    check_file_name,
    get,
    get_int,
    get_name,
    pack_tensors,
    receive,
    send,
    split_tensors,
)

# The methods a remote graph executor answers (TVM's graph executor module functions).
GRAPH_METHODS = frozenset(
    (
        "set_input",
        "run",
        "get_output",
        "get_input",
        "get_num_inputs",
        "get_num_outputs",
        "get_input_info",
    )
)
HANDSHAKE_TIMEOUT_S = 10.0
MAX_NUMBER = 1 << 24
MAX_REPEAT = 1000
MAX_MIN_REPEAT_MS = 60_000

Body = bytes | bytearray
Reply = tuple[dict[str, Any], list[Any]]


class SessionLimitError(RuntimeError):
    """A request would take the session past a bound it may reach again (loaded modules)."""


class PhdrInfo(ctypes.Structure):
    """The start of glibc's `struct dl_phdr_info`: an object's base address and name."""

    _fields_ = [("addr", ctypes.c_void_p), ("name", ctypes.c_char_p)]


PHDR_CALLBACK = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(PhdrInfo), ctypes.c_size_t, ctypes.c_void_p
)
PINNED: dict[str, ctypes.CDLL] = {}  # the dependencies of loaded modules, kept for good


def loaded_objects() -> set[str]:
    """The names of the shared objects loaded in this process (`dl_iterate_phdr`)."""
    names: set[str] = set()

    def add(info: Any, size: int, data: Any) -> int:
        name = info.contents.name
        if name:
            names.add(os.fsdecode(name))
        return 0

    ctypes.CDLL(None).dl_iterate_phdr(PHDR_CALLBACK(add), None)
    return names


def load_pinning_dependencies(path: Path) -> Any:
    """`load_module(path)`, keeping loaded for good every object it brought in besides the
    library itself (a runtime whose threads outlive a call, as libgomp's pool does, must not
    go when the module is unloaded)."""
    from xtvm.runtime.loader import load_module

    before = loaded_objects()
    module = load_module(path)
    for name in loaded_objects() - before - {str(path.resolve())}:
        PINNED.setdefault(name, ctypes.CDLL(name))
    return module


def unload_when_unused(library: ctypes.CDLL) -> None:
    """Unload `library` (dlclose) once nothing refers to its ctypes handle: a long session that
    loads and frees many libraries keeps only the live ones mapped. Safe here, where no array
    of the session points into a library (executors copy their weights)."""
    unload = weakref.finalize(library, _ctypes.dlclose, library._handle)  # type: ignore[attr-defined]
    unload.atexit = False  # a process that ends unmaps everything anyway


class SessionHandler:
    """The state of one session and its answer to each request kind."""

    def __init__(self, directory: Path, limits: Limits) -> None:
        self.directory = directory
        self.limits = limits
        self.objects: dict[int, tuple[str, Any]] = {}
        self.sizes: dict[int, int] = {}  # bytes owned by each handle (arrays)
        self.uploaded: dict[str, int] = {}
        self.libraries: weakref.WeakSet[ctypes.CDLL] = weakref.WeakSet()  # loaded ones
        self.next_handle = 1
        self.requests: dict[str, Callable[[dict[str, Any], Body], Reply]] = {
            "upload": self.upload,
            "download": self.download,
            "remove": self.remove,
            "load_module": self.load_module,
            "get_function": self.get_function,
            "call": self.call,
            "alloc": self.alloc,
            "copy_to": self.copy_to,
            "copy_from": self.copy_from,
            "time_evaluator": self.time_evaluator,
            "free": self.free,
        }

    # -- bookkeeping ---------------------------------------------------------------------------

    def used_bytes(self) -> int:
        return sum(self.sizes.values()) + sum(self.uploaded.values())

    def reserve(self, nbytes: int) -> None:
        if self.used_bytes() + nbytes > self.limits.max_session_bytes:
            raise ProtocolError(
                f"session memory limit of {self.limits.max_session_bytes} bytes exceeded"
            )

    def add(self, kind: str, value: Any, nbytes: int = 0) -> int:
        if len(self.objects) >= self.limits.max_handles:
            raise ProtocolError(f"more than {self.limits.max_handles} live objects")
        handle = self.next_handle
        self.next_handle += 1
        self.objects[handle] = (kind, value)
        if nbytes:
            self.sizes[handle] = nbytes
        return handle

    def lookup(self, header: dict[str, Any], field: str, *kinds: str) -> Any:
        handle = get(header, field, int)
        kind, value = self.objects.get(handle, ("", None))
        if kind not in kinds:
            raise ProtocolError(f"no {' or '.join(kinds)} with handle {handle}")
        return value

    def handle(self, header: dict[str, Any], body: Body) -> Reply:
        """The reply to one request; a `ProtocolError` means the session must end."""
        request = self.requests.get(header["kind"])
        if request is None:
            raise ProtocolError(f"unknown message kind {header['kind'][:64]!r}")
        return request(header, body)

    def answer(self, header: dict[str, Any], body: Body) -> Reply:
        """The reply to one request, an error of it included (`fatal` when the session must
        end); other requests go on after an error."""
        try:
            return self.handle(header, body)
        except ProtocolError as exc:
            return error_header(exc, fatal=True), []
        except Exception as exc:
            return error_header(exc), []

    # -- files and modules ---------------------------------------------------------------------

    def path_of(self, header: dict[str, Any]) -> Path:
        return self.directory / check_file_name(get_name(header, "name"))

    def upload(self, header: dict[str, Any], body: Body) -> Reply:
        path = self.path_of(header)
        self.uploaded.pop(path.name, None)
        self.reserve(len(body))
        # A new file, not the old one rewritten: a library loaded from it keeps its own pages.
        path.unlink(missing_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        with os.fdopen(os.open(path, flags, 0o600), "wb") as file:
            file.write(body)
        self.uploaded[path.name] = len(body)
        return {"kind": "ok"}, []

    def download(self, header: dict[str, Any], body: Body) -> Reply:
        path = self.path_of(header)
        if not path.is_file() or path.stat().st_size > self.limits.max_body:
            raise FileNotFoundError(f"no file '{path.name}' in the session directory")
        return {"kind": "ok"}, [path.read_bytes()]

    def remove(self, header: dict[str, Any], body: Body) -> Reply:
        path = self.path_of(header)
        if not path.is_file():
            raise FileNotFoundError(f"no file '{path.name}' uploaded in this session")
        path.unlink()
        self.uploaded.pop(path.name, None)
        return {"kind": "ok"}, []

    def load_module(self, header: dict[str, Any], body: Body) -> Reply:
        path = self.path_of(header)
        if not path.is_file():
            raise FileNotFoundError(f"no file '{path.name}' uploaded in this session")
        if len(self.libraries) >= self.limits.max_modules:
            gc.collect()  # libraries only garbage (in a reference cycle) still count
        if len(self.libraries) >= self.limits.max_modules:
            raise SessionLimitError(
                f"{len(self.libraries)} modules are loaded in this session, the most it may "
                "hold: free the modules no longer used (their functions and executors too)"
            )
        module = load_pinning_dependencies(path)
        library = module._keepalive
        assert isinstance(library, ctypes.CDLL)
        unload_when_unused(library)
        self.libraries.add(library)
        handle = self.add("module", module)
        functions = sorted(module.signatures)
        if module.default_factory is not None:  # a relay.build or an AOT library
            functions.append("default")
        return {"kind": "ok", "handle": handle, "functions": functions}, []

    def get_function(self, header: dict[str, Any], body: Body) -> Reply:
        name = get_name(header, "name")
        owner = self.lookup(header, "module", "module", "graph")
        if isinstance(owner, GraphSession):
            if name not in GRAPH_METHODS:
                raise AttributeError(f"a graph executor has no function '{name}'")
            return {"kind": "ok", "handle": self.add("method", (owner, name))}, []
        if name == "default" and name not in owner.signatures and owner.default_factory:
            return {"kind": "ok", "handle": self.add("factory", owner["default"])}, []
        function = owner.get_function(name)
        params = [p.to_json() for p in function.params]
        return {"kind": "ok", "handle": self.add("function", function), "params": params}, []

    # -- calls ---------------------------------------------------------------------------------

    def arguments(self, header: dict[str, Any], body: Body) -> list[Any]:
        """The call arguments a request lists: arrays by handle, tensors inline, scalars."""
        inline = split_tensors(header.get("tensors", []), body, self.limits)
        args = get(header, "args", list)
        if len(args) > 4096:
            raise ProtocolError("too many arguments")
        values: list[Any] = []
        for arg in args:
            if not isinstance(arg, dict) or len(arg) != 1:
                raise ProtocolError("an argument is an object with one field")
            [(kind, value)] = arg.items()
            if kind == "array":
                values.append(self.lookup(arg, "array", "array"))
            elif kind == "tensor":
                values.append(inline[get_int(arg, "tensor", 0, len(inline) - 1)])
            elif kind == "float" and isinstance(value, str) and value in NON_FINITE:
                values.append(NON_FINITE[value])
            elif (
                kind in ("int", "float", "str", "device")
                and type(value)
                is {
                    "int": int,
                    "float": float,
                    "str": str,
                    "device": list,
                }[kind]
            ):
                values.append(Device(*value) if kind == "device" else value)
            else:
                raise ProtocolError(f"malformed argument {json.dumps(arg)[:80]}")
        return values

    def call(self, header: dict[str, Any], body: Body) -> Reply:
        args = self.arguments(header, body)
        kind, target = self.objects.get(get(header, "function", int), ("", None))
        if kind == "function":
            target(*args)
            return {"kind": "ok", "ret": None}, []
        if kind == "factory":
            graph = GraphSession(target(None))
            inputs = list(graph.executor.input_order)
            return {"kind": "ok", "ret": {"module": self.add("graph", graph), "inputs": inputs}}, []
        if kind == "method":
            graph, name = target
            return {"kind": "ok", "ret": self.graph_call(graph, name, args)}, []
        raise ProtocolError(f"no function with handle {header.get('function')}")

    def graph_call(self, graph: GraphSession, name: str, args: Sequence[Any]) -> Any:
        executor = graph.executor
        if name == "set_input":
            key, value = args
            executor.set_input(key, np.asarray(value))
            return None
        if name == "run":
            executor.run()
            return None
        if name in ("get_output", "get_input"):
            array = getattr(executor, name)(*args)._data
            return {
                "array": self.add("array", array),
                "dtype": str(array.dtype),
                "shape": list(array.shape),
            }
        if name == "get_input_info":
            shapes = {
                n: list(executor.entries[executor.inputs[n]].shape) for n in executor.input_order
            }
            dtypes = {
                n: str(executor.entries[executor.inputs[n]].dtype) for n in executor.input_order
            }
            return {"shapes": shapes, "dtypes": dtypes}
        return {"int": getattr(executor, name)()}

    def time_evaluator(self, header: dict[str, Any], body: Body) -> Reply:
        from xtvm.runtime.module import time_function

        args = self.arguments(header, body)
        number = get_int(header, "number", 1, MAX_NUMBER)
        repeat = get_int(header, "repeat", 1, MAX_REPEAT)
        min_repeat_ms = get(header, "min_repeat_ms", (int, float))
        if not 0 <= min_repeat_ms <= MAX_MIN_REPEAT_MS:
            raise ProtocolError(f"min_repeat_ms must be within [0, {MAX_MIN_REPEAT_MS}]")
        kind, target = self.objects.get(get(header, "function", int), ("", None))
        if kind == "function":
            converted = target.convert(args)
            raw = target._function
            result = time_function(lambda: raw(*converted), number, repeat, min_repeat_ms)
        elif kind == "method" and target[1] == "run":
            result = time_function(target[0].executor.run, number, repeat, min_repeat_ms)
        else:
            raise ProtocolError("time_evaluator times a kernel or a graph's 'run'")
        return {"kind": "ok", "results": result.results}, []

    # -- arrays --------------------------------------------------------------------------------

    def alloc(self, header: dict[str, Any], body: Body) -> Reply:
        """A new array: zeros of `descriptor`'s type, or the one tensor the body carries."""
        if "tensors" in header:
            [array] = split_tensors(header["tensors"], body, self.limits) or [None]
            if array is None:
                raise ProtocolError("'alloc' carries exactly one tensor")
        else:
            dtype, shape, _ = check_descriptor(header.get("descriptor"), self.limits)
            self.reserve(int(np.prod(shape, dtype=np.int64)) * dtype.itemsize)
            array = np.zeros(shape, dtype)
        self.reserve(array.nbytes)
        return {"kind": "ok", "handle": self.add("array", array, array.nbytes)}, []

    def copy_to(self, header: dict[str, Any], body: Body) -> Reply:
        array = self.lookup(header, "array", "array")
        [values] = split_tensors(header.get("tensors"), body, self.limits) or [None]
        if values is None or values.shape != array.shape:
            raise ValueError(f"copyfrom: the values must have the array's shape {array.shape}")
        array[...] = values
        return {"kind": "ok"}, []

    def copy_from(self, header: dict[str, Any], body: Body) -> Reply:
        array = np.ascontiguousarray(self.lookup(header, "array", "array"))
        descriptors, buffers = pack_tensors([array])
        return {"kind": "ok", "tensors": descriptors}, buffers

    def free(self, header: dict[str, Any], body: Body) -> Reply:
        handles = get(header, "handles", list)
        for handle in handles:
            if isinstance(handle, int):
                self.objects.pop(handle, None)
                self.sizes.pop(handle, None)
        return {"kind": "ok"}, []


class GraphSession:
    """A graph executor created in a session (its own object, so it has a handle kind)."""

    def __init__(self, executor: Any) -> None:
        self.executor = executor


class Device:
    """A device argument of a call (`[type, id]`); the session runs everything on the CPU."""

    def __init__(self, device_type: Any = "cpu", device_id: Any = 0) -> None:
        if device_type != "cpu" or not isinstance(device_id, int):
            raise ValueError(f"this server has only cpu devices, not {device_type!r}")
        self.device_type, self.device_id = device_type, device_id


# ---------------------------------------------------------------------------------------------
# Serving one connection


def error_header(exc: BaseException, fatal: bool = False) -> dict[str, Any]:
    """An `error` reply; `fatal` when the session ends with it."""
    header = {"kind": "error", "type": type(exc).__name__, "message": str(exc)[:4096]}
    return header | {"fatal": True} if fatal else header


def handshake(conn: socket.socket, key: str, limits: Limits) -> dict[str, Any] | None:
    """Answer the client's `hello` (version and key checked): its header, None if refused."""
    conn.settimeout(HANDSHAKE_TIMEOUT_S)
    try:
        message = receive(conn, limits)
        if message is None:
            return None
        header, _ = message
        if header["kind"] != "hello" or header.get("version") != PROTOCOL_VERSION:
            raise ProtocolError(f"expected 'hello' of protocol version {PROTOCOL_VERSION}")
        offered = header.get("key", "")
        if not isinstance(offered, str) or not hmac.compare_digest(offered.encode(), key.encode()):
            raise ProtocolError("wrong key: the server refused the session")
    except (ProtocolError, OSError) as exc:
        try:
            send(conn, error_header(exc, fatal=True))
        except OSError:
            pass
        return None
    conn.settimeout(None)
    send(conn, {"kind": "hello", "version": PROTOCOL_VERSION, "server": "xtvm"})
    return header


def serve_connection(conn: socket.socket, directory: Path, key: str, limits: Limits) -> None:
    """Serve one client until it shuts the session down, closes, or breaks the protocol.

    A `session_timeout` (seconds) in the client's hello arms SIGALRM: the process ends when it
    runs out, and the server tells the client.
    """
    hello = handshake(conn, key, limits)
    if hello is None:
        return
    timeout = hello.get("session_timeout", 0)
    if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0:
        signal.alarm(max(1, math.ceil(min(timeout, 1e7))))
    handler = SessionHandler(directory, limits)
    while True:
        try:
            message = receive(conn, limits)
        except ProtocolError as exc:
            send(conn, error_header(exc, fatal=True))
            return
        if message is None:
            return
        header, body = message
        if header["kind"] == "shutdown":
            send(conn, {"kind": "ok"})
            return
        reply, buffers = handler.answer(header, body)
        send(conn, reply, buffers)
        if reply.get("fatal"):
            return


def worker_main(control_fd: int) -> None:
    """A standby session process: wait for one connection from the server, then serve it."""
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crashing kernel leaves no core file
    import xtvm.runtime.graph_executor  # noqa: F401  (loaded before the connection arrives)

    control = socket.socket(fileno=control_fd)
    data, fds, _, _ = socket.recv_fds(control, 1 << 16, 1)
    if not fds:
        return  # the server went away before handing over a connection
    config = json.loads(data.decode())
    conn = socket.socket(fileno=fds[0])
    limits = Limits(**config["limits"])
    try:
        serve_connection(conn, Path(config["directory"]), config["key"], limits)
    except OSError:
        pass  # the client went away
    finally:
        conn.close()


if __name__ == "__main__":
    worker_main(int(sys.argv[1]))
