"""Mutation fuzzing of the text front end: mutators, seed inputs and an outcome classifier.

A malformed input must end in located diagnostics, never in a Python exception: that is the
contract of `xtvm-opt` (exit 1 with `file:line:col: error:`, exit 2 only for bugs). `classify`
runs what the tool runs on one input (parse, verify, print in both forms) and sorts the result
into OK, DIAGNOSTIC (located user errors), CRASH (any other exception, an unlocated or
misplaced parse diagnostic, printed text that does not read back to itself) or HANG (over the
time limit). Mutants come from seed texts by small random edits; `benchmarks/fuzz_parser.py`
runs thousands of them and tests/ir/test_fuzz.py a few hundred.
"""

from __future__ import annotations

import enum
import random
import re
import resource
import signal
import threading
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from lark.lexer import PatternStr

from xtvm.ir.context import IRContext
from xtvm.ir.diagnostics import Diagnostic, DiagnosticError, SourceFile
from xtvm.ir.printer import print_ir
from xtvm.ir.verify import verify_diagnostics

# ---------------------------------------------------------------------------------------------
# Seeds

# Representative inputs, so the fuzzer has material before any lit test exists: every form the
# grammar reads (custom and generic ops, regions with block labels and successors, types,
# attributes, aliases, locations) appears at least once.
SEED_SNIPPETS: tuple[str, ...] = (
    """\
func.func @int_ops(%a: i32, %b: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %s = arith.addi %a, %b : i32
  %m = arith.muli %s, %c1 : i32
  %lt = arith.cmpi slt, %m, %a : i32
  %r = arith.select %lt, %m, %b : i32
  func.return %r : i32
}
""",
    """\
func.func @loop(%buf: memref<16xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.000000e+00 : f32
  %tmp = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
    %x = memref.load %buf[%i] : memref<16xf32>
    %e = math.exp %x : f32
    %y = arith.addf %acc, %e fastmath<fast> : f32
    memref.store %y, %tmp[%i] : memref<16xf32>
    scf.yield %y : f32
  }
  func.return %sum : f32
}
""",
    """\
func.func @branch(%c: i1, %x: f64) -> f64 {
  %r = scf.if %c -> (f64) {
    %n = arith.negf %x : f64
    scf.yield %n : f64
  } else {
    scf.yield %x : f64
  }
  func.return %r : f64
}
func.func private @decl(i32, tensor<?x4xf32>) -> (i32, f32)
""",
    """\
func.func @cfg(%a: i32, %c: i1) -> i32 {
  cf.cond_br %c, ^bb1(%a : i32), ^bb2
^bb1(%v: i32):
  cf.br ^bb2
^bb2:
  func.return %a : i32
}
""",
    """\
func.func @graph(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) \
-> tensor<1x4x8x8xf32> {
  %y = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : \
(tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %z = relay.nn.bias_add %y, %b : (tensor<1x4x8x8xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %r = relay.nn.relu %z : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %r : tensor<1x4x8x8xf32>
}
""",
    """\
func.func @consts() -> tuple<tensor<2x2xf32>, tensor<3xi32>> {
  %a = relay.const dense<[[1.0, 2.0], [3.0, 4.5]]> : tensor<2x2xf32>
  %b = relay.const dense<[1, -2, 3]> : tensor<3xi32>
  %s = relay.nn.softmax %a {axis = 1 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %t = relay.tuple %s, %b : (tensor<2x2xf32>, tensor<3xi32>) -> tuple<tensor<2x2xf32>, \
tensor<3xi32>>
  func.return %t : tuple<tensor<2x2xf32>, tensor<3xi32>>
}
""",
    """\
func.func @shapes(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %t = relay.transpose %x {axes = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %r = relay.reshape %t {newshape = array<i64: 4, 6>} : (tensor<4x2x3xf32>) -> tensor<4x6xf32>
  %m = relay.sum %r {axis = array<i64: 1>, keepdims = true} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %d = relay.divide %r, %m : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  func.return %d : tensor<4x6xf32>
}
""",
    """\
"builtin.module"() ({
  "func.func"() <{sym_name = "generic", function_type = (i64, memref<4xi64>) -> i64}> ({
  ^bb0(%arg0: i64, %m: memref<4xi64>):
    %0 = "arith.constant"() <{value = 42 : i64}> : () -> i64
    %1 = "arith.addi"(%arg0, %0) <{overflowFlags = #arith.overflow<none>}> : (i64, i64) -> i64
    %2 = "arith.constant"() <{value = 0 : index}> : () -> index
    "memref.store"(%1, %m, %2) : (i64, memref<4xi64>, index) -> ()
    "func.return"(%1) : (i64) -> ()
  }) {llvm.emit_c_interface} : () -> ()
}) {sym_name = "outer"} : () -> ()
""",
    """\
#map = affine_map<(d0, d1) -> (d0 * 4 + d1)>
!buf = memref<4x4xf32, strided<[4, 1], offset: ?>>
func.func private @attrs(!buf) attributes {a = #map, b = [1 : i8, 2.5 : f16, "s\\n\\22",
  @sym::@nested, unit, true], c = {d = dense<0x0000803F> : tensor<1xf32>},
  e = array<f32: 1.0, 2.0>, f = -7 : si8, g = 0x7FC00000 : f32, h = complex<f32>,
  i = vector<4x8xi1>, k = tensor<*xbf16>, l = memref<*xf16, 1>, m = none, n = index,
  o = tuple<>, p = dense<[true, false]> : tensor<2xi1>, q = dense<> : tensor<0xf32>}
""",
    """\
func.func @locs(%a: f32 loc("a.mlir":1:2)) -> f32 {
  %i = arith.fptosi %a : f32 to i32
  %r:2 = "arith.mulsi_extended"(%i, %i) : (i32, i32) -> (i32, i32) loc(unknown)
  %t = arith.addi %r#0, %r#1 : i32 loc("name")
  %s = arith.sitofp %t : i32 to f32
  %u = builtin.unrealized_conversion_cast %s : f32 to i32 loc(fused["a", "b"])
  func.return %s : f32 loc(callsite("f" at "g.mlir":3:4))
}
""",
    """\
module @m attributes {xtvm.target = "llvm"} {
  func.func public @f(%x: memref<?xf32>, %i: index) -> (f32 {llvm.noalias}, i1) {
    %v = memref.load %x[%i] : memref<?xf32>
    %z = arith.constant -1.5e+03 : f32
    %c = arith.cmpf ogt, %v, %z : f32
    %w = arith.maximumf %v, %z : f32
    %p = math.powf %w, %z : f32
    func.return %p, %c : f32, i1
  }
}
""",
)

