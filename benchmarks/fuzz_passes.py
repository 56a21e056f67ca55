"""Fuzz campaign over xtvm's pass pipelines and backends (the parser has fuzz_parser.py).

Valid but unusual inputs go through what the tools and the build API run, and every outcome is
sorted into a class:

- ok; user: a user error reported the clean way (a located diagnostic, exit 1);
- internal: any other exception, exit 2, or a pass exception that xtvm-opt turned into a
  "pass failed" diagnostic (its traceback shows under --debug); crash: the worker died;
- unlocated: a diagnostic about the IR without a file:line:col; hang: over --timeout;
- wrong: compiled code disagrees with the relay interpreter or onnxruntime.

Case families, each case drawn from (--seed, case number) alone:

- passes: every registered pass, and random pipelines of 2-4 with random options, on every
  `// -----` piece of the lit inputs that parses and verifies (`xtvm-opt -p ...`); some pieces
  go through `xtvm-translate` (llvm, c, cuda) or `xtvm-compile` instead;
- relay: random graphs from the relay Python API with zero-size, rank-0, size-1, high-rank,
  broadcasting and odd shapes, relay.build for LLVM against the relay interpreter;
- mutate: generated IR with many blocks, huge or empty trip counts, deep nesting and edge
  constants through random pipelines and xtvm-translate;
- onnx: small onnx.helper models (random op chains with random, sometimes invalid attributes
  and shapes) imported, built and compared with onnxruntime.

Cases run in a worker process, restarted after a hang or a crash. The summary counts each class
per family and prints one reproducer per distinct failure (exception type and location).

    python benchmarks/fuzz_passes.py                          # 10000 cases, seed 0
    python benchmarks/fuzz_passes.py --cases 300 --seed 7 --timeout 20 --family relay
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import re
import select
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CLASSES = ("ok", "user", "internal", "unlocated", "hang", "wrong", "crash")
FAILURES = ("internal", "unlocated", "hang", "wrong", "crash")
FAMILIES = {"passes": 6, "mutate": 2, "relay": 1, "onnx": 1}
LOCATED = re.compile(r"^\S+:\d+:\d+: error: ", re.MULTILINE)


@dataclass
class Outcome:
    """What one case did: its class, a signature grouping equal causes, and a reproducer."""

    family: str
    kind: str
    signature: str = ""
    message: str = ""
    reproducer: str = ""
    seconds: float = 0.0


# ---------------------------------------------------------------------------------------------
# Running the tools in-process


def innermost_frame(tb: str) -> str:
    """`path:line in function` of the innermost traceback frame inside xtvm, followed by the
    innermost frame of all where that is elsewhere (in xDSL, say)."""
    frames = re.findall(r'File "([^"]+)", line (\d+), in (\S+)', tb)
    if not frames:
        return ""

    def show(frame: tuple[str, str, str]) -> str:
        path, line, function = frame
        for package in ("/xtvm/", "/xdsl/"):
            if package in path:
                path = package.strip("/") + "/" + path.rsplit(package, 1)[-1]
                break
        else:
            path = Path(path).name
        return f"{path}:{line} in {function}"

    own = [f for f in frames if "/xtvm/" in f[0] and "fuzz_passes" not in f[0]] or frames
    where = show(own[-1])
    return where if own[-1] == frames[-1] else f"{where} (via {show(frames[-1])})"


def exception_line(tb: str) -> str:
    """The `Type: message` line that ends the last traceback in `tb`."""
    block = tb[tb.rfind("Traceback (most recent call last)") :].splitlines()[1:]
    for line in block:
        if line and not line.startswith(" "):
            return line[:300]
    return ""


@dataclass
class ToolRun:
    rc: int
    stdout: str
    stderr: str


def run_tool(main: Callable[[Sequence[str]], int], argv: Sequence[str]) -> ToolRun:
    """A tool's `main(argv)` in this process, with its output captured."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(list(argv))
        except SystemExit as exc:  # argparse
            rc = exc.code if isinstance(exc.code, int) else 1
    return ToolRun(rc, out.getvalue(), err.getvalue())


def classify_tool(family: str, run: ToolRun, reproducer: str) -> Outcome:
    """Sort a tool's exit: 0 ok; 2, or a traceback printed under --debug, internal; 1 with a
    file:line:col diagnostic user; any other 1 unlocated."""
    err = run.stderr
    if run.rc == 0:
        return Outcome(family, "ok")
    if run.rc == 2 or "Traceback (most recent call last)" in err:
        tb = err[err.find("Traceback") :] if "Traceback" in err else ""
        head = exception_line(tb) if tb else err.strip().splitlines()[0]
        error_type = head.split(":")[0].replace("internal error", "").strip() or head[:60]
        signature = f"{error_type} at {innermost_frame(tb)}"
        masked = " (reported as a pass failure)" if run.rc == 1 else ""
        message = (head + masked)[:400]
        return Outcome(family, "internal", signature, message, reproducer)
    if run.rc == 1 and LOCATED.search(err):
        return Outcome(family, "user", message=first_error(err))
    message = first_error(err)
    return Outcome(family, "unlocated", f"unlocated: {normalize(message)}", message, reproducer)


