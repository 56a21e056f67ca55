"""TVM's `relay.dataflow_pattern` over xtvm's relay expressions.

Patterns are built with `is_op`, `wildcard`, `is_var`, `is_constant`, `is_expr`, `is_tuple`,
`is_tuple_get_item`, `is_if`, `is_let`, `FunctionPattern`, calls
(`is_op("add")(wildcard(), wildcard())`), alternation (`|`), `has_attr`, `has_type`,
`has_dtype`, `has_shape`, `optional` and `dominates(parent, path, child)` (a diamond: every
input path of `child` runs through nodes matching `path` up to `parent`, which `child`
post-dominates). `pattern.match(expr)` says
whether `expr` is an instance; `pattern.partition(expr, attrs=)` replaces each instance with a
call of a function holding it (TVM's PatternPartitioner); `rewrite` applies callbacks.

As in TVM, a pattern node used twice must match the same expression both times, and a call of
`add` or `multiply` also matches with its two arguments swapped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from xtvm.api.relay.expr import (
    Call,
    Constant,
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
from xtvm.api.relay.expr_functor import ExprMutator
from xtvm.api.relay.ty import TensorType, Type
from xtvm.api.structural_equal import structural_equal

Memo = dict[int, tuple["DFPattern", Any]]
COMMUTATIVE = ("add", "multiply")


class DFPattern:
    """A dataflow pattern: a node of a pattern graph."""

    def __call__(self, *args: DFPattern | None) -> CallPattern:
        if args == (None,):  # `wildcard()(None)`: any arguments
            return CallPattern(self, None)
        return CallPattern(self, [a for a in args if a is not None])

    def __or__(self, other: DFPattern) -> AltPattern:
        return AltPattern(self, other)

    def __add__(self, other: DFPattern) -> CallPattern:
        return is_op("add")(self, other)

    def __sub__(self, other: DFPattern) -> CallPattern:
        return is_op("subtract")(self, other)

    def __mul__(self, other: DFPattern) -> CallPattern:
        return is_op("multiply")(self, other)

    def __truediv__(self, other: DFPattern) -> CallPattern:
        return is_op("divide")(self, other)

    def has_attr(self, attrs: Mapping[str, object]) -> AttrPattern:
        return AttrPattern(self, dict(attrs))

    def has_type(self, ttype: Type) -> TypePattern:
        return TypePattern(self, ttype)

    def has_dtype(self, dtype: str) -> DataTypePattern:
        return DataTypePattern(self, dtype)

    def has_shape(self, shape: Sequence[int]) -> ShapePattern:
        return ShapePattern(self, list(shape))

    def optional(self, option_constructor: Callable[[DFPattern], DFPattern]) -> AltPattern:
        return self | option_constructor(self)

    def match(self, expr: Expr) -> bool:
        return match(self, expr)

    def partition(
        self,
        expr: Expr,
        attrs: Mapping[str, object] | None = None,
        check: Callable[[Expr], bool] = lambda _e: True,
    ) -> Expr:
        return partition(self, expr, attrs, check)

    def children(self) -> list[DFPattern]:
        return []


class ExprPattern(DFPattern):
    """Matches one expression (or operator): itself, or one structurally equal to it."""

    def __init__(self, expr: Expr | Op) -> None:
        self.expr = expr


class VarPattern(DFPattern):
    """Matches a variable, named `name_hint` unless that is empty."""

    def __init__(self, name_hint: str = "") -> None:
        self.name = name_hint


class ConstantPattern(DFPattern):
    """Matches a constant."""


class WildcardPattern(DFPattern):
    """Matches anything."""


class CallPattern(DFPattern):
    """Matches a call whose operator and arguments match; `args=None` takes any arguments."""

    def __init__(self, op: DFPattern, args: list[DFPattern] | None) -> None:
        self.op = op
        self.args = args

    def children(self) -> list[DFPattern]:
        return [self.op, *(self.args or [])]


class TuplePattern(DFPattern):
    """Matches a tuple whose fields match; `fields=None` takes any tuple."""

    def __init__(self, fields: Sequence[DFPattern] | None) -> None:
        self.fields = None if fields is None else list(fields)

    def __getitem__(self, index: int) -> DFPattern:
        assert self.fields is not None
        return self.fields[index]

    def __len__(self) -> int:
        return len(self.fields or [])

    def children(self) -> list[DFPattern]:
        return list(self.fields or [])


class TupleGetItemPattern(DFPattern):
    """Matches `tuple[index]`; `index=None` takes any index."""

    def __init__(self, tuple_value: DFPattern, index: int | None = None) -> None:
        self.tuple = tuple_value
        self.index = index

    def children(self) -> list[DFPattern]:
        return [self.tuple]


class FunctionPattern(DFPattern):
    """Matches a function whose parameters and body match; `params=None` takes any."""

    def __init__(self, params: Sequence[DFPattern] | None, body: DFPattern) -> None:
        self.params = None if params is None else list(params)
        self.body = body

    def children(self) -> list[DFPattern]:
        return [*(self.params or []), self.body]


class IfPattern(DFPattern):
    """Matches `if (cond) { true_branch } else { false_branch }`."""

    def __init__(self, cond: DFPattern, true_branch: DFPattern, false_branch: DFPattern) -> None:
        self.cond = cond
        self.true_branch = true_branch
        self.false_branch = false_branch

    def children(self) -> list[DFPattern]:
        return [self.cond, self.true_branch, self.false_branch]


class LetPattern(DFPattern):
    """Matches `let var = value; body`."""

    def __init__(self, var: DFPattern, value: DFPattern, body: DFPattern) -> None:
        self.var = var
        self.value = value
        self.body = body

    def children(self) -> list[DFPattern]:
        return [self.var, self.value, self.body]


class DominatorPattern(DFPattern):
    """Matches what `child` matches if each of its inputs leads, through nodes matching
    `path` only, to one node matching `parent`, and `child` post-dominates that node."""

    def __init__(self, parent: DFPattern, path: DFPattern, child: DFPattern) -> None:
        self.parent = parent
        self.path = path
        self.child = child

    def children(self) -> list[DFPattern]:
        return [self.parent, self.path, self.child]


class AltPattern(DFPattern):
    """Matches what `left` or `right` matches, `left` tried first."""

    def __init__(self, left: DFPattern, right: DFPattern) -> None:
        self.left = left
        self.right = right

    def children(self) -> list[DFPattern]:
        return [self.left, self.right]


class _Refined(DFPattern):
    """What `pattern` matches, if the expression also has a property."""

    def __init__(self, pattern: DFPattern, wanted: Any) -> None:
        self.pattern = pattern
        self.wanted = wanted

    def children(self) -> list[DFPattern]:
        return [self.pattern]


class AttrPattern(_Refined):
    """Matches what `pattern` matches, if its attributes have the given values."""

    @property
    def attrs(self) -> dict[str, object]:
        return self.wanted  # type: ignore[no-any-return]


class TypePattern(_Refined):
    """Matches what `pattern` matches, if its type is `type`."""

    @property
    def type(self) -> Type:
        return self.wanted  # type: ignore[no-any-return]


class DataTypePattern(_Refined):
    """Matches what `pattern` matches, if it is a tensor of dtype `dtype`."""

    @property
    def dtype(self) -> str:
        return self.wanted  # type: ignore[no-any-return]


class ShapePattern(_Refined):
    """Matches what `pattern` matches, if it is a tensor of shape `shape`."""

    @property
    def shape(self) -> list[int]:
        return self.wanted  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------------------------
# Builders, as TVM names them


def is_op(op_name: str) -> ExprPattern:
    return ExprPattern(Op.get(op_name))


def wildcard() -> WildcardPattern:
    return WildcardPattern()


def is_var(name: str = "") -> VarPattern:
    return VarPattern(name)


def is_constant() -> ConstantPattern:
    return ConstantPattern()


def is_expr(expr: Expr) -> ExprPattern:
    return ExprPattern(expr)


def is_tuple(fields: Sequence[DFPattern] | None) -> TuplePattern:
    return TuplePattern(fields)


def is_tuple_get_item(tuple_value: DFPattern, index: int | None = None) -> TupleGetItemPattern:
    return TupleGetItemPattern(tuple_value, index)


def is_if(cond: DFPattern, true_branch: DFPattern, false_branch: DFPattern) -> IfPattern:
    return IfPattern(cond, true_branch, false_branch)


def is_let(var: DFPattern, value: DFPattern, body: DFPattern) -> LetPattern:
    return LetPattern(var, value, body)


def dominates(parent: DFPattern, path: DFPattern, child: DFPattern) -> DominatorPattern:
    return DominatorPattern(parent, path, child)


def has_attr(attrs: Mapping[str, object], pattern: DFPattern | None = None) -> AttrPattern:
    return (pattern or wildcard()).has_attr(attrs)


def has_type(ttype: Type, pattern: DFPattern | None = None) -> TypePattern:
    return (pattern or wildcard()).has_type(ttype)


def has_dtype(dtype: str, pattern: DFPattern | None = None) -> DataTypePattern:
    return (pattern or wildcard()).has_dtype(dtype)


def has_shape(shape: Sequence[int], pattern: DFPattern | None = None) -> ShapePattern:
    return (pattern or wildcard()).has_shape(shape)


# ---------------------------------------------------------------------------------------------
# Matching


def _same_value(actual: object, wanted: object) -> bool:
    if isinstance(wanted, list | tuple) and isinstance(actual, list | tuple):
        return len(actual) == len(wanted) and all(
            _same_value(a, w) for a, w in zip(actual, wanted, strict=True)
        )
    if isinstance(actual, tuple) and not isinstance(wanted, tuple):
        return False
    return bool(actual == wanted)


def _call_attrs(call: Call) -> Mapping[str, object]:
    """A call's attributes; those its builder was given but the op does not keep (conv2d's
    `kernel_size`, which its weight's shape gives) as given, and only those while its operands'
    types are unknown."""
    given = dict(call.kwargs or {})
    try:
        attrs = {**given, **call.attrs}
    except RelayTypeError:
        return given
    layout = attrs.get("kernel_layout")
    if isinstance(layout, str) and len(call.args) > 1 and "kernel_size" not in attrs:
        weight = _type_of(call.args[1])
        if isinstance(weight, TensorType):
            shape = [int(d) for d in weight.shape]
            attrs["kernel_size"] = tuple(shape[layout.index(c)] for c in layout if c in "DHW")
    return attrs


def _attrs_match(expr: Expr | Op, attrs: Mapping[str, object]) -> bool:
    if isinstance(expr, Op):  # an operator's own attributes: its pattern kind
        kind = expr.op_class.PATTERN if expr.op_class is not None else None
        source: Mapping[str, object] = {} if kind is None else {"TOpPattern": int(kind)}
    elif isinstance(expr, Call):
        source = _call_attrs(expr)
    elif isinstance(expr, Function):
        source = expr.attrs
    else:
        return False
    for key, wanted in attrs.items():
        if key not in source or not _same_value(source[key], wanted):
            return False
    return True


def _type_of(expr: Expr | Op) -> Type | None:
    if not isinstance(expr, Expr):
        return None
    try:
        return expr.checked_type
    except Exception:  # an untyped variable: no type to compare
        return None


class Matcher:
    """Matches patterns against expressions, recording what each pattern node matched.

    `root` is the graph the expressions live in (the first expression matched, unless given):
    a dominator pattern needs its users. `fuzzy` holds what a dominator's parent and path, or
    a function pattern's body, matched: TVM's partition makes no parameters of them.
    """

    def __init__(self, root: Expr | None = None) -> None:
        self.memo: Memo = {}
        self.fuzzy: dict[int, Expr] = {}
        self.root = root
        self._ipdom: dict[int, Expr | None] | None = None

    def _save(self) -> tuple[Memo, dict[int, Expr]]:
        return dict(self.memo), dict(self.fuzzy)

    def _restore(self, saved: tuple[Memo, dict[int, Expr]]) -> None:
        self.memo, self.fuzzy = dict(saved[0]), dict(saved[1])

    def match(self, pattern: DFPattern, expr: Expr | Op) -> bool:
        if self.root is None and isinstance(expr, Expr):
            self.root = expr
        seen = self.memo.get(id(pattern))
        if seen is not None:
            return seen[1] is expr
        saved = self._save()
        if self._visit(pattern, expr):
            self.memo[id(pattern)] = (pattern, expr)
            return True
        self._restore(saved)
        return False

    def _visit(self, p: DFPattern, expr: Expr | Op) -> bool:
        if isinstance(p, WildcardPattern):
            return True
        if isinstance(p, ExprPattern):  # structurally, as TVM: `is_expr(relay.const(0))`
            if p.expr is expr:
                return True
            return (
                isinstance(p.expr, Expr)
                and isinstance(expr, Expr)
                and structural_equal(p.expr, expr)
            )
        if isinstance(p, VarPattern):
            return isinstance(expr, Var) and (not p.name or p.name == expr.name_hint)
        if isinstance(p, ConstantPattern):
            return isinstance(expr, Constant)
        if isinstance(p, AltPattern):
            return self.match(p.left, expr) or self.match(p.right, expr)
        if isinstance(p, AttrPattern):
            return self.match(p.pattern, expr) and _attrs_match(expr, p.attrs)
        if isinstance(p, TypePattern | DataTypePattern | ShapePattern):
            if not self.match(p.pattern, expr):
                return False
            typ = _type_of(expr)
            if isinstance(p, TypePattern):
                return typ is not None and str(typ) == str(p.wanted)
            if not isinstance(typ, TensorType):
                return False
            if isinstance(p, DataTypePattern):
                return typ.dtype == p.wanted
            return [int(d) for d in typ.shape] == [int(d) for d in p.wanted]
        if isinstance(p, TuplePattern):
            if not isinstance(expr, Tuple):
                return False
            if p.fields is None:
                return True
            return len(p.fields) == len(expr.fields) and self._all(p.fields, expr.fields)
        if isinstance(p, TupleGetItemPattern):
            return (
                isinstance(expr, TupleGetItem)
                and (p.index is None or p.index == expr.index)
                and self.match(p.tuple, expr.tuple_value)
            )
        if isinstance(p, CallPattern):
            return self._call(p, expr)
        if isinstance(p, FunctionPattern):
            return self._function(p, expr)
        if isinstance(p, IfPattern):
            return isinstance(expr, If) and self._all(
                p.children(), [expr.cond, expr.true_branch, expr.false_branch]
            )
        if isinstance(p, LetPattern):
            return isinstance(expr, Let) and self._all(
                p.children(), [expr.var, expr.value, expr.body]
            )
        if isinstance(p, DominatorPattern):
            return (
                self.match(p.child, expr)
                and self._matches_path(p, expr)
                and self._dominates_parent(p, expr)
            )
        raise TypeError(f"unknown pattern {type(p).__name__}")

    def _all(self, patterns: Sequence[DFPattern], exprs: Sequence[Expr]) -> bool:
        saved = self._save()
        if all(self.match(p, e) for p, e in zip(patterns, exprs, strict=True)):
            return True
        self._restore(saved)
        return False

    def _function(self, p: FunctionPattern, expr: Expr | Op) -> bool:
        if not isinstance(expr, Function):
            return False
        if p.params is not None and len(p.params) != len(expr.params):
            return False
        patterns = [*(p.params or []), p.body]
        if not self._all(patterns, [*(expr.params if p.params is not None else []), expr.body]):
            return False
        for node in post_order(expr.body):
            self.fuzzy[id(node)] = node
        for param in expr.params:
            self.fuzzy[id(param)] = param
        return True

    def _matches_path(self, p: DominatorPattern, expr: Expr) -> bool:
        """Whether every input of `expr` is the parent, or matches `path` and (recursively)
        leads to the parent; as TVM, the path is matched afresh at each node."""
        for node in _children(expr):
            if self.match(p.parent, node):
                self.fuzzy[id(node)] = node
                continue
            if not Matcher(self.root).match(p.path, node) or not self._matches_path(p, node):
                return False
            self.fuzzy[id(node)] = node
        return True

    def _dominates_parent(self, p: DominatorPattern, expr: Expr) -> bool:
        """Whether a node matching `parent` is post-dominated by `expr`."""
        ipdom = self._post_dominators()
        below: dict[int, list[Expr]] = {}
        for node_id, dom in ipdom.items():
            if dom is not None:
                below.setdefault(id(dom), []).append(self._nodes[node_id])
        stack, seen = [expr], {id(expr)}
        while stack:
            for node in below.get(id(stack.pop()), []):
                if id(node) in seen:
                    continue
                seen.add(id(node))
                if self.match(p.parent, node):
                    return True
                stack.append(node)
        return False

    def _post_dominators(self) -> dict[int, Expr | None]:
        """Each node's immediate post-dominator in the graph of `root` (TVM's
        `dominator_parent_`: the least common ancestor of its users)."""
        if self._ipdom is not None:
            return self._ipdom
        assert self.root is not None
        order = _topological(self.root)
        self._nodes = {id(n): n for n in order}
        users = _users(order)
        ipdom: dict[int, Expr | None] = {}
        depth: dict[int, int] = {}
        for node in reversed(order):
            dom: Expr | None = None
            for i, user in enumerate(users.get(id(node), [])):
                dom = user if i == 0 else _lca(dom, user, ipdom, depth)
            ipdom[id(node)] = dom
            depth[id(node)] = 0 if dom is None else depth[id(dom)] + 1
        self._ipdom = ipdom
        return ipdom

    def _call(self, p: CallPattern, expr: Expr | Op) -> bool:
        if not isinstance(expr, Call):
            return False
        if not self.match(p.op, expr.op):
            return self._associated(p, expr)
        if p.args is None:
            return True
        if len(p.args) == 1 and isinstance(p.args[0], TuplePattern) and isinstance(expr.op, Op):
            # a variadic op (concatenate) takes its tuple's fields as its arguments
            if len(expr.args) != 1 or not isinstance(expr.args[0], Tuple):
                return self.match(p.args[0], Tuple(expr.args))
        if len(p.args) != len(expr.args):
            return False
        if self._all(p.args, expr.args):
            return True
        if isinstance(expr.op, Op) and expr.op.name in COMMUTATIVE and len(p.args) == 2:
            return self._all(p.args, expr.args[::-1])
        return False

    def _associated(self, p: CallPattern, expr: Call) -> bool:
        """TVM's reassociation: `(a * b) / c` matches `a * (b / c)` (either factor), and
        `(a / b) * c` matches `(a * c) / b`."""
        name = _pattern_op(p)
        if p.args is None or len(p.args) != 2 or not isinstance(expr.op, Op):
            return False
        inner = [
            a if isinstance(a, CallPattern) and a.args and len(a.args) == 2 else None
            for a in p.args
        ]
        args_ops = [
            a.op.name if isinstance(a, Call) and isinstance(a.op, Op) else "" for a in expr.args
        ]
        first = inner[0]
        if name == "divide" and first is not None and _pattern_op(first) == "multiply":
            if expr.op.name == "multiply" and "divide" in args_ops:
                assert first.args is not None
                for i in range(2):
                    div = CallPattern(p.op, [first.args[i], p.args[1]])
                    mul = CallPattern(first.op, [first.args[1 - i], div])
                    saved = self._save()
                    if self.match(mul, expr):
                        return True
                    self._restore(saved)
            return False
        if name == "multiply":
            for i, arg in enumerate(inner):
                if arg is None or _pattern_op(arg) != "divide":
                    continue
                if expr.op.name == "divide" and "multiply" in args_ops:
                    assert arg.args is not None
                    mul = CallPattern(p.op, [arg.args[0], p.args[1 - i]])
                    return self.match(CallPattern(arg.op, [mul, arg.args[1]]), expr)
        return False


def _pattern_op(p: CallPattern) -> str:
    """The name of the operator a call pattern calls, if it is one."""
    if isinstance(p.op, ExprPattern) and isinstance(p.op.expr, Op):
        return p.op.expr.name
    return ""


def _lca(
    a: Expr | None, b: Expr | None, ipdom: Mapping[int, Expr | None], depth: Mapping[int, int]
) -> Expr | None:
    while a is not None and b is not None and a is not b:
        if depth[id(a)] >= depth[id(b)]:
            a = ipdom[id(a)]
        else:
            b = ipdom[id(b)]
    return a if a is b else None


def match(pattern: DFPattern, expr: Expr) -> bool:
    """Whether `expr` is an instance of `pattern`."""
    return Matcher(expr).match(pattern, expr)


# ---------------------------------------------------------------------------------------------
# Graph helpers


def _children(expr: Expr | Op) -> list[Expr]:
    if isinstance(expr, Function):
        return []  # a function is a unit: patterns do not look inside
    if isinstance(expr, Call):
        return list(expr.args)
    if isinstance(expr, Expr):
        return list(expr.children())
    return []


def _topological(root: Expr) -> list[Expr]:
    return post_order(root, _children)  # type: ignore[arg-type]


def _pattern_order(pattern: DFPattern) -> list[DFPattern]:
    order: list[DFPattern] = []
    seen: set[int] = set()

    def visit(p: DFPattern) -> None:
        if id(p) in seen:
            return
        seen.add(id(p))
        for c in p.children():
            visit(c)
        order.append(p)

    visit(pattern)
    return order


def _embed_const(expr: Expr | Op, p: DFPattern) -> bool:
    if not isinstance(expr, Constant):
        return False
    if isinstance(p, ConstantPattern):
        return True
    if isinstance(p, ExprPattern):
        return isinstance(p.expr, Constant)
    return isinstance(p, AltPattern) and isinstance(p.right, ConstantPattern)


class _Group:
    def __init__(self, root: Expr, function: Function, args: list[Expr], nodes: set[int]) -> None:
        self.root = root
        self.function = function
        self.args = args
        self.nodes = nodes


class _Substitute(ExprMutator):
    def __init__(self, mapping: Mapping[int, Expr]) -> None:
        super().__init__()
        self.mapping = mapping

    def visit(self, expr: Any) -> Any:
        if isinstance(expr, Expr) and id(expr) in self.mapping:
            return self.mapping[id(expr)]
        return super().visit(expr)


def _name_of(root: Expr, inputs: Mapping[int, Var]) -> str:
    """TVM's `PartitionedFromPattern`: the matched expression's nodes in post-order (inside
    called functions too), each named as TVM's MatchExtractor names it and followed by `_`."""

    def children(e: Expr | Op) -> Sequence[Expr | Op]:
        if id(e) in inputs:
            return []
        if isinstance(e, Call):
            return [e.op, *e.args]
        if isinstance(e, Function):
            return [e.body]
        return list(e.children()) if isinstance(e, Expr) else []

    parts = []
    for e in post_order(root, children):  # type: ignore[arg-type]
        if id(e) in inputs:
            continue
        if isinstance(e, Call) and isinstance(e.op, Op):
            variadic = e.op.op_class is not None and e.op.op_class.VARIADIC
            # a variadic op's tensors are TVM's tuple, named before the call as TVM visits it
            parts.append(("Tuple_" if variadic else "") + e.op.name + "_")
        elif isinstance(e, Call):
            parts.append("Call_")
        elif isinstance(e, Function):
            parts.append("Function")
        elif isinstance(e, Tuple):
            parts.append("Tuple_")
        elif isinstance(e, TupleGetItem):
            parts.append(f"TupleGetItem{e.index}_")
        elif isinstance(e, Let):
            parts.append("Let_")
        elif isinstance(e, If):
            parts.append("If_")
    return "".join(parts)


