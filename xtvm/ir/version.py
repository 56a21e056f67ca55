"""The TVM release whose Python API xtvm follows (scripts compare `tvm.__version__`)."""

TVM_VERSION = "0.13.0"
