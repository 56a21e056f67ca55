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

Ops are data: each is one row, a call of `relay_op` (TVM name, family, docstring with one line
of syntax, attributes with types and defaults, type rule, pattern), from which come its class
(`AddOp`), builder, verifier, text form and TVM's Python builder (`relay.add`). To add an op:
1. write its row here, in its family when it has one (a unary float op is one line:
   `ErfOp = relay_op("erf", FloatUnaryOp, "Elementwise Gauss error function.")`), else with
   its `operands=` (when not one `data` tensor), its `*_def` attributes and its type rule
   `rule(op class, props, *operand tensor types) -> result type`;
2. give it its numpy semantics in `xtvm.runtime.relay_interpreter` (a `NUMPY` entry or a
   `@numpy_rule` function of its operands and attributes) and its compute in
   `xtvm.topi.strategy.STRATEGIES`;
3. add a case to `tests/dialects/test_relay.py` and `tests/runtime/test_relay_interpreter.py`
   (their completeness tests fail until you do) and to `lit_tests/dialects/relay/ops.mlir`;
4. regenerate the op reference, docs/relay-ops.md, with `python -m xtvm.tools.opdoc`.
The Python builder comes from the row (`xtvm.api.relay.expr.derive_builders`); write one by
hand in `xtvm/api/relay/op/` only when TVM's signature differs from the op's.
"""

from __future__ import annotations

import ctypes
import enum
import inspect
import itertools
import math
from abc import ABC
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
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
    f32,
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

from xtvm.dialects.relay_attrs import python_value
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


def int_array(values: Sequence[int] | int) -> DenseArrayBase:
    """`array<i64: ...>`, the form of every integer-list property; a lone integer is a list
    of one, as TVM's builders take `axis=2` for `axis=[2]`."""
    listed = [values] if isinstance(values, int | np.integer) else values
    return DenseArrayBase.from_list(i64, [int(v) for v in listed])


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


def filled_bytes(
    shape: Sequence[int], dtype: np.dtype, fill: Callable[[np.ndarray], None]
) -> np.ndarray:
    """A read-only array of `shape` and `dtype` viewing a new `bytes` object that `fill` wrote
    through a writable view first (CPython's way of building bytes in place, before anyone
    else sees them): `dense_from_numpy` then shares those bytes, so that a constant computed
    at compile time (a padded weight) exists once, not as an array and its bytes copy."""
    dtype = np.dtype(dtype)
    size = math.prod(shape) * dtype.itemsize
    if size < 2:  # CPython shares its empty and one-byte objects
        array = np.zeros(shape, dtype)
        fill(array)
        return array
    new = ctypes.pythonapi.PyBytes_FromStringAndSize
    new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_ssize_t]
    data = new(None, size)
    address = ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value
    writable = np.frombuffer((ctypes.c_char * size).from_address(address), dtype)
    fill(writable.reshape(shape))
    del writable
    return np.frombuffer(data, dtype).reshape(shape)


def viewed_bytes(array: np.ndarray) -> bytes | None:
    """The `bytes` object whose every byte, in order, `array` views; else None."""
    base = array.base
    while isinstance(base, np.ndarray):
        base = base.base
    if not isinstance(base, bytes) or len(base) != array.nbytes or not array.flags.c_contiguous:
        return None
    return base if np.frombuffer(base, np.uint8).ctypes.data == array.ctypes.data else None


def erase_constant(op: Operation) -> None:
    """Erase `op`, a constant nothing reads any more, and drop its value now: an erased op
    lives on in a reference cycle (op and result) until the cycle collector runs, and a pass
    that replaces weights (combined, padded) would hold the old bytes beside the new ones."""
    assert isinstance(op, ConstOp) and not op.result.uses
    if op.parent is not None:
        op.parent.erase_op(op)
    else:
        op.erase()
    op.properties.pop("value", None)


def numpy_from_dense(attr: DenseIntOrFPElementsAttr, copy: bool = True) -> np.ndarray:
    """The value of a `dense<...>` attribute as a numpy array of its element type (without
    `copy`, where the types allow, a read-only view of the attribute's bytes)."""
    elem = attr.get_element_type()
    raw = np.frombuffer(attr.data.data, dtype=np.dtype(elem.format))  # type: ignore[attr-defined]
    value = raw != 0 if numpy_dtype(elem) == np.bool_ else raw.astype(numpy_dtype(elem), copy=copy)
    return value.reshape(attr.get_shape())


def static_shape(value: SSAValue) -> tuple[int, ...]:
    """The static shape of a tensor-typed value (what the relay passes read off operands)."""
    assert isinstance(value.type, TensorType)
    return tuple(value.type.get_shape())


def fmt_shape(shape: Sequence[int]) -> str:
    """`2x3`, as shapes are written in tensor types (`?x3` with a symbolic size); `scalar`
    for rank 0."""
    return "x".join(str(d) if static_dims(d) else "?" for d in shape) if shape else "scalar"


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


def static_dims(*dims: int) -> bool:
    """Whether none of `dims` is symbolic (`?`: a `relay.Any` or a size variable). A size
    derived from a symbolic one is symbolic too, as TVM's type relations make it an
    expression of the variable."""
    return DYNAMIC_INDEX not in dims


def derived_dim(compute: Callable[..., int], *dims: int) -> int:
    """`compute(*dims)`, or `?` when one of `dims` is."""
    return compute(*dims) if static_dims(*dims) else DYNAMIC_INDEX


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...] | None:
    """numpy's broadcast of `shapes`, or None when they do not broadcast. A symbolic size
    (`?`) broadcasts with a static one to the static one, as in TVM's BroadcastRel."""
    rank = max(len(s) for s in shapes)
    out: list[int] = []
    for i in range(rank):
        dims = {s[i - rank + len(s)] for s in shapes if i - rank + len(s) >= 0}
        dims.discard(1)
        if len(dims) > 1:
            dims.discard(DYNAMIC_INDEX)
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
FLOATS = DenseArrayBase.constr(f64)
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

    def floats(self, name: str) -> tuple[float, ...]:
        value = self.required(name)
        if not isinstance(value, DenseArrayBase):
            raise self.op.error(f"property '{name}' must be an array<f64: ...>, got {value}")
        return tuple(float(v) for v in value.get_values())

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


def windows_out(
    op: type[RelayOp],
    what: str,
    size: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    dilation: Sequence[int],
    padding: Sequence[int],
    ceil: bool,
) -> tuple[int, ...]:
    """Output extents of a window sliding over a padded input of `size` (one extent per
    spatial axis; padding is all the befores, then all the afters: top, left, bottom, right
    in 2-d); an error naming the op (and calling the window `what`) when it does not fit."""
    n = len(size)
    before, after = padding[:n], padding[n:]
    out = tuple(
        window_out(s, b, a, k, st, d, ceil) if static_dims(s, k) else DYNAMIC_INDEX
        for s, b, a, k, st, d in zip(size, before, after, kernel, strides, dilation, strict=True)
    )
    if any(static_dims(o) and o < 1 for o in out):
        spans = fmt_shape([d * (k - 1) + 1 for d, k in zip(dilation, kernel, strict=True)])
        padded = fmt_shape(
            [
                s + b + a if static_dims(s) else s
                for s, b, a in zip(size, before, after, strict=True)
            ]
        )
        raise op.error(f"dilated {what} {spans} is larger than padded input {padded}")
    return out