def _users(order: list[Expr]) -> dict[int, list[Expr]]:
    users: dict[int, list[Expr]] = {}
    for node in order:
        for child in _children(node):
            users.setdefault(id(child), []).append(node)
    return users


def _group_matches(
    pattern: DFPattern,
    expr: Expr,
    attrs: Mapping[str, object],
    check: Callable[[Expr], bool],
) -> list[_Group]:
    order = _topological(expr)
    users = _users(order)
    nodes_by_id = {id(n): n for n in order}
    taken: set[int] = set()
    groups: list[_Group] = []
    for node in reversed(order):
        if isinstance(node, Var | Constant) or id(node) in taken:
            continue
        matcher = Matcher(expr)
        if not matcher.match(pattern, node):
            continue
        memo = matcher.memo
        inputs: dict[int, Var] = {}
        args: list[Expr] = []
        params: list[Var] = []
        n = 0
        for p in _pattern_order(pattern):
            if id(p) not in memo:
                continue
            for matched in _inputs_of(p, memo[id(p)][1]):
                if (
                    isinstance(matched, Op | Function)
                    or _embed_const(matched, p)
                    or id(matched) in matcher.fuzzy
                    or id(matched) in inputs
                ):
                    continue
                v = Var(f"FunctionVar_{len(groups)}_{n}")
                n += 1
                inputs[id(matched)] = v
                args.append(matched)
                params.append(v)
        # the matched nodes between the root and the inputs
        inner: set[int] = set()
        stack = [node]
        while stack:
            e = stack.pop()
            if id(e) in inputs or id(e) in inner:
                continue
            inner.add(id(e))
            stack.extend(_children(e))
        # an embedded constant may be shared: it is copied into each function that uses it
        inner -= {i for i in inner if isinstance(nodes_by_id.get(i), Constant)}
        if inner & taken:
            continue
        escapes = any(
            any(id(u) not in inner for u in users.get(i, [])) for i in inner if i != id(node)
        )
        if escapes or not check(node):
            continue
        body = _Substitute(inputs).visit(node)
        fn_attrs = {"PartitionedFromPattern": _name_of(node, inputs), **dict(attrs)}
        fn = Function(params, body, attrs=fn_attrs)
        groups.append(_Group(node, fn, args, inner))
        taken |= inner
    return groups


