"""`topi.testing`: numpy reference implementations that TVM's tests compare kernels with."""

from __future__ import annotations

import numpy as np

__all__ = ["log_softmax_python", "softmax_python"]


def softmax_python(a_np: np.ndarray, axis: int = 1) -> np.ndarray:
    """Softmax along `axis`, computed stably (the maximum subtracted first)."""
    shifted = a_np - np.max(a_np, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return (e / np.sum(e, axis=axis, keepdims=True)).astype(a_np.dtype)


def log_softmax_python(a_np: np.ndarray, axis: int = 1) -> np.ndarray:
    """Log of the softmax along `axis`, without forming the softmax itself."""
    shifted = a_np - np.max(a_np, axis=axis, keepdims=True)
    return (shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))).astype(a_np.dtype)
