"""TVM's `relay.op.contrib`: partitioning helpers of the external codegens, `partition_for_dnnl`
and `partition_for_accel`, imported by name (`from xtvm.relay.op.contrib.dnnl import ...`)."""