def first_error(stderr: str) -> str:
    for line in stderr.splitlines():
        if "error" in line:
            return line.strip()[:300]
    return stderr.strip()[:300]


def normalize(message: str) -> str:
    """A message with names and numbers blanked, so that one cause groups as one."""
    message = re.sub(r"'[^']*'|\"[^\"]*\"", "'_'", message)
    return re.sub(r"\d+", "N", message)[:120]


# ---------------------------------------------------------------------------------------------
# Family 1: passes on the lit inputs

SPLIT = re.compile(r"^// -----\s*$", re.MULTILINE)
OPTION_VALUES = {
    "bool": ("true", "false"),
    "int": ("0", "1", "-1", "2", "3", "7", "64", "1000000"),
    "float": ("0", "0.5", "1e30", "-1"),
}


@dataclass
class Piece:
    path: str
    first_line: int
    text: str


class Worker:
    """What a worker keeps between cases: one IR context, the pass table, the lit pieces."""

    def __init__(self) -> None:
        from xtvm.dialects import registry
        from xtvm.passes import all_passes

        contexts: dict[bool, Any] = {}
        build = registry.default_context

        def cached_context(allow_unregistered: bool = False) -> Any:
            # The tools build a fresh context (and parser) per run; one is enough here.
            if allow_unregistered not in contexts:
                contexts[allow_unregistered] = build(allow_unregistered)
            return contexts[allow_unregistered]

        registry.default_context = cached_context  # type: ignore[assignment]
        for name in ("xtvm.tools.opt", "xtvm.tools.translate"):
            module = __import__(name, fromlist=["default_context"])
            module.default_context = cached_context  # type: ignore[attr-defined]
        self.ctx = cached_context()
        self.passes = all_passes()
        self.pass_names = sorted(self.passes)
        self.pieces = lit_pieces()
        self.valid: dict[int, bool] = {}
        self.tmp = Path(tempfile.mkdtemp(prefix="xtvm-fuzz-passes-"))

    def is_valid(self, index: int) -> bool:
        """Whether lit piece `index` parses and verifies (pieces that test errors do not)."""
        if index not in self.valid:
            from xtvm.ir.diagnostics import DiagnosticError
            from xtvm.ir.verify import verify_diagnostics

            try:
                module = self.ctx.parse(self.pieces[index].text, "piece.mlir")
                self.valid[index] = not verify_diagnostics(module, {})
            except (DiagnosticError, Exception):
                self.valid[index] = False
        return self.valid[index]

    def write(self, name: str, text: str) -> Path:
        path = self.tmp / name
        path.write_text(text)
        return path

    def random_pipeline(self, rng: random.Random) -> str:
        from xtvm.passes.pipeline import option_fields

        count = 1 if rng.random() < 0.5 else rng.randint(2, 4)
        parts = []
        for name in rng.sample(self.pass_names, count):
            options = []
            if rng.random() < 0.25:
                for option, type_name, _ in option_fields(self.passes[name]()):
                    values = OPTION_VALUES.get(type_name)
                    if values and rng.random() < 0.6:
                        options.append(f"{option}={rng.choice(values)}")
            parts.append(name + ("{" + " ".join(options) + "}" if options else ""))
        return ",".join(parts)

    def opt(self, family: str, text: str, pipeline: str, origin: str) -> Outcome:
        from xtvm.tools import opt

        path = self.write("case.mlir", text)
        run = run_tool(opt.main, [str(path), "-p", pipeline, "--debug"])
        repro = f"xtvm-opt case.mlir -p '{pipeline}'   # {origin}\n{text}"
        return classify_tool(family, run, repro)

    def translate(self, family: str, text: str, target: str, origin: str) -> Outcome:
        from xtvm.tools import translate

        path = self.write("case.mlir", text)
        run = run_tool(translate.main, [str(path), "--target", target, "--debug"])
        repro = f"xtvm-translate case.mlir --target {target}   # {origin}\n{text}"
        return classify_tool(family, run, repro)

    def compile(self, family: str, text: str, origin: str) -> Outcome:
        from xtvm.tools import compile as compile_tool

        path = self.write("case.mlir", text)
        argv = [str(path), "--emit", "graph-json", "-o", str(self.tmp / "out.json"), "--debug"]
        run = run_tool(compile_tool.main, argv)
        repro = f"xtvm-compile case.mlir --emit graph-json   # {origin}\n{text}"
        return classify_tool(family, run, repro)

    # Families -----------------------------------------------------------------------------

    def case_passes(self, rng: random.Random) -> Outcome:
        valid = [i for i in rng.sample(range(len(self.pieces)), 8) if self.is_valid(i)]
        if not valid:
            valid = [next(i for i in range(len(self.pieces)) if self.is_valid(i))]
        piece = self.pieces[valid[0]]
        origin = f"{piece.path}:{piece.first_line}"
        roll = rng.random()
        if roll < 0.12:
            return self.translate("passes", piece.text, rng.choice(("llvm", "c", "cuda")), origin)
        if roll < 0.15 and "relay." in piece.text and "@main" in piece.text:
            return self.compile("passes", piece.text, origin)
        return self.opt("passes", piece.text, self.random_pipeline(rng), origin)

    def case_mutate(self, rng: random.Random) -> Outcome:
        generator = rng.choice(MUTANTS)
        text = generator(rng)
        origin = generator.__name__
        if rng.random() < 0.3:
            return self.translate("mutate", text, rng.choice(("llvm", "llvm", "c")), origin)
        return self.opt("mutate", text, self.random_pipeline(rng), origin)

    def case_relay(self, rng: random.Random) -> Outcome:
        return relay_case(rng)

    def case_onnx(self, rng: random.Random) -> Outcome:
        return onnx_case(rng, self.tmp)


