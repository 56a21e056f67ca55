"""TVM's tensor expressions in Python: scalar expressions (`PrimExpr`), iteration variables,
tensors and the operations that define them (`te.placeholder`, `te.compute`).

Expressions are small immutable trees built with Python operators; `convert_te` turns them
into te-dialect IR. Integers follow TVM: `//` is floor division, `%` floor modulo, `/` on
integers truncates; Python numbers take the dtype of the expression they meet.

Shapes and reduce domains may be symbolic: a dimension is an int or an integer expression of
`te.var`s (`n`, `n + 2`), bound when the kernel runs (see `lower.schedule_to_module`).
"""

from __future__ import annotations

import builtins
import functools
import inspect
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from xtvm.ir import traversal
from xtvm.ir.errors import TVMError
from xtvm.ir.numpy_types import dtype_name as scalar_dtype_name

Number = int | float | bool
VECTOR_DTYPE = re.compile(r"^(u?int|float|bfloat)\d+x\d+$")


def dtype_name(dtype: object) -> str:
    """A scalar dtype's canonical name; TVM's vector dtypes (`float32x4`) are refused: tensors
    and variables hold scalars (vector values are `const`, `Broadcast`, `Ramp` and `vload`)."""
    if isinstance(dtype, str) and VECTOR_DTYPE.match(dtype):
        raise TVMError(
            f"vector dtype '{dtype}' is not supported here: xtvm's tensors and variables are "
            "scalar; vector values are tvm.tir.const/Broadcast/Ramp and buffer vload/vstore in "
            "extern bodies, and a loop is vectorized with s[C].vectorize"
        )
    return scalar_dtype_name(dtype)


def split_dtype(dtype: object) -> tuple[str, int]:
    """A dtype's scalar element dtype and lane count (`float32x4` -> `float32`, 4)."""
    if isinstance(dtype, str) and VECTOR_DTYPE.match(dtype):
        base, _, lanes = dtype.rpartition("x")
        count = int(lanes)
        if not 1 <= count <= 64:
            raise TVMError(f"vector dtype '{dtype}': lanes must be 1 to 64")
        return scalar_dtype_name(base), count
    return scalar_dtype_name(dtype), 1


def vector_dtype(base: str, lanes: int) -> str:
    return base if lanes == 1 else f"{base}x{lanes}"


class PrimExpr:
    """A scalar expression of a dtype ("float32", "int32", "bool", ...)."""

    dtype: str

    def _binary(self, op: str, other: object, reverse: bool = False) -> PrimExpr:
        rhs = as_expr(other, self.dtype)
        lhs, rhs = (rhs, self) if reverse else (self, rhs)
        return Binary(op, *match_types(lhs, rhs))

    def __add__(self, o: object) -> PrimExpr:
        return self._binary("add", o)

    def __radd__(self, o: object) -> PrimExpr:
        return self._binary("add", o, True)

    def __sub__(self, o: object) -> PrimExpr:
        return self._binary("sub", o)

    def __rsub__(self, o: object) -> PrimExpr:
        return self._binary("sub", o, True)

    def __mul__(self, o: object) -> PrimExpr:
        return self._binary("mul", o)

    def __rmul__(self, o: object) -> PrimExpr:
        return self._binary("mul", o, True)

    def __truediv__(self, o: object) -> PrimExpr:
        return self._binary("div", o)

    def __rtruediv__(self, o: object) -> PrimExpr:
        return self._binary("div", o, True)

    def __floordiv__(self, o: object) -> PrimExpr:
        return self._binary("floordiv", o)

    def __rfloordiv__(self, o: object) -> PrimExpr:
        return self._binary("floordiv", o, True)

    def __mod__(self, o: object) -> PrimExpr:
        return self._binary("floormod", o)

    def __rmod__(self, o: object) -> PrimExpr:
        return self._binary("floormod", o, True)

    def __neg__(self) -> PrimExpr:
        return Binary("sub", as_expr(0, self.dtype), self)

    def __and__(self, o: object) -> PrimExpr:
        return self._binary("and", o)

    def __rand__(self, o: object) -> PrimExpr:
        return self._binary("and", o, True)

    def __or__(self, o: object) -> PrimExpr:
        return self._binary("or", o)

    def __ror__(self, o: object) -> PrimExpr:
        return self._binary("or", o, True)

    def __xor__(self, o: object) -> PrimExpr:
        return self._binary("xor", o)

    def __rxor__(self, o: object) -> PrimExpr:
        return self._binary("xor", o, True)

    def __lshift__(self, o: object) -> PrimExpr:
        return self._binary("shl", o)

    def __rlshift__(self, o: object) -> PrimExpr:
        return self._binary("shl", o, True)

    def __rshift__(self, o: object) -> PrimExpr:
        return self._binary("shr", o)

    def __rrshift__(self, o: object) -> PrimExpr:
        return self._binary("shr", o, True)

    def __invert__(self) -> PrimExpr:
        return Binary("xor", self, as_expr(-1, self.dtype))

    def __lt__(self, o: object) -> PrimExpr:
        return Compare("lt", self, as_expr(o, self.dtype))

    def __le__(self, o: object) -> PrimExpr:
        return Compare("le", self, as_expr(o, self.dtype))

    def __gt__(self, o: object) -> PrimExpr:
        return Compare("gt", self, as_expr(o, self.dtype))

    def __ge__(self, o: object) -> PrimExpr:
        return Compare("ge", self, as_expr(o, self.dtype))

    def equal(self, o: object) -> PrimExpr:
        return Compare("eq", self, as_expr(o, self.dtype))

    def __eq__(self, o: object) -> Equality:  # type: ignore[override]
        """`a == b` is the comparison (TVM's EqualOp); its truth value is whether `a` and
        `b` are the same node, so expressions still work as keys and in `in` tests."""
        if not isinstance(o, PrimExpr | int | float | np.number):
            return NotImplemented
        return Equality("eq", self, as_expr(o, self.dtype))

    def __ne__(self, o: object) -> Equality:  # type: ignore[override]
        if not isinstance(o, PrimExpr | int | float | np.number):
            return NotImplemented
        return Equality("ne", self, as_expr(o, self.dtype))

    def astype(self, dtype: str) -> PrimExpr:
        return Cast(dtype_name(dtype), self)

    def __bool__(self) -> bool:
        raise TypeError("a symbolic expression has no truth value; use te.if_then_else")

    __hash__ = object.__hash__


