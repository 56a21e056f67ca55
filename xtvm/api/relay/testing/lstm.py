"""TVM's `relay.testing.lstm`: an LSTM unrolled over `iterations` steps, each step a call of
its own cell function, written with `let` bindings (the ScopeBuilder form), with its weights."""

from __future__ import annotations

from xtvm.api.ir_module import IRModule
from xtvm.api.relay.analysis import free_vars
from xtvm.api.relay.expr import Call, Function, Tuple, TupleGetItem, Var
from xtvm.api.relay.op import add, multiply, nn, sigmoid, split, tanh, zeros
from xtvm.api.relay.scope_builder import ScopeBuilder
from xtvm.api.relay.ty import TensorType, TupleType
from xtvm.runtime import ndarray as nd


def lstm_cell(num_hidden: int, batch_size: int = 1, dtype: str = "float32") -> Function:
    """fn (inputs, (c, h), weights) -> (h', (h', c')): one LSTM step with input, forget and
    output gates computed from one dense layer of the input and one of the state."""
    hidden = TensorType((batch_size, num_hidden), dtype)
    gates_type = TensorType((batch_size, 4 * num_hidden), dtype)
    state_type = TupleType((hidden, hidden))
    inputs, states = Var("inputs", hidden), Var("states", state_type)
    weights = [
        Var(f"{layer}_{kind}", typ)
        for layer in ("i2h", "h2h")
        for kind, typ in (
            ("weight", TensorType((4 * num_hidden, num_hidden), dtype)),
            ("bias", TensorType((4 * num_hidden,), dtype)),
        )
    ]
    sb = ScopeBuilder()
    old_c = sb.let("old_c", TupleGetItem(states, 0))
    old_h = sb.let("old_h", TupleGetItem(states, 1))
    i2h = sb.let(
        ("i2h", gates_type),
        nn.bias_add(nn.dense(inputs, weights[0]), weights[1], axis=-1),
    )
    h2h = sb.let(
        ("h2h", gates_type),
        nn.bias_add(nn.dense(old_h, weights[2]), weights[3], axis=-1),
    )
    gates = sb.let(("gates", gates_type), add(i2h, h2h))
    slices = sb.let(("slice_gates", TupleType((hidden,) * 4)), split(gates, 4, axis=1).astuple())
    in_gate = sb.let(("in_gate", hidden), sigmoid(TupleGetItem(slices, 0)))
    forget_gate = sb.let(("forget_gate", hidden), sigmoid(TupleGetItem(slices, 1)))
    in_transform = sb.let(("in_transform", hidden), tanh(TupleGetItem(slices, 2)))
    out_gate = sb.let(("out_gate", hidden), sigmoid(TupleGetItem(slices, 3)))
    next_c = sb.let(
        ("next_c", hidden), add(multiply(forget_gate, old_c), multiply(in_gate, in_transform))
    )
    next_h = sb.let(("next_h", hidden), multiply(out_gate, tanh(next_c)))
    ret_type = TupleType((hidden, state_type))
    sb.ret(sb.let(("ret", ret_type), Tuple([next_h, Tuple([next_h, next_c])])))
    return Function([inputs, states, *weights], sb.get(), ret_type)


def get_net(
    iterations: int, num_hidden: int, batch_size: int = 1, dtype: str = "float32"
) -> Function:
    """`iterations` cells in a chain from zero states; the last hidden state is the output."""
    hidden = TensorType((batch_size, num_hidden), dtype)
    state_type = TupleType((hidden, hidden))
    sb = ScopeBuilder()
    zero = zeros((batch_size, num_hidden), dtype)
    states = sb.let(("states", state_type), Tuple([zero, zero]))
    out = None
    for i in range(iterations):
        cell = lstm_cell(num_hidden, batch_size, dtype)
        args = [Var("data", hidden), states]
        names = [f"{layer}_{i}_{kind}" for layer in ("i2h", "h2h") for kind in ("weight", "bias")]
        args += [Var(n, p.type_annotation) for n, p in zip(names, cell.params[2:], strict=True)]
        call = sb.let(("call", cell.ret_type), Call(cell, args))
        out = sb.let(("out", hidden), TupleGetItem(call, 0))
        states = sb.let(("states", state_type), TupleGetItem(call, 1))
    if out is None:
        raise ValueError("an LSTM needs at least one iteration")
    sb.ret(out)
    body = sb.get()
    return Function(free_vars(body), body, hidden)


def get_workload(
    iterations: int, num_hidden: int, batch_size: int = 1, dtype: str = "float32"
) -> tuple[IRModule, dict[str, nd.NDArray]]:
    """The network as a module and its random weights (`create_workload`)."""
    from xtvm.api.relay.testing.init import create_workload

    return create_workload(get_net(iterations, num_hidden, batch_size, dtype))
