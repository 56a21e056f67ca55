"""TVM's scalar operators of `tvm.tir` (also under `tvm.te`): constants, the division
family, intrinsic calls by name and pure extern calls of C math functions.

`call_intrin(dtype, "tir.exp", x)` and `call_pure_extern(dtype, "expf", x)` map TVM's names
to xtvm's intrinsics; a name xtvm has no intrinsic for is a TVMError (xtvm does not call
arbitrary C functions from a compute body).
"""

from __future__ import annotations

from collections.abc import Callable

from xtvm.ir.errors import TVMError
from xtvm.te import expr as te_expr
from xtvm.te.expr import (
    Binary,
    Call,
    Cast,
    Compare,
    Const,
    FloatImm,
    IntImm,
    PrimExpr,
    Select,
    abs,
    all,
    any,
    as_expr,
    atan,
    ceil,
    const,
    cos,
    div,
    dtype_name,
    erf,
    exp,
    floor,
    floordiv,
    floormod,
    fmod,
    if_then_else,
    indexdiv,
    indexmod,
    log,
    make_const,
    max_value,
    min_value,
    popcount,
    power,
    reinterpret,
    round,
    rsqrt,
    sigmoid,
    sin,
    sqrt,
    tan,
    tanh,
    truncdiv,
    truncmod,
)

# TVM's intrinsic names (`tir.exp`, and the bare C names of pure externs) -> xtvm's.
UNARY: dict[str, Callable[[object], PrimExpr]] = {
    "exp": exp,
    "log": log,
    "sqrt": sqrt,
    "rsqrt": rsqrt,
    "tanh": tanh,
    "sigmoid": sigmoid,
    "erf": erf,
    "sin": sin,
    "cos": cos,
    "tan": tan,
    "atan": atan,
    "fabs": abs,
    "abs": abs,
    "floor": floor,
    "ceil": ceil,
    "popcount": popcount,
}
BINARY: dict[str, Callable[[object, object], PrimExpr]] = {
    "pow": power,
    "power": power,
    "fmod": fmod,
    "fmax": te_expr.max,  # max / min of two values
    "fmin": te_expr.min,
}


def _call_by_name(kind: str, dtype: str, name: str, args: tuple[object, ...]) -> PrimExpr:
    base = name.removeprefix("tir.")
    if base not in UNARY and base not in BINARY and base.endswith("f"):
        base = base[:-1]  # C's float variants: expf, powf, fabsf
    if base in UNARY and len(args) == 1:
        result = UNARY[base](args[0])
    elif base in BINARY and len(args) == 2:
        result = BINARY[base](args[0], args[1])
    else:
        known = ", ".join(sorted([*UNARY, *BINARY]))
        raise TVMError(
            f"{kind} '{name}' with {len(args)} arguments is not supported: xtvm has "
            f"intrinsics for {known} (and their C float variants), not arbitrary calls"
        )
    want = dtype_name(dtype)
    return result if result.dtype == want else Cast(want, result)


def call_intrin(dtype: str, func_name: str, *args: object) -> PrimExpr:
    """An intrinsic by TVM's name: `call_intrin("float32", "tir.exp", x)`."""
    return _call_by_name("intrinsic", dtype, func_name, args)


def call_pure_extern(dtype: str, func_name: str, *args: object) -> PrimExpr:
    """A side-effect-free C math function: `call_pure_extern("float32", "expf", x)`."""
    return _call_by_name("extern function", dtype, func_name, args)


def call_llvm_pure_intrin(dtype: str, name: str, *args: object) -> PrimExpr:
    """An LLVM intrinsic by name (`llvm.exp`); TVM's optional argument count is skipped."""
    values = args[1:] if args and isinstance(args[0], int | Const) else args
    return _call_by_name("LLVM intrinsic", dtype, name.removeprefix("llvm."), values)


def infinity(dtype: str) -> Const:
    return FloatImm(dtype, float("inf"))


class _NodeKind(type):
    """TVM's node classes of binary and comparison expressions (`tvm.tir.EQ`, `Add`): xtvm
    has one class per family with the operator as a field; these test and build by it."""

    family: type
    op: str

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, cls.family) and getattr(obj, "op", None) == cls.op

    def __call__(cls, a: object, b: object, span: object = None) -> PrimExpr:  # type: ignore[override]
        lhs = as_expr(a)
        return cls.family(cls.op, lhs, as_expr(b, lhs.dtype))


def _node(name: str, family: type, op: str) -> type:
    return _NodeKind(name, (), {"family": family, "op": op, "__doc__": f"`{op}` nodes."})


EQ, NE, LT, LE, GT, GE = (
    _node(n, Compare, o)
    for n, o in (("EQ", "eq"), ("NE", "ne"), ("LT", "lt"), ("LE", "le"), ("GT", "gt"), ("GE", "ge"))
)
Add, Sub, Mul, Div, FloorDiv, FloorMod = (
    _node(n, Binary, o)
    for n, o in (
        ("Add", "add"),
        ("Sub", "sub"),
        ("Mul", "mul"),
        ("Div", "div"),
        ("FloorDiv", "floordiv"),
        ("FloorMod", "floormod"),
    )
)


__all__ = [
    "EQ",
    "GE",
    "GT",
    "LE",
    "LT",
    "NE",
    "Add",
    "Call",
    "Cast",
    "Div",
    "FloatImm",
    "FloorDiv",
    "FloorMod",
    "IntImm",
    "Mul",
    "Select",
    "Sub",
    "abs",
    "all",
    "any",
    "as_expr",
    "atan",
    "call_intrin",
    "call_llvm_pure_intrin",
    "call_pure_extern",
    "ceil",
    "const",
    "cos",
    "div",
    "erf",
    "exp",
    "floor",
    "floordiv",
    "floormod",
    "fmod",
    "if_then_else",
    "indexdiv",
    "indexmod",
    "infinity",
    "log",
    "make_const",
    "max_value",
    "min_value",
    "popcount",
    "power",
    "reinterpret",
    "round",
    "rsqrt",
    "sigmoid",
    "sin",
    "sqrt",
    "tan",
    "tanh",
    "truncdiv",
    "truncmod",
]