def _inputs_of(p: DFPattern, matched: Expr) -> Sequence[Expr]:
    """What a pattern node's match gives the partitioned function as parameters: a leaf's
    match, or, as TVM, every field of a tuple (every argument of a call) that a pattern with
    any fields (arguments) matched."""
    if isinstance(p, TuplePattern) and p.fields is None and isinstance(matched, Tuple):
        return matched.fields
    if isinstance(p, CallPattern) and p.args is None and isinstance(matched, Call):
        return matched.args
    return () if p.children() else (matched,)


class _Partitioner(ExprMutator):
    def __init__(self, groups: list[_Group]) -> None:
        super().__init__()
        self.groups = {id(g.root): g for g in groups}

    def visit(self, expr: Any) -> Any:
        if isinstance(expr, Expr) and id(expr) in self.groups:
            group = self.groups[id(expr)]
            return Call(group.function, [self.visit(a) for a in group.args])
        return super().visit(expr)


def partition(
    pattern: DFPattern,
    expr: Expr,
    attrs: Mapping[str, object] | None = None,
    check: Callable[[Expr], bool] = lambda _e: True,
) -> Expr:
    """`expr` with each instance of `pattern` (for which `check` holds) replaced by a call of
    a function holding it, with `attrs` and `PartitionedFromPattern` set. Its parameters are
    untyped, as TVM's: type inference gives them their arguments' types."""
    if isinstance(expr, Function):
        return Function(
            expr.params,
            partition(pattern, expr.body, attrs, check),
            expr.ret_type,
            attrs=expr.attrs,
        )
    groups = _group_matches(pattern, expr, attrs or {}, check)
    if not groups:
        return expr
    return _Partitioner(groups).visit(expr)


