"""TVM's operator names mapped to the relay API functions that build them: what the Relay
text parser calls for `nn.conv2d(...)` and what the printer asks for default attributes."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable
from functools import cache

from xtvm.api.relay import op as op_package
from xtvm.api.relay.expr import Expr

Operator = Callable[..., Expr]
RETURNS = ("Call", "Constant", "Call | Constant")


@cache
def operator_table() -> dict[str, Operator]:
    """TVM op name -> API function, from the public functions of `xtvm.api.relay.op`'s modules.

    A function exported at `relay.op` is a top-level op (`add`, `sum`); any other is named by its
    module (`nn.conv2d`, `image.resize2d`, `annotation.compiler_begin`). Helpers (`nn.pad_tuple`)
    are left out: an operator returns a `Call` or, for `zeros` and friends, a `Constant` (or
    either, for `zeros_like` of a symbolic shape).
    """
    table: dict[str, Operator] = {}
    for info in pkgutil.iter_modules(op_package.__path__):
        module = importlib.import_module(f"{op_package.__name__}.{info.name}")
        for name, fn in vars(module).items():
            if not inspect.isfunction(fn) or fn.__module__ != module.__name__:
                continue
            if name.startswith("_") or fn.__annotations__.get("return") not in RETURNS:
                continue
            key = name if getattr(op_package, name, None) is fn else f"{info.name}.{name}"
            table[key] = fn
    return table
