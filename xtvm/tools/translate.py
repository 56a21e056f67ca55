"""xtvm-translate: tir (or te) IR text to target code.

    xtvm-translate kernel.mlir --target llvm                 # LLVM IR on stdout
    xtvm-translate kernel.mlir --target 'llvm -mcpu=haswell' --emit asm -o kernel.s
    xtvm-translate kernel.mlir --emit obj -o kernel.o
    xtvm-translate kernel.mlir --target c                    # C99 source
    xtvm-translate kernel.mlir --target cuda                 # CUDA C (tir-split-host-device run)

te kernels in the input are lowered with `convert-te-to-tir` first. `--emit llvm` prints the
IR before LLVM's optimizations unless `--optimized` is given (golden tests want the former).
Errors a user can cause are located diagnostics and exit 1.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp

from xtvm.backends.llvm import TargetError, compile_module
from xtvm.ir.diagnostics import DiagnosticError, Location, SourceFile
from xtvm.ir.registry import default_context
from xtvm.ir.verify import failure_error, refuse_multiple_blocks, verify_diagnostics
from xtvm.tools.cli import run_tool
from xtvm.tools.opt import read_input

EMITS = ("llvm", "asm", "obj")


def build_argparser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="xtvm-translate", description="Translate tir to target code.")
    p.add_argument("input", nargs="?", default="-", help="input IR file (default: stdin)")
    p.add_argument("-o", "--output", default="-", help="output file (default: stdout)")
    p.add_argument("--target", default="llvm", help="target string, e.g. 'llvm -mcpu=znver4'")
    p.add_argument("--emit", choices=EMITS, default="llvm", help="what to write (default: llvm)")
    p.add_argument("--optimized", action="store_true", help="LLVM IR after the O3 pipeline")
    p.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    return p


def translate(args: argparse.Namespace) -> int:
    text, filename = read_input(args.input)
    source = SourceFile(filename, text)
    ctx = default_context()
    kind = args.target.split()[0] if args.target.split() else "llvm"
    try:
        module = ctx.parse(text, filename)
        diagnostics = verify_diagnostics(module, {filename: source})
        if diagnostics:
            raise DiagnosticError(diagnostics)
        refuse_multiple_blocks(module, f"the {kind} backend")
        if any(op.name == "te.compute" for op in module.walk()):
            from xtvm.passes.convert_te_to_tir import ConvertTeToTirPass

            ConvertTeToTirPass().apply(ctx.xdsl_context, module)
        if kind in ("c", "cuda"):
            output_source = render_source(module, kind)
        else:
            compiled = compile_module(module, args.target)
    except DiagnosticError as exc:
        for d in exc.diagnostics:  # passes know the file name only: show the source line
            if d.location is not None and d.location.source is not None:
                d.location = Location(source, d.location.line, d.location.column)
        raise
    except TargetError:
        raise
    except Exception as exc:
        # A backend tripping over input it does not expect: point at the op it was on.
        if args.debug:
            traceback.print_exception(exc)
        raise failure_error(exc, f"cannot translate to {kind}", {filename: source}) from None
    if kind in ("c", "cuda"):
        output: str | bytes = output_source
    elif args.emit == "llvm":
        output = compiled.llvm_ir() if args.optimized else compiled.ir_text
    elif args.emit == "asm":
        output = compiled.assembly()
    else:
        output = compiled.object_code()
    if args.output == "-":
        if isinstance(output, bytes):
            sys.stdout.buffer.write(output)
        else:
            sys.stdout.write(output)
    elif isinstance(output, bytes):
        Path(args.output).write_bytes(output)
    else:
        Path(args.output).write_text(output)
    return 0


def render_source(module: ModuleOp, kind: str) -> str:
    """The C (`c`) or CUDA C (`cuda`) source of the tir kernels of `module`."""
    if kind == "c":
        from xtvm.backends.c import render_c

        return render_c(module)
    from xtvm.backends.cuda import render_cuda

    return render_cuda(module)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_argparser().parse_args(argv)
    return run_tool("xtvm-translate", translate, args, (TargetError,))


if __name__ == "__main__":
    sys.exit(main())
