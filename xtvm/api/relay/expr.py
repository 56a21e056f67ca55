"""Relay expressions as TVM's Python API builds them: `Var`, `Constant`, `Call`, `Tuple`,
`TupleGetItem`, `Let`, `GlobalVar`, `Function`.

Expressions are immutable Python objects forming a DAG: a node used twice is one object, as in
TVM's graph form. They are a view for building and inspecting programs; passes run on the xDSL
relay dialect, and `xtvm.api.relay.convert` translates both ways. A `Call` of a relay op keeps
its attributes as the op's xDSL properties, so nothing is lost either way, and its result type
is inferred by the op's own `infer_result_types`, the same code the dialect's verifier runs.

One node is xtvm's own: `ParamRef`, a weight by reference (`relay.param["w"]`), whose value
comes from the params table at build or run time.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX, FunctionType, ModuleOp
from xdsl.dialects.builtin import TensorType as XTensorType
from xdsl.dialects.builtin import TupleType as XTupleType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from xtvm.api.relay import op_attrs
from xtvm.api.relay.ty import (
    FuncType,
    IncompleteType,
    TensorType,
    TupleType,
    Type,
    dtype_name,
    from_xdsl,
)
from xtvm.dialects import relay as dialect
from xtvm.dialects.relay_attrs import Attrs
from xtvm.ir import traversal
from xtvm.ir.errors import TVMError
from xtvm.runtime import ndarray as nd


class RelayTypeError(ValueError):
    """An expression is ill-typed: an op rejects its arguments, or a variable has no type."""


class OpTypeError(RelayTypeError, TVMError):
    """An operator's type relation rejected a call (a built-in op's or one registered from
    Python): a TVMError, as TVM's type checker raises."""


def broadcast_type(name: str, args: Sequence[Type]) -> TensorType:
    """numpy's broadcast of two tensor types, as TVM's "Broadcast" relation."""
    if len(args) != 2 or not all(isinstance(a, TensorType) and a.is_static for a in args):
        raise OpTypeError(f"{name}: Broadcast relates two tensors of static shape, got {args}")
    a, b = args
    assert isinstance(a, TensorType) and isinstance(b, TensorType)
    if a.dtype != b.dtype:
        raise OpTypeError(f"{name}: operand dtypes differ: {a.dtype} vs {b.dtype}")
    try:
        shape = np.broadcast_shapes(a.concrete_shape, b.concrete_shape)
    except ValueError:
        raise OpTypeError(f"{name}: shapes {a.shape} and {b.shape} do not broadcast") from None
    return TensorType(shape, a.dtype)


# ---------------------------------------------------------------------------------------------
# Operators and attributes


# TVM's operators that xtvm computes as expressions of others (`composed` decorates their
# builders): operators by name, as TVM's, but with no relay dialect op of their own.
COMPOSED_OPS: set[str] = set()

COMPILER_BEGIN = "annotation.compiler_begin"
COMPILER_END = "annotation.compiler_end"


# ---------------------------------------------------------------------------------------------
# Expressions


# What expressions do through modules that import this one: Python's operators build calls of
# the `relay.op` builders (xtvm/api/relay/op/tensor.py registers "add", "cast", ...), and
# `astext` and `xdsl_module` go through xtvm/api/ir_module.py (it registers "text", "module").
# Importing any of this package runs its __init__, which imports both, so they are always set.
HOOKS: dict[str, Callable[..., Any]] = {}


