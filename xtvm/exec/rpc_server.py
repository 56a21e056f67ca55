"""`python -m xtvm.exec.rpc_server --host 127.0.0.1 --port 9090 [--key K] [--tracker H:P]`."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Sequence

from xtvm.rpc.server import Server


def parse_address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got '{text}'")
    return host, int(port)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m xtvm.exec.rpc_server", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default loopback)")
    parser.add_argument("--port", type=int, default=9090, help="port (0: any free port)")
    parser.add_argument("--key", default="", help="key clients must present (tracker matching)")
    parser.add_argument("--tracker", type=parse_address, help="HOST:PORT of a tracker")
    parser.add_argument("--custom-addr", help="address the tracker gives to clients")
    parser.add_argument("--max-sessions", type=int, default=4, help="sessions at once")
    args = parser.parse_args(argv)
    if args.tracker and not args.key:
        parser.error("--tracker needs --key (the key clients request)")
    server = Server(
        args.host, args.port, args.key, args.tracker, None, args.max_sessions, args.custom_addr
    )
    signal.signal(signal.SIGTERM, lambda *_: server.close())
    print(f"rpc server listening on {args.host}:{server.port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
