"""xtvm-opt: read IR text, run a pass pipeline, print the result.

Errors a user can cause are printed as located diagnostics and exit 1; a bug inside xtvm prints
`internal error:` (with a traceback only under --debug).

The IR machinery (xDSL, the dialects, the parser) is imported when a run needs it, not with
this module, so that `--help` and `--list-passes` start in a few tens of milliseconds.
"""

from __future__ import annotations

import argparse
import importlib.util
import linecache
import re
import sys
import time
import traceback
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from xtvm.ir.diagnostics import (
    Diagnostic,
    DiagnosticError,
    Location,
    Remark,
    Severity,
    SourceFile,
)
from xtvm.passes import OWN_PASSES, UPSTREAM_PASSES, PassLoader, all_passes
from xtvm.tools.cli import InputFileError, decode_text, run_tool

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

    from xtvm.ir.context import IRContext
    from xtvm.passes.pipeline import Nest, PipelineItem

SPLIT_MARKER = re.compile(r"^// -----\s*$", re.MULTILINE)
EXPECTED = re.compile(
    r"//\s*expected-(error|warning|note|remark)(?:@([+-]\d+|above|below))?\s*\{\{(.*?)\}\}"
)


def split_input(text: str) -> list[tuple[str, int]]:
    """The pieces between `// -----` lines, each with the file line it starts on."""
    pieces: list[tuple[str, int]] = []
    start, line = 0, 1
    for match in SPLIT_MARKER.finditer(text):
        pieces.append((text[start : match.start()], line))
        line += text.count("\n", start, match.end()) + 1
        start = match.end() + 1
    pieces.append((text[start:], line))
    return pieces


@dataclass
class Plugins:
    """What `--load-plugin` files register: dialects (with syntax) and passes."""

    ctx: IRContext
    passes: dict[str, PassLoader] = field(default_factory=dict)

    def load_dialect(self, dialect: object, extension: object | None = None) -> None:
        name = getattr(dialect, "name", None)
        if name in self.ctx.dialect_names:
            raise DiagnosticError.at(None, f"dialect '{name}' is already loaded")
        self.ctx.load_dialect(dialect, extension)  # type: ignore[arg-type]

    def register_pass(self, pass_type: type[ModulePass]) -> None:
        if pass_type.name in self.passes:
            raise DiagnosticError.at(None, f"pass '{pass_type.name}' is registered twice")
        self.passes[pass_type.name] = lambda: pass_type

    def load_target(self, path: str | Path) -> None:
        """Register the accel targets of a file (see `xtvm.target.load`)."""
        from xtvm.target import load_all

        load_all(path)


def load_plugin(path: str, plugins: Plugins) -> None:
    """Run a plugin file's `xtvm_plugin(registry)` hook."""
    file = Path(path)
    if not file.is_file():
        raise DiagnosticError.at(None, f"cannot open plugin '{path}'")
    spec = importlib.util.spec_from_file_location(f"xtvm_plugin_{file.stem}", file)
    if spec is None or spec.loader is None:
        raise DiagnosticError.at(None, f"cannot load plugin '{path}'")
    module = importlib.util.module_from_spec(spec)
    # Known by name, as an imported module is: the grammar cache finds its ops' source by it.
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        sys.modules.pop(spec.name, None)
        line, column = exc.lineno or 1, exc.offset or 1
        location = Location(SourceFile(path, (exc.text or "").rstrip("\n"), line), line, column)
        message = f"plugin '{path}' has a syntax error: {exc.msg}"
        raise DiagnosticError.at(location, message) from None
    except Exception as exc:
        sys.modules.pop(spec.name, None)
        raise plugin_error(exc, path, "fails to load") from None
    hook = getattr(module, "xtvm_plugin", None)
    if hook is None:
        raise DiagnosticError.at(None, f"plugin '{path}' defines no xtvm_plugin(registry) function")
    try:
        hook(plugins)
    except DiagnosticError:
        raise
    except Exception as exc:
        raise plugin_error(exc, path, "fails in xtvm_plugin(registry)") from None


