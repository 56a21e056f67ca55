"""`tvm._ffi`: xtvm has no C++ core; only the names TVM scripts import from here exist."""

from xtvm.api._ffi import base

__all__ = ["base"]