SPATIAL_LAYOUTS = {1: ("NCW", "NWC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def layout_axes(op: type[RelayOp], layout: str, dims: int) -> tuple[int, tuple[int, ...]]:
    """The channel axis and the spatial axes (depth, height, width order) of a data layout
    with `dims` spatial axes: channels first or last."""
    if layout not in SPATIAL_LAYOUTS[dims]:
        options = " or ".join(f'"{a}"' for a in SPATIAL_LAYOUTS[dims])
        raise op.error(f'layout must be {options}, got "{layout}"')
    return layout.index("C"), tuple(layout.index(a) for a in "DHW"[3 - dims :])


def nd_padding(op: type[RelayOp], p: Props, dims: int) -> tuple[int, ...]:
    """2 x dims non-negative paddings: every spatial axis's before, then every after."""
    values = p.ints("padding")
    if len(values) != 2 * dims or any(v < 0 for v in values):
        raise op.error(
            f"padding must be {2 * dims} non-negative integers (before, then after each "
            f"spatial axis), got {fmt_list(values)}"
        )
    return values


# ---------------------------------------------------------------------------------------------
# The base of all relay ops


class RelayOp(IRDLOperation, ABC):
    """A relay operator: pure, with a TVM pattern kind and inferred result types.

    The class variables hold the op's row (see `relay_op`): OPERANDS (one tensor, `data`,
    unless the row says otherwise) and ATTRS name its operands and attributes; RULE computes
    its result type from its operands' tensor types, once ELEMENTS ("numeric", "int", "float"
    or "bool") has checked the first one's element type.
    """

    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    OPERANDS: ClassVar[tuple[str, ...]] = ("data",)
    ATTRS: ClassVar[tuple[AttrDef, ...]] = ()
    VARIADIC: ClassVar[bool] = False
    ELEMENTS: ClassVar[str] = "numeric"
    RULE: ClassVar[TypeRule | None] = None
    SYNTAX: ClassVar[str] = ""  # the syntax line of a family's docstrings, {name} and {t} filled

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

    def attr_values(self) -> dict[str, Any]:
        """The attributes of the op's row as Python values (TVM's `call.attrs`), defaults
        filled in: int lists as tuples, strings, bools, numbers; None when absent."""
        p = self.props(self.properties)
        values = {a.name: p.get(a.name) for a in self.ATTRS}
        return {k: None if v is None else python_value(v) for k, v in values.items()}

    @classmethod
    def check_elements(cls, typ: TensorType) -> None:
        """The first operand's element type against ELEMENTS."""
        elem = typ.get_element_type()
        if cls.ELEMENTS == "int" and (is_float(elem) or is_bool(elem)):
            raise cls.error(f"operand element type must be an integer type, got {elem}")
        if cls.ELEMENTS == "float" and not is_float(elem):
            raise cls.error(f"operand element type must be a float type, got {elem}")
        if cls.ELEMENTS == "bool" and not is_bool(elem):
            raise cls.error(f"operand element type must be i1, got {elem}")

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        """The result types of this op on `operand_types`; raises VerifyException if invalid."""
        if cls.RULE is None:
            raise NotImplementedError(f"'{cls.name}' does not infer its result types")
        p = cls.props(properties)
        if cls.VARIADIC:
            result = cls.RULE(cls, p, list(operand_types))
        else:
            tensors = cls.tensors(operand_types, cls.OPERANDS)
            cls.check_elements(tensors[0])
            result = cls.RULE(cls, p, *tensors)
        return result if isinstance(result, list) else [result]

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
# Op declarations as data: one row per op
#
# An op is one call of `relay_op` (like a record of MLIR's ODS or an xDSL `irdl_op_definition`
# class, with the repetition taken out): its TVM name, its family (the base class giving its
# operands, attributes and type rule, when it shares them), its docstring with one line of
# syntax, its own attributes with types and defaults, and its type rule if it has its own.
# From that row come the IRDL operand, result and property fields, the builder `__init__`
# (operands, then attributes in declaration order, defaults filled in), the type inference
# and verifier, the printed and parsed form (the one syntax every relay op shares) and, in
# `xtvm.api.relay.op`, TVM's Python builder (`relay.add`, `relay.nn.softmax`) unless one is
# written by hand because TVM's signature differs from the op's.

REQUIRED: Any = object()  # the default of an attribute the builder must be given


@dataclass(frozen=True)
class AttrDef:
    """One attribute of an op: its name, constraint, conversion from a Python value and
    default (a Python value; REQUIRED when there is none; None when it may be absent)."""

    name: str
    constraint: Any
    convert: Callable[[Any], Attribute]
    default: Any = REQUIRED
    python_type: str = "Any"  # the builder's annotation

    def field(self) -> Any:
        if self.default is None:
            return opt_prop_def(self.constraint)
        if self.default is REQUIRED:
            return prop_def(self.constraint)
        return prop_def(self.constraint, default_value=self.convert(self.default))

    def parameter(self) -> inspect.Parameter:
        default = inspect.Parameter.empty if self.default is REQUIRED else self.default
        annotation = self.python_type + (" | None" if self.default is None else "")
        kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
        return inspect.Parameter(self.name, kind, default=default, annotation=annotation)


def ints_def(name: str, default: Any = REQUIRED) -> AttrDef:
    """An `array<i64: ...>` attribute, given as a sequence of ints."""
    return AttrDef(name, INTS, int_array, default, "Sequence[int]")


def float_array(values: Sequence[float] | float) -> DenseArrayBase:
    """`array<f64: ...>`, the form of a float-list property (multibox_prior's sizes)."""
    listed = [values] if isinstance(values, int | float | np.number) else values
    return DenseArrayBase.from_list(f64, [float(v) for v in listed])


def floats_def(name: str, default: Any = REQUIRED) -> AttrDef:
    """An `array<f64: ...>` attribute, given as a sequence of numbers."""
    return AttrDef(name, FLOATS, float_array, default, "Sequence[float]")


def int_def(name: str, default: Any = REQUIRED) -> AttrDef:
    return AttrDef(name, INT, int_attr, default, "int")


def float_def(name: str, default: Any = REQUIRED) -> AttrDef:
    return AttrDef(name, FloatAttr, float_attr, default, "float")


def bool_def(name: str, default: Any = REQUIRED) -> AttrDef:
    return AttrDef(name, BOOL, bool_attr, default, "bool")


def str_def(name: str, default: Any = REQUIRED) -> AttrDef:
    return AttrDef(name, StringAttr, StringAttr, default, "str")


def dtype_attr(dtype: Attribute | str | np.dtype) -> Attribute:
    """An element type given as an attribute or as a numpy dtype (or its name)."""
    return dtype if isinstance(dtype, Attribute) else element_type(dtype)


def flat_int_array(values: Sequence[int] | Sequence[Sequence[int]]) -> DenseArrayBase:
    """`array<i64: ...>` of integers given flat or as pairs ((before, after) per axis)."""
    return int_array([v for x in values for v in (x if isinstance(x, Sequence) else [x])])


def dtype_def(name: str, constraint: Any, default: Any = REQUIRED) -> AttrDef:
    return AttrDef(name, constraint, dtype_attr, default, "Attribute | str")


# A type rule: (op class, its properties, its operands' tensor types) -> the result type(s).
TypeRule = Callable[..., Attribute | list[Attribute]]

# Every op declared by `relay_op`, in declaration order: the dialect lists them.
OPS: list[type[RelayOp]] = []


def relay_op(
    name: str,
    family: type[RelayOp],
    doc: str,
    *attrs: AttrDef,
    operands: Sequence[str] | None = None,
    variadic: bool = False,
    result: type[Attribute] = TensorType,
    rule: TypeRule | None = None,
    pattern: OpPattern | None = None,
    class_name: str = "",
    operand_types: Mapping[str, type[Attribute]] | None = None,
    **class_vars: Any,
) -> type[RelayOp]:
    """Declare op `relay.<name>`: one row of the relay op table.

    `family` gives the operands, attributes, type rule, pattern and documented syntax the op
    shares with its siblings (a `doc` without a syntax line gets the family's); `operands`,
    `rule` and `pattern` replace the family's and `attrs` follow its attributes. A `variadic`
    op has one operand, a list of tensors, and its rule sees the raw operand types. The class
    is named `<Name>Op` after the last part of `name` (`nn.max_pool2d` is MaxPool2dOp) unless
    `class_name` says otherwise; `operand_types` gives operands that are not tensors their
    type (a tuple); `class_vars` are extra class attributes (a family's switches
    such as ELEMENTS, classmethods the op's users call).
    """
    if family.SYNTAX and " = relay." not in doc:
        elements = class_vars.get("ELEMENTS", family.ELEMENTS)
        elem = {"int": "i32", "bool": "i1"}.get(elements, "f32")
        doc = f"{doc}\n\n    `{family.SYNTAX.format(name=name, t=elem)}`\n    "
    short = name.rsplit(".", 1)[-1]
    class_name = class_name or "".join(w.capitalize() for w in short.split("_")) + "Op"
    operand_names = tuple(family.OPERANDS if operands is None else operands)
    all_attrs = (*family.ATTRS, *attrs)
    kinds = dict(operand_types or {})  # operands that are not tensors (tuples)
    fields: dict[str, Any] = {
        n: var_operand_def(TensorType) if variadic else operand_def(kinds.get(n, TensorType))
        for n in operand_names
    }
    fields["result"] = result_def(result)
    fields.update({a.name: a.field() for a in all_attrs})
    constants = {"OPERANDS": operand_names, "ATTRS": all_attrs, "VARIADIC": variadic}
    constants.update({k: v for k, v in class_vars.items() if k.isupper()})
    if pattern is not None:
        constants["PATTERN"] = pattern
    namespace: dict[str, Any] = {
        "__annotations__": dict.fromkeys(constants, "ClassVar[Any]"),
        "__module__": __name__,
        "__qualname__": class_name,
        "__doc__": doc,
        "name": f"relay.{name}",
        **constants,
        **fields,
        **class_vars,
    }
    if rule is not None:
        namespace["RULE"] = staticmethod(rule)
    namespace["__init__"] = op_init(operand_names, all_attrs, variadic)
    op = irdl_op_definition(type(class_name, (family,), namespace))
    OPS.append(op)
    return op


def op_init(
    operands: Sequence[str], attrs: Sequence[AttrDef], variadic: bool
) -> Callable[..., None]:
    """The `__init__` of an op declared by `relay_op`: operands, then attributes in order."""
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    operand = "Sequence[Operand]" if variadic else "Operand"
    signature = inspect.Signature(
        [
            inspect.Parameter("self", kind),
            *(inspect.Parameter(n, kind, annotation=operand) for n in operands),
            *(a.parameter() for a in attrs),
        ],
        return_annotation="None",
    )

    def __init__(self: RelayOp, *args: Any, **kwargs: Any) -> None:
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        values = bound.arguments
        given = [list(values[n]) if variadic else values[n] for n in operands]
        props = {
            a.name: None if values[a.name] is None else a.convert(values[a.name]) for a in attrs
        }
        self._build(given, props)

    __init__.__signature__ = signature  # type: ignore[attr-defined]
    return __init__


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


def broadcast_shape(op: type[RelayOp], lhs: TensorType, rhs: TensorType) -> tuple[int, ...]:
    """The broadcast shape of two tensors of one element type."""
    if lhs.get_element_type() != rhs.get_element_type():
        raise op.error(
            f"operand element types differ: {lhs.get_element_type()} vs {rhs.get_element_type()}"
        )
    shape = broadcast_shapes(lhs.get_shape(), rhs.get_shape())
    if shape is None:
        raise op.error(
            f"operand shapes do not broadcast: {fmt_shape(lhs.get_shape())} vs "
            f"{fmt_shape(rhs.get_shape())}"
        )
    return shape


def broadcast_type(op: type[RelayOp], p: Props, lhs: TensorType, rhs: TensorType) -> Attribute:
    return TensorType(lhs.get_element_type(), broadcast_shape(op, lhs, rhs))


def compare_type(op: type[RelayOp], p: Props, lhs: TensorType, rhs: TensorType) -> Attribute:
    return TensorType(i1, broadcast_shape(op, lhs, rhs))


class ElementwiseBinaryOp(RelayOp, ABC):
    """A binary op on two tensors of one element type, with numpy broadcasting."""

    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST
    OPERANDS: ClassVar[tuple[str, ...]] = ("lhs", "rhs")
    SYNTAX: ClassVar[str] = (
        "%z = relay.{name} %x, %y : (tensor<4x{t}>, tensor<{t}>) -> tensor<4x{t}>"
    )
    RULE = staticmethod(broadcast_type)


class ComparisonOp(ElementwiseBinaryOp, ABC):
    """A broadcasting comparison; the result is a tensor of i1."""

    SYNTAX: ClassVar[str] = (
        "%z = relay.{name} %x, %y : (tensor<4x{t}>, tensor<{t}>) -> tensor<4xi1>"
    )
    RULE = staticmethod(compare_type)


AddOp = relay_op("add", ElementwiseBinaryOp, "Elementwise sum.")
SubtractOp = relay_op("subtract", ElementwiseBinaryOp, "Elementwise difference.")
MultiplyOp = relay_op("multiply", ElementwiseBinaryOp, "Elementwise product.")
DivideOp = relay_op("divide", ElementwiseBinaryOp, "Quotient; integers truncate toward zero.")
PowerOp = relay_op("power", ElementwiseBinaryOp, "Elementwise power `lhs ** rhs`.")
MaximumOp = relay_op("maximum", ElementwiseBinaryOp, "Elementwise maximum.")
MinimumOp = relay_op("minimum", ElementwiseBinaryOp, "Elementwise minimum.")
EqualOp = relay_op("equal", ComparisonOp, "Elementwise `lhs == rhs`.")
LessOp = relay_op("less", ComparisonOp, "Elementwise `lhs < rhs`.")
GreaterOp = relay_op("greater", ComparisonOp, "Elementwise `lhs > rhs`.")
LessEqualOp = relay_op("less_equal", ComparisonOp, "Elementwise `lhs <= rhs`.")
GreaterEqualOp = relay_op("greater_equal", ComparisonOp, "Elementwise `lhs >= rhs`.")
NotEqualOp = relay_op("not_equal", ComparisonOp, "Elementwise `lhs != rhs`.")
FloorDivideOp = relay_op(
    "floor_divide", ElementwiseBinaryOp, "Quotient rounded towards minus infinity (`//`)."
)
FloorModOp = relay_op(
    "floor_mod", ElementwiseBinaryOp, "Remainder with the sign of the divisor (`%`)."
)
ModOp = relay_op(
    "mod", ElementwiseBinaryOp, "Remainder with the sign of the dividend (C's `%`, TVM's mod)."
)
LeftShiftOp = relay_op(
    "left_shift", ElementwiseBinaryOp, "Elementwise `lhs << rhs` on integers.", ELEMENTS="int"
)
RightShiftOp = relay_op(
    "right_shift", ElementwiseBinaryOp, "`lhs >> rhs` on integers, arithmetic.", ELEMENTS="int"
)
LogicalAndOp = relay_op(
    "logical_and", ElementwiseBinaryOp, "Elementwise boolean and.", ELEMENTS="bool"
)
LogicalOrOp = relay_op(
    "logical_or", ElementwiseBinaryOp, "Elementwise boolean or.", ELEMENTS="bool"
)


def where_type(
    op: type[RelayOp], p: Props, cond: TensorType, x: TensorType, y: TensorType
) -> Attribute:
    if not is_bool(cond.get_element_type()):
        raise op.error(f"condition must have element type i1, got {cond.get_element_type()}")
    elem = op.same_element([x, y], ["x", "y"])
    shapes = [t.get_shape() for t in (cond, x, y)]
    shape = broadcast_shapes(*shapes)
    if shape is None:
        raise op.error(
            "operand shapes do not broadcast: " + " vs ".join(fmt_shape(s) for s in shapes)
        )
    return TensorType(elem, shape)


WhereOp = relay_op(
    "where",
    RelayOp,
    """Select from `x` where `condition` holds, else from `y`, all three broadcast.

    `%z = relay.where %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>`
    """,
    operands=("condition", "x", "y"),
    rule=where_type,
    pattern=OpPattern.BROADCAST,
)


# ---------------------------------------------------------------------------------------------
# Unary ops: one tensor in, one tensor of the same shape out


def same_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    return data


class UnaryOp(RelayOp, ABC):
    """A shape-preserving op on one tensor; `ELEMENTS` restricts its element type."""

    PATTERN: ClassVar[OpPattern] = OpPattern.ELEMWISE
    OPERANDS: ClassVar[tuple[str, ...]] = ("data",)
    SYNTAX: ClassVar[str] = "%y = relay.{name} %x : (tensor<4x{t}>) -> tensor<4x{t}>"
    RULE = staticmethod(same_type)


class FloatUnaryOp(UnaryOp, ABC):
    """A unary math function on floats."""

    ELEMENTS: ClassVar[str] = "float"


NegativeOp = relay_op("negative", UnaryOp, "Elementwise negation.")
CopyOp = relay_op("copy", UnaryOp, "A copy of the tensor in new storage.")
StopFusionOp = relay_op(
    "annotation.stop_fusion",
    UnaryOp,
    """The tensor itself, as a fusion barrier: relay-fuse-ops fuses nothing across it (TVM's
    `annotation.stop_fusion`) and then removes it.

    `%y = relay.annotation.stop_fusion %x : (tensor<4xf32>) -> tensor<4xf32>`
    """,
    pattern=OpPattern.OPAQUE,
    class_name="StopFusionOp",
)
AbsOp = relay_op("abs", UnaryOp, "Elementwise absolute value.")
ExpOp = relay_op("exp", FloatUnaryOp, "Elementwise e**x.")
LogOp = relay_op("log", FloatUnaryOp, "Elementwise natural logarithm.")
SqrtOp = relay_op("sqrt", FloatUnaryOp, "Elementwise square root.")
RsqrtOp = relay_op("rsqrt", FloatUnaryOp, "Elementwise reciprocal square root.")
TanhOp = relay_op("tanh", FloatUnaryOp, "Elementwise hyperbolic tangent.")
SigmoidOp = relay_op("sigmoid", FloatUnaryOp, "Elementwise logistic function 1 / (1 + e**-x).")
ErfOp = relay_op("erf", FloatUnaryOp, "Elementwise Gauss error function.")
LogicalNotOp = relay_op("logical_not", UnaryOp, "Elementwise boolean negation.", ELEMENTS="bool")
CosOp = relay_op("cos", FloatUnaryOp, "Elementwise cosine.")
SinOp = relay_op("sin", FloatUnaryOp, "Elementwise sine.")
TanOp = relay_op("tan", FloatUnaryOp, "Elementwise tangent.")
AtanOp = relay_op("atan", FloatUnaryOp, "Elementwise arctangent.")
FloorOp = relay_op("floor", FloatUnaryOp, "Elementwise rounding towards minus infinity.")
CeilOp = relay_op("ceil", FloatUnaryOp, "Elementwise rounding towards plus infinity.")
TruncOp = relay_op("trunc", FloatUnaryOp, "Elementwise rounding towards zero.")
RoundOp = relay_op("round", FloatUnaryOp, "Rounding to the nearest integer, halves to even.")
SignOp = relay_op("sign", UnaryOp, "Elementwise sign: -1, 0 or 1.")


def float_test_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    return TensorType(i1, data.get_shape())


class FloatTestOp(UnaryOp, ABC):
    """A test of each float element (NaN, infinite, finite); the result is a tensor of i1."""

    ELEMENTS: ClassVar[str] = "float"
    SYNTAX: ClassVar[str] = "%y = relay.{name} %x : (tensor<4x{t}>) -> tensor<4xi1>"
    RULE = staticmethod(float_test_type)


IsnanOp = relay_op("isnan", FloatTestOp, "Elementwise test for NaN.")
IsinfOp = relay_op("isinf", FloatTestOp, "Elementwise test for plus or minus infinity.")
IsfiniteOp = relay_op("isfinite", FloatTestOp, "Elementwise test for neither NaN nor infinity.")


def clip_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    if p.number("a_min") > p.number("a_max"):
        raise op.error(f"a_min {p.number('a_min')} is greater than a_max {p.number('a_max')}")
    return data


ClipOp = relay_op(
    "clip",
    UnaryOp,
    """Clamp every element into [a_min, a_max].

    `%y = relay.clip %x {a_min = 0.0 : f64, a_max = 6.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>`
    """,
    float_def("a_min"),
    float_def("a_max"),
    rule=clip_type,
)


def cast_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    dtype = p.required("dtype")
    if not (is_float(dtype) or isinstance(dtype, IntegerType)):
        raise op.error(f"dtype must be an integer or float type, got {dtype}")
    return TensorType(dtype, data.get_shape())


CastOp = relay_op(
    "cast",
    UnaryOp,
    """Convert every element to `dtype` (floats to integers truncate).

    `%y = relay.cast %x {dtype = i32} : (tensor<4xf32>) -> tensor<4xi32>`
    """,
    dtype_def(
        "dtype", base(IntegerType) | base(Float16Type) | base(Float32Type) | base(Float64Type)
    ),
    rule=cast_type,
)


def element_bits(elem: Attribute) -> int:
    """The width in bits of an integer or float element type."""
    return elem.width.data if isinstance(elem, IntegerType) else elem.bitwidth  # type: ignore[attr-defined]


def reinterpret_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    dtype, have = p.required("dtype"), data.get_element_type()
    if not (is_float(dtype) or isinstance(dtype, IntegerType)):
        raise op.error(f"dtype must be an integer or float type, got {dtype}")
    if not (is_float(have) or isinstance(have, IntegerType)) or i1 in (have, dtype):
        raise op.error(f"cannot reinterpret {have} as {dtype}: booleans have no bit pattern")
    if element_bits(have) != element_bits(dtype):
        raise op.error(f"cannot reinterpret {have} as {dtype}: they differ in width")
    return TensorType(dtype, data.get_shape())


ReinterpretOp = relay_op(
    "reinterpret",
    UnaryOp,
    """The bits of every element read as `dtype` of the same width (float32 1.0 is the int32
    0x3f800000).

    `%y = relay.reinterpret %x {dtype = i32} : (tensor<4xf32>) -> tensor<4xi32>`
    """,
    dtype_def(
        "dtype", base(IntegerType) | base(Float16Type) | base(Float32Type) | base(Float64Type)
    ),
    rule=reinterpret_type,
)
ReluOp = relay_op("nn.relu", UnaryOp, "Elementwise max(x, 0).")
LeakyReluOp = relay_op(
    "nn.leaky_relu",
    UnaryOp,
    """Elementwise x if x > 0 else alpha * x.

    `%y = relay.nn.leaky_relu %x {alpha = 0.1 : f64} : (tensor<4xf32>) -> tensor<4xf32>`
    """,
    float_def("alpha", 0.01),
    ELEMENTS="float",
)


def gelu_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    p.choice("approximate", ("none", "tanh"))
    return data


GeluOp = relay_op(
    "nn.gelu",
    UnaryOp,
    """Gaussian error linear unit, exact (erf) or with the tanh approximation.

    `%y = relay.nn.gelu %x {approximate = "tanh"} : (tensor<4xf32>) -> tensor<4xf32>`
    """,
    str_def("approximate", "none"),
    rule=gelu_type,
    ELEMENTS="float",
)


def axis_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    p.axis("axis", data.get_num_dims())
    return data


class AxisUnaryOp(UnaryOp, ABC):
    """A shape-preserving float op along one axis (softmax and friends)."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    ELEMENTS: ClassVar[str] = "float"
    ATTRS: ClassVar[tuple[AttrDef, ...]] = (int_def("axis", -1),)
    SYNTAX: ClassVar[str] = "%y = relay.{name} %x : (tensor<2x5x{t}>) -> tensor<2x5x{t}>"
    RULE = staticmethod(axis_type)


SoftmaxOp = relay_op("nn.softmax", AxisUnaryOp, "Softmax along `axis`.")
LogSoftmaxOp = relay_op("nn.log_softmax", AxisUnaryOp, "Logarithm of the softmax along `axis`.")


def dropout_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    if not 0.0 <= p.number("rate") < 1.0:
        raise op.error(f"rate must be in [0, 1), got {p.number('rate')}")
    return data


DropoutOp = relay_op(
    "nn.dropout",
    UnaryOp,
    """Dropout; the identity at inference (TVM's mask output is left out).

    `%y = relay.nn.dropout %x {rate = 0.2 : f64} : (tensor<4xf32>) -> tensor<4xf32>`
    """,
    float_def("rate", 0.5),
    rule=dropout_type,
    pattern=OpPattern.OPAQUE,
)


def lrn_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    p.axis("axis", data.get_num_dims())
    if p.integer("size") < 1:
        raise op.error(f"size must be positive, got {p.integer('size')}")
    return data


LrnOp = relay_op(
    "nn.lrn",
    UnaryOp,
    """Local response normalisation across `size` neighbours along `axis`.

    `%y = relay.nn.lrn %x {size = 3 : i64} : (tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32>`

    out = x / (bias + alpha / size * sum(x**2 over the window)) ** beta, the window starting
    size // 2 before the element (TVM's).
    """,
    int_def("size", 5),
    int_def("axis", 1),
    float_def("alpha", 1e-4),
    float_def("beta", 0.75),
    float_def("bias", 2.0),
    rule=lrn_type,
    pattern=OpPattern.OPAQUE,
    ELEMENTS="float",
)


# ---------------------------------------------------------------------------------------------
# Convolution and matrix products


def conv_kernel_layout(op: type[RelayOp], properties: Mapping[str, Attribute]) -> Layout:
    """The kernel layout: any order of O, I, H and W, blocked ones included (`OHWI16o`,
    the packed layout `relay-alter-op-layout` gives CPU kernels)."""
    text = op.props(properties).text("kernel_layout")
    try:
        layout = Layout.parse(text)
    except ValueError as exc:
        raise op.error(f"kernel_layout: {exc}") from None
    if sorted(layout.primal) != sorted("OIHW"):
        raise op.error(f'kernel_layout must order O, I, H and W, got "{text}"')
    return layout


def conv2d_type(op: type[RelayOp], p: Props, data: TensorType, weight: TensorType) -> Attribute:
    elem = op.same_element([data, weight], ["data", "weight"])
    strides, dilation = p.positive("strides", 2), p.positive("dilation", 2)
    pt, pl, pb, pr = p.padding()
    groups = p.integer("groups")
    layout = p.choice("data_layout", ("NCHW", "NHWC"))
    kernel_layout = conv_kernel_layout(op, p.values)
    weight_rank = len(kernel_layout.axes)
    if data.get_num_dims() != 4 or weight.get_num_dims() != weight_rank:
        ranks = (
            "data and weight must be 4-d"
            if weight_rank == 4
            else f"data must be 4-d and weight {weight_rank}-d ({kernel_layout.text})"
        )
        raise op.error(
            f"{ranks}, got {fmt_shape(data.get_shape())} and {fmt_shape(weight.get_shape())}"
        )
    c_axis, h_axis, w_axis = spatial_axes(op, layout)
    shape = list(data.get_shape())
    try:
        sizes = kernel_layout.primal_sizes(weight.get_shape())
    except ValueError as exc:
        raise op.error(f"weight: {exc}") from None
    o, i, kh, kw = (sizes[a] for a in "OIHW")
    if groups < 1 or (static_dims(o) and o % groups):
        raise op.error(f"groups {groups} must be positive and divide output channels {o}")
    if static_dims(shape[c_axis], i) and shape[c_axis] != i * groups:  # `?`: checked at run time
        raise op.error(
            f"data has {shape[c_axis]} channels but weight expects {i * groups} "
            f"({i} per group x {groups} groups)"
        )
    window = ((kh, kw), strides, dilation, (pt, pl, pb, pr), False)
    oh, ow = windows_out(op, "kernel", (shape[h_axis], shape[w_axis]), *window)
    shape[c_axis], shape[h_axis], shape[w_axis] = o, oh, ow
    return TensorType(elem, shape)


Conv2dOp = relay_op(
    "nn.conv2d",
    RelayOp,
    """2-d convolution (cross-correlation), grouped and dilated.

    `%y = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>}
        : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>`
    """,
    ints_def("strides", (1, 1)),
    ints_def("padding", (0, 0, 0, 0)),
    ints_def("dilation", (1, 1)),
    int_def("groups", 1),
    str_def("data_layout", "NCHW"),
    str_def("kernel_layout", "OIHW"),
    operands=("data", "weight"),
    rule=conv2d_type,
    pattern=OpPattern.OUT_ELEMWISE_FUSABLE,
    kernel_layout_of=classmethod(conv_kernel_layout),
)


def crop_and_resize_type(
    op: type[RelayOp], p: Props, data: TensorType, boxes: TensorType, box_indices: TensorType
) -> Attribute:
    _, h_axis, w_axis = spatial_axes(op, p.choice("layout", ("NCHW", "NHWC")))
    p.choice("method", ("bilinear", "nearest_neighbor"))
    p.number("extrapolation_value")
    size = p.positive("crop_size", 2)
    if data.get_num_dims() != 4 or not is_float(data.get_element_type()):
        raise op.error(f"data must be a 4-d float tensor, got {data}")
    op.same_element([data, boxes], ["data", "boxes"])
    count = boxes.get_shape()[0] if boxes.get_num_dims() == 2 else DYNAMIC_INDEX
    if boxes.get_num_dims() != 2 or boxes.get_shape()[1] not in (4, DYNAMIC_INDEX):
        raise op.error(f"boxes must be (boxes, 4): y1, x1, y2, x2, got {boxes}")
    index_shape = index_tensor(op, box_indices, "box_indices")
    known = len(index_shape) == 1 and DYNAMIC_INDEX not in (count, index_shape[0])
    if len(index_shape) != 1 or (known and count != index_shape[0]):
        raise op.error(
            f"box_indices must be a vector of one image index per box, got {box_indices}"
        )
    shape = list(data.get_shape())
    shape[0], shape[h_axis], shape[w_axis] = count, *size
    return TensorType(data.get_element_type(), shape)


CropAndResizeOp = relay_op(
    "image.crop_and_resize",
    RelayOp,
    """Crops of the images, each resized to crop_size (TensorFlow's crop_and_resize): box
    (y1, x1, y2, x2), in coordinates normalised to [0, 1], of image box_indices[b], sampled
    bilinearly or at the nearest pixel; samples outside the image take extrapolation_value.

    `%y = relay.image.crop_and_resize %x, %b, %i {crop_size = array<i64: 3, 4>}
        : (tensor<2x3x8x8xf32>, tensor<5x4xf32>, tensor<5xi32>) -> tensor<5x3x3x4xf32>`
    """,
    ints_def("crop_size"),
    str_def("layout", "NCHW"),
    str_def("method", "bilinear"),
    float_def("extrapolation_value", 0.0),
    operands=("data", "boxes", "box_indices"),
    rule=crop_and_resize_type,
    pattern=OpPattern.INJECTIVE,
)


def affine_grid_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    size = p.ints("target_shape")
    if len(size) != 2 or min(size) < 2:
        raise op.error(f"target_shape must be 2 sizes above 1, got {fmt_list(size)}")
    if not is_float(data.get_element_type()) or tuple(data.get_shape()[1:]) != (2, 3):
        raise op.error(f"data must be float affine matrices (N, 2, 3), got {data}")
    return TensorType(data.get_element_type(), [data.get_shape()[0], 2, *size])


AffineGridOp = relay_op(
    "image.affine_grid",
    RelayOp,
    """The sampling grid (N, 2, H, W) of affine matrices (N, 2, 3) for grid_sample: at
    (i, j), with y = -1 + i * (2 - 1e-7) / (H - 1) and x likewise over W, channel k is
    data[n, k] . (x, y, 1).

    `%y = relay.image.affine_grid %t {target_shape = array<i64: 4, 5>}
        : (tensor<2x2x3xf32>) -> tensor<2x2x4x5xf32>`
    """,
    ints_def("target_shape"),
    rule=affine_grid_type,
    pattern=OpPattern.INJECTIVE,
)

GRID_SAMPLE_LAYOUTS = {"NCHW": 2, "NCDHW": 3}  # layout -> spatial axes


def grid_sample_type(op: type[RelayOp], p: Props, data: TensorType, grid: TensorType) -> Attribute:
    elem = op.same_element([data, grid], ["data", "grid"])
    rank = GRID_SAMPLE_LAYOUTS[p.choice("layout", tuple(GRID_SAMPLE_LAYOUTS))]
    method = p.choice("method", ("nearest", "bilinear", "bicubic"))
    p.choice("padding_mode", ("zeros", "border", "reflection"))
    if method == "bicubic" and rank == 3:
        raise op.error("bicubic sampling is 2-d only (NCHW)")
    if not is_float(elem):
        raise op.error(f"data and grid must be float tensors, got {elem}")
    shape, where = data.get_shape(), grid.get_shape()
    if len(shape) != rank + 2 or len(where) != rank + 2 or where[1] not in (rank, DYNAMIC_INDEX):
        raise op.error(
            f"needs {rank + 2}-d data and a grid (N, {rank}, ...), got {fmt_shape(shape)} and "
            f"{fmt_shape(where)}"
        )
    return TensorType(elem, [shape[0], shape[1], *where[2:]])


GridSampleOp = relay_op(
    "image.grid_sample",
    RelayOp,
    """Sample data at the coordinates of grid (x, y[, z] in [-1, 1] along axis 1): -1 and 1
    are the centres of the corner pixels when align_corners, their outer edges otherwise.
    Out-of-range samples read zeros, the border pixel, or the coordinate reflected inside.

    `%y = relay.image.grid_sample %x, %g
        : (tensor<1x3x4x4xf32>, tensor<1x2x5x6xf32>) -> tensor<1x3x5x6xf32>`

    method: nearest (round half to even), bilinear or bicubic (2-d only, a = -0.75).
    """,
    str_def("method", "bilinear"),
    str_def("layout", "NCHW"),
    str_def("padding_mode", "zeros"),
    bool_def("align_corners", True),
    operands=("data", "grid"),
    rule=grid_sample_type,
    pattern=OpPattern.INJECTIVE,
)

DEFORMABLE_LAYOUTS = {"NCHW": "OIHW", "NHWC": "HWIO"}  # TVM's kernels: data -> kernel


def deformable_conv2d_type(
    op: type[RelayOp], p: Props, data: TensorType, offset: TensorType, weight: TensorType
) -> Attribute:
    layout = p.choice("data_layout", tuple(DEFORMABLE_LAYOUTS))
    if p.text("kernel_layout") != DEFORMABLE_LAYOUTS[layout]:
        raise op.error(
            f'kernel_layout must be "{DEFORMABLE_LAYOUTS[layout]}" with data_layout '
            f'"{layout}", got "{p.text("kernel_layout")}"'
        )
    out = conv2d_type(op, p, data, weight)
    assert isinstance(out, TensorType)
    op.same_element([data, offset], ["data", "offset"])
    groups = p.integer("deformable_groups")
    c_axis = spatial_axes(op, layout)[0]
    if groups < 1 or data.get_shape()[c_axis] % groups:
        raise op.error(
            f"deformable_groups {groups} must be positive and divide the "
            f"{data.get_shape()[c_axis]} input channels"
        )
    sizes = Layout.parse(p.text("kernel_layout")).primal_sizes(weight.get_shape())
    expected = list(out.get_shape())
    expected[c_axis] = 2 * sizes["H"] * sizes["W"] * groups
    if tuple(offset.get_shape()) != tuple(expected):
        raise op.error(
            f"offset must have shape {fmt_shape(expected)} (2 x kernel positions x "
            f"deformable groups per output pixel), got {fmt_shape(offset.get_shape())}"
        )
    return out


DeformableConv2dOp = relay_op(
    "nn.deformable_conv2d",
    RelayOp,
    """Deformable 2-d convolution: each kernel tap reads the data bilinearly at its place
    moved by a learned (dy, dx) offset per output pixel (zero outside the data).

    `%y = relay.nn.deformable_conv2d %x, %o, %w {padding = array<i64: 1, 1, 1, 1>}
        : (tensor<1x4x8x8xf32>, tensor<1x18x8x8xf32>, tensor<4x4x3x3xf32>)
        -> tensor<1x4x8x8xf32>`

    offset holds, per output pixel, (dy, dx) pairs for each deformable group and kernel
    position (group-major, then row-major taps), on the channel axis of the data layout;
    channels of the data are split evenly among the deformable groups. NCHW data goes with
    an OIHW kernel, NHWC with HWIO.
    """,
    ints_def("strides", (1, 1)),
    ints_def("padding", (0, 0, 0, 0)),
    ints_def("dilation", (1, 1)),
    int_def("deformable_groups", 1),
    int_def("groups", 1),
    str_def("data_layout", "NCHW"),
    str_def("kernel_layout", "OIHW"),
    operands=("data", "offset", "weight"),
    rule=deformable_conv2d_type,
    pattern=OpPattern.OUT_ELEMWISE_FUSABLE,
    kernel_layout_of=classmethod(conv_kernel_layout),
)


def block_rearrange_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    """depth_to_space / space_to_depth: channels traded for b x b spatial blocks."""
    block = p.integer("block_size")
    c_axis, h_axis, w_axis = spatial_axes(op, p.choice("layout", ("NCHW", "NHWC")))
    if "mode" in op.get_irdl_definition().properties:
        p.choice("mode", ("DCR", "CDR"))
    if block < 1 or data.get_num_dims() != 4:
        raise op.error(f"needs 4-d data and a positive block_size, got {data} and {block}")
    shape = list(data.get_shape())
    if op.name.endswith("depth_to_space"):
        if shape[c_axis] % (block * block):
            raise op.error(f"channels {shape[c_axis]} are not a multiple of {block}x{block}")
        shape[c_axis] //= block * block
        shape[h_axis], shape[w_axis] = shape[h_axis] * block, shape[w_axis] * block
    else:
        if shape[h_axis] % block or shape[w_axis] % block:
            raise op.error(
                f"height and width {shape[h_axis]}x{shape[w_axis]} are not multiples of {block}"
            )
        shape[c_axis] *= block * block
        shape[h_axis], shape[w_axis] = shape[h_axis] // block, shape[w_axis] // block
    return TensorType(data.get_element_type(), shape)


DepthToSpaceOp = relay_op(
    "nn.depth_to_space",
    RelayOp,
    """Move channels into block_size x block_size spatial blocks: output pixel (y, x)'s
    channel c reads input channel (y % b * b + x % b) * C / b^2 + c (DCR) or
    c * b^2 + y % b * b + x % b (CDR, ONNX's CRD) at (y / b, x / b).

    `%y = relay.nn.depth_to_space %x {block_size = 2 : i64}
        : (tensor<1x8x3x3xf32>) -> tensor<1x2x6x6xf32>`
    """,
    int_def("block_size"),
    str_def("layout", "NCHW"),
    str_def("mode", "DCR"),
    rule=block_rearrange_type,
    pattern=OpPattern.INJECTIVE,
)
SpaceToDepthOp = relay_op(
    "nn.space_to_depth",
    RelayOp,
    """Move block_size x block_size spatial blocks into channels: output channel
    (by * b + bx) * C + c at (h, w) reads input channel c at (h * b + by, w * b + bx).

    `%y = relay.nn.space_to_depth %x {block_size = 2 : i64}
        : (tensor<1x2x6x6xf32>) -> tensor<1x8x3x3xf32>`
    """,
    int_def("block_size"),
    str_def("layout", "NCHW"),
    rule=block_rearrange_type,
    pattern=OpPattern.INJECTIVE,
)


def space_batch_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    """space_to_batch_nd / batch_to_space_nd: M spatial axes after the batch traded for
    batch entries, block_shape[i] per axis; paddings or crops hold (before, after) pairs."""
    to_batch = op.name.endswith("space_to_batch_nd")
    block, pairs = p.ints("block_shape"), p.ints("paddings" if to_batch else "crops")
    shape = list(data.get_shape())
    if not block or any(b < 1 for b in block):
        raise op.error(f"block_shape must be positive integers, got {fmt_list(block)}")
    if len(pairs) != 2 * len(block) or any(v < 0 for v in pairs) or len(block) >= len(shape):
        raise op.error(
            f"needs data of rank above {len(block)} and a non-negative (before, after) pair per "
            f"block axis, got {fmt_shape(shape)} and {fmt_list(pairs)}"
        )
    count = math.prod(block)
    for i, b in enumerate(block):
        dim, before, after = shape[i + 1], pairs[2 * i], pairs[2 * i + 1]
        if dim == DYNAMIC_INDEX:
            continue
        if to_batch:
            if (dim + before + after) % b:
                raise op.error(
                    f"axis {i + 1} padded to {dim + before + after} is not a multiple of {b}"
                )
            shape[i + 1] = (dim + before + after) // b
        else:
            if dim * b - before - after < 0:
                raise op.error(f"crops {before}, {after} exceed axis {i + 1} of {dim * b}")
            shape[i + 1] = dim * b - before - after
    if shape[0] != DYNAMIC_INDEX:
        if to_batch:
            shape[0] *= count
        elif shape[0] % count:
            raise op.error(f"batch {shape[0]} is not a multiple of the block count {count}")
        else:
            shape[0] //= count
    return TensorType(data.get_element_type(), shape)


SpaceToBatchNdOp = relay_op(
    "nn.space_to_batch_nd",
    RelayOp,
    """Pad the M axes after the batch with (before, after) pairs of `paddings` (by pad_value),
    split each into blocks of block_shape and move the offsets within a block to the batch:
    output batch (offset, flattened row-major) * N + n.

    `%y = relay.nn.space_to_batch_nd %x {block_shape = array<i64: 2, 2>,
        paddings = array<i64: 0, 0, 2, 0>, pad_value = 0.0 : f64}
        : (tensor<2x2x4x1xf32>) -> tensor<8x1x3x1xf32>`
    """,
    ints_def("block_shape"),
    AttrDef("paddings", INTS, flat_int_array, python_type="Sequence[Sequence[int]]"),
    float_def("pad_value", 0.0),
    rule=space_batch_type,
    pattern=OpPattern.INJECTIVE,
)
BatchToSpaceNdOp = relay_op(
    "nn.batch_to_space_nd",
    RelayOp,
    """The inverse of space_to_batch_nd: batch entries (offset * N + n) become block_shape
    blocks of the M axes after the batch, then (before, after) pairs of `crops` are cut off.

    `%y = relay.nn.batch_to_space_nd %x {block_shape = array<i64: 2, 2>,
        crops = array<i64: 0, 0, 2, 0>} : (tensor<8x1x3x1xf32>) -> tensor<2x2x4x1xf32>`
    """,
    ints_def("block_shape"),
    AttrDef("crops", INTS, flat_int_array, python_type="Sequence[Sequence[int]]"),
    rule=space_batch_type,
    pattern=OpPattern.INJECTIVE,
)


def correlation_padding(op: type[RelayOp], p: Props) -> tuple[int, int, int, int]:
    """(top, left, bottom, right) from 1, 2 (height, width) or 4 padding values."""
    values = p.ints("padding")
    if len(values) not in (1, 2, 4) or any(v < 0 for v in values):
        raise op.error(f"padding must be 1, 2 or 4 non-negative integers, got {fmt_list(values)}")
    if len(values) == 4:
        return values  # type: ignore[return-value]
    h, w = (values[0], values[0]) if len(values) == 1 else values
    return (h, w, h, w)


def correlation_geometry(op: type[RelayOp], p: Props, shape: Sequence[int]) -> tuple[int, int, int]:
    """(out channels, out height, out width) of nn.correlation on data of `shape` (NCHW)."""
    k, d = p.integer("kernel_size"), p.integer("max_displacement")
    s1, s2 = p.integer("stride1"), p.integer("stride2")
    if k < 1 or k % 2 == 0 or d < 0 or s1 < 1 or s2 < 1:
        raise op.error(
            f"needs an odd kernel_size, max_displacement >= 0 and positive strides, got "
            f"{k}, {d}, {s1}, {s2}"
        )
    top, left, bottom, right = correlation_padding(op, p)
    border = d + (k - 1) // 2
    radius = d // s2
    height = (shape[2] + top + bottom - 2 * border + s1 - 1) // s1
    width = (shape[3] + left + right - 2 * border + s1 - 1) // s1
    if height < 1 or width < 1:
        raise op.error(
            f"the {shape[2]}x{shape[3]} data padded is smaller than the displacement border "
            f"{border} on each side"
        )
    return (2 * radius + 1) ** 2, height, width


def correlation_type(
    op: type[RelayOp], p: Props, data1: TensorType, data2: TensorType
) -> Attribute:
    elem = op.same_element([data1, data2], ["data1", "data2"])
    p.choice("layout", ("NCHW",))
    shape = data1.get_shape()
    if data1.get_num_dims() != 4 or tuple(data2.get_shape()) != tuple(shape):
        raise op.error(f"needs two NCHW tensors of one shape, got {data1} and {data2}")
    channels, height, width = correlation_geometry(op, p, shape)
    return TensorType(elem, [shape[0], channels, height, width])


CorrelationOp = relay_op(
    "nn.correlation",
    RelayOp,
    """FlowNet's correlation of two feature maps: for each displacement q of data2 (a
    (2 * max_displacement / stride2 + 1)^2 grid, stride2 apart), the mean over channels and a
    kernel_size window of data1 * data2 (is_multiply) or |data1 - data2|, both zero-padded,
    the window at (i * stride1 + max_displacement, j * stride1 + max_displacement).

    `%y = relay.nn.correlation %a, %b {kernel_size = 1 : i64, max_displacement = 1 : i64,
        stride1 = 1 : i64, stride2 = 1 : i64, padding = array<i64: 1, 1>}
        : (tensor<1x3x5x5xf32>, tensor<1x3x5x5xf32>) -> tensor<1x9x5x5xf32>`
    """,
    int_def("kernel_size", 1),
    int_def("max_displacement", 1),
    int_def("stride1", 1),
    int_def("stride2", 1),
    ints_def("padding", (0, 0)),
    bool_def("is_multiply", True),
    str_def("layout", "NCHW"),
    operands=("data1", "data2"),
    rule=correlation_type,
    pattern=OpPattern.OUT_ELEMWISE_FUSABLE,
)

DILATION2D_KERNELS = {"IHW": (0, 1, 2), "HWI": (2, 0, 1)}  # axes of (channel, height, width)


def dilation2d_type(op: type[RelayOp], p: Props, data: TensorType, weight: TensorType) -> Attribute:
    elem = op.same_element([data, weight], ["data", "weight"])
    strides, dilations = p.positive("strides", 2), p.positive("dilations", 2)
    padding = p.padding()
    c_axis, h_axis, w_axis = spatial_axes(op, p.choice("data_layout", ("NCHW", "NHWC")))
    kernel = DILATION2D_KERNELS[p.choice("kernel_layout", tuple(DILATION2D_KERNELS))]
    if data.get_num_dims() != 4 or weight.get_num_dims() != 3:
        raise op.error(
            f"data must be 4-d and weight 3-d, got {fmt_shape(data.get_shape())} and "
            f"{fmt_shape(weight.get_shape())}"
        )
    shape = list(data.get_shape())
    channels, kh, kw = (weight.get_shape()[a] for a in kernel)
    if DYNAMIC_INDEX not in (shape[c_axis], channels) and shape[c_axis] != channels:
        raise op.error(f"data has {shape[c_axis]} channels but weight has {channels}")
    size = (shape[h_axis], shape[w_axis])
    if DYNAMIC_INDEX not in size:
        window = ((kh, kw), strides, dilations, padding, False)
        shape[h_axis], shape[w_axis] = windows_out(op, "kernel", size, *window)
    return TensorType(elem, shape)


Dilation2dOp = relay_op(
    "image.dilation2d",
    RelayOp,
    """Morphological (grey-scale) dilation, per channel: the maximum over the window of the
    data (zero-padded, as TVM pads) plus the structuring element (weight).

    `%y = relay.image.dilation2d %x, %w {padding = array<i64: 0, 0, 1, 1>}
        : (tensor<1x3x4x4xf32>, tensor<3x2x2xf32>) -> tensor<1x3x4x4xf32>`

    weight is (channels, height, width) for kernel_layout IHW, (height, width, channels) for
    HWI; data is NCHW or NHWC.
    """,
    ints_def("strides", (1, 1)),
    ints_def("padding", (0, 0, 0, 0)),
    ints_def("dilations", (1, 1)),
    str_def("data_layout", "NCHW"),
    str_def("kernel_layout", "IHW"),
    operands=("data", "weight"),
    rule=dilation2d_type,
    pattern=OpPattern.OUT_ELEMWISE_FUSABLE,
)


def conv2d_winograd_type(
    op: type[RelayOp], p: Props, data: TensorType, weight: TensorType
) -> Attribute:
    elem = op.same_element([data, weight], ["data", "weight"])
    tile_size = p.integer("tile_size")
    if tile_size not in (2, 4):
        raise op.error(f"tile_size must be 2 or 4, got {tile_size}")
    pt, pl, pb, pr = p.padding()
    shape, kernel = data.get_shape(), weight.get_shape()
    alpha = tile_size + 2
    if len(shape) != 4 or len(kernel) not in (4, 5) or kernel[:2] != (alpha, alpha):
        raise op.error(
            f"data must be 4-d NHWC and weight [{alpha}, {alpha}, C, K] or "
            f"[{alpha}, {alpha}, K/b, C, b], got {fmt_shape(shape)} and {fmt_shape(kernel)}"
        )
    channels, out_channels = (
        (kernel[2], kernel[3]) if len(kernel) == 4 else (kernel[3], kernel[2] * kernel[4])
    )
    if shape[3] != channels:
        raise op.error(f"data has {shape[3]} channels but weight expects {channels}")
    oh, ow = shape[1] + pt + pb - 2, shape[2] + pl + pr - 2
    if oh < 1 or ow < 1:
        raise op.error(
            f"3x3 kernel is larger than padded input {shape[1] + pt + pb}x{shape[2] + pl + pr}"
        )
    return TensorType(elem, [shape[0], oh, ow, out_channels])


Conv2dWinogradOp = relay_op(
    "nn.contrib_conv2d_winograd_without_weight_transform",
    RelayOp,
    """A stride-1 3x3 NHWC convolution by Winograd's F(m x m, 3 x 3), its kernel already
    transformed (`xtvm.ir.winograd.transform_kernel`): `[alpha, alpha, C, K]` or packed in
    blocks of output channels `[alpha, alpha, K / b, C, b]`, alpha = tile_size + 2.
    `relay-alter-op-layout` puts it in place of CPU conv2ds with constant kernels.

    `%y = relay.nn.contrib_conv2d_winograd_without_weight_transform %x, %u
        {tile_size = 4 : i64, padding = array<i64: 1, 1, 1, 1>}
        : (tensor<1x8x8x16xf32>, tensor<6x6x16x32xf32>) -> tensor<1x8x8x32xf32>`
    """,
    int_def("tile_size", 4),
    ints_def("padding", (0, 0, 0, 0)),
    operands=("data", "weight"),
    rule=conv2d_winograd_type,
    pattern=OpPattern.OUT_ELEMWISE_FUSABLE,
    class_name="Conv2dWinogradOp",
)


def out_element(op: type[RelayOp], p: Props, data: TensorType, weight: TensorType) -> Attribute:
    """The element type a convolution computes in: out_dtype (TVM's: data and weight, of any
    integer or float types, are each converted to it first), else the operands' common one."""
    out_dtype = p.text("out_dtype")
    if not out_dtype:
        return op.same_element([data, weight], ["data", "weight"])
    try:
        return element_type(out_dtype)
    except (TypeError, ValueError, KeyError):
        raise op.error(f'out_dtype must name an element type, got "{out_dtype}"') from None


def spatial_kernel_layout(op: type[RelayOp], p: Props, dims: int) -> Layout:
    """The kernel layout of a convolution with `dims` spatial axes: O, I and those axes in
    any order."""
    text = p.text("kernel_layout")
    try:
        layout = Layout.parse(text)
    except ValueError as exc:
        raise op.error(f"kernel_layout: {exc}") from None
    letters = "OI" + "DHW"[3 - dims :]
    if layout.factors or sorted(layout.primal) != sorted(letters):
        raise op.error(f'kernel_layout must order {", ".join(letters)}, got "{text}"')
    return layout


def conv_operands(
    op: type[RelayOp], p: Props, data: TensorType, weight: TensorType, dims: int
) -> tuple[int, tuple[int, ...], dict[str, int]]:
    """Checks ranks and layouts of a convolution's operands: data's channel axis, its spatial
    axes and the weight's size per kernel-layout letter."""
    c_axis, axes = layout_axes(op, p.text("data_layout"), dims)
    kernel_layout = spatial_kernel_layout(op, p, dims)
    if data.get_num_dims() != dims + 2 or weight.get_num_dims() != dims + 2:
        raise op.error(
            f"data and weight must be {dims + 2}-d, got {fmt_shape(data.get_shape())} and "
            f"{fmt_shape(weight.get_shape())}"
        )
    return c_axis, axes, kernel_layout.primal_sizes(weight.get_shape())


def conv_nd_type(op: type[RelayOp], p: Props, data: TensorType, weight: TensorType) -> Attribute:
    """A convolution over 1 or 3 spatial axes (the op's SPATIAL)."""
    dims: int = op.SPATIAL  # type: ignore[attr-defined]
    elem = out_element(op, p, data, weight)
    strides, dilation = p.positive("strides", dims), p.positive("dilation", dims)
    padding, groups = nd_padding(op, p, dims), p.integer("groups")
    c_axis, axes, sizes = conv_operands(op, p, data, weight, dims)
    o, i = sizes["O"], sizes["I"]
    shape = list(data.get_shape())
    if groups < 1 or (static_dims(o) and o % groups):
        raise op.error(f"groups {groups} must be positive and divide output channels {o}")
    if static_dims(shape[c_axis], i) and shape[c_axis] != i * groups:  # `?`: at run time
        raise op.error(
            f"data has {shape[c_axis]} channels but weight expects {i * groups} "
            f"({i} per group x {groups} groups)"
        )
    kernel = [sizes[a] for a in "DHW"[3 - dims :]]
    window = (kernel, strides, dilation, padding, False)
    out = windows_out(op, "kernel", [shape[a] for a in axes], *window)
    shape[c_axis] = o
    for a, extent in zip(axes, out, strict=True):
        shape[a] = extent
    return TensorType(elem, shape)


Conv1dOp = relay_op(
    "nn.conv1d",
    RelayOp,
    """1-d convolution (cross-correlation), grouped and dilated; NCW or NWC data, the kernel in
    any order of O, I, W (OIW, WIO); padding is (left, right).

    `%y = relay.nn.conv1d %x, %w {padding = array<i64: 1, 1>}
        : (tensor<1x3x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x8xf32>`

    With out_dtype, data and weight (of any numeric types) are converted to it first.
    """,
    ints_def("strides", (1,)),
    ints_def("padding", (0, 0)),
    ints_def("dilation", (1,)),
    int_def("groups", 1),
    str_def("data_layout", "NCW"),
    str_def("kernel_layout", "OIW"),
    str_def("out_dtype", ""),
    operands=("data", "weight"),
    rule=conv_nd_type,
    pattern=OpPattern.OUT_ELEMWISE_FUSABLE,
    SPATIAL=1,
)
Conv3dOp = relay_op(
    "nn.conv3d",
    RelayOp,
    """3-d convolution (cross-correlation), grouped and dilated; NCDHW or NDHWC data, the
    kernel in any order of O, I, D, H, W (OIDHW, DHWIO); padding is (front, top, left, back,
    bottom, right).

    `%y = relay.nn.conv3d %x, %w {padding = array<i64: 1, 1, 1, 1, 1, 1>}
        : (tensor<1x3x4x8x8xf32>, tensor<4x3x3x3x3xf32>) -> tensor<1x4x4x8x8xf32>`

    With out_dtype, data and weight (of any numeric types) are converted to it first.
    """,
    ints_def("strides", (1, 1, 1)),
    ints_def("padding", (0, 0, 0, 0, 0, 0)),
    ints_def("dilation", (1, 1, 1)),
    int_def("groups", 1),
    str_def("data_layout", "NCDHW"),
    str_def("kernel_layout", "OIDHW"),
    str_def("out_dtype", ""),
    operands=("data", "weight"),
    rule=conv_nd_type,
    pattern=OpPattern.OUT_ELEMWISE_FUSABLE,
    SPATIAL=3,
)


def conv_transpose_type(
    op: type[RelayOp], p: Props, data: TensorType, weight: TensorType
) -> Attribute:
    """A transposed convolution of 1, 2 or 3 spatial axes (the op's SPATIAL)."""
    dims: int = op.SPATIAL  # type: ignore[attr-defined]
    elem = out_element(op, p, data, weight)
    strides, dilation = p.positive("strides", dims), p.positive("dilation", dims)
    padding, groups = nd_padding(op, p, dims), p.integer("groups")
    out_pad = p.ints("output_padding")
    if len(out_pad) != dims or any(o < 0 for o in out_pad):  # TVM allows o >= stride too
        raise op.error(
            f"output_padding must be {dims} non-negative integers, got {fmt_list(out_pad)}"
        )
    c_axis, axes, sizes = conv_operands(op, p, data, weight, dims)
    shape = list(data.get_shape())
    if groups < 1 or (static_dims(shape[c_axis]) and shape[c_axis] % groups):
        raise op.error(
            f"groups {groups} must be positive and divide input channels {shape[c_axis]}"
        )
    if static_dims(shape[c_axis], sizes["I"]) and shape[c_axis] != sizes["I"]:
        raise op.error(f"data has {shape[c_axis]} channels but weight expects {sizes['I']}")
    shape[c_axis] = derived_dim(lambda o: o * groups, sizes["O"])
    kernel = [sizes[a] for a in "DHW"[3 - dims :]]
    for j, a in enumerate(axes):
        before, after, stride = padding[j], padding[dims + j], strides[j]
        shape[a] = derived_dim(
            lambda s, k, j=j, b=before, e=after, st=stride: (
                (s - 1) * st - b - e + dilation[j] * (k - 1) + out_pad[j] + 1
            ),
            shape[a],
            kernel[j],
        )
    if any(static_dims(shape[a]) and shape[a] < 1 for a in axes):
        raise op.error(f"padding leaves an empty output ({fmt_shape([shape[a] for a in axes])})")
    return TensorType(elem, shape)


class ConvTransposeOp(RelayOp, ABC):
    """A transposed convolution (the gradient of a convolution with respect to its data):
    weight letter I counts all input channels, O the output channels of one group."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    OPERANDS: ClassVar[tuple[str, ...]] = ("data", "weight")
    SPATIAL: ClassVar[int] = 2
    RULE = staticmethod(conv_transpose_type)


def conv_transpose_attrs(dims: int, data_layout: str, kernel_layout: str) -> tuple[AttrDef, ...]:
    return (
        ints_def("strides", (1,) * dims),
        ints_def("padding", (0,) * (2 * dims)),
        ints_def("output_padding", (0,) * dims),
        ints_def("dilation", (1,) * dims),
        int_def("groups", 1),
        str_def("data_layout", data_layout),
        str_def("kernel_layout", kernel_layout),
        str_def("out_dtype", ""),
    )


Conv1dTransposeOp = relay_op(
    "nn.conv1d_transpose",
    ConvTransposeOp,
    """1-d transposed convolution; data NCW or NWC, the kernel any order of I, O and W
    (IOW: in, out / groups, kw); padding is (left, right).

    `%y = relay.nn.conv1d_transpose %x, %w {strides = array<i64: 2>}
        : (tensor<1x4x3xf32>, tensor<4x2x3xf32>) -> tensor<1x2x7xf32>`
    """,
    *conv_transpose_attrs(1, "NCW", "IOW"),
    SPATIAL=1,
)
Conv2dTransposeOp = relay_op(
    "nn.conv2d_transpose",
    ConvTransposeOp,
    """2-d transposed convolution; data NCHW or NHWC, the kernel any order of I, O, H and W
    (IOHW: in, out / groups, kh, kw; OIHW, HWOI, ...); padding is (top, left, bottom, right).

    `%y = relay.nn.conv2d_transpose %x, %w {strides = array<i64: 2, 2>}
        : (tensor<1x4x3x3xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32>`
    """,
    *conv_transpose_attrs(2, "NCHW", "IOHW"),
    SPATIAL=2,
)
Conv3dTransposeOp = relay_op(
    "nn.conv3d_transpose",
    ConvTransposeOp,
    """3-d transposed convolution; data NCDHW or NDHWC, the kernel any order of I, O, D, H
    and W (IODHW: in, out / groups, kd, kh, kw); padding is (front, top, left, back, bottom,
    right).

    `%y = relay.nn.conv3d_transpose %x, %w {strides = array<i64: 2, 2, 2>}
        : (tensor<1x4x3x3x3xf32>, tensor<4x2x3x3x3xf32>) -> tensor<1x2x7x7x7xf32>`
    """,
    *conv_transpose_attrs(3, "NCDHW", "IODHW"),
    SPATIAL=3,
)


PACK_TYPES = {"uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64}


def bitpack_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    rank = data.get_num_dims()
    if not isinstance(data.get_element_type(), IntegerType) or rank < 1:
        raise op.error(f"data must be an integer tensor, got {data}")
    pack_type = p.choice("pack_type", tuple(PACK_TYPES))
    bits, width = p.integer("bits"), PACK_TYPES[pack_type]
    pack_axis = p.axis("pack_axis", rank)
    bit_axis = p.integer("bit_axis")
    if bits < 1 or not 0 <= bit_axis <= rank:
        raise op.error(
            f"bits must be positive and bit_axis in [0, {rank}], got {bits} and {bit_axis}"
        )
    shape = list(data.get_shape())
    if shape[pack_axis] % width:
        raise op.error(
            f"axis {pack_axis} of size {shape[pack_axis]} does not pack into {pack_type} words "
            f"of {width} elements"
        )
    shape[pack_axis] //= width
    shape.insert(bit_axis, bits)
    return TensorType(element_type(pack_type), shape)


BitpackOp = relay_op(
    "nn.bitpack",
    RelayOp,
    """Bit planes of integer data packed into words: output plane b (a new axis at bit_axis)
    holds, in word k along pack_axis, bit b of the elements k * w to k * w + w - 1 of that
    axis, the first in the word's highest bit (w: the bits of pack_type).

    `%y = relay.nn.bitpack %x {bits = 2 : i64, pack_type = "uint8"}
        : (tensor<2x16xi32>) -> tensor<2x2x2xui8>`
    """,
    int_def("bits", 1),
    int_def("pack_axis", 1),
    int_def("bit_axis", 2),
    str_def("pack_type", "uint32"),
    rule=bitpack_type,
    pattern=OpPattern.INJECTIVE,
)


def dense_type(op: type[RelayOp], p: Props, data: TensorType, weight: TensorType) -> Attribute:
    elem = op.same_element([data, weight], ["data", "weight"])
    if data.get_num_dims() < 1 or weight.get_num_dims() != 2:
        raise op.error(
            f"data must have rank >= 1 and weight rank 2, got {fmt_shape(data.get_shape())} "
            f"and {fmt_shape(weight.get_shape())}"
        )
    units, k = weight.get_shape()
    if data.get_shape()[-1] != k and DYNAMIC_INDEX not in (data.get_shape()[-1], k):
        raise op.error(
            f"data has {data.get_shape()[-1]} input features but weight "
            f"{fmt_shape(weight.get_shape())} expects {k}"
        )
    return TensorType(elem, [*data.get_shape()[:-1], units])


DenseOp = relay_op(
    "nn.dense",
    RelayOp,
    """Fully connected layer: data [..., k] times weight [units, k] transposed.

    `%y = relay.nn.dense %x, %w : (tensor<2x5xf32>, tensor<3x5xf32>) -> tensor<2x3xf32>`
    """,
    operands=("data", "weight"),
    rule=dense_type,
    pattern=OpPattern.OUT_ELEMWISE_FUSABLE,
)


def matmul_type(op: type[RelayOp], p: Props, a: TensorType, b: TensorType) -> Attribute:
    elem = op.same_element([a, b], ["a", "b"])
    ta, tb = p.flag("transpose_a"), p.flag("transpose_b")
    a_shape, b_shape = a.get_shape(), b.get_shape()
    if b.get_num_dims() != 2 or a.get_num_dims() < (2 if ta else 1):
        raise op.error(
            f"b must be 2-d and a at least {'2-d' if ta else '1-d'}, got "
            f"{fmt_shape(a_shape)} and {fmt_shape(b_shape)}"
        )
    k_a = a_shape[-2] if ta else a_shape[-1]
    k_b, n = (b_shape[1], b_shape[0]) if tb else (b_shape[0], b_shape[1])
    if k_a != k_b and DYNAMIC_INDEX not in (k_a, k_b):  # `?` is checked at run time
        raise op.error(
            f"reduction sizes differ: {k_a} vs {k_b} (shapes {fmt_shape(a_shape)} and "
            f"{fmt_shape(b_shape)})"
        )
    lead = [*a_shape[:-2], a_shape[-1]] if ta else list(a_shape[:-1])
    return TensorType(elem, [*lead, n])


MatmulOp = relay_op(
    "nn.matmul",
    RelayOp,
    """Matrix product of a [..., m, k] and b [k, n], either side optionally transposed (a's
    last two axes: [..., k, m]).

    `%y = relay.nn.matmul %a, %b : (tensor<2x5xf32>, tensor<5x3xf32>) -> tensor<2x3xf32>`
    """,
    bool_def("transpose_a", False),
    bool_def("transpose_b", False),
    operands=("a", "b"),
    rule=matmul_type,
    pattern=OpPattern.OUT_ELEMWISE_FUSABLE,
)


def batch_matmul_type(op: type[RelayOp], p: Props, x: TensorType, y: TensorType) -> Attribute:
    elem = op.same_element([x, y], ["x", "y"])
    if x.get_num_dims() != 3 or y.get_num_dims() != 3:
        raise op.error(
            f"operands must be 3-d, got {fmt_shape(x.get_shape())} and {fmt_shape(y.get_shape())}"
        )
    bx, m, kx = x.get_shape()
    by, n, ky = y.get_shape()
    if p.flag("transpose_a"):
        m, kx = kx, m
    if not p.flag("transpose_b"):
        n, ky = ky, n
    if kx != ky:
        raise op.error(
            f"reduction sizes differ: {kx} vs {ky} (shapes {fmt_shape(x.get_shape())} and "
            f"{fmt_shape(y.get_shape())})"
        )
    if bx != by and 1 not in (bx, by):
        raise op.error(f"batch sizes do not broadcast: {bx} vs {by}")
    return TensorType(elem, [max(bx, by), m, n])


BatchMatmulOp = relay_op(
    "nn.batch_matmul",
    RelayOp,
    """Batched matrix product; TVM's default multiplies x [b, m, k] by y [b, n, k] transposed.

    `%z = relay.nn.batch_matmul %x, %y
        : (tensor<2x3x5xf32>, tensor<2x4x5xf32>) -> tensor<2x3x4xf32>`
    """,
    bool_def("transpose_a", False),
    bool_def("transpose_b", True),
    operands=("x", "y"),
    rule=batch_matmul_type,
    pattern=OpPattern.OUT_ELEMWISE_FUSABLE,
)


def channel_vector_type(
    op: type[RelayOp], p: Props, data: TensorType, vector: TensorType
) -> Attribute:
    """data and a 1-d vector the size of data's `axis`."""
    name = op.OPERANDS[1]
    op.same_element([data, vector], ["data", name])
    axis = p.axis("axis", data.get_num_dims())
    size = data.get_shape()[axis]
    if vector.get_shape() != (size,):
        raise op.error(
            f"{name} must have shape {size} (axis {axis} of data "
            f"{fmt_shape(data.get_shape())}), got {fmt_shape(vector.get_shape())}"
        )
    return data


class ChannelVectorOp(RelayOp, ABC):
    """data combined with a 1-d vector laid along one axis of data (bias_add, prelu)."""

    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST
    ATTRS: ClassVar[tuple[AttrDef, ...]] = (int_def("axis", 1),)
    RULE = staticmethod(channel_vector_type)


BiasAddOp = relay_op(
    "nn.bias_add",
    ChannelVectorOp,
    """Add a 1-d bias along `axis`.

    `%y = relay.nn.bias_add %x, %b : (tensor<1x4x5x5xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>`
    """,
    operands=("data", "bias"),
)
PreluOp = relay_op(
    "nn.prelu",
    ChannelVectorOp,
    """Leaky relu with a learned slope per channel along `axis`.

    `%y = relay.nn.prelu %x, %a : (tensor<1x4x5x5xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>`
    """,
    operands=("data", "alpha"),
)


# ---------------------------------------------------------------------------------------------
# Normalisation


def check_vectors(
    op: type[RelayOp], p: Props, data: TensorType, vectors: Mapping[str, TensorType]
) -> int:
    """The size of data's `axis`, which every vector must have; epsilon must be >= 0."""
    axis = p.axis("axis", data.get_num_dims())
    if p.number("epsilon") < 0:
        raise op.error(f"epsilon must not be negative, got {p.number('epsilon')}")
    size = data.get_shape()[axis]
    for name, t in vectors.items():
        if t.get_shape() != (size,):
            raise op.error(
                f"{name} must have shape {size} (axis {axis} of data "
                f"{fmt_shape(data.get_shape())}), got {fmt_shape(t.get_shape())}"
            )
    return size


def batch_norm_type(op: type[RelayOp], p: Props, *tensors: TensorType) -> Attribute:
    elem = op.same_element(tensors, op.OPERANDS)
    data = tensors[0]
    size = check_vectors(op, p, data, dict(zip(op.OPERANDS[1:], tensors[1:], strict=True)))
    vector = TensorType(elem, [size])
    return TupleType((data, vector, vector))


NORM_ATTRS = (float_def("epsilon", 1e-5), bool_def("center", True), bool_def("scale", True))

BatchNormOp = relay_op(
    "nn.batch_norm",
    RelayOp,
    """Batch normalisation with moving statistics; a tuple (out, mean, var) as in TVM.

    `%t = relay.nn.batch_norm %x, %g, %b, %m, %v
        : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
        -> tuple<tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>>`
    """,
    int_def("axis", 1),
    *NORM_ATTRS,
    operands=("data", "gamma", "beta", "moving_mean", "moving_var"),
    result=TupleType,
    rule=batch_norm_type,
)


def layer_norm_type(
    op: type[RelayOp], p: Props, data: TensorType, gamma: TensorType, beta: TensorType
) -> Attribute:
    op.same_element([data, gamma, beta], op.OPERANDS)
    if not is_float(data.get_element_type()):
        raise op.error(f"data element type must be a float type, got {data.element_type}")
    check_vectors(op, p, data, {"gamma": gamma, "beta": beta})
    return data


LayerNormOp = relay_op(
    "nn.layer_norm",
    RelayOp,
    """Layer normalisation over one axis, scaled by gamma and shifted by beta.

    `%y = relay.nn.layer_norm %x, %g, %b
        : (tensor<2x5xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<2x5xf32>`
    """,
    int_def("axis", -1),
    *NORM_ATTRS,
    operands=("data", "gamma", "beta"),
    rule=layer_norm_type,
)


# ---------------------------------------------------------------------------------------------
# Pooling, padding, resizing


def spatial_data(op: type[RelayOp], p: Props, data: TensorType) -> tuple[list[int], int, int]:
    """data's shape and the indices of its height and width axes in `layout`; data is 4-d."""
    _, h_axis, w_axis = spatial_axes(op, p.text("layout"))
    if data.get_num_dims() != 4:
        raise op.error(f"data must be 4-d, got {fmt_shape(data.get_shape())}")
    return list(data.get_shape()), h_axis, w_axis


def pool2d_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    kh, kw = p.positive("pool_size", 2)
    strides, dilation = p.positive("strides", 2), p.positive("dilation", 2)
    pt, pl, pb, pr = p.padding()
    shape, h_axis, w_axis = spatial_data(op, p, data)
    window = ((kh, kw), strides, dilation, (pt, pl, pb, pr), p.flag("ceil_mode"))
    oh, ow = windows_out(op, "window", (shape[h_axis], shape[w_axis]), *window)
    shape[h_axis], shape[w_axis] = oh, ow
    return TensorType(data.get_element_type(), shape)


class Pool2dOp(RelayOp, ABC):
    """A sliding-window reduction over the two spatial axes of a 4-d tensor."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    OPERANDS: ClassVar[tuple[str, ...]] = ("data",)
    ATTRS: ClassVar[tuple[AttrDef, ...]] = (
        ints_def("pool_size"),
        ints_def("strides", (1, 1)),
        ints_def("padding", (0, 0, 0, 0)),
        ints_def("dilation", (1, 1)),
        str_def("layout", "NCHW"),
        bool_def("ceil_mode", False),
    )
    RULE = staticmethod(pool2d_type)


MaxPool2dOp = relay_op(
    "nn.max_pool2d",
    Pool2dOp,
    """Maximum over each window (padding never wins).

    `%y = relay.nn.max_pool2d %x {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : (tensor<1x3x7x7xf32>) -> tensor<1x3x3x3xf32>`
    """,
)
AvgPool2dOp = relay_op(
    "nn.avg_pool2d",
    Pool2dOp,
    """Mean over each window; padding counts toward the divisor if count_include_pad.

    `%y = relay.nn.avg_pool2d %x {pool_size = array<i64: 3, 3>, count_include_pad = true}
        : (tensor<1x3x7x7xf32>) -> tensor<1x3x5x5xf32>`

    The extra cells ceil_mode adds at the bottom and right are never counted.
    """,
    bool_def("count_include_pad", False),
)


def global_pool2d_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    shape, h_axis, w_axis = spatial_data(op, p, data)
    shape[h_axis] = shape[w_axis] = 1
    return TensorType(data.get_element_type(), shape)


class GlobalPool2dOp(RelayOp, ABC):
    """A reduction over both spatial axes of a 4-d tensor, keeping them as size 1."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    OPERANDS: ClassVar[tuple[str, ...]] = ("data",)
    ATTRS: ClassVar[tuple[AttrDef, ...]] = (str_def("layout", "NCHW"),)
    SYNTAX: ClassVar[str] = "%y = relay.{name} %x : (tensor<1x3x7x7x{t}>) -> tensor<1x3x1x1x{t}>"
    RULE = staticmethod(global_pool2d_type)


GlobalAvgPool2dOp = relay_op("nn.global_avg_pool2d", GlobalPool2dOp, "Mean over the spatial axes.")
GlobalMaxPool2dOp = relay_op(
    "nn.global_max_pool2d", GlobalPool2dOp, "Maximum over the spatial axes."
)


def pool_nd_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    """A window pool over 1 or 3 spatial axes (the op's SPATIAL)."""
    dims: int = op.SPATIAL  # type: ignore[attr-defined]
    kernel = p.positive("pool_size", dims)
    strides, dilation = p.positive("strides", dims), p.positive("dilation", dims)
    padding = nd_padding(op, p, dims)
    _, axes = layout_axes(op, p.text("layout"), dims)
    if data.get_num_dims() != dims + 2:
        raise op.error(f"data must be {dims + 2}-d, got {fmt_shape(data.get_shape())}")
    shape = list(data.get_shape())
    window = (kernel, strides, dilation, padding, p.flag("ceil_mode"))
    out = windows_out(op, "window", [shape[a] for a in axes], *window)
    for a, extent in zip(axes, out, strict=True):
        shape[a] = extent
    return TensorType(data.get_element_type(), shape)


def pool_attrs(dims: int) -> tuple[AttrDef, ...]:
    return (
        ints_def("pool_size"),
        ints_def("strides", (1,) * dims),
        ints_def("padding", (0,) * (2 * dims)),
        ints_def("dilation", (1,) * dims),
        str_def("layout", SPATIAL_LAYOUTS[dims][0]),
        bool_def("ceil_mode", False),
    )


class Pool1dOp(RelayOp, ABC):
    """A sliding-window reduction over the spatial axis of a 3-d tensor; padding is (left,
    right)."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    OPERANDS: ClassVar[tuple[str, ...]] = ("data",)
    ATTRS: ClassVar[tuple[AttrDef, ...]] = pool_attrs(1)
    SPATIAL: ClassVar[int] = 1
    RULE = staticmethod(pool_nd_type)


class Pool3dOp(RelayOp, ABC):
    """A sliding-window reduction over the three spatial axes of a 5-d tensor; padding is
    (front, top, left, back, bottom, right)."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    OPERANDS: ClassVar[tuple[str, ...]] = ("data",)
    ATTRS: ClassVar[tuple[AttrDef, ...]] = pool_attrs(3)
    SPATIAL: ClassVar[int] = 3
    RULE = staticmethod(pool_nd_type)


MaxPool1dOp = relay_op(
    "nn.max_pool1d",
    Pool1dOp,
    """Maximum over each 1-d window (padding never wins).

    `%y = relay.nn.max_pool1d %x {pool_size = array<i64: 2>, strides = array<i64: 2>}
        : (tensor<1x3x7xf32>) -> tensor<1x3x3xf32>`
    """,
)
AvgPool1dOp = relay_op(
    "nn.avg_pool1d",
    Pool1dOp,
    """Mean over each 1-d window; padding counts toward the divisor if count_include_pad.

    `%y = relay.nn.avg_pool1d %x {pool_size = array<i64: 3>, padding = array<i64: 1, 1>}
        : (tensor<1x3x7xf32>) -> tensor<1x3x7xf32>`
    """,
    bool_def("count_include_pad", False),
)
MaxPool3dOp = relay_op(
    "nn.max_pool3d",
    Pool3dOp,
    """Maximum over each 3-d window (padding never wins).

    `%y = relay.nn.max_pool3d %x {pool_size = array<i64: 2, 2, 2>, strides = array<i64: 2, 2, 2>}
        : (tensor<1x3x4x6x6xf32>) -> tensor<1x3x2x3x3xf32>`
    """,
)
AvgPool3dOp = relay_op(
    "nn.avg_pool3d",
    Pool3dOp,
    """Mean over each 3-d window; padding counts toward the divisor if count_include_pad.

    `%y = relay.nn.avg_pool3d %x {pool_size = array<i64: 2, 2, 2>}
        : (tensor<1x3x4x6x6xf32>) -> tensor<1x3x3x5x5xf32>`

    The extra cells ceil_mode adds at the far end of an axis are never counted.
    """,
    bool_def("count_include_pad", False),
)


def adaptive_pool_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    dims: int = op.SPATIAL  # type: ignore[attr-defined]
    _, axes = layout_axes(op, p.text("layout"), dims)
    size = p.positive("output_size", dims)
    if data.get_num_dims() != dims + 2:
        raise op.error(f"data must be {dims + 2}-d, got {fmt_shape(data.get_shape())}")
    shape = list(data.get_shape())
    for a, extent in zip(axes, size, strict=True):
        shape[a] = extent
    return TensorType(data.get_element_type(), shape)


class AdaptivePoolOp(RelayOp, ABC):
    """Pooling to a given output size: output cell i of an axis of input size n and output
    size m reduces input cells floor(i * n / m) up to ceil((i + 1) * n / m) (TVM's windows)."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    OPERANDS: ClassVar[tuple[str, ...]] = ("data",)
    SPATIAL: ClassVar[int] = 2
    RULE = staticmethod(adaptive_pool_type)


def adaptive_pool_op(kind: str, dims: int) -> type[RelayOp]:
    layouts = SPATIAL_LAYOUTS[dims]
    layout = layouts[0]
    shape = {1: ("1x3x7", "1x3x2"), 2: ("1x3x7x7", "1x3x2x2"), 3: ("1x3x7x7x7", "1x3x2x2x2")}
    what = "Maximum" if kind == "max" else "Mean"
    size = ", ".join(["2"] * dims)
    return relay_op(
        f"nn.adaptive_{kind}_pool{dims}d",
        AdaptivePoolOp,
        f"""{what} over adaptive windows of {dims} spatial axes ({" or ".join(layouts)}).

    `%y = relay.nn.adaptive_{kind}_pool{dims}d %x {{output_size = array<i64: {size}>}}
        : (tensor<{shape[dims][0]}xf32>) -> tensor<{shape[dims][1]}xf32>`
    """,
        ints_def("output_size"),
        str_def("layout", layout),
        SPATIAL=dims,
    )


AdaptiveMaxPool1dOp = adaptive_pool_op("max", 1)
AdaptiveAvgPool1dOp = adaptive_pool_op("avg", 1)
AdaptiveMaxPool2dOp = adaptive_pool_op("max", 2)
AdaptiveAvgPool2dOp = adaptive_pool_op("avg", 2)
AdaptiveMaxPool3dOp = adaptive_pool_op("max", 3)
AdaptiveAvgPool3dOp = adaptive_pool_op("avg", 3)


def pad_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    mode = p.choice("pad_mode", ("constant", "edge", "reflect"))
    widths = p.ints("pad_width")
    shape = data.get_shape()
    if len(widths) != 2 * len(shape) or any(w < 0 for w in widths):
        raise op.error(
            f"pad_width must be {2 * len(shape)} non-negative integers (before, after per "
            f"axis of {fmt_shape(shape)}), got {fmt_list(widths)}"
        )
    out = []
    for axis, dim in enumerate(shape):
        before, after = widths[2 * axis], widths[2 * axis + 1]
        limit = dim - 1 if mode == "reflect" else dim if mode == "edge" else None
        wide = static_dims(dim) and max(before, after) > 0
        if limit is not None and wide and max(before, after) > limit:
            raise op.error(
                f"{mode} padding of {max(before, after)} is too wide for axis {axis} of size {dim}"
            )
        out.append(derived_dim(lambda d, b=before, a=after: b + d + a, dim))
    return TensorType(data.get_element_type(), out)


PadOp = relay_op(
    "nn.pad",
    RelayOp,
    """Pad every axis; pad_width holds (before, after) per axis, flattened.

    `%y = relay.nn.pad %x {pad_width = array<i64: 0, 0, 1, 2>, pad_value = 1.0 : f64}
        : (tensor<2x3xf32>) -> tensor<2x6xf32>`
    """,
    AttrDef("pad_width", INTS, flat_int_array, python_type="Sequence[Sequence[int]]"),
    float_def("pad_value", 0.0),
    str_def("pad_mode", "constant"),
    rule=pad_type,
    pattern=OpPattern.INJECTIVE,
)


RESIZE_METHODS = ("nearest_neighbor", "linear", "cubic")
COORDINATE_MODES = ("half_pixel", "align_corners", "asymmetric")
ROUNDING_METHODS = ("", "round", "floor", "ceil", "round_prefer_floor", "round_prefer_ceil")
# The layouts of resize1d, resize2d and resize3d: batch, channels and 1 to 3 spatial axes.
RESIZE_LAYOUTS = {1: ("NCW", "NWC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def resize_axes(op: type[RelayOp], layout: str, rank: int) -> list[int]:
    """The spatial axes (depth, height, width as present) of a resize's `layout`."""
    if layout not in RESIZE_LAYOUTS[rank]:
        allowed = " or ".join(f'"{name}"' for name in RESIZE_LAYOUTS[rank])
        raise op.error(f'layout must be {allowed}, got "{layout}"')
    return [layout.index(axis) for axis in "DHW"[3 - rank :]]


def resize_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    rank: int = op.SPATIAL  # type: ignore[attr-defined]
    size = p.ints("size")
    if len(size) != rank or any(s < 1 and static_dims(s) for s in size):
        raise op.error(f"size must be {rank} positive integers or ?, got {fmt_list(size)}")
    method = p.choice("method", RESIZE_METHODS)
    p.choice("coordinate_transformation_mode", COORDINATE_MODES)
    p.choice("rounding_method", ROUNDING_METHODS)
    p.number("cubic_alpha")
    p.integer("cubic_exclude")
    axes = resize_axes(op, p.text("layout"), rank)
    if data.get_num_dims() != rank + 2:
        raise op.error(f"data must be {rank + 2}-d, got {fmt_shape(data.get_shape())}")
    if method != "nearest_neighbor" and is_bool(data.get_element_type()):
        raise op.error(f"{method} resize needs a number type, got {data.get_element_type()}")
    shape = list(data.get_shape())
    for axis, extent in zip(axes, size, strict=True):
        shape[axis] = extent
    return TensorType(data.get_element_type(), shape)


def resize_op(rank: int, layout: str, example: str) -> type[RelayOp]:
    axes = ("width axis", "height and width axes", "depth, height and width axes")[rank - 1]
    return relay_op(
        f"image.resize{rank}d",
        RelayOp,
        f"""Resize the {axes} to `size` by nearest neighbour, linear or cubic interpolation.

    Cubic is Keys' kernel with `cubic_alpha`; `cubic_exclude` drops the taps outside the
    input and renormalises. Integers are interpolated in floating point and truncated back,
    as TVM's.

    `{example}`

    A size may be `?` (-9223372036854775808, MLIR's dynamic size), a symbolic size TVM gives
    as a variable: the call type-checks but cannot run.

    rounding_method "" means TVM's default for nearest_neighbor: round for align_corners,
    floor otherwise.
    """,
        ints_def("size"),
        str_def("layout", layout),
        str_def("method", "linear"),
        str_def("coordinate_transformation_mode", "half_pixel"),
        str_def("rounding_method", ""),
        float_def("cubic_alpha", -0.5),
        int_def("cubic_exclude", 0),
        rule=resize_type,
        pattern=OpPattern.INJECTIVE,
        SPATIAL=rank,
    )


Resize1dOp = resize_op(
    1,
    "NCW",
    '%y = relay.image.resize1d %x {size = array<i64: 8>, method = "cubic"}\n'
    "        : (tensor<1x2x4xf32>) -> tensor<1x2x8xf32>",
)
Resize2dOp = resize_op(
    2,
    "NCHW",
    '%y = relay.image.resize2d %x {size = array<i64: 6, 9>, method = "nearest_neighbor"}\n'
    "        : (tensor<1x2x3x4xf32>) -> tensor<1x2x6x9xf32>",
)
Resize3dOp = resize_op(
    3,
    "NCDHW",
    "%y = relay.image.resize3d %x {size = array<i64: 4, 6, 9>}\n"
    "        : (tensor<1x2x2x3x4xf32>) -> tensor<1x2x4x6x9xf32>",
)


def upsampling_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    method = p.choice("method", ("nearest_neighbor", "bilinear"))
    shape, h_axis, w_axis = spatial_data(op, p, data)
    if method == "bilinear" and not is_float(data.get_element_type()):
        raise op.error(f"bilinear upsampling needs a float type, got {data.element_type}")
    for axis, scale in ((h_axis, p.number("scale_h")), (w_axis, p.number("scale_w"))):
        size = derived_dim(lambda d, k=scale: round(d * k), shape[axis])
        if not scale > 0 or (static_dims(size) and size < 1):
            raise op.error(f"scale {scale} leaves axis {axis} of size {shape[axis]} empty")
        shape[axis] = size
    return TensorType(data.get_element_type(), shape)


UpsamplingOp = relay_op(
    "nn.upsampling",
    RelayOp,
    """Scale the spatial axes by (scale_h, scale_w), the sizes rounded to nearest.

    `%y = relay.nn.upsampling %x {scale_h = 2.0 : f64, scale_w = 2.0 : f64}
        : (tensor<1x2x3x4xf32>) -> tensor<1x2x6x8xf32>`

    TVM's: a resize2d with asymmetric (or align_corners) coordinates.
    """,
    float_def("scale_h"),
    float_def("scale_w"),
    str_def("layout", "NCHW"),
    str_def("method", "nearest_neighbor"),
    bool_def("align_corners", False),
    rule=upsampling_type,
    pattern=OpPattern.INJECTIVE,
)


# ---------------------------------------------------------------------------------------------
# Reductions


def reduce_type(op: type[ReduceOp], p: Props, data: TensorType) -> Attribute:
    axes = op.reduced_axes(p, data.get_num_dims())
    keep = p.flag("keepdims")
    shape = [1 if i in axes else d for i, d in enumerate(data.get_shape()) if keep or i not in axes]
    return TensorType(op.result_element(data.get_element_type()), shape)


def axes_array(axis: int | Sequence[int]) -> DenseArrayBase:
    """`array<i64: ...>` of one axis or of several."""
    return int_array([axis] if isinstance(axis, int) else axis)


class ReduceOp(RelayOp, ABC):
    """A reduction over `axis` (all axes when absent), optionally keeping them as size 1."""

    PATTERN: ClassVar[OpPattern] = OpPattern.COMM_REDUCE
    OPERANDS: ClassVar[tuple[str, ...]] = ("data",)
    ATTRS: ClassVar[tuple[AttrDef, ...]] = (
        AttrDef("axis", INTS, axes_array, None, "int | Sequence[int]"),
        bool_def("keepdims", False),
    )
    SYNTAX: ClassVar[str] = (
        "%y = relay.{name} %x {{axis = array<i64: 1>}} : (tensor<2x3x{t}>) -> tensor<2x{t}>"
    )
    RULE = staticmethod(reduce_type)

    @classmethod
    def reduced_axes(cls, p: Props, rank: int) -> tuple[int, ...]:
        axes = p.opt_ints("axis")
        return tuple(range(rank)) if axes is None else normalize_axes(cls, axes, rank)

    @classmethod
    def result_element(cls, elem: Attribute) -> Attribute:
        return elem


class ArgReduceOp(ReduceOp, ABC):
    """The i32 index of the extreme element over `axis` (all axes if absent): over several
    axes, the row-major offset within the reduced axes taken in increasing order, as TVM's;
    of its first occurrence, or of its last with select_last_index."""

    ATTRS: ClassVar[tuple[AttrDef, ...]] = (
        *ReduceOp.ATTRS,
        bool_def("select_last_index", False),
    )

    SYNTAX: ClassVar[str] = (
        "%y = relay.{name} %x {{axis = array<i64: 1>}} : (tensor<2x3x{t}>) -> tensor<2xi32>"
    )

    @classmethod
    def reduced_axes(cls, p: Props, rank: int) -> tuple[int, ...]:
        if p.opt_ints("axis") == ():
            raise cls.error("takes one axis or more (or none for all), got []")
        return super().reduced_axes(p, rank)

    @classmethod
    def result_element(cls, elem: Attribute) -> Attribute:
        return IntegerType(32)


SumOp = relay_op("sum", ReduceOp, "Sum over axes.")
MeanOp = relay_op("mean", ReduceOp, "Arithmetic mean over axes.")
MaxOp = relay_op("max", ReduceOp, "Maximum over axes.")
MinOp = relay_op("min", ReduceOp, "Minimum over axes.")
ProdOp = relay_op("prod", ReduceOp, "Product over axes.")
ArgmaxOp = relay_op("argmax", ArgReduceOp, "Index of the first maximum over axes.")
ArgminOp = relay_op("argmin", ArgReduceOp, "Index of the first minimum over axes.")


# ---------------------------------------------------------------------------------------------
# Shape manipulation


def reshape_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    newshape = p.ints("newshape")
    shape = data.get_shape()
    out: list[int] = []
    for i, d in enumerate(newshape):
        if d == 0:
            if i >= len(shape):
                raise op.error(f"newshape entry {i} is 0 but data has rank {len(shape)}")
            out.append(shape[i])
        elif d >= -1:
            out.append(d)
        else:
            raise op.error(f"newshape entry {d} is not supported (only sizes, 0 and -1)")
    total = math.prod(shape)
    if out.count(-1) > 1:
        raise op.error(f"newshape {fmt_list(newshape)} has more than one -1")
    if not static_dims(*shape):  # sizes checked at run time; the inferred one is symbolic
        return TensorType(data.get_element_type(), [DYNAMIC_INDEX if d == -1 else d for d in out])
    if -1 in out:
        known = math.prod(d for d in out if d != -1)
        if known == 0 or total % known:
            raise op.error(
                f"cannot reshape {fmt_shape(shape)} ({total} elements) to {fmt_list(newshape)}"
            )
        out[out.index(-1)] = total // known
    if math.prod(out) != total:
        raise op.error(
            f"cannot reshape {fmt_shape(shape)} ({total} elements) to {fmt_shape(out)} "
            f"({math.prod(out)} elements)"
        )
    return TensorType(data.get_element_type(), out)


ReshapeOp = relay_op(
    "reshape",
    RelayOp,
    """Reshape; in newshape 0 copies the input dimension and -1 is inferred.

    `%y = relay.reshape %x {newshape = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>`
    """,
    ints_def("newshape"),
    rule=reshape_type,
    pattern=OpPattern.INJECTIVE,
)


def transpose_permutation(op: type[RelayOp], p: Props, rank: int) -> tuple[int, ...]:
    axes = p.opt_ints("axes")
    if axes is None:
        return tuple(reversed(range(rank)))
    if len(axes) != rank:
        raise op.error(f"axes {fmt_list(axes)} must have one entry per axis of rank {rank}")
    return normalize_axes(op, axes, rank)


def transpose_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    perm = transpose_permutation(op, p, data.get_num_dims())
    shape = data.get_shape()
    return TensorType(data.get_element_type(), [shape[a] for a in perm])


TransposeOp = relay_op(
    "transpose",
    RelayOp,
    """Permute the axes (reverse them when axes is absent).

    `%y = relay.transpose %x {axes = array<i64: 0, 2, 1>}
        : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>`
    """,
    ints_def("axes", None),
    rule=transpose_type,
    pattern=OpPattern.INJECTIVE,
    permutation=classmethod(transpose_permutation),
)


def concatenate_type(op: type[RelayOp], p: Props, operand_types: Sequence[Attribute]) -> Attribute:
    if not operand_types:
        raise op.error("needs at least one operand")
    names = [f"operand {i}" for i in range(len(operand_types))]
    tensors = op.tensors(operand_types, names)
    elem = op.same_element(tensors, names)
    first = tensors[0].get_shape()
    axis = p.axis("axis", len(first))
    shapes = [t.get_shape() for t in tensors]
    for shape in shapes:
        if len(shape) != len(first) or any(
            static_dims(a, b) and a != b
            for i, (a, b) in enumerate(zip(shape, first, strict=True))
            if i != axis
        ):
            raise op.error(
                f"operand shapes differ outside axis {axis}: {fmt_shape(first)} vs "
                f"{fmt_shape(shape)}"
            )
    total = derived_dim(lambda *dims: sum(dims), *(s[axis] for s in shapes))
    out = []
    for i in range(len(first)):  # TVM's rule: a static size wins where the axis joined is `?`
        sizes = [s[i] for s in shapes if static_dims(s[i])]
        whole = len(sizes) == len(shapes) or not static_dims(total)
        out.append(total if i == axis else sizes[0] if sizes and whole else DYNAMIC_INDEX)
    return TensorType(elem, out)


ConcatenateOp = relay_op(
    "concatenate",
    RelayOp,
    """Join tensors along `axis`.

    `%y = relay.concatenate %a, %b {axis = 1 : i64}
        : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>`
    """,
    int_def("axis", 0),
    operands=("inputs",),
    variadic=True,
    rule=concatenate_type,
    pattern=OpPattern.INJECTIVE,
)


def split_boundaries(op: type[RelayOp], p: Props, size: int) -> list[int]:
    """The split points along the axis, from 0 to size inclusive; those past the last index
    are `?` on a symbolic axis."""
    spec = p.required("indices_or_sections")
    if isinstance(spec, IntegerAttr):
        sections = int(spec.value.data)
        if sections < 1 or (static_dims(size) and size % sections):
            raise op.error(f"{sections} sections do not divide axis of size {fmt_shape([size])}")
        step = derived_dim(lambda s: s // sections, size)
        return [0] + [derived_dim(lambda s, i=i: i * s, step) for i in range(1, sections + 1)]
    indices = list(p.ints("indices_or_sections"))
    if any(b < a for a, b in itertools.pairwise(indices)) or any(
        i < 0 or (static_dims(size) and i > size) for i in indices
    ):
        raise op.error(
            f"indices {fmt_list(indices)} must be ascending within [0, {fmt_shape([size])}]"
        )
    return [0, *indices, size]


def split_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    axis = p.axis("axis", data.get_num_dims())
    points = split_boundaries(op, p, data.get_shape()[axis])
    fields: list[Attribute] = []
    for start, stop in itertools.pairwise(points):
        shape = list(data.get_shape())
        shape[axis] = derived_dim(lambda a, b: b - a, start, stop)
        fields.append(TensorType(data.get_element_type(), shape))
    return TupleType(tuple(fields))


def int_or_ints(value: int | Sequence[int]) -> Attribute:
    return int_attr(value) if isinstance(value, int) else int_array(value)


SplitOp = relay_op(
    "split",
    RelayOp,
    """Split along `axis` into equal sections (an integer) or at indices (an array); a tuple.

    `%t = relay.split %x {indices_or_sections = 3 : i64, axis = 1 : i64}
        : (tensor<2x6xf32>) -> tuple<tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>>`
    """,
    AttrDef("indices_or_sections", INT | INTS, int_or_ints, python_type="int | Sequence[int]"),
    int_def("axis", 0),
    result=TupleType,
    rule=split_type,
    pattern=OpPattern.INJECTIVE,
    boundaries=classmethod(split_boundaries),
)


def squeeze_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    shape = data.get_shape()
    given = p.opt_ints("axis")
    if given is None:
        axes = tuple(i for i, d in enumerate(shape) if d == 1)
    else:
        axes = normalize_axes(op, given, len(shape))
    for a in axes:
        if shape[a] != 1:
            raise op.error(f"cannot squeeze axis {a} of size {shape[a]}")
    return TensorType(data.get_element_type(), [d for i, d in enumerate(shape) if i not in axes])


SqueezeOp = relay_op(
    "squeeze",
    RelayOp,
    """Remove size-1 axes (all of them when axis is absent).

    `%y = relay.squeeze %x {axis = array<i64: 0>} : (tensor<1x3x1xf32>) -> tensor<3x1xf32>`
    """,
    ints_def("axis", None),
    rule=squeeze_type,
    pattern=OpPattern.INJECTIVE,
)


def expand_dims_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    shape = list(data.get_shape())
    axis, count = p.integer("axis"), p.integer("num_newaxis")
    if not -len(shape) - 1 <= axis <= len(shape):
        raise op.error(f"axis {axis} is out of range for rank {len(shape)} (inserting)")
    if count < 0:
        raise op.error(f"num_newaxis must not be negative, got {count}")
    axis = axis % (len(shape) + 1)
    return TensorType(data.get_element_type(), [*shape[:axis], *[1] * count, *shape[axis:]])


ExpandDimsOp = relay_op(
    "expand_dims",
    RelayOp,
    """Insert num_newaxis size-1 axes at `axis`.

    `%y = relay.expand_dims %x {axis = 1 : i64, num_newaxis = 2 : i64}
        : (tensor<3x4xf32>) -> tensor<3x1x1x4xf32>`
    """,
    int_def("axis"),
    int_def("num_newaxis", 1),
    rule=expand_dims_type,
    pattern=OpPattern.INJECTIVE,
)


def batch_flatten_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    shape = data.get_shape()
    if not shape:
        raise op.error("data must have rank >= 1")
    rest = derived_dim(lambda *dims: math.prod(dims), *shape[1:])
    return TensorType(data.get_element_type(), [shape[0], rest])


BatchFlattenOp = relay_op(
    "nn.batch_flatten",
    RelayOp,
    """Flatten all axes but the first.

    `%y = relay.nn.batch_flatten %x : (tensor<2x3x4xf32>) -> tensor<2x12xf32>`
    """,
    rule=batch_flatten_type,
    pattern=OpPattern.INJECTIVE,
)


def query_type(op: type[RelayOp], p: Props, shape: Sequence[int]) -> Attribute:
    """A tensor of `shape` and element type `dtype`: integers, or floats as TVM allows."""
    dtype = p.required("dtype")
    if not isinstance(dtype, IntegerType | Float16Type | Float32Type | Float64Type) or is_bool(
        dtype
    ):
        raise op.error(f"dtype must be an integer or float type, got {dtype}")
    return TensorType(dtype, shape)


class ShapeQueryOp(RelayOp, ABC):
    """An op that reads only its operand's static type: a tensor of `dtype` (int32 unless
    told; TVM also allows a float type)."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    OPERANDS: ClassVar[tuple[str, ...]] = ("data",)
    ATTRS: ClassVar[tuple[AttrDef, ...]] = (
        dtype_def(
            "dtype",
            base(IntegerType) | base(Float16Type) | base(Float32Type) | base(Float64Type),
            "int32",
        ),
    )


ShapeOfOp = relay_op(
    "shape_of",
    ShapeQueryOp,
    """The shape of a tensor, as a 1-d tensor.

    `%s = relay.shape_of %x {dtype = i64} : (tensor<2x3xf32>) -> tensor<2xi64>`
    """,
    rule=lambda op, p, data: query_type(op, p, [data.get_num_dims()]),
)
NdarraySizeOp = relay_op(
    "ndarray_size",
    ShapeQueryOp,
    """The number of elements of a tensor, as a scalar.

    `%n = relay.ndarray_size %x : (tensor<2x3xf32>) -> tensor<i32>`
    """,
    rule=lambda op, p, data: query_type(op, p, []),
)


PAST_END = 2**62  # a slice bound past the last index of any axis


def slices_of(
    op: type[RelayOp], properties: Mapping[str, Attribute], shape: Sequence[int]
) -> list[slice]:
    """One Python slice per axis of a tensor of `shape`. Without `axes`, begin, end and strides
    may be shorter than the rank, as in TVM: a missing stride is 1, a missing begin the first
    element in the stride's direction, a missing end one past the last (or, for a negative
    stride, index 0, which TVM's end excludes)."""
    p = op.props(properties)
    begin, end = list(p.ints("begin")), list(p.ints("end"))
    strides = list(p.opt_ints("strides") or ())
    given = p.opt_ints("axes")
    if 0 in strides:
        raise op.error(f"strides must not be 0, got {fmt_list(strides)}")
    if given is None:
        rank = len(shape)
        if max(len(begin), len(end), len(strides)) > rank:
            raise op.error(
                f"{max(len(begin), len(end), len(strides))} slice bounds for rank {rank}"
            )
        strides += [1] * (rank - len(strides))
        begin += [0 if s > 0 else PAST_END for s in strides][len(begin) :]
        end += [PAST_END if s > 0 else 0 for s in strides][len(end) :]
        axes: Sequence[int] = range(rank)
    else:
        strides += [1] * (len(begin) - len(strides))
        if not len(given) == len(begin) == len(end) == len(strides):
            raise op.error(
                f"axes, begin, end and strides differ in length: {len(given)}, {len(begin)}, "
                f"{len(end)}, {len(strides)}"
            )
        axes = normalize_axes(op, given, len(shape))
    out = [slice(None)] * len(shape)
    for axis, b, e, s in zip(axes, begin, end, strides, strict=True):
        out[axis] = slice(b, e, s)
    return out


def strided_slice_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    shape = data.get_shape()
    slices = slices_of(op, p.values, shape)
    out = [
        derived_dim(lambda n, s=s: len(range(*s.indices(n))), d)
        for s, d in zip(slices, shape, strict=True)
    ]
    return TensorType(data.get_element_type(), out)


StridedSliceOp = relay_op(
    "strided_slice",
    RelayOp,
    """Slice [begin, end) with strides on the given axes (the leading ones if absent).

    `%y = relay.strided_slice %x {begin = array<i64: 1>, end = array<i64: 7>,
        strides = array<i64: 2>, axes = array<i64: 1>}
        : (tensor<2x8xf32>) -> tensor<2x3xf32>`

    Indices follow Python slices: negative counts from the end, out of range is clamped.
    """,
    ints_def("begin"),
    ints_def("end"),
    ints_def("strides", None),
    ints_def("axes", None),
    rule=strided_slice_type,
    pattern=OpPattern.INJECTIVE,
    slices=classmethod(slices_of),
)


def strided_set_type(op: type[RelayOp], p: Props, data: TensorType, v: TensorType) -> Attribute:
    op.same_element([data, v], ["data", "v"])
    shape = data.get_shape()
    if DYNAMIC_INDEX not in shape:
        slices = slices_of(op, p.values, shape)
        window = [len(range(*s.indices(d))) for s, d in zip(slices, shape, strict=True)]
        value = v.get_shape()
        fits = len(value) <= len(window) and all(
            a in (1, b, DYNAMIC_INDEX) for a, b in zip(value[::-1], window[::-1], strict=False)
        )
        if not fits:
            raise op.error(
                f"v of shape {fmt_shape(value)} does not broadcast to the slice {fmt_shape(window)}"
            )
    return data


StridedSetOp = relay_op(
    "strided_set",
    RelayOp,
    """A copy of data with its strided slice (strided_slice's begin, end, strides, without
    axes) set to v, broadcast to the slice.

    `%y = relay.strided_set %x, %v {begin = array<i64: 1>, end = array<i64: 7>,
        strides = array<i64: 2>} : (tensor<8x2xf32>, tensor<3x2xf32>) -> tensor<8x2xf32>`
    """,
    ints_def("begin"),
    ints_def("end"),
    ints_def("strides", None),
    operands=("data", "v"),
    rule=strided_set_type,
    pattern=OpPattern.INJECTIVE,
    slices=classmethod(slices_of),
)


def take_type(op: type[RelayOp], p: Props, data: TensorType, indices: TensorType) -> Attribute:
    p.choice("mode", ("clip", "wrap", "fast"))
    if not is_int(indices.get_element_type()):
        raise op.error(
            f"indices must have an integer element type, got {indices.get_element_type()}"
        )
    idx = list(indices.get_shape())
    if p.get("axis") is None:
        return TensorType(data.get_element_type(), idx)
    shape = list(data.get_shape())
    axis = p.axis("axis", len(shape))
    return TensorType(data.get_element_type(), [*shape[:axis], *idx, *shape[axis + 1 :]])


TakeOp = relay_op(
    "take",
    RelayOp,
    """Gather along `axis` (of the flattened data if absent) at integer indices.

    `%y = relay.take %x, %i {axis = 1 : i64, mode = "wrap"}
        : (tensor<2x5xf32>, tensor<3xi32>) -> tensor<2x3xf32>`

    mode: clip clamps indices into range, wrap takes them modulo the size, fast assumes them
    in range.
    """,
    int_def("axis", None),
    str_def("mode", "clip"),
    operands=("data", "indices"),
    rule=take_type,
    pattern=OpPattern.INJECTIVE,
)


def broadcast_to_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    target = p.ints("shape")
    if any(d < 0 for d in target) or broadcast_shapes(data.get_shape(), target) != target:
        raise op.error(f"cannot broadcast {fmt_shape(data.get_shape())} to {fmt_shape(target)}")
    return TensorType(data.get_element_type(), target)


BroadcastToOp = relay_op(
    "broadcast_to",
    RelayOp,
    """Broadcast to `shape` by numpy's rules.

    `%y = relay.broadcast_to %x {shape = array<i64: 2, 3>} : (tensor<3xf32>) -> tensor<2x3xf32>`
    """,
    ints_def("shape"),
    rule=broadcast_to_type,
    pattern=OpPattern.BROADCAST,
)


def tile_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    reps = p.ints("reps")
    if not reps or any(r < 1 for r in reps):
        raise op.error(f"reps must be positive integers, got {fmt_list(reps)}")
    shape = list(data.get_shape())
    rank = max(len(shape), len(reps))
    shape = [1] * (rank - len(shape)) + shape
    full = [1] * (rank - len(reps)) + list(reps)
    sizes = [derived_dim(lambda d, r=r: d * r, d) for d, r in zip(shape, full, strict=True)]
    return TensorType(data.get_element_type(), sizes)


TileOp = relay_op(
    "tile",
    RelayOp,
    """Repeat the tensor reps times along each axis (numpy.tile).

    `%y = relay.tile %x {reps = array<i64: 2, 1>} : (tensor<2x3xf32>) -> tensor<4x3xf32>`
    """,
    ints_def("reps"),
    rule=tile_type,
    pattern=OpPattern.INJECTIVE,
)


def transform_layouts(
    op: type[RelayOp], properties: Mapping[str, Attribute]
) -> tuple[Layout, Layout]:
    p = op.props(properties)
    try:
        src, dst = Layout.parse(p.text("src_layout")), Layout.parse(p.text("dst_layout"))
    except ValueError as exc:
        raise op.error(str(exc)) from None
    if sorted(src.primal) != sorted(dst.primal):
        raise op.error(f"layouts {src.text} and {dst.text} have different primal axes")
    return src, dst


def layout_transform_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    src, dst = transform_layouts(op, p.values)
    try:
        shape = dst.shape(src.primal_sizes(data.get_shape()))
    except ValueError as exc:
        raise op.error(str(exc)) from None
    return TensorType(data.get_element_type(), shape)


LayoutTransformOp = relay_op(
    "layout_transform",
    RelayOp,
    """Change the data layout, e.g. NCHW to NHWC or NCHW to NCHW8c.

    `%y = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW4c"}
        : (tensor<1x8x2x2xf32>) -> tensor<1x2x2x2x4xf32>`
    """,
    str_def("src_layout"),
    str_def("dst_layout"),
    rule=layout_transform_type,
    pattern=OpPattern.INJECTIVE,
    layouts=classmethod(transform_layouts),
)


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


def gather_nd_type(op: type[RelayOp], p: Props, data: TensorType, indices: TensorType) -> Attribute:
    batch_dims = p.integer("batch_dims")
    index_shape = index_tensor(op, indices)
    _, lead, tail = nd_index_shapes(op, tuple(data.get_shape()), index_shape, batch_dims)
    return TensorType(data.get_element_type(), [*lead, *tail])


GatherNdOp = relay_op(
    "gather_nd",
    RelayOp,
    """Gather slices of data at index tuples laid along axis 0 of indices (TVM's layout).

    `%y = relay.gather_nd %x, %i {batch_dims = 0 : i64}
        : (tensor<4x5x6xf32>, tensor<2x3xi64>) -> tensor<3x6xf32>`

    indices (M, B..., Y...) into data (B..., X_0..X_{M-1}, tail...) give (B..., Y..., tail...):
    the first batch_dims axes pair up one to one.
    """,
    int_def("batch_dims", 0),
    operands=("data", "indices"),
    rule=gather_nd_type,
    pattern=OpPattern.INJECTIVE,
)


SCATTER_MODES = ("update", "add", "mul", "min", "max")


def scatter_nd_type(
    op: type[RelayOp], p: Props, data: TensorType, indices: TensorType, updates: TensorType
) -> Attribute:
    p.choice("mode", SCATTER_MODES)
    op.same_element([data, updates], ["data", "updates"])
    _, lead, tail = nd_index_shapes(op, tuple(data.get_shape()), index_tensor(op, indices), 0)
    if tuple(updates.get_shape()) != (*lead, *tail):
        raise op.error(
            f"updates shape {fmt_shape(updates.get_shape())} must be "
            f"{fmt_shape((*lead, *tail))} (index dims, then data's trailing dims)"
        )
    return data


ScatterNdOp = relay_op(
    "scatter_nd",
    RelayOp,
    """A copy of data with the slices at index tuples (axis 0 of indices) set or combined.

    `%y = relay.scatter_nd %x, %i, %u {mode = "add"}
        : (tensor<4x5xf32>, tensor<1x3xi64>, tensor<3x5xf32>) -> tensor<4x5xf32>`

    indices (M, Y...) and updates (Y..., data.shape[M:]); mode update (the last write of a
    repeated index wins), add, mul, min or max combine the updates with the data.
    """,
    str_def("mode", "update"),
    operands=("data", "indices", "updates"),
    rule=scatter_nd_type,
)


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


def gather_type(op: type[RelayOp], p: Props, data: TensorType, indices: TensorType) -> Attribute:
    shape = index_tensor(op, indices)
    check_elementwise_indices(op, tuple(data.get_shape()), shape, p.values)
    return TensorType(data.get_element_type(), shape)


GatherOp = relay_op(
    "gather",
    RelayOp,
    """Gather along `axis` elementwise: y[i..] = data[i.. with indices[i..] on axis].

    `%y = relay.gather %x, %i {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>)
        -> tensor<3x2xf32>`
    """,
    int_def("axis", 0),
    operands=("data", "indices"),
    rule=gather_type,
    pattern=OpPattern.INJECTIVE,
)


def scatter_elements_type(
    op: type[RelayOp], p: Props, data: TensorType, indices: TensorType, updates: TensorType
) -> Attribute:
    p.choice("reduction", SCATTER_MODES)
    op.same_element([data, updates], ["data", "updates"])
    shape = index_tensor(op, indices)
    if tuple(updates.get_shape()) != shape:
        raise op.error(
            f"updates shape {fmt_shape(updates.get_shape())} differs from indices shape "
            f"{fmt_shape(shape)}"
        )
    check_elementwise_indices(op, tuple(data.get_shape()), shape, p.values)
    return data


ScatterElementsOp = relay_op(
    "scatter_elements",
    RelayOp,
    """A copy of data with updates written along `axis` at indices, elementwise.

    `%y = relay.scatter_elements %x, %i, %u {axis = 0 : i64, reduction = "add"}
        : (tensor<3x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<3x3xf32>`

    reduction update (the last write of a repeated index wins), add, mul, min or max.
    """,
    int_def("axis", 0),
    str_def("reduction", "update"),
    operands=("data", "indices", "updates"),
    rule=scatter_elements_type,
)


def cumsum_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    p.flag("exclusive")
    if p.get("axis") is None:
        total = derived_dim(lambda *dims: math.prod(dims), *data.get_shape())
        return TensorType(data.get_element_type(), [total])
    p.axis("axis", data.get_num_dims())
    return data


CumsumOp = relay_op(
    "cumsum",
    RelayOp,
    """Running sum along `axis` (of the flattened data if absent); exclusive leaves out the
    element itself.

    `%y = relay.cumsum %x {axis = 1 : i64, exclusive = true} : (tensor<2x5xf32>)
        -> tensor<2x5xf32>`
    """,
    int_def("axis", None),
    bool_def("exclusive", False),
    rule=cumsum_type,
)
CumprodOp = relay_op(
    "cumprod",
    RelayOp,
    """Running product along `axis` (of the flattened data if absent); exclusive leaves out
    the element itself.

    `%y = relay.cumprod %x {axis = 1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>`
    """,
    int_def("axis", None),
    bool_def("exclusive", False),
    rule=cumsum_type,
)


def slice_like_type(op: type[RelayOp], p: Props, data: TensorType, like: TensorType) -> Attribute:
    shape, target = list(data.get_shape()), like.get_shape()
    axes = p.opt_ints("axes")
    picked = (
        range(min(len(shape), len(target)))
        if axes is None
        else normalize_axes(op, axes, len(shape))
    )
    for axis in picked:
        if axis >= len(target):
            raise op.error(f"axis {axis} is past shape_like's rank {len(target)}")
        if DYNAMIC_INDEX not in (shape[axis], target[axis]) and target[axis] > shape[axis]:
            raise op.error(
                f"shape_like's axis {axis} ({target[axis]}) is longer than data's ({shape[axis]})"
            )
        shape[axis] = target[axis]
    return TensorType(data.get_element_type(), shape)


SliceLikeOp = relay_op(
    "slice_like",
    RelayOp,
    """The leading part of data with the sizes of shape_like on `axes` (its first
    rank(shape_like) axes when absent).

    `%y = relay.slice_like %x, %l {axes = array<i64: 1>}
        : (tensor<3x4x5xf32>, tensor<2x2xf32>) -> tensor<3x2x5xf32>`
    """,
    ints_def("axes", None),
    operands=("data", "shape_like"),
    rule=slice_like_type,
    pattern=OpPattern.INJECTIVE,
)


def reverse_sequence_type(
    op: type[RelayOp], p: Props, data: TensorType, lengths: TensorType
) -> Attribute:
    rank = data.get_num_dims()
    seq, batch = p.axis("seq_axis", rank), p.axis("batch_axis", rank)
    if seq == batch:
        raise op.error(f"seq_axis and batch_axis must differ, both are {seq}")
    size = data.get_shape()[batch]
    shape = index_tensor(op, lengths, "seq_lengths")
    if len(shape) != 1 or (DYNAMIC_INDEX not in (size, shape[0]) and size != shape[0]):
        raise op.error(
            f"seq_lengths must be a vector of one length per batch entry ({size}), got "
            f"{fmt_shape(shape)}"
        )
    return data


ReverseSequenceOp = relay_op(
    "reverse_sequence",
    RelayOp,
    """Reverse the first seq_lengths[b] elements along seq_axis of each batch entry b along
    batch_axis (a length of 1 or less changes nothing; one past the axis reverses it all).

    `%y = relay.reverse_sequence %x, %l {seq_axis = 0 : i64, batch_axis = 1 : i64}
        : (tensor<4x3xf32>, tensor<3xi32>) -> tensor<4x3xf32>`
    """,
    int_def("seq_axis", 1),
    int_def("batch_axis", 0),
    operands=("data", "seq_lengths"),
    rule=reverse_sequence_type,
    pattern=OpPattern.INJECTIVE,
)


def unravel_index_type(
    op: type[RelayOp], p: Props, indices: TensorType, shape: TensorType
) -> Attribute:
    index_shape = index_tensor(op, indices)
    dims = index_tensor(op, shape, "shape")
    if len(index_shape) > 1 or len(dims) != 1:
        raise op.error(
            f"indices must be a scalar or vector and shape a vector, got {fmt_shape(index_shape)} "
            f"and {fmt_shape(dims)}"
        )
    return TensorType(indices.get_element_type(), [dims[0], *index_shape])


UnravelIndexOp = relay_op(
    "unravel_index",
    RelayOp,
    """The coordinates, in a row-major array of `shape`, of each flat index: row i is
    (index // the product of shape[i + 1:]) mod shape[i] (out-of-range indices wrap).

    `%y = relay.unravel_index %i, %s : (tensor<4xi64>, tensor<2xi64>) -> tensor<2x4xi64>`
    """,
    operands=("indices", "shape"),
    rule=unravel_index_type,
    pattern=OpPattern.INJECTIVE,
)


def sparse_reshape_type(
    op: type[RelayOp], p: Props, indices: TensorType, prev_shape: TensorType, new_shape: TensorType
) -> Attribute:
    shape = index_tensor(op, indices, "sparse_indices")
    for what, t in (("prev_shape", prev_shape), ("new_shape", new_shape)):
        if index_tensor(op, t, what) and t.get_num_dims() != 1:
            raise op.error(f"{what} must have rank 1, got {fmt_shape(t.get_shape())}")
    if len(shape) != 2:
        raise op.error(f"sparse_indices must have rank 2, got {fmt_shape(shape)}")
    if shape[1] != DYNAMIC_INDEX and prev_shape.get_shape()[0] not in (shape[1], DYNAMIC_INDEX):
        raise op.error(
            f"sparse_indices has {shape[1]} columns but prev_shape has "
            f"{prev_shape.get_shape()[0]} dims"
        )
    rank = new_shape.get_shape()[0]
    return TupleType((TensorType(indices.get_element_type(), [shape[0], rank]), new_shape))


SparseReshapeOp = relay_op(
    "sparse_reshape",
    RelayOp,
    """The indices of a sparse (COO) tensor of shape prev_shape reshaped to new_shape (one
    entry may be -1, inferred), and the new shape with that entry filled in.

    `%t = relay.sparse_reshape %i, %p, %n : (tensor<5x3xi32>, tensor<3xi32>, tensor<2xi32>)
        -> tuple<tensor<5x2xi32>, tensor<2xi32>>`
    """,
    operands=("sparse_indices", "prev_shape", "new_shape"),
    result=TupleType,
    rule=sparse_reshape_type,
)


def unique_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    if data.get_num_dims() != 1:
        raise op.error(f"data must be a vector, got {data}")
    (n,) = data.get_shape()
    index = TensorType(i32, [n])
    fields = [TensorType(data.get_element_type(), [n]), index, index, TensorType(i32, [1])]
    return TupleType([*fields, *([index] if p.flag("return_counts") else [])])


UniqueOp = relay_op(
    "unique",
    RelayOp,
    """The distinct values of a vector, padded to its length: (unique, the index of each one's
    first occurrence, each element's position in unique, [num_unique], and with
    return_counts each one's count). Values are ascending when sorted, in order of first
    occurrence otherwise; entries past num_unique are 0.

    `%t = relay.unique %x {sorted = true}
        : (tensor<6xi32>) -> tuple<tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<1xi32>>`
    """,
    bool_def("sorted", True),
    bool_def("return_counts", False),
    result=TupleType,
    rule=unique_type,
)


def segment_sum_type(
    op: type[RelayOp], p: Props, data: TensorType, segment_ids: TensorType
) -> Attribute:
    ids = index_tensor(op, segment_ids, "segment_ids")
    num = p.get("num_segments")
    count = DYNAMIC_INDEX if num is None else p.integer("num_segments")
    if num is not None and count < 1:
        raise op.error(f"num_segments must be positive, got {count}")
    shape = tuple(data.get_shape())
    known = len(ids) == 1 and shape and DYNAMIC_INDEX not in (ids[0], shape[0])
    if len(ids) != 1 or not shape or (known and ids[0] > shape[0]):
        raise op.error(
            f"segment_ids must be a vector no longer than data's axis 0, got {fmt_shape(ids)} "
            f"for data {fmt_shape(shape)}"
        )
    return TensorType(data.get_element_type(), [count, *shape[1:]])


SegmentSumOp = relay_op(
    "segment_sum",
    RelayOp,
    """Sums of data's rows (axis 0) grouped by segment id: y[s] = sum of data[i] with
    segment_ids[i] = s; num_segments rows, or max(segment_ids) + 1 when absent. Rows of data
    past the last segment id are left out, as in TVM.

    `%y = relay.segment_sum %x, %s {num_segments = 4 : i64}
        : (tensor<6x5xf32>, tensor<6xi32>) -> tensor<4x5xf32>`
    """,
    int_def("num_segments", None),
    operands=("data", "segment_ids"),
    rule=segment_sum_type,
)


def stft_type(op: type[RelayOp], p: Props, data: TensorType, window: TensorType) -> Attribute:
    n_fft, hop, win = (p.integer(n) for n in ("n_fft", "hop_length", "win_length"))
    if n_fft < 1 or hop < 1 or not 1 <= win <= n_fft:
        raise op.error(
            f"n_fft {n_fft} and hop_length {hop} must be positive and win_length {win} in "
            f"[1, n_fft]"
        )
    if not is_float(data.get_element_type()) or data.get_num_dims() not in (1, 2):
        raise op.error(f"data must be a float vector or batch of them, got {data}")
    size = window.get_shape()[0] if window.get_num_dims() == 1 else 0
    if size != DYNAMIC_INDEX and size < win:
        raise op.error(f"window must be a vector of win_length {win} or more, got {window}")
    length = data.get_shape()[-1]
    frames = DYNAMIC_INDEX if length == DYNAMIC_INDEX else (length - n_fft) // hop + 1
    if length != DYNAMIC_INDEX and length < n_fft:
        raise op.error(f"data length {length} is shorter than n_fft {n_fft}")
    rows = n_fft // 2 + 1 if p.flag("onesided") else n_fft
    p.flag("normalized")
    return TensorType(data.get_element_type(), [*data.get_shape()[:-1], rows, frames, 2])


StftOp = relay_op(
    "stft",
    RelayOp,
    """Short-time Fourier transform of each row of data, as TVM's kernel computes it: frame
    f's bin r is the sum over k < win_length of window[k] * data[f * hop_length + k] *
    exp(-2 pi i r k / win_length), divided by sqrt(n_fft) when normalized; (real, imag) last.

    `%y = relay.stft %x, %w {n_fft = 3 : i64, hop_length = 3 : i64, win_length = 3 : i64}
        : (tensor<1x6xf32>, tensor<3xi32>) -> tensor<1x2x2x2xf32>`

    onesided keeps the bins 0 to n_fft / 2; data is 1-d or 2-d (a batch of rows).
    """,
    int_def("n_fft"),
    int_def("hop_length"),
    int_def("win_length"),
    bool_def("normalized", False),
    bool_def("onesided", True),
    operands=("data", "window"),
    rule=stft_type,
)


def trilu_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    p.integer("k")
    p.flag("upper")
    if data.get_num_dims() < 2:
        raise op.error(f"data must have rank 2 or more, got {fmt_shape(data.get_shape())}")
    return data


TriluOp = relay_op(
    "trilu",
    RelayOp,
    """The upper (or lower) triangle of the last two axes from diagonal k, zeros elsewhere.

    `%y = relay.trilu %x {k = 1 : i64, upper = false} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>`

    k is a property here (TVM takes a tensor): shapes and attributes are static.
    """,
    int_def("k", 0),
    bool_def("upper", True),
    rule=trilu_type,
    pattern=OpPattern.INJECTIVE,
)


# ---------------------------------------------------------------------------------------------
# Quantized operators (TVM's relay.qnn): integer tensors with a float scale and an int32 zero
# point per tensor (scalars) or per channel along `axis` (vectors), given as operands as TVM
# gives them. relay-qnn-canonicalize rewrites each into the ordinary ops above.


def qnn_params(op: type[RelayOp], pairs: Sequence[tuple[str, TensorType, TensorType]]) -> None:
    """Check (scale, zero point) operand pairs: float32 and int32 scalars or vectors."""
    for what, scale, zero_point in pairs:
        if scale.get_element_type() != f32 or scale.get_num_dims() > 1:
            raise op.error(f"{what} scale must be a float32 scalar or vector, got {scale}")
        if zero_point.get_element_type() != i32 or zero_point.get_num_dims() > 1:
            raise op.error(f"{what} zero point must be an int32 scalar or vector, got {zero_point}")


def quantized(op: type[RelayOp], typ: TensorType, what: str) -> None:
    elem = typ.get_element_type()
    if not isinstance(elem, IntegerType) or elem.width.data not in (8, 16, 32):
        raise op.error(f"{what} must be an 8, 16 or 32-bit integer tensor, got {typ}")


def quantize_type(
    op: type[RelayOp], p: Props, data: TensorType, scale: TensorType, zero_point: TensorType
) -> Attribute:
    if not is_float(data.get_element_type()):
        raise op.error(f"data must be a float tensor, got {data}")
    qnn_params(op, [("output", scale, zero_point)])
    out = TensorType(p.required("out_dtype"), data.get_shape())
    quantized(op, out, "out_dtype")
    return out


QuantizeOp = relay_op(
    "qnn.quantize",
    RelayOp,
    """Float to integer: clip(round(data / output_scale) + output_zero_point) in out_dtype.

    `%q = relay.qnn.quantize %x, %s, %z {out_dtype = i8}
        : (tensor<4xf32>, tensor<f32>, tensor<i32>) -> tensor<4xi8>`
    """,
    int_def("axis", -1),
    dtype_def("out_dtype", IntegerType, "int8"),
    operands=("data", "output_scale", "output_zero_point"),
    rule=quantize_type,
    class_name="QuantizeOp",
)


def dequantize_type(
    op: type[RelayOp], p: Props, data: TensorType, scale: TensorType, zero_point: TensorType
) -> Attribute:
    quantized(op, data, "data")
    qnn_params(op, [("input", scale, zero_point)])
    return TensorType(f32, data.get_shape())


DequantizeOp = relay_op(
    "qnn.dequantize",
    RelayOp,
    """Integer to float: (data - input_zero_point) * input_scale.

    `%x = relay.qnn.dequantize %q, %s, %z
        : (tensor<4xi8>, tensor<f32>, tensor<i32>) -> tensor<4xf32>`
    """,
    int_def("axis", -1),
    operands=("data", "input_scale", "input_zero_point"),
    rule=dequantize_type,
    class_name="DequantizeOp",
)


def requantize_type(
    op: type[RelayOp],
    p: Props,
    data: TensorType,
    input_scale: TensorType,
    input_zero_point: TensorType,
    output_scale: TensorType,
    output_zero_point: TensorType,
) -> Attribute:
    quantized(op, data, "data")
    qnn_params(op, [("input", input_scale, input_zero_point)])
    qnn_params(op, [("output", output_scale, output_zero_point)])
    rounding = p.required("rounding")
    assert isinstance(rounding, StringAttr)
    if rounding.data not in ("None", "UPWARD", "TONEAREST"):
        raise op.error(f"rounding must be UPWARD or TONEAREST, got {rounding.data}")
    out = TensorType(p.required("out_dtype"), data.get_shape())
    quantized(op, out, "out_dtype")
    return out


RequantizeOp = relay_op(
    "qnn.requantize",
    RelayOp,
    """An integer tensor from one (scale, zero point) to another, rounding as `rounding` says
    (UPWARD: halves up, the default; TONEAREST: halves away from zero).

    `%r = relay.qnn.requantize %q, %s, %z, %s2, %z2 {out_dtype = i8}
        : (tensor<4xi32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<4xi8>`
    """,
    int_def("axis", -1),
    str_def("rounding", "None"),
    str_def("compute_dtype", "None"),
    dtype_def("out_dtype", IntegerType, "int8"),
    operands=(
        "data",
        "input_scale",
        "input_zero_point",
        "output_scale",
        "output_zero_point",
    ),
    rule=requantize_type,
    class_name="RequantizeOp",
)


def qnn_binary_type(
    op: type[RelayOp],
    p: Props,
    lhs: TensorType,
    rhs: TensorType,
    lhs_scale: TensorType,
    lhs_zero_point: TensorType,
    rhs_scale: TensorType,
    rhs_zero_point: TensorType,
    output_scale: TensorType,
    output_zero_point: TensorType,
) -> Attribute:
    quantized(op, lhs, "lhs")
    qnn_params(
        op,
        [
            ("lhs", lhs_scale, lhs_zero_point),
            ("rhs", rhs_scale, rhs_zero_point),
            ("output", output_scale, output_zero_point),
        ],
    )
    return TensorType(lhs.get_element_type(), broadcast_shape(op, lhs, rhs))


class QnnBinaryOp(RelayOp, ABC):
    """A quantized elementwise op of two tensors of one integer type, each with its own scale
    and zero point, giving a tensor of that type in the output's."""

    OPERANDS: ClassVar[tuple[str, ...]] = (
        "lhs",
        "rhs",
        "lhs_scale",
        "lhs_zero_point",
        "rhs_scale",
        "rhs_zero_point",
        "output_scale",
        "output_zero_point",
    )
    ATTRS: ClassVar[tuple[AttrDef, ...]] = (int_def("lhs_axis", -1), int_def("rhs_axis", -1))
    RULE = staticmethod(qnn_binary_type)
    SYNTAX: ClassVar[str] = (
        "%y = relay.{name} %a, %b, %sa, %za, %sb, %zb, %s, %z : (tensor<4xi8>, tensor<4xi8>, "
        "tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) "
        "-> tensor<4xi8>"
    )


QnnAddOp = relay_op("qnn.add", QnnBinaryOp, "Quantized sum.", class_name="QnnAddOp")
QnnMulOp = relay_op("qnn.mul", QnnBinaryOp, "Quantized product.", class_name="QnnMulOp")


def qnn_product_type(
    rule: Callable[..., Attribute],
) -> Callable[..., Attribute]:
    """The type rule of a quantized conv2d or dense: the float op's shape, in out_dtype."""

    def typed(
        op: type[RelayOp],
        p: Props,
        data: TensorType,
        weight: TensorType,
        input_zero_point: TensorType,
        kernel_zero_point: TensorType,
        input_scale: TensorType,
        kernel_scale: TensorType,
    ) -> Attribute:
        quantized(op, data, "data")
        quantized(op, weight, "weight")
        qnn_params(
            op,
            [("input", input_scale, input_zero_point), ("kernel", kernel_scale, kernel_zero_point)],
        )
        shape = rule(op, p, data, TensorType(data.get_element_type(), weight.get_shape()))
        assert isinstance(shape, TensorType)
        out = TensorType(p.required("out_dtype"), shape.get_shape())
        quantized(op, out, "out_dtype")
        return out

    return typed


QNN_PRODUCT_OPERANDS = (
    "data",
    "weight",
    "input_zero_point",
    "kernel_zero_point",
    "input_scale",
    "kernel_scale",
)

QnnConv2dOp = relay_op(
    "qnn.conv2d",
    RelayOp,
    """2-d convolution of integer tensors less their zero points, accumulated in out_dtype.

    `%y = relay.qnn.conv2d %x, %w, %zx, %zw, %sx, %sw {out_dtype = i32} : (tensor<1x3x8x8xi8>,
        tensor<4x3x3x3xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>)
        -> tensor<1x4x6x6xi32>`
    """,
    *Conv2dOp.ATTRS,
    dtype_def("out_dtype", IntegerType, "int32"),
    operands=QNN_PRODUCT_OPERANDS,
    rule=qnn_product_type(conv2d_type),
    class_name="QnnConv2dOp",
)
QnnDenseOp = relay_op(
    "qnn.dense",
    RelayOp,
    """Fully connected layer of integer tensors less their zero points, accumulated in out_dtype.

    `%y = relay.qnn.dense %x, %w, %zx, %zw, %sx, %sw {out_dtype = i32} : (tensor<2x5xi8>,
        tensor<3x5xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<2x3xi32>`
    """,
    dtype_def("out_dtype", IntegerType, "int32"),
    operands=QNN_PRODUCT_OPERANDS,
    rule=qnn_product_type(dense_type),
    class_name="QnnDenseOp",
)


def qnn_concatenate_types(
    cls: type[RelayOp], operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
) -> list[Attribute]:
    """The type of a quantized concatenate: tuples of tensors, scales and zero points of one
    length, then the output's scale and zero point."""
    if len(operand_types) != 5:
        raise cls.error(f"takes 5 operands, got {len(operand_types)}")
    groups = []
    for what, typ in zip(
        ("data", "input_scales", "input_zero_points"), operand_types, strict=False
    ):
        if not isinstance(typ, TupleType) or not typ.types.data:
            raise cls.error(f"{what} must be a non-empty tuple of tensors, got {typ}")
        groups.append(cls.tensors(typ.types.data, [f"{what} {i}" for i in range(len(typ.types))]))
    data, scales, zero_points = groups
    if not len(data) == len(scales) == len(zero_points):
        raise cls.error(
            f"{len(data)} tensors, {len(scales)} scales and {len(zero_points)} zero points"
        )
    for i, tensor in enumerate(data):
        quantized(cls, tensor, f"data {i}")
    output = cls.tensors(operand_types[3:], ["output_scale", "output_zero_point"])
    pairs = [(f"input {i}", s, z) for i, (s, z) in enumerate(zip(scales, zero_points, strict=True))]
    qnn_params(cls, [*pairs, ("output", output[0], output[1])])
    return [concatenate_type(cls, cls.props(properties), data)]


QnnConcatenateOp = relay_op(
    "qnn.concatenate",
    RelayOp,
    """Quantized tensors joined along `axis`, each first requantized to the output's scale and
    zero point.

    `%y = relay.qnn.concatenate %t, %s, %z, %so, %zo {axis = 0 : i64}
        : (tuple<tensor<2xui8>, tensor<3xui8>>, tuple<tensor<f32>, tensor<f32>>,
        tuple<tensor<i32>, tensor<i32>>, tensor<f32>, tensor<i32>) -> tensor<5xui8>`
    """,
    int_def("axis", 0),
    operands=("data", "input_scales", "input_zero_points", "output_scale", "output_zero_point"),
    operand_types={"data": TupleType, "input_scales": TupleType, "input_zero_points": TupleType},
    class_name="QnnConcatenateOp",
    infer_result_types=classmethod(qnn_concatenate_types),
)

# ---------------------------------------------------------------------------------------------
# Vision (TVM's relay.vision, op level 5): anchors, box filtering and suppression, roi pooling


def float_tensor(op: type[RelayOp], typ: TensorType, what: str, rank: int) -> tuple[int, ...]:
    """The shape of a float operand of `rank` dimensions, or an error naming the op."""
    if typ.get_num_dims() != rank or not is_float(typ.get_element_type()):
        raise op.error(f"{what} must be a {rank}-d float tensor, got {typ}")
    return tuple(typ.get_shape())


def scalar_operand(op: type[RelayOp], typ: TensorType, what: str, integer: bool) -> None:
    """A 0-d (or one-element) operand of an integer or a float type."""
    kind = is_int(typ.get_element_type()) if integer else is_float(typ.get_element_type())
    if math.prod(typ.get_shape()) != 1 or not kind:
        want = "an integer" if integer else "a float"
        raise op.error(f"{what} must be a scalar of {want} type, got {typ}")


def multibox_prior_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    sizes, ratios = p.floats("sizes"), p.floats("ratios")
    if not sizes or not ratios or any(v <= 0 for v in (*sizes, *ratios)):
        raise op.error(f"sizes and ratios must be positive and non-empty, got {sizes}, {ratios}")
    for name in ("steps", "offsets"):
        if len(p.floats(name)) != 2:
            raise op.error(f"{name} must have 2 values (height, width), got {p.floats(name)}")
    p.flag("clip")
    _, _, h, w = float_tensor(op, data, "data", 4)
    return TensorType(data.get_element_type(), [1, h * w * (len(sizes) + len(ratios) - 1), 4])


MultiboxPriorOp = relay_op(
    "vision.multibox_prior",
    RelayOp,
    """SSD's prior (anchor) boxes of a feature map: for each pixel, one box per size at the
    first ratio and one per further ratio at the first size, as (left, top, right, bottom)
    normalised to [0, 1] (clipped when clip).

    `%y = relay.vision.multibox_prior %x {sizes = array<f64: 0.5>}
        : (tensor<1x3x4x4xf32>) -> tensor<1x16x4xf32>`
    """,
    floats_def("sizes", (1.0,)),
    floats_def("ratios", (1.0,)),
    floats_def("steps", (-1.0, -1.0)),
    floats_def("offsets", (0.5, 0.5)),
    bool_def("clip", False),
    rule=multibox_prior_type,
    pattern=OpPattern.OPAQUE,
)


def yolo_reorg_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    stride = p.integer("stride")
    if data.get_num_dims() != 4:
        raise op.error(f"data must be 4-d (NCHW), got {data}")
    n, c, h, w = data.get_shape()
    if (
        stride < 1
        or any(d % stride for d in (h, w) if d != DYNAMIC_INDEX)
        or (c != DYNAMIC_INDEX and c % (stride * stride))
    ):
        raise op.error(
            f"stride {stride} must be positive, its square must divide the {c} channels and "
            f"it must divide height and width {h}x{w}"
        )

    def scaled(d: int, factor: int, divide: bool) -> int:
        if d == DYNAMIC_INDEX:
            return DYNAMIC_INDEX
        return d // factor if divide else d * factor

    shape = [n, scaled(c, stride * stride, False), scaled(h, stride, True), scaled(w, stride, True)]
    return TensorType(data.get_element_type(), shape)


YoloReorgOp = relay_op(
    "vision.yolo_reorg",
    RelayOp,
    """YOLOv2's reorg: the data read as (n, c / stride^2, h * stride, w * stride) in row-major
    order is rearranged stride by stride into (n, c * stride^2, h / stride, w / stride) (the
    layer of darknet it comes from, not a depth_to_space).

    `%y = relay.vision.yolo_reorg %x {stride = 2 : i64} : (tensor<1x4x6x6xf32>)
        -> tensor<1x16x3x3xf32>`
    """,
    int_def("stride", 1),
    rule=yolo_reorg_type,
    pattern=OpPattern.INJECTIVE,
)


def roi_type(op: type[RelayOp], p: Props, data: TensorType, rois: TensorType) -> Attribute:
    """roi_align and roi_pool: one pooled_size map per region of interest."""
    _, h_axis, w_axis = spatial_axes(op, p.choice("layout", ("NCHW", "NHWC")))
    pooled = p.positive("pooled_size", 2)
    if p.number("spatial_scale") <= 0:
        raise op.error(f"spatial_scale must be positive, got {p.number('spatial_scale')}")
    float_tensor(op, data, "data", 4)
    count, fields = float_tensor(op, rois, "rois", 2)
    op.same_element([data, rois], ["data", "rois"])
    if fields != 5:
        raise op.error(f"rois must be (rois, 5): batch index, x1, y1, x2, y2, got {rois}")
    shape = list(data.get_shape())
    shape[0], shape[h_axis], shape[w_axis] = count, *pooled
    return TensorType(data.get_element_type(), shape)


def roi_pool_type(op: type[RelayOp], p: Props, data: TensorType, rois: TensorType) -> Attribute:
    p.choice("layout", ("NCHW",))
    return roi_type(op, p, data, rois)


def roi_align_type(op: type[RelayOp], p: Props, data: TensorType, rois: TensorType) -> Attribute:
    p.choice("mode", ("avg", "max"))
    p.integer("sample_ratio")
    p.flag("aligned")
    return roi_type(op, p, data, rois)


RoiAlignOp = relay_op(
    "vision.roi_align",
    RelayOp,
    """Region-of-interest align (Mask R-CNN): each region (batch index, x1, y1, x2, y2), scaled
    by spatial_scale, is cut into pooled_size bins; a bin averages (or takes the max of) its
    bilinear samples, sample_ratio per axis, or ceil(bin size) when sample_ratio <= 0. A
    region whose batch index is outside the batch pools to 0. aligned (an xtvm addition,
    ONNX's half_pixel) shifts the scaled corners by -0.5 pixel and keeps a region's size
    below one pixel, where TVM's raises it to 1.

    `%y = relay.vision.roi_align %x, %r {pooled_size = array<i64: 2, 2>, spatial_scale = 1.0
        : f64} : (tensor<1x3x8x8xf32>, tensor<4x5xf32>) -> tensor<4x3x2x2xf32>`
    """,
    ints_def("pooled_size"),
    float_def("spatial_scale"),
    int_def("sample_ratio", -1),
    str_def("layout", "NCHW"),
    str_def("mode", "avg"),
    bool_def("aligned", False),
    operands=("data", "rois"),
    rule=roi_align_type,
    pattern=OpPattern.OPAQUE,
)


RoiPoolOp = relay_op(
    "vision.roi_pool",
    RelayOp,
    """Region-of-interest max pooling (Fast R-CNN): each region (batch index, x1, y1, x2, y2),
    scaled by spatial_scale and rounded, is cut into pooled_size bins; a bin is the max of its
    pixels (0 when it holds none). A region whose batch index is outside the batch pools to 0.

    `%y = relay.vision.roi_pool %x, %r {pooled_size = array<i64: 2, 2>, spatial_scale = 1.0
        : f64} : (tensor<1x3x8x8xf32>, tensor<4x5xf32>) -> tensor<4x3x2x2xf32>`
    """,
    ints_def("pooled_size"),
    float_def("spatial_scale"),
    str_def("layout", "NCHW"),
    operands=("data", "rois"),
    rule=roi_pool_type,
    pattern=OpPattern.OPAQUE,
)


def box_fields(op: type[RelayOp], p: Props, elements: int, names: Sequence[str]) -> None:
    """Each index property among `names` is -1 (absent, where allowed) or in [0, elements)."""
    for name in names:
        index = p.integer(name)
        low = -1 if name == "id_index" else 0
        if not low <= index < elements:
            raise op.error(f"{name} {index} is out of range for boxes of {elements} values")


def get_valid_counts_type(op: type[RelayOp], p: Props, data: TensorType) -> Attribute:
    batch, anchors, elements = float_tensor(op, data, "data", 3)
    box_fields(op, p, elements, ("id_index", "score_index"))
    p.number("score_threshold")
    return TupleType(
        (
            TensorType(i32, [batch]),
            data,
            TensorType(i32, [batch, anchors]),
        )
    )


GetValidCountsOp = relay_op(
    "vision.get_valid_counts",
    RelayOp,
    """Boxes whose score exceeds score_threshold (and whose class id, when id_index >= 0, is
    not negative), moved to the front in order: a tuple (count per batch, the boxes with -1
    after the valid ones, their indices in the input with -1 after them).

    `%t = relay.vision.get_valid_counts %x {score_threshold = 0.5 : f64}
        : (tensor<1x4x6xf32>) -> tuple<tensor<1xi32>, tensor<1x4x6xf32>, tensor<1x4xi32>>`

    score_threshold is a property (TVM takes a tensor; a constant one converts).
    """,
    float_def("score_threshold"),
    int_def("id_index", 0),
    int_def("score_index", 1),
    result=TupleType,
    rule=get_valid_counts_type,
    pattern=OpPattern.OPAQUE,
)


def nms_type(
    op: type[RelayOp],
    p: Props,
    data: TensorType,
    valid_count: TensorType,
    indices: TensorType,
    max_output_size: TensorType,
    iou_threshold: TensorType,
) -> Attribute:
    batch, anchors, elements = float_tensor(op, data, "data", 3)
    box_fields(op, p, elements, ("id_index", "score_index"))
    if not 0 <= p.integer("coord_start") <= elements - 4:
        raise op.error(f"coord_start {p.integer('coord_start')} leaves no 4 coordinates")
    p.integer("top_k")
    p.flag("force_suppress")
    p.flag("invalid_to_bottom")
    if index_tensor(op, valid_count, "valid_count") != (batch,):
        raise op.error(f"valid_count must have shape ({batch}), got {valid_count}")
    # indices are read only for return_indices (TVM's type relation does not check them)
    if p.flag("return_indices") and index_tensor(op, indices, "indices") != (batch, anchors):
        raise op.error(f"indices must have shape ({batch}x{anchors}), got {indices}")
    scalar_operand(op, max_output_size, "max_output_size", integer=True)
    scalar_operand(op, iou_threshold, "iou_threshold", integer=False)
    if not p.flag("return_indices"):
        return data
    return TupleType((TensorType(i32, [batch, anchors]), TensorType(i32, [batch, 1])))


NonMaxSuppressionOp = relay_op(
    "vision.non_max_suppression",
    RelayOp,
    """Greedy non-maximum suppression per batch, as TVM's: the first valid_count boxes by
    descending score (the top_k best when top_k > 0); a box scoring above 0 is kept unless
    its IoU with a kept box of its class (any class when force_suppress) reaches
    iou_threshold, and none past max_output_size (all when negative). With return_indices,
    a tuple (the kept boxes' entries of indices, then -1; their count); else the boxes in
    score order, the dropped ones -1 (moved to the end when invalid_to_bottom).

    `%y = relay.vision.non_max_suppression %x, %v, %i, %m, %t {return_indices = false}
        : (tensor<1x4x6xf32>, tensor<1xi32>, tensor<1x4xi32>, tensor<i32>, tensor<f32>)
        -> tensor<1x4x6xf32>`
    """,
    bool_def("force_suppress", False),
    int_def("top_k", -1),
    int_def("coord_start", 2),
    int_def("score_index", 1),
    int_def("id_index", 0),
    bool_def("return_indices", True),
    bool_def("invalid_to_bottom", False),
    operands=("data", "valid_count", "indices", "max_output_size", "iou_threshold"),
    result=Attribute,
    rule=nms_type,
    pattern=OpPattern.OPAQUE,
)


def all_class_nms_type(
    op: type[RelayOp],
    p: Props,
    boxes: TensorType,
    scores: TensorType,
    max_output_boxes_per_class: TensorType,
    iou_threshold: TensorType,
    score_threshold: TensorType,
) -> Attribute:
    batch, count, corners = float_tensor(op, boxes, "boxes", 3)
    if corners != 4:
        raise op.error(f"boxes must be (batch, boxes, 4), got {boxes}")
    s_batch, classes, s_count = float_tensor(op, scores, "scores", 3)
    if (s_batch, s_count) != (batch, count):
        raise op.error(f"scores must be ({batch}, classes, {count}), got {scores}")
    scalar_operand(op, max_output_boxes_per_class, "max_output_boxes_per_class", integer=True)
    scalar_operand(op, iou_threshold, "iou_threshold", integer=False)
    scalar_operand(op, score_threshold, "score_threshold", integer=False)
    if p.choice("output_format", ("onnx", "tensorflow")) == "onnx":
        return TupleType((TensorType(i64, [batch * classes * count, 3]), TensorType(i64, [1])))
    return TupleType(
        (
            TensorType(i64, [batch, classes * count, 2]),
            TensorType(scores.get_element_type(), [batch, classes * count]),
            TensorType(i64, [batch]),
        )
    )


AllClassNonMaxSuppressionOp = relay_op(
    "vision.all_class_non_max_suppression",
    RelayOp,
    """Non-maximum suppression of each class apart (ONNX NonMaxSuppression, TensorFlow's
    combined_non_max_suppression): boxes (y1, x1, y2, x2) scoring above score_threshold, best
    first, each dropped when its IoU with a kept box reaches iou_threshold, at most
    max_output_boxes_per_class kept per class. "onnx" format: rows (batch, class, box), the
    first count of them valid; "tensorflow": per batch (class, box) rows, their scores, count.

    `%y = relay.vision.all_class_non_max_suppression %b, %s, %m, %i, %t
        : (tensor<1x5x4xf32>, tensor<1x2x5xf32>, tensor<i32>, tensor<f32>, tensor<f32>)
        -> tuple<tensor<10x3xi64>, tensor<1xi64>>`
    """,
    str_def("output_format", "onnx"),
    operands=(
        "boxes",
        "scores",
        "max_output_boxes_per_class",
        "iou_threshold",
        "score_threshold",
    ),
    result=TupleType,
    rule=all_class_nms_type,
    pattern=OpPattern.OPAQUE,
)


def multibox_transform_loc_type(
    op: type[RelayOp], p: Props, cls_prob: TensorType, loc_pred: TensorType, anchor: TensorType
) -> Attribute:
    batch, _, anchors = float_tensor(op, cls_prob, "cls_prob", 3)
    float_tensor(op, loc_pred, "loc_pred", 2)
    float_tensor(op, anchor, "anchor", 3)
    op.same_element([cls_prob, loc_pred, anchor], op.OPERANDS)
    if tuple(anchor.get_shape())[1:] != (anchors, 4) or anchors < 1:
        raise op.error(f"anchor must be (1, {anchors}, 4) for {anchors} anchors, got {anchor}")
    if tuple(loc_pred.get_shape()) != (batch, anchors * 4):
        raise op.error(f"loc_pred must be ({batch}, {anchors * 4}), got {loc_pred}")
    if len(p.floats("variances")) != 4:
        raise op.error(f"variances must have 4 values, got {p.floats('variances')}")
    p.flag("clip")
    p.number("threshold")
    return TupleType(
        (TensorType(cls_prob.get_element_type(), [batch, anchors, 6]), TensorType(i32, [batch]))
    )


MultiboxTransformLocOp = relay_op(
    "vision.multibox_transform_loc",
    RelayOp,
    """SSD's box decoding: for each anchor, its best class but the background (class 0) of
    cls_prob (batch, classes, anchors), kept when its probability reaches threshold, as a row
    (class - 1, probability, x1, y1, x2, y2) of the anchor moved by loc_pred scaled by
    variances (clipped to [0, 1] when clip); a tuple (the rows in anchor order then -1 rows,
    their count per batch).

    `%t = relay.vision.multibox_transform_loc %c, %l, %a
        : (tensor<1x3x5xf32>, tensor<1x20xf32>, tensor<1x5x4xf32>)
        -> tuple<tensor<1x5x6xf32>, tensor<1xi32>>`
    """,
    bool_def("clip", True),
    float_def("threshold", 0.01),
    floats_def("variances", (0.1, 0.1, 0.2, 0.2)),
    operands=("cls_prob", "loc_pred", "anchor"),
    result=TupleType,
    rule=multibox_transform_loc_type,
    pattern=OpPattern.OPAQUE,
)


def proposal_type(
    op: type[RelayOp], p: Props, cls_prob: TensorType, bbox_pred: TensorType, im_info: TensorType
) -> Attribute:
    scales, ratios = p.floats("scales"), p.floats("ratios")
    if not scales or not ratios or any(v <= 0 for v in (*scales, *ratios)):
        raise op.error(f"scales and ratios must be positive and non-empty, got {scales}, {ratios}")
    for name in ("feature_stride", "rpn_post_nms_top_n"):
        if p.integer(name) < 1:
            raise op.error(f"{name} must be positive, got {p.integer(name)}")
    p.integer("rpn_pre_nms_top_n")
    p.integer("rpn_min_size")
    p.number("threshold")
    p.flag("iou_loss")
    batch, channels, h, w = float_tensor(op, cls_prob, "cls_prob", 4)
    anchors = len(scales) * len(ratios)
    if channels != 2 * anchors:
        raise op.error(
            f"cls_prob must have 2 x {anchors} anchors (scales x ratios) channels, got {cls_prob}"
        )
    if tuple(float_tensor(op, bbox_pred, "bbox_pred", 4)) != (batch, 4 * anchors, h, w):
        raise op.error(f"bbox_pred must be ({batch}, {4 * anchors}, {h}, {w}), got {bbox_pred}")
    if tuple(float_tensor(op, im_info, "im_info", 2)) != (batch, 3):
        raise op.error(f"im_info must be ({batch}, 3): height, width, scale, got {im_info}")
    op.same_element([cls_prob, bbox_pred, im_info], op.OPERANDS)
    return TensorType(bbox_pred.get_element_type(), [batch * p.integer("rpn_post_nms_top_n"), 5])


ProposalOp = relay_op(
    "vision.proposal",
    RelayOp,
    """Faster R-CNN's region proposals: anchors (scales x ratios, feature_stride apart) moved
    by bbox_pred (or offset, iou_loss), clipped to the image of im_info (height, width,
    scale); one smaller than rpn_min_size x scale, or off the image's feature map, scores
    -1. The rpn_pre_nms_top_n best (all when <= 0) go through non-maximum suppression
    (IoU > threshold, +1 pixel areas); the survivors, repeated in order up to
    rpn_post_nms_top_n, are rows (batch index, x1, y1, x2, y2).

    `%y = relay.vision.proposal %c, %b, %i {scales = array<f64: 0.5>, ratios = array<f64:
        0.5>, rpn_post_nms_top_n = 4 : i64} : (tensor<1x2x3x3xf32>, tensor<1x4x3x3xf32>,
        tensor<1x3xf32>) -> tensor<4x5xf32>`
    """,
    floats_def("scales", (4.0, 8.0, 16.0, 32.0)),
    floats_def("ratios", (0.5, 1.0, 2.0)),
    int_def("feature_stride", 16),
    float_def("threshold", 0.7),
    int_def("rpn_pre_nms_top_n", 6000),
    int_def("rpn_post_nms_top_n", 300),
    int_def("rpn_min_size", 16),
    bool_def("iou_loss", False),
    operands=("cls_prob", "bbox_pred", "im_info"),
    rule=proposal_type,
    pattern=OpPattern.OPAQUE,
)


Relay = Dialect("relay", [ConstOp, ParamOp, TupleOp, TupleGetItemOp, *OPS], [])
