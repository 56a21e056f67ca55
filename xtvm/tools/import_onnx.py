"""xtvm-import-onnx: import an ONNX model into relay IR text and a weights file.

    xtvm-import-onnx model.onnx -o model.mlir --params-out model.params.npz

Errors a user can cause (a missing file, an unsupported operator, a malformed model) are one
message and exit 1; a bug inside xtvm prints `internal error:` (a traceback only with --debug).
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

# numpy, onnx and the IR are imported once the arguments are read: `--help` starts fast.


def parse_shape(text: str) -> tuple[str, tuple[int, ...]]:
    """`data:1x3x224x224` → ("data", (1, 3, 224, 224))."""
    name, sep, dims = text.rpartition(":")
    try:
        if not sep or not name:
            raise ValueError
        return name, tuple(int(d) for d in dims.split("x")) if dims else ()
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"invalid shape '{text}' (expected NAME:DIMxDIM..., e.g. data:1x3x224x224)"
        ) from None


def build_argparser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        allow_abbrev=False,
        prog="xtvm-import-onnx",
        description="Import an ONNX model into relay IR.",
    )
    p.add_argument("input", help="the .onnx model")
    p.add_argument("-o", "--output", default="-", help="output IR file (default: stdout)")
    p.add_argument(
        "--params-out", metavar="FILE.npz", help="write the weights (params) to this npz file"
    )
    p.add_argument(
        "--shape",
        action="append",
        type=parse_shape,
        default=[],
        metavar="NAME:DIMS",
        help="static shape of an input with dynamic dimensions, e.g. data:1x3x224x224",
    )
    p.add_argument("--dtype", default="float32", help="element type of untyped inputs")
    p.add_argument("--print-debuginfo", action="store_true", help="print op locations")
    p.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    return p


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from xtvm.dialects.registry import default_context
    from xtvm.frontends.onnx import import_onnx
    from xtvm.ir.printer import print_ir

    shapes = dict(args.shape) or None
    module, params = import_onnx(Path(args.input), shape=shapes, dtype=args.dtype)
    text = print_ir(module, default_context(), debuginfo=args.print_debuginfo)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text)
    if args.params_out:
        np.savez(args.params_out, **{k: np.require(v, requirements="C") for k, v in params.items()})
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_argparser().parse_args(argv)
    from xtvm.frontends.onnx import OnnxImportError

    try:
        return run(args)
    except OnnxImportError as exc:
        sys.stderr.write(f"{args.input}: error: {exc}\n")
        return 1
    except OSError as exc:
        sys.stderr.write(f"error: cannot write output: {exc.strerror}: {exc.filename}\n")
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        sys.stderr.write(f"internal error: {type(exc).__name__}: {exc}\n")
        if args.debug:
            traceback.print_exc()
        else:
            sys.stderr.write("(run with --debug for a traceback)\n")
        return 2


if __name__ == "__main__":
    sys.exit(main())