def lit_pieces() -> list[Piece]:
    pieces = []
    for path in sorted((ROOT / "lit_tests").rglob("*.mlir")):
        if "Output" in path.relative_to(ROOT).parts:  # what lit runs wrote, not inputs
            continue
        text = path.read_text(encoding="utf-8")
        line = 1
        for chunk in SPLIT.split(text):
            if chunk.strip():
                pieces.append(Piece(str(path.relative_to(ROOT)), line, chunk))
            line += chunk.count("\n") + 1
    return pieces


# ---------------------------------------------------------------------------------------------
# Family 3: generated IR with unusual structure and values

EDGE_INDEX = (0, 1, 2, 3, 7, 16, 1 << 20, 1 << 40, (1 << 63) - 1, -1, -(1 << 63))
EDGE_I32 = (0, 1, -1, 31, 32, 33, 2147483647, -2147483648)
EDGE_F32 = ("0.0", "-0.0", "1.0e+38", "-3.4e+38", "1.0e-45", "0x7F800000", "0x7FC00000")
INT_OPS = (
    "addi",
    "subi",
    "muli",
    "divsi",
    "divui",
    "remsi",
    "remui",
    "shli",
    "shrsi",
    "shrui",
    "andi",
    "ori",
    "xori",
    "maxsi",
    "minui",
    "ceildivsi",
    "floordivsi",
)
FLOAT_OPS = ("addf", "subf", "mulf", "divf", "maximumf", "minimumf", "maxnumf", "minnumf")


def loop_nest(rng: random.Random) -> str:
    """Loops (scf.for or tir.for, some unrolled/parallel/vectorized) nested 1-40 deep, with
    edge bounds: empty, huge, reversed, step larger than the range."""
    depth = rng.choice((1, 2, 3, 8, 40))
    kind = rng.choice(("scf", "tir"))
    lines = ["func.func @nest(%A: memref<?xf32>, %x: f32) {"]
    for d in range(depth):
        lo, hi = rng.choice(EDGE_INDEX), rng.choice(EDGE_INDEX)
        lines.append(f"  %lo{d} = arith.constant {lo} : index")
        lines.append(f"  %hi{d} = arith.constant {hi} : index")
        if kind == "scf":
            step = rng.choice((1, 1, 2, 3, 1 << 41))
            lines.append(f"  %st{d} = arith.constant {step} : index")
    for d in range(depth):
        pad = "  " * (d + 1)
        if kind == "scf":
            lines.append(f"{pad}scf.for %i{d} = %lo{d} to %hi{d} step %st{d} {{")
        else:
            annotation = rng.choice((" serial", " serial", " unrolled", " parallel", " vectorized"))
            lines.append(f"{pad}tir.for %i{d} = %lo{d} to %hi{d}{annotation} {{")
    pad = "  " * (depth + 1)
    lines.append(f"{pad}%v = memref.load %A[%i{depth - 1}] : memref<?xf32>")
    lines.append(f"{pad}%w = arith.{rng.choice(FLOAT_OPS)} %v, %x : f32")
    lines.append(f"{pad}memref.store %w, %A[%i0] : memref<?xf32>")
    for d in reversed(range(depth)):
        lines.append("  " * (d + 1) + "}")
    lines.append("  func.return")
    lines.append("}")
    return "\n".join(lines) + "\n"


def many_blocks(rng: random.Random) -> str:
    """A function of 2-60 blocks chained by cf.br and cf.cond_br, passing values along."""
    blocks = rng.choice((2, 3, 5, 60))
    lines = ["func.func @blocks(%a: i32, %c: i1) -> i32 {", "  cf.br ^bb1(%a : i32)"]
    for b in range(1, blocks + 1):
        lines.append(f"^bb{b}(%v{b}: i32):")
        constant = rng.choice(EDGE_I32)
        lines.append(f"  %k{b} = arith.constant {constant} : i32")
        lines.append(f"  %r{b} = arith.{rng.choice(INT_OPS)} %v{b}, %k{b} : i32")
        if b == blocks:
            lines.append(f"  func.return %r{b} : i32")
        elif rng.random() < 0.4:
            target = rng.randint(1, blocks)
            lines.append(f"  cf.cond_br %c, ^bb{b + 1}(%r{b} : i32), ^bb{target}(%v{b} : i32)")
        else:
            lines.append(f"  cf.br ^bb{b + 1}(%r{b} : i32)")
    lines.append("}")
    return "\n".join(lines) + "\n"


