"""Peano naturals for tests (TVM's `relay.testing.nat`): the `nat` type of std/nat.rly with
its constructors `zero` and `succ`, and conversions between Python ints and nat values."""

from __future__ import annotations

from typing import Any

from xtvm.api.relay.expr import Call
from xtvm.api.relay.interpreter import ConstructorValue


def get_type(prelude: Any, name: str) -> tuple[Any, ...]:
    """The type `name` of the prelude's module and its constructors."""
    return prelude.mod.get_type(name)


def _nat(prelude: Any) -> tuple[Any, Any, Any]:
    prelude.mod.import_from_std("nat.rly")
    return prelude.mod.get_type("nat")  # type: ignore[no-any-return]


def count(prelude: Any, n: ConstructorValue) -> int:
    """The Python int a nat value stands for."""
    _, z, s = _nat(prelude)
    total = 0
    while True:
        if not isinstance(n, ConstructorValue):
            raise TypeError(f"count: {n!r} is not a nat value")
        if n.tag == z.tag:
            return total
        if n.tag != s.tag:
            raise TypeError(f"count: {n!r} is not a nat value")
        total, n = total + 1, n.fields[0]


def make_nat_value(prelude: Any, n: int) -> ConstructorValue:
    """The nat value of a non-negative int."""
    if n < 0:
        raise ValueError(f"make_nat_value: {n} is negative")
    _, z, s = _nat(prelude)
    value = ConstructorValue(z.tag, [], z)
    for _ in range(n):
        value = ConstructorValue(s.tag, [value], s)
    return value


def make_nat_expr(prelude: Any, n: int) -> Call:
    """The expression `succ(succ(...zero))` of a non-negative int."""
    if n < 0:
        raise ValueError(f"make_nat_expr: {n} is negative")
    _, z, s = _nat(prelude)
    expr = z()
    for _ in range(n):
        expr = s(expr)
    return expr  # type: ignore[no-any-return]