_SPLIT = re.compile(r"^// -----\s*$", re.MULTILINE)
_COMMENT_LINE = re.compile(r"^\s*//.*\n?", re.MULTILINE)


def seed_texts(roots: Sequence[Path] = ()) -> list[str]:
    """The built-in snippets, plus every `// -----` piece of the `*.mlir` files under `roots`.

    Whole-line comments (RUN and CHECK lines) are dropped, so mutations land on IR.
    """
    seeds = list(SEED_SNIPPETS)
    for root in roots:
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*.mlir")):
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            for piece in _SPLIT.split(text):
                piece = _COMMENT_LINE.sub("", piece)
                if piece.strip():
                    seeds.append(piece)
    return seeds


# ---------------------------------------------------------------------------------------------
# Vocabulary

# Sample spellings of the grammar's regular-expression terminals (SSA names, labels, symbols,
# literals, dialect names) and the fragments MLIR text is made of.
SAMPLE_TOKENS: tuple[str, ...] = (
    "%x",
    "%0",
    "%r#1",
    "%r:2",
    "^bb0",
    "^bb1(%a: i32):",
    "@f",
    '@"q s"',
    '"s"',
    '"\\n"',
    '"arith.addi"',
    '"func.return"',
    "0",
    "-1",
    "42",
    "1.5",
    "-0.0e+00",
    "0x1F",
    "2x",
    "?x",
    "4x3x",
    "i1",
    "i32",
    "si8",
    "f32",
    "bf16",
    "index",
    "dense<",
    "dense<[1, 2]>",
    "array<i64: 1, 2>",
    "#arith.fastmath<fast>",
    "#alias",
    "!alias",
    "!test.t<1>",
    "affine_map<(d0) -> (d0)>",
    "strided<[1]>",
    "loc(unknown)",
    'loc("f":1:2)',
    "{-#",
    "#-}",
    "//",
    "\n",
    "// -----\n",
    "tensor<2xf32>",
    "memref<?xi8>",
    "() -> ()",
    "(i32) -> i32",
    "<{value = 1 : i32}>",
    "{axis = 0 : i64}",
)

