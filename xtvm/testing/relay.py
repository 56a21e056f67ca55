"""Helpers for relay tests: run a built graph, evaluate a module with the relay interpreter."""

from __future__ import annotations

import numpy as np

import xtvm as tvm
from xtvm import relay
from xtvm.contrib import graph_executor


def run_factory(factory: object, **inputs: np.ndarray) -> list[np.ndarray]:
    """Every output of `relay.build`'s `factory` run on the CPU with `inputs`."""
    module = graph_executor.GraphModule(factory["default"](tvm.cpu()))  # type: ignore[index]
    module.run(**inputs)
    return [module.get_output(k).numpy() for k in range(module.get_num_outputs())]


def interpret(mod: tvm.IRModule, params: dict[str, np.ndarray], *inputs: np.ndarray) -> list:
    """Every output of `mod` evaluated by the relay interpreter on `inputs`."""
    result = relay.create_executor("graph", mod=mod, params=params).evaluate()(*inputs)
    return [r.numpy() for r in (result if isinstance(result, tuple) else (result,))]


def tuning_model() -> tuple[tvm.IRModule, dict[str, np.ndarray]]:
    """A model with a kernel of each tunable kind: conv2d + relu, a dense on its result, an
    attention-like batch_matmul and the same batch_matmul again on negated queries; inputs
    x [1, 8, 6, 6], q [2, 16, 8], k [2, 12, 8], params w and d."""
    x = relay.var("x", shape=(1, 8, 6, 6))
    w = relay.var("w", shape=(16, 8, 3, 3))
    d = relay.var("d", shape=(12, 16 * 4 * 4))
    q, k = relay.var("q", shape=(2, 16, 8)), relay.var("k", shape=(2, 12, 8))
    y = relay.nn.dense(relay.nn.batch_flatten(relay.nn.relu(relay.nn.conv2d(x, w))), d)
    z = relay.nn.batch_matmul(q, k)
    z2 = relay.nn.batch_matmul(relay.negative(q), k)
    mod = tvm.IRModule.from_expr(relay.Function([x, w, d, q, k], relay.Tuple([y, z, z2])))
    rng = np.random.default_rng(0)
    params = {
        "w": rng.standard_normal((16, 8, 3, 3)).astype("float32"),
        "d": rng.standard_normal((12, 256)).astype("float32"),
    }
    return mod, params
