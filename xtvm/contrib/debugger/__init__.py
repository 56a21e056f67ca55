"""TVM's `tvm.contrib.debugger`: `debug_executor`, a graph executor that times each kernel."""

from xtvm.contrib.debugger import debug_executor

__all__ = ["debug_executor"]
