"""Relay's types as TVM's Python API shows them: `TensorType(shape, dtype)`, `TupleType`,
`FuncType`; each converts to and from the builtin xDSL type it stands for."""

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
        raise NotImplementedError


Dim = Union[int, "Any", PrimExpr]


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
                dims.append(int(d))
            elif isinstance(d, Any) or (isinstance(d, PrimExpr) and not isinstance(d, Const)):
                dims.append(d)
            elif isinstance(d, Const):
                dims.append(int(d.value))
            else:
                raise TypeError(
                    f"TensorType: dimension {d!r} is neither an int nor relay.Any() or a "
                    "te.size_var"
                )
        object.__setattr__(self, "shape", tuple(dims))
        object.__setattr__(self, "dtype", dtype_name(dtype))

    @property
    def is_static(self) -> bool:
        return all(isinstance(d, int) for d in self.shape)

    @property
    def concrete_shape(self) -> tuple[int, ...]:
        if not self.is_static:
            raise TypeError(f"{self} has dynamic dimensions: its shape is known at run time only")
        return self.shape  # type: ignore[return-value]

    def to_xdsl(self) -> Attribute:
        dims = [d if isinstance(d, int) else DYNAMIC_INDEX for d in self.shape]
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

    def __str__(self) -> str:
        return f"({', '.join(map(str, self.fields))})"


@dataclass(frozen=True)
class FuncType(Type):
    """The type of a function: argument types and its return type."""

    arg_types: tuple[Type, ...]
    ret_type: Type

    def __init__(
        self,
        arg_types: Sequence[Type],
        ret_type: Type,
        type_params: Sequence[object] | None = None,
        type_constraints: Sequence[object] | None = None,
    ) -> None:
        if type_params or type_constraints:
            raise NotImplementedError(
                "FuncType: type parameters and constraints are not supported (relay types are "
                "monomorphic in xtvm)"
            )
        object.__setattr__(self, "arg_types", tuple(arg_types))
        object.__setattr__(self, "ret_type", ret_type)

    def to_xdsl(self) -> Attribute:
        results = self.ret_type.fields if isinstance(self.ret_type, TupleType) else (self.ret_type,)
        return FunctionType.from_lists(
            [t.to_xdsl() for t in self.arg_types], [t.to_xdsl() for t in results]
        )

    def __str__(self) -> str:
        return f"fn ({', '.join(map(str, self.arg_types))}) -> {self.ret_type}"


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