def plugin_error(exc: Exception, path: str, what: str) -> DiagnosticError:
    """A plugin's own exception as an error at the line of the plugin that raised it."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(path)]
    location = None
    if frames and frames[-1].lineno is not None:
        line = frames[-1].lineno
        text = linecache.getline(str(path), line).rstrip("\n")
        column = (frames[-1].colno or 0) + 1
        location = Location(SourceFile(path, text, line), line, column)
    message = f"plugin '{path}' {what}: {type(exc).__name__}: {exc}"
    return DiagnosticError.at(location, message)


PLUGIN_GROUP = "xtvm.plugins"


def load_entry_point_plugins(plugins: Plugins) -> None:
    """Run the hook of every installed package that publishes one under `xtvm.plugins`."""
    from importlib.metadata import entry_points

    for entry in entry_points(group=PLUGIN_GROUP):
        try:
            hook = entry.load()
        except Exception as exc:
            message = f"plugin '{entry.name}' ({entry.value}) fails to load: {exc}"
            raise DiagnosticError.at(None, message) from None
        try:
            hook(plugins)
        except DiagnosticError:
            raise
        except Exception as exc:
            message = f"plugin '{entry.name}' ({entry.value}) fails: {type(exc).__name__}: {exc}"
            raise DiagnosticError.at(None, message) from None


class PipelinePiece(argparse.Action):
    """Appends `(origin, pipeline text)` to `pipeline`, so that `-p`, `--pass-pipeline` and the
    per-pass flags run in the order they are given on the command line."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[object] | None,
        option_string: str | None = None,
    ) -> None:
        text = values if isinstance(values, str) else ""
        pieces = list(getattr(namespace, "pipeline", None) or [])
        if option_string in ("-p", "--passes", "--pass-pipeline"):
            pieces.append((option_string, text))
        else:
            name = self.dest.removeprefix("pass:")
            pieces.append((f"--{name}", f"{name}{{{text}}}" if text.strip() else name))
        namespace.pipeline = pieces


