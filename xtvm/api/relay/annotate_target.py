"""AnnotateTarget over a function kept as an expression (one with references, closures or a
let-bound function value, which the relay dialect has no form for): TVM's AnnotateTarget.

A call of an operator goes to the first target whose predicate accepts it, else to `default`;
its arguments are wrapped in `compiler_begin(target)`, after a `compiler_end` of the target
that computed them, if any. The other nodes (a reference operation, a call of a function
value, a tuple) take their arguments' ends and, with `include_non_call_ops`, are a `default`
region of their own; an `If` and a `Let` end what they take and are no region; a function
ends its body. The relay-annotate-target pass does the same on the relay dialect.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Block

from xtvm.api.relay.adt import RefCreate, RefRead, RefWrite
from xtvm.api.relay.expr import (
    COMPILER_BEGIN,
    COMPILER_END,
    Call,
    Expr,
    Function,
    If,
    Let,
    Op,
    Tuple,
    TupleGetItem,
)
from xtvm.api.relay.expr_functor import ExprMutator
from xtvm.api.relay.op.annotation import compiler_begin, compiler_end
from xtvm.passes.byoc_targets import supported_targets
from xtvm.passes.relay_annotate_target import DEFAULT_COMPILER


def op_target(call: Call, targets: Sequence[str]) -> str:
    """The first of `targets` whose predicate accepts the operator call, else `default`."""
    op = call.op
    assert isinstance(op, Op)
    if op.op_class is None or op.registered_from_python:
        return DEFAULT_COMPILER
    block = Block(arg_types=[a.checked_type.to_xdsl() for a in call.args])
    view = op.op_class.create(
        operands=list(block.args),
        properties=dict(call.attrs.properties),
        result_types=[call.checked_type.to_xdsl()],
    )
    claimed = supported_targets(view, targets)
    return claimed[0] if claimed else DEFAULT_COMPILER


class Annotator(ExprMutator):
    def __init__(self, targets: Sequence[str], include_non_call_ops: bool) -> None:
        super().__init__()
        self.targets = list(targets)
        self.include_non_call_ops = include_non_call_ops
        self.target_of: dict[int, str] = {}  # annotated node -> the target that computes it

    def ended(self, expr: Expr) -> Expr:
        target = self.target_of.get(id(expr))
        return expr if target is None else compiler_end(expr, target)

    def region(self, args: Sequence[Expr], target: str | None) -> list[Expr]:
        """`args` ended, then begun for `target` (None: not begun)."""
        out = [self.ended(self.visit(a)) for a in args]
        return out if target is None else [compiler_begin(a, target) for a in out]

    def non_call_target(self) -> str | None:
        return DEFAULT_COMPILER if self.include_non_call_ops else None

    def mark(self, expr: Expr, target: str | None) -> Expr:
        if target is not None:
            self.target_of[id(expr)] = target
        return expr

    def visit_call(self, call: Call) -> Expr:
        if isinstance(call.op, Op) and call.op.name in (COMPILER_BEGIN, COMPILER_END):
            return call  # annotated already: kept, as TVM keeps earlier annotations
        if isinstance(call.op, Op):
            target = op_target(call, self.targets)
            args = self.region(call.args, target)
            new = Call(call.op, args, call.attrs, call._type_args, call.span, call.annotations)
            return self.mark(new, target)
        target = self.non_call_target()
        new = Call(self.visit(call.op), self.region(call.args, target), call.attrs)
        return self.mark(new, target)

    def visit_tuple(self, tup: Tuple) -> Expr:
        target = self.non_call_target()
        return self.mark(Tuple(self.region(tup.fields, target)), target)

    def visit_tuple_getitem(self, item: TupleGetItem) -> Expr:
        target = self.non_call_target()
        [value] = self.region([item.tuple_value], target)
        return self.mark(TupleGetItem(value, item.index), target)

    def visit_ref_create(self, ref: RefCreate) -> Expr:
        target = self.non_call_target()
        return self.mark(RefCreate(*self.region([ref.value], target)), target)

    def visit_ref_read(self, ref: RefRead) -> Expr:
        target = self.non_call_target()
        return self.mark(RefRead(*self.region([ref.ref], target)), target)

    def visit_ref_write(self, ref: RefWrite) -> Expr:
        target = self.non_call_target()
        return self.mark(RefWrite(*self.region([ref.ref, ref.value], target)), target)

    def visit_if(self, ite: If) -> Expr:
        return If(*self.region([ite.cond, ite.true_branch, ite.false_branch], None))

    def visit_let(self, let: Let) -> Expr:
        value, body = self.region([let.value, let.body], None)
        return Let(let.var, value, body)

    def visit_function(self, fn: Function) -> Expr:
        [body] = self.region([fn.body], None)
        return Function(fn.params, body, fn.ret_type, fn.type_params, fn.attrs)


def annotate_function(fn: Function, targets: Sequence[str], include_non_call_ops: bool) -> Expr:
    """`fn` with its calls and (optionally) other nodes annotated for `targets`."""
    return Annotator(targets, include_non_call_ops).visit(fn)