def match_types(a: PrimExpr, b: PrimExpr) -> tuple[PrimExpr, PrimExpr]:
    """The operands of an arithmetic operator in one dtype, as TVM's operators promote them:
    an integer meets a float as that float, a narrower number of a kind meets a wider one as
    the wider (`i / 2.0` divides in float32)."""
    if a.dtype == b.dtype or "bool" in (a.dtype, b.dtype) or "handle" in (a.dtype, b.dtype):
        return a, b
    (base_a, lanes_a), (base_b, lanes_b) = split_dtype(a.dtype), split_dtype(b.dtype)
    if lanes_a != lanes_b:  # a scalar meets a vector as its broadcast
        if 1 not in (lanes_a, lanes_b):
            raise TypeError(f"operands have different lanes: {a.dtype} and {b.dtype}")
        if lanes_a == 1:
            a = Broadcast(a if base_a == base_b else Cast(base_b, a), lanes_b)
        else:
            b = Broadcast(b if base_a == base_b else Cast(base_a, b), lanes_a)
        return a, b
    fa, fb = a.dtype.startswith("float"), b.dtype.startswith("float")
    if fa != fb:
        return (a, Cast(a.dtype, b)) if fa else (Cast(b.dtype, a), b)
    if a.dtype.startswith("u") != b.dtype.startswith("u"):
        return a, b  # signed with unsigned: left for Binary to refuse
    wider = a.dtype if bits(a.dtype) >= bits(b.dtype) else b.dtype
    return (a if a.dtype == wider else Cast(wider, a)), (b if b.dtype == wider else Cast(wider, b))


def bits(dtype: str) -> int:
    digits = "".join(c for c in dtype if c.isdigit())
    return int(digits) if digits else 0


def as_expr(value: object, dtype: str = "int32") -> PrimExpr:
    """`value` as an expression; Python numbers take `dtype` (ints stay ints for int dtypes)."""
    if isinstance(value, PrimExpr):
        return value
    if isinstance(value, bool):
        return IntImm("bool", value)
    if isinstance(value, int | float | np.integer | np.floating):
        if VECTOR_DTYPE.match(dtype):  # a number in vector arithmetic: its broadcast
            base, lanes = split_dtype(dtype)
            scalar = as_expr(value, base)
            return scalar if scalar.dtype != base else Broadcast(scalar, lanes)
        if isinstance(value, float | np.floating) and not dtype.startswith("float"):
            return make_const(float(value), "float32")
        return make_const(value.item() if isinstance(value, np.generic) else value, dtype)
    raise TypeError(f"cannot use {type(value).__name__} in a tensor expression")


@dataclass(eq=False)
class Const(PrimExpr):
    value: Number
    dtype: str = "int32"


class IntImm(Const):
    """An integer (or bool) constant: `tvm.tir.IntImm("int32", 3)`."""

    def __init__(self, dtype: str, value: int) -> None:
        dtype = dtype_name(dtype)
        if dtype.startswith("float"):
            raise TVMError(f"IntImm needs an integer or bool dtype, got {dtype}")
        super().__init__(bool(value) if dtype == "bool" else int(value), dtype)

    def __bool__(self) -> bool:
        """A constant's truth is its value's, as TVM's IntImm (`Primitive=IntImm(1)` is set)."""
        return self.value != 0


class FloatImm(Const):
    """A floating-point constant: `tvm.tir.FloatImm("float32", 1.5)`."""

    def __init__(self, dtype: str, value: float) -> None:
        dtype = dtype_name(dtype)
        if not dtype.startswith("float"):
            raise TVMError(f"FloatImm needs a float dtype, got {dtype}")
        super().__init__(float(value), dtype)


def make_const(value: Number, dtype: str) -> Const:
    """`value` as a constant of `dtype`: a FloatImm for float dtypes, else an IntImm."""
    if dtype.startswith("float"):
        return FloatImm(dtype, value)
    return IntImm(dtype, int(value))


@dataclass(frozen=True)
class StringImm:
    """A string constant (a pragma key); equal to the Python string it holds."""

    value: str

    def __eq__(self, other: object) -> bool:
        if isinstance(other, StringImm):
            return self.value == other.value
        return self.value == other

    def __hash__(self) -> int:
        return hash(self.value)

    def __str__(self) -> str:
        return self.value


@dataclass(eq=False)
class Var(PrimExpr):
    """A scalar variable (`te.var`); iteration variables are `IterVar`s."""

    name: str
    dtype: str = "int32"


@dataclass(eq=False)
class Binary(PrimExpr):
    op: str
    a: PrimExpr
    b: PrimExpr

    def __post_init__(self) -> None:
        if self.a.dtype != self.b.dtype:
            raise TypeError(
                f"operands of {self.op} have different dtypes: {self.a.dtype} and {self.b.dtype}"
                " (cast one with .astype)"
            )
        self.dtype = self.a.dtype