def edge_constants(rng: random.Random) -> str:
    """Straight-line arithmetic on edge constants that folding passes evaluate: division by
    zero, overflow, shifts past the width, NaN and infinity."""
    lines = ["func.func @consts(%p: i32, %q: f32) -> (i32, f32) {"]
    ints, floats = ["%p"], ["%q"]
    for k in range(rng.randint(2, 12)):
        if rng.random() < 0.5:
            lines.append(f"  %i{k} = arith.constant {rng.choice(EDGE_I32)} : i32")
            ints.append(f"%i{k}")
            a, b = rng.choice(ints), rng.choice(ints)
            lines.append(f"  %j{k} = arith.{rng.choice(INT_OPS)} {a}, {b} : i32")
            ints.append(f"%j{k}")
        else:
            lines.append(f"  %f{k} = arith.constant {rng.choice(EDGE_F32)} : f32")
            floats.append(f"%f{k}")
            a, b = rng.choice(floats), rng.choice(floats)
            lines.append(f"  %g{k} = arith.{rng.choice(FLOAT_OPS)} {a}, {b} : f32")
            floats.append(f"%g{k}")
    lines.append(f"  func.return {ints[-1]}, {floats[-1]} : i32, f32")
    lines.append("}")
    return "\n".join(lines) + "\n"


def odd_buffers(rng: random.Random) -> str:
    """Buffers of zero size, rank 0, odd alignment, and loads at edge indices."""
    shape = rng.choice(("0", "1", "3", "0x4", "1x1x1x1x1x1x1x1", "7x0x3"))
    rank = 0 if shape == "" else shape.count("x") + 1
    alignment = rng.choice(("", " {alignment = 64 : i64}", " {alignment = 1 : i64}"))
    lines = [f"func.func @buffers(%x: f32) -> memref<{shape}xf32> {{"]
    lines.append(f"  %m = memref.alloc(){alignment} : memref<{shape}xf32>")
    lines.append(f"  %c = arith.constant {rng.choice((0, 1, 5, -1))} : index")
    if rng.random() < 0.7:
        indices = ", ".join(["%c"] * rank)
        lines.append(f"  memref.store %x, %m[{indices}] : memref<{shape}xf32>")
    lines.append(f"  func.return %m : memref<{shape}xf32>")
    lines.append("}")
    return "\n".join(lines) + "\n"


def relay_text(rng: random.Random) -> str:
    """A relay function on odd shapes: zero-size, size-1 and high-rank tensors."""
    shape = rng.choice(((0,), (1,), (1, 1, 1, 1, 1, 1), (2, 0, 3), (5,), (1, 3, 1, 2)))
    t = "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"
    op = rng.choice(("add", "multiply", "maximum", "subtract"))
    unary = rng.choice(("exp", "nn.relu", "tanh", "negative", "sigmoid"))
    return (
        f"func.func @main(%x: {t}, %y: {t}) -> {t} {{\n"
        f"  %a = relay.{op} %x, %y : ({t}, {t}) -> {t}\n"
        f"  %b = relay.{unary} %a : ({t}) -> {t}\n"
        f"  func.return %b : {t}\n"
        "}\n"
    )


MUTANTS: tuple[Callable[[random.Random], str], ...] = (
    loop_nest,
    many_blocks,
    edge_constants,
    odd_buffers,
    relay_text,
)


# ---------------------------------------------------------------------------------------------
# Family 2: relay graphs from the Python API against the relay interpreter

SHAPES = (
    (),
    (0,),
    (1,),
    (5,),
    (1, 1),
    (2, 3),
    (3, 0),
    (1, 7),
    (2, 1, 3),
    (1, 1, 1, 1, 1, 1),
    (2, 1, 2, 1, 2, 1, 2),
    (17,),
    (4, 5, 6),
)
UNARY = ("exp", "negative", "abs", "tanh", "sigmoid", "sqrt", "relu", "clip")
BINARY = ("add", "subtract", "multiply", "divide", "maximum", "minimum")
REDUCE = ("sum", "mean", "max", "min", "prod")


def broadcastable(shape: tuple[int, ...], rng: random.Random) -> tuple[int, ...]:
    """A shape that broadcasts with `shape`: a suffix, with some dimensions set to 1."""
    tail = shape[rng.randint(0, len(shape)) :] if shape else ()
    return tuple(1 if rng.random() < 0.3 else d for d in tail)


