"""TVM's pass infrastructure (`tvm.transform`): passes as callables on modules, `Sequential`,
`PassContext` with its optimization level, and `module_pass` for passes written in Python.

A pass maps an `IRModule` to a new `IRModule`. Calling a pass always runs it; inside a
`Sequential`, a pass runs when it is enabled by the current `PassContext`: not disabled, and
either required or of an `opt_level` at most the context's.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from xtvm.api.ir_module import IRModule


@dataclass(frozen=True)
class PassInfo:
    """A pass's name, optimization level and the passes it requires."""

    opt_level: int
    name: str
    required: tuple[str, ...] = ()


@dataclass
class PassContext:
    """The settings passes run under: `with tvm.transform.PassContext(opt_level=3): ...`."""

    opt_level: int = 2
    required_pass: Sequence[str] = ()
    disabled_pass: Sequence[str] = ()
    instruments: Sequence[object] = ()
    config: Mapping[str, Any] = field(default_factory=dict)

    _stack: ClassVar[list[PassContext]] = []

    def __enter__(self) -> PassContext:
        PassContext._stack.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        PassContext._stack.pop()

    @staticmethod
    def current() -> PassContext:
        return PassContext._stack[-1] if PassContext._stack else PassContext()

    def pass_enabled(self, info: PassInfo) -> bool:
        if info.name in self.disabled_pass:
            return False
        return info.name in self.required_pass or info.opt_level <= self.opt_level


class Pass:
    """A transformation of modules."""

    info: PassInfo

    def __call__(self, mod: IRModule) -> IRModule:
        if not isinstance(mod, IRModule):
            raise TypeError(f"passes apply to an IRModule, got {type(mod).__name__}")
        return self.transform_module(mod, PassContext.current())

    def transform_module(self, mod: IRModule, ctx: PassContext) -> IRModule:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.info.name}, opt_level={self.info.opt_level})"


class ModulePass(Pass):
    """A pass from a Python function `(mod, ctx) -> mod`."""

    def __init__(self, function: Callable[[IRModule, PassContext], IRModule], info: PassInfo):
        self.function = function
        self.info = info

    def transform_module(self, mod: IRModule, ctx: PassContext) -> IRModule:
        result = self.function(mod, ctx)
        if not isinstance(result, IRModule):
            raise TypeError(f"pass {self.info.name} returned {type(result).__name__}")
        return result


class Sequential(Pass):
    """Passes run in order, each when the current PassContext enables it."""

    def __init__(
        self,
        passes: Sequence[Pass] | None = None,
        opt_level: int = 0,
        name: str = "sequential",
        required: Sequence[str] | None = None,
    ) -> None:
        self.passes = list(passes or [])
        for p in self.passes:
            if not isinstance(p, Pass):
                raise TypeError(f"Sequential takes passes, got {type(p).__name__}")
        self.info = PassInfo(opt_level, name, tuple(required or ()))

    def transform_module(self, mod: IRModule, ctx: PassContext) -> IRModule:
        for p in self.passes:
            if ctx.pass_enabled(p.info):
                mod = p.transform_module(mod, ctx)
        return mod


def make_pass_decorator(make: Callable[[Any, PassInfo], Pass], method: str) -> Callable[..., Any]:
    """A TVM-style decorator: on a function, or on a class with method `method`, with or
    without arguments (`@module_pass`, `@module_pass(opt_level=2)`)."""

    def decorator(
        pass_func: Any = None,
        opt_level: int | None = None,
        name: str | None = None,
        required: Sequence[str] | None = None,
    ) -> Any:
        def create(target: Any) -> Any:
            info = PassInfo(opt_level or 0, name or target.__name__, tuple(required or ()))
            if inspect.isclass(target):
                if not hasattr(target, method):
                    raise TypeError(f"{target.__name__} must define {method}")

                def instantiate(*args: Any, **kwargs: Any) -> Pass:
                    return make(getattr(target(*args, **kwargs), method), info)

                return instantiate
            return make(target, info)

        return create if pass_func is None else create(pass_func)

    return decorator


module_pass = make_pass_decorator(ModulePass, "transform_module")
"""`@tvm.transform.module_pass(opt_level=...)` on `f(mod, ctx)` or a class with
`transform_module(self, mod, ctx)`."""