# ---------------------------------------------------------------------------------------------
# Rewriting


class DFPatternCallback:
    """A callback `callback(pre, post, node_map)` run where `pattern` matches, by `rewrite`."""

    def __init__(self, require_type: bool = False, rewrite_once: bool = False) -> None:
        self.require_type = require_type
        self.rewrite_once = rewrite_once
        self.pattern: DFPattern | None = None

    def callback(self, pre: Expr, post: Expr, node_map: Mapping[DFPattern, list[Expr]]) -> Expr:
        raise NotImplementedError

    def rewrite(self, expr: Expr) -> Expr:
        return rewrite(self, expr)


class _NodeMap(dict):  # type: ignore[type-arg]
    """Pattern node -> the expressions it matched; keyed by pattern identity."""

    def __getitem__(self, key: DFPattern) -> list[Expr]:
        return super().__getitem__(id(key))  # type: ignore[no-any-return]

    def __contains__(self, key: object) -> bool:
        return super().__contains__(id(key))


class _Rewriter(ExprMutator):
    """One round of a callback, as TVM's: its pattern is matched on the graph as it was at the
    start of the round (`root`: a dominator's users are all of its users), and the callback
    gets what each pattern node matched as rewritten so far; a rewritten node replaces the
    original at every use."""

    def __init__(self, callback: DFPatternCallback, root: Expr) -> None:
        super().__init__()
        self.cb = callback
        self.matcher = Matcher(root)

    def visit(self, expr: Any) -> Any:
        key = id(expr)
        if key in self.memo_map:
            return self.memo_map[key][1]
        post = super().visit(expr)
        result = post
        if isinstance(expr, Expr) and not isinstance(expr, Op) and self.cb.pattern is not None:
            self.matcher.memo, self.matcher.fuzzy = {}, {}
            if self.matcher.match(self.cb.pattern, expr):
                node_map = _NodeMap(
                    {k: [self._rewritten(v[1])] for k, v in self.matcher.memo.items()}
                )
                result = self.cb.callback(expr, post, node_map)
        self.memo_map[key] = (expr, result)
        return result

    def _rewritten(self, node: Any) -> Any:
        seen = self.memo_map.get(id(node))
        return node if seen is None else seen[1]


