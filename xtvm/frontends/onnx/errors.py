"""The error of the ONNX frontend."""

from __future__ import annotations


class OnnxImportError(Exception):
    """An ONNX model cannot be imported; the message names the node and op type at fault.

    `needs_static` names the tensor that had to be known at import time when that was the
    cause (a backend can then bind that graph input to its value and import again).
    """

    def __init__(self, message: str, needs_static: str | None = None) -> None:
        super().__init__(message)
        self.needs_static = needs_static
