"""Every IR piece of the lit tests round-trips, and other readers agree with ours.

For each `.mlir` under lit_tests/, split on `// -----` as `--split-input-file` does: printing is a
fixpoint (print, parse, print gives the same text) in the custom and the generic form; xDSL's own
parser reads our generic text to the same IR; and MLIR 16's `mlir-opt` accepts our
`--mlir-compat` text (translated to its spelling where MLIR changed since; IR it cannot express
is skipped). A piece is parsed with the dialects its RUN lines load (`--load-plugin`,
`--allow-unregistered-dialect`). Pieces holding `expected-error` are skipped, and so are pieces
that do not parse or verify in files whose RUN lines expect failures (`not xtvm-opt`); anywhere
else a piece that does not parse or verify fails the test.
"""

from __future__ import annotations

import functools
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, ModuleOp, UnregisteredOp
from xdsl.parser import Parser

from xtvm.dialects.registry import UPSTREAM_DIALECT_PATHS, default_context
from xtvm.ir.context import IRContext
from xtvm.ir.diagnostics import DiagnosticError, SourceFile
from xtvm.ir.printer import print_ir
from xtvm.ir.verify import verify_or_raise
from xtvm.tools.opt import Plugins, load_plugin, split_input

LIT_TESTS = Path(__file__).resolve().parents[2] / "lit_tests"
RUN_LINE = re.compile(r"^\s*//\s*RUN:(.*)$", re.MULTILINE)
UPSTREAM_NAMES = set(UPSTREAM_DIALECT_PATHS)


@dataclass(frozen=True)
class Piece:
    """One `// -----` piece of a lit test, with the reading options of its file."""

    path: Path
    first_line: int
    text: str
    plugins: tuple[str, ...]
    allow_unregistered: bool
    may_fail: bool
    verify: bool

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(LIT_TESTS)}:{self.first_line}"


def run_commands(text: str) -> list[list[str]]:
    """The words of each pipeline stage of the RUN lines (continuation lines joined)."""
    joined = "\n".join(RUN_LINE.findall(text)).replace("\\\n", " ")
    return [shlex.split(stage) for line in joined.split("\n") for stage in line.split("|")]


def run_options(path: Path, text: str) -> tuple[tuple[str, ...], bool, bool, bool]:
    """How the RUN lines read this file.

    The plugins and `--allow-unregistered-dialect` of the runs meant to succeed, whether some
    run is meant to fail (`not xtvm-opt %s`, `--verify-diagnostics`) and whether the input is
    meant to verify (no `--no-verify-each`).
    """
    plugins: set[str] = set()
    allow_unregistered = may_fail = False
    verify = True
    for words in run_commands(text):
        failing = words[:1] == ["not"]
        words = words[1:] if failing else words
        if words[:1] != ["xtvm-opt"] or "%s" not in words:
            continue
        if failing or "--verify-diagnostics" in words:
            may_fail = True
            continue
        allow_unregistered |= "--allow-unregistered-dialect" in words
        verify &= "--no-verify-each" not in words
        plugins.update(
            words[i + 1].replace("%S", str(path.parent))
            for i, word in enumerate(words[:-1])
            if word == "--load-plugin"
        )
    return tuple(sorted(plugins)), allow_unregistered, may_fail, verify


def collect_pieces() -> list[Piece]:
    pieces: list[Piece] = []
    for path in sorted(LIT_TESTS.rglob("*.mlir")):
        if "Output" in path.parts or "Inputs" in path.parts:
            continue
        text = path.read_text()
        options = run_options(path, text)
        for piece, first_line in split_input(text):
            if "expected-error" in piece or not piece.strip():
                continue
            pieces.append(Piece(path, first_line, piece, *options))
    return pieces


PIECES = collect_pieces()


@functools.cache
def context(plugins: tuple[str, ...], allow_unregistered: bool) -> IRContext:
    ctx = default_context(allow_unregistered=allow_unregistered)
    registry = Plugins(ctx)
    for plugin in plugins:
        load_plugin(plugin, registry)
    return ctx


