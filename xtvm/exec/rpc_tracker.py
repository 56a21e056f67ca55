"""`python -m xtvm.exec.rpc_tracker --host 127.0.0.1 --port 9190`."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence

from xtvm.rpc.tracker import Tracker


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m xtvm.exec.rpc_tracker", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default loopback)")
    parser.add_argument("--port", type=int, default=9190, help="port (0: any free port)")
    args = parser.parse_args(argv)
    tracker = Tracker(args.host, args.port).start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    print(f"rpc tracker listening on {args.host}:{tracker.port}", flush=True)
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    tracker.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
