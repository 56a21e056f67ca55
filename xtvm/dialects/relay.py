"""The relay dialect: TVM's graph IR of tensor operators.

Values are builtin ranked tensors with static shapes and builtin tuples of them; functions,
calls and returns are xDSL's `func` dialect. Op names are TVM's (`relay.nn.conv2d`, `relay.add`),
attributes are properties written in the attribute dictionary, and every op shares one custom
syntax, `relay.<op> operands {properties} : (operand types) -> result type`.

Each op infers its result types from its operand types and properties
(`infer_result_types`, a classmethod a type-inference pass can call without an op), and its
verifier checks the result types against that inference. Each op also declares its TVM operator
pattern (`PATTERN`), which operator fusion reads.

Conventions that differ from TVM or need a choice:
- integer lists are `array<i64: ...>` (DenseArrayBase), bools `true`/`false`, floats `FloatAttr`;
- `padding` of conv and pool ops is always four numbers: top, left, bottom, right;
- `argmax`/`argmin` produce i32 indices, as TVM does (ONNX's int64 is a cast away);
- `nn.batch_norm` returns TVM's 3-tuple (output, moving mean, moving variance); `nn.dropout`
  returns its input's type alone (inference semantics);
- integer `divide` truncates toward zero, as TVM and C do;
- pools with ceil_mode drop a last window that would start in the bottom/right padding, as
  PyTorch and ONNX do (TVM keeps it).
"""

from __future__ import annotations

import enum
import itertools
import math
from abc import ABC
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    I64,
    BFloat16Type,
    BoolAttr,
    BytesAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    TupleType,
    f64,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    ParamAttrConstraint,
    ParsePropInAttrDict,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import ConstantLike, Pure
from xdsl.utils.exceptions import VerifyException

from xtvm.ir.numpy_types import element_type, numpy_dtype

Operand = SSAValue | Operation
FLOAT_TYPES = (Float16Type, BFloat16Type, Float32Type, Float64Type)


class OpPattern(enum.IntEnum):
    """TVM's operator pattern kinds (`relay.op.OpPattern`), read by operator fusion."""

    ELEMWISE = 0
    BROADCAST = 1
    INJECTIVE = 2
    COMM_REDUCE = 3
    OUT_ELEMWISE_FUSABLE = 4
    TUPLE = 7
    OPAQUE = 8


# ---------------------------------------------------------------------------------------------
# Attribute and type helpers


def int_array(values: Sequence[int]) -> DenseArrayBase:
    """`array<i64: ...>`, the form of every integer-list property."""
    return DenseArrayBase.from_list(i64, [int(v) for v in values])


def int_attr(value: int) -> IntegerAttr:
    return IntegerAttr(int(value), i64)


def float_attr(value: float) -> FloatAttr:
    return FloatAttr(float(value), f64)


def bool_attr(value: bool) -> BoolAttr:
    return IntegerAttr(int(bool(value)), i1)


def array_values(attr: Attribute) -> tuple[int, ...]:
    """The integers of an `array<i64: ...>` property."""
    assert isinstance(attr, DenseArrayBase)
    return tuple(int(v) for v in attr.get_values())


def dense_from_numpy(array: np.ndarray) -> DenseIntOrFPElementsAttr:
    """A `dense<...>` attribute holding `array` (its dtype picks the element type).

    An array that views a whole `bytes` object (an ONNX initializer's `raw_data`) shares it
    instead of copying it: a model's weights are not held twice while it compiles."""
    array = np.asarray(array)
    elem = element_type(array.dtype)
    raw = array.astype(np.int8) * -1 if array.dtype == np.bool_ else array  # i1 true is -1
    stored = raw.astype(np.dtype(elem.format), copy=False)  # type: ignore[attr-defined]
    data = viewed_bytes(stored)
    # tobytes() lays a transposed view out in row-major order in its one copy.
    return DenseIntOrFPElementsAttr(
        TensorType(elem, array.shape), BytesAttr(stored.tobytes() if data is None else data)
    )


def viewed_bytes(array: np.ndarray) -> bytes | None:
    """The `bytes` object whose every byte, in order, `array` views; else None."""
    base = array.base
    while isinstance(base, np.ndarray):
        base = base.base
    if not isinstance(base, bytes) or len(base) != array.nbytes or not array.flags.c_contiguous:
        return None
    return base if np.frombuffer(base, np.uint8).ctypes.data == array.ctypes.data else None


def numpy_from_dense(attr: DenseIntOrFPElementsAttr, copy: bool = True) -> np.ndarray:
    """The value of a `dense<...>` attribute as a numpy array of its element type (without
    `copy`, where the types allow, a read-only view of the attribute's bytes)."""
    elem = attr.get_element_type()
    raw = np.frombuffer(attr.data.data, dtype=np.dtype(elem.format))  # type: ignore[attr-defined]
    value = raw != 0 if numpy_dtype(elem) == np.bool_ else raw.astype(numpy_dtype(elem), copy=copy)
    return value.reshape(attr.get_shape())


def fmt_shape(shape: Sequence[int]) -> str:
    """`2x3`, as shapes are written in tensor types; `scalar` for rank 0."""
    return "x".join(str(d) for d in shape) if shape else "scalar"


def fmt_list(values: Sequence[object]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def is_float(elem: Attribute) -> bool:
    return isinstance(elem, FLOAT_TYPES)


def is_bool(elem: Attribute) -> bool:
    return isinstance(elem, IntegerType) and elem.width.data == 1


def is_int(elem: Attribute) -> bool:
    """An integer element type other than i1."""
    return isinstance(elem, IntegerType) and elem.width.data != 1


def canonical_type(typ: Attribute) -> Attribute:
    """`typ` with tuple fields held as Python tuples, so that equal types compare equal.

    xDSL keeps whatever sequence a TupleType was built from, and `[a] != (a,)`.
    """
    if isinstance(typ, TupleType):
        return TupleType(tuple(canonical_type(t) for t in typ.types.data))
    return typ


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...] | None:
    """numpy's broadcast of `shapes`, or None when they do not broadcast."""
    rank = max(len(s) for s in shapes)
    out: list[int] = []
    for i in range(rank):
        dims = {s[i - rank + len(s)] for s in shapes if i - rank + len(s) >= 0}
        dims.discard(1)
        if len(dims) > 1:
            return None
        out.append(dims.pop() if dims else 1)
    return tuple(out)