def random_graph(rng: random.Random) -> tuple[Any, list[Any], list[tuple[int, ...]], str]:
    """A relay function, its input shapes and the Python that builds it (the reproducer)."""
    from xtvm import relay

    shape = rng.choice(SHAPES)
    inputs = [relay.var("x0", shape=shape, dtype="float32")]
    shapes = [shape]
    code = [f"x0 = relay.var('x0', shape={shape}, dtype='float32')"]
    value, current = inputs[0], shape
    names = ["x0"]
    for step in range(rng.randint(1, 5)):
        choice = rng.random()
        name = f"v{step}"
        if choice < 0.3:
            op = rng.choice(UNARY)
            if op == "relu":
                value, call = relay.nn.relu(value), f"relay.nn.relu({names[-1]})"
            elif op == "clip":
                value, call = relay.clip(value, -0.5, 0.5), f"relay.clip({names[-1]}, -0.5, 0.5)"
            elif op == "sqrt":
                value = relay.sqrt(relay.abs(value))
                call = f"relay.sqrt(relay.abs({names[-1]}))"
            else:
                value, call = getattr(relay, op)(value), f"relay.{op}({names[-1]})"
        elif choice < 0.6:
            op = rng.choice(BINARY)
            other = broadcastable(current, rng) if rng.random() < 0.6 else current
            if rng.random() < 0.5 and len(other) <= len(current):
                var = f"x{len(inputs)}"
                operand = relay.var(var, shape=other, dtype="float32")
                inputs.append(operand)
                shapes.append(other)
                code.append(f"{var} = relay.var('{var}', shape={other}, dtype='float32')")
            else:
                operand = relay.const(0.5 + abs(rng.gauss(0, 1)), "float32")
                var = "relay.const(1.5, 'float32')"
                other = ()
            if rng.random() < 0.5:
                value, call = getattr(relay, op)(value, operand), f"relay.{op}({names[-1]}, {var})"
            else:
                value, call = getattr(relay, op)(operand, value), f"relay.{op}({var}, {names[-1]})"
            current = broadcast_shape(current, other)
        elif choice < 0.75 and current:
            op = rng.choice(REDUCE)
            axis = rng.randrange(len(current))
            keep = rng.random() < 0.5
            value = getattr(relay, op)(value, axis=axis, keepdims=keep)
            call = f"relay.{op}({names[-1]}, axis={axis}, keepdims={keep})"
            current = tuple(
                (1 if keep else None) if i == axis else d for i, d in enumerate(current)
            )
            current = tuple(d for d in current if d is not None)
        elif choice < 0.85 and len(current) >= 2:
            axes = list(range(len(current)))
            rng.shuffle(axes)
            value = relay.transpose(value, axes=axes)
            call = f"relay.transpose({names[-1]}, axes={axes})"
            current = tuple(current[a] for a in axes)
        elif choice < 0.92 and 0 not in current:  # a 0 in newshape means "keep that dim"
            size = 1
            for d in current:
                size *= d
            new = (size,) if rng.random() < 0.5 else (1, size, 1)
            value, call = relay.reshape(value, new), f"relay.reshape({names[-1]}, {new})"
            current = new
        elif current:
            axis = rng.randrange(len(current))
            value = relay.concatenate([value, value], axis=axis)
            call = f"relay.concatenate([{names[-1]}, {names[-1]}], axis={axis})"
            current = tuple(2 * d if i == axis else d for i, d in enumerate(current))
        else:
            value, call = relay.nn.relu(value), f"relay.nn.relu({names[-1]})"
        code.append(f"{name} = {call}")
        names.append(name)
    fn = relay.Function(inputs, value)
    params = ", ".join(f"x{i}" for i in range(len(inputs)))
    code.append(f"fn = relay.Function([{params}], {names[-1]})")
    return fn, inputs, shapes, "\n".join(code)


def broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    import numpy as np

    return tuple(np.broadcast_shapes(a, b))


def compare(got: Sequence[Any], want: Sequence[Any]) -> str | None:
    """Why two lists of outputs differ, or None."""
    import numpy as np

    if len(got) != len(want):
        return f"{len(got)} outputs, expected {len(want)}"
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        g, w = np.asarray(g), np.asarray(w)
        if g.shape != w.shape:
            return f"output {k}: shape {g.shape}, expected {w.shape}"
        if not np.allclose(g, w, rtol=1e-4, atol=1e-5, equal_nan=True):
            nan_got, nan_want = np.isnan(g), np.isnan(w)
            if (nan_got != nan_want).any():
                return (
                    f"output {k}: NaN at {int((nan_got & ~nan_want).sum())} positions where a "
                    f"number is expected, a number at {int((nan_want & ~nan_got).sum())} "
                    "where NaN is"
                )
            worst = np.nanmax(np.abs(g.astype("float64") - w.astype("float64")))
            return f"output {k}: max difference {worst:.3g}"
    return None


