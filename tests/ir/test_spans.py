"""Spans: a generic op's properties and function type read as one token when the same text was
parsed earlier in the input (xtvm/ir/lexer.py). The IR and every diagnostic must be what
reading the text token by token gives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from xdsl.dialects.builtin import IntegerType, ModuleOp, NameLoc, NoneAttr, StringAttr

from xtvm.dialects.registry import default_context
from xtvm.ir import lexer
from xtvm.ir.context import IRContext
from xtvm.ir.diagnostics import DiagnosticError
from xtvm.ir.parser import IRBuilder
from xtvm.ir.printer import print_ir
from xtvm.testing.fuzz import grammar_vocabulary, mutants, seed_texts

ADD = '"arith.addi"(%a, %b) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32'
CONST = '"arith.constant"() <{value = 7 : i32}> : () -> i32'


def function(*lines: str) -> str:
    """A module of one function of `lines`, in the generic form xtvm prints."""
    body = "\n".join(f"    {line}" for line in lines)
    return (
        '"builtin.module"() ({\n'
        '  "func.func"() <{sym_name = "f", function_type = (i32, i32) -> ()}> ({\n'
        f"  ^bb0(%a: i32, %b: i32):\n{body}\n"
        '    "func.return"() : () -> ()\n'
        "  }) : () -> ()\n"
        "}) : () -> ()\n"
    )


def test_repeated_text_is_read_once_as_a_span(monkeypatch: pytest.MonkeyPatch) -> None:
    hits: list[Any] = []
    original = IRBuilder.seen_span

    def counting(self: IRBuilder, children: list[Any]) -> Any:
        hits.append(children[0].type)
        return original(self, children)

    monkeypatch.setattr(IRBuilder, "seen_span", counting)
    ctx = default_context()
    text = function(f"%0 = {ADD}", f"%1 = {ADD}", f"%2 = {ADD}")
    module = ctx.parse(text)
    # the first add is read token by token, the two others as two spans each; the function's
    # and the module's `: () -> ()` were read before, in `func.return`
    assert sorted(hits) == ["SEEN_FUNCTION_TYPE"] * 4 + ["SEEN_PROPERTIES"] * 2
    assert print_ir(module, ctx, generic=True) == text
    adds = [op for op in module.walk() if op.name == "arith.addi"]
    assert [op.results[0].name_hint for op in adds] == [None, None, None]
    assert all(op.operands[0].type == IntegerType(32) for op in adds)
    # each op has its own properties, equal to the first one's
    assert adds[1].properties is not adds[2].properties
    assert adds[1].properties == adds[0].properties


def test_errors_after_a_span_are_located_at_their_own_token() -> None:
    ctx = default_context()
    with pytest.raises(DiagnosticError) as info:
        ctx.parse(function(CONST, f"{CONST} x"), "in.mlir")
    (diagnostic,) = info.value.diagnostics
    assert diagnostic.location is not None
    assert (diagnostic.location.line, diagnostic.location.column) == (5, 4 + len(CONST) + 2)
    assert "unexpected 'x'" in diagnostic.message

    with pytest.raises(DiagnosticError) as info:
        ctx.parse(function(f"%0 = {ADD}", ADD.replace("(%a, %b)", "(%a)")), "in.mlir")
    (diagnostic,) = info.value.diagnostics
    assert diagnostic.location is not None
    assert (diagnostic.location.line, diagnostic.location.column) == (5, 5)
    assert "has 1 operands but its type lists 2" in diagnostic.message


def test_a_span_ends_where_the_type_ends() -> None:
    """`!llvm.ptr` read before must not stand for the start of `!llvm.ptr<1>`, and a location
    after a seen function type is still the op's."""
    ctx = default_context()
    zero = '"llvm.mlir.zero"() : () -> !llvm.ptr'
    text = function(f"%0 = {zero}", f"%1 = {zero}<1>", f'%2 = {zero} loc("here")')
    module = ctx.parse(text)
    zeros = [op for op in module.walk() if op.name == "llvm.mlir.zero"]
    assert [str(op.results[0].type) for op in zeros] == [
        "!llvm.ptr",
        "!llvm.ptr<1>",
        "!llvm.ptr",
    ]
    assert zeros[2].location == NameLoc(StringAttr("here"), NoneAttr())


def test_span_texts_with_comments_and_strings() -> None:
    ctx = default_context()
    commented = '"arith.addi"(%a, %b) : (i32, // a "}>" comment\n      i32) -> i32'
    text = function(f"%0 = {commented}", f"%1 = {commented}")
    module = ctx.parse(text)
    assert [op.name for op in module.walk()][2:4] == ["arith.addi", "arith.addi"]


def test_an_alias_defined_again_is_not_served_from_an_earlier_span() -> None:
    ctx = default_context()
    op = '"arith.constant"() <{value = 1 : !t}> : () -> !t'
    text = f"!t = i32\n{function(op)}!t = i64\n{function(op)}"
    module = ctx.parse(text)
    assert isinstance(module, ModuleOp)
    types = [str(op.results[0].type) for op in module.walk() if op.name == "arith.constant"]
    assert types == ["i32", "i64"]


def outcome(ctx: IRContext, text: str) -> str:
    """What reading `text` gives: the IR in the generic form, or the located diagnostics."""
    try:
        return print_ir(ctx.parse(text, "in.mlir"), ctx, generic=True)
    except DiagnosticError as exc:
        return exc.render()


def test_spans_change_no_outcome(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every lit input and xDSL test input, and mutants of them, read with and without spans:
    the same IR or the same diagnostics."""
    root = Path(__file__).resolve().parents[2]
    seeds = seed_texts([root / "lit_tests", root / "tests" / "ir" / "xdsl_inputs"])
    ctx = default_context()
    texts = seeds + list(mutants(seeds, grammar_vocabulary(ctx), 300, seed=11))
    with_spans = [outcome(ctx, text) for text in texts]
    monkeypatch.setattr(lexer, "MAX_SPANS", 0)
    without = [outcome(ctx, text) for text in texts]
    differing = [t for t, a, b in zip(texts, with_spans, without, strict=True) if a != b]
    assert not differing, differing[0]
