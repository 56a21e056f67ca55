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
