"""TVM's `tvm.exec`: `python -m xtvm.exec.rpc_server`, `rpc_tracker`, `query_rpc_tracker`."""
