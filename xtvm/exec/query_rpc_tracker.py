"""`python -m xtvm.exec.query_rpc_tracker --host 127.0.0.1 --port 9190`: servers and queue."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from xtvm.rpc.protocol import RPCError
from xtvm.rpc.tracker import connect_tracker


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m xtvm.exec.query_rpc_tracker", description=__doc__
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9190)
    args = parser.parse_args(argv)
    try:
        print(connect_tracker(args.host, args.port).text_summary())
    except (OSError, RPCError) as exc:
        print(f"error: cannot query the tracker at {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
