"""Diagnostics point at the source: parse errors and verifier errors carry file, line and column.

A table of malformed inputs, each with where its error must be reported and what it must say;
then `verify_diagnostics` (every failing op, each at its own name token) and the rendered text
(`file:line:col: error: message`, the source line and a caret).
"""

from __future__ import annotations

import functools

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, i32
from xdsl.ir import Block, Region

from xtvm.dialects.registry import default_context
from xtvm.ir.context import IRContext
from xtvm.ir.diagnostics import Diagnostic, DiagnosticError, Location, Severity, SourceFile
from xtvm.ir.verify import clean_message, verify_diagnostics, verify_or_raise


@functools.cache
def context() -> IRContext:
    return default_context()


def parse_error(text: str, first_line: int = 1) -> Diagnostic:
    with pytest.raises(DiagnosticError) as info:
        context().parse(text, "in.mlir", first_line)
    diagnostics = info.value.diagnostics
    assert len(diagnostics) == 1, info.value.render()
    return diagnostics[0]


# (name, text, line, column, message fragment): the error is at line:column of the text.
# Syntax and attribute errors come before an op's name is looked up, so the `test.op` inputs
# fail where they should even though no unregistered dialect is allowed.
MALFORMED = [
    (
        # whitespace and comments before a token are skipped with it; positions stay exact
        "bad_character_after_comments",
        "// one\n\n  // two\nfunc.func @f() {\n  // three\n    $\n}",
        6,
        5,
        "unexpected character '$'",
    ),
    (
        "undeclared_value_after_comment",
        "func.func @f(%a: i32) {\n  // c\n  %b = arith.addi %a, /* */ %a : i32\n}",
        3,
        23,
        "unexpected character '/'",
    ),
    (
        "undeclared_value",
        "func.func @f(%a: i32) {\n  %b = arith.addi %a, %zz : i32\n  func.return\n}",
        2,
        23,
        "use of undeclared SSA value '%zz'",
    ),
    (
        "redefinition",
        "func.func @f() {\n  %x = arith.constant 1 : i32\n  %x = arith.constant 2 : i32\n}",
        3,
        3,
        "redefinition of SSA value '%x'",
    ),
    (
        "type_of_uses_disagree",
        "func.func @f(%a: i32, %g: f32) {\n  %b = arith.addi %a, %a : i32\n"
        "  %c = arith.addf %b, %g : f32\n  func.return\n}",
        3,
        19,
        "use of value '%b' expects different type than prior uses: 'f32' vs 'i32'",
    ),
    (
        "redefined_block",
        "func.func @f() {\n  cf.br ^bb1\n^bb1:\n  cf.br ^bb1\n^bb1:\n  func.return\n}",
        5,
        1,
        "redefinition of block '^bb1'",
    ),
    (
        "undefined_block",
        "func.func @f() {\n  cf.br ^nowhere\n}",
        2,
        9,
        "reference to an undefined block '^nowhere'",
    ),
    (
        "unknown_custom_op",
        "func.func @f() {\n  %x = foo.bar : i32\n}",
        2,
        8,
        "unknown operation 'foo.bar'",
    ),
    (
        "generic_only_op_in_custom_form",
        "func.func @f(%c: index) {\n  scf.parallel (%i) = (%c) to (%c) step (%c) {\n  }\n}",
        2,
        3,
        "operation 'scf.parallel' has no custom syntax",
    ),
    (
        "result_count",
        "func.func @f(%a: i32) {\n  %b:2 = arith.addi %a, %a : i32\n  func.return\n}",
        2,
        3,
        "operation 'arith.addi' has 1 results but 2 names were given",
    ),
    (
        "unknown_element_type",
        "func.func @f() {\n  %c = arith.constant 1 : f33\n}",
        2,
        27,
        "unexpected 'f33', expected type",
    ),
    (
        "missing_operand",
        "func.func @f(%a: i32) {\n  %b = arith.addi %a : i32\n  func.return\n}",
        2,
        22,
        "unexpected ':', expected ','",
    ),
    (
        "unclosed_argument_list",
        "func.func @f(%a: i32 {\n  func.return\n}",
        3,
        2,
        "unexpected end of input",
    ),
    (
        "stray_brace",
        "func.func @f() {\n  func.return\n}\n}",
        4,
        1,
        "unexpected '}'",
    ),
    (
        "stray_character",
        "func.func @f() {\n  func.return\n} #",
        3,
        3,
        "unexpected character '#'",
    ),
    (
        "malformed_dense_array",
        '"test.op"() {a = array<i32: 1, x>} : () -> ()',
        1,
        32,
        "unexpected 'x'",
    ),
    (
        "vector_without_element_type",
        '"test.op"() : () -> vector<4x>',
        1,
        30,
        "unexpected '>'",
    ),
    (
        "unregistered_dialect_attribute",
        '"test.op"() {a = #foo.bar<1>} : () -> ()',
        1,
        18,
        "invalid attribute '#foo.bar<1>'",
    ),
    (
        "affine_map_unknown_dimension",
        '"test.op"() {a = affine_map<(d0) -> (d7)>} : () -> ()',
        1,
        18,
        "invalid attribute 'affine_map<(d0) -> (d7)>'",
    ),
    (
        "integer_out_of_range",
        "func.func @f() {\n  %c = arith.constant 300 : i8\n}",
        2,
        23,
        "out of range for type i8",
    ),
    (
        "unknown_predicate",
        "func.func @f(%a: i32) {\n  %b = arith.cmpi foo, %a, %a : i32\n}",
        2,
        19,
        "unknown predicate 'foo' for 'arith.cmpi'",
    ),
    # func.func has no implicit terminator (scf.for and affine.for have one)
    (
        "function_without_return",
        "func.func @f(%a: i32) {\n  %b = arith.addi %a, %a : i32\n}",
        2,
        8,
        "'func.func' op body ends with 'arith.addi', which is not a terminator",
    ),
    (
        "function_with_empty_body",
        "func.func @f() {\n}",
        1,
        1,
        "'func.func' op expected non-empty function body",
    ),
    (
        "affine_bound_needs_max",
        "func.func @f(%a: index) {\n  affine.for %i = affine_map<(d0) -> (d0, 0)>(%a) to 8 {\n"
        "  }\n  func.return\n}",
        2,
        3,
        "loop bound affine map with multiple results requires 'max' prefix",
    ),
    (
        "affine_map_operand_count",
        "func.func @f(%a: index) -> index {\n"
        "  %b = affine.apply affine_map<(d0)[s0] -> (d0 + s0)> (%a)\n  func.return %b : index\n}",
        2,
        8,
        "'affine.apply' op map has 1 dimensions and 1 symbols, but 1 and 0 operands are given",
    ),
    (
        "affine_load_of_tensor",
        "func.func @f(%t: tensor<4xf32>) {\n  %v = affine.load %t[0] : tensor<4xf32>\n"
        "  func.return\n}",
        2,
        8,
        "'affine.load' op expects a memref type, got 'tensor<4xf32>'",
    ),
]


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [case[1:] for case in MALFORMED],
    ids=[case[0] for case in MALFORMED],
)
def test_parse_error_is_located(text: str, line: int, column: int, message: str) -> None:
    diagnostic = parse_error(text)
    assert diagnostic.severity is Severity.ERROR
    assert message in diagnostic.message
    assert diagnostic.location is not None, diagnostic.render()
    assert (diagnostic.location.line, diagnostic.location.column) == (line, column)
    assert diagnostic.location.filename == "in.mlir"


