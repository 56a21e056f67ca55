"""TVM's attribute nodes of relay operators (`relay.attrs.Conv2DAttrs`, ...) as the Relay text
printer needs them: each field in the node's declaration order with its default, or none.

TVM's printer writes a call's attributes as the node's non-default visitor sees them: every
field in declaration order, leaving out those equal to their default; a field declared without
a default (`units` of dense, `pool_size` of a pool, `axes` of transpose) is always written, as
`None` when unset. What a builder was given is normalised as TVM's Python builder normalises
it before making the node (an int stride becomes a pair, 2-d padding four numbers), so that
`relay.nn.conv2d(x, w)` prints `padding=[0, 0, 0, 0]` as TVM does.

An op without a row here prints the attributes xtvm keeps, leaving out its builder's defaults.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


class Required:
    """The default of a field TVM declares without one: it is always printed."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED = Required()


@dataclass(frozen=True)
class Field:
    """One field: its name, TVM's default, and how TVM's builder widens an int given for it
    (`n`: to n copies; `"pad1d"` / `"pad2d"` / `"pad3d"`: as TVM's get_pad_tuple1d / 2d / 3d)."""

    name: str
    default: object = REQUIRED
    widen: int | str = 0


PAD_WIDEN = {1: "pad1d", 2: "pad2d", 3: "pad3d"}


def _conv(dims: int, data_layout: str, kernel_layout: str) -> tuple[Field, ...]:
    """Conv1DAttrs / Conv2DAttrs / Conv3DAttrs."""
    ones = (1,) * dims
    return (
        Field("strides", ones, dims),
        Field("padding", (0, 0) if dims == 2 else (0,) * dims, PAD_WIDEN[dims]),
        Field("dilation", ones, dims),
        Field("groups", 1),
        Field("channels", None),
        Field("kernel_size", None, dims),
        Field("data_layout", data_layout),
        Field("kernel_layout", kernel_layout),
        Field("out_layout", ""),
        Field("out_dtype", ""),
    )


def _conv_transpose(dims: int, data_layout: str, kernel_layout: str) -> tuple[Field, ...]:
    """Conv{1,2,3}DTransposeAttrs; TVM's conv1d_transpose builder passes padding as given."""
    ones, zeros = (1,) * dims, (0,) * dims
    return (
        Field("channels", None),
        Field("kernel_size", None, dims),
        Field("strides", ones, dims),
        Field("output_padding", zeros, dims),
        Field("padding", zeros, PAD_WIDEN[dims] if dims > 1 else 0),
        Field("dilation", ones, dims),
        Field("groups", 1),
        Field("data_layout", data_layout),
        Field("kernel_layout", kernel_layout),
        Field("out_layout", ""),
        Field("out_dtype", ""),
    )


def _pool(dims: int, layout: str, average: bool) -> tuple[Field, ...]:
    """Max/AvgPool{1,2,3}DAttrs: pool_size has no default."""
    ones = (1,) * dims
    fields = [
        Field("pool_size", REQUIRED, dims),
        Field("strides", ones, dims),
        Field("dilation", ones, dims),
        Field("padding", (0,) * dims, PAD_WIDEN[dims]),
        Field("layout", layout),
        Field("out_layout", ""),
        Field("ceil_mode", False),
    ]
    if average:
        fields.append(Field("count_include_pad", False))
    return tuple(fields)


