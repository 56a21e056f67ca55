"""xtvm-rpc-device: build the RPC server of the C device runtime for a target triple.

    xtvm-rpc-device --triple aarch64-linux-gnu -o xtvm-rpc-device [--cc COMPILER]

The binary (libc, libdl and libm only) runs on the device as
`xtvm-rpc-device --host H --port P [--key K] [--tracker H:P]` and speaks the protocol of
docs/rpc-protocol.md; without `--triple` it is built for this machine.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from xtvm.rpc.device import DeviceBuildError, build_device_server
from xtvm.tools.cli import run_tool


def build_argparser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="xtvm-rpc-device",
        description="Build the device RPC server (C, no Python) for a target triple.",
        allow_abbrev=False,
    )
    p.add_argument("--triple", help="target triple, e.g. aarch64-linux-gnu (default: this machine)")
    p.add_argument("-o", "--output", required=True, help="path of the binary to write")
    p.add_argument("--cc", help="C compiler to use (default: TRIPLE-gcc, or $CC for the host)")
    return p


def run(args: argparse.Namespace) -> int:
    path = build_device_server(args.output, args.triple, args.cc)
    print(f"wrote {path}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_argparser().parse_args(argv)
    return run_tool("xtvm-rpc-device", run, args, (DeviceBuildError,))


if __name__ == "__main__":
    sys.exit(main())
