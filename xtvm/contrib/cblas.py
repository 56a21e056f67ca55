"""TVM's `tvm.contrib.cblas`: matrix products computed by BLAS, as `te.extern` stages.

`cblas.matmul(A, B)` is a stage calling the packed function "tvm.contrib.cblas.matmul"
(registered when this module is imported, as TVM's runtime registers it), which computes
`C = op(A) @ op(B)` with numpy's BLAS (sgemm/dgemm) into the stage's buffer; a kernel
built with it calls back into this process (the LLVM JIT).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from xtvm.runtime.ndarray import NDArray
from xtvm.runtime.registry import get_global_func, register_func
from xtvm.te.expr import Tensor
from xtvm.te.stmt import call_packed, extern

MATMUL = "tvm.contrib.cblas.matmul"
BATCH_MATMUL = "tvm.contrib.cblas.batch_matmul"


def matmul(
    lhs: Tensor, rhs: Tensor, transa: bool = False, transb: bool = False, **kwargs: Any
) -> Tensor:
    """`op(lhs) @ op(rhs)` of 2-d tensors, `op` transposing where `transa` / `transb`."""
    register()
    n = lhs.shape[1] if transa else lhs.shape[0]
    m = rhs.shape[0] if transb else rhs.shape[1]
    return extern(  # type: ignore[return-value]
        (n, m),
        [lhs, rhs],
        lambda ins, outs: call_packed(MATMUL, ins[0], ins[1], outs[0], transa, transb),
        name=kwargs.pop("name", "C"),
        **kwargs,
    )


def batch_matmul(
    lhs: Tensor, rhs: Tensor, transa: bool = False, transb: bool = False, **kwargs: Any
) -> Tensor:
    """`op(lhs[b]) @ op(rhs[b])` for each batch `b` of 3-d tensors."""
    register()
    b = lhs.shape[0]
    n = lhs.shape[2] if transa else lhs.shape[1]
    m = rhs.shape[1] if transb else rhs.shape[2]
    return extern(  # type: ignore[return-value]
        (b, n, m),
        [lhs, rhs],
        lambda ins, outs: call_packed(BATCH_MATMUL, ins[0], ins[1], outs[0], transa, transb),
        name=kwargs.pop("name", "C"),
        **kwargs,
    )


def _matmul(a: NDArray, b: NDArray, c: NDArray, transa: int, transb: int) -> None:
    """The packed function: `c = op(a) @ op(b)`, written into `c`'s memory."""
    x, y = np.asarray(a), np.asarray(b)
    x = np.swapaxes(x, -1, -2) if transa else x
    y = np.swapaxes(y, -1, -2) if transb else y
    out = np.asarray(c)
    if x.shape[:-2] != out.shape[:-2] or (x.shape[-2], y.shape[-1]) != out.shape[-2:]:
        raise ValueError(f"cblas: {x.shape} @ {y.shape} does not make {out.shape}")
    np.matmul(x, y, out=out)


def register() -> None:
    """Register the packed functions (again, where they were removed)."""
    for name in (MATMUL, BATCH_MATMUL):
        if get_global_func(name, allow_missing=True) is None:
            register_func(name, _matmul)


register()
