"""Relay's types as TVM's Python API shows them: `TensorType(shape, dtype)`, `TupleType`,
`FuncType`, each converting to and from the builtin xDSL type it stands for; and the types
that have no xDSL form, which programs with type variables, algebraic data types and
references use: `TypeVar`, `GlobalTypeVar`, `TypeCall` (`List[A]`), `RefType` and
`IncompleteType` (an unknown that type inference solves).

Types compare structurally, as TVM's do; type variables are equal only to themselves, except
that the type parameters of two `FuncType`s are matched by position (`fn[a](a) -> a` equals
`fn[b](b) -> b`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Union

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX, FunctionType
from xdsl.dialects.builtin import TensorType as XTensorType
from xdsl.dialects.builtin import TupleType as XTupleType
from xdsl.ir import Attribute

from xtvm.ir.numpy_types import dtype_name, element_type, numpy_dtype
from xtvm.te.expr import Const, PrimExpr, Var


class Type:
    """A relay type."""

    def to_xdsl(self) -> Attribute:
        raise TypeError(
            f"the type {self} has no form in xtvm's relay dialect (relay.build and the IR "
            "passes take tensors and tuples of them; use relay.create_executor)"
        )


Dim = Union[int, "Any", PrimExpr]


class StaticDim(int):
    """A static dimension: an int that also reads as TVM's `IntImm` (`shape[0].value`)."""

    __slots__ = ()

    @property
    def value(self) -> int:
        return int(self)

    dtype = "int64"


# TVM's dtype strings without a width: its DataType reads "int" as int32 (numpy: int64)
TVM_SHORT_DTYPES = {"int": "int32", "uint": "uint32", "float": "float32"}


@dataclass(frozen=True)
class TensorType(Type):
    """A tensor of `shape` and `dtype` ("float32", "int64", "bool", ...). A dimension is an
    int, or dynamic: `relay.Any()` or a `te.size_var` (both `?` in the IR, which keeps no
    names; the var's name is shown here). Dynamic shapes type-check and print; `relay.build`
    refuses them."""

    shape: tuple[Dim, ...]
    dtype: str = "float32"

    def __init__(self, shape: Sequence[Dim], dtype: str = "float32") -> None:
        dims: list[Dim] = []
        for d in shape:
            if isinstance(d, int | np.integer):
                dims.append(StaticDim(d))
            elif isinstance(d, Any) or (isinstance(d, PrimExpr) and not isinstance(d, Const)):
                dims.append(d)
            elif isinstance(d, Const):
                dims.append(StaticDim(d.value))
            else:
                raise TypeError(
                    f"TensorType: dimension {d!r} is neither an int nor relay.Any() or a "
                    "te.size_var"
                )
        object.__setattr__(self, "shape", tuple(dims))
        object.__setattr__(self, "dtype", dtype_name(TVM_SHORT_DTYPES.get(str(dtype), dtype)))

    @property
    def is_static(self) -> bool:
        return all(isinstance(d, int) for d in self.shape)

    @property
    def concrete_shape(self) -> tuple[int, ...]:
        if not self.is_static:
            raise TypeError(f"{self} has dynamic dimensions: its shape is known at run time only")
        return self.shape  # type: ignore[return-value]

    def to_xdsl(self) -> Attribute:
        dims = [dim_value(d) for d in self.shape]
        return XTensorType(element_type(self.dtype), dims)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TensorType) or other.dtype != self.dtype:
            return False
        if len(other.shape) != len(self.shape):
            return False
        return all(_same_dim(a, b) for a, b in zip(self.shape, other.shape, strict=True))

    def __hash__(self) -> int:
        return hash((tuple(d if isinstance(d, int) else "?" for d in self.shape), self.dtype))

    def __str__(self) -> str:
        return f"Tensor[({', '.join(map(_dim_text, self.shape))}), {self.dtype}]"


def dim_value(d: Dim) -> int:
    """`d` as the relay dialect holds a dimension: its value, or `?` (DYNAMIC_INDEX) for a
    symbolic one."""
    if isinstance(d, int | np.integer):
        return int(d)
    if isinstance(d, Const):
        return int(d.value)
    if isinstance(d, Any | PrimExpr):
        return DYNAMIC_INDEX
    raise TypeError(f"dimension {d!r} is neither an int nor relay.Any() or a te.size_var")


def _same_dim(a: Dim, b: Dim) -> bool:
    """Static dims are equal by value; dynamic ones are all alike (the IR keeps no names)."""
    if isinstance(a, int) or isinstance(b, int):
        return a == b if isinstance(a, int) and isinstance(b, int) else False
    return True


def _dim_text(d: Dim) -> str:
    if isinstance(d, int):
        return str(d)
    return d.name if isinstance(d, Var) else "?"


@dataclass(frozen=True)
class TupleType(Type):
    """A tuple of types."""

    fields: tuple[Type, ...]

    def __init__(self, fields: Sequence[Type]) -> None:
        object.__setattr__(self, "fields", tuple(fields))

    def to_xdsl(self) -> Attribute:
        return XTupleType(tuple(f.to_xdsl() for f in self.fields))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TupleType) and types_equal(self, other)

    def __hash__(self) -> int:
        return hash(("TupleType", len(self.fields)))

    def __str__(self) -> str:
        return f"({', '.join(map(str, self.fields))})"