@functools.cache
def parsed(piece: Piece) -> tuple[IRContext, ModuleOp]:
    """Our reading of `piece`, verified if its runs verify; skips pieces meant to fail."""
    ctx = context(piece.plugins, piece.allow_unregistered)
    try:
        module = ctx.parse(piece.text, str(piece.path), piece.first_line)
        if piece.verify:
            source = SourceFile(str(piece.path), piece.text, piece.first_line)
            verify_or_raise(module, {source.name: source})
    except DiagnosticError as exc:
        if piece.may_fail:
            pytest.skip(f"meant to fail: {exc.render(show_source=False)}")
        raise
    return ctx, module


def only_upstream_dialects(module: ModuleOp) -> bool:
    """Whether every op is an upstream one (or unregistered), so that xDSL alone reads it."""
    return all(
        isinstance(op, UnregisteredOp) or op.name.split(".")[0] in UPSTREAM_NAMES
        for op in module.walk()
    )


def reparse(ctx: IRContext, text: str) -> ModuleOp:
    return ctx.parse(text, "<printed>")


# Pieces that load an accelerator target or intrinsics register them while parsing.
pytestmark = pytest.mark.usefixtures("preserve_registries")


@pytest.mark.parametrize("piece", PIECES, ids=lambda p: p.id)
def test_custom_form_is_a_fixpoint(piece: Piece) -> None:
    ctx, module = parsed(piece)
    first = print_ir(module, ctx)
    second = print_ir(reparse(ctx, first), ctx)
    assert second == first


@pytest.mark.parametrize("piece", PIECES, ids=lambda p: p.id)
def test_generic_form_is_a_fixpoint(piece: Piece) -> None:
    ctx, module = parsed(piece)
    first = print_ir(module, ctx, generic=True)
    again = reparse(ctx, first)
    assert print_ir(again, ctx, generic=True) == first
    # Read back from the generic form, the IR prints the same custom text as the original.
    assert print_ir(again, ctx) == print_ir(module, ctx)


@pytest.mark.parametrize("piece", PIECES, ids=lambda p: p.id)
def test_xdsl_reads_our_generic_form_alike(piece: Piece) -> None:
    ctx, module = parsed(piece)
    if not only_upstream_dialects(module):
        pytest.skip("uses a dialect outside upstream xDSL")
    generic = print_ir(module, ctx, generic=True)
    theirs = Parser(ctx.xdsl_context, generic, "<generic>").parse_module()
    ours = reparse(ctx, generic)
    assert theirs.is_structurally_equivalent(ours), (
        f"ours:\n{print_ir(ours, ctx, generic=True)}\n"
        f"xDSL's:\n{print_ir(theirs, ctx, generic=True)}"
    )


# ---------------------------------------------------------------- MLIR 16

MLIR_OPT = shutil.which("mlir-opt-16") or shutil.which("mlir-opt")


@functools.cache
def mlir_major_version() -> int:
    assert MLIR_OPT is not None
    out = subprocess.run([MLIR_OPT, "--version"], capture_output=True, text=True).stdout
    found = re.search(r"LLVM version (\d+)", out)
    return int(found.group(1)) if found else 16


# xDSL 0.74 prints today's spelling of these, and `--mlir-compat` keeps it; older MLIRs spell the
# same IR differently, so the text is translated before they read it (spelling only):
# - the segment sizes of ops with several variadic operand groups (cf.cond_br) were
#   `operand_segment_sizes` before MLIR 17;
# - arith's integer ops have had the `overflowFlags` property since MLIR 19; before, an op meant
#   what it means with `#arith.overflow<none>`, which xDSL always prints;
# - the NaN-propagating float max/min combining kinds were `maxf`/`minf` before MLIR 17;
# - vector.shuffle's mask was an array of i64 attributes before MLIR 18.
NO_OVERFLOW = "overflowFlags = #arith.overflow<none>"
SEGMENT_SIZES_BEFORE_17 = (
    (re.compile(r"\boperandSegmentSizes\b"), "operand_segment_sizes"),
    (re.compile(r"\bresultSegmentSizes\b"), "result_segment_sizes"),
)
FLOAT_KINDS_BEFORE_17 = (
    (re.compile(r"#vector\.kind<maximumf>"), "#vector.kind<maxf>"),
    (re.compile(r"#vector\.kind<minimumf>"), "#vector.kind<minf>"),
)
SHUFFLE_MASK_BEFORE_18 = (
    (
        re.compile(r"mask = array<i64: ([0-9, ]*)>"),
        lambda m: "mask = [" + ", ".join(f"{v} : i64" for v in m.group(1).split(", ")) + "]",
    ),
)
NO_OVERFLOW_BEFORE_19 = (
    (re.compile(r" \{" + re.escape(NO_OVERFLOW) + r"\}"), ""),
    (re.compile(re.escape(NO_OVERFLOW) + ", "), ""),
    (re.compile(", " + re.escape(NO_OVERFLOW) + r"(?=\})"), ""),
)