class Expr:
    """A relay expression. Its type, `checked_type`, is inferred on first use."""

    _checked: Type | None = None

    def children(self) -> Sequence[Expr]:
        """The expressions this one reads, whose types its own type depends on."""
        return ()

    def infer(self) -> Type:
        """This node's type, given the types of its children."""
        raise NotImplementedError

    @property
    def checked_type(self) -> Type:
        if self._checked is None:
            HOOKS["infer"](self)  # xtvm/api/relay/type_infer.py
        assert self._checked is not None
        return self._checked

    def astext(self, show_meta_data: bool = True, annotate: object = None) -> str:
        """TVM's Relay text of this expression, ending with the `#[metadata]` section of the
        constants it references unless `show_meta_data` is false (as `str(expr)`)."""
        if annotate is not None:
            raise NotImplementedError("astext: annotate callbacks are not supported")
        return HOOKS["text"](self, show_meta_data)

    def __str__(self) -> str:
        return self.astext(show_meta_data=False)

    def xdsl_module(self) -> ModuleOp:
        """xtvm's IR of this expression: a module whose `@main` is it (a function) or computes
        it from its free variables; what lower layers take where TVM takes an expression."""
        return HOOKS["module"](self)

    # Arithmetic operators build calls, as TVM's ExprWithOp does.
    def _binary(self, name: str, other: object, reverse: bool = False) -> Call:
        rhs = other if isinstance(other, Expr) else const(other, self._scalar_dtype())
        lhs, rhs = (rhs, self) if reverse else (self, rhs)
        return HOOKS[name](lhs, rhs)

    def _scalar_dtype(self) -> str:
        typ = self.checked_type
        return typ.dtype if isinstance(typ, TensorType) else "float32"

    def __add__(self, other: object) -> Call:
        return self._binary("add", other)

    def __radd__(self, other: object) -> Call:
        return self._binary("add", other, reverse=True)

    def __sub__(self, other: object) -> Call:
        return self._binary("subtract", other)

    def __rsub__(self, other: object) -> Call:
        return self._binary("subtract", other, reverse=True)

    def __mul__(self, other: object) -> Call:
        return self._binary("multiply", other)

    def __rmul__(self, other: object) -> Call:
        return self._binary("multiply", other, reverse=True)

    def __truediv__(self, other: object) -> Call:
        return self._binary("divide", other)

    def __rtruediv__(self, other: object) -> Call:
        return self._binary("divide", other, reverse=True)

    def __floordiv__(self, other: object) -> Call:
        return self._binary("floor_divide", other)

    def __mod__(self, other: object) -> Call:
        return self._binary("floor_mod", other)

    def __lt__(self, other: object) -> Call:
        return self._binary("less", other)

    def __le__(self, other: object) -> Call:
        return self._binary("less_equal", other)

    def __gt__(self, other: object) -> Call:
        return self._binary("greater", other)

    def __ge__(self, other: object) -> Call:
        return self._binary("greater_equal", other)

    def __call__(self, *args: object) -> Call:
        """A call of this (function-typed) expression on `args`, as TVM's ExprWithOp."""
        return Call(self, [as_expr(a) for a in args])  # type: ignore[arg-type]

    def astype(self, dtype: str) -> Call:
        """This expression cast to `dtype` (`relay.cast`)."""
        return HOOKS["cast"](self, dtype)

    def __neg__(self) -> Call:
        return HOOKS["negative"](self)

    def __getitem__(self, index: int) -> TupleGetItem:
        """Field `index` of a tuple-typed expression (TVM's TupleWrapper indexing); of one whose
        type is not known yet (`nn.batch_norm` of untyped variables), checked when it is."""
        if index >= 0 and not has_type(self):
            return TupleGetItem(self, index)
        typ = self.checked_type
        if not isinstance(typ, TupleType):
            raise TypeError(f"only tuple-typed expressions can be indexed, this one is {typ}")
        if not -len(typ.fields) <= index < len(typ.fields):
            raise IndexError(f"tuple index {index} out of range for {len(typ.fields)} fields")
        return TupleGetItem(self, index % len(typ.fields))

    def astuple(self) -> Expr:
        return self

    def __bool__(self) -> bool:
        return True  # an expression is a value, not a container: `x or y` must not call len()

    def __len__(self) -> int:
        typ = self.checked_type
        if not isinstance(typ, TupleType):
            raise TypeError(f"len() of a non-tuple expression of type {typ}")
        return len(typ.fields)

    def __iter__(self) -> Iterator[TupleGetItem]:
        return (self[i] for i in range(len(self)))


