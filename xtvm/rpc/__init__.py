"""TVM's `tvm.rpc`: run and time compiled code in a remote session.

`connect(host, port, key=...)` opens a session with a server (`python -m xtvm.exec.rpc_server`),
`connect_tracker(host, port).request(key)` one with a server a tracker
(`python -m xtvm.exec.rpc_tracker`) assigns, and `LocalSession()` one in this process. The wire
protocol is specified in docs/rpc-protocol.md.
"""

from xtvm.rpc.client import (
    LocalSession,
    RemoteDevice,
    RemoteModule,
    RemoteNDArray,
    RPCSession,
    connect,
)
from xtvm.rpc.protocol import Limits, ProtocolError, RPCError
from xtvm.rpc.server import Server
from xtvm.rpc.tracker import Tracker, TrackerSession, connect_tracker

__all__ = [
    "Limits",
    "LocalSession",
    "ProtocolError",
    "RPCError",
    "RPCSession",
    "RemoteDevice",
    "RemoteModule",
    "RemoteNDArray",
    "Server",
    "Tracker",
    "TrackerSession",
    "connect",
    "connect_tracker",
]
