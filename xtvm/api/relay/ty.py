"""Relay's types as TVM's Python API shows them: `TensorType(shape, dtype)`, `TupleType`,
`FuncType`; each converts to and from the builtin xDSL type it stands for."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import FunctionType
from xdsl.dialects.builtin import TensorType as XTensorType
from xdsl.dialects.builtin import TupleType as XTupleType
from xdsl.ir import Attribute

from xtvm.ir.numpy_types import dtype_name, element_type, numpy_dtype


class Type:
    """A relay type."""

    def to_xdsl(self) -> Attribute:
        raise NotImplementedError


@dataclass(frozen=True)
class TensorType(Type):
    """A tensor of static `shape` and `dtype` ("float32", "int64", "bool", ...)."""

    shape: tuple[int, ...]
    dtype: str = "float32"

    def __init__(self, shape: Sequence[int], dtype: str = "float32") -> None:
        for d in shape:
            if not isinstance(d, int | np.integer):
                raise TypeError(
                    f"TensorType: dimension {d!r} is symbolic; xtvm's relay types have static "
                    "shapes (give every dimension as an int)"
                )
        object.__setattr__(self, "shape", tuple(int(d) for d in shape))
        object.__setattr__(self, "dtype", dtype_name(dtype))

    @property
    def concrete_shape(self) -> tuple[int, ...]:
        return self.shape

    def to_xdsl(self) -> Attribute:
        return XTensorType(element_type(self.dtype), self.shape)

    def __str__(self) -> str:
        return f"Tensor[({', '.join(map(str, self.shape))}), {self.dtype}]"


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
        return TensorType(typ.get_shape(), str(numpy_dtype(typ.get_element_type())))
    raise TypeError(f"{typ} is not a relay type")


def scalar_type(dtype: str) -> TensorType:
    """The type of a scalar of `dtype` (a rank-0 tensor), as `relay.scalar_type`."""
    return TensorType((), dtype)


class Any:
    """TVM's `relay.Any()`, a dimension known only at run time: xtvm's shapes are static, so a
    type using it is refused when it is built."""

    def __repr__(self) -> str:
        return "?"
