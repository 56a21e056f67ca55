"""TVM's `relay.op.contrib.register`: the pattern tables of the external codegens, by name.

A table is a list of `(name, pattern[, check])` entries, as `relay.transform.MergeComposite`
takes; `get_pattern_table("dnnl")` imports `relay.op.contrib.dnnl`, which registers its own.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

PatternTable = list[tuple[Any, ...]]

_PATTERN_TABLES: dict[str, Callable[[], PatternTable]] = {}


def register_pattern_table(compiler: str, table: Callable[[], PatternTable] | None = None) -> Any:
    """Register `table()` as the pattern table of `compiler` (also as a decorator)."""

    def register(t: Callable[[], PatternTable]) -> Callable[[], PatternTable]:
        _PATTERN_TABLES[compiler] = t
        return t

    return register(table) if table is not None else register


def get_pattern_table(compiler: str) -> PatternTable | None:
    """The pattern table of `compiler` (a fresh list), None if it has none."""
    if compiler not in _PATTERN_TABLES and compiler.isidentifier():
        try:
            importlib.import_module(f"{__package__}.{compiler}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__package__}.{compiler}":
                raise
    table = _PATTERN_TABLES.get(compiler)
    return None if table is None else table()


__all__ = ["get_pattern_table", "register_pattern_table"]
