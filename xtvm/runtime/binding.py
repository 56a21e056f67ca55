"""Argument binding: the symbolic dimensions of a kernel, checked when it is called.

A kernel lowered from `te` with `n = te.var("n")` takes one `int64_t` per dynamic dimension of
each buffer, but its loops use only one of them: every other use of `n` must agree, or the
kernel reads or writes past a buffer. The lowering records, per argument, what each dimension
is (TVM's buffer shapes): a static size, a variable (`"n"`) or an expression of variables
(`["add", "n", 2]`); a scalar argument may be a variable itself. `binding_plan` turns that
into TVM's argument binder: the first bare use of a variable binds it, every other use and
every expression is checked against it. The Python calling path (`PackedFunc`) and the entry
of each generated kernel (LLVM and C backends, for C callers) run the same plan.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    i64,
)
from xdsl.ir import Attribute

# The function attribute listing, per argument, its dimensions (buffers) or its variable
# (scalars): `[["n", 4], ["n", 6], "m"]`; "" for a scalar that is no variable, "?" for an
# unconstrained dimension.
ARG_DIMS_ATTR = "xtvm.arg_dims"

# A dimension: a static size, a variable name, or [op, lhs, rhs] over dimensions.
Dim = int | str | list
BINARY_OPS = ("add", "sub", "mul", "floordiv", "floormod")
SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "floordiv": "//", "floormod": "%"}


@dataclass(frozen=True)
class DimRef:
    """Where a value comes from: dimension `dim` of argument `arg`, or the scalar `arg`."""

    arg: int
    dim: int | None


@dataclass(frozen=True)
class Check:
    """Dimension `ref` must equal `expected` (a variable or an expression of variables)."""

    ref: DimRef
    expected: Dim


@dataclass(frozen=True)
class BindingPlan:
    """Which argument binds each variable, and the checks on every other use."""

    bindings: dict[str, DimRef]
    checks: list[Check]
    dynamic: list[DimRef]  # every dynamic dimension of a buffer (each must be >= 0)


def binding_plan(
    arg_dims: Sequence[Sequence[Dim | None] | str | None],
) -> BindingPlan:
    """The binder of a kernel whose arguments have `arg_dims` (per argument: a buffer's
    dimensions, None for a dimension nothing constrains; a scalar's variable name or None).

    As TVM's ArgBinder: arguments in order; a scalar that is a variable binds it first, then
    the first bare use of a variable as a dimension; other uses and expressions are checks.
    """
    bindings: dict[str, DimRef] = {}
    checks: list[Check] = []
    dynamic: list[DimRef] = []
    for position, dims in enumerate(arg_dims):
        if isinstance(dims, str) and dims:
            bind_or_check(bindings, checks, dims, DimRef(position, None))
    for position, dims in enumerate(arg_dims):
        if dims is None or isinstance(dims, str):
            continue
        for axis, dim in enumerate(dims):
            if isinstance(dim, int):
                continue
            ref = DimRef(position, axis)
            dynamic.append(ref)
            if isinstance(dim, str):
                bind_or_check(bindings, checks, dim, ref)
            elif isinstance(dim, list):
                checks.append(Check(ref, dim))
    # Expressions whose variables nothing binds cannot be checked.
    checks = [c for c in checks if variables_of(c.expected) <= bindings.keys()]
    return BindingPlan(bindings, checks, dynamic)


def bind_or_check(bindings: dict[str, DimRef], checks: list[Check], name: str, ref: DimRef) -> None:
    if name in bindings:
        checks.append(Check(ref, name))
    else:
        bindings[name] = ref


def variables_of(dim: Dim) -> set[str]:
    if isinstance(dim, str):
        return {dim}
    if isinstance(dim, list):
        return variables_of(dim[1]) | variables_of(dim[2])
    return set()


def render(dim: Dim, top: bool = True) -> str:
    """`dim` as text: `n`, `n + 2`, `(n - 1) // 2`."""
    if not isinstance(dim, list):
        return str(dim)
    text = f"{render(dim[1], False)} {SYMBOLS[dim[0]]} {render(dim[2], False)}"
    return text if top else f"({text})"


T = TypeVar("T")


def evaluate(
    dim: Dim, variable: Callable[[str], T], ops: Callable[[str, T, T], T], const: Callable[[int], T]
) -> T:
    """Fold `dim` with `variable` for names, `const` for sizes and `ops` for operators (the
    Python binder folds ints; the backends fold into code)."""
    if isinstance(dim, str):
        return variable(dim)
    if isinstance(dim, int):
        return const(dim)
    return ops(
        dim[0], evaluate(dim[1], variable, ops, const), evaluate(dim[2], variable, ops, const)
    )


def int_op(op: str, a: int, b: int) -> int:
    if op == "add":
        return a + b
    if op == "sub":
        return a - b
    if op == "mul":
        return a * b
    if b == 0:
        return 0  # no size divides by zero; the mismatch is reported instead
    return a // b if op == "floordiv" else a % b


def printf_escape(text: str) -> str:
    """`text` as literal printf format text."""
    return text.replace("%", "%%")


def describe(names: Sequence[str], ref: DimRef) -> str:
    """`argument C: dimension 0` (or `argument m` for a scalar), as printf format text."""
    where = f"argument {printf_escape(names[ref.arg])}"
    return where if ref.dim is None else f"{where}: dimension {ref.dim}"


def mismatch_message(function: str, names: Sequence[str], plan: BindingPlan, check: Check) -> str:
    """The printf format of a failed check, naming the function, argument and dimension.

    Its `%lld`s print the checked value, the expected one, then (for an expression) the
    values of `message_variables(check)`.
    """
    expected, function = check.expected, printf_escape(function)
    shown = printf_escape(render(expected))
    where = f"{function}: {describe(names, check.ref)} is %lld, but {shown} = %lld"
    if isinstance(expected, str):
        return f"{where} from argument {printf_escape(names[plan.bindings[expected].arg])}"
    bound = ", ".join(
        f"{printf_escape(v)} = %lld from argument {printf_escape(names[plan.bindings[v].arg])}"
        for v in message_variables(check)
    )
    return f"{where} ({bound})"


def message_variables(check: Check) -> list[str]:
    """The variables whose values a failed expression check prints, in order."""
    return [] if isinstance(check.expected, str) else sorted(variables_of(check.expected))


def negative_message(function: str, names: Sequence[str], ref: DimRef) -> str:
    """The printf format of a dynamic dimension that is negative (C callers pass any int64)."""
    return f"{printf_escape(function)}: {describe(names, ref)} is %lld, a negative size"


def entry_checks(
    function: str,
    names: Sequence[str],
    plan: BindingPlan,
    value: Callable[[DimRef], T],
    ops: Callable[[str, T, T], T],
    const: Callable[[int], T],
) -> Iterator[tuple[T, T | None, str, list[T]]]:
    """The conditions a generated kernel checks at its entry, as `(actual, expected, message,
    shown)`: `actual` must equal `expected` (or be >= 0 where `expected` is None), else the
    kernel fails with the printf format `message` of the values `shown`. `value` reads an
    argument or dimension, `ops` and `const` fold expressions (see `evaluate`)."""
    for ref in plan.dynamic:
        actual = value(ref)
        yield actual, None, negative_message(function, names, ref), [actual]
    variables = {var: value(ref) for var, ref in plan.bindings.items()}
    for check in plan.checks:
        actual = value(check.ref)
        wanted = evaluate(check.expected, variables.__getitem__, ops, const)
        shown = [actual, wanted, *(variables[v] for v in message_variables(check))]
        yield actual, wanted, mismatch_message(function, names, plan, check), shown


# -- the attribute ----------------------------------------------------------------------------


def dim_attr(dim: Dim | None) -> Attribute:
    if dim is None:
        return StringAttr("?")
    if isinstance(dim, int):
        return IntegerAttr(dim, i64)
    if isinstance(dim, str):
        return StringAttr(dim)
    return ArrayAttr([StringAttr(dim[0]), dim_attr(dim[1]), dim_attr(dim[2])])


def dim_of(attr: Attribute) -> Dim | None:
    if isinstance(attr, IntegerAttr):
        return int(attr.value.data)
    if isinstance(attr, StringAttr):
        return None if attr.data == "?" else attr.data
    if isinstance(attr, ArrayAttr) and len(attr.data) == 3:
        op, lhs, rhs = attr.data
        a, b = dim_of(lhs), dim_of(rhs)
        if isinstance(op, StringAttr) and op.data in BINARY_OPS and a is not None and b is not None:
            return [op.data, a, b]
    return None


def arg_dims_attr(arg_dims: Sequence[Sequence[Dim | None] | str | None]) -> ArrayAttr:
    """The `xtvm.arg_dims` attribute of a kernel (see `binding_plan` for `arg_dims`)."""
    return ArrayAttr(
        [
            StringAttr(dims or "")
            if dims is None or isinstance(dims, str)
            else ArrayAttr([dim_attr(d) for d in dims])
            for dims in arg_dims
        ]
    )


def kernel_arg_dims(function: func.FuncOp) -> list[list[Dim | None] | str | None]:
    """Per argument of a tir kernel, what its `xtvm.arg_dims` says, reconciled with the types:
    a dimension static in its memref type is that size, a scalar of another type binds none."""
    types = function.function_type.inputs.data
    recorded = arg_dims_of(function.attributes.get(ARG_DIMS_ATTR), len(types))
    result: list[list[Dim | None] | str | None] = []
    for typ, dims in zip(types, recorded, strict=True):
        if isinstance(typ, MemRefType):
            shape = typ.get_shape()
            listed = dims if isinstance(dims, list) and len(dims) == len(shape) else []
            result.append(
                [d if d >= 0 else (listed[k] if listed else None) for k, d in enumerate(shape)]
            )
        elif isinstance(typ, IndexType | IntegerType) and isinstance(dims, str):
            result.append(dims)
        else:
            result.append(None)
    return result


def arg_dims_of(attr: Attribute | None, count: int) -> list[list[Dim | None] | str | None]:
    """The per-argument dimensions an `xtvm.arg_dims` attribute records (all None without one,
    or when it does not describe `count` arguments)."""
    if not isinstance(attr, ArrayAttr) or len(attr.data) != count:
        return [None] * count
    result: list[list[Dim | None] | str | None] = []
    for entry in attr.data:
        if isinstance(entry, StringAttr):
            result.append(entry.data or None)
        elif isinstance(entry, ArrayAttr):
            result.append([dim_of(d) for d in entry.data])
        else:
            result.append(None)
    return result