class Op(Expr):
    """A relay operator, named as in TVM (`nn.conv2d`); `op_class` is its xDSL op. It is an
    expression, as TVM's (a tuple may hold one), but has no type of its own."""

    _registry: dict[str, Op] = {}

    def __init__(self, name: str, op_class: type[dialect.RelayOp] | None) -> None:
        self.name = name
        self.op_class = op_class
        # An operator registered from Python (`relay.op.op.register`): its type relation,
        # "Identity", "Broadcast" or a function of (argument types, attrs); it has no
        # implementation, so it type-checks but neither builds nor runs.
        self.type_rel: str | Callable[..., Any] | None = None
        self.num_inputs = -1
        self.arguments: list[tuple[str, str, str]] = []
        self.support_level = 10
        self.attrs_type_key = ""
        self.description = ""
        # An operator TVM has that xtvm computes as an expression of others (`nn.conv1d` as a
        # conv2d over a height of 1): its calls carry that expression (`Call.lowered`).
        self.composed = False

    @property
    def registered_from_python(self) -> bool:
        special = self.composed or self.name in (COMPILER_BEGIN, COMPILER_END)
        return self.op_class is None and not special

    def set_num_inputs(self, n: int) -> None:
        self.num_inputs = int(n)

    def add_argument(self, name: str, type_key: str, description: str) -> None:
        self.arguments.append((name, type_key, description))

    def add_type_rel(self, name: str, rel: Callable[..., Any] | None = None) -> None:
        """The type relation: "Identity" or "Broadcast" (TVM's), or `rel(arg_types, attrs)`
        returning the result type."""
        if rel is None and name not in ("Identity", "Broadcast"):
            raise ValueError(f"unknown type relation '{name}' (Identity, Broadcast, or a function)")
        self.type_rel = rel if rel is not None else name

    def set_support_level(self, level: int) -> None:
        self.support_level = int(level)

    def set_attrs_type_key(self, key: str) -> None:
        self.attrs_type_key = key

    def relate(self, args: Sequence[Type], attrs: Attrs) -> Type:
        """The result type of a call of this Python-registered operator."""
        if self.num_inputs >= 0 and len(args) != self.num_inputs:
            raise OpTypeError(f"{self.name} takes {self.num_inputs} arguments, got {len(args)}")
        if self.type_rel is None:
            raise OpTypeError(f"operator {self.name} has no type relation (add_type_rel)")
        if self.type_rel == "Identity":
            return args[0]
        if self.type_rel == "Broadcast":
            return broadcast_type(self.name, args)
        assert callable(self.type_rel)
        try:
            result = self.type_rel(list(args), attrs.properties or None)
        except Exception as exc:  # the relation's own check: TVM reports it as a TVMError
            raise OpTypeError(f"type relation of {self.name} failed: {exc}") from None
        if not isinstance(result, Type):
            raise OpTypeError(f"type relation of {self.name} returned {result!r}, not a type")
        return result

    @staticmethod
    def get(name: str) -> Op:
        """The operator named `name`; ValueError for an unknown name."""
        if not Op._registry:
            for op_class in dialect.Relay.operations:
                assert issubclass(op_class, dialect.RelayOp)
                tvm_name = op_class.name.removeprefix("relay.")
                Op._registry[tvm_name] = Op(tvm_name, op_class)
            for annotation in (COMPILER_BEGIN, COMPILER_END):
                Op._registry[annotation] = Op(annotation, None)
        if name in COMPOSED_OPS and name not in Op._registry:
            Op._registry[name] = op = Op(name, None)
            op.composed = True
        op = Op._registry.get(name)
        if op is None:
            raise ValueError(f"unknown relay operator '{name}'")
        return op

    @staticmethod
    def of(op_class: type[Operation]) -> Op:
        return Op.get(op_class.name.removeprefix("relay."))

    def infer(self) -> Type:
        raise RelayTypeError(f"operator {self.name} has no type outside a call")

    def astext(self, show_meta_data: bool = True, annotate: object = None) -> str:
        return f'#[version = "0.0.5"]\n{self.name}'

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Op({self.name})"


class Id:
    """A variable's identity (TVM's `Var.vid`): two occurrences are one variable when their
    ids are the same object."""

    def __init__(self, name_hint: str) -> None:
        self.name_hint = name_hint

    def same_as(self, other: object) -> bool:
        return self is other


class Var(Expr):
    """A variable: a function parameter or a let-bound name."""

    def __init__(self, name_hint: str, type_annotation: Type | None = None) -> None:
        self.name_hint = name_hint
        self.type_annotation = type_annotation
        self.bound_value: Expr | None = None  # set by Let when the var has no annotation
        self.vid = Id(name_hint)

    def children(self) -> Sequence[Expr]:
        return (self.bound_value,) if self.bound_value is not None else ()

    def annotated_unknown(self) -> bool:
        """Whether the annotation is `relay.IncompleteType()`: a type left to inference, as
        when there is none."""
        return isinstance(self.type_annotation, IncompleteType)

    def infer(self) -> Type:
        if self.type_annotation is not None and not self.annotated_unknown():
            return self.type_annotation
        if self.bound_value is not None:
            return self.bound_value.checked_type
        raise RelayTypeError(
            f"variable %{self.name_hint} has no type: give it a shape and dtype "
            f"(relay.var('{self.name_hint}', shape=..., dtype=...))"
        )

    def __repr__(self) -> str:
        return f"Var({self.name_hint})"


class Constant(Expr):
    """A constant tensor; `data` is an NDArray."""

    def __init__(self, data: nd.NDArray | np.ndarray) -> None:
        self.data = data if isinstance(data, nd.NDArray) else nd.array(data)

    def infer(self) -> Type:
        return TensorType(self.data.shape, self.data.dtype)

    def __repr__(self) -> str:
        return f"Constant({self.data.numpy()!r})"


class ParamRef(Expr):
    """A weight by reference: its value is `params[name]` at build or run time."""

    def __init__(self, name: str, type_annotation: TensorType) -> None:
        self.name = name
        self.type_annotation = type_annotation

    def infer(self) -> Type:
        return self.type_annotation

    def __repr__(self) -> str:
        return f"ParamRef({self.name})"


class Tuple(Expr):
    """A tuple of expressions."""

    def __init__(self, fields: Sequence[Expr]) -> None:
        self.fields = [as_expr(f) for f in fields]

    def children(self) -> Sequence[Expr]:
        return self.fields

    def infer(self) -> Type:
        return TupleType(tuple(f.checked_type for f in self.fields))

    def __len__(self) -> int:
        return len(self.fields)

    def __getitem__(self, index: int) -> Expr:  # type: ignore[override]
        return self.fields[index]


