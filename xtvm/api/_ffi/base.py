"""`tvm._ffi.base`: TVMError, which older TVM scripts import from here."""

from xtvm.ir.errors import TVMError

__all__ = ["TVMError"]