@dataclass(eq=False)
class Compare(PrimExpr):
    op: str
    a: PrimExpr
    b: PrimExpr
    dtype: str = "bool"


@dataclass(eq=False)
class Equality(Compare):
    """`a == b` or `a != b` on expressions; in Python's `if` it asks whether they are the
    same node (TVM's `EqualOp.__bool__`), or for two constants whether their values are
    equal (TVM folds those)."""

    def __bool__(self) -> bool:
        if isinstance(self.a, Const) and isinstance(self.b, Const):
            same = self.a.value == self.b.value  # TVM folds a comparison of constants
        else:
            same = self.a is self.b
        return same if self.op == "eq" else not same


@dataclass(eq=False)
class Select(PrimExpr):
    """`condition ? true_value : false_value` (`tvm.tir.Select`); as in TVM, a Select may
    evaluate both values, `if_then_else` only the taken one (xtvm evaluates only the taken
    one when a value reads a tensor, for both)."""

    condition: PrimExpr
    true_value: PrimExpr
    false_value: PrimExpr

    def __post_init__(self) -> None:
        self.condition = as_expr(self.condition, "bool")
        self.true_value = as_expr(self.true_value, "float32")
        self.false_value = as_expr(self.false_value, self.true_value.dtype)
        if self.true_value.dtype != self.false_value.dtype:
            raise TVMError(
                "the values of a Select must have one dtype, got "
                f"{self.true_value.dtype} and {self.false_value.dtype}"
            )
        self.dtype = self.true_value.dtype


class ClampedSelect(Select):
    """A Select whose values read their tensors only at indices clamped into bounds, so that
    both may be evaluated: it lowers to `arith.select` instead of a branch around each read
    (a padded read with no `scf.if` for tir-loop-partition to cut the loops around)."""


@dataclass(eq=False)
class Cast(PrimExpr):
    dtype: str
    value: PrimExpr


@dataclass(eq=False)
class Reinterpret(PrimExpr):
    """The bits of `value` read as `dtype` of the same width (`tvm.tir.reinterpret`): a
    float32 1.0 is the int32 0x3f800000."""

    dtype: str
    value: PrimExpr

    def __post_init__(self) -> None:
        self.dtype = dtype_name(self.dtype)
        self.value = as_expr(self.value)
        sizes = {np.dtype(self.dtype).itemsize, np.dtype(self.value.dtype).itemsize}
        if len(sizes) != 1 or "bool" in (self.dtype, self.value.dtype):
            raise TVMError(
                f"reinterpret needs dtypes of one width, got {self.value.dtype} to {self.dtype}"
            )


@dataclass(eq=False)
class Broadcast(PrimExpr):
    """`lanes` copies of the scalar `value` (`tvm.tir.Broadcast`)."""

    value: PrimExpr
    lanes: int

    def __post_init__(self) -> None:
        self.value = as_expr(self.value, "float32")
        base, lanes = split_dtype(self.value.dtype)
        if lanes != 1 or not isinstance(self.lanes, int) or not 2 <= self.lanes <= 64:
            raise TVMError(f"Broadcast needs a scalar and 2 to 64 lanes, got {self.value.dtype}")
        self.dtype = vector_dtype(base, self.lanes)


@dataclass(eq=False)
class Ramp(PrimExpr):
    """`base, base + stride, ..., base + (lanes - 1) * stride` (`tvm.tir.Ramp`), a vector of
    integers: as an index, `lanes` consecutive elements (stride 1)."""

    base: PrimExpr
    stride: PrimExpr
    lanes: int

    def __post_init__(self) -> None:
        self.base = as_expr(self.base)
        self.stride = as_expr(self.stride, self.base.dtype)
        if not self.base.dtype.startswith(("int", "uint")) or self.stride.dtype != self.base.dtype:
            raise TVMError(f"Ramp needs integer base and stride, got {self.base.dtype}")
        if not isinstance(self.lanes, int) or not 2 <= self.lanes <= 64:
            raise TVMError(f"Ramp needs 2 to 64 lanes, got {self.lanes}")
        self.dtype = vector_dtype(self.base.dtype, self.lanes)


@dataclass(eq=False)
class Call(PrimExpr):
    """An intrinsic: exp, log, sqrt, tanh, erf, sin, cos, tan, atan, abs, floor, ceil, power, max,
    min, sigmoid."""

    name: str
    args: tuple[PrimExpr, ...]

    def __post_init__(self) -> None:
        self.dtype = self.args[0].dtype


@dataclass(eq=False)
class Read(PrimExpr):
    """`tensor[indices]`."""

    tensor: Tensor
    indices: tuple[PrimExpr, ...]

    def __post_init__(self) -> None:
        self.dtype = self.tensor.dtype


