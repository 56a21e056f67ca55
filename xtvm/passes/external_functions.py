"""Which functions relay passes may transform.

After `relay-partition-graph`, a function carrying a `compiler` attribute belongs to an
external codegen: its body is that codegen's input and host passes leave it alone, as TVM's
passes skip functions with a `Compiler` attribute.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp


def is_external(function: func.FuncOp) -> bool:
    """Whether `function` was handed to an external codegen."""
    return "compiler" in function.attributes


def host_functions(module: ModuleOp) -> list[func.FuncOp]:
    """The module's functions with a body that host passes transform, in order (not
    declarations, which have nothing to transform)."""
    return [
        op
        for op in module.body.block.ops
        if isinstance(op, func.FuncOp) and op.body.blocks and not is_external(op)
    ]
