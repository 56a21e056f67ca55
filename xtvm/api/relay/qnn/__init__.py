"""TVM's `relay.qnn`: the quantized operators (`relay.qnn.op`) and the passes that rewrite them
into ordinary ones (`relay.qnn.transform`)."""

from xtvm.api.relay.op import qnn as op
from xtvm.api.relay.qnn import transform

__all__ = ["op", "transform"]
