"""xtvm-compile: an ONNX model or relay IR file compiled into a shared library to run.

    xtvm-compile model.onnx --target llvm -o model.so [--shape data:1x3x224x224]
    xtvm-compile model.mlir --params model.params.npz -o model.so
    xtvm-compile model.onnx --emit graph-json|mlir|llvm|asm -o out.txt
    xtvm-compile model.onnx --emit aot -o model.so   # + model.h: a C API, no Python needed
    xtvm-compile partitioned.mlir --emit external    # what the external codegens generated
    xtvm-compile model.onnx --tuning-records records.json   # kernels tuned by xtvm-tune

The library holds the kernels and embeds the graph JSON and the params (see
`xtvm.runtime.graph_executor.load_factory`), so `xtvm-run model.so` needs no other file.
`--emit` writes the graph JSON, the tir kernels, LLVM IR or assembly instead, or the source of
the functions of external codegens (BYOC; each codegen's description, the C for ccompiler);
the library and the AOT library link those functions in. User errors are
one line and exit 1; an xtvm bug prints `internal error:` (a traceback only with --debug).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xtvm.ir.diagnostics import DiagnosticError, Location, SourceFile
from xtvm.tools.cli import load_npz, read_text, run_tool, with_source
from xtvm.tools.import_onnx import parse_shape

if TYPE_CHECKING:
    import numpy as np

EMITS = ("library", "aot", "graph-json", "mlir", "llvm", "asm", "external")


class ToolError(Exception):
    """A user error: printed as one line, exit 1."""


def build_argparser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        allow_abbrev=False, prog="xtvm-compile", description="Compile a model with relay.build."
    )
    p.add_argument("input", help="an .onnx model or a relay .mlir file with @main")
    p.add_argument("-o", "--output", help="output file (default: INPUT with .so, or stdout)")
    p.add_argument("--target", default="llvm", help="target string (default: llvm, the host)")
    p.add_argument("--emit", choices=EMITS, default="library", help="what to write")
    p.add_argument("--opt-level", type=int, choices=range(4), default=3, help="LLVM opt level")
    add_model_arguments(p)
    p.add_argument(
        "--load-target",
        action="append",
        default=[],
        metavar="FILE.mlir",
        help="register the accel targets of a file (for functions partitioned for 'accel')",
    )
    p.add_argument(
        "--tuning-records",
        metavar="FILE",
        help="AutoTVM records (xtvm-tune --log): each tuned kernel gets its best config",
    )
    p.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    return p


def add_model_arguments(p: argparse.ArgumentParser) -> None:
    """The options `load_model` reads besides the input: ONNX input shapes, relay params."""
    p.add_argument(
        "--shape",
        action="append",
        type=parse_shape,
        default=[],
        metavar="NAME:DIMS",
        help="static shape of an ONNX input, e.g. data:1x3x224x224",
    )
    p.add_argument("--params", metavar="FILE.npz", help="weights of relay.param in an .mlir input")


def load_model(args: argparse.Namespace) -> tuple[object, dict[str, np.ndarray]]:
    """The relay module and params of the input file."""
    path = Path(args.input)
    if not path.is_file():
        raise ToolError(f"cannot open input file '{path}'")
    params = load_npz(args.params, "params") if args.params else {}
    if path.suffix == ".onnx":
        from xtvm.frontends.onnx import OnnxImportError, import_onnx
        from xtvm.frontends.onnx.lean import read_lean

        try:
            module, onnx_params = import_onnx(path, shape=dict(args.shape) or None)
            # The graph keeps no output names: --emit aot reads them (not the weights again).
            structure, _ = read_lean(path, weights=False)
            args.output_names = [o.name for o in structure.graph.output]
        except OnnxImportError as exc:
            raise ToolError(f"{path}: {exc}") from None
        params = {**onnx_params, **params}
    else:
        from xtvm.dialects.registry import default_context

        if args.shape:
            raise ToolError("--shape applies to an ONNX model; a relay file declares its shapes")
        text = read_text(path)
        module = default_context().parse(text, str(path))
        check_main(module, SourceFile(str(path), text))
    check_params(module, params, args.params)
    return module, params


def check_main(module: Any, source: SourceFile) -> None:
    """The relay file has an `@main` relay.build can compile, else a located error."""
    from xtvm.driver.relay_build import BuildError, checked_main

    try:
        checked_main(module)
    except BuildError:
        raise DiagnosticError.at(
            Location(source, 1, 1), "the module has no @main function, which xtvm-compile builds"
        ) from None
    except DiagnosticError as exc:
        raise with_source(exc, source) from None


def check_params(module: Any, params: Mapping[str, np.ndarray], source: str | None) -> None:
    """Every `relay.param` has a value and every value given is used (by a param or an
    argument of @main of that name): a typo in an npz key is an error, not an unset weight."""
    from xdsl.dialects import func

    from xtvm.dialects import relay

    wanted = {op.param_name.data for op in module.walk() if isinstance(op, relay.ParamOp)}
    main = next(
        (f for f in module.ops if isinstance(f, func.FuncOp) and f.sym_name.data == "main"), None
    )
    arguments = set(relay.input_names(main)) if main is not None and main.body.blocks else set()
    missing = sorted(wanted - set(params))
    if missing:
        where = f"'{source}'" if source else "no --params file"
        raise ToolError(
            f"relay.param {', '.join(repr(n) for n in missing)} ha"
            f"{'ve' if len(missing) > 1 else 's'} no value ({where} holds no such key)"
        )
    unused = sorted(set(params) - wanted - arguments)
    if unused:
        raise ToolError(
            f"'{source}': key {', '.join(repr(n) for n in unused)} is no relay.param of the "
            "model nor an argument of @main"
        )


def run(args: argparse.Namespace) -> int:
    from xtvm.dialects.registry import default_context
    from xtvm.driver.relay_build import build
    from xtvm.ir.printer import print_ir

    if args.load_target:
        from xtvm.target import load_all

        for target_file in args.load_target:
            load_all(target_file)
    output = args.output if args.output not in (None, "-") else None
    if output is not None and not Path(output).resolve().parent.is_dir():
        raise ToolError(f"cannot write '{output}': no such directory")
    module, params = load_model(args)
    target = (
        args.target if "-opt-level" in args.target else f"{args.target} -opt-level={args.opt_level}"
    )
    tuned: Any = contextlib.nullcontext()
    if args.tuning_records:
        from xtvm import autotvm

        if not Path(args.tuning_records).is_file():
            raise ToolError(f"cannot open tuning records '{args.tuning_records}'")
        try:
            tuned = autotvm.apply_history_best(args.tuning_records)
        except autotvm.record.RecordError as exc:  # a line that is not a record: file, line
            raise ToolError(str(exc)) from None
    try:
        with tuned:
            # the weights go over to the build: each is freed once a pass has replaced it
            factory = build(module, target, params, release_params=True)  # type: ignore[arg-type]
    except DiagnosticError as exc:  # rendered as it is, with the source line of a relay file
        if Path(args.input).suffix == ".onnx":
            raise
        raise with_source(exc, SourceFile(args.input, read_text(args.input))) from None
    except ValueError as exc:
        raise ToolError(str(exc)) from None
    if args.emit == "library":
        output = Path(args.output or Path(args.input).with_suffix(".so"))
        factory.export_library(output)
        return 0
    if args.emit == "aot":
        from xtvm.driver.aot import AOTError, export_aot

        try:
            output = Path(args.output or Path(args.input).with_suffix(".so"))
            export_aot(factory, output, output_names=getattr(args, "output_names", None))
        except AOTError as exc:
            raise ToolError(str(exc)) from None
        return 0
    if args.emit == "graph-json":
        text = factory.graph_json + "\n"
    elif args.emit == "external":
        modules = factory.lib.imported_modules
        if not modules:
            raise ToolError("--emit external: the model has no function for an external codegen")
        text = "".join(m.get_source() for m in modules)
    elif args.emit == "mlir":
        assert factory.kernels is not None
        text = print_ir(factory.kernels, default_context())
    else:
        text = factory.lib.get_source("ll" if args.emit == "llvm" else "asm")
    if args.output in (None, "-"):
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_argparser().parse_args(argv)
    return run_tool("xtvm-compile", run, args, (ToolError,))


if __name__ == "__main__":
    sys.exit(main())
