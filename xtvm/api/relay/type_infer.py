"""Relay type inference by unification, as TVM's InferType: what `expr.checked_type` runs.

Every node not typed yet gets a type from its children's; an unknown (a variable without an
annotation, the result of a call of an untyped function, the field types of a pattern) is an
`IncompleteType` that unification solves. A polymorphic callee (`FuncType` with type
parameters, a constructor) is instantiated with fresh unknowns at each call, and the call's
`type_args` record what they became. An operator call is typed by its op's own rule once its
operands' types are known, so an untyped operand may be solved by a later use. An unknown left
at the end is an error naming the expression, as a mismatch is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xtvm.api.relay.adt import (
    Match,
    Pattern,
    PatternConstructor,
    PatternTuple,
    PatternVar,
    RefCreate,
    RefRead,
    RefWrite,
)
from xtvm.api.relay.expr import (
    HOOKS,
    Call,
    Expr,
    Function,
    If,
    Let,
    Op,
    RelayTypeError,
    Tuple,
    TupleGetItem,
    Var,
    post_order,
)
from xtvm.api.relay.ty import (
    FuncType,
    IncompleteType,
    RefType,
    TensorType,
    TupleType,
    Type,
    TypeCall,
    TypeVar,
)


class Solver:
    """Unknowns (`IncompleteType`s) and what unification has made of them."""

    def __init__(self) -> None:
        # by the unknown's id; the unknown itself is kept so that its id is never reused
        self.links: dict[int, tuple[IncompleteType, Type]] = {}

    def find(self, typ: Type) -> Type:
        while isinstance(typ, IncompleteType) and id(typ) in self.links:
            typ = self.links[id(typ)][1]
        return typ

    def resolve(self, typ: Type) -> Type:
        """`typ` with every solved unknown replaced by its solution."""
        typ = self.find(typ)
        if isinstance(typ, TupleType):
            return TupleType([self.resolve(f) for f in typ.fields])
        if isinstance(typ, FuncType):
            return FuncType(
                [self.resolve(a) for a in typ.arg_types],
                self.resolve(typ.ret_type),
                typ.type_params,
            )
        if isinstance(typ, TypeCall):
            return TypeCall(typ.func, [self.resolve(a) for a in typ.args])
        if isinstance(typ, RefType):
            return RefType(self.resolve(typ.value))
        return typ

    def occurs(self, hole: IncompleteType, typ: Type) -> bool:
        typ = self.find(typ)
        if typ is hole:
            return True
        return any(self.occurs(hole, t) for t in parts(typ))

    def unify(self, a: Type, b: Type, what: str) -> None:
        """Make `a` and `b` the same type, or raise RelayTypeError saying where (`what`)."""
        a, b = self.find(a), self.find(b)
        if a is b:
            return
        if isinstance(a, IncompleteType) or isinstance(b, IncompleteType):
            hole, other = (a, b) if isinstance(a, IncompleteType) else (b, a)
            assert isinstance(hole, IncompleteType)
            if self.occurs(hole, other):
                raise RelayTypeError(f"{what}: a type would contain itself ({self.resolve(other)})")
            self.links[id(hole)] = (hole, other)
            return
        if isinstance(a, FuncType) and isinstance(b, FuncType):
            if a.type_params or b.type_params:
                if len(a.type_params) == len(b.type_params):
                    a, b = FuncType(a.arg_types, a.ret_type), mono(b, a.type_params)
                else:  # a polymorphic function where a monomorphic one is expected
                    a, b = self.instantiate(a)[0], self.instantiate(b)[0]
            if len(a.arg_types) != len(b.arg_types):
                self.mismatch(a, b, what)
            for x, y in zip((*a.arg_types, a.ret_type), (*b.arg_types, b.ret_type), strict=True):
                self.unify(x, y, what)
            return
        if isinstance(a, TupleType) and isinstance(b, TupleType):
            if len(a.fields) != len(b.fields):
                self.mismatch(a, b, what)
            for x, y in zip(a.fields, b.fields, strict=True):
                self.unify(x, y, what)
            return
        if isinstance(a, TypeCall) and isinstance(b, TypeCall):
            if a.func != b.func or len(a.args) != len(b.args):
                self.mismatch(a, b, what)
            for x, y in zip(a.args, b.args, strict=True):
                self.unify(x, y, what)
            return
        if isinstance(a, RefType) and isinstance(b, RefType):
            self.unify(a.value, b.value, what)
            return
        if isinstance(a, TensorType) and isinstance(b, TensorType) and a == b:
            return
        if not isinstance(a, TypeVar) and type(a) is type(b) and a == b:
            return
        self.mismatch(a, b, what)

    def mismatch(self, a: Type, b: Type, what: str) -> None:
        raise RelayTypeError(f"{what}: type mismatch, {self.resolve(a)} vs {self.resolve(b)}")

    def instantiate(self, typ: FuncType) -> tuple[FuncType, list[Type]]:
        """`typ` with its type parameters replaced by fresh unknowns, and those unknowns."""
        fresh: list[Type] = [IncompleteType() for _ in typ.type_params]
        return mono(typ, fresh), fresh


def parts(typ: Type) -> Sequence[Type]:
    """The types `typ` is built from."""
    if isinstance(typ, TupleType):
        return typ.fields
    if isinstance(typ, FuncType):
        return (*typ.arg_types, typ.ret_type)
    if isinstance(typ, TypeCall):
        return typ.args
    if isinstance(typ, RefType):
        return (typ.value,)
    return ()


def mono(typ: FuncType, args: Sequence[Type]) -> FuncType:
    """The monomorphic function type `typ` is with its type parameters bound to `args`."""
    mapping = dict(zip(typ.type_params, args, strict=True))
    return FuncType(
        [substitute(a, mapping) for a in typ.arg_types], substitute(typ.ret_type, mapping)
    )


def substitute(typ: Type, mapping: dict[TypeVar, Type]) -> Type:
    """`typ` with the type variables of `mapping` replaced (TypeVars hash by identity)."""
    if isinstance(typ, TypeVar):
        return mapping.get(typ, typ)
    if isinstance(typ, TupleType):
        return TupleType([substitute(f, mapping) for f in typ.fields])
    if isinstance(typ, FuncType):
        inner = {k: v for k, v in mapping.items() if k not in typ.type_params}
        return FuncType(
            [substitute(a, inner) for a in typ.arg_types],
            substitute(typ.ret_type, inner),
            typ.type_params,
        )
    if isinstance(typ, TypeCall):
        return TypeCall(typ.func, [substitute(a, mapping) for a in typ.args])
    if isinstance(typ, RefType):
        return RefType(substitute(typ.value, mapping))
    return typ


def polymorphic(typ: Type) -> bool:
    return isinstance(typ, FuncType) and bool(typ.type_params)


def complete(typ: Type) -> bool:
    """Whether `typ` has no unknowns left."""
    return not isinstance(typ, IncompleteType) and all(complete(t) for t in parts(typ))


def describe(node: Expr) -> str:
    if isinstance(node, Var):
        return f"%{node.name_hint}"
    if isinstance(node, Call):
        callee = node.op
        name = getattr(callee, "name", None) or getattr(callee, "name_hint", None)
        return f"the call of {name}" if name else "a call"
    return f"a {type(node).__name__}"


class Inference:
    """One run of type inference over the untyped nodes reachable from a root."""

    def __init__(self) -> None:
        self.solver = Solver()
        self.types: dict[int, Type] = {}
        self.deferred: list[tuple[Expr, Callable[[], Type | None], IncompleteType]] = []
        self.instantiated: dict[int, list[Type]] = {}
        self.forward: set[int] = set()  # nodes given a type variable before their rule ran

    def type_of(self, node: Expr) -> Type:
        if node._checked is not None:
            return node._checked
        if id(node) not in self.types:  # used before typed: a recursive let's variable
            self.types[id(node)] = IncompleteType()
            self.forward.add(id(node))
        return self.types[id(node)]

    def run(self, root: Expr) -> None:
        order = post_order(root, children)
        for node in order:
            if node._checked is not None:
                continue
            if id(node) in self.forward:
                self.forward.discard(id(node))
                self.solver.unify(self.types[id(node)], self.rule(node), describe(node))
            elif id(node) not in self.types:
                self.types[id(node)] = self.rule(node)
        self.retry_deferred()
        self.finish(order)

    def retry_deferred(self) -> None:
        progress = True
        while self.deferred and progress:
            progress = False
            waiting = self.deferred
            self.deferred = []
            for node, attempt, hole in waiting:
                result = attempt()
                if result is None:
                    self.deferred.append((node, attempt, hole))
                else:
                    self.solver.unify(hole, result, describe(node))
                    progress = True

    def finish(self, order: Sequence[Expr]) -> None:
        solved: list[tuple[Expr, Type]] = []
        for node in order:
            if node._checked is not None:
                continue
            typ = self.solver.resolve(self.types[id(node)])
            if not complete(typ):
                if isinstance(node, Var) and node.type_annotation is None:
                    node.infer()  # raises its own "has no type" error
                raise RelayTypeError(
                    f"cannot infer the type of {describe(node)}: it is {typ}; annotate the "
                    "variables it depends on"
                )
            solved.append((node, typ))
        for node, typ in solved:
            node._checked = typ
            if id(node) in self.instantiated:
                assert isinstance(node, Call)
                node.type_args = [self.solver.resolve(t) for t in self.instantiated[id(node)]]

    # -- the rules --------------------------------------------------------------------------

    def rule(self, node: Expr) -> Type:
        unify = self.solver.unify
        if isinstance(node, Var):
            if node.type_annotation is not None:
                return node.type_annotation
            if node.bound_value is not None:
                return self.type_of(node.bound_value)
            return IncompleteType()
        if isinstance(node, Tuple):
            return TupleType([self.type_of(f) for f in node.fields])
        if isinstance(node, TupleGetItem):
            return self.defer(node, lambda: self.project(node))
        if isinstance(node, Call):
            if isinstance(node.op, Op):
                return self.defer(node, lambda: self.operator_call(node))
            return self.call(node)
        if isinstance(node, Let):
            unify(self.type_of(node.var), self.type_of(node.value), f"let %{node.var.name_hint}")
            return self.type_of(node.body)
        if isinstance(node, If):
            cond = self.solver.find(self.type_of(node.cond))
            if not isinstance(cond, IncompleteType) and cond != TensorType((), "bool"):
                raise RelayTypeError(f"If: the condition must be a bool scalar, got {cond}")
            unify(cond, TensorType((), "bool"), "the condition of an If")
            then, other = self.type_of(node.true_branch), self.type_of(node.false_branch)
            unify(then, other, "the branches of an If")
            return other if polymorphic(self.solver.find(then)) else then
        if isinstance(node, Function):
            body = self.type_of(node.body)
            if node.ret_type is not None:
                try:
                    unify(node.ret_type, body, "the function's body")
                except RelayTypeError:
                    raise RelayTypeError(
                        f"function body has type {self.solver.resolve(body)}, declared "
                        f"{node.ret_type}"
                    ) from None
            ret = node.ret_type if node.ret_type is not None else body
            params = [self.type_of(p) for p in node.params]
            return FuncType(params, ret, node.type_params)
        if isinstance(node, Match):
            return self.match(node)
        if isinstance(node, RefCreate):
            return RefType(self.type_of(node.value))
        if isinstance(node, RefRead):
            value = IncompleteType()
            unify(self.type_of(node.ref), RefType(value), "ref_read of a non-reference")
            return value
        if isinstance(node, RefWrite):
            ref = RefType(self.type_of(node.value))
            unify(self.type_of(node.ref), ref, "ref_write of a value of another type")
            return TupleType([])
        return node.infer()  # Constant, ParamRef, GlobalVar, Constructor

    def defer(self, node: Expr, attempt: Callable[[], Type | None]) -> Type:
        """The type `attempt` gives, or an unknown it solves once it can."""
        result = attempt()
        if result is not None:
            return result
        hole = IncompleteType()
        self.deferred.append((node, attempt, hole))
        return hole

    def project(self, node: TupleGetItem) -> Type | None:
        typ = self.solver.find(self.type_of(node.tuple_value))
        if isinstance(typ, IncompleteType):
            return None
        if not isinstance(typ, TupleType) or not 0 <= node.index < len(typ.fields):
            raise RelayTypeError(
                f"TupleGetItem: no field {node.index} in {self.solver.resolve(typ)}"
            )
        return typ.fields[node.index]

    def operator_call(self, node: Call) -> Type | None:
        """The op's own rule, once every operand's type is known (and concrete)."""
        for arg in node.args:
            if arg._checked is None:
                typ = self.solver.resolve(self.types[id(arg)])
                if not complete(typ):
                    if node._pending is None or not isinstance(arg, Var):
                        return None
                    continue  # the op's builder may type an untyped variable (a conv2d weight)
                arg._checked = typ
        try:
            result = node.infer()
        except RelayTypeError:
            if any(a._checked is None for a in node.args):
                return None
            raise
        for arg in node.args:  # operands the builder typed
            if id(arg) in self.types and arg._checked is not None:
                self.solver.unify(self.types[id(arg)], arg._checked, describe(node))
        return result

    def call(self, node: Call) -> Type:
        what = describe(node)
        callee = self.solver.find(self.type_of(node.op))  # type: ignore[arg-type]
        args = [self.type_of(a) for a in node.args]
        if isinstance(callee, IncompleteType):
            ret: Type = IncompleteType()
            self.solver.unify(callee, FuncType(args, ret), what)
            return ret
        if not isinstance(callee, FuncType):
            raise RelayTypeError(f"{what}: the callee is not a function, its type is {callee}")
        if callee.type_params:
            callee, fresh = self.solver.instantiate(callee)
            self.instantiated[id(node)] = fresh
        if len(callee.arg_types) != len(args):
            raise RelayTypeError(
                f"{what}: takes {len(callee.arg_types)} arguments, got {len(args)}"
            )
        for i, (param, arg) in enumerate(zip(callee.arg_types, args, strict=True)):
            self.solver.unify(param, arg, f"{what}, argument {i}")
        return callee.ret_type

    def match(self, node: Match) -> Type:
        data = self.type_of(node.data)
        result: Type | None = None
        for clause in node.clauses:
            self.pattern(clause.lhs, data)
            rhs = self.type_of(clause.rhs)
            if result is None:
                result = rhs
            else:
                self.solver.unify(result, rhs, "the clauses of a match")
        if result is None:
            raise RelayTypeError("a match without clauses has no type")
        return result

    def pattern(self, pattern: Pattern, typ: Type) -> None:
        if isinstance(pattern, PatternVar):
            self.solver.unify(self.type_of(pattern.var), typ, f"pattern %{pattern.var.name_hint}")
        elif isinstance(pattern, PatternConstructor):
            constructor = pattern.constructor
            what = f"pattern {constructor.name_hint}"
            ctor_type, _ = self.solver.instantiate(constructor.infer())  # type: ignore[arg-type]
            self.solver.unify(ctor_type.ret_type, typ, what)
            if len(pattern.patterns) != len(ctor_type.arg_types):
                raise RelayTypeError(
                    f"{what}: the constructor has {len(ctor_type.arg_types)} fields, the "
                    f"pattern {len(pattern.patterns)}"
                )
            for sub, field in zip(pattern.patterns, ctor_type.arg_types, strict=True):
                self.pattern(sub, field)
        elif isinstance(pattern, PatternTuple):
            fields: list[Type] = [IncompleteType() for _ in pattern.patterns]
            self.solver.unify(TupleType(fields), typ, "a tuple pattern")
            for sub, field in zip(pattern.patterns, fields, strict=True):
                self.pattern(sub, field)


def children(node: Expr) -> Sequence[Expr]:
    """What `node`'s type depends on: typed nodes are not entered; a call's callee counts."""
    if node._checked is not None:
        return ()
    if isinstance(node, Call) and not isinstance(node.op, Op | Function):
        return [*node.args, node.op]
    return node.children()


def infer(root: Expr) -> None:
    """Type every node reachable from `root` that has no type yet."""
    Inference().run(root)


HOOKS["infer"] = infer