class TupleGetItem(Expr):
    """Field `index` of a tuple."""

    def __init__(self, tuple_value: Expr, index: int) -> None:
        self.tuple_value = tuple_value
        self.index = index

    def children(self) -> Sequence[Expr]:
        return (self.tuple_value,)

    def infer(self) -> Type:
        typ = self.tuple_value.checked_type
        if not isinstance(typ, TupleType) or not 0 <= self.index < len(typ.fields):
            raise RelayTypeError(f"TupleGetItem: no field {self.index} in {typ}")
        return typ.fields[self.index]


class TupleWrapper:
    """TVM's `relay.expr.TupleWrapper`: a tuple-typed expression with its field count, which
    indexes, iterates and prints as the tuple does (xtvm's builders return the expression
    itself, which does all that; this wraps one where a script builds it by hand)."""

    def __init__(self, tuple_value: Expr, size: int) -> None:
        self.tuple_value = tuple_value
        self.size = size

    def astuple(self) -> Expr:
        return self.tuple_value

    def astext(self) -> str:
        return self.tuple_value.astext()  # type: ignore[attr-defined]

    def __getitem__(self, index: int) -> TupleGetItem:
        if not -self.size <= index < self.size:
            raise IndexError(f"tuple index {index} out of range for {self.size} fields")
        return TupleGetItem(self.tuple_value, index % self.size)

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[TupleGetItem]:
        return (self[k] for k in range(self.size))


class Call(Expr):
    """A call of an operator (`Op`), a global function (`GlobalVar`) or a `Function`.

    For an operator call, `attrs` are the op's properties and `args` its operands in order
    (a variadic op such as `concatenate` takes its tensors as separate arguments).
    `annotations` carries the discardable attributes of the xDSL op (e.g. the `compiler` a
    BYOC pass gave it) so that a round trip through expressions keeps them.
    """

    def __init__(
        self,
        op: Op | GlobalVar | Function,
        args: Sequence[Expr],
        attrs: Attrs | Mapping[str, Attribute] | None = None,
        type_args: Sequence[Type] | None = None,
        span: object = None,
        annotations: Mapping[str, Attribute] | None = None,
    ) -> None:
        self.op = op
        self.args = [as_expr(a) for a in args]
        self._attrs = attrs if isinstance(attrs, Attrs) else Attrs(attrs)
        self._type_args = list(type_args or [])
        self.span = span
        self.annotations = dict(annotations or {})
        # An operator call on operands whose types are not known yet (an untyped variable, a
        # call of a global function not yet in a module): its attributes and type are made on
        # first use, as TVM's InferType does later (`make_call` sets this).
        self._pending: PendingCall | None = None
        self.kwargs: dict[str, Any] | None = None  # the builder's arguments, when one made it
        # TVM's attribute node of the call, as its builder made it (xtvm/api/relay/op_attrs.py)
        self.tvm_attrs: dict[str, Any] | None = None
        # For a call of a composed op (`Op.composed`): the expression of its arguments that
        # computes it, and how to make the call again on other arguments (`composed_call`).
        self.lowered: Expr | None = None
        self.remake: Callable[[Sequence[Expr]], Call] | None = None
        callee = getattr(op, "type_annotation", None) if isinstance(op, GlobalVar) else None
        if (
            isinstance(callee, FuncType)
            and not callee.type_params  # a polymorphic callee's types are solved by inference
            and len(callee.arg_types) == len(self.args)
        ):
            for arg, typ in zip(self.args, callee.arg_types, strict=True):
                infer_untyped(arg, typ)  # an untyped argument takes its parameter's type

    @property
    def type_args(self) -> list[Type]:
        """The types a polymorphic callee was instantiated at; an operator call's are its
        operands' types, as TVM's InferType records them."""
        if self._type_args or not isinstance(self.op, Op) or not all(map(has_type, self.args)):
            return self._type_args
        return [a.checked_type for a in self.args]

    @type_args.setter
    def type_args(self, value: Sequence[Type]) -> None:
        self._type_args = list(value)

    @property
    def attrs(self) -> Attrs:
        """The op's attributes; while its operands' types are unknown (so the op's own
        attributes cannot be made yet), the arguments its builder was given."""
        if isinstance(self.lowered, Call) and self.lowered.op is self.op:
            return self.lowered.attrs  # an op's call on its operands as given (cast in lowered)
        if self.lowered is not None:
            return GivenAttrs(self.tvm_attrs or {})
        if self._pending is not None:
            try:
                self.checked_type  # noqa: B018  (builds the attributes)
            except RelayTypeError:
                if self.kwargs is None:
                    raise
                return GivenAttrs(self.kwargs)
        return self._attrs

    @attrs.setter
    def attrs(self, value: Attrs) -> None:
        self._attrs = value

    def children(self) -> Sequence[Expr]:
        return [*self.args, self.op] if isinstance(self.op, Function) else self.args

    def infer(self) -> Type:
        if self.lowered is not None:
            return self.lowered.checked_type
        if self._pending is not None:
            attrs, typ = self._pending.resolve()
            self._attrs, self._pending = attrs, None
            return typ
        if isinstance(self.op, Op):
            if self.op.registered_from_python:
                return self.op.relate([a.checked_type for a in self.args], self._attrs)
            if self.op.op_class is None:  # compiler_begin / compiler_end are the identity
                return self.args[0].checked_type
            types = [a.checked_type.to_xdsl() for a in self.args]
            try:
                results = self.op.op_class.infer_result_types(types, self.attrs.properties)
            except VerifyException as exc:
                raise OpTypeError(str(exc)) from None
            return from_xdsl(results[0])
        callee = self.op.checked_type
        if not isinstance(callee, FuncType):
            raise RelayTypeError(f"call of a non-function of type {callee}")
        given = [a.checked_type for a in self.args]
        if list(callee.arg_types) != given:
            raise RelayTypeError(
                f"call of {self.op!r}: argument types ({', '.join(map(str, given))}) differ "
                f"from the parameter types ({', '.join(map(str, callee.arg_types))})"
            )
        return callee.ret_type

    def __repr__(self) -> str:
        return f"Call({self.op!r}, {len(self.args)} args)"


