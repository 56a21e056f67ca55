"""What an ONNX converter sees of the import: one node, its inputs, and a place to emit ops.

A tensor of the graph is either a relay value (an `SSAValue`) or, when it is known at import
time (an initializer, a Constant, a chain folded with numpy), a numpy array. Converters read
constants with `const(i)` to turn shape-like inputs into attributes, and `value(i)` to get any
input as a relay value: an initializer becomes a `relay.param` by reference, another constant a
`relay.const` (small) or a param (large), materialized once and shared.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass, field
from typing import TypeAlias

import numpy as np
import onnx
from onnx import helper
from xdsl.dialects.builtin import NameLoc, NoneAttr, StringAttr, TensorType
from xdsl.ir import Block, Operation, SSAValue

from xtvm.dialects import relay
from xtvm.frontends.onnx.tensors import tensor_array
from xtvm.ir.numpy_types import element_type, numpy_dtype

Tensor: TypeAlias = SSAValue | np.ndarray
# A converter returns one entry per node output: a value, a constant, or None (not produced).
Converter = Callable[["NodeContext"], Sequence["Tensor | Operation | None"]]

# Constants with at most this many elements are inlined as relay.const, larger ones are params.
INLINE_LIMIT = 16
# Nodes on constants are evaluated at import when their outputs have at most this many
# elements (relay-fold-constant's default max-elements); larger ones stay ops, run at run time.
FOLD_LIMIT = 1 << 20


class ConversionError(Exception):
    """Raised by a converter for a node it cannot convert; the importer adds the node's name."""

    def __init__(self, message: str, needs_static: str | None = None) -> None:
        super().__init__(message)
        self.needs_static = needs_static


@dataclass
class GraphState:
    """The import of one graph: the block being filled, known tensors and params."""

    block: Block
    opset: int
    env: dict[str, Tensor] = field(default_factory=dict)
    params: dict[str, np.ndarray] = field(default_factory=dict)
    initializers: set[str] = field(default_factory=set)
    materialized: dict[str, SSAValue] = field(default_factory=dict)
    input_names: set[str] = field(default_factory=set)  # graph inputs (arguments of @main)
    fold_limit: int = FOLD_LIMIT

    def emit(self, op: Operation, location: str | None = None) -> Operation:
        if location:
            op.location = NameLoc(StringAttr(location), NoneAttr())
        self.block.add_op(op)
        return op

    def materialize(self, name: str, value: np.ndarray) -> SSAValue:
        """The relay value of constant tensor `name`, created on first use."""
        if name in self.materialized:
            return self.materialized[name]
        if name in self.initializers or value.size > INLINE_LIMIT:
            param = unique_param_name(name, self.params, self.input_names)
            self.params[param] = value
            op = relay.ParamOp(param, TensorType(element_type(value.dtype), value.shape))
        else:
            op = relay.ConstOp(np.array(value))
        result = self.emit(op).results[0]
        self.materialized[name] = result
        return result


def unique_param_name(name: str, *taken: Container[str]) -> str:
    """`name`, or `name_<i>` for the first i that makes it in none of `taken`."""

    def used(n: str) -> bool:
        return any(n in t for t in taken)

    if not used(name):
        return name
    i = 1
    while used(f"{name}_{i}"):
        i += 1
    return f"{name}_{i}"


