"""The RPC tracker: servers register under a key, clients request a server of a key.

A server keeps one connection open (`register`, then `update` with its free session slots and
the number of sessions it has begun); a client's `request` waits until a server of that key
has a free slot, highest priority first (then first come), and is answered with the server's
address. A slot handed out counts as taken until the server reports one more session begun,
or for `PENDING_S` seconds. Messages use the RPC framing (docs/rpc-protocol.md), JSON only.
"""

from __future__ import annotations

import itertools
import socket
import time
from dataclasses import dataclass, field
from typing import Any

from xtvm.rpc.client import RPCSession, connect
from xtvm.rpc.protocol import (
    Limits,
    Listener,
    ProtocolError,
    RPCError,
    get,
    get_int,
    receive,
    send,
)

PENDING_S = 10.0
LIMITS = Limits(max_header=1 << 16, max_body=0)
SUMMARY_LIMITS = Limits(max_header=1 << 22, max_body=0)


@dataclass
class Registration:
    key: str
    host: str
    port: int
    free: int = 0
    started: int = 0
    pending: list[float] = field(default_factory=list)  # expiry of each slot handed out

    def available(self, now: float) -> int:
        self.pending = [t for t in self.pending if t > now]
        return self.free - len(self.pending)


class Tracker(Listener):
    """The tracker on `host:port` (port 0: any free port, see `.port`)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 9190) -> None:
        super().__init__(host, port)
        self.servers: dict[int, Registration] = {}
        self.waiting: list[tuple[int, int, str]] = []  # (-priority, ticket, key)
        self.tickets = itertools.count()
        self.ids = itertools.count()
        self.connections: set[socket.socket] = set()

    def start(self) -> Tracker:
        self.spawn(self.accept_loop)
        return self

    def admit(self, conn: socket.socket) -> bool:
        self.connections.add(conn)
        return True

    def handle(self, conn: socket.socket, peer: str, admitted: bool) -> None:
        self.spawn(self.serve, conn, peer)

    def serve(self, conn: socket.socket, peer: str) -> None:
        try:
            message = receive(conn, LIMITS)
            if message is None:
                return
            header, _ = message
            if header["kind"] == "register":
                self.serve_server(conn, header, peer)
            elif header["kind"] == "request":
                self.serve_request(conn, header)
            elif header["kind"] == "summary":
                send(conn, {"kind": "ok", "summary": self.summary()})
            else:
                raise ProtocolError(f"unknown tracker message {header['kind'][:64]!r}")
        except (OSError, ProtocolError) as exc:
            try:
                send(conn, {"kind": "error", "message": str(exc), "fatal": True})
            except OSError:
                pass
        finally:
            with self.lock:
                self.connections.discard(conn)
            conn.close()

    def serve_server(self, conn: socket.socket, header: dict[str, Any], peer: str) -> None:
        """A registered server: its updates until it disconnects."""
        host = header.get("host") or peer
        if not isinstance(host, str) or len(host) > 255:
            raise ProtocolError("'register': bad host")
        key = get(header, "key", str)[:255]
        registration = Registration(key, host, get_int(header, "port", 1, 65535))
        ident = next(self.ids)
        send(conn, {"kind": "ok"})
        with self.lock:
            self.servers[ident] = registration
        try:
            while (message := receive(conn, LIMITS)) is not None:
                update, _ = message
                if update["kind"] != "update":
                    raise ProtocolError("a registered server sends 'update' messages")
                free = get_int(update, "free", 0, 1 << 20)
                started = get_int(update, "started", 0, 1 << 62)
                with self.lock:
                    begun = max(0, started - registration.started)
                    del registration.pending[:begun]
                    registration.free, registration.started = free, started
                    self.lock.notify_all()
        finally:
            with self.lock:
                self.servers.pop(ident, None)
                self.lock.notify_all()

    def serve_request(self, conn: socket.socket, header: dict[str, Any]) -> None:
        """Wait for a free server of the key, by priority; answer with its address."""
        key = get(header, "key", str)[:255]
        priority = get_int(header, "priority", -(1 << 30), 1 << 30)
        conn.settimeout(None)
        entry = (-priority, next(self.tickets), key)
        with self.lock:
            self.waiting.append(entry)
            try:
                while True:
                    if self.closed:
                        raise ProtocolError("the tracker is closing")
                    now = time.monotonic()
                    first = min(e for e in self.waiting if e[2] == key)
                    candidates = [
                        r for r in self.servers.values() if r.key == key and r.available(now) > 0
                    ]
                    if first == entry and candidates:
                        chosen = max(candidates, key=lambda r: r.available(now))
                        chosen.pending.append(now + PENDING_S)
                        break
                    self.lock.wait(1.0)
            finally:
                self.waiting.remove(entry)
                self.lock.notify_all()
        send(conn, {"kind": "ok", "host": chosen.host, "port": chosen.port})

    def summary(self) -> dict[str, Any]:
        with self.lock:
            now = time.monotonic()
            servers = [
                {"key": r.key, "host": r.host, "port": r.port, "free": max(0, r.available(now))}
                for r in self.servers.values()
            ]
            queue: dict[str, int] = {}
            for _, _, key in self.waiting:
                queue[key] = queue.get(key, 0) + 1
        return {"servers": servers, "queue": queue}

    def release(self) -> None:
        """Shut every open connection down."""
        with self.lock:
            connections = list(self.connections)
        for conn in connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def __enter__(self) -> Tracker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


class TrackerSession:
    """A client of a tracker (TVM's `rpc.connect_tracker(host, port)`)."""

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port

    def ask(self, header: dict[str, Any], timeout: float | None) -> dict[str, Any]:
        with socket.create_connection((self.host, self.port), timeout=30) as sock:
            send(sock, header)
            sock.settimeout(timeout)
            try:
                reply = receive(sock, SUMMARY_LIMITS)
            except TimeoutError:
                raise RPCError(
                    f"no server of key '{header.get('key')}' within {timeout} s"
                ) from None
        if reply is None or reply[0]["kind"] != "ok":
            message = "closed" if reply is None else reply[0].get("message", "")
            raise RPCError(f"the tracker refused the request: {message}")
        return reply[0]

    def request(
        self,
        key: str,
        priority: int = 1,
        session_timeout: float = 0,
        max_retry: int = 5,
        timeout: float | None = None,
    ) -> RPCSession:
        """A session with a free server registered under `key` (waits for one; `timeout`
        bounds the wait, None waits as long as it takes)."""
        last: Exception | None = None
        for _ in range(max(1, max_retry)):
            reply = self.ask({"kind": "request", "key": key, "priority": priority}, timeout)
            try:
                return connect(reply["host"], reply["port"], key, session_timeout)
            except (OSError, RPCError) as exc:
                last = exc
        raise RPCError(f"cannot open a session of key '{key}' after {max_retry} tries: {last}")

    def summary(self) -> dict[str, Any]:
        return self.ask({"kind": "summary"}, 30)["summary"]

    def text_summary(self) -> str:
        summary = self.summary()
        lines = ["Server List", "-" * 40, "server-address           key       free"]
        for s in summary["servers"]:
            lines.append(f"{s['host']}:{s['port']:<12} {s['key']:<9} {s['free']}")
        lines += ["", "Queue Status", "-" * 40, "key       waiting"]
        lines += [f"{k:<9} {n}" for k, n in summary["queue"].items()]
        return "\n".join(lines)


def connect_tracker(url: str, port: int) -> TrackerSession:
    return TrackerSession(url, port)
