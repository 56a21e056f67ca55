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
from xdsl.traits import IsTerminator

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

# Instances written by hand (any text xDSL reads) for ops the generator cannot build: maps,
# regions, several results. The test checks them as it checks generated instances.
EXAMPLES: dict[str, str] = {
    "affine.apply": """
func.func @f(%a: index, %b: index) -> index {
  %0 = affine.apply affine_map<(d0)[s0] -> (d0 + s0 * 2)> (%a)[%b]
  func.return %0 : index
}""",
    "affine.min": """
func.func @f(%a: index, %b: index) -> index {
  %0 = affine.min affine_map<(d0)[s0] -> (d0, s0 + 4)> (%a)[%b]
  func.return %0 : index
}""",
    "affine.load": """
func.func @f(%m: memref<4x4xf32>, %i: index, %j: index) -> f32 {
  %v = affine.load %m[%i + 1, %j * 2 + %i floordiv 2 - 3] : memref<4x4xf32>
  func.return %v : f32
}""",
    "affine.store": """
func.func @f(%m: memref<4x4xf32>, %v: f32, %i: index, %j: index) {
  affine.store %v, %m[-%i + 3, %j mod 4 + %i ceildiv 2] : memref<4x4xf32>
  func.return
}""",
    "affine.vector_load": """
func.func @f(%m: memref<4x8xf32>, %i: index) -> vector<4xf32> {
  %v = affine.vector_load %m[%i, %i * 4] : memref<4x8xf32>, vector<4xf32>
  func.return %v : vector<4xf32>
}""",
    "affine.vector_store": """
func.func @f(%m: memref<4x8xf32>, %v: vector<4xf32>, %i: index) {
  affine.vector_store %v, %m[0, %i + 4] : memref<4x8xf32>, vector<4xf32>
  func.return
}""",
    "affine.for": """
func.func @f(%n: index, %m: memref<16xf32>, %x: f32) -> f32 {
  affine.for %i = 0 to %n {
    affine.for %j = max affine_map<(d0)[s0] -> (d0, s0)> (%i)[%n]
        to min affine_map<(d0) -> (d0 + 4, 16)> (%i) step 2 {
      affine.store %x, %m[%j] : memref<16xf32>
    }
  }
  %s = affine.for %i = -4 to 12 iter_args(%acc = %x) -> (f32) {
    %v = affine.load %m[%i + 4] : memref<16xf32>
    %t = arith.addf %acc, %v : f32
    affine.yield %t : f32
  }
  func.return %s : f32
}""",
    "scf.for": """
func.func @f(%lb: index, %ub: index, %x: f32) -> f32 {
  scf.for %i = %lb to %ub step %lb {
  }
  %s = scf.for %i = %lb to %ub step %ub iter_args(%acc = %x) -> (f32) {
    %t = arith.addf %acc, %acc : f32
    scf.yield %t : f32
  }
  func.return %s : f32
}""",
    "scf.if": """
func.func @f(%c: i1, %x: f32) -> f32 {
  scf.if %c {
  }
  %r = scf.if %c -> (f32) {
    scf.yield %x : f32
  } else {
    scf.yield %x : f32
  }
  func.return %r : f32
}""",
    "func.func": """
func.func private @decl(i32, f32) -> i32
func.func @f(%a: i32 {llvm.noalias}) -> (i32 {llvm.zext}) attributes {llvm.emit_c_interface} {
  func.return %a : i32
}""",
}

# Ops with a custom printer that neither the generator nor EXAMPLES covers yet; it may only
# shrink (a listed op that is now covered fails the test, so the list stays true).
UNCOVERED: frozenset[str] = frozenset(
    {
        "cf.br",
        "cf.cond_br",
        "cf.switch",
        "llvm.add",
        "llvm.alloca",
        "llvm.br",
        "llvm.call",
        "llvm.cond_br",
        "llvm.extractvalue",
        "llvm.func",
        "llvm.getelementptr",
        "llvm.insertvalue",
        "llvm.intr.masked.store",
        "llvm.mlir.global",
        "llvm.mul",
        "llvm.shl",
        "llvm.shufflevector",
        "llvm.store",
        "llvm.sub",
        "llvm.trunc",
        "memref.expand_shape",
        "memref.reinterpret_cast",
        "memref.store",
        "memref.subview",
        "memref.view",
        "scf.index_switch",
        "scf.while",
        "vector.create_mask",
        "vector.extract",
        "vector.insert",
        "vector.maskedload",
        "vector.maskedstore",
        "vector.reduction",
        "vector.shuffle",
        "vector.transfer_read",
        "vector.transfer_write",
    }
)


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
    if not op.has_trait(IsTerminator):
        body.add_op(func.ReturnOp())  # a function has no implicit terminator
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
    example = EXAMPLES.get(op_type.name)
    if example is not None:
        module = Parser(context().xdsl_context, example, "<example>").parse_module()
        module.verify()
    else:
        module = instance(op_type)
    text = None if module is None else xdsl_text(module, generic=False)
    expected = None if module is None else xdsl_text(module, generic=True)
    if text is None or expected is None:
        return "skipped"
    if f'"{op_type.name}"' in text:
        return "generic" if example is None else "the example does not print in custom form"
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
    if op_type.name in UNCOVERED:
        assert outcome == "skipped", f"{op_type.name} is covered now ({outcome}): drop it"
        pytest.skip("no instance of its custom form yet")
    assert outcome != "skipped", f"no instance of {op_type.name}: add one to EXAMPLES"
    if outcome == "generic":
        pytest.skip("xDSL prints it in the generic form")
    assert outcome == "parsed", outcome