@dataclass
class NodeContext:
    """One node being converted: attributes with defaults, inputs as values or constants."""

    node: onnx.NodeProto
    state: GraphState
    attrs: dict[str, object]
    counter: list[int] = field(default_factory=lambda: [0])

    @property
    def opset(self) -> int:
        return self.state.opset

    @property
    def op_type(self) -> str:
        return self.node.op_type

    @property
    def num_inputs(self) -> int:
        return len(self.node.input)

    @property
    def num_outputs(self) -> int:
        return len(self.node.output)

    def wants_output(self, i: int) -> bool:
        return i < len(self.node.output) and self.node.output[i] != ""

    def has(self, i: int) -> bool:
        """Whether optional input `i` is given (present and not the empty name)."""
        return i < len(self.node.input) and self.node.input[i] != ""

    def tensor(self, i: int) -> Tensor:
        if not self.has(i):
            raise ConversionError(f"input {i} is required")
        return self.state.env[self.node.input[i]]

    def const(self, i: int) -> np.ndarray | None:
        """Input `i` as a numpy array when it is known at import time, else None."""
        if not self.has(i):
            return None
        t = self.state.env[self.node.input[i]]
        return t if isinstance(t, np.ndarray) else None

    def static(self, i: int, what: str) -> np.ndarray:
        """Input `i`, which must be known at import time (shapes, axes, pads...)."""
        value = self.const(i)
        if value is None:
            raise ConversionError(
                f"input {i} ({what}) must be known at import time (an initializer or a "
                "constant expression); dynamic values are not supported",
                needs_static=self.node.input[i],
            )
        return value

    def value(self, i: int) -> SSAValue:
        """Input `i` as a relay value (constants are materialized once)."""
        t = self.tensor(i)
        if isinstance(t, SSAValue):
            return t
        return self.state.materialize(self.node.input[i], t)

    def values(self) -> list[SSAValue]:
        return [self.value(i) for i in range(self.num_inputs) if self.has(i)]

    def lift(self, value: np.ndarray) -> SSAValue:
        """A relay value for a constant computed by the converter itself."""
        self.counter[0] += 1
        base = self.node.output[0] if self.node.output else self.op_type
        return self.state.materialize(f"{base}__const{self.counter[0]}", np.asarray(value))

    def shape(self, i: int) -> tuple[int, ...]:
        t = self.tensor(i)
        if isinstance(t, np.ndarray):
            return tuple(t.shape)
        typ = t.type
        assert isinstance(typ, TensorType)
        return tuple(typ.get_shape())

    def dtype(self, i: int) -> np.dtype:
        t = self.tensor(i)
        if isinstance(t, np.ndarray):
            return t.dtype
        typ = t.type
        assert isinstance(typ, TensorType)
        return numpy_dtype(typ.get_element_type())

    def rank(self, i: int) -> int:
        return len(self.shape(i))

    def attr(self, name: str, default: object = None) -> object:
        return self.attrs.get(name, default)

    def int_attr(self, name: str, default: int) -> int:
        value = self.attrs.get(name, default)
        if not isinstance(value, int):
            raise ConversionError(f"attribute '{name}' must be an integer, got {value!r}")
        return value

    def float_attr(self, name: str, default: float) -> float:
        value = self.attrs.get(name, default)
        if not isinstance(value, int | float):
            raise ConversionError(f"attribute '{name}' must be a float, got {value!r}")
        return float(value)

    def ints_attr(self, name: str, default: Sequence[int] | None = None) -> list[int] | None:
        value = self.attrs.get(name, default)
        if value is None:
            return None
        if not isinstance(value, list | tuple) or not all(isinstance(v, int) for v in value):
            raise ConversionError(f"attribute '{name}' must be a list of integers, got {value!r}")
        return [int(v) for v in value]

    def str_attr(self, name: str, default: str) -> str:
        value = self.attrs.get(name, default)
        if isinstance(value, bytes):
            value = value.decode()
        if not isinstance(value, str):
            raise ConversionError(f"attribute '{name}' must be a string, got {value!r}")
        return value

    def emit(self, op: Operation) -> SSAValue:
        """Append `op` (single result) to the function and return its result."""
        self.state.emit(op, self.node.name or (self.node.output[0] if self.node.output else None))
        return op.results[0]


def attribute_values(node: onnx.NodeProto) -> dict[str, object]:
    """The node's attributes as Python values (strings decoded, tensors as numpy, their size
    checked against their data first)."""
    out: dict[str, object] = {}
    for a in node.attribute:
        value = helper.get_attribute_value(a)
        if isinstance(value, bytes):
            value = value.decode()
        elif isinstance(value, onnx.TensorProto):
            value = tensor_array(value, f"attribute '{a.name}'")
        elif isinstance(value, list) and value and isinstance(value[0], bytes):
            value = [v.decode() for v in value]
        out[a.name] = value
    return out