def test_first_line_offsets_positions() -> None:
    # A piece of a split file reports the lines of the file, and shows the right source line.
    text = "func.func @f(%a: i32) {\n  %b = arith.addi %a, %zz : i32\n}"
    diagnostic = parse_error(text, first_line=40)
    assert diagnostic.location is not None
    assert (diagnostic.location.line, diagnostic.location.column) == (41, 23)
    assert diagnostic.render().split("\n")[1] == "  %b = arith.addi %a, %zz : i32"


def test_trailing_comments_end_the_input() -> None:
    module = context().parse("func.func @f() {\n  func.return\n} // end\n// more\n", "in.mlir")
    assert [op.name for op in module.walk()] == ["builtin.module", "func.func", "func.return"]
    diagnostic = parse_error("func.func @f() {\n  func.return\n// x\n")
    assert diagnostic.location is not None
    assert (diagnostic.location.line, diagnostic.location.column) == (3, 5)


def test_end_of_input_is_after_the_last_character() -> None:
    diagnostic = parse_error("func.func @f() {\n  func.return\n")
    assert diagnostic.location is not None
    assert (diagnostic.location.line, diagnostic.location.column) == (2, 14)
    assert diagnostic.message.startswith("unexpected end of input")


def test_rendered_parse_error() -> None:
    diagnostic = parse_error("func.func @f(%a: i32) {\n  %b = arith.addi %a, %zz : i32\n}")
    assert diagnostic.render() == (
        "in.mlir:2:23: error: use of undeclared SSA value '%zz'\n"
        "  %b = arith.addi %a, %zz : i32\n"
        "                      ^"
    )


def test_caret_keeps_tabs_aligned() -> None:
    source = SourceFile("t.mlir", "\tx = y")
    rendered = Diagnostic(Severity.ERROR, "bad", Location(source, 1, 6)).render()
    assert rendered.split("\n")[2] == "\t    ^"


def test_notes_follow_their_error() -> None:
    source = SourceFile("n.mlir", "a\nb")
    note = Diagnostic(Severity.NOTE, "in function @main", Location(source, 1, 1))
    error = Diagnostic(Severity.ERROR, "boom", Location(source, 2, 1), [note])
    assert error.render().split("\n") == [
        "n.mlir:2:1: error: boom",
        "b",
        "^",
        "n.mlir:1:1: note: in function @main",
        "a",
        "^",
    ]


