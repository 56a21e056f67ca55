"""The global function registry: Python functions compiled code can call by name.

TVM's PackedFunc idea: prototype an operator or a runtime hook in Python, register it under a
name, and call it from generated code (`tir.call_extern "name"`) or look it up from Python.

    @register_func("my.add_one")
    def add_one(x): return x + 1
    get_global_func("my.add_one")(1)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_REGISTRY: dict[str, Callable[..., Any]] = {}
_RESOLVERS: list[Callable[[str], Callable[..., Any] | None]] = []
"""Consulted for a name nobody registered: functions a higher layer provides on demand (the
external codegens, `relay.ext.<name>`, load on first use)."""


def add_resolver(resolver: Callable[[str], Callable[..., Any] | None]) -> None:
    """Let `resolver(name)` supply global functions that are not registered (once each)."""
    if resolver not in _RESOLVERS:
        _RESOLVERS.append(resolver)


def register_func(
    name: str | Callable[..., Any], f: Callable[..., Any] | None = None, override: bool = False
) -> Any:
    """Register `f` under `name`; used bare (`@register_func`) it takes the function's name."""
    if callable(name):
        function = name
        return register_func(function.__name__, function, override)
    if f is not None:
        if name in _REGISTRY and not override:
            raise ValueError(f"global function '{name}' is already registered")
        _REGISTRY[name] = f
        return f

    def decorate(function: F) -> F:
        register_func(name, function, override)  # type: ignore[arg-type]
        return function

    return decorate


def get_global_func(name: str, allow_missing: bool = False) -> Callable[..., Any] | None:
    """The function registered under `name`; an error (or None if allowed) when there is none."""
    function = _REGISTRY.get(name)
    for resolver in _RESOLVERS:
        if function is None:
            function = resolver(name)
    if function is None and not allow_missing:
        raise ValueError(f"no global function '{name}' is registered")
    return function


def list_global_func_names() -> list[str]:
    return sorted(_REGISTRY)


def remove_global_func(name: str) -> None:
    """Unregister `name` (TVM's `tvm._ffi.registry.remove_global_func`)."""
    if _REGISTRY.pop(name, None) is None:
        raise ValueError(f"no global function '{name}' is registered")
