"""`relay-simplify-inference`: rewrite training-time ops into their inference form.

As TVM's `SimplifyInference`: `nn.batch_norm` with moving statistics becomes one multiply and
one add on the data, whose scale and shift are small expressions of the statistics that
`relay-fold-constant` evaluates when the statistics are constants; `nn.layer_norm` becomes
mean, variance and arithmetic along its axis; `nn.dropout` is the identity at inference and
goes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
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
from xtvm.ir.numpy_types import numpy_dtype
from xtvm.ir.verify import located_error
from xtvm.passes.external_functions import host_functions


@dataclass
class Emitter:
    """Inserts relay ops before the matched op and hands back their results."""

    rewriter: PatternRewriter

    def __call__(self, op: Operation) -> SSAValue:
        self.rewriter.insert(op)
        return op.results[0]


class UnpackBatchNorm(RewritePattern):
    """Replace `nn.batch_norm` by `data * scale + shift`, scale and shift along its axis."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.BatchNormOp, rewriter: PatternRewriter) -> None:
        data_type = op.data.type
        assert isinstance(data_type, TensorType)
        elem = data_type.get_element_type()
        if not relay.is_float(elem):
            raise located_error(
                op,
                f"'{op.name}' op cannot be simplified: element type {elem} is not a float type",
            )
        dtype = numpy_dtype(elem)
        emit = Emitter(rewriter)
        # TVM's BatchNormToInferUnpack: scale = gamma / sqrt(var + eps), shift = beta - mean * scale
        eps = emit(relay.ConstOp(np.array(op.epsilon.value.data, dtype=dtype)))
        std = emit(relay.SqrtOp(emit(relay.AddOp(op.moving_var, eps))))
        numerator = op.gamma if op.scale.value.data else emit(relay.ConstOp(np.ones((), dtype)))
        scale = emit(relay.DivideOp(numerator, std))
        shift = emit(relay.MultiplyOp(emit(relay.NegativeOp(op.moving_mean)), scale))
        if op.center.value.data:
            shift = emit(relay.AddOp(shift, op.beta))
        # A vector along `axis` broadcasts against data once it has rank - 1 - axis trailing 1s.
        rank = data_type.get_num_dims()
        trailing = rank - 1 - op.axis.value.data % rank
        if trailing:
            scale = emit(relay.ExpandDimsOp(scale, axis=1, num_newaxis=trailing))
            shift = emit(relay.ExpandDimsOp(shift, axis=1, num_newaxis=trailing))
        out = emit(relay.AddOp(emit(relay.MultiplyOp(op.data, scale)), shift))

        # The statistics pass through unchanged at inference.
        fields = (out, op.moving_mean, op.moving_var)
        for use in list(op.result.uses):
            user = use.operation
            if isinstance(user, relay.TupleGetItemOp):
                rewriter.replace(user, [], [fields[user.index.value.data]])
        if op.result.uses:  # still used as a whole tuple
            tup = relay.TupleOp(*fields)
            # The same type object as before: func's verifiers tell `tuple<[a]>` from `(a,)`.
            Rewriter.replace_value_with_new_type(tup.result, op.result.type)
            rewriter.replace(op, tup)
        else:
            rewriter.erase(op)


class UnpackLayerNorm(RewritePattern):
    """Replace `nn.layer_norm` by `(data - mean) / sqrt(var + eps) * gamma + beta` along its
    axis, as TVM's LayerNormToInferUnpack."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.LayerNormOp, rewriter: PatternRewriter) -> None:
        data_type = op.data.type
        assert isinstance(data_type, TensorType)
        elem = data_type.get_element_type()
        if not relay.is_float(elem):
            raise located_error(
                op,
                f"'{op.name}' op cannot be simplified: element type {elem} is not a float type",
            )
        emit = Emitter(rewriter)
        rank = data_type.get_num_dims()
        axis = op.axis.value.data % rank
        mean = emit(relay.MeanOp(op.data, axis=[axis], keepdims=True))
        centered = emit(relay.SubtractOp(op.data, mean))
        var = emit(relay.MeanOp(emit(relay.MultiplyOp(centered, centered)), [axis], True))
        eps = emit(relay.ConstOp(np.array(op.epsilon.value.data, dtype=numpy_dtype(elem))))
        out = emit(relay.DivideOp(centered, emit(relay.SqrtOp(emit(relay.AddOp(var, eps))))))
        trailing = rank - 1 - axis

        def along_axis(vector: SSAValue) -> SSAValue:
            if not trailing:
                return vector
            return emit(relay.ExpandDimsOp(vector, axis=1, num_newaxis=trailing))

        if op.scale.value.data:
            out = emit(relay.MultiplyOp(out, along_axis(op.gamma)))
        if op.center.value.data:
            out = emit(relay.AddOp(out, along_axis(op.beta)))
        rewriter.replace(op, [], [out])


class RemoveDropout(RewritePattern):
    """Replace `nn.dropout` by its input."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.DropoutOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, [], [op.data])


@dataclass(frozen=True)
class RelaySimplifyInferencePass(ModulePass):
    """Rewrite batch_norm and layer_norm into arithmetic and remove dropout, for inference.

    `relay.nn.batch_norm %x, %g, %b, %m, %v` (field 0) becomes `%x * scale + shift`;
    `layer_norm=false` keeps `nn.layer_norm`.
    """

    name = "relay-simplify-inference"
    # false: nn.layer_norm stays, for a target that runs it as one kernel (the CPU's); unpacked
    # it is four (two reductions and two elementwise passes)
    layer_norm: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # Upstream DCE is off: the patterns erase what they replace and nothing else.
        patterns: list[RewritePattern] = [UnpackBatchNorm(), RemoveDropout()]
        if self.layer_norm:
            patterns.append(UnpackLayerNorm())
        applier = GreedyRewritePatternApplier(patterns, dce_enabled=False)
        for function in host_functions(op):
            PatternRewriteWalker(applier).rewrite_region(function.body)