def differ_in_nan_only(got: Sequence[Any], want: Sequence[Any]) -> bool:
    """Whether two lists of outputs of equal shapes agree wherever neither is NaN."""
    import numpy as np

    for g, w in zip(got, want, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        if g.shape != w.shape:
            return False
        numbers = ~(np.isnan(g) | np.isnan(w))
        if not np.allclose(g[numbers], w[numbers], rtol=1e-4, atol=1e-5):
            return False
    return True


def onnx_reference(model: Any, data: Any) -> list[Any] | None:
    """The outputs of the ONNX reference implementation (`onnx.reference`), or None."""
    import numpy as np
    from onnx.reference import ReferenceEvaluator

    try:
        with np.errstate(all="ignore"):
            return list(ReferenceEvaluator(model).run(None, {"t0": data}))
    except Exception:
        return None


def exception_outcome(family: str, exc: BaseException, reproducer: str, stage: str) -> Outcome:
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    signature = f"{stage}: {type(exc).__name__} at {innermost_frame(tb)}"
    message = f"{stage}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    return Outcome(family, "internal", signature, message[:400], reproducer)


def relay_case(rng: random.Random) -> Outcome:
    import numpy as np

    import xtvm as tvm
    from xtvm import relay
    from xtvm.api.relay.expr import RelayTypeError
    from xtvm.testing.relay import interpret, run_factory

    try:
        fn, _, shapes, code = random_graph(rng)
    except (RelayTypeError, ValueError) as exc:
        return Outcome("relay", "user", message=str(exc)[:200])
    data_rng = np.random.default_rng(rng.randrange(1 << 30))
    arrays = [data_rng.standard_normal(s).astype("float32") for s in shapes]
    repro = (
        f"{code}\nmod = tvm.IRModule.from_expr(fn)\n"
        f"inputs = shapes {shapes}, standard normal float32\n"
        "compare relay.build(mod, 'llvm') run on inputs with the relay interpreter"
    )
    try:
        mod = tvm.IRModule.from_expr(fn)
        want = interpret(mod, {}, *arrays)
    except Exception as exc:
        return exception_outcome("relay", exc, repro, "interpret")
    try:
        with np.errstate(all="ignore"):
            factory = relay.build(mod, "llvm")
            got = run_factory(factory, **{f"x{i}": a for i, a in enumerate(arrays)})
    except Exception as exc:  # the interpreter ran it: the graph is valid
        return exception_outcome("relay", exc, repro, "build")
    why = compare(got, want)
    if why is not None:
        signature = f"wrong: {normalize(code.splitlines()[-2].split('=', 1)[1])}"
        return Outcome("relay", "wrong", signature, why, repro)
    return Outcome("relay", "ok")


# ---------------------------------------------------------------------------------------------
# Family 4: ONNX models against onnxruntime

ONNX_UNARY = (
    "Relu",
    "Sigmoid",
    "Tanh",
    "Exp",
    "Abs",
    "Neg",
    "Softplus",
    "Erf",
    "Softsign",
    "Reciprocal",
    "Sqrt",
    "Log",
)
ONNX_BINARY = ("Add", "Sub", "Mul", "Div", "Max", "Min", "Pow")
ONNX_SHAPES = ((1,), (3,), (2, 3), (1, 4, 1), (2, 3, 4), (1, 2, 3, 4), (0, 3), (1, 1, 1, 1, 1))


def onnx_node(rng: random.Random, shape: tuple[int, ...], k: int, inits: list[Any]) -> tuple:
    """One random node on an input of `shape`: (node, output shape or None when unknown)."""
    import numpy as np
    from onnx import helper, numpy_helper

    src, dst = f"t{k}", f"t{k + 1}"
    rank = len(shape)
    roll = rng.random()
    bad = rng.random() < 0.1  # an attribute out of range, which import must reject cleanly
    if roll < 0.3 or rank == 0:
        return helper.make_node(rng.choice(ONNX_UNARY), [src], [dst]), shape
    if roll < 0.5:
        other = tuple(1 if rng.random() < 0.3 else d for d in shape[rng.randint(0, rank) :])
        name = f"c{k}"
        value = np.random.default_rng(k).uniform(0.5, 1.5, other).astype("float32")
        inits.append(numpy_helper.from_array(value, name))
        return helper.make_node(rng.choice(ONNX_BINARY), [src, name], [dst]), shape
    if roll < 0.6:
        axis = rng.randint(-rank - 1, rank) if bad else rng.randint(-rank, rank - 1)
        return helper.make_node("Softmax", [src], [dst], axis=axis), shape
    if roll < 0.7:
        perm = list(range(rank))
        rng.shuffle(perm)
        if bad:
            perm = perm[:-1] or [1]
        out = tuple(shape[p] for p in perm if p < rank)
        return helper.make_node("Transpose", [src], [dst], perm=perm), out
    if roll < 0.8:
        axis = rng.randint(-rank, rank - 1) if not bad else rank + 1
        keep = rng.randint(0, 1)
        op = rng.choice(("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin"))
        if op == "ReduceSum":
            name = f"axes{k}"
            inits.append(numpy_helper.from_array(np.array([axis], dtype="int64"), name))
            node = helper.make_node(op, [src, name], [dst], keepdims=keep)
        else:
            node = helper.make_node(op, [src], [dst], axes=[axis], keepdims=keep)
        out = list(shape)
        if -rank <= axis < rank:
            if keep:
                out[axis] = 1
            else:
                del out[axis]
        return node, tuple(out)
    if roll < 0.9:
        axis = rng.randint(0, rank) if not bad else rank + 2
        size = int(np.prod(shape[:axis])) if axis <= rank else 1
        rest = int(np.prod(shape[axis:])) if axis <= rank else 1
        return helper.make_node("Flatten", [src], [dst], axis=axis), (size, rest)
    axis = rng.randint(-rank, rank - 1) if not bad else rank
    out = tuple(2 * d if i == axis % max(rank, 1) else d for i, d in enumerate(shape))
    return helper.make_node("Concat", [src, src], [dst], axis=axis), out


def random_onnx(rng: random.Random) -> tuple[Any, tuple[int, ...]]:
    from onnx import TensorProto, helper

    shape = rng.choice(ONNX_SHAPES)
    inits: list[Any] = []
    nodes = []
    current = shape
    count = rng.randint(1, 4)
    for k in range(count):
        node, current = onnx_node(rng, current, k, inits)
        nodes.append(node)
    dims = [f"d{i}" for i in range(len(current))]  # symbolic: a wrong guess would not matter
    graph = helper.make_graph(
        nodes,
        "fuzz",
        [helper.make_tensor_value_info("t0", TensorProto.FLOAT, list(shape))],
        [helper.make_tensor_value_info(f"t{count}", TensorProto.FLOAT, dims)],
        initializer=inits,
    )
    opset = rng.choice((13, 17))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model, shape


def onnx_case(rng: random.Random, tmp: Path) -> Outcome:
    import numpy as np
    import onnxruntime

    from xtvm import relay
    from xtvm.frontends.onnx import OnnxImportError, import_onnx
    from xtvm.ir.diagnostics import DiagnosticError
    from xtvm.testing.relay import run_factory

    model, shape = random_onnx(rng)
    path = tmp / "case.onnx"
    path.write_bytes(model.SerializeToString())
    nodes = "; ".join(
        f"{n.op_type}({', '.join(f'{a.name}={_attr(a)}' for a in n.attribute)})"
        for n in model.graph.node
    )
    repro = f"ONNX model: input t0{shape}, opset {model.opset_import[0].version}: {nodes}"
    data = np.random.default_rng(rng.randrange(1 << 30)).standard_normal(shape).astype("float32")
    try:
        session = onnxruntime.InferenceSession(
            model.SerializeToString(), providers=["CPUExecutionProvider"]
        )
        want: list[Any] | None = session.run(None, {"t0": data})
    except Exception:
        want = None  # invalid for onnxruntime too
    try:
        module, params = import_onnx(path)
    except OnnxImportError as exc:
        text = str(exc)
        if re.search(r"\b(node|nodes|input|output|initializer)\b[^']*'", text):
            return Outcome("onnx", "user", message=text[:200])
        return Outcome("onnx", "unlocated", f"unlocated: {normalize(text)}", text[:300], repro)
    except Exception as exc:
        return exception_outcome("onnx", exc, repro, "import")
    try:
        with np.errstate(all="ignore"):
            factory = relay.build(module, "llvm", params)
            got = run_factory(factory, **{"t0": data})
    except (DiagnosticError, ValueError) as exc:
        if want is None:
            return Outcome("onnx", "user", message=str(exc)[:200])
        return exception_outcome("onnx", exc, repro, "build of a model onnxruntime runs")
    except Exception as exc:
        return exception_outcome("onnx", exc, repro, "build")
    if want is None:
        return Outcome("onnx", "ok")
    why = compare(got, want)
    if why is not None and len(got) == len(want) and differ_in_nan_only(got, want):
        # Where NaN arises onnxruntime is not the spec: its ReduceMax/ReduceMin keep a NaN
        # only when it comes first, and ReduceMean over no element (undefined in the ONNX
        # spec) gives 0. The reference implementation, numpy's semantics, decides there.
        reference = onnx_reference(model, data)
        if reference is not None and compare(got, reference) is None:
            why = None
    if why is not None:
        kind = "NaN" if "NaN" in why or "nan" in why else "values"
        signature = f"wrong ({kind}): last op {model.graph.node[-1].op_type}"
        return Outcome("onnx", "wrong", signature, why, repro)
    return Outcome("onnx", "ok")


def _attr(attribute: Any) -> Any:
    from onnx import helper

    return helper.get_attribute_value(attribute)


# ---------------------------------------------------------------------------------------------
# Cases and the worker process


def case_family(seed: int, index: int, families: Sequence[str]) -> tuple[str, random.Random]:
    rng = random.Random(f"{seed}:{index}")
    weights = [FAMILIES[f] for f in families]
    return rng.choices(list(families), weights)[0], rng


def run_case(worker: Worker, seed: int, index: int, families: Sequence[str]) -> Outcome:
    """Case `index` of campaign `seed`; global registrations it makes are undone after it."""
    from xtvm.testing.registries import preserved

    family, rng = case_family(seed, index, families)
    start = time.perf_counter()
    try:
        with preserved():
            outcome = getattr(worker, f"case_{family}")(rng)
    except MemoryError as exc:
        outcome = exception_outcome(family, exc, f"case {index} of seed {seed}", "memory")
    except Exception as exc:  # the harness itself: report, do not stop the campaign
        outcome = exception_outcome(family, exc, f"case {index} of seed {seed}", "harness")
    outcome.seconds = time.perf_counter() - start
    if outcome.reproducer:
        outcome.reproducer = (
            f"# fuzz_passes.py --seed {seed}, case {index}\n{outcome.reproducer}"
        )[:6000]
    return outcome


def worker_main(memory: int) -> int:
    """Answer `seed index families` lines on stdin with one JSON outcome each."""
    import resource

    protocol = os.fdopen(os.dup(1), "w")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # C code printing must not corrupt the protocol
    os.dup2(devnull, 2)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    if memory > 0:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (memory, hard))
    from xtvm.testing.registries import import_all

    import_all()
    worker = Worker()
    protocol.write("ready\n")
    protocol.flush()
    for line in sys.stdin:
        seed, index, families = line.split()
        outcome = run_case(worker, int(seed), int(index), families.split(","))
        protocol.write(json.dumps(asdict(outcome)) + "\n")
        protocol.flush()
    return 0


