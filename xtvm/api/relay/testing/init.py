"""TVM's `relay.testing.init`: a network and random weights for it, as benchmark workloads."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from xtvm.api.ir_module import IRModule
from xtvm.api.relay.expr import Function
from xtvm.api.relay.ty import TensorType
from xtvm.runtime import ndarray as nd


def create_workload(
    net: Function,
    initializer: Callable[[str, np.ndarray], None] | None = None,
    seed: int = 0,
) -> tuple[IRModule, dict[str, nd.NDArray]]:
    """TVM's benchmark workload: `net` as a module and random weights (Xavier-uniform for
    matrices and kernels, zeros for biases and other vectors) for every parameter but `data`.

    An `initializer(name, array)` replaces that default: as in TVM, it fills each parameter's
    zero-initialised array in place."""
    mod = IRModule.from_expr(net)
    rng = np.random.default_rng(seed)
    params: dict[str, nd.NDArray] = {}
    for param in mod["main"].params:
        typ = param.checked_type
        if param.name_hint == "data" or not isinstance(typ, TensorType):
            continue
        shape = typ.concrete_shape
        value = np.zeros(shape, typ.dtype)
        if initializer is not None:
            initializer(param.name_hint, value)
        elif len(shape) >= 2 and not param.name_hint.endswith(("bias", "mean", "var", "beta")):
            receptive = int(np.prod(shape[2:])) if len(shape) > 2 else 1
            scale = np.sqrt(3.0 / ((shape[0] + shape[1]) * receptive / 2.0))
            value = rng.uniform(-scale, scale, shape).astype(typ.dtype)
        elif param.name_hint.endswith(("gamma", "var")):
            value = np.ones(shape, typ.dtype)
        params[param.name_hint] = nd.array(value)
    return mod, params