PUNCTUATION: tuple[str, ...] = (
    "{",
    "}",
    "(",
    ")",
    "<",
    ">",
    "[",
    "]",
    ",",
    ":",
    "=",
    "->",
    "::",
    "*",
    "?",
    "x",
)

# Numbers that tend to find edge cases: zero widths, sign and overflow limits, sizes a splat
# cannot be expanded to (`classify` caps memory, so such a mutant cannot exhaust the machine).
EDGE_NUMBERS: tuple[str, ...] = (
    "0",
    "1",
    "-1",
    "2",
    "7",
    "64",
    "127",
    "-128",
    "255",
    "65536",
    "2147483647",
    "-2147483648",
    "9223372036854775807",
    "18446744073709551616",
    "1e400",
    "0.0",
    "nan",
    "-0",
)


def grammar_vocabulary(ctx: IRContext) -> list[str]:
    """Every keyword and punctuation string of `ctx`'s grammar, plus `SAMPLE_TOKENS`."""
    lark, _ = ctx.parser()
    keywords = {
        t.pattern.value
        for t in lark.terminals
        if isinstance(t.pattern, PatternStr) and "\x00" not in t.pattern.value
    }
    return sorted(keywords | set(PUNCTUATION)) + list(SAMPLE_TOKENS)


# ---------------------------------------------------------------------------------------------
# Mutators

Mutator = Callable[[str, random.Random, "MutationContext"], str]


@dataclass
class MutationContext:
    """What mutators draw from besides the text: the other seeds and the token vocabulary."""

    seeds: Sequence[str]
    vocabulary: Sequence[str]


def _span(text: str, rng: random.Random, longest: int = 40) -> tuple[int, int]:
    start = rng.randrange(len(text) + 1)
    return start, min(len(text), start + rng.randint(1, longest))


def _lines(text: str) -> list[str]:
    return text.split("\n")


def truncate(text: str, rng: random.Random, mc: MutationContext) -> str:
    return text[: rng.randrange(len(text) + 1)]


def delete_span(text: str, rng: random.Random, mc: MutationContext) -> str:
    start, end = _span(text, rng)
    return text[:start] + text[end:]


def duplicate_span(text: str, rng: random.Random, mc: MutationContext) -> str:
    start, end = _span(text, rng)
    at = rng.randrange(len(text) + 1)
    return text[:at] + text[start:end] + text[at:]


def delete_line(text: str, rng: random.Random, mc: MutationContext) -> str:
    lines = _lines(text)
    del lines[rng.randrange(len(lines))]
    return "\n".join(lines)


def duplicate_line(text: str, rng: random.Random, mc: MutationContext) -> str:
    lines = _lines(text)
    i = rng.randrange(len(lines))
    lines.insert(rng.randrange(len(lines) + 1), lines[i])
    return "\n".join(lines)


def swap_lines(text: str, rng: random.Random, mc: MutationContext) -> str:
    lines = _lines(text)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def flip_byte(text: str, rng: random.Random, mc: MutationContext) -> str:
    data = bytearray(text.encode())
    if not data:
        return text
    i = rng.randrange(len(data))
    data[i] ^= 1 << rng.randrange(8)
    return data.decode("utf-8", errors="replace")


def replace_char(text: str, rng: random.Random, mc: MutationContext) -> str:
    if not text:
        return text
    i = rng.randrange(len(text))
    return text[:i] + rng.choice("{}()<>[],:=-%^@#!\"'\\?*x0 \n\t.") + text[i + 1 :]


def _token_positions(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(r"[%^@#!]?[\w.$-]+|\S", text)]


