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
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from xtvm.ir.diagnostics import DiagnosticError, Location, SourceFile
from xtvm.tools.cli import run_tool
from xtvm.tools.opt import read_input

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

# The IR, the dialects and the backend a translation needs are imported when it runs, the
# llvm backend (llvmlite, numpy) only for llvm targets: `--help` and `--target c` start fast.

EMITS = ("llvm", "asm", "obj")


def build_argparser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="xtvm-translate", description="Translate tir to target code.", allow_abbrev=False
    )
    p.add_argument("input", nargs="?", default="-", help="input IR file (default: stdin)")
    p.add_argument("-o", "--output", default="-", help="output file (default: stdout)")
    p.add_argument("--target", default="llvm", help="target string, e.g. 'llvm -mcpu=znver4'")
    p.add_argument(
        "--emit",
        choices=EMITS,
        help="for llvm targets: LLVM IR, assembly or an object file (default: llvm); "
        "c and cuda targets write source only",
    )
    p.add_argument(
        "--optimized", action="store_true", help="LLVM IR after the O3 pipeline (llvm targets)"
    )
    p.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    return p


def translate(args: argparse.Namespace) -> int:
    from xdsl.dialects import func

    from xtvm.dialects.registry import default_context
    from xtvm.ir.verify import failure_error, refuse_multiple_blocks, verify_diagnostics

    text, filename = read_input(args.input)
    source = SourceFile(filename, text)
    ctx = default_context()
    kind = args.target.split()[0] if args.target.split() else "llvm"
    if kind in ("c", "cuda") and (args.emit not in (None, "llvm") or args.optimized):
        flag = f"--emit {args.emit}" if args.emit not in (None, "llvm") else "--optimized"
        language = "C" if kind == "c" else "CUDA C"
        raise DiagnosticError.at(
            None,
            f"{flag} applies to llvm targets only; --target {kind} writes {language} source "
            "(compile it with xtvm-compile, or translate with --target llvm)",
        )
    try:
        module = ctx.parse(text, filename)
        diagnostics = verify_diagnostics(module, {filename: source})
        if diagnostics:
            raise DiagnosticError(diagnostics)
        refuse_multiple_blocks(module, f"the {kind} backend")
        if not any(isinstance(op, func.FuncOp) for op in module.ops):
            raise DiagnosticError.at(
                Location(source, 1, 1), "nothing to translate: the input has no functions"
            )
        if any(op.name == "te.compute" for op in module.walk()):
            from xtvm.passes.convert_te_to_tir import ConvertTeToTirPass

            ConvertTeToTirPass().apply(ctx.xdsl_context, module)
        if kind in ("c", "cuda"):
            output_source = render_source(module, kind, {filename: source})
        else:
            from xtvm.backends.llvm import compile_module

            compiled = compile_module(module, args.target)
    except DiagnosticError as exc:
        for d in exc.diagnostics:  # passes know the file name only: show the source line
            if d.location is not None and d.location.source is not None:
                d.location = Location(source, d.location.line, d.location.column)
        raise
    except Exception as exc:
        if is_target_error(exc):
            raise
        # A backend tripping over input it does not expect: point at the op it was on.
        if args.debug:
            traceback.print_exception(exc)
        raise failure_error(exc, f"cannot translate to {kind}", {filename: source}) from None
    if kind in ("c", "cuda"):
        output: str | bytes = output_source
    elif args.emit in (None, "llvm"):
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


def render_source(module: ModuleOp, kind: str, sources: Mapping[str, SourceFile]) -> str:
    """The C (`c`) or CUDA C (`cuda`) source of the tir kernels of `module`; a module that
    would give no kernel at all (only the includes) is an error."""
    from xdsl.dialects import func

    from xtvm.ir.verify import op_location

    if kind == "c":
        from xtvm.backends.c import render_c

        return render_c(module)
    from xtvm.backends.cuda.codegen import CUDARenderer, split_if_needed

    renderer = CUDARenderer()
    split_if_needed(module)
    if not renderer.kernels(module):
        first = next(op for op in module.ops if isinstance(op, func.FuncOp))
        raise DiagnosticError.at(
            op_location(first, sources),
            "no GPU kernel to translate: bind loops to threads "
            '(tir.for ... thread_binding "threadIdx.x") so that they become kernels',
        )
    return renderer.render(module)


def is_target_error(exc: Exception) -> bool:
    """Whether `exc` is the llvm backend's `TargetError` (a bad target string: the user's
    error), without importing the backend where it is not loaded."""
    llvm = sys.modules.get("xtvm.backends.llvm.target")
    return llvm is not None and isinstance(exc, llvm.TargetError)


class UserTargetError(Exception):
    """A `TargetError` on its way out of the tool, reported as the user's error."""


def translate_reporting_targets(args: argparse.Namespace) -> int:
    try:
        return translate(args)
    except Exception as exc:
        if is_target_error(exc):
            raise UserTargetError(str(exc)) from None
        raise


def main(argv: Sequence[str] | None = None) -> int:
    args = build_argparser().parse_args(argv)
    return run_tool("xtvm-translate", translate_reporting_targets, args, (UserTargetError,))


if __name__ == "__main__":
    sys.exit(main())
