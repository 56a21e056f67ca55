"""`relay-combine-layer-norm`: the arithmetic of a layer normalisation becomes `nn.layer_norm`.

Exporters before ONNX opset 17 (PyTorch's `torch.onnx.export` at its older opsets, and many
models exported that way) spell LayerNorm out:

    m = mean(x, axis=[-1], keepdims)          c = x - m
    v = mean(c * c | c ** 2, axis=[-1], keepdims)
    y = c / sqrt(v + eps)  [* gamma]  [+ beta]

which fuses into four kernels (two reductions, two elementwise passes). As one
`relay.nn.layer_norm` it is one op, which a target may run as one kernel (the CPU's schedule
computes a row's statistics and normalises it while it is in cache).

Matched: the mean and the variance over the last axis only, `eps` a constant scalar, the
square a `multiply` of the centred value by itself or a `power` by the constant 2, `gamma`
and `beta` constant vectors of the last axis's length; every intermediate value read only
inside the pattern (so that nothing outside needs it). Anything else is left as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.transforms.dead_code_elimination import is_trivially_dead

from xtvm.dialects import relay
from xtvm.dialects.relay import static_shape
from xtvm.ir.numpy_types import numpy_dtype
from xtvm.passes.external_functions import host_functions
from xtvm.passes.relay_infer_types import infer_op


def only_user(value: SSAValue) -> Operation | None:
    """The one op reading `value` (however many times), or None."""
    users = {use.operation for use in value.uses}
    return users.pop() if len(users) == 1 else None


def constant(value: SSAValue) -> np.ndarray | None:
    owner = value.owner
    return relay.numpy_from_dense(owner.value) if isinstance(owner, relay.ConstOp) else None


def last_axis_mean(value: SSAValue) -> SSAValue | None:
    """The data of `value = mean(data, axis=[last], keepdims=True)`, or None."""
    op = value.owner
    if not isinstance(op, relay.MeanOp) or not op.keepdims.value.data or op.axis is None:
        return None
    rank = len(static_shape(op.data))
    axes = relay.array_values(op.axis)
    return op.data if rank and len(axes) == 1 and axes[0] % rank == rank - 1 else None


def squared(value: SSAValue) -> SSAValue | None:
    """The x of `value = x * x` or `value = x ** 2` (a constant 2), or None."""
    op = value.owner
    if isinstance(op, relay.MultiplyOp) and op.operands[0] is op.operands[1]:
        return op.operands[0]
    if isinstance(op, relay.PowerOp):
        exponent = constant(op.operands[1])
        if exponent is not None and exponent.size == 1 and float(exponent.reshape(())) == 2.0:
            return op.operands[0]
    return None


def epsilon_plus(value: SSAValue) -> tuple[SSAValue, float] | None:
    """(v, eps) of `value = v + eps` (either order), eps a constant scalar, or None."""
    op = value.owner
    if not isinstance(op, relay.AddOp):
        return None
    for v, e in ((op.operands[0], op.operands[1]), (op.operands[1], op.operands[0])):
        eps = constant(e)
        if eps is not None and eps.size == 1:
            return v, float(eps.reshape(()))
    return None


def vector_operand(op: Operation, value: SSAValue, length: int) -> SSAValue | None:
    """The other operand of the binary `op` reading `value`, when it is a constant vector of
    `length` (broadcast along the last axis) and `value` is the data operand."""
    if op.operands[0] is not value or op.operands[1] is value:
        return None
    other = op.operands[1]
    array = constant(other)
    if array is None or array.shape != (length,):
        return None
    return other


@dataclass
class Match:
    """A layer normalisation spelt out: its data, statistics ops and result."""

    data: SSAValue
    epsilon: float
    ops: list[Operation]  # every op of the pattern but the last, read only inside it
    result: Operation  # the divide, or the gamma multiply, or the beta add
    gamma: SSAValue | None
    beta: SSAValue | None


def match(divide: relay.DivideOp) -> Match | None:
    """The layer normalisation ending at `divide` (with its gamma and beta), or None."""
    centred, root = divide.operands
    sqrt = root.owner
    if not isinstance(sqrt, relay.SqrtOp) or not isinstance(centred.owner, relay.SubtractOp):
        return None
    subtract = centred.owner
    data, mean = subtract.operands
    if last_axis_mean(mean) is not data:
        return None
    plus = epsilon_plus(sqrt.operands[0])
    if plus is None:
        return None
    variance, eps = plus
    square = last_axis_mean(variance)
    if square is None or squared(square) is not centred:
        return None
    ops = [mean.owner, subtract, square.owner, variance.owner, sqrt.operands[0].owner, sqrt]
    if static_shape(variance) != static_shape(mean) or static_shape(divide.result) != static_shape(
        data
    ):
        return None
    # every intermediate is read only by the next op of the pattern
    readers = {
        mean: subtract,
        square: variance.owner,
        variance: sqrt.operands[0].owner,
        sqrt.operands[0]: sqrt,
        root: divide,
    }
    if any(only_user(v) is not r for v, r in readers.items()):
        return None
    if {use.operation for use in centred.uses} != {square.owner, divide}:
        return None
    length = static_shape(data)[-1]
    result: Operation = divide
    gamma = beta = None
    user = only_user(divide.result)
    if isinstance(user, relay.MultiplyOp):
        gamma = vector_operand(user, divide.result, length)
        if gamma is not None:
            ops.append(divide)
            result = user
            user = only_user(user.result)
    if isinstance(user, relay.AddOp):
        beta = vector_operand(user, result.results[0], length)
        if beta is not None:
            ops.append(result)
            result = user
    return Match(data, eps, ops, result, gamma, beta)


def rewrite(m: Match) -> None:
    """Replace the pattern by one `nn.layer_norm`."""
    assert isinstance(m.data.type, TensorType)
    dtype = numpy_dtype(m.data.type.get_element_type())
    length = static_shape(m.data)[-1]
    before = InsertPoint.before(m.result)
    operands = []
    for value, fill in ((m.gamma, 1.0), (m.beta, 0.0)):
        if value is None:
            const = relay.ConstOp(np.full(length, fill, dtype))
            Rewriter.insert_op(const, before)
            value = const.result
        operands.append(value)
    norm = relay.LayerNormOp(
        m.data,
        *operands,
        axis=-1,
        epsilon=m.epsilon,
        center=m.beta is not None,
        scale=m.gamma is not None,
    )
    Rewriter.insert_op(norm, before)
    infer_op(norm)
    m.result.results[0].replace_all_uses_with(norm.result)
    dead = [m.result, *reversed(m.ops)]
    consts = [v.owner for op in dead for v in op.operands if isinstance(v.owner, relay.ConstOp)]
    for op in [*dead, *consts]:  # eps and the exponent too, when nothing else reads them
        if op.parent is not None and is_trivially_dead(op):
            Rewriter.erase_op(op)


@dataclass(frozen=True)
class RelayCombineLayerNormPass(ModulePass):
    """Replace `(x - mean) / sqrt(var + eps) [* gamma] [+ beta]` over the last axis by
    `relay.nn.layer_norm`."""

    name = "relay-combine-layer-norm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in host_functions(op):
            for divide in [o for o in function.walk() if isinstance(o, relay.DivideOp)]:
                found = match(divide)
                if found is not None:
                    rewrite(found)