@dataclass(eq=False)
class CommReducer:
    """A commutative, associative reducer made by `te.comm_reducer(fcombine, fidentity)`:
    `fcombine(x, y)` combines two values, `fidentity(dtype)` is its identity element.

    A tuple reducer (an argmax) reduces several values together: `fcombine(x, y)` takes and
    returns tuples, `fidentity(dtype0, dtype1, ...)` returns one identity per value, and
    `reducer((a, b), axis=k)` gives one reduction per value (the outputs of one compute)."""

    fcombine: Callable[..., object]
    fidentity: Callable[..., object]
    name: str = "reduce"

    def combine(self, x: PrimExpr, y: PrimExpr) -> PrimExpr:
        return as_expr(self.fcombine(x, y), x.dtype)

    def identity(self, dtype: str) -> PrimExpr:
        return as_expr(self.fidentity(dtype), dtype)

    def combine_tuple(self, x: Sequence[PrimExpr], y: Sequence[PrimExpr]) -> tuple[PrimExpr, ...]:
        """A tuple reducer's combination of the value tuples `x` and `y`."""
        result = self.fcombine(tuple(x), tuple(y))
        return tuple(
            as_expr(v, a.dtype) for v, a in zip(self._tuple(result, len(x)), x, strict=True)
        )

    def identity_tuple(self, dtypes: Sequence[str]) -> tuple[PrimExpr, ...]:
        result = self.fidentity(*dtypes)
        return tuple(
            as_expr(v, d) for v, d in zip(self._tuple(result, len(dtypes)), dtypes, strict=True)
        )

    def _tuple(self, value: object, size: int) -> tuple[object, ...]:
        if not isinstance(value, tuple | list) or len(value) != size:
            raise TVMError(
                f"te.comm_reducer '{self.name}': reducing {size} values, its fcombine and "
                f"fidentity must return {size}-tuples, got {value!r}"
            )
        return tuple(value)

    def __call__(
        self, expr: object, axis: object = None, where: object = None, init: object = None
    ) -> Any:
        """`reducer(expr, axis=k[, where=cond])` reduces over reduce axes; `reducer(a, b)`
        combines two values, as TVM's reducers do."""
        if axis is None:
            raise TypeError(f"{self.name} needs an axis (or a second value to combine with)")
        is_axis = isinstance(axis, list | tuple) or (
            isinstance(axis, IterVar) and axis.iter_type == IterVar.COMM_REDUCE
        )
        if isinstance(expr, tuple | list):
            values = tuple(as_expr(v, "float32") for v in expr)
            if not is_axis:
                return self.combine_tuple(values, [as_expr(v) for v in axis])  # type: ignore[union-attr]
            return tuple_reduction(self, values, axis, where, init)
        if not is_axis:
            x = as_expr(expr)
            return self.combine(x, as_expr(axis, x.dtype))
        return reduction(self.name, self, expr, axis, where, init, self.identity)


def reduce_axes(what: str, axis: object) -> tuple[IterVar, ...]:
    axes = tuple(axis) if isinstance(axis, list | tuple) else (axis,)
    if not builtins.all(
        isinstance(a, IterVar) and a.iter_type == IterVar.COMM_REDUCE for a in axes
    ):
        raise TypeError(f"{what}: axis must be reduce axes (te.reduce_axis)")
    return axes  # type: ignore[return-value]


def reduction(
    what: str,
    combiner: str | CommReducer,
    expr: object,
    axis: object,
    where: object,
    init: object,
    identity: Callable[[str], PrimExpr],
) -> Reduce:
    """The reduction of `expr` over reduce axes `axis` by `combiner`, only where `where`
    holds (elsewhere the combiner's `identity(dtype)` is reduced)."""
    axes = reduce_axes(what, axis)
    source = as_expr(expr, "float32")
    if where is not None:
        source = Select(as_expr(where), source, identity(source.dtype))
    start = None if init is None else as_expr(init, source.dtype)
    if start is not None and start.dtype != source.dtype:
        raise TypeError(f"{what}: init has dtype {start.dtype}, the values {source.dtype}")
    return Reduce(combiner, source, axes, init=start)


def tuple_reduction(
    reducer: CommReducer,
    values: tuple[PrimExpr, ...],
    axis: object,
    where: object,
    init: object,
) -> tuple[Reduce, ...]:
    """A tuple reducer's reduction of `values` together: one Reduce per value, all sharing
    the values (where `where` fails, the identities are reduced)."""
    if init is not None:
        raise NotImplementedError(f"te.comm_reducer '{reducer.name}': init of a tuple reducer")
    axes = reduce_axes(reducer.name, axis)
    dtypes = [v.dtype for v in values]
    identities = reducer.identity_tuple(dtypes)  # both checked now, as TVM builds them now
    reducer.combine_tuple([Var("x", d) for d in dtypes], [Var("y", d) for d in dtypes])
    if where is not None:
        cond = as_expr(where)
        values = tuple(Select(cond, v, e) for v, e in zip(values, identities, strict=True))
    return tuple(Reduce(reducer, v, axes, values, k) for k, v in enumerate(values))


def comm_reducer(
    fcombine: Callable[..., object],
    fidentity: Callable[..., object],
    name: str = "reduce",
) -> CommReducer:
    """A reducer from a combining function and an identity (TVM's `te.comm_reducer`):
    `mysum = te.comm_reducer(lambda x, y: x + y, lambda t: tvm.tir.const(0, dtype=t))`, or
    over tuples, as an argmax (see CommReducer).

    `fidentity` must give constants; the name is only shown (it may be a built-in's).
    """
    return CommReducer(fcombine, fidentity, str(name))


@dataclass(eq=False)
class Reduce(PrimExpr):
    """A commutative reduction of `source` over `axes` (te.sum, te.max, ..., or a
    `te.comm_reducer`'s). Of a tuple reducer, `sources` are all the values reduced together
    and `source` is the one this reduction gives, `sources[value_index]`."""

    combiner: str | CommReducer
    source: PrimExpr
    axes: tuple[IterVar, ...]
    sources: tuple[PrimExpr, ...] = ()
    value_index: int = 0
    init: PrimExpr | None = None
    """The value the reduction starts from in place of the identity (`te.sum(..., init=x)`),
    an expression of the compute's axes."""

    def __post_init__(self) -> None:
        if not self.sources:
            self.sources = (self.source,)
        self.dtype = self.source.dtype


