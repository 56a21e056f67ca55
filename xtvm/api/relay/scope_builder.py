"""TVM's `relay.ScopeBuilder`: writes nested `let`s and `if`s as a sequence of statements.

sb = relay.ScopeBuilder()
y = sb.let("y", x + x)
with sb.if_scope(cond):
    sb.ret(y)
with sb.else_scope():
    sb.ret(x)
body = sb.get()
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from xtvm.api.relay.expr import Expr, If, Let, Var, as_expr, var
from xtvm.api.relay.ty import Type


class ScopeBuilder:
    """Statements of one scope: bindings `(var, value)` and the returned expression."""

    def __init__(self) -> None:
        self._bindings: list[list[tuple[Var, Expr]]] = [[]]
        self._ret: list[Expr | None] = [None]
        self._pending_if: tuple[Expr, Expr | None] | None = None

    def let(self, var_or_name: Var | str | tuple[str, Type], value: object) -> Var:
        """Bind `value` to a new variable (a name, a (name, type) pair or a Var)."""
        if isinstance(var_or_name, str):
            v = var(var_or_name)
        elif isinstance(var_or_name, tuple):
            v = var(var_or_name[0], var_or_name[1])
        else:
            v = var_or_name
        bound = as_expr(value)
        if v.type_annotation is None:
            v.bound_value = bound  # uses of `v` before `get()` know its type
        self._bindings[-1].append((v, bound))
        return v

    @contextmanager
    def _scope(self) -> Iterator[None]:
        self._bindings.append([])
        self._ret.append(None)
        yield
        bindings, ret = self._bindings.pop(), self._ret.pop()
        if ret is None:
            raise ValueError("ScopeBuilder: a scope ended without ret()")
        self._last = self._wrap(bindings, ret)

    @contextmanager
    def if_scope(self, cond: Expr) -> Iterator[None]:
        """The true branch of an `if` on `cond`; `else_scope` must follow."""
        with self._scope():
            yield
        self._pending_if = (cond, self._last)

    @contextmanager
    def else_scope(self) -> Iterator[None]:
        if self._pending_if is None:
            raise ValueError("ScopeBuilder: else_scope() without an if_scope() before it")
        cond, then = self._pending_if
        self._pending_if = None
        with self._scope():
            yield
        assert then is not None
        self.ret(If(cond, then, self._last))

    def type_of(self, expr: Expr) -> Type:
        return expr.checked_type

    def ret(self, value: object) -> None:
        """Set the value of the current scope."""
        if self._ret[-1] is not None:
            raise ValueError("ScopeBuilder: ret() was already called in this scope")
        self._ret[-1] = as_expr(value)

    def get(self) -> Expr:
        """The whole program: the outer bindings as nested lets around the returned value."""
        if self._ret[0] is None:
            raise ValueError("ScopeBuilder: get() before ret()")
        return self._wrap(self._bindings[0], self._ret[0])

    @staticmethod
    def _wrap(bindings: list[tuple[Var, Expr]], body: Expr) -> Expr:
        for v, value in reversed(bindings):
            body = Let(v, value, body)
        return body
