"""`relay-fold-constant`: evaluate relay ops whose operands are all constants.

An op fed only by `relay.const`s is evaluated at compile time with the reference interpreter's
rule for it (`RULES`, the one definition of each op's numbers), and replaced by a `relay.const`
(a `relay.tuple` of them for tuple results). `relay.param`s are weights supplied at run time,
so they are never constant here. Relay ops left without uses are erased.

Quantized ops (`relay.qnn.*`) are kept as they are, as in TVM, unless `fold_qnn` is set: then
one with constant operands is rewritten into ordinary ops (relay-qnn-canonicalize's rewrite),
which fold in turn. `nn.dropout` is never folded (its meaning is training's).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType, TupleType
from xdsl.ir import Attribute, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import Rewriter

from xtvm.dialects import relay
from xtvm.ir.verify import located_error
from xtvm.passes.external_functions import host_functions
from xtvm.passes.relay_alter_dense_layout import weight_transpose
from xtvm.passes.relay_dce import EraseUnusedRelayOp
from xtvm.passes.relay_qnn_canonicalize import CanonicalizeQnn
from xtvm.runtime.relay_interpreter import (
    RULES,
    RelayInterpreter,
    RelayInterpreterError,
    Value,
    conform,
)


def element_count(typ: Attribute) -> int:
    """The number of elements in all tensors of `typ`."""
    if isinstance(typ, TupleType):
        return sum(element_count(t) for t in typ.types.data)
    assert isinstance(typ, TensorType)
    return math.prod(typ.get_shape())


def materialize(value: Value, typ: Attribute, rewriter: PatternRewriter) -> SSAValue:
    """Insert ops holding `value` of type `typ` before the matched op: a const, or a tuple.

    A tuple keeps the very type object `typ`: func's verifiers tell `tuple<[a]>` from `(a,)`.
    """
    if isinstance(value, tuple):
        assert isinstance(typ, TupleType)
        fields = [materialize(v, t, rewriter) for v, t in zip(value, typ.types.data, strict=True)]
        tup = relay.TupleOp(*fields)
        Rewriter.replace_value_with_new_type(tup.result, typ)
        rewriter.insert(tup)
        return tup.result
    const = relay.ConstOp(value)
    rewriter.insert(const)
    return const.result


@dataclass
class FoldConstantOp(RewritePattern):
    """Replace a relay op whose operands are all `relay.const`s by its value."""

    interpreter: RelayInterpreter
    max_elements: int
    max_growth: int = 0
    keep_weight_transposes: bool = False
    fold_qnn: bool = False

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.RelayOp, rewriter: PatternRewriter) -> None:
        if isinstance(op, relay.TupleOp):
            return  # already as folded as it gets: a tuple of constants stays one
        if isinstance(op, relay.DropoutOp):
            return  # training semantics: left for SimplifyInference to remove, as in TVM
        if self.keep_weight_transposes and weight_transpose(op):
            return  # relay-alter-dense-layout lays the weight out from the constant
        producers = [operand.owner for operand in op.operands]
        if not producers or not all(isinstance(p, relay.ConstOp) for p in producers):
            return  # constants and params have no operands; they stay
        if op.name.startswith("relay.qnn."):
            if self.fold_qnn:
                CanonicalizeQnn().match_and_rewrite(op, rewriter)
            return
        elements = sum(element_count(r.type) for r in op.results)
        if elements > self.max_elements:
            operands = sum(element_count(v.type) for v in op.operands)
            if elements > self.max_growth * operands:
                return
        rule = RULES.get(type(op))
        if rule is None:
            raise located_error(op, f"'{op.name}' op has no interpreter rule to fold it with")
        # Read-only views of the constants: the interpreter's rules copy before they write.
        args = [relay.numpy_from_dense(p.value, copy=False) for p in producers]  # type: ignore[union-attr]
        try:
            with np.errstate(all="ignore"):
                values = rule(self.interpreter, op, args)
        except RelayInterpreterError:
            # Invalid constants (an index out of bounds): the op stays and reports when it
            # runs (TVM, which does not check the indices, folds nothing either).
            return
        results = [
            materialize(conform(v, r.type, op), r.type, rewriter)
            for v, r in zip(values, op.results, strict=True)
        ]
        rewriter.replace(op, [], results)


@dataclass
class FoldShapeQuery(RewritePattern):
    """Replace `relay.shape_of` / `relay.ndarray_size` by its value: shapes are static, so it
    depends on its operand's type alone (and a kernel writing a constant is left out)."""

    interpreter: RelayInterpreter

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.ShapeQueryOp, rewriter: PatternRewriter) -> None:
        typ = op.data.type
        assert isinstance(typ, TensorType)
        shape = typ.get_shape()
        if any(d < 0 for d in shape):
            return
        # A view of one zero with the operand's shape: what the rule reads, allocating nothing.
        stand_in = np.lib.stride_tricks.as_strided(np.zeros((), "float32"), shape, [0] * len(shape))
        (value,) = RULES[type(op)](self.interpreter, op, [stand_in])
        result = op.results[0]
        folded = materialize(conform(value, result.type, op), result.type, rewriter)
        rewriter.replace(op, [], [folded])


class FoldTupleGetItemOfTuple(RewritePattern):
    """Replace `relay.tuple_get_item` of a `relay.tuple` by the field it selects."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.TupleGetItemOp, rewriter: PatternRewriter) -> None:
        tup = op.tuple.owner
        if not isinstance(tup, relay.TupleOp):
            return
        rewriter.replace(op, [], [tup.fields[op.index.value.data]])


@dataclass(frozen=True)
class RelayFoldConstantPass(ModulePass):
    """Evaluate relay ops whose operands are all constants.

    `%c = relay.add %a, %b` with constant %a, %b becomes one `relay.const`.
    """

    name = "relay-fold-constant"

    max_elements: int = 1 << 20
    """Ops whose results hold more elements than this are left alone..."""

    max_growth: int = 0
    """...unless they hold at most this many times the elements of their operands (0: never).
    Transforms of large weights (layout, transpose, padding, Winograd's 4x) fold; a broadcast of
    a scalar into a huge tensor, which a tiny model can ask for, stays an op run in the kernel."""

    keep_weight_transposes: bool = False
    """Leave a transpose of a constant matrix read only as products' weight (`weight_transpose`)
    to relay-alter-dense-layout, which must run after: it lays the weight out from the constant
    without a transposed copy in between."""

    fold_qnn: bool = False
    """Fold quantized ops with constant operands too (TVM's `FoldConstant(fold_qnn=True)`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns: list[RewritePattern] = [
            FoldConstantOp(
                RelayInterpreter(op),
                self.max_elements,
                self.max_growth,
                self.keep_weight_transposes,
                self.fold_qnn,
            ),
            FoldShapeQuery(RelayInterpreter(op)),
            FoldTupleGetItemOfTuple(),
            EraseUnusedRelayOp(),
        ]
        # Upstream DCE is off so that only relay ops are erased.
        applier = GreedyRewritePatternApplier(patterns, dce_enabled=False)
        for function in host_functions(op):
            PatternRewriteWalker(applier).rewrite_region(function.body)
