"""Every op xDSL prints in its custom form is read back by xtvm's grammar.

The test walks the op classes of the loaded upstream dialects and builds one instance of each
from its declaration: operands, results, properties and attributes of simple types and values
that satisfy the op's constraints. Ops that no such instance satisfies, whose printer fails on
it, or whose instance xDSL itself does not read back alike, are not generated. xDSL's printer
prints the instance; where it writes the custom form, xtvm must parse the text to the same IR.
`KNOWN_GAPS` lists the ops whose custom syntax has no rule yet: it may only shrink (a listed op
that now parses fails the test, so the list stays true).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from io import StringIO

import pytest
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    FlatSymbolRefAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
    VectorType,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region
from xdsl.irdl import IRDLOperation
from xdsl.irdl.constraints import VerificationContext
from xdsl.parser import Parser
from xdsl.printer import Printer

from xtvm.dialects.registry import UPSTREAM_DIALECTS, default_context
from xtvm.ir.context import IRContext
from xtvm.ir.diagnostics import DiagnosticError

TYPES: tuple[Attribute, ...] = (
    i32,
    IndexType(),
    f32,
    i1,
    i64,
    MemRefType(f32, [4]),
    VectorType(f32, [4]),
    VectorType(i32, [4]),
    TensorType(f32, [4]),
    llvm.LLVMPointerType(),
)
ATTRIBUTES: tuple[Attribute, ...] = (
    IntegerAttr(0, i64),
    IntegerAttr(0, i32),
    StringAttr("s"),
    FlatSymbolRefAttr("f"),
    UnitAttr(),
    BoolAttr(False, i1),
    FloatAttr(1.0, f32),
    DenseArrayBase.from_list(i64, [0]),
    ArrayAttr([]),
    i32,
)

# Ops with a hand-written xDSL printer that xtvm's grammar does not read yet.
KNOWN_GAPS: frozenset[str] = frozenset()


def op_classes() -> Iterator[type[Operation]]:
    for dialect in UPSTREAM_DIALECTS:
        yield from dialect.operations


@functools.cache
def context() -> IRContext:
    return default_context()


def copy(ctx: VerificationContext) -> VerificationContext:
    new = VerificationContext()
    new._variables.update(ctx._variables)
    new._range_variables.update(ctx._range_variables)
    new._int_variables.update(ctx._int_variables)
    return new


def satisfying(
    constr: object, candidates: tuple[Attribute, ...], ctx: VerificationContext, many: bool
) -> tuple[Attribute | None, VerificationContext]:
    """The first candidate the constraint accepts (as a one-element range if `many`)."""
    for attr in candidates:
        trial = copy(ctx)
        try:
            constr.verify((attr,) if many else attr, trial)  # type: ignore[attr-defined]
        except Exception:
            continue
        return attr, trial
    return None, ctx


def optional(definition: object) -> bool:
    return type(definition).__name__.startswith(("Opt", "Var"))


def instance(op_type: type[IRDLOperation]) -> ModuleOp | None:
    """An instance of `op_type` in a function whose arguments are its operands, or None."""
    op_def = op_type.get_irdl_definition()
    ctx = VerificationContext()
    types: dict[str, list[Attribute]] = {}
    for kind, defs in (("operand", op_def.operands), ("result", op_def.results)):
        for name, d in defs:
            typ, ctx = satisfying(d.constr, TYPES, ctx, True)
            if typ is None:
                return None
            types[f"{kind}:{name}"] = [typ]
    fields: dict[str, dict[str, Attribute]] = {"properties": {}, "attributes": {}}
    for kind, defs in (("properties", op_def.properties), ("attributes", op_def.attributes)):
        for name, d in defs.items():
            if getattr(d, "default_value", None) is not None or optional(d):
                continue
            attr, ctx = satisfying(d.constr, ATTRIBUTES, ctx, False)
            if attr is None:
                return None
            fields[kind][name] = attr
    operand_types = [types[f"operand:{name}"] for name, _ in op_def.operands]
    body = Block(arg_types=[t for ts in operand_types for t in ts])
    args = iter(body.args)
    try:
        op = op_type.build(
            operands=[[next(args) for _ in ts] for ts in operand_types],
            result_types=[types[f"result:{name}"] for name, _ in op_def.results],
            properties=fields["properties"],
            attributes=fields["attributes"],
            regions=[[] if optional(d) else Region(Block()) for _, d in op_def.regions],
            successors=[[] if optional(d) else Block() for _, d in op_def.successors],
        )
    except Exception:
        return None
    if op_def.successors and any(s for s in op.successors):
        return None  # successors need blocks of an enclosing region
    body.add_op(op)
    function = func.FuncOp.from_region("f", body.arg_types, [], Region(body))
    return ModuleOp([function])


def xdsl_text(op: Operation, generic: bool) -> str | None:
    stream = StringIO()
    try:
        Printer(stream=stream, print_generic_format=generic).print_op(op)
    except Exception:
        return None
    return stream.getvalue()


def custom_printed(op_type: type[Operation]) -> bool:
    return Operation.print is not op_type.print or (
        issubclass(op_type, IRDLOperation)
        and op_type.get_irdl_definition().assembly_format is not None
    )


def check(op_type: type[Operation]) -> str:
    """'parsed', 'generic' (xDSL prints it generically), 'skipped' (no instance) or a failure."""
    if not custom_printed(op_type) or not issubclass(op_type, IRDLOperation):
        return "generic"
    module = instance(op_type)
    text = None if module is None else xdsl_text(module, generic=False)
    expected = None if module is None else xdsl_text(module, generic=True)
    if text is None or expected is None:
        return "skipped"
    if f'"{op_type.name}"' in text:
        return "generic"
    try:
        theirs = Parser(context().xdsl_context, text, "<xdsl>").parse_module()
    except Exception:
        return "skipped"
    if xdsl_text(theirs, generic=True) != expected:
        return "skipped"  # an instance xDSL itself does not read back (an invalid one)
    try:
        ours = context().parse(text, "<xdsl>")
    except DiagnosticError as exc:
        return f"does not parse: {exc.render(show_source=False)}\n{text}"
    got = xdsl_text(ours, generic=True)
    if got != expected:
        return f"parses to different IR:\n{got}\nexpected:\n{expected}"
    return "parsed"


OPS = sorted({op.name: op for op in op_classes()}.items())


@pytest.mark.parametrize("op_type", [op for _, op in OPS], ids=[name for name, _ in OPS])
def test_custom_syntax_parses(op_type: type[Operation]) -> None:
    outcome = check(op_type)
    if op_type.name in KNOWN_GAPS:
        assert outcome not in ("parsed", "generic"), f"{op_type.name} parses now: drop it"
        pytest.xfail("custom syntax without an xtvm rule yet")
    if outcome in ("generic", "skipped"):
        pytest.skip(f"no custom instance ({outcome})")
    assert outcome == "parsed", outcome