class FuncType(Type):
    """The type of a function: argument types and its return type; with `type_params`
    (TypeVars) it is polymorphic and each call instantiates them."""

    def __init__(
        self,
        arg_types: Sequence[Type],
        ret_type: Type,
        type_params: Sequence[TypeVar] | None = None,
        type_constraints: Sequence[object] | None = None,
    ) -> None:
        if type_constraints:
            raise NotImplementedError("FuncType: type constraints are not supported")
        for param in type_params or ():
            if not isinstance(param, TypeVar):
                raise TypeError(f"FuncType: type parameter {param!r} is not a relay.TypeVar")
        self.arg_types = tuple(arg_types)
        self.ret_type = ret_type
        self.type_params = tuple(type_params or ())
        self.type_constraints: tuple[object, ...] = ()

    def to_xdsl(self) -> Attribute:
        if self.type_params:
            return super().to_xdsl()
        results = self.ret_type.fields if isinstance(self.ret_type, TupleType) else (self.ret_type,)
        return FunctionType.from_lists(
            [t.to_xdsl() for t in self.arg_types], [t.to_xdsl() for t in results]
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FuncType) and types_equal(self, other)

    def __hash__(self) -> int:
        return hash(("FuncType", len(self.arg_types)))

    def __str__(self) -> str:
        params = f"[{', '.join(map(str, self.type_params))}]" if self.type_params else ""
        return f"fn {params}({', '.join(map(str, self.arg_types))}) -> {self.ret_type}"

    __repr__ = __str__


class TypeVar(Type):
    """A type variable (`A` in `def @id[A](%x: A) -> A`): equal only to itself."""

    def __init__(self, name_hint: str, kind: int = 0) -> None:
        self.name_hint = name_hint
        self.kind = kind

    def __str__(self) -> str:
        return self.name_hint

    __repr__ = __str__


class GlobalTypeVar(Type):
    """The name of a module's algebraic data type (`List`); `List(A)` is the type `List[A]`.
    Equal to any GlobalTypeVar of the same name, as GlobalVars are."""

    def __init__(self, name_hint: str, kind: int = 0) -> None:
        self.name_hint = name_hint
        self.kind = kind

    def __call__(self, *args: Type) -> TypeCall:
        return TypeCall(self, list(args))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GlobalTypeVar) and other.name_hint == self.name_hint

    def __hash__(self) -> int:
        return hash(("GlobalTypeVar", self.name_hint))

    def __str__(self) -> str:
        return self.name_hint

    __repr__ = __str__


class TypeCall(Type):
    """An algebraic data type applied to type arguments: `List[int32]`."""

    def __init__(self, func: GlobalTypeVar, args: Sequence[Type]) -> None:
        self.func = func
        self.args = tuple(args)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TypeCall) and types_equal(self, other)

    def __hash__(self) -> int:
        return hash(("TypeCall", self.func.name_hint, len(self.args)))

    def __str__(self) -> str:
        return f"{self.func}[{', '.join(map(str, self.args))}]" if self.args else str(self.func)

    __repr__ = __str__


class RefType(Type):
    """The type of a mutable reference cell holding a `value`."""

    def __init__(self, value: Type) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RefType) and types_equal(self, other)

    def __hash__(self) -> int:
        return hash("RefType")

    def __str__(self) -> str:
        return f"Ref[{self.value}]"

    __repr__ = __str__


class IncompleteType(Type):
    """A type not known yet (`_` in the text): type inference solves it."""

    def __init__(self, kind: int = 0) -> None:
        self.kind = kind

    def __str__(self) -> str:
        return "_"

    __repr__ = __str__


def types_equal(a: Type, b: Type, bound: dict[int, Type] | None = None) -> bool:
    """Structural equality; `bound` maps the type parameters of enclosing FuncTypes of `a` to
    those of `b`."""
    bound = bound or {}
    if isinstance(a, TypeVar):
        return bound.get(id(a), a) is b
    if isinstance(a, FuncType):
        if not isinstance(b, FuncType) or len(a.type_params) != len(b.type_params):
            return False
        if len(a.arg_types) != len(b.arg_types):
            return False
        inner = bound | {id(x): y for x, y in zip(a.type_params, b.type_params, strict=True)}
        return all(
            types_equal(x, y, inner)
            for x, y in zip((*a.arg_types, a.ret_type), (*b.arg_types, b.ret_type), strict=True)
        )
    if isinstance(a, TypeCall):
        return (
            isinstance(b, TypeCall)
            and a.func == b.func
            and len(a.args) == len(b.args)
            and all(types_equal(x, y, bound) for x, y in zip(a.args, b.args, strict=True))
        )
    if isinstance(a, RefType):
        return isinstance(b, RefType) and types_equal(a.value, b.value, bound)
    if isinstance(a, TupleType):
        return (
            isinstance(b, TupleType)
            and len(a.fields) == len(b.fields)
            and all(types_equal(x, y, bound) for x, y in zip(a.fields, b.fields, strict=True))
        )
    if isinstance(a, IncompleteType):
        return a is b
    return a == b


def from_xdsl(typ: Attribute) -> Type:
    """The API type of a builtin tensor or tuple type."""
    if isinstance(typ, XTupleType):
        return TupleType([from_xdsl(t) for t in typ.types.data])
    if isinstance(typ, XTensorType):
        shape = [Any() if d == DYNAMIC_INDEX else d for d in typ.get_shape()]
        return TensorType(shape, str(numpy_dtype(typ.get_element_type())))
    raise TypeError(f"{typ} is not a relay type")


def scalar_type(dtype: str) -> TensorType:
    """The type of a scalar of `dtype` (a rank-0 tensor), as `relay.scalar_type`."""
    return TensorType((), dtype)


class Any:
    """TVM's `relay.Any()`, a dimension known only at run time (`?`)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Any)

    def __hash__(self) -> int:
        return hash("relay.Any")

    def __repr__(self) -> str:
        return "?"