class OptArgumentParser(argparse.ArgumentParser):
    """Fills in the summaries of the per-pass flags only when `--help` is printed (from the
    cached pass descriptions, see `describe_passes`)."""

    def __init__(self, *args: object, registry: dict[str, PassLoader], **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.registry = registry

    def format_help(self) -> str:
        infos = describe_passes(self.registry)
        for action in self._actions:
            name = action.dest.removeprefix("pass:")
            if action.dest.startswith("pass:") and name in infos:
                summary, options = infos[name]
                action.help = summary + (" (options as 'key=value ...')" if options else "")
        return super().format_help()


def build_argparser(registry: dict[str, PassLoader] | None = None) -> argparse.ArgumentParser:
    """The xtvm-opt command line, with a `--NAME[=OPTIONS]` flag for each pass of `registry`."""
    registry = all_passes() if registry is None else registry
    p = OptArgumentParser(
        prog="xtvm-opt",
        description="Run xtvm pass pipelines on IR.",
        allow_abbrev=False,
        registry=registry,
        epilog="-p, --pass-pipeline and the pass flags may be repeated and mixed; the passes "
        "run in the order given on the command line.",
    )
    p.add_argument("input", nargs="?", default="-", help="input file, or - for stdin")
    p.add_argument(
        "-p",
        "--passes",
        action=PipelinePiece,
        dest="pipeline",
        metavar="PIPELINE",
        help="pipeline, e.g. 'pass-a{opt=1},pass-b' or 'func.func(cse),canonicalize'",
    )
    p.add_argument(
        "--pass-pipeline",
        action=PipelinePiece,
        dest="pipeline",
        metavar="PIPELINE",
        help="MLIR's textual pipeline, anchored on the module: "
        "'builtin.module(func.func(cse),canonicalize)'",
    )
    p.set_defaults(pipeline=[])
    p.add_argument("-o", "--output", default="-", help="output file")
    p.add_argument("--print-generic", action="store_true", help="print the generic form")
    p.add_argument(
        "--mlir-compat",
        action="store_true",
        help="generic form with properties as attributes (read by MLIR 16's mlir-opt)",
    )
    p.add_argument("--print-debuginfo", action="store_true", help="print op locations")
    p.add_argument(
        "--print-ir-after-all", action="store_true", help="dump the IR after every pass to stderr"
    )
    p.add_argument(
        "--print-ir-after",
        action="append",
        default=[],
        metavar="PASS",
        help="dump the IR to stderr after each run of PASS (repeatable)",
    )
    p.add_argument(
        "--print-ir-before",
        action="append",
        default=[],
        metavar="PASS",
        help="dump the IR to stderr before each run of PASS (repeatable)",
    )
    p.add_argument(
        "--verify-each",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="verify the IR after parsing and after each pass (default: on)",
    )
    p.add_argument(
        "--split-input-file",
        action="store_true",
        help="process each piece between '// -----' lines on its own, as a separate input",
    )
    p.add_argument(
        "--verify-diagnostics",
        action="store_true",
        help="check the diagnostics against the input's '// expected-error {{...}}' "
        "annotations instead of printing them; exit 1 on a mismatch",
    )
    p.add_argument(
        "--list-passes",
        action="store_true",
        help="list every pass (built-in and from plugins) with its summary and options",
    )
    p.add_argument("--timing", action="store_true", help="report the time of each pass")
    p.add_argument(
        "--load-plugin",
        action="append",
        default=[],
        metavar="FILE.py",
        help="run the xtvm_plugin(registry) hook of FILE.py to register dialects and passes "
        "(repeatable)",
    )
    p.add_argument(
        "--load-target",
        action="append",
        default=[],
        metavar="FILE.mlir",
        help="register the accel targets of a file (their memories, intrinsics)",
    )
    p.add_argument(
        "--allow-unregistered-dialect",
        action="store_true",
        help="accept ops of dialects xtvm does not know, in the generic form",
    )
    p.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    group = p.add_argument_group(
        "passes", "one flag per pass, e.g. --cse or --relay-fold-constant='max-elements=64'"
    )
    for name in sorted(registry):
        group.add_argument(
            f"--{name}",
            action=PipelinePiece,
            dest=f"pass:{name}",
            nargs="?",
            const="",
            default=argparse.SUPPRESS,
            metavar="OPTIONS",
            help="see --list-passes",
        )
    return p


def split_pass_flags(argv: Sequence[str], registry: dict[str, PassLoader]) -> list[str]:
    """`--cse` becomes `--cse=`, so that a pass flag never takes the next argument (the input
    file) as its options: options are given as `--NAME=OPTIONS` only, as in mlir-opt."""
    out: list[str] = []
    for i, arg in enumerate(argv):
        if arg == "--":
            return out + list(argv[i:])
        out.append(f"{arg}=" if arg.startswith("--") and arg[2:] in registry else arg)
    return out


@dataclass
class Driver:
    args: argparse.Namespace
    ctx: IRContext
    registry: dict[str, PassLoader]
    source: SourceFile
    timings: list[tuple[str, float]] = field(default_factory=list)
    remarks: list[Diagnostic] = field(default_factory=list)

    def dump(self, title: str, module: ModuleOp) -> None:
        from xtvm.ir.printer import print_ir

        sys.stderr.write(f"// -----// IR Dump {title} //----- //\n")
        sys.stderr.write(print_ir(module, self.ctx, generic=self.args.print_generic))

    def verify(self, module: ModuleOp, after: str | None) -> None:
        """Verify `module` (timed), when --verify-each asks for it."""
        if not self.args.verify_each:
            return
        from xtvm.ir.verify import verify_or_raise

        start = time.perf_counter()
        try:
            verify_or_raise(module, {self.source.name: self.source})
        except DiagnosticError as exc:
            if after is not None:
                for d in exc.diagnostics:
                    d.notes.append(Diagnostic(Severity.NOTE, f"the IR was produced by '{after}'"))
            raise
        self.timings.append(("verify", time.perf_counter() - start))

    def process(self, text: str, first_line: int, items: Sequence[PipelineItem]) -> str:
        from xtvm.ir.printer import print_ir

        start = time.perf_counter()
        module = self.ctx.parse(text, self.source.name, first_line)
        self.timings.append(("parse", time.perf_counter() - start))
        self.verify(module, None)
        self.run_items(items, module, module)
        start = time.perf_counter()
        out = print_ir(
            module,
            self.ctx,
            generic=self.args.print_generic,
            mlir_compat=self.args.mlir_compat,
            debuginfo=self.args.print_debuginfo,
        )
        self.timings.append(("print", time.perf_counter() - start))
        return out

    def run_items(
        self, items: Sequence[PipelineItem], module: ModuleOp, root: ModuleOp, on: str = ""
    ) -> None:
        """Run `items` on `module`; `root` is the whole input, verified after each pass (a nest
        is verified as a whole, once its ops are back in place). `on` names the op in dumps."""
        if not items:
            return
        from xtvm.passes.pipeline import Nest

        xctx = self.ctx.xdsl_context
        for item in items:
            if isinstance(item, Nest):
                self.run_nest(item, module, root)
                if module is root:
                    self.verify(root, item.name)
                continue
            if item.name in self.args.print_ir_before:
                self.dump(f"Before {item.name}{on}", module)
            start = time.perf_counter()
            self.run_pass(item, xctx, module)
            self.timings.append((item.name, time.perf_counter() - start))
            if self.args.print_ir_after_all or item.name in self.args.print_ir_after:
                self.dump(f"After {item.name}{on}", module)
            if module is root:
                self.verify(root, item.name)

    def run_nest(self, nest: Nest, module: ModuleOp, root: ModuleOp) -> None:
        """`anchor(passes)`: the passes run on each op named `anchor` directly inside `module`.
        A nested `builtin.module` is itself a module; any other op (`func.func`) is moved alone
        into a fresh module for the passes, as MLIR isolates a function pass to its function,
        and moved back. A pass that adds or removes top-level ops there is not an op-local pass
        and is refused."""
        from xdsl.dialects.builtin import ModuleOp, StringAttr

        from xtvm.ir.verify import op_location

        for op in [op for op in module.body.block.ops if op.name == nest.anchor]:
            symbol = op.attributes.get("sym_name") or op.properties.get("sym_name")
            symbol_text = f": @{symbol.data}" if isinstance(symbol, StringAttr) else ""
            on = f" ('{nest.anchor}' operation{symbol_text})"
            if isinstance(op, ModuleOp):
                self.run_items(nest.items, op, root, on)
                continue
            block = module.body.block
            after = op.next_op
            op.detach()
            isolated = ModuleOp([op])
            try:
                self.run_items(nest.items, isolated, root, on)
            finally:
                inner = list(isolated.body.block.ops)
                for moved in inner:
                    moved.detach()
                    if after is None:
                        block.add_op(moved)
                    else:
                        block.insert_op_before(moved, after)
            if len(inner) != 1 or inner[0].name != nest.anchor:
                names = ", ".join(item.name for item in nest.items)
                raise DiagnosticError.at(
                    op_location(op, {self.source.name: self.source}),
                    f"'{nest.anchor}({names})' changed the ops around the '{nest.anchor}' it "
                    f"ran on; run module-level passes outside '{nest.anchor}(...)'",
                )

    def run_pass(self, p: ModulePass, xctx: object, module: ModuleOp) -> None:
        from xdsl.ir import Operation

        from xtvm.ir.verify import failure_error, op_location

        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                p.apply(xctx, module)  # type: ignore[arg-type]
            sources = {self.source.name: self.source}
            for warning in caught:
                message = str(warning.message).split("\n")[0]
                op = getattr(warning.message, "op", None)
                if isinstance(warning.message, Remark) and isinstance(op, Operation):
                    location = op_location(op, sources)
                    self.remarks.append(Diagnostic(Severity.REMARK, message, location))
                else:
                    sys.stderr.write(f"warning: pass '{p.name}': {message}\n")
        except DiagnosticError:
            raise
        except Exception as exc:
            if self.args.debug:
                traceback.print_exc()
            sources = {self.source.name: self.source}
            raise failure_error(exc, f"pass '{p.name}' failed", sources) from None

    def report_timing(self) -> None:
        total = sum(t for _, t in self.timings) or 1e-12
        merged: dict[str, float] = {}
        for name, t in self.timings:
            merged[name] = merged.get(name, 0.0) + t
        lines = [
            "===" + "-" * 73 + "===",
            " " * 25 + "... Execution time report ...",
            "===" + "-" * 73 + "===",
            f"  Total Execution Time: {total:.4f} seconds",
            "",
            "  ----Wall Time----  ----Name----",
        ]
        for name, t in merged.items():
            lines.append(f"  {t:10.4f} ({100 * t / total:5.1f}%)  {name}")
        lines.append(f"  {total:10.4f} (100.0%)  Total")
        sys.stderr.write("\n".join(lines) + "\n")


def check_expected(
    text: str, first_line: int, produced: list[Diagnostic], source: SourceFile
) -> bool:
    """MLIR's --verify-diagnostics: every expected diagnostic produced, nothing else."""
    expected: list[tuple[Severity, int, str, int]] = []
    for offset, line_text in enumerate(text.split("\n")):
        line = first_line + offset
        for match in EXPECTED.finditer(line_text):
            kind, where, message = match.groups()
            target = line
            if where == "above":
                target = line - 1
            elif where == "below":
                target = line + 1
            elif where:
                target = line + int(where)
            expected.append((Severity(kind), target, message, line))
    flat: list[Diagnostic] = []
    for d in produced:
        flat.append(d)
        flat.extend(d.notes)
    ok = True
    remaining = list(expected)
    for d in flat:
        line = d.location.line if d.location else None
        match = next(
            (e for e in remaining if e[0] == d.severity and e[1] == line and e[2] in d.message),
            None,
        )
        if match is not None:
            remaining.remove(match)
        elif d.severity in (Severity.ERROR, Severity.WARNING):
            ok = False
            sys.stderr.write(
                Diagnostic(
                    Severity.ERROR, f"unexpected {d.severity.value}: {d.message}", d.location
                ).render()
                + "\n"
            )
    for severity, _target, message, line in remaining:
        ok = False
        loc = Location(source, line, 1)
        sys.stderr.write(
            Diagnostic(
                Severity.ERROR, f'expected {severity.value} "{message}" was not produced', loc
            ).render()
            + "\n"
        )
    return ok


PassInfo = tuple[str, list[tuple[str, str, str]]]


def pass_summary(name: str, loader: PassLoader) -> str:
    """The docstring's first sentence (which may wrap over several lines), or the upstream one."""
    pass_type = loader()
    paragraph = " ".join((pass_type.__doc__ or "").strip().split("\n\n")[0].split())
    return UPSTREAM_PASSES.get(name) or paragraph.split(". ")[0].rstrip(".")


def describe_pass(name: str, loader: PassLoader) -> PassInfo:
    """The summary and the options (kebab name, type, default) of a pass; imports it."""
    from xtvm.passes.pipeline import option_fields

    return pass_summary(name, loader), option_fields(loader())


def builtin_pass_key() -> str:
    """What the built-in passes' descriptions are derived from: the sources of xtvm's pass
    modules and of the code that describes them (by `source_stamp`), and xDSL's version (for
    upstream passes)."""
    import hashlib

    import xdsl

    import xtvm.passes
    from xtvm.ir import cache

    folder = Path(xtvm.passes.__file__).parent
    digest = hashlib.sha256(f"{PASS_INDEX_FORMAT} {xdsl.__version__}\n".encode())
    digest.update(repr(sorted(UPSTREAM_PASSES.items())).encode())
    files = [Path(__file__), folder / "__init__.py", folder / "pipeline.py"]
    files += [folder / f"{name.replace('-', '_')}.py" for name in sorted(OWN_PASSES)]
    for file in files:
        digest.update(cache.source_stamp(file))
    return digest.hexdigest()


PASS_INDEX_FORMAT = 1
PASS_INDEX = "pass-index.json"


def describe_passes(registry: dict[str, PassLoader]) -> dict[str, PassInfo]:
    """`describe_pass` of every pass of `registry`. Those of the built-in passes are kept in the
    per-user cache (`xtvm.ir.cache`), keyed by `builtin_pass_key`, so `--help` and
    `--list-passes` import no pass; plugin passes are described afresh."""
    import json

    from xtvm.ir import cache

    builtin = [n for n in registry if n in OWN_PASSES or n in UPSTREAM_PASSES]
    infos: dict[str, PassInfo] = {}
    try:
        key = builtin_pass_key()
    except OSError:
        key = None
    raw = cache.read(PASS_INDEX) if key is not None else None
    if raw is not None:
        try:
            entry = json.loads(raw)
            if entry["key"] == key:
                for name in builtin:
                    summary, options = entry["passes"][name]
                    infos[name] = (str(summary), [(str(o), str(t), str(d)) for o, t, d in options])
        except (ValueError, KeyError, TypeError):
            infos = {}
    if any(n not in infos for n in builtin):
        every = {n: describe_pass(n, loader) for n, loader in all_passes().items()}
        infos = {n: every[n] for n in builtin}
        if key is not None:
            cache.write(PASS_INDEX, json.dumps({"key": key, "passes": every}).encode())
    for name, loader in registry.items():
        if name not in infos:
            infos[name] = describe_pass(name, loader)
    return infos


def list_passes(registry: dict[str, PassLoader]) -> str:
    infos = describe_passes(registry)
    lines = ["Available passes:"]
    for name in sorted(registry):
        summary, options = infos[name]
        lines.append(f"  {name:32} {summary}")
        for option, type_name, default in options:
            lines.append(f"      {option}: {type_name} = {default}")
    return "\n".join(lines) + "\n"


def build_pipeline(
    pieces: Sequence[tuple[str, str]], registry: dict[str, PassLoader]
) -> list[PipelineItem]:
    """The items of every pipeline piece of the command line, in order. `--pass-pipeline` must
    be anchored on the module (`builtin.module(...)`), as in mlir-opt; for `-p` the anchor is
    optional. The outermost `builtin.module(...)` is the input module itself."""
    if not pieces:
        return []  # without importing the pipeline parser (and xDSL's passes)
    from xtvm.passes.pipeline import Nest, parse_pipeline

    items: list[PipelineItem] = []
    for origin, text in pieces:
        parsed = parse_pipeline(text, registry, origin)
        if (
            len(parsed) == 1
            and isinstance(parsed[0], Nest)
            and parsed[0].anchor == "builtin.module"
        ):
            items.extend(parsed[0].items)
        elif origin == "--pass-pipeline":
            raise DiagnosticError.at(
                Location(SourceFile(origin, text), 1, 1),
                "the pipeline must be anchored on the module: 'builtin.module(...)'",
            )
        else:
            items.extend(parsed)
    return items


def check_dump_names(args: argparse.Namespace, registry: dict[str, PassLoader]) -> None:
    """--print-ir-after=P and --print-ir-before=P name known passes."""
    for flag in ("after", "before"):
        for name in getattr(args, f"print_ir_{flag}"):
            if name not in registry:
                from xtvm.passes.pipeline import did_you_mean

                raise DiagnosticError.at(
                    None,
                    f"--print-ir-{flag}: unknown pass '{name}'"
                    + did_you_mean(name, list(registry)),
                )


def read_input(path: str) -> tuple[str, str]:
    if path == "-":
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:  # a text stream put in place of stdin
            return sys.stdin.read(), "<stdin>"
        try:
            return decode_text(stream.read(), "<stdin>"), "<stdin>"
        except InputFileError as exc:
            raise DiagnosticError.at(None, str(exc)) from None
    try:
        return Path(path).read_text(encoding="utf-8"), path
    except OSError as exc:
        raise DiagnosticError.at(None, f"cannot open input file '{path}': {exc.strerror}") from None
    except UnicodeDecodeError:
        raise DiagnosticError.at(None, f"input file '{path}' is not UTF-8 text") from None


def run(args: argparse.Namespace) -> int:
    from xtvm.dialects.registry import default_context
    from xtvm.ir.verify import failure_error

    ctx = default_context(allow_unregistered=args.allow_unregistered_dialect)
    registry = all_passes()
    plugins = Plugins(ctx)
    load_entry_point_plugins(plugins)
    for plugin in args.load_plugin:
        load_plugin(plugin, plugins)
    if args.load_target:
        from xtvm.target import load_all

        for target_file in args.load_target:
            load_all(target_file)
    for name, loader in plugins.passes.items():
        if name in registry:
            raise DiagnosticError.at(None, f"plugin pass '{name}' clashes with a built-in pass")
        registry[name] = loader
    if args.list_passes:
        sys.stdout.write(list_passes(registry))
        return 0
    check_dump_names(args, registry)
    passes = build_pipeline(args.pipeline, registry)
    text, name = read_input(args.input)
    source = SourceFile(name, text)
    driver = Driver(args, ctx, registry, source)
    pieces = split_input(text) if args.split_input_file else [(text, 1)]
    outputs: list[str] = []
    ok = True
    for piece, first_line in pieces:
        errors: list[Diagnostic] = []
        driver.remarks = []
        try:
            outputs.append(driver.process(piece, first_line, passes))
        except DiagnosticError as exc:
            errors = exc.diagnostics
        except RecursionError as exc:  # in the parser, the verifier or the printer
            errors = failure_error(exc, "cannot process the input", {name: source}).diagnostics
        produced = driver.remarks + errors
        for d in produced:
            if d.location is not None and d.location.source is not None:
                d.location = Location(source, d.location.line, d.location.column)
        if args.verify_diagnostics:
            ok &= check_expected(piece, first_line, produced, source)
            continue
        ok &= not errors
        if produced:
            sys.stderr.write(DiagnosticError(produced).render() + "\n")
    if not args.verify_diagnostics:
        result = "// -----\n".join(outputs)
        if args.output == "-":
            sys.stdout.write(result)
        else:
            Path(args.output).write_text(result)
    if args.timing:
        driver.report_timing()
    return 0 if ok else 1


def main(argv: Sequence[str] | None = None) -> int:
    registry = all_passes()
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_argparser(registry).parse_args(split_pass_flags(argv, registry))
    return run_tool("xtvm-opt", run, args)


if __name__ == "__main__":
    sys.exit(main())
