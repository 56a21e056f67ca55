"""`tvm._ffi.base`: TVMError, which older TVM scripts import from here."""

from xtvm.api.error import TVMError

__all__ = ["TVMError"]