@dataclass
class Campaign:
    """Counts per family and class, and the first failure of each signature."""

    counts: Counter[tuple[str, str]] = field(default_factory=Counter)
    findings: dict[str, tuple[Outcome, int]] = field(default_factory=dict)
    seconds: float = 0.0

    def add(self, outcome: Outcome) -> None:
        self.counts[outcome.family, outcome.kind] += 1
        if outcome.kind in FAILURES:
            key = f"{outcome.kind}: {outcome.signature}"
            if key in self.findings:
                first, seen = self.findings[key]
                self.findings[key] = (first, seen + 1)
            else:
                self.findings[key] = (outcome, 1)

    def total(self, kind: str) -> int:
        return sum(n for (_, k), n in self.counts.items() if k == kind)


class WorkerProcess:
    """A worker subprocess, restarted when a case hangs or kills it."""

    def __init__(self, memory: int) -> None:
        self.memory = memory
        self.process: subprocess.Popen[str] | None = None

    def start(self) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path[1:]])}
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--worker", "--memory", str(self.memory)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
        if self.readline(300) != "ready":
            raise RuntimeError("the fuzz worker did not start")

    def readline(self, timeout: float) -> str | None:
        assert self.process is not None and self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        if not ready:
            return None
        line = self.process.stdout.readline()
        return line.strip() if line else ""

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def run(self, seed: int, index: int, families: Sequence[str], timeout: float) -> Outcome:
        if self.process is None:
            self.start()
        assert self.process is not None and self.process.stdin is not None
        family, _ = case_family(seed, index, families)
        try:
            self.process.stdin.write(f"{seed} {index} {','.join(families)}\n")
            self.process.stdin.flush()
            line = self.readline(timeout)
        except BrokenPipeError:
            line = ""
        repro = f"# fuzz_passes.py --seed {seed}, case {index} (family {family})"
        if line is None:
            self.stop()
            return Outcome(family, "hang", f"hang: {family}", f"over {timeout} s", repro)
        if not line:
            code = self.process.wait()
            self.process = None
            return Outcome(family, "crash", f"crash: {family} exit {code}", f"exit {code}", repro)
        return Outcome(**json.loads(line))


