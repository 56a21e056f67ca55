"""The reference interpreter of relay: evaluates relay functions on numpy arrays.

A relay function is a `func.func` whose body is relay ops and a `func.return`; functions call
each other with `func.call`. Each op is evaluated by its rule in `RULES`, a table keyed by op
class; an op without a rule is an error naming it, never skipped. Tensors are numpy arrays of
the element type's dtype (i1 is bool), tuples are Python tuples.

Most rules are an op's numpy semantics alone, `fn(*operand values, **attributes)` (`NUMPY`,
`@numpy_rule`): the op's row in the relay dialect names its attributes, so the dispatch that
reads them (as Python values, defaults filled in) is derived. Rules that need the op itself,
its result type or the helpers of its class are `@rule`s, `fn(op, *operand values)`.

    outputs = evaluate(module, [x], params={"conv1.weight": w})
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeAlias

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from xdsl.dialects import func
from xdsl.dialects.builtin import DYNAMIC_INDEX, FileLineColLoc, ModuleOp, TensorType, TupleType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from xtvm.dialects import relay
from xtvm.ir import winograd
from xtvm.ir.numpy_types import element_type, numpy_dtype

Value: TypeAlias = "np.ndarray | tuple[Value, ...]"
Rule = Callable[["RelayInterpreter", Any, Sequence[Any]], list[Any]]


class RelayInterpreterError(Exception):
    """A relay function could not be evaluated."""


class ArgumentError(RelayInterpreterError):
    """An input or a param does not match the type the function declares for it."""


class UnsupportedOpError(RelayInterpreterError):
    """An op has no rule in the interpreter's table."""


# ---------------------------------------------------------------------------------------------
# Values against types


def describe(value: object) -> str:
    if isinstance(value, np.ndarray):
        return f"{value.dtype} array of shape {value.shape}"
    if isinstance(value, tuple):
        return f"tuple of {len(value)}"
    return type(value).__name__


def expected(typ: Attribute) -> str:
    if isinstance(typ, TensorType):
        return f"{typ} ({numpy_dtype(typ.get_element_type())} array of shape {typ.get_shape()})"
    return str(typ)


def check_value(value: object, typ: Attribute, what: str) -> Value:
    """`value` if it has type `typ` (numpy scalars and lists become arrays), else ArgumentError."""
    if isinstance(typ, TupleType):
        fields = typ.types.data
        if not isinstance(value, tuple | list) or len(value) != len(fields):
            raise ArgumentError(f"{what}: expected {typ}, got {describe(value)}")
        return tuple(
            check_value(v, t, f"{what} field {i}")
            for i, (v, t) in enumerate(zip(value, fields, strict=True))
        )
    assert isinstance(typ, TensorType)
    array = np.asarray(value) if isinstance(value, np.generic) else value
    if not isinstance(array, np.ndarray):
        raise ArgumentError(f"{what}: expected {expected(typ)}, got {describe(value)}")
    if not shape_fits(array.shape, typ) or array.dtype != numpy_dtype(typ.get_element_type()):
        raise ArgumentError(f"{what}: expected {expected(typ)}, got {describe(array)}")
    return array


def shape_fits(shape: Sequence[int], typ: TensorType) -> bool:
    """Whether an array of `shape` has type `typ`'s shape (a `?` dimension takes any size)."""
    wanted = typ.get_shape()
    return len(shape) == len(wanted) and all(
        w in (s, DYNAMIC_INDEX) for s, w in zip(shape, wanted, strict=True)
    )


def symbolic(typ: Attribute) -> bool:
    """Whether `typ` has a `?` size (a symbolic one), in a tuple's fields too."""
    if isinstance(typ, TupleType):
        return any(symbolic(t) for t in typ.types.data)
    return isinstance(typ, TensorType) and DYNAMIC_INDEX in typ.get_shape()


def run_time_types(op: Operation, operands: Sequence[Value]) -> list[Attribute]:
    """`op`'s result types. Where its operand or result types have `?` sizes, the op's type
    rule runs again on its operands' run-time types: that checks the sizes that meet (a `?`
    added to a 3 must be 3) and fills in the result's, a shape function derived from the
    rule itself where TVM writes one beside each relation."""
    declared = [r.type for r in op.results]
    if not isinstance(op, relay.RelayOp) or not any(
        symbolic(t) for t in (*op.operand_types, *declared)
    ):
        return declared
    if not all(isinstance(a, np.ndarray) for a in operands):
        return declared
    types = [TensorType(element_type(a.dtype), a.shape) for a in operands]  # type: ignore[union-attr]
    try:
        return type(op).infer_result_types(types, op.properties)
    except VerifyException as exc:
        raise RelayInterpreterError(f"at run time, {exc}{located(op)}") from None


def run_time_shape(op: Operation, *operands: np.ndarray) -> tuple[int, ...]:
    """The shape of `op`'s tensor result at run time (see `run_time_types`)."""
    typ = run_time_types(op, operands)[0]
    assert isinstance(typ, TensorType)
    return tuple(typ.get_shape())


def conform(value: object, typ: Attribute, op: Operation) -> Value:
    """A rule's result in the op's result type: dtype converted, shape checked."""
    if isinstance(typ, TupleType):
        fields = typ.types.data
        if not isinstance(value, tuple) or len(value) != len(fields):
            raise RelayInterpreterError(f"rule for '{op.name}' returned {describe(value)}")
        return tuple(conform(v, t, op) for v, t in zip(value, fields, strict=True))
    assert isinstance(typ, TensorType)
    array = np.asarray(value, dtype=numpy_dtype(typ.get_element_type()))
    if not shape_fits(array.shape, typ):
        raise RelayInterpreterError(
            f"rule for '{op.name}' produced shape {array.shape}, its type is {typ}"
        )
    return array


def located(op: Operation) -> str:
    """` at file:line:col` where the op was parsed from text, else nothing."""
    loc = op.location
    if not isinstance(loc, FileLineColLoc):
        return ""
    return f" at {loc.filename.data}:{loc.line.data}:{loc.column.data}"


def flatten(values: Sequence[Value]) -> list[np.ndarray]:
    out: list[np.ndarray] = []
    for v in values:
        out.extend(flatten(v) if isinstance(v, tuple) else [v])
    return out


# ---------------------------------------------------------------------------------------------
# The interpreter


class RelayInterpreter:
    """Evaluates the functions of one module, with one params table."""

    def __init__(self, module: ModuleOp, params: Mapping[str, np.ndarray] | None = None) -> None:
        self.module = module
        self.params = dict(params or {})
        self.functions = {
            op.sym_name.data: op for op in module.body.block.ops if isinstance(op, func.FuncOp)
        }

    def function(self, name: str) -> func.FuncOp:
        if name not in self.functions:
            known = ", ".join(f"@{n}" for n in self.functions) or "none"
            raise RelayInterpreterError(f"no function @{name} in the module (functions: {known})")
        f = self.functions[name]
        if not f.body.blocks:
            raise RelayInterpreterError(f"function @{name} is a declaration without a body")
        if len(f.body.blocks) != 1:
            raise RelayInterpreterError(f"function @{name} has more than one block")
        return f

    def param(self, op: relay.ParamOp) -> np.ndarray:
        name = op.param_name.data
        if name not in self.params:
            raise ArgumentError(f"param '{name}' is missing from the params table")
        return check_value(self.params[name], op.result.type, f"param '{name}'")  # type: ignore[return-value]

    def call(self, name: str, args: Sequence[Value]) -> list[Value]:
        """Run function @name on `args`, already checked against its signature.

        Values are computed on demand from the return, so a select on a scalar condition
        (`relay.where`, what an `If` lowers to) computes only the branch it picks: a recursion
        that an `If` ends does end, and the other branch's ops never run.
        """
        f = self.function(name)
        block = f.body.block
        ret = block.last_op
        if not isinstance(ret, func.ReturnOp):
            raise RelayInterpreterError(f"function @{name} does not end with func.return")
        env: dict[SSAValue, Value] = dict(zip(block.args, args, strict=True))
        for root in ret.operands:
            self.demand(root, env, name)
        return [env[v] for v in ret.operands]

    def demand(self, root: SSAValue, env: dict[SSAValue, Value], name: str) -> None:
        """Compute `root` into `env`, with what it needs first (an explicit stack: graphs of
        any depth)."""
        stack = [root]
        while stack:
            value = stack[-1]
            if value in env:
                stack.pop()
                continue
            op = value.owner
            assert isinstance(op, Operation)
            missing = [v for v in needed(op, env) if v not in env]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            self.run(op, env, name)

    def run(self, op: Operation, env: dict[SSAValue, Value], name: str) -> None:
        if is_select(op):
            chosen = op.operands[1] if bool(env[op.operands[0]]) else op.operands[2]
            env[op.results[0]] = conform(env[chosen], op.results[0].type, op)
            return
        rule = RULES.get(type(op))
        if rule is None:
            # QNN ops are defined by their canonical form: relay-qnn-canonicalize rewrites
            # them into the ordinary ops this interpreter runs (create_executor does so).
            hint = "; run relay-qnn-canonicalize first" if op.name.startswith("relay.qnn.") else ""
            raise UnsupportedOpError(
                f"no interpreter rule for '{op.name}' (in @{name}{located(op)}){hint}"
            )
        operands = [env[v] for v in op.operands]
        types = run_time_types(op, operands)
        results = rule(self, op, operands)
        for result, value, typ in zip(op.results, results, types, strict=True):
            env[result] = conform(value, typ, op)


def is_select(op: Operation) -> bool:
    """A `relay.where` on a scalar condition between two values of its result type."""
    if not isinstance(op, relay.WhereOp):
        return False
    cond, then, other = (v.type for v in op.operands)
    scalar = isinstance(cond, TensorType) and not cond.get_shape()
    return scalar and then == other == op.results[0].type


def needed(op: Operation, env: Mapping[SSAValue, Value]) -> list[SSAValue]:
    """The operands `op` reads: a select reads its condition, then only the branch it picks."""
    if not is_select(op):
        return list(op.operands)
    cond = op.operands[0]
    if cond not in env:
        return [cond]
    return [cond, op.operands[1] if bool(env[cond]) else op.operands[2]]


def evaluate(
    module: ModuleOp,
    inputs: Sequence[np.ndarray] | Mapping[str, np.ndarray],
    *,
    entry: str = "main",
    params: Mapping[str, np.ndarray] | None = None,
) -> list[np.ndarray]:
    """Evaluate function @entry of `module` on `inputs`; tuple results are flattened.

    `inputs` are positional, or keyed by argument name (`%x` is "x"). Inputs and params must
    match the declared types exactly (shape and dtype), or ArgumentError says which does not.
    """
    interp = RelayInterpreter(module, params)
    f = interp.function(entry)
    args = f.body.block.args
    names = relay.input_names(f)
    if isinstance(inputs, Mapping):
        unknown = sorted(set(inputs) - set(names))
        if unknown:
            raise ArgumentError(
                f"@{entry} has no argument named {', '.join(map(repr, unknown))} "
                f"(arguments: {', '.join(repr(n) for n in names)})"
            )
        missing = [repr(n) for n in names if n not in inputs]
        if missing:
            raise ArgumentError(f"@{entry} is missing argument {', '.join(missing)}")
        values = [inputs[n] for n in names]
    else:
        values = list(inputs)
        if len(values) != len(args):
            raise ArgumentError(f"@{entry} takes {len(args)} arguments, got {len(values)}")
    checked = []
    for i, (value, arg) in enumerate(zip(values, args, strict=True)):
        label = f"argument '{names[i]}' (#{i})"
        checked.append(check_value(value, arg.type, f"{label} of @{entry}"))
    with np.errstate(all="ignore"):
        results = flatten(interp.call(entry, checked))
    return [np.array(r) for r in results]  # copies: never views of inputs or params