class Let(Expr):
    """`let var = value; body`."""

    def __init__(self, var: Var, value: Expr, body: Expr) -> None:
        self.var = var
        self.value = as_expr(value)
        self.body = as_expr(body)
        if var.type_annotation is None:
            var.bound_value = self.value

    def children(self) -> Sequence[Expr]:
        return (self.value, self.var, self.body)

    def infer(self) -> Type:
        return self.body.checked_type


class If(Expr):
    """`if (cond) { true_branch } else { false_branch }` on a scalar bool `cond`.

    Relay is pure, so xtvm lowers it to a select (`relay.where`) of the two branches, which
    `relay.build` computes both of (same values). A recursion ended by an `If` runs on
    `create_executor` (the interpreter runs only the branch taken); relay.build refuses it
    with a TVMError, as TVM's graph executor has no control flow.
    """

    def __init__(self, cond: Expr, true_branch: Expr, false_branch: Expr) -> None:
        self.cond = as_expr(cond)
        self.true_branch = as_expr(true_branch)
        self.false_branch = as_expr(false_branch)

    def children(self) -> Sequence[Expr]:
        return (self.cond, self.true_branch, self.false_branch)

    def infer(self) -> Type:
        cond = self.cond.checked_type
        if not (isinstance(cond, TensorType) and cond.shape == () and cond.dtype == "bool"):
            raise RelayTypeError(f"If: the condition must be a bool scalar, got {cond}")
        then, other = self.true_branch.checked_type, self.false_branch.checked_type
        if then != other:
            raise RelayTypeError(f"If: the branches' types differ: {then} vs {other}")
        return then


class GlobalVar(Expr):
    """The name of a module-level function; equal to any GlobalVar of the same name."""

    def __init__(self, name_hint: str, type_annotation: FuncType | None = None) -> None:
        self.name_hint = name_hint
        self.type_annotation = type_annotation

    def infer(self) -> Type:
        if self.type_annotation is None:
            raise RelayTypeError(f"the type of @{self.name_hint} is unknown outside its module")
        return self.type_annotation

    def __call__(self, *args: object) -> Call:
        """A call of this global function on `args`."""
        return Call(self, [as_expr(a) for a in args])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GlobalVar) and other.name_hint == self.name_hint

    def __hash__(self) -> int:
        return hash(("GlobalVar", self.name_hint))

    def astext(self) -> str:
        return f"@{self.name_hint}"

    def __repr__(self) -> str:
        return f"GlobalVar({self.name_hint})"


class Function(Expr):
    """A function of `params` computing `body`; `attrs` use TVM's keys (`Compiler`,
    `Primitive`, `global_symbol`)."""

    def __init__(
        self,
        params: Sequence[Var],
        body: Expr,
        ret_type: Type | None = None,
        type_params: Sequence[object] | None = None,
        attrs: Mapping[str, object] | None = None,
    ) -> None:
        self.params = list(params)
        self.body = as_expr(body)
        self.ret_type = ret_type
        self.type_params = list(type_params or [])
        self.attrs = dict(attrs or {})

    def children(self) -> Sequence[Expr]:
        return (*self.params, self.body)

    def infer(self) -> Type:
        ret = self.body.checked_type
        if self.ret_type is not None and self.ret_type != ret:
            raise RelayTypeError(f"function body has type {ret}, declared {self.ret_type}")
        return FuncType([p.checked_type for p in self.params], ret)

    def __call__(self, *args: object) -> Call:
        """A call of this function on `args`, as TVM's `Function.__call__`."""
        return Call(self, [as_expr(a) for a in args])

    def with_attr(self, key: str | Mapping[str, object], value: object = None) -> Function:
        """A copy with attribute `key` set (or every key of a mapping)."""
        extra = dict(key) if isinstance(key, Mapping) else {key: value}
        return Function(self.params, self.body, self.ret_type, self.type_params, self.attrs | extra)

    def __repr__(self) -> str:
        return f"Function({len(self.params)} params)"