def not_expressible(module: ModuleOp, version: int) -> str | None:
    """Why this MLIR version cannot express the IR at all, or None."""
    for op in module.walk():
        if version < 17 and op.name.startswith("affine."):
            return "xDSL's affine ops have the operand segments of MLIR 17 and later"
        if version < 17 and isinstance(op, scf.ForOp) and not isinstance(op.lb.type, IndexType):
            return "scf.for over a non-index type (MLIR 17 and later)"
        flags = op.properties.get("overflowFlags")
        if version < 19 and isinstance(flags, arith.IntegerOverflowAttr) and flags.data:
            return "arith overflow flags (MLIR 19 and later)"
    return None


def spelled_for(text: str, version: int) -> str:
    """The compat text in the spelling of this MLIR version."""
    rules = (
        (SEGMENT_SIZES_BEFORE_17 + FLOAT_KINDS_BEFORE_17 if version < 17 else ())
        + (SHUFFLE_MASK_BEFORE_18 if version < 18 else ())
        + (NO_OVERFLOW_BEFORE_19 if version < 19 else ())
    )
    for pattern, replacement in rules:
        text = pattern.sub(replacement, text)
    return text


@pytest.mark.mlir_opt
@pytest.mark.skipif(MLIR_OPT is None, reason="mlir-opt-16 / mlir-opt is not on PATH")
@pytest.mark.parametrize("piece", PIECES, ids=lambda p: p.id)
def test_mlir_opt_accepts_compat_form(piece: Piece) -> None:
    ctx, module = parsed(piece)
    if not piece.verify:
        pytest.skip("the input is not meant to verify (--no-verify-each)")
    version = mlir_major_version()
    reason = not_expressible(module, version)
    if reason is not None:
        pytest.skip(f"not expressible in MLIR {version}: {reason}")
    text = spelled_for(print_ir(module, ctx, mlir_compat=True), version)
    assert MLIR_OPT is not None
    result = subprocess.run(
        [MLIR_OPT, "--allow-unregistered-dialect"],
        input=text,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, f"{result.stderr}\ninput:\n{text}"


def test_affine_parallel_reductions_are_read() -> None:
    # (xDSL 0.74's verifier counts an affine.parallel's results among its operands, so this
    # is checked on the parsed op rather than through verification.)
    ctx = default_context()
    module = ctx.parse(
        "func.func @f(%m: memref<8xf32>, %n: index) {\n"
        '  %r:2 = affine.parallel (%i) = (0) to (%n) reduce ("addf", "maximumf") -> (f32, f32) {\n'
        "    %x = affine.load %m[%i] : memref<8xf32>\n"
        "    affine.yield %x, %x : f32, f32\n"
        "  }\n"
        "  func.return\n"
        "}\n"
    )
    (op,) = [op for op in module.walk() if op.name == "affine.parallel"]
    assert [str(t) for t in op.result_types] == ["f32", "f32"]
    assert str(op.properties["reductions"]) == '["addf", "maximumf"]'
    assert str(op.properties["upperBoundsMap"]) == "affine_map<(d0) -> (d0)>"
    assert op.regions[0].block.last_op is not None
    assert op.regions[0].block.last_op.name == "affine.yield"