def run_campaign(
    cases: int,
    seed: int,
    timeout: float,
    families: Sequence[str] = tuple(FAMILIES),
    memory: int = 4 << 30,
    progress: Callable[[int, Campaign], None] | None = None,
) -> Campaign:
    campaign = Campaign()
    worker = WorkerProcess(memory)
    start = time.perf_counter()
    try:
        for index in range(cases):
            campaign.add(worker.run(seed, index, families, timeout))
            if progress is not None:
                progress(index + 1, campaign)
    finally:
        worker.stop()
        campaign.seconds = time.perf_counter() - start
    return campaign


def report(campaign: Campaign, show: int) -> str:
    families = sorted({f for f, _ in campaign.counts})
    lines = [f"{'family':<8}" + "".join(f"{c:>10}" for c in CLASSES) + f"{'total':>10}"]
    for family in [*families, "all"]:
        row = [
            sum(n for (f, k), n in campaign.counts.items() if k == c and family in (f, "all"))
            for c in CLASSES
        ]
        lines.append(f"{family:<8}" + "".join(f"{n:>10}" for n in row) + f"{sum(row):>10}")
    lines.append(f"{campaign.seconds:.0f} s")
    if not campaign.findings:
        lines.append("no failures")
        return "\n".join(lines)
    lines.append(f"\n{len(campaign.findings)} distinct failures:")
    for number, (key, (outcome, seen)) in enumerate(sorted(campaign.findings.items()), 1):
        lines.append(f"\n[{number}] {seen}x {key}")
        lines.append(f"    {outcome.message}")
        if number <= show:
            lines.append("    " + "\n    ".join(outcome.reproducer.splitlines()[:60]))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", type=int, default=10_000, help="number of cases")
    p.add_argument("--seed", type=int, default=0, help="campaign seed")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds per case")
    p.add_argument("--family", action="append", choices=sorted(FAMILIES), help="only these")
    p.add_argument("--memory", type=int, default=4 << 30, help="worker address-space bytes")
    p.add_argument("--show", type=int, default=1000, help="reproducers printed in full")
    p.add_argument("--json", type=Path, help="also write the outcomes per signature here")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        return worker_main(args.memory)
    families = tuple(args.family or FAMILIES)

    def progress(done: int, campaign: Campaign) -> None:
        if done % 250 == 0:
            failures = sum(campaign.total(k) for k in FAILURES)
            print(
                f"  {done} cases, {failures} failures, {len(campaign.findings)} distinct",
                flush=True,
            )

    campaign = run_campaign(args.cases, args.seed, args.timeout, families, args.memory, progress)
    print(report(campaign, args.show))
    if args.json:
        data = {k: {**asdict(o), "seen": n} for k, (o, n) in campaign.findings.items()}
        args.json.write_text(json.dumps(data, indent=1))
    return 1 if campaign.findings else 0


def iter_findings(campaign: Campaign) -> Iterator[str]:
    for key, (outcome, seen) in sorted(campaign.findings.items()):
        yield f"{seen}x {key}\n{outcome.message}\n{outcome.reproducer}"


if __name__ == "__main__":
    sys.exit(main())