# ---------------------------------------------------------------------------------------------
# Traversal and construction


def post_order(root: Expr, children: Callable[[Expr], Sequence[Expr]] | None = None) -> list[Expr]:
    """Every node reachable from `root`, each once, children before parents (no recursion)."""
    return traversal.post_order([root], children or (lambda e: e.children()))


def infer_untyped(expr: Expr, typ: Type) -> None:
    """Give `typ` to `expr` if it is a variable without a type, as TVM's InferType solves an
    untyped operand (a conv2d weight from `channels` and `kernel_size`, ...)."""
    untyped = isinstance(expr, Var) and (expr.type_annotation is None or expr.annotated_unknown())
    if untyped and expr.bound_value is None:  # type: ignore[union-attr]
        if expr._checked is None:
            expr._checked = typ


def has_type(expr: Expr) -> bool:
    """Whether the type of `expr` is known (an untyped variable's is not)."""
    try:
        expr.checked_type  # noqa: B018  (inference is the test)
    except RelayTypeError:
        return False
    return True


def as_expr(value: object) -> Expr:
    """`value` as an expression: expressions as they are, numbers and arrays as constants."""
    if isinstance(value, Expr):
        return value
    if isinstance(value, list | tuple) and value and all(isinstance(v, Expr) for v in value):
        return Tuple(value)
    if isinstance(value, int | float | bool | np.ndarray | np.generic | nd.NDArray | list):
        return const(value)
    raise TypeError(f"cannot use {type(value).__name__} as a relay expression")


def var(
    name_hint: str,
    type_annotation: Type | str | None = None,
    shape: Sequence[int] | None = None,
    dtype: str = "float32",
) -> Var:
    """A variable; `relay.var("x", shape=(1, 3), dtype="float32")` or with a type.

    A dtype string as second argument is a scalar of that dtype, as in TVM.
    """
    if isinstance(type_annotation, str):
        type_annotation = TensorType(shape or (), type_annotation)
    elif type_annotation is None and shape is not None:
        type_annotation = TensorType(shape, dtype)
    return Var(name_hint, type_annotation)


def const(value: object, dtype: str | None = None) -> Constant:
    """A constant. Without `dtype`, as in TVM: Python and numpy floats of 64 bits become
    float32 and 64-bit integers int32; a `tvm.nd` array keeps its dtype."""
    if isinstance(dtype, TensorType):  # `relay.const(0, relay.scalar_type("int32"))`
        dtype = dtype.dtype
    if isinstance(value, nd.NDArray):
        array = value.numpy()
        return Constant(array if dtype is None else array.astype(dtype_name(dtype)))
    if dtype is None and isinstance(value, bool):
        dtype = "bool"
    array = np.array(value, dtype=None if dtype is None else dtype_name(dtype))
    if dtype is None:
        narrowed = {np.dtype("int64"): np.int32, np.dtype("float64"): np.float32}
        array = array.astype(narrowed.get(array.dtype, array.dtype))
    return Constant(array)


def make_call(op_class: type[dialect.RelayOp], *args: Expr | Sequence[Expr], **kwargs: Any) -> Call:
    """A call of `op_class` on `args`, attributes converted by the op's own builder.

    The builder runs on placeholder values of the argument types, so it validates the
    attributes and infers the result type at once: an ill-typed call fails here, naming the op.
    When an operand's type is not known yet, that happens on the call's first use instead.
    """
    flat: list[Expr] = []
    for arg in args:
        flat.extend([as_expr(a) for a in arg] if isinstance(arg, list | tuple) else [as_expr(arg)])
    call = Call(Op.of(op_class), flat)
    call.kwargs = dict(kwargs)
    if not all(has_type(a) for a in flat):

        def resolve() -> tuple[Attrs, Type]:
            properties, typ = build_call(op_class, args, kwargs)
            return Attrs(properties), typ

        call._pending = PendingCall(
            resolve, lambda operands: make_call(op_class, *regroup(args, operands), **kwargs)
        )
        return call
    try:
        properties, call._checked = build_call(op_class, args, kwargs)
    except RelayTypeError as exc:  # reported when the call is type-checked, as TVM's InferType
        call._pending = PendingCall(
            failed(exc), lambda operands: make_call(op_class, *regroup(args, operands), **kwargs)
        )
        return call
    call.attrs = Attrs(properties)
    return call


def failed(error: RelayTypeError) -> Callable[[], tuple[Attrs, Type]]:
    """The `resolve` of an ill-typed call: it raises `error` each time the call is typed."""

    def resolve() -> tuple[Attrs, Type]:
        raise error.with_traceback(None)

    return resolve


