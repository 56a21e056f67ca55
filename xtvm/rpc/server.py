"""The RPC server: accepts sessions and runs each in a process of its own.

The listening process never parses a client's messages nor runs its code: it hands every
accepted connection (the socket itself, over a Unix socket) to a standby session process
already started (`python -m xtvm.rpc.session`) and starts the next one. When a session
process dies of a signal (a kernel's segfault, its session timeout) the server writes an
`error` message on the connection and closes it; the server goes on serving. With a tracker,
the server registers its key and port and reports its free session slots.
"""

from __future__ import annotations

import json
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

from xtvm.rpc.protocol import Limits, Listener, ProtocolError, receive, send


class Worker:
    """A session process waiting for its connection on a Unix socket."""

    def __init__(self) -> None:
        self.control, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        with child:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "xtvm.rpc.session", str(child.fileno())],
                pass_fds=[child.fileno()],
                stdin=subprocess.DEVNULL,
            )

    def stop(self) -> None:
        self.control.close()
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


def death_message(returncode: int) -> str:
    if returncode == -signal.SIGALRM:
        return "the session timed out (session_timeout) and was ended by the server"
    if returncode < 0:
        name = signal.Signals(-returncode).name
        return f"the session process was killed by {name}; the session has ended"
    return f"the session process failed (exit status {returncode}); the session has ended"


class Server(Listener):
    """Serve RPC sessions on `host:port` (port 0: any free port, see `.port`).

    `key`: clients must present it (and the tracker matches requests by it); `tracker`:
    `(host, port)` of a tracker to register with; `max_sessions`: sessions at once.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 9090,
        key: str = "",
        tracker: tuple[str, int] | None = None,
        limits: Limits | None = None,
        max_sessions: int = 4,
        custom_addr: str | None = None,
    ) -> None:
        super().__init__(host, port)
        self.key = key
        self.limits = limits or Limits()
        self.max_sessions = max_sessions
        self.custom_addr = custom_addr
        self.tracker = tracker
        self.sessions: dict[int, subprocess.Popen[bytes]] = {}
        self.started = 0  # sessions begun so far (reported to the tracker)
        self.standby: Worker | None = None

    def start(self) -> Server:
        """Begin serving in background threads; returns self."""
        self.standby = Worker()
        self.spawn(self.accept_loop)
        if self.tracker is not None:
            self.spawn(self.tracker_loop)
        return self

    def serve_forever(self) -> None:
        self.start()
        try:
            with self.lock:
                while not self.closed:
                    self.lock.wait()
        finally:
            self.close()

    def admit(self, conn: socket.socket) -> bool:
        return len(self.sessions) < self.max_sessions

    def handle(self, conn: socket.socket, peer: str, admitted: bool) -> None:
        if not admitted:
            refuse(conn, f"the server is busy ({self.max_sessions} sessions)")
            return
        self.begin_session(conn)

    def begin_session(self, conn: socket.socket) -> None:
        worker = self.standby
        assert worker is not None
        self.standby = Worker()
        directory = Path(tempfile.mkdtemp(prefix="xtvm-rpc-"))
        config = {"directory": str(directory), "key": self.key, "limits": asdict(self.limits)}
        try:
            socket.send_fds(worker.control, [json.dumps(config).encode()], [conn.fileno()])
        except OSError:
            worker.stop()
            refuse(conn, "the session process could not start")
            shutil.rmtree(directory, ignore_errors=True)
            return
        worker.control.close()
        with self.lock:
            self.sessions[worker.process.pid] = worker.process
            self.started += 1
            self.lock.notify_all()
        self.spawn(self.watch, worker.process, conn, directory)

    def watch(self, process: subprocess.Popen[bytes], conn: socket.socket, directory: Path) -> None:
        """Wait for a session process; tell the client if it died, then clean up."""
        returncode = process.wait()
        if returncode != 0 and not self.closed:
            refuse(conn, death_message(returncode))
        conn.close()
        shutil.rmtree(directory, ignore_errors=True)
        with self.lock:
            self.sessions.pop(process.pid, None)
            self.lock.notify_all()

    def free_slots(self) -> int:
        return max(0, self.max_sessions - len(self.sessions))

    # -- tracker -------------------------------------------------------------------------------

    def tracker_loop(self) -> None:
        """Keep registered with the tracker, reporting free slots whenever they change."""
        assert self.tracker is not None
        while not self.closed:
            try:
                with socket.create_connection(self.tracker, timeout=5) as link:
                    self.report(link)
            except (OSError, ProtocolError):
                pass
            with self.lock:
                if not self.closed:
                    self.lock.wait(1.0)

    def report(self, link: socket.socket) -> None:
        host = self.custom_addr or (self.host if self.host not in ("", "0.0.0.0", "::") else None)
        send(link, {"kind": "register", "key": self.key, "host": host, "port": self.port})
        limits = Limits(max_header=4096, max_body=0)
        reply = receive(link, limits)
        if reply is None or reply[0]["kind"] != "ok":
            raise ProtocolError("the tracker refused the registration")
        link.settimeout(None)
        reported: tuple[int, int] | None = None
        while True:
            with self.lock:
                if self.closed:
                    return
                state = (self.free_slots(), self.started)
                if state == reported:
                    self.lock.wait(1.0)
                    continue
            send(link, {"kind": "update", "free": state[0], "started": state[1]})
            reported = state

    def release(self) -> None:
        """End every session process and the standby one."""
        with self.lock:
            sessions = list(self.sessions.values())
        if self.standby is not None:
            self.standby.stop()
        for process in sessions:
            process.kill()

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def refuse(conn: socket.socket, message: str) -> None:
    """Send an error message on `conn` and close it."""
    try:
        send(conn, {"kind": "error", "type": "RPCError", "message": message, "fatal": True})
    except OSError:
        pass
    conn.close()