def max_value(dtype: str) -> Const:
    """The largest value of `dtype`."""
    dtype = dtype_name(dtype)
    if dtype.startswith("float"):
        return FloatImm(dtype, float(np.finfo(dtype).max))
    return IntImm(dtype, 1 if dtype == "bool" else int(np.iinfo(dtype).max))


def min_value(dtype: str) -> Const:
    """The smallest value of `dtype`."""
    dtype = dtype_name(dtype)
    if dtype.startswith("float"):
        return FloatImm(dtype, float(np.finfo(dtype).min))
    return IntImm(dtype, 0 if dtype == "bool" else int(np.iinfo(dtype).min))


# ---------------------------------------------------------------------------------------------
# Iteration variables, tensors, operations


Extent = int | PrimExpr  # a dimension: static, or an expression of te.vars


@dataclass(frozen=True)
class Range:
    """`[min, min + extent)` (TVM's `tvm.ir.Range`)."""

    min: Extent
    extent: Extent

    @staticmethod
    def from_min_extent(min_value: object, extent: object) -> Range:
        return Range(as_expr(min_value), as_expr(extent))


def as_extent(value: object, what: str) -> Extent:
    """A dimension as an int, or as an integer expression when it is symbolic."""
    if isinstance(value, PrimExpr):
        if isinstance(value, Const):
            return int(value.value)
        if not value.dtype.startswith(("int", "uint")):
            raise TypeError(f"{what}: a symbolic extent must be an integer, got {value.dtype}")
        return value
    return int(value)  # type: ignore[call-overload]


class IterVar(PrimExpr):
    """An axis: a loop variable with a domain; reduce axes and thread axes are IterVars too."""

    DATA_PAR = 0
    THREAD_INDEX = 1
    COMM_REDUCE = 2
    # TVM's names of the iteration types (`IterVar.Vectorized`: what a primitive made a loop)
    DataPar = 0
    ThreadIndex = 1
    CommReduce = 2
    Ordered = 3
    DimInfo = 4
    Unrolled = 5
    Vectorized = 6
    Parallelized = 7
    Tensorized = 8

    def __init__(self, extent: Extent, name: str, iter_type: int = 0, thread_tag: str = "") -> None:
        self.dom = Range(0, extent)
        self.name = name
        self.iter_type = iter_type
        self.thread_tag = thread_tag
        self.dtype = "int32"

    @property
    def var(self) -> IterVar:
        return self

    def __repr__(self) -> str:
        return f"IterVar({self.name}, extent={self.dom.extent})"


class Operation:
    """What defines tensors: a placeholder, a compute (one tensor or several) or a scan."""

    name: str
    outputs: list[Tensor]

    def output(self, index: int) -> Tensor:
        if not 0 <= index < len(self.outputs):
            raise IndexError(f"{self.name} has {len(self.outputs)} outputs, not {index + 1}")
        return self.outputs[index]

    @property
    def _output(self) -> Tensor:
        return self.outputs[0]

    @property
    def num_outputs(self) -> int:
        return len(self.outputs)

    @property
    def output_names(self) -> list[str]:
        """The te-dialect names of the outputs: the op's name, then `<name>.v1`, ..."""
        return [self.name] + [f"{self.name}.v{k}" for k in range(1, len(self.outputs))]


class PlaceholderOp(Operation):
    def __init__(self, name: str, shape: tuple[Extent, ...], dtype: str) -> None:
        self.name = name
        self.outputs = [Tensor(self, shape, dtype)]
        self.shape = shape
        self.dtype = dtype

    @property
    def input_tensors(self) -> list[Tensor]:
        return []


