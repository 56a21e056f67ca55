"""`relay.create_executor`: run a relay module from Python, TVM's quickest way to check a model.

Every kind (`debug`, `graph`, `vm`, `aot`) evaluates with the relay reference interpreter, so
results are the oracle's. Arguments are positional or by parameter name; keyword arguments
naming a weight (`relay.param["w"]`) and the executor's `params` supply weights.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from xtvm.api import nd
from xtvm.api.ir_module import IRModule
from xtvm.api.relay.expr import Expr, Function, ParamRef, post_order
from xtvm.api.relay.ty import TensorType
from xtvm.runtime.relay_interpreter import evaluate

KINDS = ("debug", "graph", "vm", "aot")

Result = nd.NDArray | tuple["Result", ...]


def as_array(value: object, typ: object) -> np.ndarray:
    """An argument as a numpy array; Python numbers and lists take the declared dtype."""
    if isinstance(value, nd.NDArray):
        return value.numpy()
    if isinstance(value, np.ndarray | np.generic):
        return np.asarray(value)
    dtype = typ.dtype if isinstance(typ, TensorType) else None
    return np.asarray(value, dtype=dtype)


class Executor:
    """Evaluates functions of a module on arguments; `evaluate()` gives a callable."""

    def __init__(
        self,
        mod: IRModule | None,
        device: nd.Device,
        target: object,
        params: Mapping[str, object] | None,
    ) -> None:
        self.mod = mod or IRModule()
        self.device = device
        self.target = target
        self.params = {k: as_array(v, None) for k, v in (params or {}).items()}

    def evaluate(
        self, expr: Expr | None = None, binds: Mapping[object, object] | None = None
    ) -> Callable[..., Result]:
        if binds:
            raise ValueError("evaluate: binds are not supported; pass the values as arguments")
        if expr is None:
            mod = self.mod
        else:
            mod = self.mod.copy()
            mod["main"] = expr if isinstance(expr, Function) else Function([], expr)
        main = mod["main"]
        param_names = {n.name for n in post_order(main.body) if isinstance(n, ParamRef)}
        arg_names = [p.name_hint for p in main.params]

        def run(*args: object, **kwargs: object) -> Result:
            weights = dict(self.params)
            inputs = list(args)
            by_name: dict[str, object] = {}
            for key, value in kwargs.items():
                if key in param_names and key not in arg_names:
                    weights[key] = as_array(value, None)
                else:
                    by_name[key] = value
            if by_name:
                if inputs:
                    raise TypeError("pass arguments either by position or by name, not both")
                inputs = [by_name.pop(n) if n in by_name else _missing(n) for n in arg_names]
                if by_name:
                    raise TypeError(f"unknown argument(s): {', '.join(sorted(by_name))}")
            arrays = [
                as_array(v, p.checked_type) for v, p in zip(inputs, main.params, strict=False)
            ]
            if len(inputs) != len(main.params):
                raise TypeError(f"@main takes {len(main.params)} arguments, got {len(inputs)}")
            outputs = evaluate(mod.xdsl, arrays, params=weights)
            results = tuple(_to_nd(o, self.device) for o in outputs)
            return results[0] if len(results) == 1 else results

        return run


def _missing(name: str) -> Any:
    raise TypeError(f"missing argument '{name}'")


def _to_nd(value: Any, device: nd.Device) -> Result:
    if isinstance(value, tuple):
        return tuple(_to_nd(v, device) for v in value)
    return nd.NDArray(np.asarray(value), device)


def create_executor(
    kind: str = "debug",
    mod: IRModule | None = None,
    device: nd.Device | None = None,
    target: object = "llvm",
    params: Mapping[str, object] | None = None,
) -> Executor:
    """An executor of `mod`: `create_executor("graph", mod=mod).evaluate()(x)`."""
    if kind not in KINDS:
        raise ValueError(f"unknown executor kind '{kind}' (one of {', '.join(KINDS)})")
    return Executor(mod, device or nd.cpu(0), target, params)
