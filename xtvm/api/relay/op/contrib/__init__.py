"""TVM's `relay.op.contrib`: partitioning helpers of the external codegens, `partition_for_dnnl`
and `partition_for_accel`, imported by name (`from xtvm.relay.op.contrib.dnnl import ...`), and
the codegens' pattern tables (`get_pattern_table("dnnl")`)."""

from xtvm.api.relay.op.contrib.register import get_pattern_table, register_pattern_table

__all__ = ["get_pattern_table", "register_pattern_table"]
