"""Symbolic sizes (`te.size_var`, `relay.Any()`) through type inference, as TVM's relations
carry them: exact inferred types (a `?` where a size derives from a symbolic one, static sizes
where they do not), and functions so typed evaluated by the reference interpreter on concrete
data, each op's result shape computed at run time from its own type rule."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import xtvm as tvm
from xtvm import relay, te
from xtvm.api.relay.expr import Expr
from xtvm.runtime.relay_interpreter import RelayInterpreterError

n, w = te.size_var("n"), te.size_var("w")


def inferred(expr: Expr) -> str:
    mod = relay.transform.InferType()(tvm.IRModule.from_expr(expr))
    entry = mod["main"]
    return str(entry.body.checked_type if not isinstance(expr, relay.Function) else entry.ret_type)


def x(*shape: object, dtype: str = "float32") -> relay.Var:
    return relay.var("x", relay.TensorType(shape, dtype))


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        (lambda: relay.concatenate([x(n, 3), relay.var("y", shape=(2, 3))], 0), "(?, 3)"),
        (lambda: relay.concatenate([x(n, 3), relay.var("y", shape=(n, 5))], 1), "(?, 8)"),
        (lambda: relay.nn.batch_flatten(x(n, 2, 3)), "(?, 6)"),
        (lambda: relay.nn.batch_flatten(x(2, n, 3)), "(2, ?)"),
        (lambda: relay.nn.pad(x(n, 4), ((1, 2), (3, 4))), "(?, 11)"),
        (lambda: relay.nn.pad(x(n, 4), ((-1, 0), (0, -1))), "(?, 3)"),
        (lambda: relay.nn.upsampling(x(1, 2, n, 5), 2.0, 3.0), "(1, 2, ?, 15)"),
        (lambda: relay.nn.upsampling3d(x(1, 2, 3, n, 5), 2.0, 2.0, 2.0), "(1, 2, 6, ?, 10)"),
        (lambda: relay.image.resize2d(x(1, 2, n, w), (te.var("h"), 8)), "(1, 2, ?, 8)"),
        (lambda: relay.reshape_like(x(n, 2, 3, w), relay.var("y", shape=(6, 5))), "(6, 5)"),
        (lambda: relay.reshape_like(x(n, 2, 3), relay.var("y", shape=(6,)), 1), "(?, 6)"),
        (lambda: relay.full_like(x(n, 3), relay.const(2.0)), "(?, 3)"),
        (lambda: relay.zeros_like(x(n, 3, dtype="int32")), "(?, 3)"),
        (lambda: x(n, 1) + relay.var("y", shape=(3, 4)), "(3, 4)"),  # as TVM's BroadcastRel
        (lambda: relay.tile(x(n, 4), (2, 3)), "(?, 12)"),
        (lambda: relay.cumsum(x(n, 4)), "(?)"),
        (
            lambda: relay.nn.conv2d(x(1, 3, n, 8), relay.var("w", shape=(4, 3, 3, 3)), padding=1),
            "(1, 4, ?, 8)",
        ),
        (lambda: relay.nn.max_pool2d(x(1, 3, 8, w), (2, 2), (2, 2)), "(1, 3, 4, ?)"),
        (
            lambda: relay.nn.conv2d_transpose(x(1, 3, n, 5), relay.var("w", shape=(3, 4, 3, 3))),
            "(1, 4, ?, 7)",
        ),
    ],
)
def test_inferred_types(build: Callable[[], Expr], expected: str) -> None:
    assert inferred(build())[len("Tensor[") :].rsplit(",", 1)[0] == expected


def test_split_types() -> None:
    by_indices = relay.split(x(4, n), (1, 3), axis=1).astuple()
    assert inferred(by_indices) == (
        "(Tensor[(4, 1), float32], Tensor[(4, 2), float32], Tensor[(4, ?), float32])"
    )
    sections = relay.split(x(n, 4), 2).astuple()
    assert inferred(sections) == "(Tensor[(?, 4), float32], Tensor[(?, 4), float32])"


def evaluate(fn: relay.Function, *args: np.ndarray) -> object:
    return relay.create_executor("debug", target="llvm").evaluate(fn)(*args)


def test_symbolic_function_runs_on_concrete_data() -> None:
    data = np.arange(24, dtype="float32").reshape(2, 3, 4)
    v = x(n, 3, 4)
    flat = relay.nn.batch_flatten(v)
    half = relay.split(flat, 2, axis=1)
    body = relay.Tuple(
        [
            relay.reshape_like(half[1], relay.var("l", shape=(1, 2, 3)), 1, rhs_begin=1),
            relay.nn.pad(v, ((-1, 0), (-1, 1), (0, 0)), pad_value=relay.const(7.0)),
            relay.full_like(v, relay.const(1.5)),
            relay.concatenate([v, v], 0),
        ]
    )
    fn = relay.Function([v, relay.var("l", shape=(1, 2, 3))], body)
    assert str(fn.checked_type.ret_type).startswith("(Tensor[(?, 2, 3), float32]")
    shaped, padded, filled, joined = evaluate(fn, data, np.zeros((1, 2, 3), "float32"))
    np.testing.assert_array_equal(shaped.numpy(), data.reshape(2, 12)[:, 6:].reshape(2, 2, 3))
    expected = np.pad(data[1:, 1:, :], ((0, 0), (0, 1), (0, 0)), constant_values=7.0)
    np.testing.assert_array_equal(padded.numpy(), expected)
    np.testing.assert_array_equal(filled.numpy(), np.full((2, 3, 4), 1.5, "float32"))
    np.testing.assert_array_equal(joined.numpy(), np.concatenate([data, data]))


def test_symbolic_upsampling_runs() -> None:
    v = x(1, 1, n, 2)
    fn = relay.Function([v], relay.nn.upsampling(v, 2.0, 2.0))
    data = np.arange(6, dtype="float32").reshape(1, 1, 3, 2)
    out = evaluate(fn, data).numpy()
    np.testing.assert_array_equal(out, data.repeat(2, axis=2).repeat(2, axis=3))


def test_resize_to_a_symbolic_size_type_checks_but_does_not_run() -> None:
    v = x(1, 2, 4)
    fn = relay.Function([v], relay.image.resize1d(v, (te.var("tw"),)))
    assert str(fn.checked_type.ret_type) == "Tensor[(1, 2, ?), float32]"
    with pytest.raises(
        RelayInterpreterError, match=r"'relay\.image\.resize1d' has a symbolic size"
    ):
        evaluate(fn, np.ones((1, 2, 4), "float32"))


@pytest.mark.parametrize(("upper", "k"), [(True, 0), (True, 1), (False, -1), (False, 2)])
def test_trilu_with_a_run_time_k(upper: bool, k: int) -> None:
    data = np.arange(1, 13, dtype="float32").reshape(3, 4)
    v, diagonal = x(3, 4), relay.var("k", shape=(), dtype="int32")
    fn = relay.Function([v, diagonal], relay.trilu(v, diagonal, upper))
    expected = np.triu(data, k) if upper else np.tril(data, k)
    for kind in ("debug", "graph"):
        run = relay.create_executor(kind, target="llvm").evaluate(fn)
        np.testing.assert_array_equal(run(data, np.array(k, "int32")).numpy(), expected)
