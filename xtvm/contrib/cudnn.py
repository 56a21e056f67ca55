"""TVM's `tvm.contrib.cudnn`: xtvm does not offload to cuDNN, so `exists()` is False and TVM
scripts take their non-cuDNN path; asking for a cuDNN op is a `TVMError`."""

from __future__ import annotations

from typing import NoReturn

from xtvm.ir.errors import TVMError


def exists() -> bool:
    """Whether cuDNN can be called: never in xtvm."""
    return False


def _unsupported(*args: object, **kwargs: object) -> NoReturn:
    raise TVMError("xtvm does not offload to cuDNN: use the relay op, which xtvm compiles itself")


conv_forward = _unsupported
softmax = _unsupported
log_softmax = _unsupported
