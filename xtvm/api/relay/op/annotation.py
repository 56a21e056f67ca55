"""BYOC annotations: `compiler_begin`/`compiler_end` mark where a codegen's region starts and
ends, as TVM's AnnotateTarget writes them.

`stop_fusion` is the relay op `annotation.stop_fusion`. The BYOC markers are expression-level
only: converting to the relay dialect turns
`compiler_end(op(compiler_begin(x, "t"), ...), "t")` into the attribute `compiler = "t"` on the
op, which is how `relay-annotate-target` marks ops; converting back wraps annotated ops again.
"""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr

from xtvm.api.relay.expr import COMPILER_BEGIN, COMPILER_END, Call, Expr, Op, make_call
from xtvm.dialects import relay as dialect


def compiler_begin(data: Expr, compiler: str) -> Call:
    return Call(Op.get(COMPILER_BEGIN), [data], {"compiler": StringAttr(compiler)})


def compiler_end(data: Expr, compiler: str) -> Call:
    return Call(Op.get(COMPILER_END), [data], {"compiler": StringAttr(compiler)})


def stop_fusion(data: Expr) -> Call:
    """TVM's fusion barrier: FuseOps fuses nothing across it, then drops it."""
    return make_call(dialect.StopFusionOp, data)


def checkpoint(data: Expr) -> Expr:
    """TVM's gradient checkpoint: recompute `data` in the backward pass instead of keeping it.
    xtvm has no relay automatic differentiation, so the forward value, `data` as it is, is
    all it means here."""
    return data
