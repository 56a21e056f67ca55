"""`relay.create_executor`: run a relay module from Python, TVM's quickest way to check a model.

Every kind (`debug`, `graph`, `vm`, `aot`) evaluates with the relay reference interpreter, so
results are the oracle's. Arguments are positional or by parameter name; keyword arguments
naming a weight (`relay.param["w"]`) and the executor's `params` supply weights. As TVM binds
them, the executor's `params` also bind the arguments of `@main` they name, so the callable
takes only the others (`create_executor("graph", mod, params={"w": w}).evaluate()(x)`); a
param naming neither an argument nor a weight is an error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from xtvm.api.ir_module import IRModule
from xtvm.api.relay.expr import Call, Expr, Function, GlobalVar, ParamRef, Var, post_order
from xtvm.api.relay.expr_functor import bind
from xtvm.api.relay.interpreter import ConstructorValue, Interpreter, ValueExpr
from xtvm.api.relay.ty import TensorType, TupleType
from xtvm.passes.relay_qnn_canonicalize import RelayQnnCanonicalizePass
from xtvm.runtime import ndarray as nd
from xtvm.runtime.relay_interpreter import evaluate

KINDS = ("debug", "graph", "vm", "aot")

Result = nd.NDArray | tuple["Result", ...]


def as_array(value: object, typ: object, what: str = "argument") -> np.ndarray:
    """An argument as a numpy array in its parameter's dtype, converted as TVM's executors
    convert what they are given (`NDArray.copyfrom`); the reference interpreter itself takes
    arrays of the declared dtypes only."""
    if isinstance(typ, TensorType):
        return nd.converted(value, typ.dtype, what)
    return value.numpy() if isinstance(value, nd.NDArray) else np.asarray(value)


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

    def evaluate(self, expr: Expr | None = None, binds: Mapping[Var, object] | None = None) -> Any:
        """A callable running `expr` (a function, a global of the module, or the module's
        `main` when None); an expression of another kind is evaluated and its value returned,
        with the variables of `binds` given their values, as in TVM."""
        if binds:
            if expr is None:
                raise ValueError("evaluate: binds need an expression to bind in")
            expr = bind(expr, binds)
        if expr is not None and not isinstance(expr, Function | GlobalVar):
            return self.evaluate(Function([], expr))()
        if expr is None:
            mod = self.mod
        elif isinstance(expr, GlobalVar):  # the module's function of that name
            mod = self.mod.copy()
            callee = mod[expr]
            params = [Var(p.name_hint, p.checked_type) for p in callee.params]
            mod["main"] = Function(params, Call(mod.get_global_var(expr.name_hint), params))
        else:
            mod = self.mod.copy()
            mod["main"] = expr if isinstance(expr, Function) else Function([], expr)
        main = mod["main"]
        param_names = {n.name for n in post_order(main.body) if isinstance(n, ParamRef)}
        all_arg_names = [p.name_hint for p in main.params]
        unknown = sorted(set(self.params) - set(all_arg_names) - param_names)
        if unknown:
            known = ", ".join([*all_arg_names, *sorted(param_names - set(all_arg_names))])
            raise ValueError(
                f"create_executor: params name no argument or weight of @main: "
                f"{', '.join(repr(n) for n in unknown)} (known: {known or 'none'})"
            )
        if mod.has_interpreted:
            return self.interpreted(mod)
        # The arguments the params bind are not the callable's (TVM's bind_params_by_name).
        free = [p for p in main.params if p.name_hint not in self.params]
        arg_names = [p.name_hint for p in free]

        def run(*args: object, **kwargs: object) -> Result:
            weights = dict(self.params)
            bound = {n: v for n, v in self.params.items() if n in all_arg_names}
            inputs = list(args)
            by_name: dict[str, object] = {}
            for key, value in kwargs.items():
                if key in param_names and key not in all_arg_names:
                    weights[key] = as_array(value, None)
                elif key in bound:
                    bound[key] = as_array(value, None)
                else:
                    by_name[key] = value
            if by_name:  # as TVM: the first arguments by position, the others by name
                if len(inputs) > len(arg_names):
                    raise TypeError(f"@main takes {len(free)} arguments, got {len(inputs)}")
                twice = sorted(set(arg_names[: len(inputs)]) & set(by_name))
                if twice:
                    raise TypeError(f"argument(s) given by position and by name: {twice}")
                inputs += [
                    by_name.pop(n) if n in by_name else _missing(n)
                    for n in arg_names[len(inputs) :]
                ]
                if by_name:
                    raise TypeError(f"unknown argument(s): {', '.join(sorted(by_name))}")
            if len(inputs) != len(free):
                bound_text = f" ({', '.join(bound)} bound by params)" if bound else ""
                raise TypeError(f"@main takes {len(free)} arguments{bound_text}, got {len(inputs)}")
            # By position: parameters may share a name (`relay.var("x")` twice).
            given = iter(inputs)
            arrays = [
                as_array(
                    bound[p.name_hint] if p.name_hint in bound else next(given),
                    p.checked_type,
                    f"argument '{p.name_hint}'",
                )
                for p in main.params
            ]
            outputs = iter(evaluate(canonical_qnn(mod.xdsl), arrays, params=weights))
            return _regroup(outputs, main.checked_type.ret_type, self.device)  # type: ignore[attr-defined]

        return run

    def interpreted(self, mod: IRModule) -> Callable[..., Any]:
        """The callable of a module with functions only the expression interpreter runs
        (polymorphism, ADTs, references): arguments by position, values as TVM's."""
        interp = Interpreter(mod, self.params)
        main = mod.get_global_var("main")

        def run(*args: object) -> Any:
            fn = mod["main"]
            if len(args) != len(fn.params):
                raise TypeError(f"@main takes {len(fn.params)} arguments, got {len(args)}")
            values = [
                as_array(a, p.checked_type, f"argument '{p.name_hint}'")
                if isinstance(p.checked_type, TensorType)
                else a
                for a, p in zip(args, fn.params, strict=True)
            ]
            return as_result(interp.run(main(*[relay_value(v) for v in values])), self.device)

        return run


def canonical_qnn(module: ModuleOp) -> ModuleOp:
    """`module` with its quantized ops as ordinary ones (the reference interpreter's), as
    `relay.build` makes them; itself when it has none."""
    if not any(op.name.startswith("relay.qnn.") for op in module.walk()):
        return module
    module = module.clone()
    RelayQnnCanonicalizePass().apply(Context(), module)
    return module


def relay_value(value: object) -> Expr:
    """An argument as an expression the interpreter evaluates to it."""
    return value if isinstance(value, Expr) else ValueExpr(value)


def as_result(value: object, device: nd.Device) -> object:
    """Interpreter values as TVM returns them: tensors as NDArrays, also inside tuples and
    constructor values."""
    if isinstance(value, np.ndarray | np.generic):
        return nd.NDArray(np.asarray(value), device)
    if isinstance(value, tuple):
        return tuple(as_result(v, device) for v in value)
    if isinstance(value, ConstructorValue):
        value.fields = [as_result(v, device) for v in value.fields]
    return value


def _missing(name: str) -> Any:
    raise TypeError(f"missing argument '{name}'")


def _regroup(flat: Iterator[np.ndarray], typ: object, device: nd.Device) -> Result:
    """The interpreter's flat results nested as the type `typ` nests its tuples."""
    if isinstance(typ, TupleType):
        return tuple(_regroup(flat, field, device) for field in typ.fields)
    return nd.NDArray(np.asarray(next(flat)), device)


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