@dataclass(frozen=True)
class Layout:
    """A TVM data layout such as `NCHW`, `NHWC` or `NCHW8c`.

    Capitals are primal axes; `<factor><letter>` is the inner part of the primal axis with that
    letter, split off with the given factor (`NCHW8c`: C is split in C/8 outer x 8 inner).
    """

    text: str
    axes: tuple[str, ...]
    factors: Mapping[str, int]

    @staticmethod
    def parse(text: str) -> Layout:
        axes: list[str] = []
        factors: dict[str, int] = {}
        digits = ""
        for ch in text:
            if ch.isdigit():
                digits += ch
                continue
            if not ch.isalpha() or ch in axes:
                raise ValueError(f"invalid layout {text!r}")
            if ch.islower() != bool(digits) or (digits and int(digits) < 1):
                raise ValueError(f"invalid layout {text!r}")
            if digits:
                factors[ch.upper()] = int(digits)
                digits = ""
            axes.append(ch)
        primal = [a for a in axes if a.isupper()]
        if digits or any(a.upper() not in primal for a in axes if a.islower()):
            raise ValueError(f"invalid layout {text!r}")
        return Layout(text, tuple(axes), factors)

    @property
    def primal(self) -> str:
        """The primal axes in the order they appear (`NCHW` for `NCHW8c`)."""
        return "".join(a for a in self.axes if a.isupper())

    def primal_sizes(self, shape: Sequence[int]) -> dict[str, int]:
        """The size of each primal axis of a tensor of `shape` in this layout."""
        if len(shape) != len(self.axes):
            raise ValueError(f"layout {self.text} needs rank {len(self.axes)}, got {len(shape)}")
        sizes: dict[str, int] = {}
        for axis, dim in zip(self.axes, shape, strict=True):
            if axis.islower() and dim != self.factors[axis.upper()]:
                raise ValueError(
                    f"dimension {self.axes.index(axis)} of layout {self.text} must be "
                    f"{self.factors[axis.upper()]}, got {dim}"
                )
            if axis.isupper():
                sizes[axis] = dim * self.factors.get(axis, 1)
        return sizes

    def indices(self, primal: Mapping[str, Any]) -> list[Any]:
        """The index along each axis of this layout of the element at `primal` indices (ints
        or expressions supporting `//` and `%`): a split axis's outer part is the primal
        index divided by the factor, its inner part the remainder."""
        out = []
        for axis in self.axes:
            factor = self.factors.get(axis.upper())
            value = primal[axis.upper()]
            if factor is not None:
                value = value // factor if axis.isupper() else value % factor
            out.append(value)
        return out

    def shape(self, sizes: Mapping[str, int]) -> tuple[int, ...]:
        """The shape in this layout of a tensor whose primal axes have `sizes`."""
        out: list[int] = []
        for axis in self.axes:
            factor = self.factors.get(axis.upper(), 1)
            if axis.islower():
                out.append(factor)
                continue
            if sizes[axis] % factor:
                raise ValueError(f"axis {axis} of size {sizes[axis]} does not split by {factor}")
            out.append(sizes[axis] // factor)
        return tuple(out)


# ---------------------------------------------------------------------------------------------
# Properties: constraints and typed access with defaults filled in

INTS = DenseArrayBase.constr(I64)
INT = IntegerAttr[I64]
BOOL = BoolAttr
FALSE = IntegerAttr(0, i1)
TRUE = IntegerAttr(1, i1)


@dataclass(frozen=True)
class Props:
    """Read access to an op's properties, with defaults filled in; errors name the op."""

    op: type[RelayOp]
    values: Mapping[str, Attribute]

    def get(self, name: str) -> Attribute | None:
        value = self.values.get(name)
        if value is not None:
            return value
        prop = self.op.get_irdl_definition().properties.get(name)
        return prop.default_value if prop is not None else None

    def required(self, name: str) -> Attribute:
        value = self.get(name)
        if value is None:
            raise self.op.error(f"property '{name}' is missing")
        return value

    def ints(self, name: str) -> tuple[int, ...]:
        value = self.required(name)
        if not isinstance(value, DenseArrayBase):
            raise self.op.error(f"property '{name}' must be an array<i64: ...>, got {value}")
        return array_values(value)

    def opt_ints(self, name: str) -> tuple[int, ...] | None:
        return None if self.get(name) is None else self.ints(name)

    def integer(self, name: str) -> int:
        value = self.required(name)
        if not isinstance(value, IntegerAttr):
            raise self.op.error(f"property '{name}' must be an integer, got {value}")
        return int(value.value.data)

    def number(self, name: str) -> float:
        value = self.required(name)
        if not isinstance(value, FloatAttr):
            raise self.op.error(f"property '{name}' must be a float, got {value}")
        return float(value.value.data)

    def flag(self, name: str) -> bool:
        return self.integer(name) != 0

    def text(self, name: str) -> str:
        value = self.required(name)
        if not isinstance(value, StringAttr):
            raise self.op.error(f"property '{name}' must be a string, got {value}")
        return value.data

    def choice(self, name: str, allowed: Sequence[str]) -> str:
        value = self.text(name)
        if value not in allowed:
            options = ", ".join(f'"{a}"' for a in allowed)
            raise self.op.error(f'{name} must be one of {options}, got "{value}"')
        return value

    def positive(self, name: str, count: int) -> tuple[int, ...]:
        """`count` integers, each at least 1 (strides, dilation, pool sizes)."""
        values = self.ints(name)
        if len(values) != count or any(v < 1 for v in values):
            raise self.op.error(f"{name} must be {count} positive integers, got {fmt_list(values)}")
        return values

    def padding(self, name: str = "padding") -> tuple[int, ...]:
        """Four non-negative integers: top, left, bottom, right."""
        values = self.ints(name)
        if len(values) != 4 or any(v < 0 for v in values):
            raise self.op.error(
                f"{name} must be 4 non-negative integers (top, left, bottom, right), "
                f"got {fmt_list(values)}"
            )
        return values

    def axis(self, name: str, rank: int) -> int:
        """A single axis, normalised into [0, rank)."""
        return normalize_axis(self.op, self.integer(name), rank)


def normalize_axis(op: type[RelayOp], axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        raise op.error(f"axis {axis} is out of range for rank {rank}")
    return axis % rank


def normalize_axes(op: type[RelayOp], axes: Sequence[int], rank: int) -> tuple[int, ...]:
    """Distinct axes, each normalised into [0, rank)."""
    seen: list[int] = []
    for axis in axes:
        a = normalize_axis(op, axis, rank)
        if a in seen:
            raise op.error(f"axis {axis} is repeated in {fmt_list(axes)}")
        seen.append(a)
    return tuple(seen)


def spatial_axes(op: type[RelayOp], layout: str) -> tuple[int, int, int]:
    """Indices of the channel, height and width axes of a 4-d NCHW or NHWC tensor."""
    if layout == "NCHW":
        return 1, 2, 3
    if layout == "NHWC":
        return 3, 1, 2
    raise op.error(f'layout must be "NCHW" or "NHWC", got "{layout}"')


def window_out(
    size: int, before: int, after: int, kernel: int, stride: int, dilation: int, ceil: bool
) -> int:
    """Number of windows along one axis of `size` padded by `before` and `after`.

    With ceil a last partial window is kept, unless it would start past the input, in the
    padding (PyTorch's and ONNX's rule; TVM keeps that window too).
    """
    span = size + before + after - dilation * (kernel - 1) - 1
    if not ceil:
        return span // stride + 1
    out = (span + stride - 1) // stride + 1
    return out - 1 if (out - 1) * stride >= size + before else out


# ---------------------------------------------------------------------------------------------
# The base of all relay ops


class RelayOp(IRDLOperation, ABC):
    """A relay operator: pure, with a TVM pattern kind and inferred result types."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    traits = traits_def(Pure())
    assembly_format = "operands attr-dict `:` functional-type(operands, results)"
    irdl_options = (ParsePropInAttrDict(),)

    @classmethod
    def error(cls, message: str) -> VerifyException:
        """An error in MLIR's wording: `'relay.add' op <message>`."""
        return VerifyException(f"'{cls.name}' op {message}")

    @classmethod
    def props(cls, properties: Mapping[str, Attribute]) -> Props:
        return Props(cls, properties)

    @classmethod
    def tensor(cls, typ: Attribute, what: str) -> TensorType:
        """`typ` as a tensor type with a numeric element type, or an error naming `what`."""
        if not isinstance(typ, TensorType):
            raise cls.error(f"{what} must be a tensor, got {typ}")
        elem = typ.get_element_type()
        if not (is_float(elem) or isinstance(elem, IntegerType)):
            raise cls.error(f"{what} element type must be an integer or float type, got {elem}")
        return typ

    @classmethod
    def tensors(cls, types: Sequence[Attribute], names: Sequence[str]) -> list[TensorType]:
        if len(types) != len(names):
            raise cls.error(f"expects {len(names)} operands, got {len(types)}")
        return [cls.tensor(t, n) for t, n in zip(types, names, strict=True)]

    @classmethod
    def same_element(cls, tensors: Sequence[TensorType], names: Sequence[str]) -> Attribute:
        elem = tensors[0].get_element_type()
        for t, n in zip(tensors[1:], names[1:], strict=True):
            if t.get_element_type() != elem:
                raise cls.error(
                    f"{n} element type differs from {names[0]}'s: {t.get_element_type()} vs {elem}"
                )
        return elem

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        """The result types of this op on `operand_types`; raises VerifyException if invalid."""
        raise NotImplementedError(f"'{cls.name}' does not infer its result types")

    def _build(
        self,
        operands: Sequence[Operand | Sequence[Operand]],
        properties: Mapping[str, Attribute | None] | None = None,
    ) -> None:
        """Create the op, inferring its result types from its operands and properties."""
        props = {k: v for k, v in (properties or {}).items() if v is not None}
        values: list[SSAValue | list[SSAValue]] = []
        types: list[Attribute] = []
        for operand in operands:
            if isinstance(operand, SSAValue | Operation):
                value = SSAValue.get(operand)
                values.append(value)
                types.append(value.type)
            else:
                group = [SSAValue.get(o) for o in operand]
                values.append(group)
                types.extend(v.type for v in group)
        result_types = type(self).infer_result_types(types, props)
        super().__init__(operands=values, result_types=result_types, properties=props)

    def verify_(self) -> None:
        inferred = self.infer_result_types(self.operand_types, self.properties)
        actual = list(self.result_types)
        if [canonical_type(t) for t in actual] != [canonical_type(t) for t in inferred]:
            got = ", ".join(str(t) for t in actual)
            want = ", ".join(str(t) for t in inferred)
            raise self.error(f"result type {got} does not match the inferred type {want}")


# ---------------------------------------------------------------------------------------------
# Constants and parameters


@irdl_op_definition
class ConstOp(RelayOp):
    """A small constant tensor held inline.

    `%c = relay.const dense<[1.0, 2.0]> : tensor<2xf32>`
    """

    name = "relay.const"
    T: ClassVar = VarConstraint("T", base(TensorType))
    result = result_def(T)
    value = prop_def(ParamAttrConstraint(DenseIntOrFPElementsAttr, (T, AnyAttr())))

    traits = traits_def(Pure(), ConstantLike())
    assembly_format = "$value attr-dict"

    def __init__(self, value: DenseIntOrFPElementsAttr | np.ndarray) -> None:
        if not isinstance(value, DenseIntOrFPElementsAttr):
            value = dense_from_numpy(value)
        self._build([], {"value": value})

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        value = properties.get("value")
        if not isinstance(value, DenseIntOrFPElementsAttr):
            raise cls.error("property 'value' must be a dense elements attribute")
        return [cls.tensor(value.type, "value")]


@irdl_op_definition
class ParamOp(RelayOp):
    """A weight by reference: its value comes from the params table of the caller.

    `%w = relay.param["conv1.weight"] : tensor<16x3x3x3xf32>`

    Its type is declared, not inferred: this is the one relay op without inference.
    """

    name = "relay.param"
    result = result_def(TensorType)
    param_name = prop_def(StringAttr, prop_name="name")

    assembly_format = "`[` $name `]` attr-dict `:` type($result)"

    def __init__(self, name: str | StringAttr, type: TensorType) -> None:
        if isinstance(name, str):
            name = StringAttr(name)
        super().__init__(result_types=[type], properties={"name": name})

    def verify_(self) -> None:
        if not self.param_name.data:
            raise self.error("name must not be empty")
        self.tensor(self.result.type, "result")


# The name an argument of @main has outside the IR (an ONNX graph input's name), when its SSA
# name cannot spell it: `func.func @main(%x.1: tensor<2xf32> {relay.name = "x_1"})`.
INPUT_NAME_ATTR = "relay.name"


def input_names(function: Any) -> list[str]:
    """The outside names of a function's arguments, one each and all distinct.

    An argument's `relay.name` attribute (kept exactly), else its SSA name, else `input<i>`;
    an SSA name already taken gets the argument's index (`data`, `data_1`). The graph JSON,
    `bind_params` and the interpreter all name inputs this way, so a name means one argument.
    """
    attrs = function.arg_attrs.data if function.arg_attrs is not None else ()
    args = function.body.block.args
    given: list[str | None] = []
    for i in range(len(args)):
        attr = attrs[i].data.get(INPUT_NAME_ATTR) if i < len(attrs) else None
        given.append(attr.data if isinstance(attr, StringAttr) else None)
    taken = {g for g in given if g is not None}
    names: list[str] = []
    for arg, exact in zip(args, given, strict=True):
        if exact is not None:
            names.append(exact)
            continue
        name = arg.name_hint or f"input{arg.index}"
        while name in taken:
            name = f"{name}_{arg.index}"
        taken.add(name)
        names.append(name)
    return names


# ---------------------------------------------------------------------------------------------
# Tuples


@irdl_op_definition
class TupleOp(RelayOp):
    """A tuple of values.

    `%t = relay.tuple %a, %b
        : (tensor<2xf32>, tensor<3xi32>) -> tuple<tensor<2xf32>, tensor<3xi32>>`
    """

    name = "relay.tuple"
    PATTERN: ClassVar[OpPattern] = OpPattern.TUPLE
    fields = var_operand_def(base(TensorType) | base(TupleType))
    result = result_def(TupleType)

    def __init__(self, *fields: Operand) -> None:
        self._build([list(fields)])

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        for i, t in enumerate(operand_types):
            if not isinstance(t, TupleType):
                cls.tensor(t, f"field {i}")
        return [TupleType(tuple(operand_types))]


@irdl_op_definition
class TupleGetItemOp(RelayOp):
    """One field of a tuple.

    `%a = relay.tuple_get_item %t[0] : (tuple<tensor<2xf32>, tensor<3xi32>>) -> tensor<2xf32>`
    """

    name = "relay.tuple_get_item"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    tuple = operand_def(TupleType)
    result = result_def(base(TensorType) | base(TupleType))
    index = prop_def(INT)

    assembly_format = "$tuple `[` $index `]` attr-dict `:` functional-type(operands, results)"

    def __init__(self, tuple: Operand, index: int) -> None:
        self._build([tuple], {"index": int_attr(index)})

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        (typ,) = operand_types
        if not isinstance(typ, TupleType):
            raise cls.error(f"operand must be a tuple, got {typ}")
        fields = typ.types.data
        index = cls.props(properties).integer("index")
        if not 0 <= index < len(fields):
            raise cls.error(f"index {index} is out of range for a tuple of {len(fields)} fields")
        return [fields[index]]


# ---------------------------------------------------------------------------------------------
# Elementwise and broadcasting binary ops


class ElementwiseBinaryOp(RelayOp, ABC):
    """A binary op on two tensors of one element type, with numpy broadcasting."""

    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST
    ELEMENTS: ClassVar[str] = "numeric"  # "numeric", "int" or "bool"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, lhs: Operand, rhs: Operand) -> None:
        self._build([lhs, rhs])

    @classmethod
    def result_element(cls, elem: Attribute) -> Attribute:
        return elem

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        lhs, rhs = cls.tensors(operand_types, ("lhs", "rhs"))
        elem = lhs.get_element_type()
        if cls.ELEMENTS == "int" and (is_float(elem) or is_bool(elem)):
            raise cls.error(f"operand element type must be an integer type, got {elem}")
        if cls.ELEMENTS == "bool" and not is_bool(elem):
            raise cls.error(f"operand element type must be i1, got {elem}")
        if lhs.get_element_type() != rhs.get_element_type():
            raise cls.error(
                f"operand element types differ: {lhs.get_element_type()} vs "
                f"{rhs.get_element_type()}"
            )
        shape = broadcast_shapes(lhs.get_shape(), rhs.get_shape())
        if shape is None:
            raise cls.error(
                f"operand shapes do not broadcast: {fmt_shape(lhs.get_shape())} vs "
                f"{fmt_shape(rhs.get_shape())}"
            )
        return [TensorType(cls.result_element(lhs.get_element_type()), shape)]


class ComparisonOp(ElementwiseBinaryOp, ABC):
    """A broadcasting comparison; the result is a tensor of i1."""

    @classmethod
    def result_element(cls, elem: Attribute) -> Attribute:
        return i1


@irdl_op_definition
class AddOp(ElementwiseBinaryOp):
    """Elementwise sum.

    `%z = relay.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>`
    """

    name = "relay.add"


@irdl_op_definition
class SubtractOp(ElementwiseBinaryOp):
    """Elementwise difference.

    `%z = relay.subtract %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.subtract"


@irdl_op_definition
class MultiplyOp(ElementwiseBinaryOp):
    """Elementwise product.

    `%z = relay.multiply %x, %y : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>`
    """

    name = "relay.multiply"


@irdl_op_definition
class DivideOp(ElementwiseBinaryOp):
    """Elementwise quotient (integers truncate toward zero).

    `%z = relay.divide %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.divide"


@irdl_op_definition
class PowerOp(ElementwiseBinaryOp):
    """Elementwise power `lhs ** rhs`.

    `%z = relay.power %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.power"


@irdl_op_definition
class MaximumOp(ElementwiseBinaryOp):
    """Elementwise maximum.

    `%z = relay.maximum %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.maximum"


@irdl_op_definition
class MinimumOp(ElementwiseBinaryOp):
    """Elementwise minimum.

    `%z = relay.minimum %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.minimum"


@irdl_op_definition
class EqualOp(ComparisonOp):
    """Elementwise `lhs == rhs`.

    `%z = relay.equal %x, %y : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>`
    """

    name = "relay.equal"


@irdl_op_definition
class LessOp(ComparisonOp):
    """Elementwise `lhs < rhs`.

    `%z = relay.less %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>`
    """

    name = "relay.less"


@irdl_op_definition
class GreaterOp(ComparisonOp):
    """Elementwise `lhs > rhs`.

    `%z = relay.greater %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>`
    """

    name = "relay.greater"


@irdl_op_definition
class LessEqualOp(ComparisonOp):
    """Elementwise `lhs <= rhs`.

    `%z = relay.less_equal %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>`
    """

    name = "relay.less_equal"


@irdl_op_definition
class GreaterEqualOp(ComparisonOp):
    """Elementwise `lhs >= rhs`.

    `%z = relay.greater_equal %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>`
    """

    name = "relay.greater_equal"


@irdl_op_definition
class NotEqualOp(ComparisonOp):
    """Elementwise `lhs != rhs`.

    `%z = relay.not_equal %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>`
    """

    name = "relay.not_equal"


@irdl_op_definition
class FloorDivideOp(ElementwiseBinaryOp):
    """Elementwise division rounded towards minus infinity (numpy's `//`).

    `%z = relay.floor_divide %x, %y : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>`
    """

    name = "relay.floor_divide"


@irdl_op_definition
class FloorModOp(ElementwiseBinaryOp):
    """Elementwise remainder with the sign of the divisor (numpy's `%`).

    `%z = relay.floor_mod %x, %y : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>`
    """

    name = "relay.floor_mod"


@irdl_op_definition
class LeftShiftOp(ElementwiseBinaryOp):
    """Elementwise `lhs << rhs` on integers.

    `%z = relay.left_shift %x, %y : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>`
    """

    name = "relay.left_shift"
    ELEMENTS: ClassVar[str] = "int"


@irdl_op_definition
class RightShiftOp(ElementwiseBinaryOp):
    """Elementwise `lhs >> rhs` on integers (arithmetic for signed types).

    `%z = relay.right_shift %x, %y : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>`
    """

    name = "relay.right_shift"
    ELEMENTS: ClassVar[str] = "int"


@irdl_op_definition
class LogicalAndOp(ElementwiseBinaryOp):
    """Elementwise boolean and.

    `%z = relay.logical_and %x, %y : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>`
    """

    name = "relay.logical_and"
    ELEMENTS: ClassVar[str] = "bool"


@irdl_op_definition
class LogicalOrOp(ElementwiseBinaryOp):
    """Elementwise boolean or.

    `%z = relay.logical_or %x, %y : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>`
    """

    name = "relay.logical_or"
    ELEMENTS: ClassVar[str] = "bool"


@irdl_op_definition
class WhereOp(RelayOp):
    """Select from `x` where `condition` holds, else from `y`, all three broadcast.

    `%z = relay.where %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>`
    """

    name = "relay.where"
    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST
    condition = operand_def(TensorType)
    x = operand_def(TensorType)
    y = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, condition: Operand, x: Operand, y: Operand) -> None:
        self._build([condition, x, y])

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        cond, x, y = cls.tensors(operand_types, ("condition", "x", "y"))
        if not is_bool(cond.get_element_type()):
            raise cls.error(f"condition must have element type i1, got {cond.get_element_type()}")
        elem = cls.same_element([x, y], ["x", "y"])
        shapes = [t.get_shape() for t in (cond, x, y)]
        shape = broadcast_shapes(*shapes)
        if shape is None:
            raise cls.error(
                "operand shapes do not broadcast: " + " vs ".join(fmt_shape(s) for s in shapes)
            )
        return [TensorType(elem, shape)]


# ---------------------------------------------------------------------------------------------
# Unary ops: one tensor in, one tensor of the same shape out


class UnaryOp(RelayOp, ABC):
    """A shape-preserving op on one tensor; `ELEMENTS` restricts its element type."""

    PATTERN: ClassVar[OpPattern] = OpPattern.ELEMWISE
    ELEMENTS: ClassVar[str] = "numeric"  # "numeric", "float" or "bool"
    data = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, data: Operand) -> None:
        self._build([data])

    @classmethod
    def check(cls, p: Props, data: TensorType) -> TensorType:
        """Check the properties against `data`; return the result type."""
        return data

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        (data,) = cls.tensors(operand_types, ("data",))
        elem = data.get_element_type()
        if cls.ELEMENTS == "float" and not is_float(elem):
            raise cls.error(f"operand element type must be a float type, got {elem}")
        if cls.ELEMENTS == "bool" and not is_bool(elem):
            raise cls.error(f"operand element type must be i1, got {elem}")
        return [cls.check(cls.props(properties), data)]


@irdl_op_definition
class NegativeOp(UnaryOp):
    """Elementwise negation.

    `%y = relay.negative %x : (tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.negative"


@irdl_op_definition
class AbsOp(UnaryOp):
    """Elementwise absolute value.

    `%y = relay.abs %x : (tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.abs"


@irdl_op_definition
class ExpOp(UnaryOp):
    """Elementwise e**x.

    `%y = relay.exp %x : (tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.exp"
    ELEMENTS: ClassVar[str] = "float"


@irdl_op_definition
class LogOp(UnaryOp):
    """Elementwise natural logarithm.

    `%y = relay.log %x : (tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.log"
    ELEMENTS: ClassVar[str] = "float"


@irdl_op_definition
class SqrtOp(UnaryOp):
    """Elementwise square root.

    `%y = relay.sqrt %x : (tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.sqrt"
    ELEMENTS: ClassVar[str] = "float"


@irdl_op_definition
class RsqrtOp(UnaryOp):
    """Elementwise reciprocal square root.

    `%y = relay.rsqrt %x : (tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.rsqrt"
    ELEMENTS: ClassVar[str] = "float"


@irdl_op_definition
class TanhOp(UnaryOp):
    """Elementwise hyperbolic tangent.

    `%y = relay.tanh %x : (tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.tanh"
    ELEMENTS: ClassVar[str] = "float"


@irdl_op_definition
class SigmoidOp(UnaryOp):
    """Elementwise logistic function 1 / (1 + e**-x).

    `%y = relay.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.sigmoid"
    ELEMENTS: ClassVar[str] = "float"


@irdl_op_definition
class ErfOp(UnaryOp):
    """Elementwise Gauss error function.

    `%y = relay.erf %x : (tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.erf"
    ELEMENTS: ClassVar[str] = "float"


@irdl_op_definition
class LogicalNotOp(UnaryOp):
    """Elementwise boolean negation.

    `%y = relay.logical_not %x : (tensor<4xi1>) -> tensor<4xi1>`
    """

    name = "relay.logical_not"
    ELEMENTS: ClassVar[str] = "bool"


@irdl_op_definition
class CosOp(UnaryOp):
    """Elementwise cosine.

    `%y = relay.cos %x : (tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.cos"
    ELEMENTS: ClassVar[str] = "float"


@irdl_op_definition
class SinOp(UnaryOp):
    """Elementwise sine.

    `%y = relay.sin %x : (tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.sin"
    ELEMENTS: ClassVar[str] = "float"


@irdl_op_definition
class TanOp(UnaryOp):
    """Elementwise tangent.

    `%y = relay.tan %x : (tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.tan"
    ELEMENTS: ClassVar[str] = "float"


@irdl_op_definition
class AtanOp(UnaryOp):
    """Elementwise arctangent.

    `%y = relay.atan %x : (tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.atan"
    ELEMENTS: ClassVar[str] = "float"


@irdl_op_definition
class FloorOp(UnaryOp):
    """Elementwise rounding towards minus infinity.

    `%y = relay.floor %x : (tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.floor"
    ELEMENTS: ClassVar[str] = "float"


@irdl_op_definition
class CeilOp(UnaryOp):
    """Elementwise rounding towards plus infinity.

    `%y = relay.ceil %x : (tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.ceil"
    ELEMENTS: ClassVar[str] = "float"


@irdl_op_definition
class TruncOp(UnaryOp):
    """Elementwise rounding towards zero.

    `%y = relay.trunc %x : (tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.trunc"
    ELEMENTS: ClassVar[str] = "float"


@irdl_op_definition
class RoundOp(UnaryOp):
    """Elementwise rounding to the nearest integer, halves to even.

    `%y = relay.round %x : (tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.round"
    ELEMENTS: ClassVar[str] = "float"


@irdl_op_definition
class SignOp(UnaryOp):
    """Elementwise sign: -1, 0 or 1.

    `%y = relay.sign %x : (tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.sign"


@irdl_op_definition
class ClipOp(UnaryOp):
    """Clamp every element into [a_min, a_max].

    `%y = relay.clip %x {a_min = 0.0 : f64, a_max = 6.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.clip"
    a_min = prop_def(FloatAttr)
    a_max = prop_def(FloatAttr)

    def __init__(self, data: Operand, a_min: float, a_max: float) -> None:
        self._build([data], {"a_min": float_attr(a_min), "a_max": float_attr(a_max)})

    @classmethod
    def check(cls, p: Props, data: TensorType) -> TensorType:
        if p.number("a_min") > p.number("a_max"):
            raise cls.error(f"a_min {p.number('a_min')} is greater than a_max {p.number('a_max')}")
        return data


@irdl_op_definition
class CastOp(UnaryOp):
    """Convert every element to `dtype` (floats to integers truncate).

    `%y = relay.cast %x {dtype = i32} : (tensor<4xf32>) -> tensor<4xi32>`
    """

    name = "relay.cast"
    dtype = prop_def(base(IntegerType) | base(Float16Type) | base(Float32Type) | base(Float64Type))

    def __init__(self, data: Operand, dtype: Attribute | str | np.dtype) -> None:
        if not isinstance(dtype, Attribute):
            dtype = element_type(dtype)
        self._build([data], {"dtype": dtype})

    @classmethod
    def check(cls, p: Props, data: TensorType) -> TensorType:
        dtype = p.required("dtype")
        if not (is_float(dtype) or isinstance(dtype, IntegerType)):
            raise cls.error(f"dtype must be an integer or float type, got {dtype}")
        return TensorType(dtype, data.get_shape())


@irdl_op_definition
class ReluOp(UnaryOp):
    """Elementwise max(x, 0).

    `%y = relay.nn.relu %x : (tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.nn.relu"


@irdl_op_definition
class LeakyReluOp(UnaryOp):
    """Elementwise x if x > 0 else alpha * x.

    `%y = relay.nn.leaky_relu %x {alpha = 0.1 : f64} : (tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.nn.leaky_relu"
    ELEMENTS: ClassVar[str] = "float"
    alpha = prop_def(FloatAttr, default_value=float_attr(0.01))

    def __init__(self, data: Operand, alpha: float = 0.01) -> None:
        self._build([data], {"alpha": float_attr(alpha)})


@irdl_op_definition
class GeluOp(UnaryOp):
    """Gaussian error linear unit, exact (erf) or with the tanh approximation.

    `%y = relay.nn.gelu %x {approximate = "tanh"} : (tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.nn.gelu"
    ELEMENTS: ClassVar[str] = "float"
    approximate = prop_def(StringAttr, default_value=StringAttr("none"))

    def __init__(self, data: Operand, approximate: str = "none") -> None:
        self._build([data], {"approximate": StringAttr(approximate)})

    @classmethod
    def check(cls, p: Props, data: TensorType) -> TensorType:
        p.choice("approximate", ("none", "tanh"))
        return data


class AxisUnaryOp(UnaryOp, ABC):
    """A shape-preserving float op along one axis (softmax and friends)."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    ELEMENTS: ClassVar[str] = "float"
    axis = prop_def(INT, default_value=int_attr(-1))

    def __init__(self, data: Operand, axis: int = -1) -> None:
        self._build([data], {"axis": int_attr(axis)})

    @classmethod
    def check(cls, p: Props, data: TensorType) -> TensorType:
        p.axis("axis", data.get_num_dims())
        return data


@irdl_op_definition
class SoftmaxOp(AxisUnaryOp):
    """Softmax along `axis`.

    `%y = relay.nn.softmax %x {axis = 1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>`
    """

    name = "relay.nn.softmax"


@irdl_op_definition
class LogSoftmaxOp(AxisUnaryOp):
    """Logarithm of the softmax along `axis`.

    `%y = relay.nn.log_softmax %x : (tensor<2x5xf32>) -> tensor<2x5xf32>`
    """

    name = "relay.nn.log_softmax"


@irdl_op_definition
class DropoutOp(UnaryOp):
    """Dropout; the identity at inference (TVM's mask output is left out).

    `%y = relay.nn.dropout %x {rate = 0.2 : f64} : (tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "relay.nn.dropout"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    rate = prop_def(FloatAttr, default_value=float_attr(0.5))

    def __init__(self, data: Operand, rate: float = 0.5) -> None:
        self._build([data], {"rate": float_attr(rate)})

    @classmethod
    def check(cls, p: Props, data: TensorType) -> TensorType:
        if not 0.0 <= p.number("rate") < 1.0:
            raise cls.error(f"rate must be in [0, 1), got {p.number('rate')}")
        return data


@irdl_op_definition
class LrnOp(UnaryOp):
    """Local response normalisation across `size` neighbours along `axis`.

    `%y = relay.nn.lrn %x {size = 3 : i64} : (tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32>`

    out = x / (bias + alpha / size * sum(x**2 over the window)) ** beta, the window starting
    size // 2 before the element (TVM's).
    """

    name = "relay.nn.lrn"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    ELEMENTS: ClassVar[str] = "float"
    size = prop_def(INT, default_value=int_attr(5))
    axis = prop_def(INT, default_value=int_attr(1))
    alpha = prop_def(FloatAttr, default_value=float_attr(1e-4))
    beta = prop_def(FloatAttr, default_value=float_attr(0.75))
    bias = prop_def(FloatAttr, default_value=float_attr(2.0))

    def __init__(
        self,
        data: Operand,
        size: int = 5,
        axis: int = 1,
        alpha: float = 1e-4,
        beta: float = 0.75,
        bias: float = 2.0,
    ) -> None:
        self._build(
            [data],
            {
                "size": int_attr(size),
                "axis": int_attr(axis),
                "alpha": float_attr(alpha),
                "beta": float_attr(beta),
                "bias": float_attr(bias),
            },
        )

    @classmethod
    def check(cls, p: Props, data: TensorType) -> TensorType:
        p.axis("axis", data.get_num_dims())
        if p.integer("size") < 1:
            raise cls.error(f"size must be positive, got {p.integer('size')}")
        return data


# ---------------------------------------------------------------------------------------------
# Convolution and matrix products


@irdl_op_definition
class Conv2dOp(RelayOp):
    """2-d convolution (cross-correlation), grouped and dilated.

    `%y = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>}
        : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>`
    """

    name = "relay.nn.conv2d"
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    result = result_def(TensorType)
    strides = prop_def(INTS, default_value=int_array([1, 1]))
    padding = prop_def(INTS, default_value=int_array([0, 0, 0, 0]))
    dilation = prop_def(INTS, default_value=int_array([1, 1]))
    groups = prop_def(INT, default_value=int_attr(1))
    data_layout = prop_def(StringAttr, default_value=StringAttr("NCHW"))
    kernel_layout = prop_def(StringAttr, default_value=StringAttr("OIHW"))

    def __init__(
        self,
        data: Operand,
        weight: Operand,
        strides: Sequence[int] = (1, 1),
        padding: Sequence[int] = (0, 0, 0, 0),
        dilation: Sequence[int] = (1, 1),
        groups: int = 1,
        data_layout: str = "NCHW",
        kernel_layout: str = "OIHW",
    ) -> None:
        self._build(
            [data, weight],
            {
                "strides": int_array(strides),
                "padding": int_array(padding),
                "dilation": int_array(dilation),
                "groups": int_attr(groups),
                "data_layout": StringAttr(data_layout),
                "kernel_layout": StringAttr(kernel_layout),
            },
        )

    @classmethod
    def kernel_layout_of(cls, properties: Mapping[str, Attribute]) -> Layout:
        """The kernel layout: any order of O, I, H and W, blocked ones included (`OHWI16o`,
        the packed layout `relay-alter-op-layout` gives CPU kernels)."""
        text = cls.props(properties).text("kernel_layout")
        try:
            layout = Layout.parse(text)
        except ValueError as exc:
            raise cls.error(f"kernel_layout: {exc}") from None
        if sorted(layout.primal) != sorted("OIHW"):
            raise cls.error(f'kernel_layout must order O, I, H and W, got "{text}"')
        return layout

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        p = cls.props(properties)
        data, weight = cls.tensors(operand_types, ("data", "weight"))
        elem = cls.same_element([data, weight], ["data", "weight"])
        strides, dilation = p.positive("strides", 2), p.positive("dilation", 2)
        pt, pl, pb, pr = p.padding()
        groups = p.integer("groups")
        layout = p.choice("data_layout", ("NCHW", "NHWC"))
        kernel_layout = cls.kernel_layout_of(properties)
        weight_rank = len(kernel_layout.axes)
        if data.get_num_dims() != 4 or weight.get_num_dims() != weight_rank:
            ranks = (
                "data and weight must be 4-d"
                if weight_rank == 4
                else f"data must be 4-d and weight {weight_rank}-d ({kernel_layout.text})"
            )
            raise cls.error(
                f"{ranks}, got {fmt_shape(data.get_shape())} and {fmt_shape(weight.get_shape())}"
            )
        c_axis, h_axis, w_axis = spatial_axes(cls, layout)
        shape = list(data.get_shape())
        try:
            sizes = kernel_layout.primal_sizes(weight.get_shape())
        except ValueError as exc:
            raise cls.error(f"weight: {exc}") from None
        o, i, kh, kw = (sizes[a] for a in "OIHW")
        if groups < 1 or o % groups:
            raise cls.error(f"groups {groups} must be positive and divide output channels {o}")
        if shape[c_axis] != i * groups:
            raise cls.error(
                f"data has {shape[c_axis]} channels but weight expects {i * groups} "
                f"({i} per group x {groups} groups)"
            )
        oh = window_out(shape[h_axis], pt, pb, kh, strides[0], dilation[0], False)
        ow = window_out(shape[w_axis], pl, pr, kw, strides[1], dilation[1], False)
        if oh < 1 or ow < 1:
            raise cls.error(
                f"dilated kernel {dilation[0] * (kh - 1) + 1}x{dilation[1] * (kw - 1) + 1} is "
                f"larger than padded input {shape[h_axis] + pt + pb}x{shape[w_axis] + pl + pr}"
            )
        shape[c_axis], shape[h_axis], shape[w_axis] = o, oh, ow
        return [TensorType(elem, shape)]


@irdl_op_definition
class Conv2dWinogradOp(RelayOp):
    """A stride-1 3x3 NHWC convolution by Winograd's F(m x m, 3 x 3), its kernel already
    transformed (`xtvm.ir.winograd.transform_kernel`): `[alpha, alpha, C, K]` or packed in
    blocks of output channels `[alpha, alpha, K / b, C, b]`, alpha = tile_size + 2.
    `relay-alter-op-layout` puts it in place of CPU conv2ds with constant kernels.

    `%y = relay.nn.contrib_conv2d_winograd_without_weight_transform %x, %u
        {tile_size = 4 : i64, padding = array<i64: 1, 1, 1, 1>}
        : (tensor<1x8x8x16xf32>, tensor<6x6x16x32xf32>) -> tensor<1x8x8x32xf32>`
    """

    name = "relay.nn.contrib_conv2d_winograd_without_weight_transform"
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    result = result_def(TensorType)
    tile_size = prop_def(INT, default_value=int_attr(4))
    padding = prop_def(INTS, default_value=int_array([0, 0, 0, 0]))

    def __init__(
        self,
        data: Operand,
        weight: Operand,
        tile_size: int = 4,
        padding: Sequence[int] = (0, 0, 0, 0),
    ) -> None:
        self._build(
            [data, weight], {"tile_size": int_attr(tile_size), "padding": int_array(padding)}
        )

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        p = cls.props(properties)
        data, weight = cls.tensors(operand_types, ("data", "weight"))
        elem = cls.same_element([data, weight], ["data", "weight"])
        tile_size = p.integer("tile_size")
        if tile_size not in (2, 4):
            raise cls.error(f"tile_size must be 2 or 4, got {tile_size}")
        pt, pl, pb, pr = p.padding()
        shape, kernel = data.get_shape(), weight.get_shape()
        alpha = tile_size + 2
        if len(shape) != 4 or len(kernel) not in (4, 5) or kernel[:2] != (alpha, alpha):
            raise cls.error(
                f"data must be 4-d NHWC and weight [{alpha}, {alpha}, C, K] or "
                f"[{alpha}, {alpha}, K/b, C, b], got {fmt_shape(shape)} and {fmt_shape(kernel)}"
            )
        channels, out_channels = (
            (kernel[2], kernel[3]) if len(kernel) == 4 else (kernel[3], kernel[2] * kernel[4])
        )
        if shape[3] != channels:
            raise cls.error(f"data has {shape[3]} channels but weight expects {channels}")
        oh, ow = shape[1] + pt + pb - 2, shape[2] + pl + pr - 2
        if oh < 1 or ow < 1:
            raise cls.error(
                f"3x3 kernel is larger than padded input {shape[1] + pt + pb}x{shape[2] + pl + pr}"
            )
        return [TensorType(elem, [shape[0], oh, ow, out_channels])]


@irdl_op_definition
class Conv2dTransposeOp(RelayOp):
    """2-d transposed convolution; data NCHW, weight IOHW (in, out / groups, kh, kw).

    `%y = relay.nn.conv2d_transpose %x, %w {strides = array<i64: 2, 2>}
        : (tensor<1x4x3x3xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32>`
    """

    name = "relay.nn.conv2d_transpose"
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    result = result_def(TensorType)
    strides = prop_def(INTS, default_value=int_array([1, 1]))
    padding = prop_def(INTS, default_value=int_array([0, 0, 0, 0]))
    output_padding = prop_def(INTS, default_value=int_array([0, 0]))
    dilation = prop_def(INTS, default_value=int_array([1, 1]))
    groups = prop_def(INT, default_value=int_attr(1))

    def __init__(
        self,
        data: Operand,
        weight: Operand,
        strides: Sequence[int] = (1, 1),
        padding: Sequence[int] = (0, 0, 0, 0),
        output_padding: Sequence[int] = (0, 0),
        dilation: Sequence[int] = (1, 1),
        groups: int = 1,
    ) -> None:
        self._build(
            [data, weight],
            {
                "strides": int_array(strides),
                "padding": int_array(padding),
                "output_padding": int_array(output_padding),
                "dilation": int_array(dilation),
                "groups": int_attr(groups),
            },
        )

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        p = cls.props(properties)
        data, weight = cls.tensors(operand_types, ("data", "weight"))
        elem = cls.same_element([data, weight], ["data", "weight"])
        strides, dilation = p.positive("strides", 2), p.positive("dilation", 2)
        pt, pl, pb, pr = p.padding()
        out_pad = p.ints("output_padding")
        groups = p.integer("groups")
        if len(out_pad) != 2 or not all(0 <= o < s for o, s in zip(out_pad, strides, strict=True)):
            raise cls.error(
                f"output_padding must be 2 integers in [0, stride), got {fmt_list(out_pad)} "
                f"with strides {fmt_list(strides)}"
            )
        if data.get_num_dims() != 4 or weight.get_num_dims() != 4:
            raise cls.error(
                f"data and weight must be 4-d, got {fmt_shape(data.get_shape())} and "
                f"{fmt_shape(weight.get_shape())}"
            )
        n, c, h, w = data.get_shape()
        i, o, kh, kw = weight.get_shape()
        if groups < 1 or c % groups:
            raise cls.error(f"groups {groups} must be positive and divide input channels {c}")
        if c != i:
            raise cls.error(f"data has {c} channels but weight expects {i}")
        oh = (h - 1) * strides[0] - pt - pb + dilation[0] * (kh - 1) + out_pad[0] + 1
        ow = (w - 1) * strides[1] - pl - pr + dilation[1] * (kw - 1) + out_pad[1] + 1
        if oh < 1 or ow < 1:
            raise cls.error(f"padding leaves an empty output ({oh}x{ow})")
        return [TensorType(elem, [n, o * groups, oh, ow])]


@irdl_op_definition
class DenseOp(RelayOp):
    """Fully connected layer: data [..., k] times weight [units, k] transposed.

    `%y = relay.nn.dense %x, %w : (tensor<2x5xf32>, tensor<3x5xf32>) -> tensor<2x3xf32>`
    """

    name = "relay.nn.dense"
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, data: Operand, weight: Operand) -> None:
        self._build([data, weight])

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        data, weight = cls.tensors(operand_types, ("data", "weight"))
        elem = cls.same_element([data, weight], ["data", "weight"])
        if data.get_num_dims() < 1 or weight.get_num_dims() != 2:
            raise cls.error(
                f"data must have rank >= 1 and weight rank 2, got {fmt_shape(data.get_shape())} "
                f"and {fmt_shape(weight.get_shape())}"
            )
        units, k = weight.get_shape()
        if data.get_shape()[-1] != k:
            raise cls.error(
                f"data has {data.get_shape()[-1]} input features but weight "
                f"{fmt_shape(weight.get_shape())} expects {k}"
            )
        return [TensorType(elem, [*data.get_shape()[:-1], units])]


@irdl_op_definition
class MatmulOp(RelayOp):
    """Matrix product of a [..., m, k] and b [k, n], either side optionally transposed.

    `%y = relay.nn.matmul %a, %b : (tensor<2x5xf32>, tensor<5x3xf32>) -> tensor<2x3xf32>`
    """

    name = "relay.nn.matmul"
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    a = operand_def(TensorType)
    b = operand_def(TensorType)
    result = result_def(TensorType)
    transpose_a = prop_def(BOOL, default_value=FALSE)
    transpose_b = prop_def(BOOL, default_value=FALSE)

    def __init__(
        self, a: Operand, b: Operand, transpose_a: bool = False, transpose_b: bool = False
    ) -> None:
        self._build(
            [a, b], {"transpose_a": bool_attr(transpose_a), "transpose_b": bool_attr(transpose_b)}
        )

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        p = cls.props(properties)
        a, b = cls.tensors(operand_types, ("a", "b"))
        elem = cls.same_element([a, b], ["a", "b"])
        ta, tb = p.flag("transpose_a"), p.flag("transpose_b")
        a_shape, b_shape = a.get_shape(), b.get_shape()
        if b.get_num_dims() != 2 or not (a.get_num_dims() == 2 or (a.get_num_dims() and not ta)):
            raise cls.error(
                f"b must be 2-d and a {'2-d' if ta else 'at least 1-d'}, got "
                f"{fmt_shape(a_shape)} and {fmt_shape(b_shape)}"
            )
        k_a = a_shape[-2] if ta else a_shape[-1]
        k_b, n = (b_shape[1], b_shape[0]) if tb else (b_shape[0], b_shape[1])
        if k_a != k_b:
            raise cls.error(
                f"reduction sizes differ: {k_a} vs {k_b} (shapes {fmt_shape(a_shape)} and "
                f"{fmt_shape(b_shape)})"
            )
        lead = [a_shape[-1]] if ta else list(a_shape[:-1])
        return [TensorType(elem, [*lead, n])]


@irdl_op_definition
class BatchMatmulOp(RelayOp):
    """Batched matrix product; TVM's default multiplies x [b, m, k] by y [b, n, k] transposed.

    `%z = relay.nn.batch_matmul %x, %y
        : (tensor<2x3x5xf32>, tensor<2x4x5xf32>) -> tensor<2x3x4xf32>`
    """

    name = "relay.nn.batch_matmul"
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    x = operand_def(TensorType)
    y = operand_def(TensorType)
    result = result_def(TensorType)
    transpose_a = prop_def(BOOL, default_value=FALSE)
    transpose_b = prop_def(BOOL, default_value=TRUE)

    def __init__(
        self, x: Operand, y: Operand, transpose_a: bool = False, transpose_b: bool = True
    ) -> None:
        self._build(
            [x, y], {"transpose_a": bool_attr(transpose_a), "transpose_b": bool_attr(transpose_b)}
        )

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        p = cls.props(properties)
        x, y = cls.tensors(operand_types, ("x", "y"))
        elem = cls.same_element([x, y], ["x", "y"])
        if x.get_num_dims() != 3 or y.get_num_dims() != 3:
            raise cls.error(
                f"operands must be 3-d, got {fmt_shape(x.get_shape())} and "
                f"{fmt_shape(y.get_shape())}"
            )
        bx, m, kx = x.get_shape()
        by, n, ky = y.get_shape()
        if p.flag("transpose_a"):
            m, kx = kx, m
        if not p.flag("transpose_b"):
            n, ky = ky, n
        if kx != ky:
            raise cls.error(
                f"reduction sizes differ: {kx} vs {ky} (shapes {fmt_shape(x.get_shape())} and "
                f"{fmt_shape(y.get_shape())})"
            )
        if bx != by and 1 not in (bx, by):
            raise cls.error(f"batch sizes do not broadcast: {bx} vs {by}")
        return [TensorType(elem, [max(bx, by), m, n])]


class ChannelVectorOp(RelayOp, ABC):
    """data combined with a 1-d vector laid along one axis of data (bias_add, prelu)."""

    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST
    VECTOR: ClassVar[str]
    axis = prop_def(INT, default_value=int_attr(1))

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        data, vector = cls.tensors(operand_types, ("data", cls.VECTOR))
        cls.same_element([data, vector], ["data", cls.VECTOR])
        axis = cls.props(properties).axis("axis", data.get_num_dims())
        size = data.get_shape()[axis]
        if vector.get_shape() != (size,):
            raise cls.error(
                f"{cls.VECTOR} must have shape {size} (axis {axis} of data "
                f"{fmt_shape(data.get_shape())}), got {fmt_shape(vector.get_shape())}"
            )
        return [data]


@irdl_op_definition
class BiasAddOp(ChannelVectorOp):
    """Add a 1-d bias along `axis`.

    `%y = relay.nn.bias_add %x, %b : (tensor<1x4x5x5xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>`
    """

    name = "relay.nn.bias_add"
    VECTOR: ClassVar[str] = "bias"
    data = operand_def(TensorType)
    bias = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, data: Operand, bias: Operand, axis: int = 1) -> None:
        self._build([data, bias], {"axis": int_attr(axis)})


@irdl_op_definition
class PreluOp(ChannelVectorOp):
    """Leaky relu with a learned slope per channel along `axis`.

    `%y = relay.nn.prelu %x, %a : (tensor<1x4x5x5xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>`
    """

    name = "relay.nn.prelu"
    VECTOR: ClassVar[str] = "alpha"
    data = operand_def(TensorType)
    alpha = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, data: Operand, alpha: Operand, axis: int = 1) -> None:
        self._build([data, alpha], {"axis": int_attr(axis)})


# ---------------------------------------------------------------------------------------------
# Normalisation


@irdl_op_definition
class BatchNormOp(RelayOp):
    """Batch normalisation with moving statistics; a tuple (out, mean, var) as in TVM.

    `%t = relay.nn.batch_norm %x, %g, %b, %m, %v
        : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
        -> tuple<tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>>`
    """

    name = "relay.nn.batch_norm"
    data = operand_def(TensorType)
    gamma = operand_def(TensorType)
    beta = operand_def(TensorType)
    moving_mean = operand_def(TensorType)
    moving_var = operand_def(TensorType)
    result = result_def(TupleType)
    axis = prop_def(INT, default_value=int_attr(1))
    epsilon = prop_def(FloatAttr, default_value=float_attr(1e-5))
    center = prop_def(BOOL, default_value=TRUE)
    scale = prop_def(BOOL, default_value=TRUE)

    def __init__(
        self,
        data: Operand,
        gamma: Operand,
        beta: Operand,
        moving_mean: Operand,
        moving_var: Operand,
        axis: int = 1,
        epsilon: float = 1e-5,
        center: bool = True,
        scale: bool = True,
    ) -> None:
        self._build(
            [data, gamma, beta, moving_mean, moving_var],
            {
                "axis": int_attr(axis),
                "epsilon": float_attr(epsilon),
                "center": bool_attr(center),
                "scale": bool_attr(scale),
            },
        )

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        names = ("data", "gamma", "beta", "moving_mean", "moving_var")
        tensors = cls.tensors(operand_types, names)
        elem = cls.same_element(tensors, names)
        data = tensors[0]
        p = cls.props(properties)
        axis = p.axis("axis", data.get_num_dims())
        if p.number("epsilon") < 0:
            raise cls.error(f"epsilon must not be negative, got {p.number('epsilon')}")
        size = data.get_shape()[axis]
        for name, t in zip(names[1:], tensors[1:], strict=True):
            if t.get_shape() != (size,):
                raise cls.error(
                    f"{name} must have shape {size} (axis {axis} of data "
                    f"{fmt_shape(data.get_shape())}), got {fmt_shape(t.get_shape())}"
                )
        vector = TensorType(elem, [size])
        return [TupleType((data, vector, vector))]


@irdl_op_definition
class LayerNormOp(RelayOp):
    """Layer normalisation over one axis, scaled by gamma and shifted by beta.

    `%y = relay.nn.layer_norm %x, %g, %b
        : (tensor<2x5xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<2x5xf32>`
    """

    name = "relay.nn.layer_norm"
    data = operand_def(TensorType)
    gamma = operand_def(TensorType)
    beta = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(INT, default_value=int_attr(-1))
    epsilon = prop_def(FloatAttr, default_value=float_attr(1e-5))
    center = prop_def(BOOL, default_value=TRUE)
    scale = prop_def(BOOL, default_value=TRUE)

    def __init__(
        self,
        data: Operand,
        gamma: Operand,
        beta: Operand,
        axis: int = -1,
        epsilon: float = 1e-5,
        center: bool = True,
        scale: bool = True,
    ) -> None:
        self._build(
            [data, gamma, beta],
            {
                "axis": int_attr(axis),
                "epsilon": float_attr(epsilon),
                "center": bool_attr(center),
                "scale": bool_attr(scale),
            },
        )

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        names = ("data", "gamma", "beta")
        data, gamma, beta = cls.tensors(operand_types, names)
        cls.same_element([data, gamma, beta], names)
        if not is_float(data.get_element_type()):
            raise cls.error(f"data element type must be a float type, got {data.element_type}")
        p = cls.props(properties)
        axis = p.axis("axis", data.get_num_dims())
        if p.number("epsilon") < 0:
            raise cls.error(f"epsilon must not be negative, got {p.number('epsilon')}")
        size = data.get_shape()[axis]
        for name, t in (("gamma", gamma), ("beta", beta)):
            if t.get_shape() != (size,):
                raise cls.error(
                    f"{name} must have shape {size} (axis {axis} of data "
                    f"{fmt_shape(data.get_shape())}), got {fmt_shape(t.get_shape())}"
                )
        return [data]


# ---------------------------------------------------------------------------------------------
# Pooling, padding, resizing


class Pool2dOp(RelayOp, ABC):
    """A sliding-window reduction over the two spatial axes of a 4-d tensor."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    data = operand_def(TensorType)
    result = result_def(TensorType)
    pool_size = prop_def(INTS)
    strides = prop_def(INTS, default_value=int_array([1, 1]))
    padding = prop_def(INTS, default_value=int_array([0, 0, 0, 0]))
    dilation = prop_def(INTS, default_value=int_array([1, 1]))
    layout = prop_def(StringAttr, default_value=StringAttr("NCHW"))
    ceil_mode = prop_def(BOOL, default_value=FALSE)

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        p = cls.props(properties)
        (data,) = cls.tensors(operand_types, ("data",))
        kh, kw = p.positive("pool_size", 2)
        strides, dilation = p.positive("strides", 2), p.positive("dilation", 2)
        pt, pl, pb, pr = p.padding()
        _, h_axis, w_axis = spatial_axes(cls, p.text("layout"))
        if data.get_num_dims() != 4:
            raise cls.error(f"data must be 4-d, got {fmt_shape(data.get_shape())}")
        shape = list(data.get_shape())
        ceil = p.flag("ceil_mode")
        oh = window_out(shape[h_axis], pt, pb, kh, strides[0], dilation[0], ceil)
        ow = window_out(shape[w_axis], pl, pr, kw, strides[1], dilation[1], ceil)
        if oh < 1 or ow < 1:
            raise cls.error(
                f"dilated window {dilation[0] * (kh - 1) + 1}x{dilation[1] * (kw - 1) + 1} is "
                f"larger than padded input {shape[h_axis] + pt + pb}x{shape[w_axis] + pl + pr}"
            )
        shape[h_axis], shape[w_axis] = oh, ow
        return [TensorType(data.get_element_type(), shape)]


@irdl_op_definition
class MaxPool2dOp(Pool2dOp):
    """Maximum over each window (padding never wins).

    `%y = relay.nn.max_pool2d %x {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : (tensor<1x3x7x7xf32>) -> tensor<1x3x3x3xf32>`
    """

    name = "relay.nn.max_pool2d"

    def __init__(
        self,
        data: Operand,
        pool_size: Sequence[int],
        strides: Sequence[int] = (1, 1),
        padding: Sequence[int] = (0, 0, 0, 0),
        dilation: Sequence[int] = (1, 1),
        layout: str = "NCHW",
        ceil_mode: bool = False,
    ) -> None:
        self._build(
            [data],
            {
                "pool_size": int_array(pool_size),
                "strides": int_array(strides),
                "padding": int_array(padding),
                "dilation": int_array(dilation),
                "layout": StringAttr(layout),
                "ceil_mode": bool_attr(ceil_mode),
            },
        )


@irdl_op_definition
class AvgPool2dOp(Pool2dOp):
    """Mean over each window; padding counts toward the divisor if count_include_pad.

    `%y = relay.nn.avg_pool2d %x {pool_size = array<i64: 3, 3>, count_include_pad = true}
        : (tensor<1x3x7x7xf32>) -> tensor<1x3x5x5xf32>`

    The extra cells ceil_mode adds at the bottom and right are never counted.
    """

    name = "relay.nn.avg_pool2d"
    count_include_pad = prop_def(BOOL, default_value=FALSE)

    def __init__(
        self,
        data: Operand,
        pool_size: Sequence[int],
        strides: Sequence[int] = (1, 1),
        padding: Sequence[int] = (0, 0, 0, 0),
        dilation: Sequence[int] = (1, 1),
        layout: str = "NCHW",
        ceil_mode: bool = False,
        count_include_pad: bool = False,
    ) -> None:
        self._build(
            [data],
            {
                "pool_size": int_array(pool_size),
                "strides": int_array(strides),
                "padding": int_array(padding),
                "dilation": int_array(dilation),
                "layout": StringAttr(layout),
                "ceil_mode": bool_attr(ceil_mode),
                "count_include_pad": bool_attr(count_include_pad),
            },
        )


class GlobalPool2dOp(RelayOp, ABC):
    """A reduction over both spatial axes of a 4-d tensor, keeping them as size 1."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    data = operand_def(TensorType)
    result = result_def(TensorType)
    layout = prop_def(StringAttr, default_value=StringAttr("NCHW"))

    def __init__(self, data: Operand, layout: str = "NCHW") -> None:
        self._build([data], {"layout": StringAttr(layout)})

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        (data,) = cls.tensors(operand_types, ("data",))
        _, h_axis, w_axis = spatial_axes(cls, cls.props(properties).text("layout"))
        if data.get_num_dims() != 4:
            raise cls.error(f"data must be 4-d, got {fmt_shape(data.get_shape())}")
        shape = list(data.get_shape())
        shape[h_axis] = shape[w_axis] = 1
        return [TensorType(data.get_element_type(), shape)]


@irdl_op_definition
class GlobalAvgPool2dOp(GlobalPool2dOp):
    """Mean over the spatial axes.

    `%y = relay.nn.global_avg_pool2d %x : (tensor<1x3x7x7xf32>) -> tensor<1x3x1x1xf32>`
    """

    name = "relay.nn.global_avg_pool2d"


@irdl_op_definition
class GlobalMaxPool2dOp(GlobalPool2dOp):
    """Maximum over the spatial axes.

    `%y = relay.nn.global_max_pool2d %x : (tensor<1x3x7x7xf32>) -> tensor<1x3x1x1xf32>`
    """

    name = "relay.nn.global_max_pool2d"


@irdl_op_definition
class PadOp(RelayOp):
    """Pad every axis; pad_width holds (before, after) per axis, flattened.

    `%y = relay.nn.pad %x {pad_width = array<i64: 0, 0, 1, 2>, pad_value = 1.0 : f64}
        : (tensor<2x3xf32>) -> tensor<2x6xf32>`
    """

    name = "relay.nn.pad"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    data = operand_def(TensorType)
    result = result_def(TensorType)
    pad_width = prop_def(INTS)
    pad_value = prop_def(FloatAttr, default_value=float_attr(0.0))
    pad_mode = prop_def(StringAttr, default_value=StringAttr("constant"))

    def __init__(
        self,
        data: Operand,
        pad_width: Sequence[int] | Sequence[Sequence[int]],
        pad_value: float = 0.0,
        pad_mode: str = "constant",
    ) -> None:
        flat = [
            int(v) for pair in pad_width for v in (pair if isinstance(pair, Sequence) else [pair])
        ]
        self._build(
            [data],
            {
                "pad_width": int_array(flat),
                "pad_value": float_attr(pad_value),
                "pad_mode": StringAttr(pad_mode),
            },
        )

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        p = cls.props(properties)
        (data,) = cls.tensors(operand_types, ("data",))
        mode = p.choice("pad_mode", ("constant", "edge", "reflect"))
        widths = p.ints("pad_width")
        shape = data.get_shape()
        if len(widths) != 2 * len(shape) or any(w < 0 for w in widths):
            raise cls.error(
                f"pad_width must be {2 * len(shape)} non-negative integers (before, after per "
                f"axis of {fmt_shape(shape)}), got {fmt_list(widths)}"
            )
        out = []
        for axis, dim in enumerate(shape):
            before, after = widths[2 * axis], widths[2 * axis + 1]
            limit = dim - 1 if mode == "reflect" else dim if mode == "edge" else None
            if limit is not None and max(before, after) > 0 and max(before, after) > limit:
                raise cls.error(
                    f"{mode} padding of {max(before, after)} is too wide for axis {axis} of size "
                    f"{dim}"
                )
            out.append(before + dim + after)
        return [TensorType(data.get_element_type(), out)]


RESIZE_METHODS = ("nearest_neighbor", "linear")
COORDINATE_MODES = ("half_pixel", "align_corners", "asymmetric")
ROUNDING_METHODS = ("", "round", "floor", "ceil", "round_prefer_floor", "round_prefer_ceil")


@irdl_op_definition
class Resize2dOp(RelayOp):
    """Resize the spatial axes to `size` by nearest neighbour or bilinear interpolation.

    `%y = relay.image.resize2d %x {size = array<i64: 6, 9>, method = "nearest_neighbor"}
        : (tensor<1x2x3x4xf32>) -> tensor<1x2x6x9xf32>`

    rounding_method "" means TVM's default for nearest_neighbor: round for align_corners,
    floor otherwise.
    """

    name = "relay.image.resize2d"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    data = operand_def(TensorType)
    result = result_def(TensorType)
    size = prop_def(INTS)
    layout = prop_def(StringAttr, default_value=StringAttr("NCHW"))
    method = prop_def(StringAttr, default_value=StringAttr("linear"))
    coordinate_transformation_mode = prop_def(StringAttr, default_value=StringAttr("half_pixel"))
    rounding_method = prop_def(StringAttr, default_value=StringAttr(""))

    def __init__(
        self,
        data: Operand,
        size: Sequence[int],
        layout: str = "NCHW",
        method: str = "linear",
        coordinate_transformation_mode: str = "half_pixel",
        rounding_method: str = "",
    ) -> None:
        self._build(
            [data],
            {
                "size": int_array(size),
                "layout": StringAttr(layout),
                "method": StringAttr(method),
                "coordinate_transformation_mode": StringAttr(coordinate_transformation_mode),
                "rounding_method": StringAttr(rounding_method),
            },
        )

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        p = cls.props(properties)
        (data,) = cls.tensors(operand_types, ("data",))
        oh, ow = p.positive("size", 2)
        method = p.choice("method", RESIZE_METHODS)
        p.choice("coordinate_transformation_mode", COORDINATE_MODES)
        p.choice("rounding_method", ROUNDING_METHODS)
        _, h_axis, w_axis = spatial_axes(cls, p.text("layout"))
        if data.get_num_dims() != 4:
            raise cls.error(f"data must be 4-d, got {fmt_shape(data.get_shape())}")
        if method == "linear" and not is_float(data.get_element_type()):
            raise cls.error(f"linear resize needs a float type, got {data.get_element_type()}")
        shape = list(data.get_shape())
        shape[h_axis], shape[w_axis] = oh, ow
        return [TensorType(data.get_element_type(), shape)]


@irdl_op_definition
class UpsamplingOp(RelayOp):
    """Scale the spatial axes by (scale_h, scale_w), the sizes rounded to nearest.

    `%y = relay.nn.upsampling %x {scale_h = 2.0 : f64, scale_w = 2.0 : f64}
        : (tensor<1x2x3x4xf32>) -> tensor<1x2x6x8xf32>`

    TVM's: a resize2d with asymmetric (or align_corners) coordinates.
    """

    name = "relay.nn.upsampling"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    data = operand_def(TensorType)
    result = result_def(TensorType)
    scale_h = prop_def(FloatAttr)
    scale_w = prop_def(FloatAttr)
    layout = prop_def(StringAttr, default_value=StringAttr("NCHW"))
    method = prop_def(StringAttr, default_value=StringAttr("nearest_neighbor"))
    align_corners = prop_def(BOOL, default_value=FALSE)

    def __init__(
        self,
        data: Operand,
        scale_h: float,
        scale_w: float,
        layout: str = "NCHW",
        method: str = "nearest_neighbor",
        align_corners: bool = False,
    ) -> None:
        self._build(
            [data],
            {
                "scale_h": float_attr(scale_h),
                "scale_w": float_attr(scale_w),
                "layout": StringAttr(layout),
                "method": StringAttr(method),
                "align_corners": bool_attr(align_corners),
            },
        )

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        p = cls.props(properties)
        (data,) = cls.tensors(operand_types, ("data",))
        method = p.choice("method", ("nearest_neighbor", "bilinear"))
        _, h_axis, w_axis = spatial_axes(cls, p.text("layout"))
        if data.get_num_dims() != 4:
            raise cls.error(f"data must be 4-d, got {fmt_shape(data.get_shape())}")
        if method == "bilinear" and not is_float(data.get_element_type()):
            raise cls.error(f"bilinear upsampling needs a float type, got {data.element_type}")
        shape = list(data.get_shape())
        for axis, scale in ((h_axis, p.number("scale_h")), (w_axis, p.number("scale_w"))):
            size = round(shape[axis] * scale)
            if not scale > 0 or size < 1:
                raise cls.error(f"scale {scale} leaves axis {axis} of size {shape[axis]} empty")
            shape[axis] = size
        return [TensorType(data.get_element_type(), shape)]


# ---------------------------------------------------------------------------------------------
# Reductions


class ReduceOp(RelayOp, ABC):
    """A reduction over `axis` (all axes when absent), optionally keeping them as size 1."""

    PATTERN: ClassVar[OpPattern] = OpPattern.COMM_REDUCE
    data = operand_def(TensorType)
    result = result_def(TensorType)
    axis = opt_prop_def(INTS)
    keepdims = prop_def(BOOL, default_value=FALSE)

    def __init__(
        self, data: Operand, axis: int | Sequence[int] | None = None, keepdims: bool = False
    ) -> None:
        axes = None if axis is None else int_array([axis] if isinstance(axis, int) else axis)
        self._build([data], {"axis": axes, "keepdims": bool_attr(keepdims)})

    @classmethod
    def reduced_axes(cls, p: Props, rank: int) -> tuple[int, ...]:
        axes = p.opt_ints("axis")
        return tuple(range(rank)) if axes is None else normalize_axes(cls, axes, rank)

    @classmethod
    def result_element(cls, elem: Attribute) -> Attribute:
        return elem

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        p = cls.props(properties)
        (data,) = cls.tensors(operand_types, ("data",))
        axes = cls.reduced_axes(p, data.get_num_dims())
        keep = p.flag("keepdims")
        shape = [
            1 if i in axes else d for i, d in enumerate(data.get_shape()) if keep or i not in axes
        ]
        return [TensorType(cls.result_element(data.get_element_type()), shape)]


class ArgReduceOp(ReduceOp, ABC):
    """The i32 index of the extreme element along one axis (of the flattened data if none)."""

    @classmethod
    def reduced_axes(cls, p: Props, rank: int) -> tuple[int, ...]:
        axes = p.opt_ints("axis")
        if axes is not None and len(axes) != 1:
            raise cls.error(f"takes one axis (or none for all), got {fmt_list(axes)}")
        return super().reduced_axes(p, rank)

    @classmethod
    def result_element(cls, elem: Attribute) -> Attribute:
        return IntegerType(32)


@irdl_op_definition
class SumOp(ReduceOp):
    """Sum over axes.

    `%y = relay.sum %x {axis = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>`
    """

    name = "relay.sum"


@irdl_op_definition
class MeanOp(ReduceOp):
    """Arithmetic mean over axes.

    `%y = relay.mean %x {axis = array<i64: 1>, keepdims = true}
        : (tensor<2x3xf32>) -> tensor<2x1xf32>`
    """

    name = "relay.mean"


@irdl_op_definition
class MaxOp(ReduceOp):
    """Maximum over axes.

    `%y = relay.max %x : (tensor<2x3xf32>) -> tensor<f32>`
    """

    name = "relay.max"


@irdl_op_definition
class MinOp(ReduceOp):
    """Minimum over axes.

    `%y = relay.min %x {axis = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>`
    """

    name = "relay.min"


@irdl_op_definition
class ProdOp(ReduceOp):
    """Product over axes.

    `%y = relay.prod %x {axis = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>`
    """

    name = "relay.prod"


@irdl_op_definition
class ArgmaxOp(ArgReduceOp):
    """Index of the first maximum along an axis.

    `%y = relay.argmax %x {axis = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xi32>`
    """

    name = "relay.argmax"


@irdl_op_definition
class ArgminOp(ArgReduceOp):
    """Index of the first minimum along an axis.

    `%y = relay.argmin %x {axis = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xi32>`
    """

    name = "relay.argmin"


# ---------------------------------------------------------------------------------------------
# Shape manipulation


@irdl_op_definition
class ReshapeOp(RelayOp):
    """Reshape; in newshape 0 copies the input dimension and -1 is inferred.

    `%y = relay.reshape %x {newshape = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>`
    """

    name = "relay.reshape"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    data = operand_def(TensorType)
    result = result_def(TensorType)
    newshape = prop_def(INTS)

    def __init__(self, data: Operand, newshape: Sequence[int]) -> None:
        self._build([data], {"newshape": int_array(newshape)})

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        (data,) = cls.tensors(operand_types, ("data",))
        newshape = cls.props(properties).ints("newshape")
        shape = data.get_shape()
        out: list[int] = []
        for i, d in enumerate(newshape):
            if d == 0:
                if i >= len(shape):
                    raise cls.error(f"newshape entry {i} is 0 but data has rank {len(shape)}")
                out.append(shape[i])
            elif d >= -1:
                out.append(d)
            else:
                raise cls.error(f"newshape entry {d} is not supported (only sizes, 0 and -1)")
        total = math.prod(shape)
        if out.count(-1) > 1:
            raise cls.error(f"newshape {fmt_list(newshape)} has more than one -1")
        if -1 in out:
            known = math.prod(d for d in out if d != -1)
            if known == 0 or total % known:
                raise cls.error(
                    f"cannot reshape {fmt_shape(shape)} ({total} elements) to {fmt_list(newshape)}"
                )
            out[out.index(-1)] = total // known
        if math.prod(out) != total:
            raise cls.error(
                f"cannot reshape {fmt_shape(shape)} ({total} elements) to {fmt_shape(out)} "
                f"({math.prod(out)} elements)"
            )
        return [TensorType(data.get_element_type(), out)]


@irdl_op_definition
class TransposeOp(RelayOp):
    """Permute the axes (reverse them when axes is absent).

    `%y = relay.transpose %x {axes = array<i64: 0, 2, 1>}
        : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>`
    """

    name = "relay.transpose"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    data = operand_def(TensorType)
    result = result_def(TensorType)
    axes = opt_prop_def(INTS)

    def __init__(self, data: Operand, axes: Sequence[int] | None = None) -> None:
        self._build([data], {"axes": None if axes is None else int_array(axes)})

    @classmethod
    def permutation(cls, p: Props, rank: int) -> tuple[int, ...]:
        axes = p.opt_ints("axes")
        if axes is None:
            return tuple(reversed(range(rank)))
        if len(axes) != rank:
            raise cls.error(f"axes {fmt_list(axes)} must have one entry per axis of rank {rank}")
        return normalize_axes(cls, axes, rank)

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        (data,) = cls.tensors(operand_types, ("data",))
        perm = cls.permutation(cls.props(properties), data.get_num_dims())
        shape = data.get_shape()
        return [TensorType(data.get_element_type(), [shape[a] for a in perm])]


@irdl_op_definition
class ConcatenateOp(RelayOp):
    """Join tensors along `axis`.

    `%y = relay.concatenate %a, %b {axis = 1 : i64}
        : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>`
    """

    name = "relay.concatenate"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    inputs = var_operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(INT, default_value=int_attr(0))

    def __init__(self, inputs: Sequence[Operand], axis: int = 0) -> None:
        self._build([list(inputs)], {"axis": int_attr(axis)})

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        if not operand_types:
            raise cls.error("needs at least one operand")
        names = [f"operand {i}" for i in range(len(operand_types))]
        tensors = cls.tensors(operand_types, names)
        elem = cls.same_element(tensors, names)
        first = tensors[0].get_shape()
        axis = cls.props(properties).axis("axis", len(first))
        total = 0
        for t in tensors:
            shape = t.get_shape()
            if len(shape) != len(first) or any(
                a != b for i, (a, b) in enumerate(zip(shape, first, strict=True)) if i != axis
            ):
                raise cls.error(
                    f"operand shapes differ outside axis {axis}: {fmt_shape(first)} vs "
                    f"{fmt_shape(shape)}"
                )
            total += shape[axis]
        out = list(first)
        out[axis] = total
        return [TensorType(elem, out)]


@irdl_op_definition
class SplitOp(RelayOp):
    """Split along `axis` into equal sections (an integer) or at indices (an array); a tuple.

    `%t = relay.split %x {indices_or_sections = 3 : i64, axis = 1 : i64}
        : (tensor<2x6xf32>) -> tuple<tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>>`
    """

    name = "relay.split"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    data = operand_def(TensorType)
    result = result_def(TupleType)
    indices_or_sections = prop_def(INT | INTS)
    axis = prop_def(INT, default_value=int_attr(0))

    def __init__(
        self, data: Operand, indices_or_sections: int | Sequence[int], axis: int = 0
    ) -> None:
        value = (
            int_attr(indices_or_sections)
            if isinstance(indices_or_sections, int)
            else int_array(indices_or_sections)
        )
        self._build([data], {"indices_or_sections": value, "axis": int_attr(axis)})

    @classmethod
    def boundaries(cls, p: Props, size: int) -> list[int]:
        """The split points along the axis, from 0 to size inclusive."""
        spec = p.required("indices_or_sections")
        if isinstance(spec, IntegerAttr):
            sections = int(spec.value.data)
            if sections < 1 or size % sections:
                raise cls.error(f"{sections} sections do not divide axis of size {size}")
            step = size // sections
            return [i * step for i in range(sections + 1)]
        indices = list(p.ints("indices_or_sections"))
        if any(b < a for a, b in itertools.pairwise(indices)) or any(
            not 0 <= i <= size for i in indices
        ):
            raise cls.error(f"indices {fmt_list(indices)} must be ascending within [0, {size}]")
        return [0, *indices, size]

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        p = cls.props(properties)
        (data,) = cls.tensors(operand_types, ("data",))
        axis = p.axis("axis", data.get_num_dims())
        points = cls.boundaries(p, data.get_shape()[axis])
        fields: list[Attribute] = []
        for start, stop in itertools.pairwise(points):
            shape = list(data.get_shape())
            shape[axis] = stop - start
            fields.append(TensorType(data.get_element_type(), shape))
        return [TupleType(tuple(fields))]


@irdl_op_definition
class SqueezeOp(RelayOp):
    """Remove size-1 axes (all of them when axis is absent).

    `%y = relay.squeeze %x {axis = array<i64: 0>} : (tensor<1x3x1xf32>) -> tensor<3x1xf32>`
    """

    name = "relay.squeeze"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    data = operand_def(TensorType)
    result = result_def(TensorType)
    axis = opt_prop_def(INTS)

    def __init__(self, data: Operand, axis: Sequence[int] | None = None) -> None:
        self._build([data], {"axis": None if axis is None else int_array(axis)})

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        (data,) = cls.tensors(operand_types, ("data",))
        shape = data.get_shape()
        given = cls.props(properties).opt_ints("axis")
        if given is None:
            axes = tuple(i for i, d in enumerate(shape) if d == 1)
        else:
            axes = normalize_axes(cls, given, len(shape))
        for a in axes:
            if shape[a] != 1:
                raise cls.error(f"cannot squeeze axis {a} of size {shape[a]}")
        out = [d for i, d in enumerate(shape) if i not in axes]
        return [TensorType(data.get_element_type(), out)]


@irdl_op_definition
class ExpandDimsOp(RelayOp):
    """Insert num_newaxis size-1 axes at `axis`.

    `%y = relay.expand_dims %x {axis = 1 : i64, num_newaxis = 2 : i64}
        : (tensor<3x4xf32>) -> tensor<3x1x1x4xf32>`
    """

    name = "relay.expand_dims"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    data = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(INT)
    num_newaxis = prop_def(INT, default_value=int_attr(1))

    def __init__(self, data: Operand, axis: int, num_newaxis: int = 1) -> None:
        self._build([data], {"axis": int_attr(axis), "num_newaxis": int_attr(num_newaxis)})

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        p = cls.props(properties)
        (data,) = cls.tensors(operand_types, ("data",))
        shape = list(data.get_shape())
        axis, count = p.integer("axis"), p.integer("num_newaxis")
        if not -len(shape) - 1 <= axis <= len(shape):
            raise cls.error(f"axis {axis} is out of range for rank {len(shape)} (inserting)")
        if count < 0:
            raise cls.error(f"num_newaxis must not be negative, got {count}")
        axis = axis % (len(shape) + 1)
        return [TensorType(data.get_element_type(), [*shape[:axis], *[1] * count, *shape[axis:]])]


@irdl_op_definition
class BatchFlattenOp(RelayOp):
    """Flatten all axes but the first.

    `%y = relay.nn.batch_flatten %x : (tensor<2x3x4xf32>) -> tensor<2x12xf32>`
    """

    name = "relay.nn.batch_flatten"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    data = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, data: Operand) -> None:
        self._build([data])

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        (data,) = cls.tensors(operand_types, ("data",))
        shape = data.get_shape()
        if not shape:
            raise cls.error("data must have rank >= 1")
        return [TensorType(data.get_element_type(), [shape[0], math.prod(shape[1:])])]


class ShapeQueryOp(RelayOp, ABC):
    """An op that reads only its operand's static type: a tensor of integers `dtype`."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    data = operand_def(TensorType)
    result = result_def(TensorType)
    dtype = prop_def(IntegerType, default_value=i32)

    def __init__(self, data: Operand, dtype: Attribute | str = "int32") -> None:
        if not isinstance(dtype, Attribute):
            dtype = element_type(dtype)
        self._build([data], {"dtype": dtype})

    @classmethod
    def result_shape(cls, data: TensorType) -> list[int]:
        raise NotImplementedError

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        (data,) = cls.tensors(operand_types, ("data",))
        dtype = cls.props(properties).required("dtype")
        if not isinstance(dtype, IntegerType) or is_bool(dtype):
            raise cls.error(f"dtype must be an integer type, got {dtype}")
        return [TensorType(dtype, cls.result_shape(data))]


@irdl_op_definition
class ShapeOfOp(ShapeQueryOp):
    """The shape of a tensor, as a 1-d tensor.

    `%s = relay.shape_of %x {dtype = i64} : (tensor<2x3xf32>) -> tensor<2xi64>`
    """

    name = "relay.shape_of"

    @classmethod
    def result_shape(cls, data: TensorType) -> list[int]:
        return [len(data.get_shape())]


@irdl_op_definition
class NdarraySizeOp(ShapeQueryOp):
    """The number of elements of a tensor, as a scalar.

    `%n = relay.ndarray_size %x : (tensor<2x3xf32>) -> tensor<i32>`
    """

    name = "relay.ndarray_size"

    @classmethod
    def result_shape(cls, data: TensorType) -> list[int]:
        return []


@irdl_op_definition
class StridedSliceOp(RelayOp):
    """Slice [begin, end) with strides on the given axes (the leading ones if absent).

    `%y = relay.strided_slice %x {begin = array<i64: 1>, end = array<i64: 7>,
        strides = array<i64: 2>, axes = array<i64: 1>}
        : (tensor<2x8xf32>) -> tensor<2x3xf32>`

    Indices follow Python slices: negative counts from the end, out of range is clamped.
    """

    name = "relay.strided_slice"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    data = operand_def(TensorType)
    result = result_def(TensorType)
    begin = prop_def(INTS)
    end = prop_def(INTS)
    strides = opt_prop_def(INTS)
    axes = opt_prop_def(INTS)

    def __init__(
        self,
        data: Operand,
        begin: Sequence[int],
        end: Sequence[int],
        strides: Sequence[int] | None = None,
        axes: Sequence[int] | None = None,
    ) -> None:
        self._build(
            [data],
            {
                "begin": int_array(begin),
                "end": int_array(end),
                "strides": None if strides is None else int_array(strides),
                "axes": None if axes is None else int_array(axes),
            },
        )

    @classmethod
    def slices(cls, properties: Mapping[str, Attribute], shape: Sequence[int]) -> list[slice]:
        """One Python slice per axis of a tensor of `shape`."""
        p = cls.props(properties)
        begin, end = p.ints("begin"), p.ints("end")
        strides = p.opt_ints("strides") or (1,) * len(begin)
        given = p.opt_ints("axes")
        if len(end) != len(begin) or len(strides) != len(begin):
            raise cls.error(
                f"begin, end and strides differ in length: {len(begin)}, {len(end)}, {len(strides)}"
            )
        if given is None and len(begin) > len(shape):
            raise cls.error(f"{len(begin)} slice bounds for rank {len(shape)}")
        if given is not None and len(given) != len(begin):
            raise cls.error(f"axes has {len(given)} entries but begin has {len(begin)}")
        axes = range(len(begin)) if given is None else normalize_axes(cls, given, len(shape))
        if 0 in strides:
            raise cls.error(f"strides must not be 0, got {fmt_list(strides)}")
        out = [slice(None)] * len(shape)
        for axis, b, e, s in zip(axes, begin, end, strides, strict=True):
            out[axis] = slice(b, e, s)
        return out

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        (data,) = cls.tensors(operand_types, ("data",))
        shape = data.get_shape()
        slices = cls.slices(properties, shape)
        out = [len(range(*s.indices(d))) for s, d in zip(slices, shape, strict=True)]
        return [TensorType(data.get_element_type(), out)]


@irdl_op_definition
class TakeOp(RelayOp):
    """Gather along `axis` (of the flattened data if absent) at integer indices.

    `%y = relay.take %x, %i {axis = 1 : i64, mode = "wrap"}
        : (tensor<2x5xf32>, tensor<3xi32>) -> tensor<2x3xf32>`

    mode: clip clamps indices into range, wrap takes them modulo the size, fast assumes them
    in range.
    """

    name = "relay.take"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)
    axis = opt_prop_def(INT)
    mode = prop_def(StringAttr, default_value=StringAttr("clip"))

    def __init__(
        self, data: Operand, indices: Operand, axis: int | None = None, mode: str = "clip"
    ) -> None:
        self._build(
            [data, indices],
            {"axis": None if axis is None else int_attr(axis), "mode": StringAttr(mode)},
        )

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        p = cls.props(properties)
        data, indices = cls.tensors(operand_types, ("data", "indices"))
        p.choice("mode", ("clip", "wrap", "fast"))
        if not is_int(indices.get_element_type()):
            raise cls.error(
                f"indices must have an integer element type, got {indices.get_element_type()}"
            )
        idx = list(indices.get_shape())
        if p.get("axis") is None:
            return [TensorType(data.get_element_type(), idx)]
        shape = list(data.get_shape())
        axis = p.axis("axis", len(shape))
        return [TensorType(data.get_element_type(), [*shape[:axis], *idx, *shape[axis + 1 :]])]


@irdl_op_definition
class BroadcastToOp(RelayOp):
    """Broadcast to `shape` by numpy's rules.

    `%y = relay.broadcast_to %x {shape = array<i64: 2, 3>} : (tensor<3xf32>) -> tensor<2x3xf32>`
    """

    name = "relay.broadcast_to"
    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST
    data = operand_def(TensorType)
    result = result_def(TensorType)
    shape = prop_def(INTS)

    def __init__(self, data: Operand, shape: Sequence[int]) -> None:
        self._build([data], {"shape": int_array(shape)})

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        (data,) = cls.tensors(operand_types, ("data",))
        target = cls.props(properties).ints("shape")
        if any(d < 0 for d in target) or broadcast_shapes(data.get_shape(), target) != target:
            raise cls.error(
                f"cannot broadcast {fmt_shape(data.get_shape())} to {fmt_shape(target)}"
            )
        return [TensorType(data.get_element_type(), target)]


@irdl_op_definition
class TileOp(RelayOp):
    """Repeat the tensor reps times along each axis (numpy.tile).

    `%y = relay.tile %x {reps = array<i64: 2, 1>} : (tensor<2x3xf32>) -> tensor<4x3xf32>`
    """

    name = "relay.tile"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    data = operand_def(TensorType)
    result = result_def(TensorType)
    reps = prop_def(INTS)

    def __init__(self, data: Operand, reps: Sequence[int]) -> None:
        self._build([data], {"reps": int_array(reps)})

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        (data,) = cls.tensors(operand_types, ("data",))
        reps = cls.props(properties).ints("reps")
        if not reps or any(r < 1 for r in reps):
            raise cls.error(f"reps must be positive integers, got {fmt_list(reps)}")
        shape = list(data.get_shape())
        rank = max(len(shape), len(reps))
        shape = [1] * (rank - len(shape)) + shape
        full = [1] * (rank - len(reps)) + list(reps)
        return [
            TensorType(data.get_element_type(), [d * r for d, r in zip(shape, full, strict=True)])
        ]


@irdl_op_definition
class LayoutTransformOp(RelayOp):
    """Change the data layout, e.g. NCHW to NHWC or NCHW to NCHW8c.

    `%y = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW4c"}
        : (tensor<1x8x2x2xf32>) -> tensor<1x2x2x2x4xf32>`
    """

    name = "relay.layout_transform"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    data = operand_def(TensorType)
    result = result_def(TensorType)
    src_layout = prop_def(StringAttr)
    dst_layout = prop_def(StringAttr)

    def __init__(self, data: Operand, src_layout: str, dst_layout: str) -> None:
        self._build(
            [data], {"src_layout": StringAttr(src_layout), "dst_layout": StringAttr(dst_layout)}
        )

    @classmethod
    def layouts(cls, properties: Mapping[str, Attribute]) -> tuple[Layout, Layout]:
        p = cls.props(properties)
        try:
            src, dst = Layout.parse(p.text("src_layout")), Layout.parse(p.text("dst_layout"))
        except ValueError as exc:
            raise cls.error(str(exc)) from None
        if sorted(src.primal) != sorted(dst.primal):
            raise cls.error(f"layouts {src.text} and {dst.text} have different primal axes")
        return src, dst

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        (data,) = cls.tensors(operand_types, ("data",))
        src, dst = cls.layouts(properties)
        try:
            shape = dst.shape(src.primal_sizes(data.get_shape()))
        except ValueError as exc:
            raise cls.error(str(exc)) from None
        return [TensorType(data.get_element_type(), shape)]


# ---------------------------------------------------------------------------------------------
# Gather, scatter and scans


def index_tensor(op: type[RelayOp], typ: TensorType, what: str = "indices") -> tuple[int, ...]:
    """The shape of an integer index operand, or an error naming the op."""
    if not is_int(typ.get_element_type()):
        raise op.error(f"{what} must have an integer element type, got {typ.get_element_type()}")
    return tuple(typ.get_shape())


def nd_index_shapes(
    op: type[RelayOp], data: tuple[int, ...], indices: tuple[int, ...], batch_dims: int
) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """(M, batch and index dims, data's trailing dims) of gather_nd/scatter_nd indices shaped
    (M, B..., Y...) into data shaped (B..., X_0..X_{M-1}, tail...)."""
    if not indices:
        raise op.error("indices must have rank 1 or more, with the index tuples on axis 0")
    m = indices[0]
    if batch_dims < 0 or batch_dims + m > len(data) or m < 1:
        raise op.error(
            f"{m} index components and {batch_dims} batch dims do not fit data of rank {len(data)}"
        )
    if tuple(indices[1 : 1 + batch_dims]) != tuple(data[:batch_dims]):
        raise op.error(
            f"batch dims of indices {fmt_shape(indices[1 : 1 + batch_dims])} differ from "
            f"data's {fmt_shape(data[:batch_dims])}"
        )
    return m, tuple(indices[1:]), tuple(data[batch_dims + m :])


@irdl_op_definition
class GatherNdOp(RelayOp):
    """Gather slices of data at index tuples laid along axis 0 of indices (TVM's layout).

    `%y = relay.gather_nd %x, %i {batch_dims = 0 : i64}
        : (tensor<4x5x6xf32>, tensor<2x3xi64>) -> tensor<3x6xf32>`

    indices (M, B..., Y...) into data (B..., X_0..X_{M-1}, tail...) give (B..., Y..., tail...):
    the first batch_dims axes pair up one to one.
    """

    name = "relay.gather_nd"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)
    batch_dims = prop_def(INT, default_value=int_attr(0))

    def __init__(self, data: Operand, indices: Operand, batch_dims: int = 0) -> None:
        self._build([data, indices], {"batch_dims": int_attr(batch_dims)})

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        data, indices = cls.tensors(operand_types, ("data", "indices"))
        batch_dims = cls.props(properties).integer("batch_dims")
        index_shape = index_tensor(cls, indices)
        _, lead, tail = nd_index_shapes(cls, tuple(data.get_shape()), index_shape, batch_dims)
        return [TensorType(data.get_element_type(), [*lead, *tail])]


SCATTER_MODES = ("update", "add", "mul", "min", "max")


@irdl_op_definition
class ScatterNdOp(RelayOp):
    """A copy of data with the slices at index tuples (axis 0 of indices) set or combined.

    `%y = relay.scatter_nd %x, %i, %u {mode = "add"}
        : (tensor<4x5xf32>, tensor<1x3xi64>, tensor<3x5xf32>) -> tensor<4x5xf32>`

    indices (M, Y...) and updates (Y..., data.shape[M:]); mode update (the last write of a
    repeated index wins), add, mul, min or max combine the updates with the data.
    """

    name = "relay.scatter_nd"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    updates = operand_def(TensorType)
    result = result_def(TensorType)
    mode = prop_def(StringAttr, default_value=StringAttr("update"))

    def __init__(
        self, data: Operand, indices: Operand, updates: Operand, mode: str = "update"
    ) -> None:
        self._build([data, indices, updates], {"mode": StringAttr(mode)})

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        data, indices, updates = cls.tensors(operand_types, ("data", "indices", "updates"))
        cls.props(properties).choice("mode", SCATTER_MODES)
        cls.same_element([data, updates], ["data", "updates"])
        _, lead, tail = nd_index_shapes(cls, tuple(data.get_shape()), index_tensor(cls, indices), 0)
        if tuple(updates.get_shape()) != (*lead, *tail):
            raise cls.error(
                f"updates shape {fmt_shape(updates.get_shape())} must be "
                f"{fmt_shape((*lead, *tail))} (index dims, then data's trailing dims)"
            )
        return [data]


@irdl_op_definition
class GatherOp(RelayOp):
    """Gather along `axis` elementwise: y[i..] = data[i.. with indices[i..] on axis].

    `%y = relay.gather %x, %i {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>)
        -> tensor<3x2xf32>`
    """

    name = "relay.gather"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(INT, default_value=int_attr(0))

    def __init__(self, data: Operand, indices: Operand, axis: int = 0) -> None:
        self._build([data, indices], {"axis": int_attr(axis)})

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        data, indices = cls.tensors(operand_types, ("data", "indices"))
        shape = index_tensor(cls, indices)
        check_elementwise_indices(cls, tuple(data.get_shape()), shape, properties)
        return [TensorType(data.get_element_type(), shape)]


def check_elementwise_indices(
    op: type[RelayOp],
    data: tuple[int, ...],
    indices: tuple[int, ...],
    properties: Mapping[str, Attribute],
) -> int:
    """The normalised axis of gather/scatter_elements; indices must have data's rank."""
    if len(indices) != len(data):
        raise op.error(f"indices rank {len(indices)} differs from data rank {len(data)}")
    axis = op.props(properties).axis("axis", len(data))
    if any(i > d for k, (i, d) in enumerate(zip(indices, data, strict=True)) if k != axis):
        raise op.error(
            f"indices shape {fmt_shape(indices)} exceeds data shape {fmt_shape(data)} off axis "
            f"{axis}"
        )
    return axis


@irdl_op_definition
class ScatterElementsOp(RelayOp):
    """A copy of data with updates written along `axis` at indices, elementwise.

    `%y = relay.scatter_elements %x, %i, %u {axis = 0 : i64, reduction = "add"}
        : (tensor<3x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<3x3xf32>`

    reduction update (the last write of a repeated index wins), add, mul, min or max.
    """

    name = "relay.scatter_elements"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    updates = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(INT, default_value=int_attr(0))
    reduction = prop_def(StringAttr, default_value=StringAttr("update"))

    def __init__(
        self,
        data: Operand,
        indices: Operand,
        updates: Operand,
        axis: int = 0,
        reduction: str = "update",
    ) -> None:
        self._build(
            [data, indices, updates],
            {"axis": int_attr(axis), "reduction": StringAttr(reduction)},
        )

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        data, indices, updates = cls.tensors(operand_types, ("data", "indices", "updates"))
        cls.props(properties).choice("reduction", SCATTER_MODES)
        cls.same_element([data, updates], ["data", "updates"])
        shape = index_tensor(cls, indices)
        if tuple(updates.get_shape()) != shape:
            raise cls.error(
                f"updates shape {fmt_shape(updates.get_shape())} differs from indices shape "
                f"{fmt_shape(shape)}"
            )
        check_elementwise_indices(cls, tuple(data.get_shape()), shape, properties)
        return [data]


@irdl_op_definition
class CumsumOp(RelayOp):
    """Running sum along `axis` (of the flattened data if absent); exclusive leaves out the
    element itself.

    `%y = relay.cumsum %x {axis = 1 : i64, exclusive = true} : (tensor<2x5xf32>)
        -> tensor<2x5xf32>`
    """

    name = "relay.cumsum"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    data = operand_def(TensorType)
    result = result_def(TensorType)
    axis = opt_prop_def(INT)
    exclusive = prop_def(BOOL, default_value=FALSE)

    def __init__(self, data: Operand, axis: int | None = None, exclusive: bool = False) -> None:
        self._build(
            [data],
            {"axis": None if axis is None else int_attr(axis), "exclusive": bool_attr(exclusive)},
        )

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        (data,) = cls.tensors(operand_types, ("data",))
        p = cls.props(properties)
        p.flag("exclusive")
        if p.get("axis") is None:
            return [TensorType(data.get_element_type(), [math.prod(data.get_shape())])]
        p.axis("axis", data.get_num_dims())
        return [data]


@irdl_op_definition
class TriluOp(RelayOp):
    """The upper (or lower) triangle of the last two axes from diagonal k, zeros elsewhere.

    `%y = relay.trilu %x {k = 1 : i64, upper = false} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>`

    k is a property here (TVM takes a tensor): shapes and attributes are static.
    """

    name = "relay.trilu"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    data = operand_def(TensorType)
    result = result_def(TensorType)
    k = prop_def(INT, default_value=int_attr(0))
    upper = prop_def(BOOL, default_value=TRUE)

    def __init__(self, data: Operand, k: int = 0, upper: bool = True) -> None:
        self._build([data], {"k": int_attr(k), "upper": bool_attr(upper)})

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        (data,) = cls.tensors(operand_types, ("data",))
        p = cls.props(properties)
        p.integer("k")
        p.flag("upper")
        if data.get_num_dims() < 2:
            raise cls.error(f"data must have rank 2 or more, got {fmt_shape(data.get_shape())}")
        return [data]


Relay = Dialect(
    "relay",
    [
        # Constants, parameters, tuples
        ConstOp,
        ParamOp,
        TupleOp,
        TupleGetItemOp,
        # Broadcasting binary ops and select
        AddOp,
        SubtractOp,
        MultiplyOp,
        DivideOp,
        PowerOp,
        MaximumOp,
        MinimumOp,
        EqualOp,
        LessOp,
        GreaterOp,
        LessEqualOp,
        GreaterEqualOp,
        NotEqualOp,
        FloorDivideOp,
        FloorModOp,
        LeftShiftOp,
        RightShiftOp,
        LogicalAndOp,
        LogicalOrOp,
        WhereOp,
        # Elementwise unary ops
        NegativeOp,
        AbsOp,
        ExpOp,
        LogOp,
        SqrtOp,
        RsqrtOp,
        TanhOp,
        SigmoidOp,
        ErfOp,
        LogicalNotOp,
        CosOp,
        SinOp,
        TanOp,
        AtanOp,
        FloorOp,
        CeilOp,
        TruncOp,
        RoundOp,
        SignOp,
        ClipOp,
        CastOp,
        # Activations
        ReluOp,
        LeakyReluOp,
        PreluOp,
        GeluOp,
        SoftmaxOp,
        LogSoftmaxOp,
        DropoutOp,
        # Convolution and matrix products
        Conv2dOp,
        Conv2dWinogradOp,
        Conv2dTransposeOp,
        DenseOp,
        MatmulOp,
        BatchMatmulOp,
        BiasAddOp,
        # Normalisation
        BatchNormOp,
        LayerNormOp,
        LrnOp,
        # Pooling, padding, resizing
        MaxPool2dOp,
        AvgPool2dOp,
        GlobalAvgPool2dOp,
        GlobalMaxPool2dOp,
        PadOp,
        Resize2dOp,
        UpsamplingOp,
        # Reductions
        SumOp,
        MeanOp,
        MaxOp,
        MinOp,
        ProdOp,
        ArgmaxOp,
        ArgminOp,
        # Shape manipulation
        ReshapeOp,
        TransposeOp,
        ConcatenateOp,
        SplitOp,
        SqueezeOp,
        ExpandDimsOp,
        BatchFlattenOp,
        ShapeOfOp,
        NdarraySizeOp,
        StridedSliceOp,
        TakeOp,
        BroadcastToOp,
        TileOp,
        LayoutTransformOp,
        # Gather, scatter and scans
        GatherNdOp,
        ScatterNdOp,
        GatherOp,
        ScatterElementsOp,
        CumsumOp,
        TriluOp,
    ],
    [],
)
