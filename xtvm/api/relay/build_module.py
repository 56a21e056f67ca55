"""TVM's `relay.build_module`: `build` (the pipeline is xtvm/driver/relay_build.py), its
`GraphExecutorFactory`, and `bind_params_by_name` on relay functions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from xtvm.api.ir_module import IRModule
from xtvm.api.relay.expr import Function, Var, const
from xtvm.api.relay.expr_functor import ExprMutator
from xtvm.driver.relay_build import BuildError
from xtvm.driver.relay_build import build as build_ir
from xtvm.driver.relay_graph import ControlFlowError
from xtvm.ir.errors import TVMError
from xtvm.runtime.graph_executor import GraphExecutorFactory
from xtvm.target.target import Target

__all__ = ["BindError", "BuildError", "GraphExecutorFactory", "bind_params_by_name", "build"]


def build(mod: Any, *args: Any, **kwargs: Any) -> Any:
    """`relay.build` (xtvm/driver/relay_build.py); a module with functions only the
    interpreter runs (polymorphism, ADTs, references, function values) is refused, as TVM's
    graph executor refuses them. A `relay.Function` is built as the module of which it is
    `main`, as TVM still accepts."""
    if isinstance(mod, Function):
        mod = IRModule.from_expr(mod)
    if isinstance(mod, IRModule) and mod.has_interpreted:
        names = ", ".join(
            f"@{gv.name_hint}" for gv in mod.get_global_vars() if mod.is_interpreted(gv.name_hint)
        )
        raise ControlFlowError(
            f"relay.build: {names} use type parameters, algebraic data types, references or "
            "function values, which compiled code does not support; run the module with "
            "relay.create_executor"
        )
    if args:
        args = (target_text(args[0]), *args[1:])
    if "target" in kwargs:
        kwargs["target"] = target_text(kwargs["target"])
    return build_ir(mod, *args, **kwargs)


def target_text(target: Any) -> Any:
    """A `tvm.target.Target` as the target string the build pipelines read (a string, a dict
    of targets or None as given)."""
    return str(target) if isinstance(target, Target) else target


class BindError(TVMError, ValueError):
    """Params that name no parameter unambiguously (TVM raises a TVMError)."""


def _constant(value: Any) -> Any:
    """A relay constant of a param: a `tvm.nd` array keeps its dtype, a numpy array narrows as
    `relay.const` narrows it (TVM binds with `relay.const(v)`)."""
    data = getattr(value, "_data", None)
    if data is not None:
        array = np.asarray(data)
        return const(array, dtype=str(array.dtype))
    return const(value)


def bind_params_by_name(fn: Any, params: Mapping[str, Any]) -> Any:
    """`fn` (a relay.Function) with the parameters named in `params` replaced by constants of
    their values and dropped from its parameter list, as TVM's `bind_params_by_name`."""
    names = [p.name_hint for p in fn.params]
    repeated = {n for n in params if names.count(n) > 1}
    if repeated:
        raise BindError(f"bind_params_by_name: several parameters are named {sorted(repeated)}")
    bound = {id(p): _constant(params[p.name_hint]) for p in fn.params if p.name_hint in params}

    class Bind(ExprMutator):
        def visit_var(self, var: Var) -> Any:
            return bound.get(id(var), var)

    body = Bind().visit(fn.body)
    kept = [p for p in fn.params if id(p) not in bound]
    return Function(kept, body, fn.ret_type, fn.type_params, fn.attrs)
