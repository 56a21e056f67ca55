"""Dialects registered by path are imported only when the text or the IR uses them, and the
cached index of their syntax follows their sources."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from xtvm.dialects.registry import default_context
from xtvm.ir.context import IRContext
from xtvm.ir.diagnostics import DiagnosticError
from xtvm.ir.printer import print_ir

DIALECT = """
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Dialect
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def


@irdl_op_definition
class PingOp(IRDLOperation):
    name = "lazyd.ping"
    arg = operand_def(IntegerType)
    res = result_def(IntegerType)
    assembly_format = "{format}"


LazyD = Dialect("lazyd", [PingOp], [])
"""
SPACED = "$arg attr-dict `:` type($arg) `->` type($res)"
PARENS = "`(` $arg `)` attr-dict `:` type($arg) `->` type($res)"
FUNC = "func.func @f(%a: i32) -> i32 {\n  func.return %a : i32\n}\n"
PING = (
    "func.func @g(%a: i32) -> i32 {\n  %b = lazyd.ping{} : i32 -> i32\n  func.return %b : i32\n}\n"
)


@pytest.fixture
def dialect_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Path]]:
    """A dialect module of a fresh name on sys.path, a fresh cache, and no trace left after."""
    name = f"lazyd_{tmp_path.name.replace('-', '_')}"
    path = tmp_path / "src" / f"{name}.py"
    path.parent.mkdir()
    path.write_text(DIALECT.format(format=SPACED))
    monkeypatch.syspath_prepend(str(path.parent))
    monkeypatch.setenv("XTVM_CACHE_DIR", str(tmp_path / "cache"))
    yield name, path
    sys.modules.pop(name, None)


def context(module: str) -> IRContext:
    ctx = default_context()
    ctx.register_dialect("lazyd", f"{module}:LazyD")
    return ctx


def test_dialect_is_imported_when_the_text_uses_it(dialect_module: tuple[str, Path]) -> None:
    name, _ = dialect_module
    context(name).parser()  # the first context composes the grammar, importing everything
    sys.modules.pop(name)

    ctx = context(name)
    print_ir(ctx.parse(FUNC), ctx)
    assert name not in sys.modules

    module = ctx.parse(PING.replace("{}", " %a"))
    assert name in sys.modules
    assert "%b = lazyd.ping %a : i32 -> i32" in print_ir(module, ctx)


def test_changed_dialect_source_is_not_read_from_the_cache(
    dialect_module: tuple[str, Path],
) -> None:
    name, path = dialect_module
    context(name).parse(PING.replace("{}", " %a"))
    sys.modules.pop(name)
    path.write_text(DIALECT.format(format=PARENS))

    ctx = context(name)
    module = ctx.parse(PING.replace("{}", "(%a)"))
    assert "%b = lazyd.ping(%a) : i32 -> i32" in print_ir(module, ctx)
    with pytest.raises(DiagnosticError):
        ctx.parse(PING.replace("{}", " %a"))


def test_registered_dialect_must_be_the_one_named(dialect_module: tuple[str, Path]) -> None:
    name, _ = dialect_module
    ctx = default_context()
    ctx.register_dialect("other", f"{name}:LazyD")
    with pytest.raises(ValueError, match="is not the dialect 'other'"):
        ctx.dialect("other")


def test_trivial_parse_imports_no_other_dialect() -> None:
    # In a fresh process (this one imported everything): after one call that may fill the
    # cache, xtvm-opt on a func file imports builtin and func only, and not numpy.
    script = textwrap.dedent(
        """
        import contextlib, io, sys, tempfile
        from xtvm.tools.opt import main
        with tempfile.NamedTemporaryFile("w", suffix=".mlir") as f:
            f.write("func.func @f() {\\n  func.return\\n}\\n")
            f.flush()
            with contextlib.redirect_stdout(io.StringIO()):
                assert main([f.name]) == 0
        prefix = "xdsl.dialects."
        print(sorted(m[len(prefix):] for m in sys.modules if m.startswith(prefix)
                     and "." not in m[len(prefix):]), "numpy" in sys.modules)
        """
    )
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=True
        )
    assert done.stdout.strip() == "['builtin', 'func', 'utils'] False"
