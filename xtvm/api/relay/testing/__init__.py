"""TVM's `relay.testing` helpers that tests use: run a pass on an expression and get it back
typed (`run_infer_type`, `run_opt_pass`), layers that make their own weights
(`relay.testing.layers`), and TVM's benchmark workloads: mlp, resnet, mobilenet, squeezenet,
densenet, inception_v3, lstm, dqn and dcgan, each a `get_workload()` returning the module and its
random weights."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xtvm.api.ir_module import IRModule
from xtvm.api.relay.analysis import free_vars
from xtvm.api.relay.expr import Expr, Function


def run_opt_pass(expr: Expr, opt_pass: Any | Sequence[Any], import_prelude: bool = False) -> Expr:
    """`expr` (a function, or an expression made one over its free variables) after
    `opt_pass`; a function comes back as a function, any other expression as the body."""
    passes = list(opt_pass) if isinstance(opt_pass, list | tuple) else [opt_pass]
    mod = IRModule()
    if import_prelude:
        mod.import_from_std("prelude.rly")
    mod["main"] = expr if isinstance(expr, Function) else Function(free_vars(expr), expr)
    for p in passes:
        mod = p(mod)
    main = mod["main"]
    return main if isinstance(expr, Function) else main.body


def run_infer_type(expr: Expr) -> Expr:
    """`expr` with its types inferred (in xtvm every expression is typed when it is built)."""
    expr.checked_type  # noqa: B018  (an ill-typed expression fails here, as InferType would)
    return expr


def check_grad(func: Expr, *args: object, **kwargs: object) -> None:
    """TVM's numerical gradient check of `relay.transform.gradient`: xtvm has no gradient
    pass, so it says so."""
    from xtvm.ir.errors import TVMError

    raise TVMError("xtvm has no relay gradient pass (relay.transform.gradient) to check")


from xtvm.api.relay.testing import (  # noqa: E402
    dcgan,
    densenet,
    dqn,
    inception_v3,
    layers,
    lstm,
    mlp,
    mobilenet,
    nat,
    resnet,
    squeezenet,
)
from xtvm.api.relay.testing.init import create_workload  # noqa: E402
from xtvm.api.relay.testing.nat import count, make_nat_expr, make_nat_value  # noqa: E402

__all__ = [
    "check_grad",
    "count",
    "create_workload",
    "dcgan",
    "densenet",
    "dqn",
    "inception_v3",
    "layers",
    "lstm",
    "make_nat_expr",
    "make_nat_value",
    "mlp",
    "mobilenet",
    "nat",
    "resnet",
    "run_infer_type",
    "run_opt_pass",
    "squeezenet",
]