class GivenAttrs(Attrs):
    """The attributes of a call whose op's own are not made yet: its builder's arguments, read
    by key or by name as `Attrs` are."""

    def __init__(self, given: Mapping[str, Any]) -> None:
        super().__init__()
        self._given = dict(given)

    @property
    def properties(self) -> dict[str, Attribute]:
        raise RelayTypeError("the call's attributes are made once its operands' types are known")

    def __getitem__(self, key: str) -> Any:
        return self._given[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._given)

    def __len__(self) -> int:
        return len(self._given)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GivenAttrs) and self._given == other._given

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._given)))

    def __repr__(self) -> str:
        return repr(self._given)


class PendingCall:
    """How a call made before its operands' types were known gets its attributes and type
    (`resolve`, once they are) and is made again on other operands (`remake`, by a mutator)."""

    def __init__(
        self,
        resolve: Callable[[], tuple[Attrs, Type]],
        remake: Callable[[Sequence[Expr]], Call],
    ) -> None:
        self.resolve = resolve
        self.remake = remake


def regroup(structured: Sequence[Any], flat: Sequence[Expr]) -> list[Any]:
    """`flat` in the shape of `structured` (expressions and lists of them)."""
    grouped: list[Any] = []
    position = 0
    for arg in structured:
        if isinstance(arg, list | tuple):
            grouped.append(list(flat[position : position + len(arg)]))
            position += len(arg)
        else:
            grouped.append(flat[position])
            position += 1
    return grouped


def deferred_until_typed(
    op_class: type[dialect.RelayOp],
) -> Callable[[Callable[..., Call]], Callable[..., Call]]:
    """Decorate the builder of a call of `op_class` whose checks read its operands' types
    (conv2d's weight layout, dense's `units`): on operands whose types are not known yet (an
    untyped `relay.var`), it makes the call now and runs the builder once they are, as TVM
    builds a call untyped and type-checks it in InferType. Its attributes are meanwhile the
    builder's arguments (`Call.kwargs`, defaults included)."""

    def decorate(builder: Callable[..., Call]) -> Callable[..., Call]:
        signature = inspect.signature(builder)

        @functools.wraps(builder)
        def build(*args: Any, **kwargs: Any) -> Call:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            names = [k for k, v in bound.arguments.items() if isinstance(v, Expr)]
            operands = [bound.arguments[k] for k in names]

            def remake(new: Sequence[Expr]) -> Call:
                given = bound.arguments | dict(zip(names, new, strict=True))
                return build(**given)

            try:
                built = kept_operands(builder(*args, **kwargs), operands, remake)
                if isinstance(built, Call) and built.lowered is not None and built.remake is None:
                    built.remake = remake
                return built
            except RelayTypeError:  # reported when the call is type-checked, as by InferType
                pass
            except ValueError:
                if all(has_type(o) for o in operands):
                    raise
            call = Call(Op.of(op_class), operands)
            call.kwargs = {k: v for k, v in bound.arguments.items() if k not in names}

            def resolve() -> tuple[Attrs, Type]:
                try:
                    built = builder(*bound.args, **bound.kwargs)
                except RelayTypeError:
                    raise
                except ValueError as exc:  # ill-typed operands, found once they are typed
                    raise OpTypeError(f"{op_class.name}: {exc}") from None
                if not isinstance(built, Call) or built.op is not call.op:
                    raise RelayTypeError(f"the builder of {op_class.name} made {built!r}")
                if kept_operands(built, operands, remake) is not built:
                    call.lowered, call.remake = built, remake  # on operands it cast, ...
                elif built.lowered is not None:  # on operands it transposed, ...
                    call.lowered, call.remake = built.lowered, remake
                return built.attrs, built.checked_type

            call._pending = PendingCall(resolve, remake)
            return call

        return build

    return decorate


def kept_operands(
    built: Call, operands: Sequence[Expr], remake: Callable[[Sequence[Expr]], Call]
) -> Call:
    """`built`, or, where its builder changed the operands it was given (cast them to a
    product op's `out_dtype`), a call of its op on those operands, as TVM's call keeps them,
    that runs as `built` (`Call.lowered`)."""
    if not isinstance(built, Call) or not isinstance(built.op, Op) or built.lowered is not None:
        return built
    if len(built.args) != len(operands) or all(
        a is b for a, b in zip(built.args, operands, strict=True)
    ):
        return built
    call = Call(built.op, operands)
    call.lowered, call.remake = built, remake
    return call


