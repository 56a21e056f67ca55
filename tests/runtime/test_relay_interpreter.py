"""The relay reference interpreter against numpy references written independently here.

Every case builds a function, verifies it, prints it and reads it back with xDSL's parser, and
evaluates the text that was read back, so the numbers also check that the syntax round trip
keeps the ops' properties.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from io import StringIO
from itertools import product

import numpy as np
import pytest
from xdsl.builder import ImplicitBuilder
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    Builtin,
    FileLineColLoc,
    IntAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    TensorType,
    TupleType,
    f32,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def
from xdsl.parser import Parser
from xdsl.printer import Printer

from xtvm.dialects import relay
from xtvm.dialects.relay import Relay
from xtvm.ir import winograd
from xtvm.ir.numpy_types import numpy_dtype
from xtvm.runtime.relay_interpreter import (
    RULES,
    ArgumentError,
    RelayInterpreterError,
    UnsupportedOpError,
    evaluate,
)
from xtvm.topi import testing as topi_testing

RNG = np.random.default_rng(20240611)


def rand(*shape: int, dtype: str = "float32", low: float = -2.0, high: float = 2.0) -> np.ndarray:
    if np.dtype(dtype).kind in "iu":
        return RNG.integers(int(low), int(high) + 1, size=shape).astype(dtype)
    if np.dtype(dtype) == np.bool_:
        return RNG.random(shape) < 0.5
    return RNG.uniform(low, high, size=shape).astype(dtype)


def tensor_type(array: np.ndarray) -> TensorType:
    return TensorType(relay.element_type(array.dtype), array.shape)


def build(arg_types: Sequence[Attribute], body: Callable[..., Operation]) -> ModuleOp:
    block = Block(arg_types=arg_types)
    for i, arg in enumerate(block.args):
        arg.name_hint = f"a{i}"
    with ImplicitBuilder(block) as args:
        op = body(*args)
        func.ReturnOp(*op.results)
    ftype = (list(arg_types), [r.type for r in op.results])
    return ModuleOp([func.FuncOp("main", ftype, Region(block))])


def context() -> Context:
    ctx = Context()
    for dialect in (Builtin, func.Func, Relay):
        ctx.load_dialect(dialect)
    return ctx


def round_trip(module: ModuleOp) -> ModuleOp:
    module.verify()
    stream = StringIO()
    Printer(stream=stream).print_op(module)
    reparsed = Parser(context(), stream.getvalue()).parse_module()
    reparsed.verify()
    return reparsed


@dataclass
class Case:
    """An op on `inputs`, and what numpy says it computes."""

    id: str
    inputs: list[np.ndarray]
    body: Callable[..., Operation]
    reference: Callable[..., np.ndarray | tuple[np.ndarray, ...]]
    tol: float = 1e-5
    params: dict[str, np.ndarray] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------
# Independent references: direct loops over the definitions, small shapes only


def stft_ref(x: np.ndarray, w: np.ndarray, n_fft: int, hop: int, win: int) -> np.ndarray:
    """TVM's kernel, loop by loop: onesided, normalized, the angle over win_length."""
    frames = (x.shape[-1] - n_fft) // hop + 1
    out = np.zeros((x.shape[0], n_fft // 2 + 1, frames, 2))
    for b, r, f, k in np.ndindex(*out.shape[:3], win):
        value = w[k] * x[b, f * hop + k]
        out[b, r, f, 0] += value * math.cos(2 * math.pi * r * k / win) / math.sqrt(n_fft)
        out[b, r, f, 1] -= value * math.sin(2 * math.pi * r * k / win) / math.sqrt(n_fft)
    return out


def dilation2d_ref(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The NHWC/HWI case above, strides (2, 1), padding (1, 0, 0, 1), dilations 2: zero
    padding, as TVM pads."""
    xp = np.pad(x, [(0, 0), (1, 0), (0, 1), (0, 0)])
    oh, ow = (xp.shape[1] - 3) // 2 + 1, xp.shape[2] - 3 + 1
    out = np.empty((1, oh, ow, x.shape[3]), x.dtype)
    for i, j, c in np.ndindex(oh, ow, x.shape[3]):
        out[0, i, j, c] = max(
            xp[0, 2 * i + 2 * a, j + 2 * b, c] + w[a, b, c] for a in range(2) for b in range(2)
        )
    return out


def conv2d_ref(
    x: np.ndarray,
    w: np.ndarray,
    strides: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    dilation: Sequence[int] = (1, 1),
    groups: int = 1,
) -> np.ndarray:
    """Direct convolution, NCHW x OIHW, one output element at a time."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    pt, pl, pb, pr = padding
    xp = np.zeros((n, c, h + pt + pb, wd + pl + pr))
    xp[:, :, pt : pt + h, pl : pl + wd] = x
    oh = (h + pt + pb - dilation[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (wd + pl + pr - dilation[1] * (kw - 1) - 1) // strides[1] + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for oc, i, j in product(range(o), range(oh), range(ow)):
        g = oc // og
        for ci, a, b in product(range(cg), range(kh), range(kw)):
            y, xx = i * strides[0] + a * dilation[0], j * strides[1] + b * dilation[1]
            out[:, oc, i, j] += xp[:, g * cg + ci, y, xx] * w[oc, ci, a, b]
    return out


def conv2d_transpose_ref(
    x: np.ndarray,
    w: np.ndarray,
    strides: Sequence[int],
    padding: Sequence[int],
    output_padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
) -> np.ndarray:
    """Scatter each input element through the IOHW kernel, then crop the padding."""
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    ig = c // groups
    full_h = (h - 1) * strides[0] + dilation[0] * (kh - 1) + 1 + output_padding[0]
    full_w = (wd - 1) * strides[1] + dilation[1] * (kw - 1) + 1 + output_padding[1]
    full = np.zeros((n, og * groups, full_h, full_w))
    for ci, i, j, a, b in product(range(c), range(h), range(wd), range(kh), range(kw)):
        g = ci // ig
        y, xx = i * strides[0] + a * dilation[0], j * strides[1] + b * dilation[1]
        full[:, g * og : (g + 1) * og, y, xx] += x[:, ci, i, j][:, None] * w[ci, :, a, b]
    pt, pl, pb, pr = padding
    return full[:, :, pt : full_h - pb, pl : full_w - pr]


def pool_ref(
    x: np.ndarray,
    kind: str,
    size: Sequence[int],
    strides: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int] = (1, 1),
    ceil: bool = False,
    include_pad: bool = False,
) -> np.ndarray:
    """Pooling over in-bounds elements of each window (NCHW)."""
    n, c, h, w = x.shape
    pt, pl, pb, pr = padding
    rnd = math.ceil if ceil else math.floor
    oh = rnd((h + pt + pb - dilation[0] * (size[0] - 1) - 1) / strides[0]) + 1
    ow = rnd((w + pl + pr - dilation[1] * (size[1] - 1) - 1) / strides[1]) + 1
    # A last window that would start in the bottom/right padding is dropped.
    oh -= (oh - 1) * strides[0] >= h + pt
    ow -= (ow - 1) * strides[1] >= w + pl
    out = np.zeros((n, c, oh, ow))
    for i, j in product(range(oh), range(ow)):
        rows = [i * strides[0] - pt + a * dilation[0] for a in range(size[0])]
        cols = [j * strides[1] - pl + b * dilation[1] for b in range(size[1])]
        inside = [(r, q) for r in rows for q in cols if 0 <= r < h and 0 <= q < w]
        values = np.stack([x[:, :, r, q] for r, q in inside], axis=-1)
        if kind == "max":
            out[:, :, i, j] = values.max(axis=-1)
            continue
        padded = [(r, q) for r in rows for q in cols if -pt <= r < h + pb and -pl <= q < w + pr]
        out[:, :, i, j] = values.sum(axis=-1) / (len(padded) if include_pad else len(inside))
    return out


def lrn_ref(
    x: np.ndarray, size: int, axis: int, alpha: float, beta: float, bias: float
) -> np.ndarray:
    out = np.empty(x.shape)
    channels = x.shape[axis]
    for ch in range(channels):
        lo, hi = max(0, ch - size // 2), min(channels, ch - size // 2 + size)
        window = np.take(x, range(lo, hi), axis=axis).astype(np.float64) ** 2
        norm = (bias + alpha / size * window.sum(axis=axis)) ** beta
        index = [slice(None)] * x.ndim
        index[axis] = ch
        out[tuple(index)] = np.take(x, ch, axis=axis) / norm
    return out


def resize_ref(
    x: np.ndarray, size: Sequence[int], method: str, mode: str, rounding: str = ""
) -> np.ndarray:
    """Resize NCHW, one output pixel at a time from the coordinate formulas."""
    n, c, h, w = x.shape
    out = np.zeros((n, c, *size))

    def coord(o: int, out_size: int, in_size: int) -> float:
        if mode == "align_corners":
            return o * (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
        if mode == "half_pixel":
            return (o + 0.5) * in_size / out_size - 0.5
        return o * in_size / out_size

    def clamp(i: int, n: int) -> int:
        return min(max(i, 0), n - 1)

    for i, j in product(range(size[0]), range(size[1])):
        y, xx = coord(i, size[0], h), coord(j, size[1], w)
        if method == "nearest_neighbor":
            r = rounding or ("round" if mode == "align_corners" else "floor")
            pick = {"round": round, "floor": lambda v: math.floor(v + 1e-5)}[r]
            out[:, :, i, j] = x[:, :, clamp(pick(y), h), clamp(pick(xx), w)]
            continue
        y0, x0 = math.floor(y), math.floor(xx)
        ly, lx = y - y0, xx - x0
        value = 0.0
        for dy, wy in ((0, 1 - ly), (1, ly)):
            for dx, wx in ((0, 1 - lx), (1, lx)):
                value = value + wy * wx * x[:, :, clamp(y0 + dy, h), clamp(x0 + dx, w)]
        out[:, :, i, j] = value
    return out


def softmax_ref(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x.astype(np.float64) - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def erf_ref(x: np.ndarray) -> np.ndarray:
    return np.array([math.erf(v) for v in x.ravel()]).reshape(x.shape)


def scatter_loop(
    x: np.ndarray, positions: list[tuple[int, ...]], values: list[float], mode: str
) -> np.ndarray:
    """Each value written to (update) or combined with (add, mul, min, max) x at its position,
    one after the other."""
    out = x.copy()
    combine = {
        "update": lambda a, b: b,
        "add": lambda a, b: a + b,
        "mul": lambda a, b: a * b,
        "min": min,
        "max": max,
    }[mode]
    for at, v in zip(positions, values, strict=True):
        out[at] = combine(out[at], v)
    return out


def scatter_nd_ref(x: np.ndarray, indices: np.ndarray, updates: np.ndarray, mode: str):
    """scatter_nd with indices (M, Y...) and updates (Y..., tail...), by loops."""
    positions, values = [], []
    for y in np.ndindex(*indices.shape[1:]):
        head = tuple(int(indices[(k, *y)]) for k in range(indices.shape[0]))
        for tail in np.ndindex(*x.shape[len(head) :]):
            positions.append(head + tail)
            values.append(updates[y + tail])
    return scatter_loop(x, positions, values, mode)


def scatter_elements_ref(
    x: np.ndarray, indices: np.ndarray, updates: np.ndarray, axis: int, mode: str
) -> np.ndarray:
    positions, values = [], []
    for i in np.ndindex(*indices.shape):
        at = list(i)
        at[axis] = int(indices[i])
        positions.append(tuple(at))
        values.append(updates[i])
    return scatter_loop(x, positions, values, mode)


def gather_nd_ref(x: np.ndarray, indices: np.ndarray, batch_dims: int) -> np.ndarray:
    lead = indices.shape[1:]
    out = np.empty(lead + x.shape[batch_dims + indices.shape[0] :], x.dtype)
    for y in np.ndindex(*lead):
        head = tuple(int(indices[(k, *y)]) for k in range(indices.shape[0]))
        out[y] = x[y[:batch_dims] + head]
    return out


def nchw(x: np.ndarray) -> np.ndarray:
    return x.transpose(0, 3, 1, 2)


def nhwc(x: np.ndarray) -> np.ndarray:
    return x.transpose(0, 2, 3, 1)


# ---------------------------------------------------------------------------------------------
# The cases: every relay op at least once, with odd shapes

POSITIVE = {"low": 0.5, "high": 3.0}
X = rand(3, 5)
CONV_X, CONV_W = rand(2, 3, 9, 7), rand(4, 3, 3, 3)
GROUP_X, GROUP_W = rand(1, 6, 7, 5), rand(9, 2, 3, 2)
POOL_X = rand(2, 3, 9, 7)
IMG = rand(1, 2, 5, 3)
WINOGRAD_W = rand(3, 3, 16, 24)  # HWIO, transformed for the winograd case

RESIZE_OPS = {1: relay.Resize1dOp, 2: relay.Resize2dOp, 3: relay.Resize3dOp}
RESIZE_REFS = {
    1: topi_testing.resize1d_python,
    2: topi_testing.resize2d_python,
    3: topi_testing.resize3d_python,
}

# ---------------------------------------------------------------------------------------------
# Vision inputs and the prior-box reference


def multibox_prior_ref(
    h: int,
    w: int,
    sizes: Sequence[float],
    ratios: Sequence[float],
    steps: Sequence[float],
    offsets: Sequence[float],
) -> np.ndarray:
    """SSD's prior boxes, one at a time, clipped to [0, 1]."""
    boxes = []
    for i, j in product(range(h), range(w)):
        cy, cx = (i + offsets[0]) * steps[0], (j + offsets[1]) * steps[1]
        shapes = [(s, 1.0) for s in sizes] + [(sizes[0], r) for r in ratios[1:]]
        for size, ratio in shapes:
            half_w = size * h / w * math.sqrt(ratio) / 2
            half_h = size / math.sqrt(ratio) / 2
            boxes.append([cx - half_w, cy - half_h, cx + half_w, cy + half_h])
    return np.clip(np.float32(boxes), 0, 1)[None]


ROIS = np.float32([[1, 1.5, 2.0, 9.0, 11.5], [0, -3.0, 4.0, 6.0, 5.0], [1, 10.0, 12.0, 11.0, 13.0]])
VALID_BOXES = np.float32(
    [[[0, 0.9, 1, 2, 3, 4], [-1, 0.8, 1, 2, 3, 4], [1, 0.2, 1, 2, 3, 4], [2, 0.6, 5, 6, 7, 8]]]
)
NMS_BOXES = np.float32(
    [
        [
            [0, 0.8, 1, 20, 25, 45],
            [1, 0.7, 30, 60, 50, 80],
            [0, 0.4, 4, 21, 19, 40],
            [2, 0.9, 35, 61, 52, 79],
            [1, 0.5, 100, 60, 70, 110],
        ]
    ]
)
CLASS_BOXES = np.float32([[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 5, 1, 6]]])
CLASS_SCORES = np.float32([[[0.9, 0.8, 0.7], [0.1, 0.95, 0.3]]])


CASES: list[Case] = [
    # Constants, parameters, tuples
    Case(
        "const",
        [X],
        lambda x: relay.AddOp(x, relay.ConstOp(np.arange(5, dtype=np.float32))),
        lambda x: x + np.arange(5),
    ),
    Case(
        "param",
        [X],
        lambda x: relay.MultiplyOp(x, relay.ParamOp("scale", TensorType(f32, [3, 1]))),
        lambda x: x * np.array([[1.0], [2.0], [-3.0]]),
        params={"scale": np.array([[1.0], [2.0], [-3.0]], dtype=np.float32)},
    ),
    Case(
        "tuple_and_get_item",
        [X, rand(2, dtype="int32", low=-9, high=9)],
        lambda x, y: relay.TupleGetItemOp(relay.TupleOp(x, y), 1),
        lambda x, y: y,
    ),
    Case("tuple_output", [X, X[:1]], relay.TupleOp, lambda x, y: (x, y)),
    # Broadcasting binary ops
    Case("add", [rand(3, 1, 5), rand(4, 1)], relay.AddOp, np.add),
    Case("subtract", [rand(3, 1, 5), rand(5)], relay.SubtractOp, np.subtract),
    Case("multiply", [rand(3, 5), rand()], relay.MultiplyOp, np.multiply),
    Case("divide", [rand(3, 5), rand(3, 1, **POSITIVE)], relay.DivideOp, np.divide),
    Case(
        "divide_int_truncates",
        [np.array([7, -7, 7, -7, 6], dtype=np.int32), np.array([2, 2, -2, -2, 3], dtype=np.int32)],
        relay.DivideOp,
        lambda a, b: np.array([3, -3, -3, 3, 2]),
    ),
    Case("power", [rand(3, 5, **POSITIVE), rand(5)], relay.PowerOp, np.power, tol=1e-4),
    Case("maximum", [rand(3, 5), rand(3, 1)], relay.MaximumOp, np.maximum),
    Case("minimum", [rand(3, 5), rand(5)], relay.MinimumOp, np.minimum),
    Case(
        "equal",
        [rand(3, 5, dtype="int32", low=0, high=2), rand(5, dtype="int32", low=0, high=2)],
        relay.EqualOp,
        np.equal,
    ),
    Case("less", [rand(3, 5), rand(3, 1)], relay.LessOp, np.less),
    Case("greater", [rand(3, 5), rand(5)], relay.GreaterOp, np.greater),
    Case(
        "less_equal_ties",
        [
            np.array([[1.0, 2.0, 3.0], [-0.5, 0.0, 0.5]], dtype=np.float32),
            np.float32([2.0, 2.0, 0.5]),
        ],
        relay.LessEqualOp,
        lambda a, b: np.array([[True, True, False], [True, True, True]]),
    ),
    Case(
        "greater_equal_int",
        [rand(3, 5, dtype="int32", low=-2, high=2), rand(3, 1, dtype="int32", low=-2, high=2)],
        relay.GreaterEqualOp,
        np.greater_equal,
    ),
    Case(
        "not_equal",
        [np.array([4, -1, 0, 7], dtype=np.int64), np.array([4, 1, 0, -7], dtype=np.int64)],
        relay.NotEqualOp,
        lambda a, b: np.array([False, True, False, True]),
    ),
    Case(
        "not_equal_bool",
        [np.array([[True], [False]]), np.array([True, False, True])],
        relay.NotEqualOp,
        lambda a, b: np.array([[False, True, False], [True, False, True]]),
    ),
    Case(
        "floor_divide_int_negative",
        [np.array([7, -7, 7, -7, 6, -6, 0], dtype=np.int32), np.int32([2, 2, -2, -2, 3, 4, -5])],
        relay.FloorDivideOp,
        lambda a, b: np.array([3, -4, -4, 3, 2, -2, 0]),
    ),
    Case(
        "floor_divide_float",
        [np.float32([7.5, -7.5, 7.5, -7.5, 1.0]), np.float32([2.0, 2.0, -2.0, -2.0, 0.5])],
        relay.FloorDivideOp,
        lambda a, b: np.array([3.0, -4.0, -4.0, 3.0, 2.0]),
    ),
    Case(
        "floor_mod_int_negative",
        [np.array([7, -7, 7, -7, 6, -6, 0], dtype=np.int32), np.int32([2, 2, -2, -2, 3, 4, -5])],
        relay.FloorModOp,
        lambda a, b: np.array([1, 1, -1, -1, 0, 2, 0]),  # the sign of the divisor
    ),
    Case(
        "floor_mod_float",
        [np.float32([7.5, -7.5, 7.5, -7.5, 3.0]), np.float32([2.0, 2.0, -2.0, -2.0, 1.5])],
        relay.FloorModOp,
        lambda a, b: np.array([1.5, 0.5, -0.5, -1.5, 0.0]),
    ),
    Case(
        "mod_int_sign_of_dividend",
        [np.array([7, -7, 7, -7, 6, -6, 0], dtype=np.int32), np.int32([2, 2, -2, -2, 3, 4, -5])],
        relay.ModOp,
        lambda a, b: np.array([1, -1, 1, -1, 0, -2, 0]),
    ),
    Case(
        "mod_float",
        [np.float32([7.5, -7.5, 7.5, -7.5, 3.0]), np.float32([2.0, 2.0, -2.0, -2.0, 1.5])],
        relay.ModOp,
        lambda a, b: np.array([1.5, -1.5, 1.5, -1.5, 0.0]),
    ),
    Case(
        "floor_mod_broadcast",
        [rand(3, 1, dtype="int64", low=-20, high=20), np.array([3, -4, 7], dtype=np.int64)],
        relay.FloorModOp,
        lambda a, b: np.array([[x - math.floor(x / y) * y for y in b] for x in a[:, 0]]),
    ),
    Case(
        "left_shift",
        [np.array([1, 3, -5, 7, 2**30], dtype=np.int32), np.int32([0, 4, 2, 31, 1])],
        relay.LeftShiftOp,
        lambda a, b: np.array([1, 48, -20, -(2**31), -(2**31)]),  # wraps in 32 bits
    ),
    Case(
        "right_shift_arithmetic",
        [np.array([1, 48, -20, -1, -(2**31), 5], dtype=np.int32), np.int32([0, 4, 2, 3, 31, 1])],
        relay.RightShiftOp,
        lambda a, b: np.array([1, 3, -5, -1, -1, 2]),  # the sign bit is copied
    ),
    Case(
        "right_shift_unsigned_broadcast",
        [np.array([[255], [128], [3]], dtype=np.uint8), np.uint8([1, 7])],
        relay.RightShiftOp,
        lambda a, b: np.array([[127, 1], [64, 1], [1, 0]]),
    ),
    Case(
        "logical_and",
        [np.array([[True], [False]]), np.array([True, False])],
        relay.LogicalAndOp,
        lambda a, b: np.array([[True, False], [False, False]]),
    ),
    Case(
        "logical_or",
        [np.array([[True], [False]]), np.array([True, False])],
        relay.LogicalOrOp,
        lambda a, b: np.array([[True, True], [True, False]]),
    ),
    Case(
        "where",
        [rand(3, 1, dtype="bool"), rand(3, 5), rand(5)],
        relay.WhereOp,
        np.where,
    ),
    # Elementwise unary ops
    Case("negative", [X], relay.NegativeOp, np.negative),
    Case("copy", [X], relay.CopyOp, np.copy),
    Case("stop_fusion", [X], relay.StopFusionOp, lambda x: x),
    Case("abs", [rand(7, dtype="int32", low=-9, high=9)], relay.AbsOp, np.abs),
    Case("exp", [X], relay.ExpOp, np.exp, tol=1e-5),
    Case("log", [rand(3, 5, **POSITIVE)], relay.LogOp, np.log),
    Case("sqrt", [rand(3, 5, **POSITIVE)], relay.SqrtOp, np.sqrt),
    Case("rsqrt", [rand(3, 5, **POSITIVE)], relay.RsqrtOp, lambda x: 1 / np.sqrt(x)),
    Case("tanh", [X], relay.TanhOp, np.tanh),
    Case("sigmoid", [X], relay.SigmoidOp, lambda x: 1 / (1 + np.exp(-x.astype(np.float64)))),
    Case("erf", [X], relay.ErfOp, erf_ref),
    Case("logical_not", [rand(3, 5, dtype="bool")], relay.LogicalNotOp, np.logical_not),
    *[
        Case(
            name,
            [np.array([0.0, np.nan, np.inf, -np.inf, -1.5, 3.4e38], np.float32)],
            op,
            lambda x, want=want: np.array(want),
        )
        for name, op, want in [
            ("isnan", relay.IsnanOp, [False, True, False, False, False, False]),
            ("isinf", relay.IsinfOp, [False, False, True, True, False, False]),
            ("isfinite", relay.IsfiniteOp, [True, False, False, False, True, True]),
        ]
    ],
    Case("cos", [rand(3, 5, low=-4.0, high=4.0)], relay.CosOp, np.cos),
    Case("sin", [rand(3, 5, low=-4.0, high=4.0)], relay.SinOp, np.sin),
    Case("tan", [rand(3, 5, low=-1.4, high=1.4)], relay.TanOp, np.tan, tol=1e-4),
    Case("atan", [rand(3, 5, low=-6.0, high=6.0)], relay.AtanOp, np.arctan),
    Case(
        "trig_exact",
        [np.array([0.0, math.pi / 3, -math.pi / 4, math.pi], dtype=np.float64)],
        lambda x: relay.TupleOp(
            relay.CosOp(x), relay.SinOp(x), relay.TanOp(x), relay.AtanOp(relay.TanOp(x))
        ),
        lambda x: (
            np.array([1.0, 0.5, math.sqrt(0.5), -1.0]),
            np.array([0.0, math.sqrt(3) / 2, -math.sqrt(0.5), 0.0]),
            np.array([0.0, math.sqrt(3), -1.0, 0.0]),
            np.array([0.0, math.pi / 3, -math.pi / 4, 0.0]),
        ),
        tol=1e-12,
    ),
    Case(
        "floor",
        [np.float32([2.5, -2.5, 3.0, -0.2, 0.7])],
        relay.FloorOp,
        lambda x: np.array([2.0, -3.0, 3.0, -1.0, 0.0]),
    ),
    Case(
        "ceil",
        [np.float32([2.5, -2.5, 3.0, -0.2, 0.7])],
        relay.CeilOp,
        lambda x: np.array([3.0, -2.0, 3.0, 0.0, 1.0]),
    ),
    Case(
        "trunc",
        [np.float32([2.5, -2.5, 3.0, -0.2, 0.7])],
        relay.TruncOp,
        lambda x: np.array([2.0, -2.0, 3.0, 0.0, 0.0]),
    ),
    Case(
        "round_half_to_even",
        [np.float32([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4999, 2.5001, -3.7])],
        relay.RoundOp,
        lambda x: np.array([0.0, 2.0, 2.0, 0.0, -2.0, -2.0, 2.0, 3.0, -4.0]),
    ),
    Case(
        "sign",
        [np.float32([[-3.5, 0.0], [0.25, -0.0]])],
        relay.SignOp,
        lambda x: np.array([[-1.0, 0.0], [1.0, 0.0]]),
    ),
    Case(
        "sign_int",
        [np.array([-7, 0, 9, -1], dtype=np.int32)],
        relay.SignOp,
        lambda x: np.array([-1, 0, 1, -1]),
    ),
    Case("clip", [X], lambda x: relay.ClipOp(x, -0.5, 1.25), lambda x: np.clip(x, -0.5, 1.25)),
    Case(
        "cast",
        [np.array([1.7, -1.7, 0.2, 300.9], dtype=np.float32)],
        lambda x: relay.CastOp(x, "int32"),
        lambda x: np.array([1, -1, 0, 300]),
    ),
    Case(
        "cast_to_bool",
        [np.array([0, 3, -1], dtype=np.int32)],
        lambda x: relay.CastOp(x, "bool"),
        lambda x: np.array([False, True, True]),
    ),
    # Activations
    Case("relu", [X], relay.ReluOp, lambda x: np.where(x > 0, x, 0)),
    Case(
        "leaky_relu",
        [X],
        lambda x: relay.LeakyReluOp(x, alpha=0.3),
        lambda x: np.where(x > 0, x, 0.3 * x),
    ),
    Case(
        "prelu",
        [rand(2, 3, 5), rand(3)],
        relay.PreluOp,
        lambda x, a: np.where(x > 0, x, x * a[None, :, None]),
    ),
    Case("gelu", [X], relay.GeluOp, lambda x: x * 0.5 * (1 + erf_ref(x / math.sqrt(2)))),
    Case(
        "gelu_tanh",
        [X],
        lambda x: relay.GeluOp(x, "tanh"),
        lambda x: 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x**3))),
    ),
    Case("softmax", [X], lambda x: relay.SoftmaxOp(x, axis=0), lambda x: softmax_ref(x, 0)),
    Case(
        "log_softmax",
        [rand(2, 3, 5)],
        relay.LogSoftmaxOp,
        lambda x: np.log(softmax_ref(x, -1)),
    ),
    Case("dropout", [X], lambda x: relay.DropoutOp(x, 0.4), lambda x: x),
    # Convolution and matrix products
    Case(
        "conv2d",
        [CONV_X, CONV_W],
        lambda x, w: relay.Conv2dOp(x, w, padding=(1, 1, 1, 1)),
        lambda x, w: conv2d_ref(x, w, padding=(1, 1, 1, 1)),
        tol=1e-4,
    ),
    Case(
        "conv2d_strided_dilated_asymmetric",
        [rand(2, 3, 11, 9), rand(5, 3, 3, 2)],
        lambda x, w: relay.Conv2dOp(x, w, strides=(2, 3), padding=(1, 0, 2, 1), dilation=(2, 1)),
        lambda x, w: conv2d_ref(x, w, (2, 3), (1, 0, 2, 1), (2, 1)),
        tol=1e-4,
    ),
    Case(
        "conv2d_grouped",
        [GROUP_X, GROUP_W],
        lambda x, w: relay.Conv2dOp(x, w, groups=3, padding=(0, 1, 2, 0)),
        lambda x, w: conv2d_ref(x, w, padding=(0, 1, 2, 0), groups=3),
        tol=1e-4,
    ),
    Case(
        "conv2d_depthwise",
        [rand(1, 4, 6, 5), rand(4, 1, 3, 3)],
        lambda x, w: relay.Conv2dOp(x, w, groups=4, strides=(2, 2), padding=(1, 1, 1, 1)),
        lambda x, w: conv2d_ref(x, w, strides=(2, 2), padding=(1, 1, 1, 1), groups=4),
        tol=1e-4,
    ),
    Case(
        "conv2d_nhwc_hwio",
        [nhwc(GROUP_X), GROUP_W.transpose(2, 3, 1, 0)],
        lambda x, w: relay.Conv2dOp(
            x, w, groups=3, strides=(2, 1), data_layout="NHWC", kernel_layout="HWIO"
        ),
        lambda x, w: nhwc(conv2d_ref(nchw(x), w.transpose(3, 2, 0, 1), (2, 1), groups=3)),
        tol=1e-4,
    ),
    Case(
        "conv2d_winograd",
        [rand(2, 9, 7, 16), winograd.transform_kernel(WINOGRAD_W, 4, 8)],
        lambda x, u: relay.Conv2dWinogradOp(x, u, 4, (1, 0, 2, 1)),
        lambda x, u: nhwc(
            conv2d_ref(nchw(x), WINOGRAD_W.transpose(3, 2, 0, 1), padding=(1, 0, 2, 1))
        ),
        tol=2e-4,
    ),
    Case(
        "conv2d_transpose",
        [rand(1, 4, 3, 5), rand(4, 2, 3, 3)],
        lambda x, w: relay.Conv2dTransposeOp(
            x, w, strides=(2, 2), padding=(1, 0, 1, 1), output_padding=(1, 0), groups=2
        ),
        lambda x, w: conv2d_transpose_ref(x, w, (2, 2), (1, 0, 1, 1), (1, 0), (1, 1), 2),
        tol=1e-4,
    ),
    Case(
        "conv2d_transpose_dilated",
        [rand(2, 3, 4, 3), rand(3, 5, 2, 3)],
        lambda x, w: relay.Conv2dTransposeOp(
            x, w, strides=(1, 3), padding=(0, 2, 1, 0), output_padding=(0, 2), dilation=(2, 1)
        ),
        lambda x, w: conv2d_transpose_ref(x, w, (1, 3), (0, 2, 1, 0), (0, 2), (2, 1), 1),
        tol=1e-4,
    ),
    Case(
        "conv1d_dilated",
        [rand(2, 3, 11), rand(4, 3, 3)],
        lambda x, w: relay.Conv1dOp(x, w, strides=(2,), padding=(1, 2), dilation=(2,)),
        lambda x, w: topi_testing.conv1d_ncw_python(x, w, 2, (1, 2), 2),
        tol=1e-4,
    ),
    Case(
        "conv1d_nwc_out_dtype",
        [rand(1, 7, 3, dtype="int8", low=-9, high=9), rand(3, 3, 2, dtype="int8", low=-9, high=9)],
        lambda x, w: relay.Conv1dOp(
            x, w, data_layout="NWC", kernel_layout="WIO", out_dtype="int32"
        ),
        lambda x, w: topi_testing.conv1d_ncw_python(
            x.transpose(0, 2, 1).astype("int32"), w.transpose(2, 1, 0).astype("int32"), 1, 0, 1
        ).transpose(0, 2, 1),
    ),
    Case(
        "bitpack",
        [rand(2, 16, 3, dtype="int32", low=-8, high=8)],
        lambda x: relay.BitpackOp(x, bits=3, pack_axis=1, bit_axis=0, pack_type="uint8"),
        lambda x: np.stack(
            [
                np.packbits(((x >> b) & 1).astype(np.uint8), axis=1)  # MSB first, as TVM
                for b in range(3)
            ]
        ),
    ),
    Case(
        "correlation",
        [rand(2, 3, 8, 8), rand(2, 3, 8, 8)],
        lambda a, b: relay.CorrelationOp(a, b, 3, 2, 2, 1, (2, 1)),
        lambda a, b: topi_testing.correlation_nchw_python(a, b, 3, 2, 2, 1, (2, 1), True),
        tol=1e-5,
    ),
    Case(
        "correlation_difference",
        [rand(1, 2, 6, 6), rand(1, 2, 6, 6)],
        lambda a, b: relay.CorrelationOp(a, b, 1, 2, 1, 2, (2, 2), is_multiply=False),
        lambda a, b: topi_testing.correlation_nchw_python(a, b, 1, 2, 1, 2, 2, False),
        tol=1e-5,
    ),
    Case(
        "conv3d",
        [rand(1, 4, 5, 6, 5), rand(6, 2, 3, 2, 3)],
        lambda x, w: relay.Conv3dOp(x, w, strides=(1, 2, 1), padding=(1, 0, 1, 1, 1, 0), groups=2),
        lambda x, w: topi_testing.conv3d_ncdhw_python(x, w, (1, 2, 1), (1, 0, 1, 1, 1, 0), 2),
        tol=1e-4,
    ),
    Case(
        "conv3d_ndhwc_dilated_out_dtype",
        [
            rand(1, 6, 5, 7, 3, dtype="int8", low=-9, high=9),
            rand(2, 3, 2, 3, 4, dtype="uint8", high=9),
        ],
        lambda x, w: relay.Conv3dOp(
            x,
            w,
            dilation=(2, 1, 3),
            data_layout="NDHWC",
            kernel_layout="DHWIO",
            out_dtype="int32",
        ),
        lambda x, w: topi_testing.conv3d_ndhwc_python(
            x.astype("int32"), topi_testing.dilate_python(w.astype("int32"), (2, 1, 3, 1, 1)), 1, 0
        ),
    ),
    Case(
        "conv1d_transpose",
        [rand(2, 4, 5), rand(4, 3, 3)],
        lambda x, w: relay.Conv1dTransposeOp(
            x, w, strides=(2,), padding=(1, 0), output_padding=(1,)
        ),
        lambda x, w: topi_testing.conv1d_transpose_ncw_python(x, w, 2, (1, 0), (1,)),
        tol=1e-4,
    ),
    Case(
        "conv2d_transpose_nhwc_hwoi",
        [rand(1, 3, 5, 4), rand(3, 3, 2, 4)],
        lambda x, w: relay.Conv2dTransposeOp(
            x, w, strides=(2, 1), padding=(1, 0, 0, 1), data_layout="NHWC", kernel_layout="HWOI"
        ),
        lambda x, w: topi_testing.conv2d_transpose_nhwc_python(x, w, "HWOI", (2, 1), (1, 0, 0, 1)),
        tol=1e-4,
    ),
    Case(
        "conv3d_transpose",
        [rand(1, 4, 3, 4, 2), rand(4, 3, 2, 3, 2)],
        lambda x, w: relay.Conv3dTransposeOp(
            x, w, strides=(2, 2, 3), padding=(1, 0, 1, 0, 1, 0), output_padding=(1, 0, 2)
        ),
        lambda x, w: topi_testing.conv3d_transpose_ncdhw_python(
            x, w, (2, 2, 3), (1, 0, 1, 0, 1, 0), (1, 0, 2)
        ),
        tol=1e-4,
    ),
    Case(
        "dense",
        [rand(2, 3, 5), rand(7, 5)],
        relay.DenseOp,
        lambda x, w: np.einsum("abk,nk->abn", x, w),
        tol=1e-4,
    ),
    Case("matmul", [rand(3, 5), rand(5, 7)], relay.MatmulOp, lambda a, b: a @ b, tol=1e-4),
    Case(
        "matmul_leading_axes",
        [rand(2, 3, 5), rand(5, 7)],
        relay.MatmulOp,
        lambda a, b: np.einsum("xmk,kn->xmn", a, b),
        tol=1e-4,
    ),
    Case(
        "matmul_transposed",
        [rand(5, 3), rand(7, 5)],
        lambda a, b: relay.MatmulOp(a, b, transpose_a=True, transpose_b=True),
        lambda a, b: a.T @ b.T,
        tol=1e-4,
    ),
    Case(
        "batch_matmul",
        [rand(2, 3, 5), rand(1, 7, 5)],
        relay.BatchMatmulOp,
        lambda x, y: np.einsum("bmk,nk->bmn", x, y[0]),
        tol=1e-4,
    ),
    Case(
        "batch_matmul_nn",
        [rand(2, 5, 3), rand(2, 5, 7)],
        lambda x, y: relay.BatchMatmulOp(x, y, transpose_a=True, transpose_b=False),
        lambda x, y: np.einsum("bkm,bkn->bmn", x, y),
        tol=1e-4,
    ),
    Case(
        "bias_add",
        [rand(2, 3, 5), rand(5)],
        lambda x, b: relay.BiasAddOp(x, b, axis=-1),
        lambda x, b: x + b,
    ),
    Case(
        "bias_add_channels",
        [rand(1, 3, 2, 5), rand(3)],
        relay.BiasAddOp,
        lambda x, b: x + b[:, None, None],
    ),
    # Normalisation
    Case(
        "batch_norm",
        [rand(2, 3, 5), rand(3), rand(3), rand(3), rand(3, **POSITIVE)],
        lambda x, g, b, m, v: relay.TupleGetItemOp(relay.BatchNormOp(x, g, b, m, v), 0),
        lambda x, g, b, m, v: (
            (x - m[:, None]) / np.sqrt(v[:, None] + 1e-5) * g[:, None] + b[:, None]
        ),
        tol=1e-4,
    ),
    Case(
        "batch_norm_tuple_no_scale",
        [rand(2, 5, 3), rand(3), rand(3), rand(3), rand(3, **POSITIVE)],
        lambda x, g, b, m, v: relay.BatchNormOp(x, g, b, m, v, axis=-1, epsilon=0.1, scale=False),
        lambda x, g, b, m, v: ((x - m) / np.sqrt(v + 0.1) + b, m, v),
        tol=1e-4,
    ),
    Case(
        "layer_norm",
        [rand(2, 3, 5), rand(3), rand(3)],
        lambda x, g, b: relay.LayerNormOp(x, g, b, axis=1, epsilon=1e-3),
        lambda x, g, b: (
            (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-3) * g[:, None]
            + b[:, None]
        ),
        tol=1e-4,
    ),
    Case(
        "lrn",
        [rand(2, 7, 3, 2)],
        lambda x: relay.LrnOp(x, size=3, alpha=0.5, beta=0.75, bias=1.5),
        lambda x: lrn_ref(x, 3, 1, 0.5, 0.75, 1.5),
        tol=1e-4,
    ),
    Case(
        "lrn_even_last_axis",
        [rand(2, 3, 6)],
        lambda x: relay.LrnOp(x, size=4, axis=-1, alpha=0.2, beta=0.5, bias=1.0),
        lambda x: lrn_ref(x, 4, 2, 0.2, 0.5, 1.0),
        tol=1e-4,
    ),
    # Pooling, padding, resizing
    Case(
        "max_pool1d_ceil",
        [rand(2, 3, 10)],
        lambda x: relay.MaxPool1dOp(x, (3,), strides=(2,), padding=(1, 0), ceil_mode=True),
        lambda x: topi_testing.poolnd_python(x, (3,), (2,), (1,), (1,), (0,), "max", False, True),
    ),
    Case(
        "avg_pool1d_nwc",
        [rand(2, 10, 3)],
        lambda x: relay.AvgPool1dOp(x, (3,), padding=(1, 1), layout="NWC", count_include_pad=True),
        lambda x: topi_testing.poolnd_python(
            x.transpose(0, 2, 1), (3,), (1,), (1,), (1,), (1,), "avg", True
        ).transpose(0, 2, 1),
        tol=1e-5,
    ),
    Case(
        "max_pool3d_window_in_padding",
        [rand(1, 2, 3, 6, 5)],
        lambda x: relay.MaxPool3dOp(x, (2, 2, 2), strides=(2, 2, 2), padding=(2, 0, 1, 0, 1, 1)),
        lambda x: topi_testing.poolnd_python(
            x, (2, 2, 2), (2, 2, 2), (1, 1, 1), (2, 0, 1), (0, 1, 1), "max", False
        ),
    ),
    Case(
        "avg_pool3d_ndhwc_dilated",
        [rand(2, 5, 6, 7, 3)],
        lambda x: relay.AvgPool3dOp(
            x, (2, 2, 3), padding=(1, 0, 1, 1, 0, 1), dilation=(2, 1, 1), layout="NDHWC"
        ),
        lambda x: topi_testing.poolnd_python(
            x.transpose(0, 4, 1, 2, 3),
            (2, 2, 3),
            (1, 1, 1),
            (2, 1, 1),
            (1, 0, 1),
            (1, 0, 1),
            "avg",
            False,
        ).transpose(0, 2, 3, 4, 1),
        tol=1e-5,
    ),
    Case(
        "avg_pool3d_count_pad",
        [rand(1, 2, 4, 5, 6)],
        lambda x: relay.AvgPool3dOp(
            x, (3, 3, 3), strides=(2, 2, 2), padding=(1, 1, 1, 1, 1, 1), count_include_pad=True
        ),
        lambda x: topi_testing.poolnd_python(
            x, (3, 3, 3), (2, 2, 2), (1, 1, 1), (1, 1, 1), (1, 1, 1), "avg", True
        ),
        tol=1e-5,
    ),
    Case(
        "adaptive_max_pool1d",
        [rand(2, 3, 10)],
        lambda x: relay.AdaptiveMaxPool1dOp(x, (4,)),
        lambda x: topi_testing.adaptive_pool(x, 4, "max", "NCW"),
    ),
    Case(
        "adaptive_avg_pool1d_nwc",
        [rand(2, 10, 3)],
        lambda x: relay.AdaptiveAvgPool1dOp(x, (3,), layout="NWC"),
        lambda x: topi_testing.adaptive_pool(x, 3, "avg", "NWC"),
        tol=1e-5,
    ),
    Case(
        "adaptive_max_pool2d_nhwc",
        [rand(2, 10, 9, 3, dtype="int32", low=-50, high=50)],
        lambda x: relay.AdaptiveMaxPool2dOp(x, (4, 5), layout="NHWC"),
        lambda x: topi_testing.adaptive_pool(x, (4, 5), "max", "NHWC"),
    ),
    Case(
        "adaptive_avg_pool2d",
        [rand(2, 3, 10, 9)],
        lambda x: relay.AdaptiveAvgPool2dOp(x, (4, 5)),
        lambda x: topi_testing.adaptive_pool(x, (4, 5), "avg", "NCHW"),
        tol=1e-5,
    ),
    Case(
        "adaptive_max_pool3d",
        [rand(1, 3, 5, 7, 6)],
        lambda x: relay.AdaptiveMaxPool3dOp(x, (2, 3, 6)),
        lambda x: topi_testing.adaptive_pool(x, (2, 3, 6), "max", "NCDHW"),
    ),
    Case(
        "adaptive_avg_pool3d_ndhwc_int",
        [rand(1, 5, 7, 6, 3, dtype="int32", low=0, high=100)],
        lambda x: relay.AdaptiveAvgPool3dOp(x, (2, 3, 4), layout="NDHWC"),
        lambda x: topi_testing.adaptive_pool(x, (2, 3, 4), "avg", "NDHWC"),
    ),
    Case(
        "max_pool2d",
        [POOL_X],
        lambda x: relay.MaxPool2dOp(x, (3, 2), strides=(2, 2), padding=(1, 0, 1, 1)),
        lambda x: pool_ref(x, "max", (3, 2), (2, 2), (1, 0, 1, 1)),
    ),
    Case(
        "max_pool2d_ceil_dilated",
        [rand(1, 2, 9, 8, dtype="int32", low=-50, high=50)],
        lambda x: relay.MaxPool2dOp(x, (2, 2), strides=(3, 2), dilation=(1, 2), ceil_mode=True),
        lambda x: pool_ref(x, "max", (2, 2), (3, 2), (0, 0, 0, 0), (1, 2), ceil=True),
    ),
    Case(
        "avg_pool2d",
        [POOL_X],
        lambda x: relay.AvgPool2dOp(x, (3, 3), strides=(2, 2), padding=(1, 1, 1, 1)),
        lambda x: pool_ref(x, "avg", (3, 3), (2, 2), (1, 1, 1, 1)),
    ),
    Case(
        "avg_pool2d_count_include_pad_ceil",
        [POOL_X],
        lambda x: relay.AvgPool2dOp(
            x, (3, 2), strides=(2, 2), padding=(1, 0, 0, 1), ceil_mode=True, count_include_pad=True
        ),
        lambda x: pool_ref(x, "avg", (3, 2), (2, 2), (1, 0, 0, 1), ceil=True, include_pad=True),
    ),
    Case(
        "avg_pool2d_nhwc",
        [nhwc(POOL_X)],
        lambda x: relay.AvgPool2dOp(x, (2, 3), strides=(1, 2), layout="NHWC"),
        lambda x: nhwc(pool_ref(nchw(x), "avg", (2, 3), (1, 2), (0, 0, 0, 0))),
    ),
    Case(
        "global_avg_pool2d",
        [POOL_X],
        relay.GlobalAvgPool2dOp,
        lambda x: x.mean(axis=(2, 3), keepdims=True),
    ),
    Case(
        "global_max_pool2d_nhwc",
        [nhwc(POOL_X)],
        lambda x: relay.GlobalMaxPool2dOp(x, layout="NHWC"),
        lambda x: x.max(axis=(1, 2), keepdims=True),
    ),
    Case(
        "pad",
        [X],
        lambda x: relay.PadOp(x, [(1, 2), (0, 3)], pad_value=-1.5),
        lambda x: np.pad(x, [(1, 2), (0, 3)], constant_values=-1.5),
    ),
    Case(
        "pad_reflect",
        [X],
        lambda x: relay.PadOp(x, [(2, 1), (4, 0)], pad_mode="reflect"),
        lambda x: np.pad(x, [(2, 1), (4, 0)], mode="reflect"),
    ),
    Case(
        "pad_edge",
        [X],
        lambda x: relay.PadOp(x, [(0, 1), (3, 2)], pad_mode="edge"),
        lambda x: np.pad(x, [(0, 1), (3, 2)], mode="edge"),
    ),
    Case(
        "resize2d_linear_half_pixel",
        [IMG],
        lambda x: relay.Resize2dOp(x, (7, 4)),
        lambda x: resize_ref(x, (7, 4), "linear", "half_pixel"),
    ),
    Case(  # interpolated in floating point, truncated back as TVM's (weights 1/4, 3/4: exact)
        "resize2d_linear_integers",
        [rand(1, 2, 3, 4, dtype="int32", low=-50, high=50)],
        lambda x: relay.Resize2dOp(x, (6, 8)),
        lambda x: np.trunc(resize_ref(x.astype("float64"), (6, 8), "linear", "half_pixel")),
    ),
    Case(
        "resize2d_linear_align_corners",
        [IMG],
        lambda x: relay.Resize2dOp(x, (3, 8), coordinate_transformation_mode="align_corners"),
        lambda x: resize_ref(x, (3, 8), "linear", "align_corners"),
    ),
    Case(
        "resize2d_nearest_asymmetric",
        [IMG],
        lambda x: relay.Resize2dOp(
            x, (9, 5), method="nearest_neighbor", coordinate_transformation_mode="asymmetric"
        ),
        lambda x: resize_ref(x, (9, 5), "nearest_neighbor", "asymmetric"),
    ),
    Case(
        "resize2d_nearest_half_pixel_nhwc",
        [nhwc(IMG)],
        lambda x: relay.Resize2dOp(x, (3, 7), layout="NHWC", method="nearest_neighbor"),
        lambda x: nhwc(resize_ref(nchw(x), (3, 7), "nearest_neighbor", "half_pixel")),
    ),
    *(
        Case(
            f"resize{rank}d_{method}_{mode}",
            [rand(1, 2, *shape)],
            lambda x, rank=rank, method=method, mode=mode, shape=shape: RESIZE_OPS[rank](
                x,
                tuple(2 * n + 1 for n in shape),
                method=method,
                coordinate_transformation_mode=mode,
            ),
            lambda x, rank=rank, method=method, mode=mode, shape=shape: RESIZE_REFS[rank](
                x,
                tuple((2 * n + 1) / n for n in shape),
                method=method,
                coordinate_transformation_mode=mode,
                layout=("NCW", "NCHW", "NCDHW")[rank - 1],
            ),
            tol=1e-5,
        )
        for rank, shape in ((1, (5,)), (2, (3, 4)), (3, (2, 3, 2)))
        for method in ("nearest_neighbor", "linear", "cubic")
        for mode in ("half_pixel", "align_corners", "asymmetric")
    ),
    Case(
        "resize2d_by_hand",
        [np.array([[[[1.0, 2.0], [3.0, 4.0]]]], dtype=np.float32)],
        lambda x: relay.Resize2dOp(x, (4, 4)),
        lambda x: np.array(
            [
                [1.0, 1.25, 1.75, 2.0],
                [1.5, 1.75, 2.25, 2.5],
                [2.5, 2.75, 3.25, 3.5],
                [3.0, 3.25, 3.75, 4.0],
            ]
        )[None, None],
    ),
    Case(
        "upsampling_nearest_by_hand",
        [np.array([[[[1.0, 2.0], [3.0, 4.0]]]], dtype=np.float32)],
        lambda x: relay.UpsamplingOp(x, 2.0, 1.5),
        lambda x: np.array([[1, 1, 2], [1, 1, 2], [3, 3, 4], [3, 3, 4]])[None, None],
    ),
    Case(
        "upsampling_bilinear_align_corners",
        [IMG],
        lambda x: relay.UpsamplingOp(x, 2.0, 3.0, method="bilinear", align_corners=True),
        lambda x: resize_ref(x, (10, 9), "linear", "align_corners"),
    ),
    # Reductions
    Case("sum", [rand(3, 5, 7)], lambda x: relay.SumOp(x, axis=[0, -1]), lambda x: x.sum((0, 2))),
    Case("sum_all", [X], relay.SumOp, lambda x: x.sum()),
    Case(
        "mean_keepdims",
        [rand(3, 5, 7)],
        lambda x: relay.MeanOp(x, axis=1, keepdims=True),
        lambda x: x.mean(1, keepdims=True),
    ),
    Case("max", [X], lambda x: relay.MaxOp(x, axis=[1]), lambda x: x.max(1)),
    Case("min", [X], lambda x: relay.MinOp(x, keepdims=True), lambda x: x.min(keepdims=True)),
    Case(
        "prod_int",
        [rand(3, 5, dtype="int32", low=-3, high=3)],
        lambda x: relay.ProdOp(x, axis=0),
        lambda x: x.prod(0),
    ),
    Case(
        "argmax_first_of_ties",
        [np.array([[1, 5, 5], [7, 7, 0]], dtype=np.int32)],
        lambda x: relay.ArgmaxOp(x, axis=1),
        lambda x: np.array([1, 0]),
    ),
    Case("argmax_all", [X], relay.ArgmaxOp, lambda x: np.argmax(x)),
    Case(
        "argmax_last_of_ties",
        [np.array([[1, 5, 5], [7, 7, 0]], dtype=np.int32)],
        lambda x: relay.ArgmaxOp(x, axis=1, select_last_index=True),
        lambda x: np.array([2, 1]),
    ),
    Case(
        "argmax_axes_offset_within_them",
        [rand(3, 5, 2)],
        lambda x: relay.ArgmaxOp(x, axis=[2, 0]),
        lambda x: np.array([np.argmax(x[:, j, :]) for j in range(5)]),
    ),
    Case(
        "argmin_axes_keepdims",
        [rand(2, 3, 4)],
        lambda x: relay.ArgminOp(x, axis=[1, 2], keepdims=True),
        lambda x: np.array([np.argmin(x[i]) for i in range(2)]).reshape(2, 1, 1),
    ),
    Case(
        "argmin_keepdims",
        [rand(3, 5, 2)],
        lambda x: relay.ArgminOp(x, axis=-2, keepdims=True),
        lambda x: np.argmin(x, axis=1)[:, None, :],
    ),
    # Shape manipulation
    Case(
        "reshape",
        [rand(2, 3, 5)],
        lambda x: relay.ReshapeOp(x, (0, -1, 1)),
        lambda x: x.reshape(2, 15, 1),
    ),
    Case(
        "transpose",
        [rand(2, 3, 5)],
        lambda x: relay.TransposeOp(x, (1, -1, 0)),
        lambda x: x.transpose(1, 2, 0),
    ),
    Case("transpose_reverse", [rand(2, 3, 5)], relay.TransposeOp, lambda x: x.T),
    Case(
        "concatenate",
        [rand(2, 3), rand(2, 1), rand(2, 5)],
        lambda a, b, c: relay.ConcatenateOp([a, b, c], axis=-1),
        lambda a, b, c: np.concatenate([a, b, c], axis=1),
    ),
    Case(
        "split_sections",
        [rand(2, 9)],
        lambda x: relay.SplitOp(x, 3, axis=1),
        lambda x: tuple(np.split(x, 3, axis=1)),
    ),
    Case(
        "split_indices_then_get",
        [rand(7, 2)],
        lambda x: relay.TupleGetItemOp(relay.SplitOp(x, [2, 3]), 2),
        lambda x: x[3:],
    ),
    Case("squeeze", [rand(1, 3, 1, 5)], relay.SqueezeOp, lambda x: x.reshape(3, 5)),
    Case(
        "expand_dims",
        [X],
        lambda x: relay.ExpandDimsOp(x, 1, num_newaxis=2),
        lambda x: x[:, None, None, :],
    ),
    Case("batch_flatten", [rand(2, 3, 5)], relay.BatchFlattenOp, lambda x: x.reshape(2, 15)),
    Case("shape_of", [rand(2, 3, 5)], relay.ShapeOfOp, lambda x: np.array([2, 3, 5])),
    Case(
        "shape_of_int64",
        [rand(7, 1, dtype="bool")],
        lambda x: relay.ShapeOfOp(x, "int64"),
        lambda x: np.array([7, 1]),
    ),
    Case("shape_of_scalar", [np.float32(1.5)], relay.ShapeOfOp, lambda x: np.zeros(0)),
    Case(
        "shape_of_float32",
        [rand(4, 6)],
        lambda x: relay.ShapeOfOp(x, "float32"),
        lambda x: np.array([4.0, 6.0], "float32"),
    ),
    Case("ndarray_size", [rand(2, 3, 5)], relay.NdarraySizeOp, lambda x: np.array(30)),
    Case(
        "ndarray_size_int64_empty",
        [np.zeros((4, 0), dtype=np.int32)],
        lambda x: relay.NdarraySizeOp(x, "int64"),
        lambda x: np.array(0),
    ),
    Case(
        "strided_slice",
        [rand(5, 9)],
        lambda x: relay.StridedSliceOp(x, [1, -1], [4, 0], strides=[2, -3]),
        lambda x: x[1:4:2, -1:0:-3],
    ),
    Case(
        "strided_slice_axes_clamped",
        [rand(5, 9, 3)],
        lambda x: relay.StridedSliceOp(x, [-2, 2], [2**62, 100], axes=[2, 1]),
        lambda x: x[:, 2:, -2:],
    ),
    Case(
        "take_clip",
        [X, np.array([[0, 4, 9], [-3, 2, 1]], dtype=np.int32)],
        lambda x, i: relay.TakeOp(x, i, axis=1),
        lambda x, i: x[:, [[0, 4, 4], [0, 2, 1]]],
    ),
    Case(
        "take_wrap_flat",
        [X, np.array([16, -1, 3], dtype=np.int64)],
        lambda x, i: relay.TakeOp(x, i, mode="wrap"),
        lambda x, i: x.ravel()[[1, 14, 3]],
    ),
    Case(
        "take_fast",
        [X, np.array([2, 0], dtype=np.int32)],
        lambda x, i: relay.TakeOp(x, i, axis=0, mode="fast"),
        lambda x, i: x[[2, 0]],
    ),
    Case(
        "broadcast_to",
        [rand(3, 1)],
        lambda x: relay.BroadcastToOp(x, (2, 3, 5)),
        lambda x: np.broadcast_to(x, (2, 3, 5)),
    ),
    Case(
        "tile",
        [X],
        lambda x: relay.TileOp(x, (2, 1, 3)),
        lambda x: np.concatenate([np.concatenate([x] * 3, axis=1)[None]] * 2),
    ),
    Case(
        "layout_transform_nchw_to_nhwc",
        [rand(2, 3, 5, 4)],
        lambda x: relay.LayoutTransformOp(x, "NCHW", "NHWC"),
        lambda x: x.transpose(0, 2, 3, 1),
    ),
    Case(
        "layout_transform_to_nchw4c",
        [rand(2, 8, 3, 5)],
        lambda x: relay.LayoutTransformOp(x, "NCHW", "NCHW4c"),
        lambda x: x.reshape(2, 2, 4, 3, 5).transpose(0, 1, 3, 4, 2),
    ),
    Case(
        "layout_transform_nchw4c_to_nhwc",
        [rand(2, 2, 3, 5, 4)],
        lambda x: relay.LayoutTransformOp(x, "NCHW4c", "NHWC"),
        lambda x: x.transpose(0, 2, 3, 1, 4).reshape(2, 3, 5, 8),
    ),
    Case(
        "gather_nd",
        [X, np.array([[2, 0, 1, 1]], dtype=np.int64)],
        relay.GatherNdOp,
        lambda x, i: gather_nd_ref(x, i, 0),
    ),
    Case(
        "gather_nd_batch_dims",
        [rand(2, 4, 3), np.array([[[3, 0], [1, 1]], [[2, 0], [0, 2]]], dtype=np.int32)],
        lambda x, i: relay.GatherNdOp(x, i, batch_dims=1),
        lambda x, i: gather_nd_ref(x, i, 1),
    ),
    *(
        Case(
            f"scatter_nd_{mode}",
            [X, np.array([[2, 0, 2]], dtype=np.int64), rand(3, 5)],
            lambda x, i, u, mode=mode: relay.ScatterNdOp(x, i, u, mode),
            lambda x, i, u, mode=mode: scatter_nd_ref(x, i, u, mode),
        )
        for mode in relay.SCATTER_MODES
    ),
    Case(
        "gather",
        [X, np.array([[4, 0], [1, 1], [3, 2]], dtype=np.int64)],
        lambda x, i: relay.GatherOp(x, i, axis=1),
        lambda x, i: np.take_along_axis(x, i, axis=1),
    ),
    *(
        Case(
            f"scatter_elements_{mode}",
            [X, np.array([[4, 0, 4], [1, 1, 2]], dtype=np.int32), rand(2, 3)],
            lambda x, i, u, mode=mode: relay.ScatterElementsOp(x, i, u, -1, mode),
            lambda x, i, u, mode=mode: scatter_elements_ref(x, i, u, 1, mode),
        )
        for mode in relay.SCATTER_MODES
    ),
    Case(
        "scatter_elements_negative_indices",
        [X, np.array([[-1, 0, -5], [1, -4, 2]], dtype=np.int32), rand(2, 3)],
        lambda x, i, u: relay.ScatterElementsOp(x, i, u, 1, "add"),
        lambda x, i, u: scatter_elements_ref(x, i % x.shape[1], u, 1, "add"),
    ),
    Case(
        "cumsum_exclusive",
        [X],
        lambda x: relay.CumsumOp(x, 0, exclusive=True),
        lambda x: np.stack([x[:k].sum(axis=0) for k in range(3)]),
    ),
    Case("cumsum_flat", [X], relay.CumsumOp, lambda x: np.cumsum(x.ravel())),
    Case(
        "cumprod_exclusive",
        [X],
        lambda x: relay.CumprodOp(x, 1, exclusive=True),
        lambda x: np.concatenate([np.ones_like(x[:, :1]), np.cumprod(x, axis=1)[:, :-1]], 1),
    ),
    Case(
        "deformable_conv2d_strided_two_groups",
        [rand(1, 4, 7, 6), rand(1, 2 * 4 * 2, 4, 3, low=-1.5, high=1.5), rand(3, 4, 2, 2)],
        lambda x, o, w: relay.DeformableConv2dOp(
            x, o, w, strides=(2, 2), padding=(1, 1, 1, 1), dilation=(1, 2), deformable_groups=2
        ),
        lambda x, o, w: topi_testing.deformable_conv2d_nchw_python(
            x, o, w, (2, 2), (1, 1), (1, 2), deformable_groups=2, groups=1
        ),
        tol=1e-4,
    ),
    Case(
        "dilation2d_nhwc_strided_dilated",
        [rand(1, 7, 6, 2), rand(2, 2, 2)],
        lambda x, w: relay.Dilation2dOp(
            x,
            w,
            strides=(2, 1),
            padding=(1, 0, 0, 1),
            dilations=(2, 2),
            data_layout="NHWC",
            kernel_layout="HWI",
        ),
        lambda x, w: dilation2d_ref(x, w),
    ),
    Case(
        "stft_window_shorter_than_n_fft",
        [rand(2, 10), rand(4)],
        lambda x, w: relay.StftOp(x, w, 4, 3, 3, normalized=True),
        lambda x, w: stft_ref(x, w, n_fft=4, hop=3, win=3),
        tol=1e-4,
    ),
    Case(
        "depth_to_space_cdr",
        [rand(1, 8, 2, 3)],
        lambda x: relay.DepthToSpaceOp(x, 2, mode="CDR"),
        lambda x: topi_testing.depth_to_space_python(x, 2, "CDR"),
    ),
    Case(
        "space_to_depth",
        [rand(2, 3, 4, 6)],
        lambda x: relay.SpaceToDepthOp(x, 2),
        lambda x: topi_testing.space_to_depth_python(x, 2),
    ),
    Case(
        "crop_and_resize_nearest_outside",
        [
            rand(2, 3, 7, 6),
            np.float32([[0.1, -0.2, 0.9, 0.7], [0.5, 0.5, 1.3, 0.2]]),
            np.int32([1, 0]),
        ],
        lambda x, b, i: relay.CropAndResizeOp(x, b, i, (4, 3), "NCHW", "nearest_neighbor", 9.0),
        lambda x, b, i: topi_testing.crop_and_resize_python(
            x, b, i, (4, 3), "NCHW", "nearest_neighbor", 9.0
        ),
    ),
    Case(
        "slice_like_axes",
        [rand(3, 4, 5), rand(2, 2, 2)],
        lambda x, y: relay.SliceLikeOp(x, y, axes=[0, 2]),
        lambda x, y: x[:2, :, :2],
    ),
    Case(
        "reverse_sequence_lengths_capped",
        [np.arange(12, dtype=np.float32).reshape(3, 4), np.array([0, 3, 9], np.int64)],
        lambda x, n: relay.ReverseSequenceOp(x, n, seq_axis=1, batch_axis=0),
        lambda x, n: np.array([[0, 1, 2, 3], [6, 5, 4, 7], [11, 10, 9, 8]], np.float32),
    ),
    *(
        Case(
            f"correlation_{'multiply' if multiply else 'subtract'}_k{k}_s{s1}{s2}",
            [rand(2, 3, 7, 6), rand(2, 3, 7, 6)],
            lambda a, b, k=k, s1=s1, s2=s2, p=pad, m=multiply: relay.CorrelationOp(
                a, b, k, 2, s1, s2, [p], m
            ),
            lambda a, b, k=k, s1=s1, s2=s2, p=pad, m=multiply: topi_testing.correlation_nchw_python(
                a, b, k, 2, s1, s2, p, m
            ),
        )
        for k, s1, s2, pad, multiply in [
            (1, 1, 1, 2, True),
            (3, 2, 2, 3, False),
            (3, 3, 1, 2, True),
        ]
    ),
    Case(
        "reinterpret_bits",
        [np.array([1.0, -2.0, 0.0], np.float32)],
        lambda x: relay.ReinterpretOp(x, "int32"),
        lambda x: np.array([0x3F800000, -0x40000000, 0], np.int32),
    ),
    Case(
        "strided_set_negative_stride",
        [rand(4, 5), rand(3, 1)],
        lambda x, v: relay.StridedSetOp(x, v, [3, 1], [0, 5], [-1, 2]),
        lambda x, v: topi_testing.strided_set_python(x, v, [3, 1], [0, 5], [-1, 2]),
    ),
    Case(
        "space_to_batch_nd_padded",
        [rand(2, 2, 4, 3)],
        lambda x: relay.SpaceToBatchNdOp(x, [2, 2], [[0, 0], [1, 1]], 0.5),
        lambda x: topi_testing.space_to_batch_nd_python(x, [2, 2], [0, 1], [0, 1], 0.5),
    ),
    Case(
        "batch_to_space_nd_cropped",
        [rand(8, 1, 3, 2)],
        lambda x: relay.BatchToSpaceNdOp(x, [2, 2], [[0, 1], [2, 0]]),
        lambda x: topi_testing.batch_to_space_nd_python(x, [2, 2], [0, 2], [1, 0]),
    ),
    Case(
        "affine_grid",
        [rand(2, 2, 3)],
        lambda x: relay.AffineGridOp(x, [3, 4]),
        lambda x: topi_testing.affine_grid_python(x, [3, 4]),
    ),
    *(
        Case(
            f"grid_sample_{method}_{padding}_{'aligned' if align else 'edges'}",
            [rand(2, 3, 5, 4), (rand(2, 2, 3, 6) * 2.6 - 1.3).astype(np.float32)],
            lambda x, g, m=method, p=padding, a=align: relay.GridSampleOp(x, g, m, "NCHW", p, a),
            lambda x, g, m=method, p=padding, a=align: topi_testing.grid_sample_python(
                x, g, m, "NCHW", p, a
            ),
        )
        for method in ("nearest", "bilinear", "bicubic")
        for padding in ("zeros", "border", "reflection")
        for align in (True, False)
    ),
    Case(
        "grid_sample_3d_reflection",
        [rand(1, 2, 3, 4, 5), (rand(1, 3, 2, 3, 4) * 2.6 - 1.3).astype(np.float32)],
        lambda x, g: relay.GridSampleOp(x, g, "bilinear", "NCDHW", "reflection", False),
        lambda x, g: topi_testing.grid_sample_python(
            x, g, "bilinear", "NCDHW", "reflection", False
        ),
    ),
    Case(
        "unique_sorted_counts",
        [np.array([4, 1, 4, 0, 1, 4, 7], np.int32)],
        lambda x: relay.UniqueOp(x, sorted=True, return_counts=True),
        lambda x: (
            np.array([0, 1, 4, 7, 0, 0, 0], np.int32),
            np.array([3, 1, 0, 6, 0, 0, 0], np.int32),
            np.array([2, 1, 2, 0, 1, 2, 3], np.int32),
            np.array([4], np.int32),
            np.array([1, 2, 3, 1, 0, 0, 0], np.int32),
        ),
    ),
    Case(
        "unique_first_occurrence",
        [np.array([4.5, 1.0, 4.5, 0.0], np.float32)],
        lambda x: relay.UniqueOp(x, sorted=False),
        lambda x: (
            np.array([4.5, 1.0, 0.0, 0.0], np.float32),
            np.array([0, 1, 3, 0], np.int32),
            np.array([0, 1, 0, 2], np.int32),
            np.array([3], np.int32),
        ),
    ),
    Case(
        "unravel_index_wraps",
        [np.array([0, 5, 7, 13], np.int32), np.array([2, 3], np.int32)],
        relay.UnravelIndexOp,
        lambda i, s: np.array([[0, 1, 0, 0], [0, 2, 1, 1]]),  # 7 and 13 wrap past 2 x 3
    ),
    Case(
        "sparse_reshape",
        [
            np.array([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 2, 3]], np.int32),
            np.array([2, 3, 6], np.int32),
            np.array([9, -1], np.int32),
        ],
        relay.SparseReshapeOp,
        lambda i, p, n: (
            np.array([[0, 0], [0, 1], [1, 2], [4, 2], [8, 1]], np.int32),
            np.array([9, 4], np.int32),
        ),
    ),
    Case(
        "sparse_reshape_same_shape_keeps_indices",
        [np.array([[0, 100], [3, 7]], np.int64), np.array([50, 20]), np.array([-1, 20])],
        relay.SparseReshapeOp,
        lambda i, p, n: (i, p),
    ),
    Case(
        "segment_sum",
        [X, np.array([2, 0, 2], np.int32)],
        lambda x, s: relay.SegmentSumOp(x, s, num_segments=3),
        lambda x, s: np.stack([x[1], np.zeros(5, np.float32), x[0] + x[2]]),
    ),
    Case(
        "segment_sum_short_ids",
        [X, np.array([1, 1], np.int64)],
        lambda x, s: relay.SegmentSumOp(x, s, num_segments=3),
        lambda x, s: np.stack([np.zeros(5, np.float32), x[0] + x[1], np.zeros(5, np.float32)]),
    ),
    Case(
        "trilu_lower",
        [rand(2, 3, 4)],
        lambda x: relay.TriluOp(x, k=1, upper=False),
        lambda x: x * (np.arange(4)[None, :] - np.arange(3)[:, None] <= 1),
    ),
    Case(
        "layout_transform_nchw4c_to_nchw2c",
        [rand(1, 2, 3, 5, 4)],
        lambda x: relay.LayoutTransformOp(x, "NCHW4c", "NCHW2c"),
        lambda x: (
            x.transpose(0, 1, 4, 2, 3)
            .reshape(1, 8, 3, 5)
            .reshape(1, 4, 2, 3, 5)
            .transpose(0, 1, 3, 4, 2)
        ),
    ),
    # Vision: direct loops (topi.testing's references) or results worked out by hand
    Case(
        "multibox_prior",
        [rand(1, 2, 3, 4)],
        lambda x: relay.MultiboxPriorOp(x, (0.4, 0.2), (1.0, 4.0), (0.3, 0.25), (0.5, 0.4), True),
        lambda x: multibox_prior_ref(3, 4, (0.4, 0.2), (1.0, 4.0), (0.3, 0.25), (0.5, 0.4)),
    ),
    Case(
        "yolo_reorg",
        [rand(2, 8, 4, 6)],
        lambda x: relay.YoloReorgOp(x, 2),
        lambda x: topi_testing.reorg_python(x, 2),
    ),
    Case(
        "roi_align_avg_adaptive",
        [rand(2, 3, 7, 6), ROIS],
        lambda x, r: relay.RoiAlignOp(x, r, (2, 3), 0.5),
        lambda x, r: topi_testing.roi_align_nchw_python(x, r, (2, 3), 0.5, -1, "avg"),
    ),
    Case(
        "roi_align_max_nhwc",
        [rand(2, 7, 6, 3), ROIS],
        lambda x, r: relay.RoiAlignOp(x, r, (3, 2), 0.5, 2, "NHWC", "max"),
        lambda x, r: topi_testing.roi_align_nhwc_python(x, r, (3, 2), 0.5, 2, "max"),
    ),
    Case(
        "roi_pool",
        [rand(2, 3, 7, 6), ROIS],
        lambda x, r: relay.RoiPoolOp(x, r, (2, 3), 0.5),
        lambda x, r: topi_testing.roi_pool_nchw_python(x, r, (2, 3), 0.5),
    ),
    Case(
        "get_valid_counts",
        [VALID_BOXES],
        lambda x: relay.TupleOp(
            *(relay.TupleGetItemOp(relay.GetValidCountsOp(x, 0.5), k) for k in range(3))
        ),
        lambda x: (
            np.int32([2]),
            np.concatenate([x[:, [0, 3]], np.full((1, 2, 6), -1, np.float32)], axis=1),
            np.int32([[0, 3, -1, -1]]),
        ),
    ),
    Case(
        "non_max_suppression_by_class_to_bottom",
        [NMS_BOXES, np.int32([4]), np.int32([[4, 3, 2, 1, 0]]), np.int32(-1), np.float32(0.4)],
        lambda *a: relay.NonMaxSuppressionOp(*a, return_indices=False, invalid_to_bottom=True),
        lambda x, *_: np.concatenate([x[:, [3, 0, 1]], np.full((1, 2, 6), -1, np.float32)], axis=1),
    ),
    Case(
        "non_max_suppression_forced_indices",
        [NMS_BOXES, np.int32([4]), np.int32([[4, 3, 2, 1, 0]]), np.int32(-1), np.float32(0.5)],
        lambda *a: relay.TupleOp(
            *(
                relay.TupleGetItemOp(relay.NonMaxSuppressionOp(*a, force_suppress=True), k)
                for k in range(2)
            )
        ),
        lambda *_: (np.int32([[1, 4, 2, -1, -1]]), np.int32([[3]])),
    ),
    Case(
        "multibox_transform_loc",
        [
            np.float32([[[0.2, 0.9], [0.5, 0.05], [0.3, 0.05]]]),
            np.float32([[1, 0, 0, 0, 0, 0, 0, 0]]),
            np.float32([[[0.1, 0.2, 0.5, 0.6], [0, 0, 1, 1]]]),
        ],
        lambda c, p, a: relay.TupleOp(
            *(
                relay.TupleGetItemOp(relay.MultiboxTransformLocOp(c, p, a, threshold=0.1), k)
                for k in range(2)
            )
        ),
        lambda *_: (
            np.float32([[[0, 0.5, 0.14, 0.2, 0.54, 0.6], [-1] * 6]]),
            np.int32([1]),
        ),
    ),
    Case(
        "proposal_iou_loss",
        [
            np.float32([[[[0.3, 0.6]], [[0.7, 0.9]]]]),
            np.float32([[[[1.0, 0.0]], [[2.0, 0.0]], [[-1.0, 0.0]], [[3.0, 0.0]]]]),
            np.float32([[30.0, 30.0, 1.0]]),
        ],
        lambda c, d, i: relay.ProposalOp(c, d, i, (1.0,), (1.0,), 16, 0.7, -1, 3, 4, True),
        # anchors (0, 0, 15, 15) and (16, 0, 31, 15) moved by the offsets, clipped to 29;
        # the second cell lies past the image's map (30 / 16 = 1 cell) and scores -1, so the
        # first comes first; they do not overlap and fill the 3 rows in turn
        lambda *_: np.float32([[0, 1, 2, 14, 18], [0, 16, 0, 29, 15], [0, 1, 2, 14, 18]]),
    ),
    Case(
        "all_class_non_max_suppression",
        [CLASS_BOXES, CLASS_SCORES, np.int64(2), np.float32(0.5), np.float32(0.2)],
        lambda *a: relay.TupleOp(
            *(relay.TupleGetItemOp(relay.AllClassNonMaxSuppressionOp(*a), k) for k in range(2))
        ),
        lambda *_: (
            np.int64([[0, 0, 0], [0, 0, 2], [0, 1, 1], [0, 1, 2], [0, 0, 0], [0, 0, 0]]),
            np.int64([4]),
        ),
    ),
    Case(
        "all_class_non_max_suppression_tensorflow",
        [CLASS_BOXES, CLASS_SCORES, np.int32(1), np.float32(0.5), np.float32(0.2)],
        lambda *a: relay.TupleOp(
            *(
                relay.TupleGetItemOp(
                    relay.AllClassNonMaxSuppressionOp(*a, output_format="tensorflow"), k
                )
                for k in range(3)
            )
        ),
        lambda *_: (
            np.int64([[[0, 0], [1, 1], [0, 0], [0, 0], [0, 0], [0, 0]]]),
            np.float32([[0.9, 0.95, 0, 0, 0, 0]]),
            np.int64([2]),
        ),
    ),
]


def flat_types(func_op: func.FuncOp) -> list[TensorType]:
    """The function's result types with tuples flattened, as evaluate flattens values."""
    out: list[TensorType] = []
    pending: list[Attribute] = list(func_op.function_type.outputs)
    while pending:
        typ = pending.pop(0)
        if isinstance(typ, TupleType):
            pending[:0] = list(typ.types)
        else:
            assert isinstance(typ, TensorType)
            out.append(typ)
    return out


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_op_matches_numpy(case: Case):
    module = build([tensor_type(a) for a in case.inputs], case.body)
    reparsed = round_trip(module)
    got = evaluate(reparsed, case.inputs, params=case.params)
    want = case.reference(*case.inputs)
    wants = list(want) if isinstance(want, tuple) else [want]
    assert len(got) == len(wants)
    func_op = reparsed.body.block.first_op
    assert isinstance(func_op, func.FuncOp)
    for result, expected, typ in zip(got, wants, flat_types(func_op), strict=True):
        assert result.shape == typ.get_shape()
        assert result.dtype == numpy_dtype(typ.get_element_type())
        np.testing.assert_allclose(result, expected, rtol=case.tol, atol=case.tol)


# QNN ops are defined by their canonical form (relay-qnn-canonicalize), which the executor
# runs before interpreting; the interpreter itself refuses them, naming the pass.
CANONICALIZED_FIRST = {op for op in Relay.operations if op.name.startswith("relay.qnn.")}


def test_every_op_has_a_rule_and_a_numeric_case():
    assert CANONICALIZED_FIRST  # the exclusion below names real ops
    assert set(Relay.operations) - CANONICALIZED_FIRST <= set(RULES)
    covered: set[type[Operation]] = set()
    for case in CASES:
        module = build([tensor_type(a) for a in case.inputs], case.body)
        covered |= {type(op) for op in module.walk()}
    names = {op.name for op in set(Relay.operations) - CANONICALIZED_FIRST}
    assert names - {op.name for op in covered} == set()


def test_qnn_ops_are_refused_naming_their_canonicalization():
    def body(x: SSAValue) -> Operation:
        scale = relay.ConstOp(np.array(0.5, np.float32))
        zero_point = relay.ConstOp(np.array(1, np.int32))
        return relay.DequantizeOp(x, scale, zero_point)

    module = build([TensorType(IntegerType(8), [4])], body)
    with pytest.raises(UnsupportedOpError, match="run relay-qnn-canonicalize first"):
        evaluate(module, [np.array([1, -2, 3, 4], np.int8)])


# ---------------------------------------------------------------------------------------------
# Functions, calls and arguments

TWO_FUNCTIONS = """
func.func @scale(%v: tensor<3xf32>) -> tensor<3xf32> {
  %w = relay.param["w"] : tensor<3xf32>
  %y = relay.multiply %v, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %y : tensor<3xf32>
}
func.func @main(%x: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %s = func.call @scale(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %t = func.call @scale(%s) : (tensor<3xf32>) -> tensor<3xf32>
  %r = relay.add %t, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %r, %s : tensor<3xf32>, tensor<3xf32>
}
"""


def parse(text: str) -> ModuleOp:
    module = Parser(context(), text).parse_module()
    module.verify()
    return module


def test_calls_between_functions_and_params_by_name():
    module = parse(TWO_FUNCTIONS)
    x, b = rand(3), rand(3)
    w = np.array([2.0, -1.0, 0.5], dtype=np.float32)
    r, s = evaluate(module, {"b": b, "x": x}, params={"w": w})
    np.testing.assert_allclose(s, x * w, rtol=1e-6)
    np.testing.assert_allclose(r, x * w * w + b, rtol=1e-6)
    (only,) = evaluate(module, [x], entry="scale", params={"w": w})
    np.testing.assert_allclose(only, x * w, rtol=1e-6)


def test_wrong_input_shape_names_the_argument():
    module = parse(TWO_FUNCTIONS)
    with pytest.raises(ArgumentError) as info:
        evaluate(module, [rand(3), rand(4)], params={"w": rand(3)})
    assert str(info.value) == (
        "argument 'b' (#1) of @main: expected tensor<3xf32> (float32 array of shape (3,)), "
        "got float32 array of shape (4,)"
    )


def test_wrong_input_dtype_names_the_argument():
    module = parse(TWO_FUNCTIONS)
    with pytest.raises(ArgumentError, match=r"argument 'x' \(#0\) of @main: expected .* got "):
        evaluate(module, [rand(3, dtype="float64"), rand(3)], params={"w": rand(3)})
    with pytest.raises(ArgumentError, match="got list"):
        evaluate(module, [[1.0, 2.0, 3.0], rand(3)], params={"w": rand(3)})


def test_argument_count_and_names_are_checked():
    module = parse(TWO_FUNCTIONS)
    with pytest.raises(ArgumentError, match="@main takes 2 arguments, got 1"):
        evaluate(module, [rand(3)], params={"w": rand(3)})
    with pytest.raises(ArgumentError, match="@main is missing argument 'b'"):
        evaluate(module, {"x": rand(3)}, params={"w": rand(3)})
    with pytest.raises(ArgumentError, match="@main has no argument named 'y'"):
        evaluate(module, {"x": rand(3), "b": rand(3), "y": rand(3)}, params={"w": rand(3)})


def test_params_are_checked():
    module = parse(TWO_FUNCTIONS)
    with pytest.raises(ArgumentError, match="param 'w' is missing from the params table"):
        evaluate(module, [rand(3), rand(3)])
    with pytest.raises(ArgumentError) as info:
        evaluate(module, [rand(3), rand(3)], params={"w": rand(3, dtype="int32")})
    assert str(info.value) == (
        "param 'w': expected tensor<3xf32> (float32 array of shape (3,)), "
        "got int32 array of shape (3,)"
    )


def test_unknown_entry_is_reported():
    module = parse(TWO_FUNCTIONS)
    with pytest.raises(RelayInterpreterError, match=r"no function @predict .*@scale, @main"):
        evaluate(module, [], entry="predict")


@irdl_op_definition
class MysteryOp(IRDLOperation):
    name = "test.mystery"
    x = operand_def(TensorType)
    y = result_def(TensorType)


def test_an_op_without_a_rule_is_an_error_naming_it():
    def body(x: SSAValue) -> Operation:
        return relay.ReluOp(MysteryOp.create(operands=[x], result_types=[x.type]))

    module = build([TensorType(f32, [3])], body)
    with pytest.raises(
        UnsupportedOpError, match=re.escape("no interpreter rule for 'test.mystery'")
    ):
        evaluate(module, [rand(3)])


def test_a_missing_rule_error_points_at_the_source():
    def body(x: SSAValue) -> Operation:
        op = MysteryOp.create(operands=[x], result_types=[x.type])
        op.location = FileLineColLoc(StringAttr("model.mlir"), IntAttr(3), IntAttr(8))
        return op

    module = build([TensorType(f32, [3])], body)
    with pytest.raises(UnsupportedOpError, match=re.escape("(in @main at model.mlir:3:8)")):
        evaluate(module, [rand(3)])


def test_outputs_are_fresh_arrays():
    x = rand(3)
    module = build([tensor_type(x)], relay.DropoutOp)
    (y,) = evaluate(module, [x])
    np.testing.assert_array_equal(y, x)
    assert not np.shares_memory(x, y)


@pytest.mark.parametrize(
    ("prev", "new", "message"),
    [
        ([2, 3], [-1, -1], "bad shapes"),
        ([2, 3], [4, -1], "cannot reshape"),
        ([2, 3], [7], "cannot reshape"),
    ],
)
def test_sparse_reshape_bad_shapes_are_errors(prev: list[int], new: list[int], message: str):
    indices = np.zeros((1, 2), np.int64)
    module = build(
        [tensor_type(indices), tensor_type(np.array(prev)), tensor_type(np.array(new))],
        relay.SparseReshapeOp,
    )
    with pytest.raises(RelayInterpreterError, match=message):
        evaluate(module, [indices, np.array(prev), np.array(new)])


def test_segment_ids_out_of_range_are_an_error():
    module = build(
        [tensor_type(X), tensor_type(np.array([0, 3]))],
        lambda x, s: relay.SegmentSumOp(x, s, num_segments=3),
    )
    with pytest.raises(RelayInterpreterError, match=r"segment ids must lie in \[0, 3\)"):
        evaluate(module, [X, np.array([0, 3])])


def test_take_fast_out_of_range_is_an_error():
    module = build(
        [TensorType(f32, [3]), TensorType(relay.element_type("int32"), [1])],
        lambda x, i: relay.TakeOp(x, i, axis=0, mode="fast"),
    )
    with pytest.raises(
        RelayInterpreterError, match=re.escape("'relay.take' with mode \"fast\": index 5")
    ):
        evaluate(module, [rand(3), np.array([5], dtype=np.int32)])