class ComputeOp(Operation):
    """`te.compute`: one tensor per body, all over the same axes (TVM's multi-output compute
    returns a tuple of values; xtvm lowers each output as a stage of its own, scheduled
    alike)."""

    def __init__(
        self,
        name: str,
        tag: str,
        axis: list[IterVar],
        body: PrimExpr | Sequence[PrimExpr],
        attrs: dict[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.tag = tag
        self.axis = axis
        self.bodies: list[PrimExpr] = [body] if isinstance(body, PrimExpr) else list(body)
        self.body = self.bodies[0]
        self.attrs = dict(attrs or {})
        self.reduce_axis = list(self.body.axes) if isinstance(self.body, Reduce) else []
        shape = tuple(a.dom.extent for a in axis)
        self.outputs = [Tensor(self, shape, b.dtype, k) for k, b in enumerate(self.bodies)]

    @property
    def input_tensors(self) -> list[Tensor]:
        found: dict[int, Tensor] = {}
        for body in self.bodies:
            for node in walk(body):
                if isinstance(node, Read):
                    found.setdefault(id(node.tensor), node.tensor)
        return list(found.values())


class ScanOp(Operation):
    """`te.scan`: tensors defined row by row over their first dimension (the scan axis).

    Rows below the inits' first extent are the inits'; row `t` after that is row `t` of the
    updates, which read earlier rows through the state placeholders.
    """

    def __init__(
        self,
        name: str,
        tag: str,
        init: list[Tensor],
        update: list[Tensor],
        state_placeholder: list[Tensor],
    ) -> None:
        self.name = name
        self.tag = tag
        self.init = init
        self.update = update
        self.state_placeholder = state_placeholder
        self.scan_axis = IterVar(update[0].shape[0], f"{name}.idx")
        self.scan_axis.dom = Range(init[0].shape[0], update[0].shape[0])  # type: ignore[arg-type]
        self.axis: list[IterVar] = [self.scan_axis]
        self.reduce_axis: list[IterVar] = []
        self.outputs = [Tensor(self, p.shape, p.dtype, k) for k, p in enumerate(state_placeholder)]

    @property
    def input_tensors(self) -> list[Tensor]:
        return [*self.init, *self.update]


class Tensor:
    """A tensor produced by an operation; `A[i, j]` or `A(i, j)` reads an element."""

    def __init__(
        self, op: Operation, shape: tuple[Extent, ...], dtype: str, value_index: int = 0
    ) -> None:
        self.op = op
        self.shape = shape
        self.dtype = dtype
        self.value_index = value_index

    @property
    def name(self) -> str:
        return self.op.name if self.value_index == 0 else f"{self.op.name}.v{self.value_index}"

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __call__(self, *indices: object) -> Read:
        if len(indices) != self.ndim:
            raise IndexError(f"{self.name} is {self.ndim}-d, read with {len(indices)} indices")
        return Read(self, tuple(as_expr(i) for i in indices))

    def __getitem__(self, indices: object) -> Read | TensorSlice:
        given = indices if isinstance(indices, tuple) else (indices,)
        if len(given) < self.ndim:
            return TensorSlice(self, given)  # A[i][j]
        return self(*given)

    def __repr__(self) -> str:
        return f"Tensor({self.name}, shape={self.shape}, dtype={self.dtype})"


@dataclass(frozen=True)
class TensorSlice:
    """`A[i]` of a tensor of more dimensions: `A[i][j]` reads `A[i, j]`."""

    tensor: Tensor
    indices: tuple[object, ...]

    def __getitem__(self, indices: object) -> Read | TensorSlice:
        more = indices if isinstance(indices, tuple) else (indices,)
        return self.tensor[(*self.indices, *more)]


def walk(expr: PrimExpr) -> list[PrimExpr]:
    """Every node of an expression, parents before children, each once."""
    seen: set[int] = set()
    order: list[PrimExpr] = []
    stack = [expr]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node)
        stack.extend(children(node))
    return order


def children(node: PrimExpr) -> list[PrimExpr]:
    if isinstance(node, Binary | Compare):
        return [node.a, node.b]
    if isinstance(node, Select):
        return [node.condition, node.true_value, node.false_value]
    if isinstance(node, Cast | Reinterpret):
        return [node.value]
    if isinstance(node, Call):
        return list(node.args)
    if isinstance(node, Read):
        return list(node.indices)
    if isinstance(node, Reduce):
        return [*node.sources, *([] if node.init is None else [node.init])]
    if isinstance(node, Broadcast):
        return [node.value]
    if isinstance(node, Ramp):
        return [node.base, node.stride]
    return []


def post_order(expr: PrimExpr) -> list[PrimExpr]:
    """Every node of an expression, children (in order) before parents, each once; iterative,
    so an expression of any depth (a chain of thousands of ops) is fine."""
    return traversal.post_order([expr], children)


def substitute(
    expr: PrimExpr,
    axes: Mapping[int, PrimExpr],
    reads: Mapping[int, Callable[[tuple[PrimExpr, ...]], PrimExpr]] | None = None,
) -> PrimExpr:
    """`expr` with the IterVars in `axes` (keyed by id) replaced by their expressions (other
    IterVars, or expressions of them), and each read of a tensor in `reads` (keyed by the
    tensor's id) by what its function makes of the read's (substituted) indices; shared
    nodes stay shared."""
    redirect = reads or {}
    memo: dict[int, PrimExpr] = {}

    def sub(node: PrimExpr) -> PrimExpr:
        return memo[id(node)]

    def rebuild(node: PrimExpr) -> PrimExpr:
        if isinstance(node, IterVar):
            return axes.get(id(node), node)
        if isinstance(node, Binary):
            return Binary(node.op, sub(node.a), sub(node.b))
        if isinstance(node, Compare):
            return Compare(node.op, sub(node.a), sub(node.b))
        if isinstance(node, Select):
            return type(node)(sub(node.condition), sub(node.true_value), sub(node.false_value))
        if isinstance(node, Cast | Reinterpret):
            return type(node)(node.dtype, sub(node.value))
        if isinstance(node, Call):
            return Call(node.name, tuple(sub(a) for a in node.args))
        if isinstance(node, Read):
            indices = tuple(sub(i) for i in node.indices)
            moved = redirect.get(id(node.tensor))
            return Read(node.tensor, indices) if moved is None else moved(indices)
        if isinstance(node, Broadcast):
            return Broadcast(sub(node.value), node.lanes)
        if isinstance(node, Ramp):
            return Ramp(sub(node.base), sub(node.stride), node.lanes)
        if isinstance(node, Reduce):
            sources = tuple(sub(v) for v in node.sources)
            k = node.value_index
            init = None if node.init is None else sub(node.init)
            return Reduce(node.combiner, sources[k], node.axes, sources, k, init)
        return node

    for node in post_order(expr):  # children first: rebuild finds them in the memo
        memo[id(node)] = rebuild(node)
    return memo[id(expr)]


# ---------------------------------------------------------------------------------------------
# Constructors (te.*)


def shape_of(shape: object, what: str) -> tuple[Extent, ...]:
    dims = shape if isinstance(shape, list | tuple) else (shape,)
    return tuple(as_extent(d, what) for d in dims)


def placeholder(
    shape: Sequence[Extent] | Extent, dtype: str = "float32", name: str = "placeholder"
) -> Tensor:
    """An input tensor; `?`-sized where a dimension is symbolic (`(n, 4)` with `n = te.var()`)."""
    return PlaceholderOp(name, shape_of(shape, f"placeholder {name}"), dtype_name(dtype)).output(0)


class TagScope:
    """`with te.tag_scope("conv"):` or `@te.tag_scope(tag="conv")`: the computes made inside
    take that tag (TVM's `tag_scope`); scopes do not nest."""

    current: TagScope | None = None

    def __init__(self, tag: str) -> None:
        self.tag = tag

    def __enter__(self) -> TagScope:
        if TagScope.current is not None:
            raise ValueError("nested op_tag is not allowed for now")
        TagScope.current = self
        return self

    def __exit__(self, *exc: object) -> None:
        TagScope.current = None

    def __call__(self, fdecl: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fdecl)
        def tagged(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fdecl(*args, **kwargs)

        return tagged


def tag_scope(tag: str) -> TagScope:
    return TagScope(tag)


def compute(
    shape: Sequence[Extent] | Extent,
    fcompute: Callable[..., object],
    name: str = "compute",
    tag: str = "",
    attrs: dict[str, Any] | None = None,
) -> Any:
    """A tensor whose element at (i, j, ...) is `fcompute(i, j, ...)`; axes are named after
    fcompute's parameters, as in TVM."""
    dims = shape_of(shape, f"compute {name}")
    params = [
        p.name
        for p in inspect.signature(fcompute).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    names = params if len(params) == len(dims) else [f"i{k}" for k in range(len(dims))]
    axis = [IterVar(d, n) for d, n in zip(dims, names, strict=True)]
    value = fcompute(*axis)
    values = list(value) if isinstance(value, list | tuple) else [value]
    bodies = [as_expr(v, "float32") for v in values]
    reductions = [b for b in bodies if isinstance(b, Reduce)]
    if reductions and len(bodies) > 1:
        first = reductions[0]
        together = len(reductions) == len(bodies) == len(first.sources) and builtins.all(
            len(r.sources) == len(first.sources)
            and builtins.all(a is b for a, b in zip(r.sources, first.sources, strict=True))
            and r.value_index == k
            for k, r in enumerate(reductions)
        )
        if not together:
            raise TVMError(
                f"compute {name}: the outputs of a compute with a reduction must be the "
                "values of one tuple reduction, in order"
            )
    for body in bodies:
        if not isinstance(body, Reduce):
            for node in walk(body):
                if isinstance(node, Reduce):
                    raise ValueError(f"compute {name}: a reduction must be the whole body")
    if not tag and TagScope.current is not None:
        tag = TagScope.current.tag
    op = ComputeOp(name, tag, axis, bodies, attrs)
    return op.outputs[0] if len(bodies) == 1 else op.outputs


def scan(
    init: Tensor | Sequence[Tensor],
    update: Tensor | Sequence[Tensor],
    state_placeholder: Tensor | Sequence[Tensor],
    inputs: Sequence[Tensor] | None = None,
    name: str = "scan",
    tag: str = "",
    attrs: dict[str, Any] | None = None,
) -> Any:
    """A recurrence over the first dimension (TVM's `te.scan`); one tensor per state.

    `update` computes row `t` of each state reading rows before `t` through
    `state_placeholder`; the first `init.shape[0]` rows are `init`'s.
    """
    inits = [init] if isinstance(init, Tensor) else list(init)
    updates = [update] if isinstance(update, Tensor) else list(update)
    states = (
        [state_placeholder] if isinstance(state_placeholder, Tensor) else list(state_placeholder)
    )
    if not len(inits) == len(updates) == len(states):
        raise TVMError("scan: give as many inits and updates as state placeholders")
    for k, (i, u, p) in enumerate(zip(inits, updates, states, strict=True)):
        if not isinstance(p.op, PlaceholderOp):
            raise TVMError(f"scan: state {k} must be a te.placeholder")
        if len(u.shape) != len(p.shape) or len(i.shape) != len(p.shape):
            raise TVMError(f"scan: init, update and state {k} must have the same rank")
        if not i.dtype == u.dtype == p.dtype:
            raise TVMError(f"scan: init, update and state {k} must have one dtype")
    if not tag and TagScope.current is not None:
        tag = TagScope.current.tag
    op = ScanOp(name, tag, inits, updates, states)
    return op.outputs[0] if len(states) == 1 else op.outputs


def reduce_axis(dom: Sequence[Extent], name: str = "rv") -> IterVar:
    """A reduce axis over [begin, end); `end` may be symbolic, `begin` must be 0."""
    begin, end = (as_extent(d, f"reduce_axis {name}") for d in dom)
    if begin != 0:
        raise NotImplementedError(f"reduce_axis {name}: the domain must start at 0, got {begin}")
    return IterVar(end, name, IterVar.COMM_REDUCE)


def thread_axis(tag: str = "", name: str = "") -> IterVar:
    """An axis bound to a GPU thread index (`blockIdx.x`, `threadIdx.x`, `vthread`)."""
    return IterVar(0, name or tag, IterVar.THREAD_INDEX, tag)


def var(name: str = "tindex", dtype: str = "int32") -> Var:
    return Var(name, dtype_name(dtype))


size_var = var


def const(value: Number, dtype: str | None = None) -> Const | Broadcast:
    """`tvm.tir.const`: an IntImm or FloatImm, int32/float32/bool unless `dtype` is given;
    of a vector dtype (`float32x4`), the scalar's Broadcast."""
    if dtype is None:
        dtype = (
            "bool" if isinstance(value, bool) else "int32" if isinstance(value, int) else "float32"
        )
    base, lanes = split_dtype(dtype)
    scalar = make_const(value, base)
    return scalar if lanes == 1 else Broadcast(scalar, lanes)


def _reducer(combiner: str) -> Callable[..., PrimExpr]:
    def reduce(
        expr: object, axis: object = None, where: object = None, init: object = None
    ) -> PrimExpr:
        if axis is None:
            raise TypeError(f"te.{combiner} needs an axis")
        elementwise = isinstance(axis, int | float) or (
            isinstance(axis, PrimExpr)
            and not (isinstance(axis, IterVar) and axis.iter_type == IterVar.COMM_REDUCE)
        )
        if elementwise:  # te.min(a, b)
            return Call(combiner, (as_expr(expr), as_expr(axis, as_expr(expr).dtype)))
        return reduction(
            f"te.{combiner}",
            combiner,
            expr,
            axis,
            where,
            init,
            lambda dtype: Const(IDENTITY[combiner](dtype), dtype),
        )

    reduce.__name__ = combiner
    reduce.__doc__ = f"te.{combiner}(expr, axis=k): the {combiner} of expr over reduce axes."
    return reduce


def _identity(combiner: str) -> Callable[[str], Number]:
    def value(dtype: str) -> Number:
        if combiner in ("sum", "prod"):
            return 0 if combiner == "sum" else 1
        if dtype.startswith("float"):
            return float("-inf") if combiner == "max" else float("inf")
        info = np.iinfo(dtype)
        return int(info.min) if combiner == "max" else int(info.max)

    return value


IDENTITY = {c: _identity(c) for c in ("sum", "prod", "max", "min")}
sum = _reducer("sum")
max = _reducer("max")
min = _reducer("min")
prod = _reducer("prod")


def all(*conditions: object) -> PrimExpr:
    """The conjunction of boolean conditions (TVM's `tvm.tir.all`)."""
    result = as_expr(conditions[0])
    for condition in conditions[1:]:
        result = Binary("and", result, as_expr(condition))
    return result


def any(*conditions: object) -> PrimExpr:
    """The disjunction of boolean conditions (TVM's `tvm.tir.any`)."""
    result = as_expr(conditions[0])
    for condition in conditions[1:]:
        result = Binary("or", result, as_expr(condition))
    return result


def if_then_else(cond: object, t: object, f: object) -> PrimExpr:
    true_value = as_expr(t, "float32")
    return Select(as_expr(cond), true_value, as_expr(f, true_value.dtype))


def _intrinsic(name: str) -> Callable[[object], PrimExpr]:
    def call(x: object) -> PrimExpr:
        return Call(name, (as_expr(x, "float32"),))

    call.__name__ = name
    return call


exp = _intrinsic("exp")
log = _intrinsic("log")
sqrt = _intrinsic("sqrt")
rsqrt = _intrinsic("rsqrt")
tanh = _intrinsic("tanh")
sigmoid = _intrinsic("sigmoid")
erf = _intrinsic("erf")
sin = _intrinsic("sin")
cos = _intrinsic("cos")
tan = _intrinsic("tan")
atan = _intrinsic("atan")
abs = _intrinsic("abs")
floor = _intrinsic("floor")
ceil = _intrinsic("ceil")
round = _intrinsic("round")  # TVM's name: to nearest, ties to even


def power(x: object, y: object) -> PrimExpr:
    base = as_expr(x, "float32")
    return Call("power", (base, as_expr(y, base.dtype)))


def _operands(a: object, b: object) -> tuple[PrimExpr, PrimExpr]:
    """Two operands in one dtype: a Python number takes the other operand's dtype."""
    if not isinstance(a, PrimExpr) and isinstance(b, PrimExpr):
        return as_expr(a, b.dtype), b
    lhs = as_expr(a)
    return lhs, as_expr(b, lhs.dtype)


def div(a: object, b: object) -> PrimExpr:
    """`a / b` as in C: truncating for integers."""
    return Binary("div", *_operands(a, b))


def truncdiv(a: object, b: object) -> PrimExpr:
    """Integer division rounding towards zero."""
    lhs, rhs = _operands(a, b)
    if lhs.dtype.startswith("float"):
        raise TVMError(f"truncdiv needs integer operands, got {lhs.dtype}")
    return Binary("div", lhs, rhs)


def truncmod(a: object, b: object) -> PrimExpr:
    """The remainder of `truncdiv` (the sign of `a`, as C's `%`)."""
    lhs, rhs = _operands(a, b)
    if lhs.dtype.startswith("float"):
        raise TVMError(f"truncmod needs integer operands, got {lhs.dtype}")
    return Binary("truncmod", lhs, rhs)


def floordiv(a: object, b: object) -> PrimExpr:
    """Division rounding towards minus infinity (Python's `//`)."""
    return Binary("floordiv", *_operands(a, b))


def floormod(a: object, b: object) -> PrimExpr:
    """The remainder of `floordiv` (the sign of `b`, as Python's `%`)."""
    return Binary("floormod", *_operands(a, b))


indexdiv = floordiv  # TVM's index arithmetic is floor division
indexmod = floormod


def fmod(a: object, b: object) -> PrimExpr:
    """The floating-point remainder of `a / b` (C's fmod: the sign of `a`)."""
    lhs, rhs = _operands(a, b)
    if not lhs.dtype.startswith("float"):
        raise TVMError(f"fmod needs float operands, got {lhs.dtype}; use truncmod")
    return Binary("truncmod", lhs, rhs)


def reinterpret(dtype: str, value: object, span: object = None) -> PrimExpr:
    """`value`'s bits read as `dtype` of the same width (TVM's `tir.reinterpret`)."""
    return Reinterpret(dtype, as_expr(value))


def popcount(x: object) -> PrimExpr:
    """The number of set bits of an integer."""
    value = as_expr(x)
    if not value.dtype.startswith(("int", "uint")):
        raise TVMError(f"popcount needs an integer, got {value.dtype}")
    return Call("popcount", (value,))