def rewrite(callbacks: DFPatternCallback | Sequence[DFPatternCallback], expr: Expr) -> Expr:
    """Apply the callbacks in turn where their patterns match, repeating the round until
    nothing changes (or once, when the last callback has `rewrite_once`), as TVM: a rewrite by
    a later callback may make an earlier one's pattern match."""
    cbs = [callbacks] if isinstance(callbacks, DFPatternCallback) else list(callbacks)
    for _ in range(100):
        last = expr
        for cb in cbs:
            expr = _Rewriter(cb, expr).visit(expr)
        if expr is last or not cbs or cbs[-1].rewrite_once:
            break
    return expr


__all__ = [
    "AltPattern",
    "AttrPattern",
    "CallPattern",
    "ConstantPattern",
    "DFPattern",
    "DFPatternCallback",
    "DataTypePattern",
    "DominatorPattern",
    "ExprPattern",
    "FunctionPattern",
    "IfPattern",
    "LetPattern",
    "ShapePattern",
    "TupleGetItemPattern",
    "TuplePattern",
    "TypePattern",
    "VarPattern",
    "WildcardPattern",
    "dominates",
    "has_attr",
    "has_dtype",
    "has_shape",
    "has_type",
    "is_constant",
    "is_expr",
    "is_if",
    "is_let",
    "is_op",
    "is_tuple",
    "is_tuple_get_item",
    "is_var",
    "match",
    "partition",
    "rewrite",
    "wildcard",
]