def composed(name: str) -> Callable[[Callable[..., Expr]], Callable[..., Call]]:
    """Decorate the builder of TVM's operator `name` that xtvm computes as an expression of
    other operators (the builder's result): the call it makes is one of `name` on the
    builder's expression arguments, with TVM's attributes (its other arguments, as
    `op_attrs` normalises them), typed, converted and interpreted as that expression."""

    COMPOSED_OPS.add(name)

    def decorate(builder: Callable[..., Expr]) -> Callable[..., Call]:
        signature = inspect.signature(builder)

        @functools.wraps(builder)
        def build(*args: Any, **kwargs: Any) -> Call:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            names = [k for k, v in bound.arguments.items() if isinstance(v, Expr)]
            call = Call(Op.get(name), [bound.arguments[k] for k in names])
            call.lowered = builder(*bound.args, **bound.kwargs)
            given = {k: v for k, v in bound.arguments.items() if k not in names}
            call.kwargs = given
            call.tvm_attrs = op_attrs.normalised(name, given) or given

            def remake(new: Sequence[Expr]) -> Call:
                return build(**(bound.arguments | dict(zip(names, new, strict=True))))

            call.remake = remake
            return call

        build.__annotations__ = {**builder.__annotations__, "return": "Call"}
        return build

    return decorate


def build_call(
    op_class: type[dialect.RelayOp], args: Sequence[Any], kwargs: Mapping[str, Any]
) -> tuple[dict[str, Attribute], Type]:
    """The properties and result type of `op_class` on `args` (expressions or lists of them)."""
    flat: list[Expr] = []
    for arg in args:
        flat.extend([as_expr(a) for a in arg] if isinstance(arg, list | tuple) else [as_expr(arg)])
    block = Block(arg_types=[a.checked_type.to_xdsl() for a in flat])
    values: list[SSAValue | list[SSAValue]] = []
    position = 0
    for arg in args:
        if isinstance(arg, list | tuple):
            values.append(list(block.args[position : position + len(arg)]))
            position += len(arg)
        else:
            values.append(block.args[position])
            position += 1
    try:
        op = op_class(*values, **kwargs)
    except VerifyException as exc:
        raise OpTypeError(str(exc)) from None
    result = op.result_types[0]
    op.drop_all_references()
    for t in result.types.data if isinstance(result, XTupleType) else (result,):
        if isinstance(t, XTensorType) and any(d < 0 and d != DYNAMIC_INDEX for d in t.get_shape()):
            raise RelayTypeError(
                f"'{op_class.name}' op cannot compute its result shape from dynamic "
                "dimensions (relay.Any / te.size_var): give them static sizes"
            )
    return dict(op.properties), from_xdsl(result)


def op_builder(op_class: type[dialect.RelayOp], module: str) -> Callable[..., Call]:
    """TVM's Python builder of `op_class` (`relay.add`), for module `module`: the op's own
    signature (operands, then attributes with their defaults), building with `make_call`."""
    op_signature = inspect.signature(op_class.__init__)
    operands = op_class.OPERANDS
    parameters = [
        p.replace(annotation="Sequence[Expr]" if op_class.VARIADIC else "Expr")
        if p.name in operands
        else p
        for p in list(op_signature.parameters.values())[1:]
    ]
    signature = op_signature.replace(parameters=parameters, return_annotation="Call")

    def build(*args: Any, **kwargs: Any) -> Call:
        bound = signature.bind(*args, **kwargs)
        given = bound.arguments
        attrs = {k: v for k, v in given.items() if k not in operands}
        call = make_call(op_class, *(given[n] for n in operands), **attrs)
        bound.apply_defaults()
        call.tvm_attrs = op_attrs.normalised(op_class.name.removeprefix("relay."), bound.arguments)
        return call

    name = op_class.name.rsplit(".", 1)[-1]
    build.__name__ = build.__qualname__ = name
    build.__module__ = module
    build.__doc__ = op_class.__doc__
    build.__signature__ = signature  # type: ignore[attr-defined]
    build.__annotations__ = {"return": "Call"}
    return build


def derive_builders(
    namespace: dict[str, Any],
    prefix: str,
    families: Sequence[type[dialect.RelayOp]] = (dialect.RelayOp,),
    skip: Sequence[type[dialect.RelayOp]] = (),
) -> None:
    """Give a `relay.op` module (its `namespace`) the builder of every relay op of `families`
    but not of `skip` named `relay.<prefix><name>` that the module does not define by hand:
    TVM's builder takes the op's own signature unless a hand-written one says otherwise."""
    for op_class in dialect.OPS:
        name = op_class.name.removeprefix("relay.")
        short = name.removeprefix(prefix)
        if "." in short or not name.startswith(prefix) or short in namespace:
            continue
        if issubclass(op_class, tuple(families)) and not issubclass(op_class, tuple(skip)):
            namespace[short] = op_builder(op_class, namespace["__name__"])


def function_type(typ: FunctionType) -> FuncType:
    """The API type of a func.func signature; several results read as a tuple."""
    results = [from_xdsl(t) for t in typ.outputs.data]
    ret = results[0] if len(results) == 1 else TupleType(tuple(results))
    return FuncType([from_xdsl(t) for t in typ.inputs.data], ret)
