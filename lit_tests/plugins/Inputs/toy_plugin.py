"""A tiny out-of-tree dialect and pass, loaded by `xtvm-opt --load-plugin` in plugin.mlir.

`toy.double %x : i32` has an assembly format, so xtvm reads and prints its custom syntax without
any grammar written here; `toy-lower-double` rewrites it into `arith.addi %x, %x`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, ModuleOp
from xdsl.ir import Dialect, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.traits import Pure

if TYPE_CHECKING:
    from xtvm.tools.opt import Plugins


@irdl_op_definition
class DoubleOp(IRDLOperation):
    """Twice an integer.

    `%r = toy.double %x : i32`
    """

    name = "toy.double"
    T: ClassVar = VarConstraint("T", base(IntegerType))
    input = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($result)"

    def __init__(self, value: SSAValue):
        super().__init__(operands=[value], result_types=[value.type])


Toy = Dialect("toy", [DoubleOp])


class LowerDouble(RewritePattern):
    """Replace `toy.double %x` by `arith.addi %x, %x`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DoubleOp, rewriter: PatternRewriter) -> None:
        rewriter.replace_op(op, arith.AddiOp(op.input, op.input))


@dataclass(frozen=True)
class ToyLowerDoublePass(ModulePass):
    """Lower toy.double to arith.addi."""

    name = "toy-lower-double"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(LowerDouble()).rewrite_module(op)


def xtvm_plugin(registry: Plugins) -> None:
    """The hook xtvm-opt calls: the dialect (its syntax comes from the assembly format) and
    the pass."""
    registry.load_dialect(Toy, None)
    registry.register_pass(ToyLowerDoublePass)