TVM_ATTRS: dict[str, tuple[Field, ...]] = {
    "nn.conv1d": _conv(1, "NCW", "OIW"),
    "nn.conv2d": _conv(2, "NCHW", "OIHW"),
    "nn.conv3d": _conv(3, "NCDHW", "OIDHW"),
    "nn.conv1d_transpose": _conv_transpose(1, "NCW", "IOW"),
    "nn.conv2d_transpose": _conv_transpose(2, "NCHW", "IOHW"),
    "nn.conv3d_transpose": _conv_transpose(3, "NCDHW", "IODHW"),
    "nn.max_pool1d": _pool(1, "NCW", False),
    "nn.avg_pool1d": _pool(1, "NCW", True),
    "nn.max_pool2d": _pool(2, "NCHW", False),
    "nn.avg_pool2d": _pool(2, "NCHW", True),
    "nn.max_pool3d": _pool(3, "NCDHW", False),
    "nn.avg_pool3d": _pool(3, "NCDHW", True),
    "nn.dense": (Field("units"), Field("out_dtype", "")),
    "nn.matmul": (
        Field("units"),
        Field("out_dtype", ""),
        Field("transpose_a", False),
        Field("transpose_b", False),
    ),
    "nn.batch_matmul": (
        Field("out_dtype", ""),
        Field("transpose_a", False),
        Field("transpose_b", True),
    ),
    "transpose": (Field("axes"),),
}


def widened(field: Field, value: object) -> object:
    """`value` as TVM's Python builder passes it on for `field`."""
    if isinstance(value, list):
        value = tuple(value)
    if field.widen == "pad2d":
        values = (value,) if isinstance(value, int) else tuple(value)  # type: ignore[arg-type]
        if len(values) == 1:
            return values * 4
        return values * 2 if len(values) == 2 else values
    if field.widen == "pad3d":
        values = (value,) if isinstance(value, int) else tuple(value)  # type: ignore[arg-type]
        if len(values) == 1:
            return values * 6
        return values * 2 if len(values) == 3 else values
    if field.widen == "pad1d":
        values = (value,) if isinstance(value, int) else tuple(value)  # type: ignore[arg-type]
        return values * 2 if len(values) == 1 else values
    if isinstance(field.widen, int) and field.widen and isinstance(value, int):
        return (value,) * field.widen
    return value


def normalised(op_name: str, given: Mapping[str, Any]) -> dict[str, Any] | None:
    """The attribute node TVM makes for a call of `op_name` from its builder's arguments
    `given` (defaults applied), or None for an op without a row."""
    fields = TVM_ATTRS.get(op_name)
    if fields is None:
        return None
    out: dict[str, Any] = {}
    for field in fields:
        value = given.get(field.name, None if field.default is REQUIRED else field.default)
        if field.name == "out_dtype" and value is None:
            value = ""
        out[field.name] = widened(field, value)
    return out


def same(a: object, b: object) -> bool:
    """TVM's structural equality of two attribute values (a list equals a tuple)."""
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return isinstance(a, bool) == isinstance(b, bool) and a == b


def printed(op_name: str, values: Mapping[str, Any]) -> list[tuple[str, Any]] | None:
    """The fields of `op_name`'s node TVM's printer writes, in order, from its `values`:
    those without a default, and those that differ from it; None for an op without a row."""
    fields = TVM_ATTRS.get(op_name)
    if fields is None:
        return None
    out = []
    for field in fields:
        value = values.get(field.name, None if field.default is REQUIRED else field.default)
        if field.default is REQUIRED or not same(value, field.default):
            out.append((field.name, value))
    return out


def recording(op_name: str, signature: Callable[..., Any] | None = None) -> Callable[..., Any]:
    """Decorate the builder of `op_name`'s calls: the call it makes keeps the node TVM would
    make (`Call.tvm_attrs`), for the printer. Its non-expression arguments are the attributes."""

    def decorate(builder: Callable[..., Any]) -> Callable[..., Any]:
        sig = inspect.signature(signature or builder)

        @functools.wraps(builder)
        def build(*args: Any, **kwargs: Any) -> Any:
            call = builder(*args, **kwargs)
            op = getattr(call, "op", None)
            if getattr(op, "name", None) == op_name:
                bound = sig.bind(*args, **kwargs)
                bound.apply_defaults()
                attrs = normalised(op_name, bound.arguments)
                if attrs is not None:
                    call.tvm_attrs = attrs
            return call

        return build

    return decorate


def attr_names(op_name: str) -> Sequence[str]:
    """The names of `op_name`'s TVM fields, in order (none for an op without a row)."""
    return [f.name for f in TVM_ATTRS.get(op_name, ())]
