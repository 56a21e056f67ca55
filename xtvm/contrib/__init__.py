"""TVM's `tvm.contrib`: `from xtvm.contrib import graph_executor`."""
