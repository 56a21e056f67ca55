"""Relay's algebraic data types and references, as TVM's Python API builds them.

A `TypeData` declares a type (`type List[A] { Cons(A, List[A]), Nil }`) with its
`Constructor`s; a module holds it under its `GlobalTypeVar` (`mod[List] = data`). Calling a
constructor builds a value, and `Match` takes one apart by `Clause`s of patterns
(`PatternConstructor`, `PatternVar`, `PatternWildcard`, `PatternTuple`). `RefCreate`,
`RefRead` and `RefWrite` make, read and update a mutable cell.

These programs have no form in xtvm's relay dialect: type inference (`type_infer.py`) and
the interpreter (`interpreter.py`) work on the expressions themselves, and `relay.build`
refuses them with a TVMError.
"""

from __future__ import annotations

from collections.abc import Sequence

from xtvm.api.relay.expr import Call, Expr, Var, as_expr
from xtvm.api.relay.ty import FuncType, GlobalTypeVar, Type, TypeCall, TypeVar


class Constructor(Expr):
    """A constructor of an algebraic data type; `tag` is its position in the TypeData."""

    def __init__(self, name_hint: str, inputs: Sequence[Type], belong_to: GlobalTypeVar) -> None:
        self.name_hint = name_hint
        self.inputs = list(inputs)
        self.belong_to = belong_to
        self.tag = -1
        self.type_data: TypeData | None = None

    def __call__(self, *args: object) -> Call:
        return Call(self, [as_expr(a) for a in args])  # type: ignore[arg-type]

    def infer(self) -> Type:
        """Its polymorphic function type: `fn[A](A, List[A]) -> List[A]` for `Cons`."""
        if self.type_data is None:
            raise TypeError(
                f"constructor {self.name_hint} belongs to no relay.TypeData (declare the type "
                "before using it)"
            )
        params = self.type_data.type_vars
        return FuncType(self.inputs, TypeCall(self.belong_to, params), params)

    def __repr__(self) -> str:
        return f"Constructor({self.name_hint})"


class TypeData(Type):
    """The definition of an algebraic data type: its name, type parameters, constructors."""

    def __init__(
        self,
        header: GlobalTypeVar,
        type_vars: Sequence[TypeVar],
        constructors: Sequence[Constructor],
    ) -> None:
        self.header = header
        self.type_vars = list(type_vars)
        self.constructors = list(constructors)
        for tag, constructor in enumerate(self.constructors):
            if constructor.belong_to != header:
                raise TypeError(
                    f"constructor {constructor.name_hint} belongs to {constructor.belong_to}, "
                    f"not to {header}"
                )
            constructor.tag = tag
            constructor.type_data = self

    def __str__(self) -> str:
        return f"type {self.header}"

    __repr__ = __str__


# ---------------------------------------------------------------------------------------------
# Patterns and match


class Pattern:
    """A pattern of a match clause."""

    def variables(self) -> list[Var]:
        return []


class PatternWildcard(Pattern):
    """`_`: matches anything, binds nothing."""


class PatternVar(Pattern):
    """`%x`: matches anything and binds it to `var`."""

    def __init__(self, var: Var) -> None:
        self.var = var

    def variables(self) -> list[Var]:
        return [self.var]


class PatternConstructor(Pattern):
    """`Cons(p1, p2)`: a value built by `constructor` whose fields match `patterns`."""

    def __init__(self, constructor: Constructor, patterns: Sequence[Pattern] | None = None) -> None:
        self.constructor = constructor
        self.patterns = list(patterns or [])

    def variables(self) -> list[Var]:
        return [v for p in self.patterns for v in p.variables()]


class PatternTuple(Pattern):
    """`(p1, p2)`: a tuple whose fields match `patterns`."""

    def __init__(self, patterns: Sequence[Pattern] | None = None) -> None:
        self.patterns = list(patterns or [])

    def variables(self) -> list[Var]:
        return [v for p in self.patterns for v in p.variables()]


class Clause:
    """`lhs => rhs`: a pattern and the expression computed when it matches."""

    def __init__(self, lhs: Pattern, rhs: Expr) -> None:
        self.lhs = lhs
        self.rhs = as_expr(rhs)


class Match(Expr):
    """`match (data) { clauses }`: the first clause whose pattern matches; with
    `complete=False` (`match?`) the clauses need not cover every value."""

    def __init__(self, data: Expr, clauses: Sequence[Clause], complete: bool = True) -> None:
        self.data = as_expr(data)
        self.clauses = list(clauses)
        self.complete = complete

    def children(self) -> Sequence[Expr]:
        bound = [v for c in self.clauses for v in c.lhs.variables()]
        return (self.data, *bound, *(c.rhs for c in self.clauses))


# ---------------------------------------------------------------------------------------------
# References


class RefCreate(Expr):
    """`ref(value)`: a new mutable cell holding `value`."""

    def __init__(self, value: Expr) -> None:
        self.value = as_expr(value)

    def children(self) -> Sequence[Expr]:
        return (self.value,)


class RefRead(Expr):
    """`ref_read(ref)`: the value a cell holds."""

    def __init__(self, ref: Expr) -> None:
        self.ref = as_expr(ref)

    def children(self) -> Sequence[Expr]:
        return (self.ref,)


class RefWrite(Expr):
    """`ref_write(ref, value)`: store `value` in the cell; its value is `()`."""

    def __init__(self, ref: Expr, value: Expr) -> None:
        self.ref = as_expr(ref)
        self.value = as_expr(value)

    def children(self) -> Sequence[Expr]:
        return (self.ref, self.value)