def insert_token(text: str, rng: random.Random, mc: MutationContext) -> str:
    token = rng.choice(mc.vocabulary)
    positions = _token_positions(text)
    if positions and rng.random() < 0.7:  # between tokens, where it makes a plausible program
        at = rng.choice(positions)[rng.randrange(2)]
    else:
        at = rng.randrange(len(text) + 1)
    pad = " " if rng.random() < 0.8 else ""
    return text[:at] + pad + token + pad + text[at:]


def replace_token(text: str, rng: random.Random, mc: MutationContext) -> str:
    positions = _token_positions(text)
    if not positions:
        return text
    start, end = rng.choice(positions)
    return text[:start] + rng.choice(mc.vocabulary) + text[end:]


def replace_number(text: str, rng: random.Random, mc: MutationContext) -> str:
    numbers = [m.span() for m in re.finditer(r"-?\d+(?:\.\d*)?(?:e[-+]?\d+)?", text)]
    if not numbers:
        return text
    start, end = rng.choice(numbers)
    return text[:start] + rng.choice(EDGE_NUMBERS) + text[end:]


def splice_seed(text: str, rng: random.Random, mc: MutationContext) -> str:
    """Insert a span of another seed: crosses constructs between inputs."""
    other = rng.choice(mc.seeds)
    start, end = _span(other, rng, longest=120)
    at = rng.randrange(len(text) + 1)
    return text[:at] + other[start:end] + text[at:]


MUTATORS: tuple[Mutator, ...] = (
    truncate,
    delete_span,
    duplicate_span,
    delete_line,
    duplicate_line,
    swap_lines,
    flip_byte,
    replace_char,
    insert_token,
    insert_token,
    replace_token,
    replace_number,
    splice_seed,
)

MAX_MUTANT_CHARS = 100_000


def mutate(text: str, rng: random.Random, mc: MutationContext, edits: int | None = None) -> str:
    """`text` after 1-3 random edits (or `edits` of them)."""
    for _ in range(edits if edits is not None else rng.choice((1, 1, 1, 2, 3))):
        text = rng.choice(MUTATORS)(text, rng, mc)[:MAX_MUTANT_CHARS]
    return text


def mutants(
    seeds: Sequence[str], vocabulary: Sequence[str], count: int, seed: int
) -> Iterator[str]:
    """`count` mutants of `seeds`, the same ones for the same `seed`."""
    rng = random.Random(seed)
    mc = MutationContext(seeds, vocabulary)
    for _ in range(count):
        yield mutate(rng.choice(seeds), rng, mc)


# ---------------------------------------------------------------------------------------------
# Classification


class Outcome(enum.Enum):
    OK = "ok"
    DIAGNOSTIC = "diagnostic"
    CRASH = "crash"
    HANG = "hang"


@dataclass
class Result:
    """The outcome of one input; for a crash, what failed (`kind`) and the traceback."""

    outcome: Outcome
    stage: str = ""
    kind: str = ""
    message: str = ""
    traceback: str = ""

    @property
    def signature(self) -> str:
        """Groups crashes with one cause: the stage, the kind and the innermost frame."""
        frame = ""
        for line in reversed(self.traceback.splitlines()):
            if line.strip().startswith("File "):
                frame = line.strip()
                break
        return f"{self.stage}: {self.kind} {frame}".strip()


class Timeout(BaseException):
    """Raised by the alarm; a BaseException, so `except Exception` in the code under test lets
    it through."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise `Timeout` after `seconds` (main thread only; elsewhere, no limit)."""
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_alarm(signum: int, frame: object) -> None:
        raise Timeout

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextmanager
def memory_limit(extra_bytes: int) -> Iterator[None]:
    """Cap the address space at its current size plus `extra_bytes` (Linux), so a runaway
    allocation raises MemoryError instead of exhausting the machine."""
    try:
        with open("/proc/self/status") as status:
            match = re.search(r"VmSize:\s+(\d+) kB", status.read())
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    except (OSError, ValueError):
        match = None
    if match is None:
        yield
        return
    limit = int(match.group(1)) * 1024 + extra_bytes
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def misplaced(diagnostic: Diagnostic, source: SourceFile) -> str | None:
    """Why a parse diagnostic does not point into the input, or None if it does."""
    loc = diagnostic.location
    if loc is None:
        return "parse diagnostic without a location"
    last_line = source.first_line + source.text.count("\n")
    if not source.first_line <= loc.line <= last_line:
        return f"parse diagnostic on line {loc.line}, outside the input (1-{last_line})"
    line = source.line_text(loc.line) or ""
    if not 1 <= loc.column <= len(line) + 1:
        return f"parse diagnostic at column {loc.column} of a {len(line)}-character line"
    return None