def test_unlocated_diagnostic_has_no_position() -> None:
    assert Diagnostic(Severity.ERROR, "cannot open 'x'").render() == "error: cannot open 'x'"


# ---------------------------------------------------------------- verify_diagnostics

VERIFIER_ERRORS = """\
func.func @f(%a: i32, %t: i1) -> f32 {
  %c = "arith.select"(%t, %a, %a) : (i1, i32, i32) -> f32
  func.return %c : f32
}
func.func @g(%a: i32, %c: i1, %n: index) {
  scf.if %c {
    %r = scf.for %i = %n to %n step %n iter_args(%x = %a) -> (i32) {
      scf.yield %c : i1
    }
  }
  func.return %a : i32
}
func.func @ok(%a: i32) -> i32 {
  func.return %a : i32
}
"""


def parse_and_verify(text: str) -> list[Diagnostic]:
    module = context().parse(text, "v.mlir")
    return verify_diagnostics(module, {"v.mlir": SourceFile("v.mlir", text)})


def test_verify_reports_every_failing_op_at_its_name() -> None:
    diagnostics = parse_and_verify(VERIFIER_ERRORS)
    located = [(d.location.line, d.location.column) for d in diagnostics if d.location]
    assert located == [(2, 8), (7, 10), (11, 3)]
    assert all(d.severity is Severity.ERROR for d in diagnostics)


def test_verify_messages_read_like_mlir() -> None:
    messages = [d.message for d in parse_and_verify(VERIFIER_ERRORS)]
    assert messages[0] == (
        "'arith.select' op result 'result' at position 0 does not verify: "
        "attribute i32 expected from variable '_T', but got f32"
    )
    assert messages[1].startswith("'scf.for' op expected yield arg #0 to be i32, but got i1")
    assert messages[2] == (
        "'func.return' op expected arguments to have the same types as the function output "
        "types: expected [], got [i32]"
    )


def test_verify_renders_source_and_caret() -> None:
    first = parse_and_verify(VERIFIER_ERRORS)[0]
    assert first.render().split("\n")[1:] == [
        '  %c = "arith.select"(%t, %a, %a) : (i1, i32, i32) -> f32',
        "       ^",
    ]


def test_valid_module_has_no_diagnostics() -> None:
    module = context().parse("func.func @ok(%a: i32) -> i32 {\n  func.return %a : i32\n}")
    assert verify_diagnostics(module, {}) == []
    verify_or_raise(module, {})


def test_verify_or_raise_carries_all_diagnostics() -> None:
    module = context().parse(
        "func.func @f(%a: i32) -> f32 {\n  func.return %a : i32\n}\n"
        "func.func @g(%a: i32) -> i64 {\n  func.return %a : i32\n}",
        "r.mlir",
    )
    with pytest.raises(DiagnosticError) as info:
        verify_or_raise(module, {})
    assert [d.location.line for d in info.value.diagnostics if d.location] == [2, 5]


def test_built_ops_fall_back_to_no_location() -> None:
    # Ops built in Python have no source position: the diagnostic is unlocated, not wrong.
    block = Block(arg_types=[i32])
    block.add_op(func.ReturnOp())
    module = ModuleOp([func.FuncOp("h", ([i32], [i32]), Region(block))])
    (diagnostic,) = verify_diagnostics(module, {})
    assert diagnostic.location is None
    assert diagnostic.message.startswith("'func.return' op expected arguments")


def test_verifier_raising_a_bare_exception_is_still_a_diagnostic() -> None:
    # xDSL's memref.load verifier raises `Exception`, not `VerifyException`.
    text = (
        "func.func @f(%m: memref<4x4xf32>, %i: index) {\n"
        "  %v = memref.load %m[%i] : memref<4x4xf32>\n"
        "  func.return\n}"
    )
    (diagnostic,) = verify_diagnostics(context().parse(text, "m.mlir"), {})
    assert diagnostic.message == "'memref.load' op expected an index for each dimension"
    assert diagnostic.location is not None
    assert (diagnostic.location.line, diagnostic.location.column) == (2, 8)


@pytest.mark.parametrize(
    ("raw", "cleaned"),
    [
        ("Operation does not verify: bad thing\n\nmodule...", "'func.return' op bad thing"),
        ("'func.return' op already quoted", "'func.return' op already quoted"),
        ("func.return: Expected something", "'func.return' op expected something"),
        (
            "result 'r' does not verify:\nwhy it fails",
            "'func.return' op result 'r' does not verify: why it fails",
        ),
    ],
)
def test_clean_message(raw: str, cleaned: str) -> None:
    assert clean_message(func.ReturnOp(), raw) == cleaned
