"""The correspondence between builtin element types and numpy dtypes, both ways."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    Signedness,
    f16,
    f32,
    f64,
    i1,
)
from xdsl.ir import Attribute


def numpy_dtype(elem: Attribute) -> np.dtype:
    """The numpy dtype holding elements of builtin type `elem` (i1 is bool)."""
    if isinstance(elem, Float32Type):
        return np.dtype(np.float32)
    if isinstance(elem, Float64Type):
        return np.dtype(np.float64)
    if isinstance(elem, Float16Type):
        return np.dtype(np.float16)
    if isinstance(elem, BFloat16Type):
        raise ValueError("bf16 has no numpy dtype")
    if isinstance(elem, IndexType):
        return np.dtype(np.int64)
    if isinstance(elem, IntegerType):
        width = elem.width.data
        if width == 1:
            return np.dtype(np.bool_)
        unsigned = elem.signedness.data == Signedness.UNSIGNED
        if width in (8, 16, 32, 64):
            return np.dtype(f"{'u' if unsigned else ''}int{width}")
    raise ValueError(f"no numpy dtype for element type {elem}")


def element_type(dtype: str | np.dtype | type) -> Attribute:
    """The builtin element type of a numpy dtype (or dtype name such as "float32")."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return i1
    if dt.kind == "f":
        floats = {2: f16, 4: f32, 8: f64}
        if dt.itemsize in floats:
            return floats[dt.itemsize]
    if dt.kind in "iu":
        signedness = Signedness.UNSIGNED if dt.kind == "u" else Signedness.SIGNLESS
        return IntegerType(dt.itemsize * 8, signedness)
    raise ValueError(f"no element type for numpy dtype {dt}")


# TVM's names without a width are 32 bits wide (numpy's would be 64).
BARE_NAMES = {"int": "int32", "uint": "uint32", "float": "float32"}


def dtype_name(dtype: object) -> str:
    """A dtype's canonical name ("float32"); raises ValueError for unknown names. TVM's bare
    "int", "uint" and "float" are 32 bits wide."""
    if isinstance(dtype, str) and dtype in BARE_NAMES:
        return BARE_NAMES[dtype]
    try:
        return str(np.dtype(dtype)) if str(dtype) != "bool" else "bool"
    except TypeError:
        raise ValueError(f"unknown dtype {dtype!r}") from None


def is_unsigned(typ: Attribute) -> bool:
    """Whether `typ` is an unsigned integer type (`ui8`...): values of it keep the type, and
    the arith ops that depend on signedness take their unsigned variant (divui, cmpi ult)."""
    return isinstance(typ, IntegerType) and typ.signedness.data == Signedness.UNSIGNED


def orders_unsigned(typ: Attribute) -> bool:
    """Whether values of integer type `typ` compare as unsigned: the unsigned types, and bool
    (`i1`, where false < true; signed, `true` would be -1)."""
    return is_unsigned(typ) or typ == i1


def index_literal(value: int) -> int:
    """`value` as the `index` constant with its bits: uint64 values above 2**63 wrap, so that
    `arith.index_cast` of it to ui64 gives `value` back."""
    return (value + 2**63) % 2**64 - 2**63