def classify(
    ctx: IRContext,
    text: str,
    filename: str = "fuzz.mlir",
    timeout: float = 5.0,
    memory: int = 2 << 30,
    round_trip: bool = True,
) -> Result:
    """Run parse, verify and print on `text` as xtvm-opt does, and sort the outcome.

    With `round_trip`, a module that verifies is printed in both forms, each form parsed again
    and printed again: output that does not read back, or reads back to other text, is a crash.
    """
    stage = "parse"
    try:
        with time_limit(timeout), memory_limit(memory):
            try:
                module = ctx.parse(text, filename)
            except DiagnosticError as exc:
                source = SourceFile(filename, text)
                for d in exc.diagnostics:
                    why = misplaced(d, source)
                    if why is not None:
                        return Result(Outcome.CRASH, stage, why, d.render(), _traceback(exc))
                exc.render()
                return Result(Outcome.DIAGNOSTIC, stage, message=exc.diagnostics[0].message)
            stage = "verify"
            diagnostics = verify_diagnostics(module, {filename: SourceFile(filename, text)})
            if diagnostics:
                DiagnosticError(diagnostics).render()
                return Result(Outcome.DIAGNOSTIC, stage, message=diagnostics[0].message)
            stage = "print"
            custom = print_ir(module, ctx)
            generic = print_ir(module, ctx, generic=True)
            if not round_trip:
                return Result(Outcome.OK)
            for form, printed in (("custom", custom), ("generic", generic)):
                stage = f"reparse {form}"
                try:
                    again = print_ir(
                        ctx.parse(printed, "printed.mlir"), ctx, generic=form == "generic"
                    )
                except DiagnosticError as exc:
                    why = f"printed {form} form does not parse"
                    return Result(Outcome.CRASH, stage, why, f"{exc.render()}\n{printed}")
                if again != printed:
                    why = f"printed {form} form reads back differently"
                    return Result(Outcome.CRASH, stage, why, _first_difference(printed, again))
            return Result(Outcome.OK)
    except Timeout:
        return Result(Outcome.HANG, stage, "timeout", f"over {timeout} s")
    except Exception as exc:
        message = f"{type(exc).__name__}: {exc}".split("\n")[0][:300]
        return Result(Outcome.CRASH, stage, type(exc).__name__, message, _traceback(exc))


def _traceback(exc: BaseException) -> str:
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


def _first_difference(a: str, b: str) -> str:
    for number, (x, y) in enumerate(zip(a.split("\n"), b.split("\n"), strict=False), 1):
        if x != y:
            return f"line {number}:\n  printed: {x}\n  reread:  {y}"
    return "one text is a prefix of the other"


_MIN_TOKEN = re.compile(r'\s+|"(?:[^"\\\n]|\\.)*"|[%^@#!]?[\w.$-]+|\S')


def minimize(text: str, still_fails: Callable[[str], bool], budget: int = 1000) -> str:
    """A smaller text that still fails: drop lines, then tokens, then characters.

    Greedy delta debugging over shrinking chunks; `budget` bounds the calls of `still_fails`.
    """
    calls = 0

    def reduce(units: list[str]) -> list[str]:
        nonlocal calls
        chunk = max(1, len(units) // 2)
        while chunk >= 1 and calls < budget:
            i = 0
            while i < len(units) and calls < budget:
                candidate = units[:i] + units[i + chunk :]
                calls += 1
                if candidate and still_fails("".join(candidate)):
                    units = candidate
                else:
                    i += chunk
            chunk //= 2
        return units

    text = "".join(reduce(text.splitlines(keepends=True)))
    text = "".join(reduce(_MIN_TOKEN.findall(text)))
    return "".join(reduce(list(text)))
