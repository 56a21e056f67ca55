"""`relay-infer-types`: recompute the result types of relay ops from their operands.

Each relay op can infer its result types from its operand types and properties
(`infer_result_types`); this pass applies that inference in program order, so that a changed
argument type (a new batch size, say) flows through a whole function. Function signatures follow
what their bodies return, and calls follow the signatures of their callees.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import VerifyException

from xtvm.dialects import relay
from xtvm.ir.verify import located_error


def set_result_types(op: Operation, types: Sequence[Attribute], exact: bool) -> None:
    """Give `op` the result `types`, replacing only the results whose type changes.

    Relay's verifiers compare types up to how a tuple type was built (`canonical_type`), func's
    compare them exactly; `exact` says which comparison decides that a type changed.
    """
    for result, new_type in zip(op.results, types, strict=True):
        old_type = result.type if exact else relay.canonical_type(result.type)
        if old_type != (new_type if exact else relay.canonical_type(new_type)):
            Rewriter.replace_value_with_new_type(result, new_type)


def infer_op(op: relay.RelayOp) -> None:
    """Re-infer the result types of one relay op; a failed inference is a located error."""
    if isinstance(op, relay.ParamOp):
        return  # its type is declared, not inferred
    try:
        types = type(op).infer_result_types(op.operand_types, op.properties)
    except VerifyException as exc:
        raise located_error(op, str(exc)) from None
    set_result_types(op, types, exact=False)


@dataclass
class FunctionTypeInference:
    """Infers the functions of one module, each callee before its callers."""

    functions: dict[str, func.FuncOp]
    done: set[str]

    def visit(self, f: func.FuncOp) -> None:
        name = f.sym_name.data
        if name in self.done:
            return
        self.done.add(name)  # marked first, so a recursive call ends here
        for op in f.body.walk():
            if isinstance(op, relay.RelayOp):
                infer_op(op)
            elif isinstance(op, func.CallOp):
                self.infer_call(op)
            elif isinstance(op, func.ReturnOp) and op.parent_op() is f:
                self.infer_signature(f, op.operand_types)

    @staticmethod
    def infer_signature(f: func.FuncOp, outputs: Sequence[Attribute]) -> None:
        """Make the declared results of `f` what its body returns."""
        if tuple(f.function_type.outputs.data) == tuple(outputs):
            return
        f.function_type = FunctionType.from_lists(f.function_type.inputs.data, outputs)

    def infer_call(self, call: func.CallOp) -> None:
        callee = self.functions.get(call.callee.string_value())
        if callee is None:
            return  # an external symbol: its declared results stand
        self.visit(callee)
        set_result_types(call, callee.function_type.outputs.data, exact=True)


@dataclass(frozen=True)
class RelayInferTypesPass(ModulePass):
    """Recompute the result types of relay ops from their operand types, in program order.

    `relay.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<2xf32>` gets `-> tensor<4xf32>`.
    """

    name = "relay-infer-types"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        functions = [f for f in op.body.block.ops if isinstance(f, func.FuncOp)]
        inference = FunctionTypeInference({f.sym_name.data: f for f in functions}, set())
        for f in functions:
            inference.visit(f)