# ---------------------------------------------------------------------------------------------
# Rules: the table and its helpers

RULES: dict[type[Operation], Rule] = {}


def rule(*op_types: type[Operation]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register `fn(op, *operand values) -> value` as the rule of single-result `op_types`:
    for semantics that need the op itself (its result type, its helpers)."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        for op_type in op_types:
            RULES[op_type] = lambda interp, op, args, fn=fn: [fn(op, *args)]
        return fn

    return register


def semantics(fn: Callable[..., Any]) -> Rule:
    """The rule of a relay op whose numpy semantics are `fn(*operand values, **attributes)`:
    the dispatch comes from the op's row, which names its attributes (read as Python values,
    defaults filled in: `op.attr_values()`)."""
    return lambda interp, op, args: [fn(*args, **op.attr_values())]


def numpy_rule(
    *op_types: type[relay.RelayOp],
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register `fn(*operand values, **attributes) -> value` (see `semantics`) for `op_types`."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        RULES.update(dict.fromkeys(op_types, semantics(fn)))
        return fn

    return register


def ints(attr: Attribute) -> tuple[int, ...]:
    return relay.array_values(attr)


def acc_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype sums are accumulated in: at least f32 for floats, i64 for integers."""
    if dtype.kind == "f":
        return np.promote_types(dtype, np.float32)
    return np.dtype(np.int64)


def lowest(dtype: np.dtype) -> Any:
    if dtype.kind == "f":
        return -np.inf
    if dtype.kind == "b":
        return False
    return np.iinfo(dtype).min


def highest(dtype: np.dtype) -> Any:
    if dtype.kind == "f":
        return np.inf
    if dtype.kind == "b":
        return True
    return np.iinfo(dtype).max


def along(vector: np.ndarray, axis: int, rank: int) -> np.ndarray:
    """A 1-d vector shaped to broadcast along `axis` of a rank-`rank` tensor."""
    shape = [1] * rank
    shape[axis] = vector.shape[0]
    return vector.reshape(shape)


def truncating_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind == "f":
        return np.divide(a, b)
    q = np.floor_divide(a, b)
    adjust = (a - q * b != 0) & ((a < 0) != (b < 0))
    return q + adjust


def erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x)


# The numpy semantics of ops without attributes, or that ignore them (dropout's rate).
NUMPY: dict[type[relay.RelayOp], Callable[..., Any]] = {
    relay.AddOp: np.add,
    relay.SubtractOp: np.subtract,
    relay.MultiplyOp: np.multiply,
    relay.DivideOp: truncating_divide,
    relay.PowerOp: np.power,
    relay.MaximumOp: np.maximum,
    relay.MinimumOp: np.minimum,
    relay.EqualOp: np.equal,
    relay.LessOp: np.less,
    relay.GreaterOp: np.greater,
    relay.LessEqualOp: np.less_equal,
    relay.GreaterEqualOp: np.greater_equal,
    relay.NotEqualOp: np.not_equal,
    relay.FloorDivideOp: np.floor_divide,
    relay.FloorModOp: np.mod,
    relay.ModOp: np.fmod,
    relay.LeftShiftOp: np.left_shift,
    relay.RightShiftOp: np.right_shift,
    relay.LogicalAndOp: np.logical_and,
    relay.LogicalOrOp: np.logical_or,
    relay.WhereOp: np.where,
    relay.NegativeOp: np.negative,
    relay.CopyOp: np.copy,
    relay.StopFusionOp: lambda x: x,
    relay.AbsOp: np.abs,
    relay.ExpOp: np.exp,
    relay.LogOp: np.log,
    relay.SqrtOp: np.sqrt,
    relay.RsqrtOp: lambda x: 1 / np.sqrt(x),
    relay.TanhOp: np.tanh,
    relay.SigmoidOp: lambda x: 1 / (1 + np.exp(-x)),
    relay.ErfOp: erf,
    relay.LogicalNotOp: np.logical_not,
    relay.CosOp: np.cos,
    relay.SinOp: np.sin,
    relay.TanOp: np.tan,
    relay.AtanOp: np.arctan,
    relay.FloorOp: np.floor,
    relay.CeilOp: np.ceil,
    relay.TruncOp: np.trunc,
    relay.RoundOp: np.round,
    relay.SignOp: np.sign,
    relay.IsnanOp: np.isnan,
    relay.IsinfOp: np.isinf,
    relay.IsfiniteOp: np.isfinite,
    relay.ReluOp: lambda x: np.maximum(x, 0),
    relay.DropoutOp: lambda x, rate: x,
}
RULES.update({op_type: semantics(fn) for op_type, fn in NUMPY.items()})
RULES.update(
    {
        relay.TupleOp: lambda interp, op, args: [tuple(args)],
        relay.ParamOp: lambda interp, op, args: [interp.param(op)],
        func.CallOp: lambda interp, op, args: interp.call(op.callee.string_value(), args),
    }
)


@rule(relay.ConstOp)
def const(op: relay.ConstOp) -> np.ndarray:
    return relay.numpy_from_dense(op.value)


@rule(relay.TupleGetItemOp)
def tuple_get_item(op: relay.TupleGetItemOp, tup: tuple[Value, ...]) -> Value:
    return tup[op.index.value.data]


# Elementwise with properties


@numpy_rule(relay.ShapeOfOp)
def shape_of(x: np.ndarray, dtype: Attribute) -> np.ndarray:
    return np.array(x.shape, numpy_dtype(dtype))


@numpy_rule(relay.NdarraySizeOp)
def ndarray_size(x: np.ndarray, dtype: Attribute) -> np.ndarray:
    return np.array(x.size, numpy_dtype(dtype))


@numpy_rule(relay.ClipOp)
def clip(x: np.ndarray, a_min: float, a_max: float) -> np.ndarray:
    return np.clip(x, a_min, a_max)


@numpy_rule(relay.CastOp)
def cast(x: np.ndarray, dtype: Attribute) -> np.ndarray:
    return x.astype(numpy_dtype(dtype))


@numpy_rule(relay.LeakyReluOp)
def leaky_relu(x: np.ndarray, alpha: float) -> np.ndarray:
    return np.where(x > 0, x, x * alpha)


@numpy_rule(relay.PreluOp)
def prelu(x: np.ndarray, alpha: np.ndarray, axis: int) -> np.ndarray:
    return np.where(x > 0, x, x * along(alpha, axis % x.ndim, x.ndim))


@numpy_rule(relay.GeluOp)
def gelu(x: np.ndarray, approximate: str) -> np.ndarray:
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


@numpy_rule(relay.SoftmaxOp)
def softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True, initial=lowest(x.dtype)))  # 0-size axis too
    return e / e.sum(axis=axis, keepdims=True)


@numpy_rule(relay.LogSoftmaxOp)
def log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    shifted = x - x.max(axis=axis, keepdims=True, initial=lowest(x.dtype))
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


@numpy_rule(relay.LrnOp)
def lrn(x: np.ndarray, size: int, axis: int, alpha: float, beta: float, bias: float) -> np.ndarray:
    axis %= x.ndim
    squares = np.moveaxis(x.astype(acc_dtype(x.dtype)) ** 2, axis, 0)
    before = size // 2
    padded = np.pad(squares, [(before, size - 1 - before)] + [(0, 0)] * (x.ndim - 1))
    window = sum(padded[i : i + x.shape[axis]] for i in range(size))
    return x / np.moveaxis(bias + alpha / size * window, 0, axis) ** beta


# Convolution and matrix products


def windows(
    x: np.ndarray, kernel: Sequence[int], strides: Sequence[int], dilation: Sequence[int]
) -> np.ndarray:
    """Windows over the last len(kernel) axes: shape (..., *out, *kernel)."""
    n = len(kernel)
    span = [d * (k - 1) + 1 for k, d in zip(kernel, dilation, strict=True)]
    view = sliding_window_view(x, span, axis=tuple(range(-n, 0)))
    steps = tuple(slice(None, None, s) for s in (*strides, *dilation))
    return view[(Ellipsis, *steps)]


def conv_nd(
    x: np.ndarray,
    w: np.ndarray,
    strides: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
) -> np.ndarray:
    """Grouped N-d cross-correlation of x [n, c, *spatial] with w [o, c / groups, *kernel];
    padding is every spatial axis's before, then every after (negative amounts crop)."""
    acc = acc_dtype(x.dtype)
    dims = x.ndim - 2
    xp = pad_or_crop_nd(x.astype(acc), padding[:dims], padding[dims:])
    win = windows(xp, w.shape[2:], strides, dilation)
    cg, og = x.shape[1] // groups, w.shape[0] // groups
    kernel_axes = list(range(2 + dims, 2 + 2 * dims))
    parts = [
        np.tensordot(
            win[:, g * cg : (g + 1) * cg],
            w[g * og : (g + 1) * og].astype(acc),
            axes=([1, *kernel_axes], [1, *range(2, 2 + dims)]),
        )
        for g in range(groups)
    ]
    return np.moveaxis(np.concatenate(parts, axis=-1), -1, 1)


def pad_or_crop_nd(
    x: np.ndarray, before: Sequence[int], after: Sequence[int], value: Any = 0
) -> np.ndarray:
    """The last len(before) axes padded with `value` by non-negative amounts, cropped by
    negative ones."""
    lead = x.ndim - len(before)
    crops = [
        slice(max(-b, 0), d - max(-a, 0))
        for b, a, d in zip(before, after, x.shape[lead:], strict=True)
    ]
    x = x[(Ellipsis, *crops)]
    pads = [(0, 0)] * lead + [(max(b, 0), max(a, 0)) for b, a in zip(before, after, strict=True)]
    return np.pad(x, pads, constant_values=value)


def pad_or_crop(x: np.ndarray, top: int, bottom: int, left: int, right: int) -> np.ndarray:
    """Zero-pad the last two axes by non-negative amounts, crop by negative ones."""
    return pad_or_crop_nd(x, (top, left), (bottom, right))


def channels_first(x: np.ndarray, layout: str) -> np.ndarray:
    """x of a data layout with channels first (NCHW) or last (NHWC) as channels first."""
    return np.moveaxis(x, -1, 1) if layout.endswith("C") else x


def channels_back(x: np.ndarray, layout: str) -> np.ndarray:
    """A channels-first result back in `layout`."""
    return np.moveaxis(x, 1, -1) if layout.endswith("C") else x


def out_dtype_of(op: relay.RelayOp, x: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """data and weight converted to the op's out_dtype, as TVM converts them, when it has one."""
    out = op.out_dtype.data  # type: ignore[attr-defined]
    if not out:
        return x, w
    return x.astype(np.dtype(out)), w.astype(np.dtype(out))


@rule(relay.Conv1dOp, relay.Conv3dOp)
def conv_nd_rule(op: relay.Conv1dOp | relay.Conv3dOp, x: np.ndarray, w: np.ndarray) -> np.ndarray:
    x, w = out_dtype_of(op, x, w)
    layout = op.data_layout.data
    canonical = relay.Layout.parse("OI" + "DHW"[3 - op.SPATIAL :])
    w = transform_layout(w, relay.Layout.parse(op.kernel_layout.data), canonical)
    y = conv_nd(
        channels_first(x, layout),
        w,
        ints(op.strides),
        ints(op.padding),
        ints(op.dilation),
        op.groups.value.data,
    )
    return channels_back(y, layout)


@rule(relay.Conv1dTransposeOp, relay.Conv2dTransposeOp, relay.Conv3dTransposeOp)
def conv_transpose(op: relay.ConvTransposeOp, x: np.ndarray, w: np.ndarray) -> np.ndarray:
    # A stride-1 convolution of the stride-dilated input with the flipped, in/out-swapped
    # kernel; padding becomes dilation * (k - 1) - padding on each side (negative crops).
    x, w = out_dtype_of(op, x, w)
    layout, dims = op.data_layout.data, op.SPATIAL
    strides, dilation, groups = ints(op.strides), ints(op.dilation), op.groups.value.data
    padding, out_pad = ints(op.padding), ints(op.output_padding)
    spatial = "DHW"[3 - dims :]
    w = transform_layout(
        w, relay.Layout.parse(op.kernel_layout.data), relay.Layout.parse("IO" + spatial)
    )
    x = channels_first(x, layout)
    n, c, *size = x.shape
    cin, og, *kernel = w.shape
    dilated = np.zeros(
        (n, c, *[(d - 1) * s + 1 for d, s in zip(size, strides, strict=True)]), x.dtype
    )
    dilated[(Ellipsis, *(slice(None, None, s) for s in strides))] = x
    ig = cin // groups
    flipped = w.reshape(groups, ig, og, *kernel).swapaxes(1, 2).reshape(groups * og, ig, *kernel)
    flipped = flipped[(Ellipsis, *(slice(None, None, -1) for _ in kernel))]
    extent = [d * (k - 1) for d, k in zip(dilation, kernel, strict=True)]
    before = [e - p for e, p in zip(extent, padding[:dims], strict=True)]
    after = [e - p + o for e, p, o in zip(extent, padding[dims:], out_pad, strict=True)]
    y = conv_nd(dilated, flipped, (1,) * dims, before + after, dilation, groups)
    return channels_back(y, layout)


OIHW = relay.Layout.parse("OIHW")


@rule(relay.Conv2dOp)
def conv2d(op: relay.Conv2dOp, x: np.ndarray, w: np.ndarray) -> np.ndarray:
    nhwc = op.data_layout.data == "NHWC"
    if nhwc:
        x = x.transpose(0, 3, 1, 2)
    w = transform_layout(w, relay.Conv2dOp.kernel_layout_of(op.properties), OIHW)
    y = conv_nd(x, w, ints(op.strides), ints(op.padding), ints(op.dilation), op.groups.value.data)
    return y.transpose(0, 2, 3, 1) if nhwc else y


def bilinear_taps(x: np.ndarray, y: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """x [n, c, h, w] sampled bilinearly at rows `y` and columns `xs` (arrays [n, c, ...]):
    corners outside the data count as zero, and so does a point outside [0, h) x [0, w)."""
    n, c, h, w = x.shape
    lead = tuple(np.arange(k).reshape((k,) + (1,) * (y.ndim - 1 - i)) for i, k in enumerate((n, c)))
    y0, x0 = np.floor(y), np.floor(xs)
    out = np.zeros(y.shape, acc_dtype(x.dtype))
    for yp, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
        for xp, wx in ((x0, 1 - (xs - x0)), (x0 + 1, xs - x0)):
            inside = (yp >= 0) & (yp < h) & (xp >= 0) & (xp < w)
            rows = np.clip(yp, 0, h - 1).astype(np.int64)
            cols = np.clip(xp, 0, w - 1).astype(np.int64)
            out += np.where(inside, wy * wx * x[lead[0], lead[1], rows, cols], 0)
    return np.where((y < 0) | (xs < 0) | (y >= h) | (xs >= w), 0, out)


@rule(relay.DeformableConv2dOp)
def deformable_conv2d(
    op: relay.DeformableConv2dOp, x: np.ndarray, offset: np.ndarray, w: np.ndarray
) -> np.ndarray:
    a = op.attr_values()
    nhwc = a["data_layout"] == "NHWC"
    if nhwc:
        x, offset = x.transpose(0, 3, 1, 2), offset.transpose(0, 3, 1, 2)
    w = transform_layout(w, relay.Layout.parse(a["kernel_layout"]), OIHW)
    (sh, sw), (dh, dw) = a["strides"], a["dilation"]
    top, left = a["padding"][:2]
    n, c = x.shape[:2]
    o, cg, kh, kw = w.shape
    oh, ow = offset.shape[2:]
    groups, dg = a["groups"], a["deformable_groups"]
    moves = offset.reshape(n, dg, kh, kw, 2, oh, ow).repeat(c // dg, axis=1)
    rows = (np.arange(oh) * sh - top)[None, :] + (np.arange(kh) * dh)[:, None]  # [kh, oh]
    cols = (np.arange(ow) * sw - left)[None, :] + (np.arange(kw) * dw)[:, None]  # [kw, ow]
    y = rows[:, None, :, None] + moves[:, :, :, :, 0]  # [n, c, kh, kw, oh, ow]
    xs = cols[None, :, None, :] + moves[:, :, :, :, 1]
    taps = bilinear_taps(x, y.astype(offset.dtype), xs.astype(offset.dtype))
    og = o // groups
    out = np.concatenate(
        [
            np.einsum(
                "ncijyx,fcij->nfyx",
                taps[:, g * cg : (g + 1) * cg],
                w[g * og : (g + 1) * og].astype(taps.dtype),
            )
            for g in range(groups)
        ],
        axis=1,
    ).astype(x.dtype)
    return out.transpose(0, 2, 3, 1) if nhwc else out


def crop_positions(start: np.ndarray, end: np.ndarray, size: int, extent: int) -> np.ndarray:
    """TensorFlow's crop_and_resize sample positions [boxes, size] along an axis of `extent`
    pixels, from box edges `start` and `end` (normalised to [0, 1])."""
    if size == 1:
        return (0.5 * (start + end) * (extent - 1))[:, None]
    step = (end - start) * (extent - 1) / (size - 1)
    return start[:, None] * (extent - 1) + np.arange(size) * step[:, None]


@numpy_rule(relay.CropAndResizeOp)
def crop_and_resize(
    x: np.ndarray,
    boxes: np.ndarray,
    box_indices: np.ndarray,
    crop_size: Sequence[int],
    layout: str,
    method: str,
    extrapolation_value: float,
) -> np.ndarray:
    nhwc = layout == "NHWC"
    image = x.transpose(0, 3, 1, 2) if nhwc else x
    h, w = image.shape[2:]
    if box_indices.size and (box_indices.min() < 0 or box_indices.max() >= image.shape[0]):
        raise RelayInterpreterError(f"crop_and_resize: box index out of [0, {image.shape[0]})")
    ys = crop_positions(boxes[:, 0], boxes[:, 2], crop_size[0], h)[:, :, None]  # [b, ch, 1]
    xs = crop_positions(boxes[:, 1], boxes[:, 3], crop_size[1], w)[:, None, :]  # [b, 1, cw]
    source = image[box_indices.astype(np.int64)]  # [b, c, h, w]
    b = np.arange(len(boxes))[:, None, None, None]
    c = np.arange(image.shape[1])[None, :, None, None]

    def read(rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        rows = np.clip(rows, 0, h - 1).astype(np.int64)[:, None]
        cols = np.clip(cols, 0, w - 1).astype(np.int64)[:, None]
        return source[b, c, rows, cols]

    if method == "nearest_neighbor":
        out = read(np.round(ys), np.round(xs))
    else:
        y0, x0 = np.floor(ys), np.floor(xs)
        dy, dx = (ys - y0)[:, None], (xs - x0)[:, None]
        top = read(y0, x0) * (1 - dx) + read(y0, x0 + 1) * dx
        bottom = read(y0 + 1, x0) * (1 - dx) + read(y0 + 1, x0 + 1) * dx
        out = top * (1 - dy) + bottom * dy
    outside = ((ys < 0) | (ys > h - 1) | (xs < 0) | (xs > w - 1))[:, None]
    out = np.where(outside, extrapolation_value, out).astype(x.dtype)
    return out.transpose(0, 2, 3, 1) if nhwc else out


@rule(relay.DepthToSpaceOp, relay.SpaceToDepthOp)
def block_rearrange(op: relay.RelayOp, x: np.ndarray) -> np.ndarray:
    a = op.attr_values()
    b, nhwc = a["block_size"], a["layout"] == "NHWC"
    data = x.transpose(0, 3, 1, 2) if nhwc else x
    n, c, h, w = data.shape
    if isinstance(op, relay.SpaceToDepthOp):
        blocks = data.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
        out = blocks.reshape(n, c * b * b, h // b, w // b)
    elif a["mode"] == "DCR":
        blocks = data.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
        out = blocks.reshape(n, c // (b * b), h * b, w * b)
    else:
        blocks = data.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
        out = blocks.reshape(n, c // (b * b), h * b, w * b)
    return out.transpose(0, 2, 3, 1) if nhwc else out


@numpy_rule(relay.Dilation2dOp)
def dilation2d(
    x: np.ndarray,
    w: np.ndarray,
    strides: Sequence[int],
    padding: Sequence[int],
    dilations: Sequence[int],
    data_layout: str,
    kernel_layout: str,
) -> np.ndarray:
    """max over the window of x (zero-padded, as TVM) + w, per channel."""
    nhwc = data_layout == "NHWC"
    if nhwc:
        x = x.transpose(0, 3, 1, 2)
    if kernel_layout == "HWI":
        w = w.transpose(2, 0, 1)
    pt, pl, pb, pr = padding
    win = windows(pad_or_crop(x, pt, pb, pl, pr), w.shape[1:], strides, dilations)
    # win: [n, c, oh, ow, kh, kw]
    y = (win + w[None, :, None, None]).max(axis=(4, 5)).astype(x.dtype)
    return y.transpose(0, 2, 3, 1) if nhwc else y


@numpy_rule(relay.Conv2dWinogradOp)
def conv2d_winograd(x: np.ndarray, u: np.ndarray, tile_size: int, padding: Any) -> np.ndarray:
    return winograd.conv2d_nhwc(x, u, tile_size, padding)


@numpy_rule(relay.BitpackOp)
def bitpack(x: np.ndarray, bits: int, pack_axis: int, bit_axis: int, pack_type: str) -> np.ndarray:
    width = np.dtype(pack_type).itemsize * 8
    pack_axis %= x.ndim
    moved = np.moveaxis(x.astype(np.int64), pack_axis, -1)
    groups = moved.reshape(*moved.shape[:-1], -1, width)
    weights = np.array([1 << (width - 1 - j) for j in range(width)], np.uint64)
    planes = [
        np.moveaxis((((groups >> b) & 1).astype(np.uint64) * weights).sum(axis=-1), -1, pack_axis)
        for b in range(bits)
    ]
    return np.stack(planes, axis=bit_axis).astype(pack_type)


@numpy_rule(relay.DenseOp)
def dense(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    acc = acc_dtype(x.dtype)
    return np.matmul(x.astype(acc), w.astype(acc).T)


@numpy_rule(relay.MatmulOp)
def matmul(a: np.ndarray, b: np.ndarray, transpose_a: bool, transpose_b: bool) -> np.ndarray:
    acc = acc_dtype(a.dtype)
    a, b = a.astype(acc), b.astype(acc)
    return np.matmul(np.swapaxes(a, -1, -2) if transpose_a else a, b.T if transpose_b else b)


@numpy_rule(relay.BatchMatmulOp)
def batch_matmul(x: np.ndarray, y: np.ndarray, transpose_a: bool, transpose_b: bool) -> np.ndarray:
    acc = acc_dtype(x.dtype)
    x, y = x.astype(acc), y.astype(acc)
    if transpose_a:
        x = x.transpose(0, 2, 1)
    if transpose_b:
        y = y.transpose(0, 2, 1)
    return np.matmul(x, y)


@numpy_rule(relay.BiasAddOp)
def bias_add(x: np.ndarray, bias: np.ndarray, axis: int) -> np.ndarray:
    return x + along(bias, axis % x.ndim, x.ndim)


# Normalisation


@numpy_rule(relay.BatchNormOp)
def batch_norm(
    x: np.ndarray,
    gamma: np.ndarray,
    beta: np.ndarray,
    mean: np.ndarray,
    var: np.ndarray,
    axis: int,
    epsilon: float,
    center: bool,
    scale: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    axis %= x.ndim
    factor = 1 / np.sqrt(var + epsilon)
    if scale:
        factor = factor * gamma
    shift = beta if center else np.zeros_like(beta)
    out = (x - along(mean, axis, x.ndim)) * along(factor, axis, x.ndim) + along(shift, axis, x.ndim)
    return out, mean, var


@numpy_rule(relay.LayerNormOp)
def layer_norm(
    x: np.ndarray,
    gamma: np.ndarray,
    beta: np.ndarray,
    axis: int,
    epsilon: float,
    center: bool,
    scale: bool,
) -> np.ndarray:
    axis %= x.ndim
    wide = x.astype(acc_dtype(x.dtype))
    mean = wide.mean(axis=axis, keepdims=True)
    var = ((wide - mean) ** 2).mean(axis=axis, keepdims=True)
    out = (wide - mean) / np.sqrt(var + epsilon)
    if scale:
        out = out * along(gamma, axis, x.ndim)
    if center:
        out = out + along(beta, axis, x.ndim)
    return out


# Pooling, padding, resizing


def to_nchw(x: np.ndarray, layout: str) -> np.ndarray:
    return x.transpose(0, 3, 1, 2) if layout == "NHWC" else x


def from_nchw(x: np.ndarray, layout: str) -> np.ndarray:
    return x.transpose(0, 2, 3, 1) if layout == "NHWC" else x


PoolOp = relay.Pool1dOp | relay.Pool2dOp | relay.Pool3dOp


def pool_nd(op: PoolOp, x: np.ndarray, is_max: bool) -> np.ndarray:
    """Max or average pooling over the spatial axes of a 1-d, 2-d or 3-d pool's data."""
    layout, given = op.layout.data, x
    x = channels_first(x, layout)
    kernel, strides, dilation = ints(op.pool_size), ints(op.strides), ints(op.dilation)
    dims, padding = len(kernel), ints(op.padding)
    before, after = list(padding[:dims]), list(padding[dims:])
    out = channels_first(np.empty(run_time_shape(op, given), dtype=np.bool_), layout).shape[2:]
    size = x.shape[2:]
    # ceil_mode windows may run past the far padding: extend it, never counting it.
    for j in range(dims):
        reach = (out[j] - 1) * strides[j] + dilation[j] * (kernel[j] - 1) + 1
        after[j] += max(0, reach - (size[j] + before[j] + after[j]))
    cells = tuple(slice(0, o) for o in out)
    reduce_axes = tuple(range(-dims, 0))
    if is_max:
        # TVM pads with the lowest finite value: a window wholly in the padding gives it
        fill = np.finfo(x.dtype).min if x.dtype.kind == "f" else lowest(x.dtype)
        xp = pad_or_crop_nd(x, before, after, fill)
        result = windows(xp, kernel, strides, dilation)[(Ellipsis, *cells, *[slice(None)] * dims)]
        return channels_back(result.max(axis=reduce_axes), layout)
    xp = pad_or_crop_nd(x.astype(acc_dtype(x.dtype)), before, after)
    win = windows(xp, kernel, strides, dilation)[(Ellipsis, *cells, *[slice(None)] * dims)]
    total = win.sum(axis=reduce_axes)
    mask = np.zeros(xp.shape[2:])
    if op.count_include_pad.value.data:  # type: ignore[attr-defined]
        declared = [b + d + a for b, d, a in zip(padding[:dims], size, padding[dims:], strict=True)]
        mask[tuple(slice(0, e) for e in declared)] = 1
    else:
        mask[tuple(slice(b, b + d) for b, d in zip(before, size, strict=True))] = 1
    count = windows(mask, kernel, strides, dilation)[(*cells, Ellipsis)].sum(axis=reduce_axes)
    return channels_back(total / np.maximum(count, 1), layout)


@rule(relay.MaxPool1dOp, relay.MaxPool2dOp, relay.MaxPool3dOp)
def max_pool(op: PoolOp, x: np.ndarray) -> np.ndarray:
    return pool_nd(op, x, is_max=True)


@rule(relay.AvgPool1dOp, relay.AvgPool2dOp, relay.AvgPool3dOp)
def avg_pool(op: PoolOp, x: np.ndarray) -> np.ndarray:
    return pool_nd(op, x, is_max=False)


def adaptive_bounds(in_size: int, out_size: int) -> list[tuple[int, int]]:
    """The input range of each output cell of an adaptive pool (TVM's windows)."""
    return [(i * in_size // out_size, -(-(i + 1) * in_size // out_size)) for i in range(out_size)]


@rule(
    relay.AdaptiveMaxPool1dOp,
    relay.AdaptiveAvgPool1dOp,
    relay.AdaptiveMaxPool2dOp,
    relay.AdaptiveAvgPool2dOp,
    relay.AdaptiveMaxPool3dOp,
    relay.AdaptiveAvgPool3dOp,
)
def adaptive_pool(op: relay.AdaptivePoolOp, x: np.ndarray) -> np.ndarray:
    # Max and sum over a box are each a reduction along one axis after another; the mean is
    # the box's sum (exact in the accumulator type) over its size.
    layout, is_max = op.layout.data, "max" in op.name
    y = channels_first(x, layout)
    if not is_max:
        y = y.astype(acc_dtype(y.dtype))
    count = np.ones((1, 1) + (1,) * (y.ndim - 2))
    for j, out_size in enumerate(ints(op.output_size)):
        axis = 2 + j
        bounds = adaptive_bounds(y.shape[axis], out_size)
        parts = [np.take(y, range(lo, hi), axis=axis) for lo, hi in bounds]
        y = np.stack([p.max(axis=axis) if is_max else p.sum(axis=axis) for p in parts], axis)
        sizes = np.array([hi - lo for lo, hi in bounds], np.float64)
        count = count * sizes.reshape((1,) * axis + (-1,) + (1,) * (y.ndim - axis - 1))
    return channels_back(y if is_max else y / count, layout)


@numpy_rule(relay.GlobalAvgPool2dOp)
def global_avg_pool2d(x: np.ndarray, layout: str) -> np.ndarray:
    axes = (1, 2) if layout == "NHWC" else (2, 3)
    return x.astype(acc_dtype(x.dtype)).mean(axis=axes, keepdims=True)


@numpy_rule(relay.GlobalMaxPool2dOp)
def global_max_pool2d(x: np.ndarray, layout: str) -> np.ndarray:
    axes = (1, 2) if layout == "NHWC" else (2, 3)
    return x.max(axis=axes, keepdims=True, initial=lowest(x.dtype))


@numpy_rule(relay.PadOp)
def pad(x: np.ndarray, pad_width: Sequence[int], pad_value: float, pad_mode: str) -> np.ndarray:
    pairs = [(pad_width[2 * i], pad_width[2 * i + 1]) for i in range(x.ndim)]
    if pad_mode == "constant":
        return np.pad(x, pairs, constant_values=pad_value)
    return np.pad(x, pairs, mode=pad_mode)


def source_coords(out_size: int, in_size: int, mode: str) -> np.ndarray:
    """The input coordinate each output index samples (TVM's coordinate transformations),
    computed in float32 as TVM's resize does: a coordinate such as 3 * (4 / 24) lands just
    above 0.5, and nearest-neighbour rounding goes up there as TVM's does."""
    f32 = np.float32
    o = np.arange(out_size, dtype=f32)
    if mode == "align_corners":
        if out_size == 1:
            return np.zeros(out_size)
        return (o * (f32(in_size - 1) / f32(out_size - 1))).astype(np.float64)
    scale = f32(in_size) / f32(out_size)
    coords = (o + f32(0.5)) * scale - f32(0.5) if mode == "half_pixel" else o * scale
    return coords.astype(np.float64)


def nearest_index(coords: np.ndarray, rounding: str, in_size: int) -> np.ndarray:
    rounded = {
        # TVM's round is LLVM's: ties away from zero (coordinates here are >= -0.5)
        "round": lambda c: np.sign(c) * np.floor(np.abs(c) + 0.5),
        "floor": lambda c: np.floor(c + 1e-5),
        "ceil": lambda c: np.ceil(c - 1e-5),
        "round_prefer_floor": lambda c: np.ceil(c - 0.5),
        "round_prefer_ceil": lambda c: np.floor(c + 0.5),
    }[rounding](coords)
    return np.clip(rounded.astype(np.int64), 0, in_size - 1)


def cubic_weights(t: np.ndarray, alpha: float) -> np.ndarray:
    """Keys' cubic convolution weights of the taps at -1, 0, 1, 2 for fractions `t`."""
    t2, t3 = t * t, t * t * t
    return np.stack(
        [
            alpha * (t3 - 2 * t2 + t),
            (alpha + 2) * t3 - (alpha + 3) * t2 + 1,
            -(alpha + 2) * t3 + (2 * alpha + 3) * t2 - alpha * t,
            -alpha * t3 + alpha * t2,
        ],
        axis=-1,
    )


def resize_axis(
    x: np.ndarray,
    axis: int,
    out_size: int,
    method: str,
    mode: str,
    rounding: str,
    alpha: float = -0.5,
    exclude: bool = False,
) -> np.ndarray:
    """`x` resized along `axis` to `out_size` (interpolation is separable, so a resize is one
    of these per spatial axis)."""
    in_size = x.shape[axis]
    coords = source_coords(out_size, in_size, mode)
    if method == "nearest_neighbor":
        rounding = rounding or ("round" if mode == "align_corners" else "floor")
        return np.take(x, nearest_index(coords, rounding, in_size), axis=axis)
    base = np.floor(coords)
    frac = coords - base
    if method == "linear":
        offsets, weights = np.arange(2), np.stack([1 - frac, frac], axis=-1)
    else:
        offsets, weights = np.arange(-1, 3), cubic_weights(frac, alpha)
    taps = base.astype(np.int64)[:, None] + offsets[None, :]
    if method == "cubic" and exclude:  # taps outside the input count for nothing
        weights = np.where((taps >= 0) & (taps < in_size), weights, 0.0)
        weights = weights / weights.sum(axis=-1, keepdims=True)
    taps = np.clip(taps, 0, in_size - 1)
    wide = np.moveaxis(x.astype(acc_dtype(x.dtype)), axis, -1)
    out = (wide[..., taps] * weights).sum(axis=-1)
    return np.moveaxis(out, -1, axis)


def resize_nchw(
    x: np.ndarray, size: Sequence[int], method: str, mode: str, rounding: str
) -> np.ndarray:
    for axis, extent in zip((2, 3), size, strict=True):
        x = resize_axis(x, axis, extent, method, mode, rounding)
    return x


@rule(relay.Resize1dOp, relay.Resize2dOp, relay.Resize3dOp)
def resize(op: relay.RelayOp, x: np.ndarray) -> np.ndarray:
    a = op.attr_values()
    if not relay.static_dims(*a["size"]):
        raise RelayInterpreterError(
            f"'{op.name}' has a symbolic size, which only type inference can take: give it "
            f"static sizes to run it{located(op)}"
        )
    axes = relay.resize_axes(type(op), a["layout"], len(a["size"]))
    for axis, extent in zip(axes, a["size"], strict=True):
        x = resize_axis(
            x,
            axis,
            extent,
            a["method"],
            a["coordinate_transformation_mode"],
            a["rounding_method"],
            a["cubic_alpha"],
            bool(a["cubic_exclude"]),
        )
    return x.astype(numpy_dtype(op.result.type.get_element_type()))  # type: ignore[attr-defined]


@rule(relay.UpsamplingOp)
def upsampling(op: relay.UpsamplingOp, x: np.ndarray) -> np.ndarray:
    layout = op.layout.data
    _, _, oh, ow = to_nchw(np.empty(run_time_shape(op, x), dtype=np.bool_), layout).shape
    mode = "align_corners" if op.align_corners.value.data else "asymmetric"
    method = "linear" if op.method.data == "bilinear" else "nearest_neighbor"
    return from_nchw(resize_nchw(to_nchw(x, layout), (oh, ow), method, mode, ""), layout)


# Reductions


def reduction(fn: Callable[..., np.ndarray]) -> Rule:
    def apply(x: np.ndarray, axis: tuple[int, ...] | None, keepdims: bool) -> np.ndarray:
        axes = tuple(range(x.ndim)) if axis is None else tuple(a % x.ndim for a in axis)
        return fn(x, axis=axes, keepdims=keepdims)

    return semantics(apply)


RULES.update(
    {
        relay.SumOp: reduction(np.sum),
        relay.MeanOp: reduction(np.mean),
        # An empty axis reduces to the identity (TVM's: the lowest / highest value).
        relay.MaxOp: reduction(lambda x, **kw: np.max(x, initial=lowest(x.dtype), **kw)),
        relay.MinOp: reduction(lambda x, **kw: np.min(x, initial=highest(x.dtype), **kw)),
        relay.ProdOp: reduction(np.prod),
    }
)


def arg_reduce(fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """`fn` (np.argmax, np.argmin) over the axes, as one axis: the reduced axes, in increasing
    order, moved last and flattened, so the index is the row-major offset within them."""

    def apply(
        x: np.ndarray, axis: tuple[int, ...] | None, keepdims: bool, select_last_index: bool
    ) -> np.ndarray:
        axes = sorted({a % x.ndim for a in (range(x.ndim) if axis is None else axis)})
        kept = [a for a in range(x.ndim) if a not in axes]
        moved = x.transpose(kept + axes)
        flat = moved.reshape(*moved.shape[: len(kept)], -1)
        if select_last_index:  # the first from the end
            index = flat.shape[-1] - 1 - fn(flat[..., ::-1], axis=-1)
        else:
            index = fn(flat, axis=-1)
        if keepdims:
            index = index.reshape([1 if a in axes else n for a, n in enumerate(x.shape)])
        return index

    return apply


RULES.update(
    {
        relay.ArgmaxOp: semantics(arg_reduce(np.argmax)),
        relay.ArgminOp: semantics(arg_reduce(np.argmin)),
    }
)


# Shape manipulation


@rule(relay.ReshapeOp, relay.SqueezeOp, relay.ExpandDimsOp, relay.BatchFlattenOp)
def reshape(op: relay.RelayOp, x: np.ndarray) -> np.ndarray:
    return x.reshape(run_time_shape(op, x))


@rule(relay.TransposeOp)
def transpose(op: relay.TransposeOp, x: np.ndarray) -> np.ndarray:
    perm = relay.TransposeOp.permutation(relay.TransposeOp.props(op.properties), x.ndim)
    return x.transpose(perm)


@rule(relay.ConcatenateOp)
def concatenate(op: relay.ConcatenateOp, *xs: np.ndarray) -> np.ndarray:
    return np.concatenate(xs, axis=op.attr_values()["axis"])


@rule(relay.SplitOp)
def split(op: relay.SplitOp, x: np.ndarray) -> tuple[np.ndarray, ...]:
    axis = op.axis.value.data % x.ndim
    points = relay.SplitOp.boundaries(relay.SplitOp.props(op.properties), x.shape[axis])
    return tuple(np.split(x, points[1:-1], axis=axis))


@rule(relay.StridedSliceOp)
def strided_slice(op: relay.StridedSliceOp, x: np.ndarray) -> np.ndarray:
    return x[tuple(relay.StridedSliceOp.slices(op.properties, x.shape))]


@numpy_rule(relay.TakeOp)
def take(x: np.ndarray, indices: np.ndarray, axis: int | None, mode: str) -> np.ndarray:
    clip = {"clip": "clip", "wrap": "wrap", "fast": "raise"}[mode]
    try:
        return np.take(x.ravel() if axis is None else x, indices, axis=axis, mode=clip)
    except IndexError as exc:
        raise RelayInterpreterError(f"'relay.take' with mode \"fast\": {exc}") from None


RULES.update({relay.BroadcastToOp: semantics(np.broadcast_to), relay.TileOp: semantics(np.tile)})


@rule(relay.LayoutTransformOp)
def layout_transform(op: relay.LayoutTransformOp, x: np.ndarray) -> np.ndarray:
    return transform_layout(x, *relay.LayoutTransformOp.layouts(op.properties))


def transform_layout(x: np.ndarray, src: relay.Layout, dst: relay.Layout) -> np.ndarray:
    """`x`, laid out as `src`, laid out as `dst` (the primal axes of both the same)."""
    sizes = src.primal_sizes(x.shape)
    # Merge each split axis into its primal axis, in the source's primal order ...
    order: list[int] = []
    for axis in src.primal:
        order.append(src.axes.index(axis))
        if axis.lower() in src.axes:
            order.append(src.axes.index(axis.lower()))
    primal = x.transpose(order).reshape([sizes[a] for a in src.primal])
    # ... then permute to the destination's primal order and split again.
    primal = primal.transpose([src.primal.index(a) for a in dst.primal])
    names: list[str] = []
    shape: list[int] = []
    for axis in dst.primal:
        factor = dst.factors.get(axis)
        if factor is None:
            names.append(axis)
            shape.append(sizes[axis])
        else:
            names += [axis, axis.lower()]
            shape += [sizes[axis] // factor, factor]
    return primal.reshape(shape).transpose([names.index(a) for a in dst.axes])


# Gather, scatter and scans


def checked_index(op: Operation, indices: np.ndarray, fn: Callable[[], np.ndarray]) -> np.ndarray:
    """`fn()`, with an out-of-range index (negative ones too: the ops do not wrap them)
    reported as an error naming the op."""
    if indices.size and indices.min() < 0:
        raise RelayInterpreterError(f"'{op.name}': negative index {indices.min()}")
    try:
        return fn()
    except IndexError as exc:
        raise RelayInterpreterError(f"'{op.name}': {exc}") from None


def nd_positions(indices: np.ndarray, batch_dims: int) -> tuple[np.ndarray, ...]:
    """Index arrays selecting data[b..., i_0, ..., i_{M-1}] for each (b..., y...) of
    gather_nd/scatter_nd indices (M, B..., Y...)."""
    lead = indices.shape[1:]
    batch = np.indices(lead, sparse=True)[:batch_dims]
    return (*batch, *indices.astype(np.int64))


@rule(relay.GatherNdOp)
def gather_nd(op: relay.GatherNdOp, x: np.ndarray, indices: np.ndarray) -> np.ndarray:
    at = nd_positions(indices, op.batch_dims.value.data)
    return checked_index(op, indices, lambda: x[at])


SCATTER_UFUNCS: dict[str, np.ufunc] = {
    "add": np.add,
    "mul": np.multiply,
    "min": np.minimum,
    "max": np.maximum,
}


def scatter(
    op: Operation,
    x: np.ndarray,
    indices: np.ndarray,
    at: tuple[Any, ...],
    updates: np.ndarray,
    mode: str,
) -> np.ndarray:
    """x with `updates` written (mode update: in order, the last write wins) or combined
    unbuffered (repeated positions all count) at the positions `at`."""
    out = x.copy()

    def write() -> np.ndarray:
        if mode == "update":
            out[at] = updates
        else:
            SCATTER_UFUNCS[mode].at(out, at, updates)
        return out

    return checked_index(op, indices, write)


@rule(relay.ScatterNdOp)
def scatter_nd(
    op: relay.ScatterNdOp, x: np.ndarray, indices: np.ndarray, updates: np.ndarray
) -> np.ndarray:
    return scatter(op, x, indices, nd_positions(indices, 0), updates, op.mode.data)


def element_positions(indices: np.ndarray, axis: int) -> tuple[np.ndarray, ...]:
    """Index arrays reading data at `indices` along `axis`, at the same place elsewhere."""
    at = list(np.indices(indices.shape, sparse=True))
    at[axis] = indices.astype(np.int64)
    return tuple(at)


@rule(relay.GatherOp)
def gather(op: relay.GatherOp, x: np.ndarray, indices: np.ndarray) -> np.ndarray:
    at = element_positions(indices, op.axis.value.data % x.ndim)
    return checked_index(op, indices, lambda: x[at])


@rule(relay.ScatterElementsOp)
def scatter_elements(
    op: relay.ScatterElementsOp, x: np.ndarray, indices: np.ndarray, updates: np.ndarray
) -> np.ndarray:
    axis = op.axis.value.data % x.ndim
    # A negative index counts from the end of the axis, as in TVM; below -size is an error.
    indices = np.where(indices < 0, indices + x.shape[axis], indices)
    at = element_positions(indices, axis)
    # numpy's assignment with repeated positions keeps the last write, as the op's update does.
    return scatter(op, x, indices, at, updates, op.reduction.data)


@rule(relay.SliceLikeOp)
def slice_like(op: relay.SliceLikeOp, x: np.ndarray, like: np.ndarray) -> np.ndarray:
    shape = run_time_shape(op, x, like)
    return x[tuple(slice(0, n) for n in shape)].copy()


@numpy_rule(relay.ReverseSequenceOp)
def reverse_sequence(
    x: np.ndarray, lengths: np.ndarray, seq_axis: int, batch_axis: int
) -> np.ndarray:
    seq, batch = seq_axis % x.ndim, batch_axis % x.ndim
    out = x.copy()
    for b, length in enumerate(lengths):
        n = min(int(length), x.shape[seq])
        if n > 1:
            at: list[Any] = [slice(None)] * x.ndim
            at[batch], at[seq] = b, slice(0, n)
            out[tuple(at)] = np.flip(x[tuple(at)], axis=seq - (batch < seq))
    return out


@rule(relay.UnravelIndexOp)
def unravel_index(op: relay.UnravelIndexOp, indices: np.ndarray, shape: np.ndarray) -> np.ndarray:
    dims = shape.astype(np.int64)
    if (dims <= 0).any():
        raise RelayInterpreterError(f"'{op.name}': shape {dims.tolist()} has a dimension below 1")
    flat = indices.astype(np.int64)
    rows = [
        np.floor_divide(flat, math.prod(dims[i + 1 :].tolist())) % d for i, d in enumerate(dims)
    ]
    return np.stack(rows).astype(indices.dtype)


def strides(dims: list[int]) -> np.ndarray:
    """Row-major strides of a shape, in int64."""
    return np.array([math.prod(dims[i + 1 :]) for i in range(len(dims))], np.int64)


@rule(relay.SparseReshapeOp)
def sparse_reshape(
    op: relay.SparseReshapeOp, indices: np.ndarray, prev: np.ndarray, new: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    prev_dims = [int(v) for v in prev]
    new_dims = [int(v) for v in new]
    if indices.shape[1] != len(prev_dims):
        raise RelayInterpreterError(
            f"'{op.name}': {indices.shape[1]} index columns for a shape of rank {len(prev_dims)}"
        )
    total = math.prod(prev_dims)
    known = math.prod(v for v in new_dims if v != -1)
    holes = new_dims.count(-1)
    if holes > 1 or any(v < -1 for v in new_dims) or any(v < 0 for v in prev_dims):
        raise RelayInterpreterError(f"'{op.name}': bad shapes {prev_dims} -> {new_dims}")
    if holes:
        if known == 0 or total % known:
            raise RelayInterpreterError(f"'{op.name}': cannot reshape {prev_dims} to {new_dims}")
        new_dims[new_dims.index(-1)] = total // known
    if math.prod(new_dims) != total:
        raise RelayInterpreterError(f"'{op.name}': cannot reshape {prev_dims} to {new_dims}")
    if new_dims == prev_dims:  # TVM hands the indices back as they are
        return indices.copy(), np.array(new_dims, dtype=new.dtype)
    # TVM's arithmetic, row-major strides without bounds checks (an index past its dimension
    # carries into the one before, as TVM's kernel computes it)
    flat = indices.astype(np.int64) @ strides(prev_dims)
    out = np.empty((len(indices), len(new_dims)), np.int64)
    for i, stride in enumerate(strides(new_dims)):
        out[:, i] = flat // stride if stride else 0
        flat = flat % stride if stride else flat
    return out.astype(indices.dtype), np.array(new_dims, dtype=new.dtype)


@rule(relay.SegmentSumOp)
def segment_sum(op: relay.SegmentSumOp, x: np.ndarray, ids: np.ndarray) -> np.ndarray:
    count = op.attr_values()["num_segments"]
    if count is None:
        if not ids.size:
            raise RelayInterpreterError(f"'{op.name}': no segment ids to count segments from")
        count = int(ids.max()) + 1
    if ids.size and (ids.min() < 0 or ids.max() >= count):
        raise RelayInterpreterError(
            f"'{op.name}': segment ids must lie in [0, {count}), got {ids.min()}..{ids.max()}"
        )
    out = np.zeros((count, *x.shape[1:]), dtype=x.dtype)
    np.add.at(out, ids.astype(np.int64), x[: len(ids)])
    return out


@numpy_rule(relay.StftOp)
def stft(
    x: np.ndarray,
    window: np.ndarray,
    n_fft: int,
    hop_length: int,
    win_length: int,
    normalized: bool,
    onesided: bool,
) -> np.ndarray:
    """TVM's kernel: frames of win_length samples every hop_length, the DFT angle taken over
    win_length, the scale over n_fft."""
    frames = (x.shape[-1] - n_fft) // hop_length + 1
    k = np.arange(win_length)
    taps = x[..., np.arange(frames)[:, None] * hop_length + k].astype(np.float64)
    taps = taps * window[:win_length].astype(np.float64)
    rows = n_fft // 2 + 1 if onesided else n_fft
    angle = 2 * np.pi * np.arange(rows)[:, None] * k / win_length
    real = np.einsum("...fk,rk->...rf", taps, np.cos(angle))
    imag = -np.einsum("...fk,rk->...rf", taps, np.sin(angle))
    out = np.stack([real, imag], axis=-1)
    return (out / np.sqrt(n_fft) if normalized else out).astype(x.dtype)


@numpy_rule(relay.CumsumOp)
def cumsum(x: np.ndarray, axis: int | None, exclusive: bool) -> np.ndarray:
    return running(np.cumsum, 0, x, axis, exclusive)


@numpy_rule(relay.CumprodOp)
def cumprod(x: np.ndarray, axis: int | None, exclusive: bool) -> np.ndarray:
    return running(np.cumprod, 1, x, axis, exclusive)


def running(
    scan: Callable[..., np.ndarray], identity: int, x: np.ndarray, axis: int | None, exclusive: bool
) -> np.ndarray:
    """`scan` (np.cumsum, np.cumprod) along `axis` (of the flattened data if None),
    accumulated wide; exclusive shifts by one, starting from `identity`."""
    data = x.ravel() if axis is None else x
    axis = 0 if axis is None else axis % x.ndim
    total = scan(data, axis=axis, dtype=acc_dtype(x.dtype) if x.dtype.kind == "f" else None)
    if exclusive:
        shifted = np.full_like(total, identity)
        head = [slice(None)] * total.ndim
        tail = [slice(None)] * total.ndim
        head[axis], tail[axis] = slice(1, None), slice(None, -1)
        shifted[tuple(head)] = total[tuple(tail)]
        total = shifted
    return total.astype(x.dtype)


@numpy_rule(relay.TriluOp)
def trilu(x: np.ndarray, k: int, upper: bool) -> np.ndarray:
    return np.triu(x, k) if upper else np.tril(x, k)


# ---------------------------------------------------------------------------------------------
# Vision (relay.vision)


@numpy_rule(relay.MultiboxPriorOp)
def multibox_prior(
    x: np.ndarray,
    sizes: Sequence[float],
    ratios: Sequence[float],
    steps: Sequence[float],
    offsets: Sequence[float],
    clip: bool,
) -> np.ndarray:
    h, w = x.shape[2:]
    step_h = steps[0] if steps[0] > 0 else 1.0 / h
    step_w = steps[1] if steps[1] > 0 else 1.0 / w
    half_w = [s * h / w / 2 for s in sizes] + [
        sizes[0] * h / w * math.sqrt(r) / 2 for r in ratios[1:]
    ]
    half_h = [s / 2 for s in sizes] + [sizes[0] / math.sqrt(r) / 2 for r in ratios[1:]]
    cy = ((np.arange(h) + offsets[0]) * step_h)[:, None, None]
    cx = ((np.arange(w) + offsets[1]) * step_w)[None, :, None]
    hw, hh = np.array(half_w)[None, None, :], np.array(half_h)[None, None, :]
    shape = (h, w, len(half_w))
    boxes = np.stack(
        [np.broadcast_to(v, shape) for v in (cx - hw, cy - hh, cx + hw, cy + hh)], axis=-1
    )
    out = np.clip(boxes, 0, 1) if clip else boxes
    return out.reshape(1, -1, 4).astype(x.dtype)


@numpy_rule(relay.YoloReorgOp)
def yolo_reorg(x: np.ndarray, stride: int) -> np.ndarray:
    n, c, h, w = x.shape
    out_c = c // (stride * stride)
    view = x.reshape(n, out_c, h * stride, w * stride)
    k = np.arange(c)[None, :, None, None]
    rows = np.arange(h)[None, None, :, None] * stride + (k // out_c) // stride
    cols = np.arange(w)[None, None, None, :] * stride + (k // out_c) % stride
    picked = view[np.arange(n)[:, None, None, None], k % out_c, rows, cols]
    return picked.reshape(n, c * stride * stride, h // stride, w // stride)


def roi_samples(plane: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """Bilinear samples [channels, len(ys), len(xs)] of plane [channels, h, w] at the grid
    ys x xs; 0 more than a pixel outside, a corner past the last row or column weighs 0."""
    h, w = plane.shape[1:]
    y, x = np.clip(ys, 0, h - 1)[:, None], np.clip(xs, 0, w - 1)[None, :]
    y0, x0 = np.floor(y).astype(np.int64), np.floor(x).astype(np.int64)
    dy, dx = y - y0, x - x0
    y1, x1 = np.minimum(y0 + 1, h - 1), np.minimum(x0 + 1, w - 1)
    has_y1, has_x1 = (y0 + 1 < h), (x0 + 1 < w)
    value = (
        plane[:, y0, x0] * ((1 - dy) * (1 - dx))
        + plane[:, y0, x1] * ((1 - dy) * dx * has_x1)
        + plane[:, y1, x0] * (dy * (1 - dx) * has_y1)
        + plane[:, y1, x1] * (dy * dx * has_y1 * has_x1)
    )
    outside = ((ys < -1) | (ys > h))[:, None] | ((xs < -1) | (xs > w))[None, :]
    return np.where(outside[None], 0.0, value)


@numpy_rule(relay.RoiAlignOp)
def roi_align(
    x: np.ndarray,
    rois: np.ndarray,
    pooled_size: Sequence[int],
    spatial_scale: float,
    sample_ratio: int,
    layout: str,
    mode: str,
    aligned: bool,
) -> np.ndarray:
    nhwc = layout == "NHWC"
    data = x.transpose(0, 3, 1, 2) if nhwc else x
    ph, pw = pooled_size
    out = np.zeros((len(rois), data.shape[1], ph, pw), x.dtype)
    shift = np.float32(0.5 if aligned else 0.0)
    for n, roi in enumerate(rois.astype(np.float32)):
        b = int(roi[0])
        x1, y1, x2, y2 = roi[1:] * np.float32(spatial_scale) - shift
        roi_h, roi_w = (y2 - y1, x2 - x1) if aligned else (max(y2 - y1, 1.0), max(x2 - x1, 1.0))
        bin_h, bin_w = roi_h / ph, roi_w / pw
        gh = sample_ratio if sample_ratio > 0 else math.ceil(bin_h)
        gw = sample_ratio if sample_ratio > 0 else math.ceil(bin_w)
        if not 0 <= b < data.shape[0] or gh <= 0 or gw <= 0:
            continue  # a region of no image, or of no samples, pools to 0
        ys = y1 + (np.arange(ph)[:, None] * bin_h + (np.arange(gh) + 0.5) * bin_h / gh).ravel()
        xs = x1 + (np.arange(pw)[:, None] * bin_w + (np.arange(gw) + 0.5) * bin_w / gw).ravel()
        samples = roi_samples(data[b], ys, xs).reshape(-1, ph, gh, pw, gw)
        pooled = samples.max(axis=(2, 4)) if mode == "max" else samples.mean(axis=(2, 4))
        out[n] = pooled
    return out.transpose(0, 2, 3, 1) if nhwc else out


@numpy_rule(relay.RoiPoolOp)
def roi_pool(
    x: np.ndarray, rois: np.ndarray, pooled_size: Sequence[int], spatial_scale: float, layout: str
) -> np.ndarray:
    ph, pw = pooled_size
    h, w = x.shape[2:]
    out = np.zeros((len(rois), x.shape[1], ph, pw), x.dtype)
    for n, roi in enumerate(rois):
        b = int(roi[0])
        if not 0 <= b < x.shape[0]:
            continue  # a region of no image pools to 0
        x1, y1, x2, y2 = np.round(roi[1:] * np.float32(spatial_scale)).astype(np.int64)
        bin_h = np.float32(max(y2 - y1 + 1, 1)) / np.float32(ph)
        bin_w = np.float32(max(x2 - x1 + 1, 1)) / np.float32(pw)
        steps_h, steps_w = np.arange(ph + 1, dtype=np.float32), np.arange(pw + 1, dtype=np.float32)
        hs = np.clip(np.floor(steps_h[:-1] * bin_h).astype(np.int64) + y1, 0, h)
        he = np.clip(np.ceil(steps_h[1:] * bin_h).astype(np.int64) + y1, 0, h)
        ws = np.clip(np.floor(steps_w[:-1] * bin_w).astype(np.int64) + x1, 0, w)
        we = np.clip(np.ceil(steps_w[1:] * bin_w).astype(np.int64) + x1, 0, w)
        for i in range(ph):
            for j in range(pw):
                if he[i] > hs[i] and we[j] > ws[j]:
                    out[n, :, i, j] = x[b, :, hs[i] : he[i], ws[j] : we[j]].max(axis=(1, 2))
    return out


@numpy_rule(relay.GetValidCountsOp)
def get_valid_counts(
    x: np.ndarray, score_threshold: float, id_index: int, score_index: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    keep = x[:, :, score_index] > np.float32(score_threshold)
    if id_index >= 0:
        keep &= x[:, :, id_index] >= 0
    counts = keep.sum(axis=1).astype(np.int32)
    out = np.full_like(x, -1)
    indices = np.full(keep.shape, -1, np.int32)
    for b in range(x.shape[0]):
        (where,) = np.nonzero(keep[b])
        out[b, : len(where)] = x[b, where]
        indices[b, : len(where)] = where
    return counts, out, indices


def box_iou(a: np.ndarray, b: np.ndarray) -> float:
    """IoU of boxes (corners in either order); 0 when the union is empty."""
    a_lo, a_hi = np.minimum(a[:2], a[2:]), np.maximum(a[:2], a[2:])
    b_lo, b_hi = np.minimum(b[:2], b[2:]), np.maximum(b[:2], b[2:])
    inter = float(np.prod(np.maximum(np.minimum(a_hi, b_hi) - np.maximum(a_lo, b_lo), 0)))
    union = float(np.prod(a_hi - a_lo) + np.prod(b_hi - b_lo)) - inter
    return 0.0 if union <= 0 else inter / union


@rule(relay.NonMaxSuppressionOp)
def non_max_suppression(
    op: relay.NonMaxSuppressionOp,
    x: np.ndarray,
    valid_count: np.ndarray,
    indices: np.ndarray,
    max_output_size: np.ndarray,
    iou_threshold: np.ndarray,
) -> Value:
    a = op.attr_values()
    score, ident, start = a["score_index"], a["id_index"], a["coord_start"]
    limit, threshold = int(max_output_size.reshape(-1)[0]), float(iou_threshold.reshape(-1)[0])
    batch, anchors, _ = x.shape
    boxes = np.full_like(x, -1)
    picked = np.full((batch, anchors), -1, np.int64)
    for b in range(batch):
        n = min(max(int(valid_count[b]), 0), anchors)
        if threshold <= 0:
            boxes[b, :n], picked[b, :n] = x[b, :n], np.arange(n)
            continue
        order = np.argsort(-x[b, :n, score], kind="stable")
        keep = n if a["top_k"] <= 0 else min(n, a["top_k"])
        boxes[b, :keep], picked[b, :keep] = x[b, order[:keep]], order[:keep]
        kept = 0
        for j in range(n):
            if kept == limit:
                boxes[b, j], picked[b, j] = -1, -1
            elif boxes[b, j, score] > 0:
                for k in range(j):
                    other = boxes[b, k]
                    if other[score] <= 0 or (ident >= 0 and other[ident] < 0):
                        continue
                    if (
                        ident >= 0
                        and not a["force_suppress"]
                        and other[ident] != boxes[b, j, ident]
                    ):
                        continue
                    if (
                        box_iou(boxes[b, j, start : start + 4], other[start : start + 4])
                        >= threshold
                    ):
                        boxes[b, j], picked[b, j] = -1, -1
                        break
                else:
                    kept += 1
    if not a["return_indices"]:
        if not a["invalid_to_bottom"]:
            return boxes
        moved = np.full_like(boxes, -1)
        for b in range(batch):
            valid = boxes[b, boxes[b, :, 0] >= 0]
            moved[b, : len(valid)] = valid
        return moved
    out = np.full((batch, anchors), -1, np.int32)
    count = np.zeros((batch, 1), np.int32)
    for b in range(batch):
        entries = [int(indices[b, p]) for p in picked[b] if p >= 0]
        entries = [0 if abs(e) > anchors else e for e in entries if e >= 0 or abs(e) > anchors]
        out[b, : len(entries)] = entries
        count[b, 0] = len(entries)
    return out, count


@rule(relay.AllClassNonMaxSuppressionOp)
def all_class_non_max_suppression(
    op: relay.AllClassNonMaxSuppressionOp,
    boxes: np.ndarray,
    scores: np.ndarray,
    max_per_class: np.ndarray,
    iou_threshold: np.ndarray,
    score_threshold: np.ndarray,
) -> Value:
    limit = int(max_per_class.reshape(-1)[0])
    threshold, low = float(iou_threshold.reshape(-1)[0]), float(score_threshold.reshape(-1)[0])
    batch, classes, count = scores.shape
    selected: list[list[tuple[int, int, float]]] = []
    for b in range(batch):
        rows: list[tuple[int, int, float]] = []
        for c in range(classes):
            order = [i for i in np.argsort(-scores[b, c], kind="stable") if scores[b, c, i] > low]
            kept: list[int] = []
            for i in order:
                if limit > 0 and len(kept) >= limit:
                    break
                if all(box_iou(boxes[b, i], boxes[b, k]) < threshold for k in kept):
                    kept.append(int(i))
            rows += [(c, k, float(scores[b, c, k])) for k in kept]
        selected.append(rows)
    if op.output_format.data == "onnx":
        flat = np.zeros((batch * classes * count, 3), np.int64)
        found = [(b, c, k) for b, rows in enumerate(selected) for c, k, _ in rows]
        flat[: len(found)] = np.array(found, np.int64).reshape(-1, 3)
        return flat, np.array([len(found)], np.int64)
    pairs = np.zeros((batch, classes * count, 2), np.int64)
    kept_scores = np.zeros((batch, classes * count), scores.dtype)
    totals = np.zeros(batch, np.int64)
    for b, rows in enumerate(selected):
        totals[b] = len(rows)
        for r, (c, k, s) in enumerate(rows):
            pairs[b, r], kept_scores[b, r] = (c, k), s
    return pairs, kept_scores, totals


@numpy_rule(relay.MultiboxTransformLocOp)
def multibox_transform_loc(
    cls_prob: np.ndarray,
    loc_pred: np.ndarray,
    anchor: np.ndarray,
    clip: bool,
    threshold: float,
    variances: Sequence[float],
) -> tuple[np.ndarray, np.ndarray]:
    batch, _, anchors = cls_prob.shape
    rows = np.full((batch, anchors, 6), -1, cls_prob.dtype)
    counts = np.zeros(batch, np.int32)
    left, top, right, bottom = (anchor[0, :, k] for k in range(4))
    width, height = right - left, bottom - top
    v = np.float32(variances)
    for b in range(batch):
        loc = loc_pred[b].reshape(anchors, 4)
        cx = loc[:, 0] * v[0] * width + (left + right) / 2
        cy = loc[:, 1] * v[1] * height + (top + bottom) / 2
        half_w = np.exp(loc[:, 2] * v[2]) * width / 2
        half_h = np.exp(loc[:, 3] * v[3]) * height / 2
        corners = np.stack([cx - half_w, cy - half_h, cx + half_w, cy + half_h], axis=1)
        corners = np.clip(corners, 0, 1) if clip else corners
        best = cls_prob[b, 1:].argmax(axis=0) + 1  # the first of equal scores, as a strict >
        score = cls_prob[b, best, np.arange(anchors)]
        keep = np.nonzero(score >= np.float32(threshold))[0]
        counts[b] = len(keep)
        rows[b, : len(keep), 0] = best[keep] - 1
        rows[b, : len(keep), 1] = score[keep]
        rows[b, : len(keep), 2:] = corners[keep]
    return rows, counts


@numpy_rule(relay.ProposalOp)
def proposal(
    cls_prob: np.ndarray,
    bbox_pred: np.ndarray,
    im_info: np.ndarray,
    scales: Sequence[float],
    ratios: Sequence[float],
    feature_stride: int,
    threshold: float,
    rpn_pre_nms_top_n: int,
    rpn_post_nms_top_n: int,
    rpn_min_size: int,
    iou_loss: bool,
) -> np.ndarray:
    batch, _, h, w = cls_prob.shape
    ratio = np.repeat(np.float64(ratios), len(scales))
    scale = np.tile(np.float64(scales), len(ratios))
    widths = np.floor(np.sqrt(np.floor(feature_stride**2 / ratio)) + 0.5) * scale
    heights = np.floor(widths / scale * ratio + 0.5) * scale
    centre = 0.5 * (feature_stride - 1.0)
    half_w, half_h = 0.5 * (widths - 1), 0.5 * (heights - 1)
    corners = [centre - half_w, centre - half_h, centre + half_w, centre + half_h]
    base = np.stack(corners, axis=1).astype(np.float32)  # [anchors, 4]
    count = len(base)
    shift_x = (np.arange(w) * feature_stride)[None, :, None]
    shift_y = (np.arange(h) * feature_stride)[:, None, None]
    n = h * w * count
    top = min(rpn_pre_nms_top_n, n) if rpn_pre_nms_top_n > 0 else n
    out = np.zeros((batch * rpn_post_nms_top_n, 5), bbox_pred.dtype)
    for b in range(batch):
        im_h, im_w, im_scale = im_info[b]
        x1, y1 = base[:, 0] + shift_x, base[:, 1] + shift_y  # [h, w, anchors]
        x2, y2 = base[:, 2] + shift_x, base[:, 3] + shift_y
        d = bbox_pred[b].reshape(count, 4, h, w).transpose(1, 2, 3, 0)  # [4, h, w, anchors]
        if iou_loss:
            pred = [x1 + d[0], y1 + d[1], x2 + d[2], y2 + d[3]]
        else:
            bw, bh = x2 - x1 + 1, y2 - y1 + 1
            cx, cy = d[0] * bw + x1 + 0.5 * (bw - 1), d[1] * bh + y1 + 0.5 * (bh - 1)
            pw, ph = np.exp(d[2]) * bw, np.exp(d[3]) * bh
            pred = [
                cx - 0.5 * (pw - 1),
                cy - 0.5 * (ph - 1),
                cx + 0.5 * (pw - 1),
                cy + 0.5 * (ph - 1),
            ]
        limits = [im_w, im_h, im_w, im_h]
        boxes = np.stack(
            [np.maximum(np.minimum(p, lim - 1), 0) for p, lim in zip(pred, limits, strict=True)],
            axis=-1,
        ).astype(np.float32)
        score = cls_prob[b, count:].transpose(1, 2, 0).copy()  # [h, w, anchors]
        off_map = (np.arange(h)[:, None] >= int(im_h / feature_stride)) | (
            np.arange(w)[None, :] >= int(im_w / feature_stride)
        )
        score[off_map] = -1
        smallest = np.float32(im_scale * rpn_min_size)
        small = (boxes[..., 2] - boxes[..., 0] + 1 < smallest) | (
            boxes[..., 3] - boxes[..., 1] + 1 < smallest
        )
        boxes[small] += np.float32([-1, -1, 1, 1]) * (smallest / 2)
        score[small] = -1
        flat_boxes, flat_score = boxes.reshape(-1, 4), score.reshape(-1)
        ranked = flat_boxes[np.argsort(-flat_score, kind="stable")[:top]]
        removed = np.zeros(top, bool)
        area = (ranked[:, 2] - ranked[:, 0] + 1) * (ranked[:, 3] - ranked[:, 1] + 1)
        for i in range(top):
            if removed[i]:
                continue
            iw = np.maximum(
                np.minimum(ranked[i, 2], ranked[:, 2]) - np.maximum(ranked[i, 0], ranked[:, 0]) + 1,
                0,
            )
            ih = np.maximum(
                np.minimum(ranked[i, 3], ranked[:, 3]) - np.maximum(ranked[i, 1], ranked[:, 1]) + 1,
                0,
            )
            inter = iw * ih
            overlap = inter / (area[i] + area - inter)
            removed[i + 1 :] |= overlap[i + 1 :] > threshold
        survivors = ranked[~removed]
        picked = survivors[np.arange(rpn_post_nms_top_n) % len(survivors)]
        rows = slice(b * rpn_post_nms_top_n, (b + 1) * rpn_post_nms_top_n)
        out[rows, 0], out[rows, 1:] = b, picked
    return out


# Data movement: reinterpret, strided_set, space/batch_to_space_nd, affine_grid, grid_sample,
# unique


@numpy_rule(relay.ReinterpretOp)
def reinterpret(x: np.ndarray, dtype: Attribute) -> np.ndarray:
    return np.ascontiguousarray(x).view(numpy_dtype(dtype))


@rule(relay.StridedSetOp)
def strided_set(op: relay.StridedSetOp, x: np.ndarray, v: np.ndarray) -> np.ndarray:
    out = x.copy()
    out[tuple(relay.StridedSetOp.slices(op.properties, x.shape))] = v
    return out


@numpy_rule(relay.SpaceToBatchNdOp)
def space_to_batch_nd(
    x: np.ndarray, block_shape: tuple[int, ...], paddings: tuple[int, ...], pad_value: float
) -> np.ndarray:
    m, n = len(block_shape), x.shape[0]
    pads = [(0, 0), *zip(paddings[::2], paddings[1::2], strict=True)]
    padded = np.pad(x, pads + [(0, 0)] * (x.ndim - 1 - m), constant_values=pad_value)
    blocks = [s // b for s, b in zip(padded.shape[1 : m + 1], block_shape, strict=True)]
    rest = list(padded.shape[m + 1 :])
    split = padded.reshape(
        [n, *(v for pair in zip(blocks, block_shape, strict=True) for v in pair), *rest]
    )
    # (offsets..., n, blocks..., rest...): the batch of the output is offset * N + n
    order = [*range(2, 2 * m + 1, 2), 0, *range(1, 2 * m, 2), *range(2 * m + 1, split.ndim)]
    return split.transpose(order).reshape([n * math.prod(block_shape), *blocks, *rest])


@numpy_rule(relay.BatchToSpaceNdOp)
def batch_to_space_nd(
    x: np.ndarray, block_shape: tuple[int, ...], crops: tuple[int, ...]
) -> np.ndarray:
    m = len(block_shape)
    n = x.shape[0] // math.prod(block_shape)
    spatial, rest = list(x.shape[1 : m + 1]), list(x.shape[m + 1 :])
    split = x.reshape([*block_shape, n, *spatial, *rest])
    # (n, block0, offset0, block1, offset1, ..., rest...)
    order = [m, *(a for i in range(m) for a in (m + 1 + i, i)), *range(2 * m + 1, split.ndim)]
    full = split.transpose(order).reshape(
        [n, *(s * b for s, b in zip(spatial, block_shape, strict=True)), *rest]
    )
    cut = [slice(crops[2 * i], full.shape[i + 1] - crops[2 * i + 1]) for i in range(m)]
    return full[(slice(None), *cut)].copy()


def affine_grid_points(size: int, dtype: np.dtype) -> np.ndarray:
    """-1 + i * (2 - 1e-7) / (size - 1) for i < size, in `dtype` (TVM's affine_grid steps)."""
    step = dtype.type((2.0 - 1e-7) / (size - 1))
    return dtype.type(-1.0) + np.arange(size).astype(dtype) * step


@numpy_rule(relay.AffineGridOp)
def affine_grid(theta: np.ndarray, target_shape: tuple[int, ...]) -> np.ndarray:
    ys = affine_grid_points(target_shape[0], theta.dtype)[:, None]
    xs = affine_grid_points(target_shape[1], theta.dtype)[None, :]
    rows = [
        theta[:, k, 0, None, None] * xs
        + theta[:, k, 1, None, None] * ys
        + theta[:, k, 2, None, None]
        for k in range(2)
    ]
    return np.stack(rows, axis=1).astype(theta.dtype)


def reflect_coordinates(c: np.ndarray, size: int, align_corners: bool) -> np.ndarray:
    """A coordinate outside [lo, lo + span] folded back in, as TVM's grid_sample reflects:
    lo = 0 and span = size - 1 when align_corners, lo = -0.5 and span = size otherwise."""
    lo, span = (0.0, size - 1) if align_corners else (-0.5, size)
    distance = np.abs(lo - c)
    times = np.trunc(distance.astype(np.int32) / span).astype(np.int32)
    extra = distance - times * span
    folded = np.where(times % 2 == 0, extra + lo, span - extra + lo)
    return np.where((c >= lo) & (c <= span + lo), c, folded).astype(c.dtype)


def grid_sample_source(
    grid: np.ndarray, sizes: Sequence[int], align_corners: bool, padding_mode: str
) -> list[np.ndarray]:
    """The source coordinate along each spatial axis (depth, height, width) of every output
    point: grid channel 0 is x (the last axis), unnormalized and padded."""
    rank = len(sizes)
    out = []
    for k, size in enumerate(sizes):
        c = grid[:, rank - 1 - k]
        if align_corners:
            c = (c + 1) * (size - 1) / 2
        else:
            c = -0.5 + (c + 1) * size / 2
        c = c.astype(grid.dtype)
        if padding_mode == "reflection":
            c = reflect_coordinates(c, size, align_corners)
        if padding_mode != "zeros":
            c = np.clip(c, 0, size - 1).astype(grid.dtype)
        out.append(c)
    return out


def pixels(data: np.ndarray, at: Sequence[np.ndarray]) -> np.ndarray:
    """data[n, :, at...] for integer coordinates `at` of shape (N, out...), 0 outside the
    image: (N, C, out...)."""
    sizes = data.shape[2:]
    inside = np.logical_and.reduce([(a >= 0) & (a < s) for a, s in zip(at, sizes, strict=True)])
    batch = np.arange(data.shape[0]).reshape([-1] + [1] * (at[0].ndim - 1))
    clipped = [np.clip(a, 0, s - 1) for a, s in zip(at, sizes, strict=True)]
    values = np.moveaxis(data[(batch, slice(None), *clipped)], -1, 1)
    return np.where(inside[:, None], values, data.dtype.type(0))


@numpy_rule(relay.GridSampleOp)
def grid_sample(
    data: np.ndarray,
    grid: np.ndarray,
    method: str,
    layout: str,
    padding_mode: str,
    align_corners: bool,
) -> np.ndarray:
    sizes = data.shape[2:]
    if method == "bicubic":
        return bicubic_sample(data, grid, padding_mode, align_corners)
    coords = grid_sample_source(grid, sizes, align_corners, padding_mode)
    if method == "nearest":
        return pixels(data, [np.rint(c).astype(np.int32) for c in coords])
    lows = [np.floor(c).astype(np.int32) for c in coords]
    fractions = [(c - low).astype(data.dtype) for c, low in zip(coords, lows, strict=True)]
    out = np.zeros(data.shape[:2] + grid.shape[2:], data.dtype)
    for corner in itertools.product((0, 1), repeat=len(sizes)):
        weight = np.ones(grid.shape[:1] + grid.shape[2:], data.dtype)
        for f, up in zip(fractions, corner, strict=True):
            weight = weight * (f if up else 1 - f)
        at = [low + up for low, up in zip(lows, corner, strict=True)]
        out += pixels(data, at) * weight[:, None]
    return out


def bicubic_sample(
    data: np.ndarray, grid: np.ndarray, padding_mode: str, align_corners: bool
) -> np.ndarray:
    """2-d cubic convolution over the 4 x 4 pixels around each point; with border or
    reflection padding each tap's coordinate is folded in (TVM pads taps, not points)."""
    sizes = data.shape[2:]
    coords = grid_sample_source(grid, sizes, align_corners, "zeros")
    lows = [np.floor(c).astype(np.int32) for c in coords]
    wy, wx = (  # TVM's grid_sample uses a = -0.75, as PyTorch does
        cubic_weights((c - low).astype(data.dtype), -0.75).astype(data.dtype)
        for c, low in zip(coords, lows, strict=True)
    )

    def tap(c: np.ndarray, size: int) -> np.ndarray:
        if padding_mode == "zeros":
            return c
        value = c.astype(data.dtype)
        if padding_mode == "reflection":
            value = reflect_coordinates(value, size, align_corners)
        return np.clip(value, 0, size - 1).astype(np.int32)

    out = np.zeros(data.shape[:2] + grid.shape[2:], data.dtype)
    for i in range(4):
        y = tap(lows[0] - 1 + i, sizes[0])
        row = sum(
            pixels(data, [y, tap(lows[1] - 1 + j, sizes[1])]) * wx[..., j][:, None]
            for j in range(4)
        )
        out += row * wy[..., i][:, None]
    return out


@numpy_rule(relay.UniqueOp)
def unique(x: np.ndarray, sorted: bool, return_counts: bool) -> tuple[np.ndarray, ...]:
    values, first, inverse, counts = np.unique(
        x, return_index=True, return_inverse=True, return_counts=True
    )
    if not sorted:  # in order of first occurrence
        order = np.argsort(first, kind="stable")
        position = np.empty_like(order)
        position[order] = np.arange(len(order))
        values, first, counts, inverse = (
            values[order],
            first[order],
            counts[order],
            position[inverse],
        )
    found = np.array([len(values)], np.int32)

    def padded(a: np.ndarray, dtype: np.dtype) -> np.ndarray:
        out = np.zeros(len(x), dtype)
        out[: len(a)] = a
        return out

    fields = (
        padded(values, x.dtype),
        padded(first, np.dtype(np.int32)),
        inverse.reshape(-1).astype(np.int32),
        found,
    )
    return (*fields, padded(counts, np.dtype(np.int32))) if return_counts else fields


@rule(relay.CorrelationOp)
def correlation(op: relay.CorrelationOp, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    p = op.props(op.properties)
    channels, height, width = relay.correlation_geometry(type(op), p, a.shape)
    top, left, bottom, right = relay.correlation_padding(type(op), p)
    k, d = p.integer("kernel_size"), p.integer("max_displacement")
    s1, s2 = p.integer("stride1"), p.integer("stride2")
    radius, side = d // s2, 2 * (d // s2) + 1
    # zeros past the padding too: windows of the last (rounded-up) row may reach beyond it
    extra = (height * s1 + k + d, width * s1 + k + d)
    widths = [(0, 0), (0, 0), (top, bottom + extra[0]), (left, right + extra[1])]
    pa, pb = (np.pad(v.astype(np.float64), widths) for v in (a, b))
    out = np.zeros((a.shape[0], channels, height, width))
    rows, cols = slice(0, (height - 1) * s1 + 1, s1), slice(0, (width - 1) * s1 + 1, s1)
    multiply = p.flag("is_multiply")
    for q in range(channels):
        dy, dx = (q // side - radius) * s2, (q % side - radius) * s2
        for ry, rx in itertools.product(range(k), range(k)):
            y, x = d + ry, d + rx
            first = pa[:, :, y:, x:][:, :, rows, cols]
            second = pb[:, :, y + dy :, x + dx :][:, :, rows, cols]
            pair = first * second if multiply else np.abs(first - second)
            out[:, q] += pair.sum(axis=1)
    return (out / (k * k * a.shape[1])).astype(a.dtype)
