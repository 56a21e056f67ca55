"""TVM's `relay.op.contrib.dnnl`: partitioning a relay module for the oneDNN codegen
(xtvm/backends/external/dnnl.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from xtvm.api.relay import transform
from xtvm.api.transform import PassContext, Sequential
from xtvm.backends.external.dnnl import register_dnnl_ops
from xtvm.driver.relay_build import bind_params


def partition_for_dnnl(mod: Any, params: Any = None, simplify: bool = True) -> Any:
    """TVM's `partition_for_dnnl`: bind `params`, then annotate, merge and partition for dnnl.

    With `simplify` (the default) batch norms become a multiply and an add first, folded into
    the convolution weights and biases (SimplifyInference, FoldConstant, FoldScaleAxis), so a
    conv2d-batch_norm-relu is one oneDNN convolution with a bias and a relu post-op.
    """
    register_dnnl_ops()  # again, in case a test unregistered the target
    mod = mod.copy()
    if params:
        bind_params(mod.xdsl, {k: np.asarray(getattr(v, "_data", v)) for k, v in params.items()})
    passes = []
    if simplify:
        passes += [
            transform.SimplifyInference(),
            transform.FoldConstant(),
            transform.FoldScaleAxis(),
            transform.FoldConstant(),
        ]
    passes += [
        transform.AnnotateTarget(["dnnl"]),
        transform.MergeCompilerRegions(),
        transform.PartitionGraph(),
    ]
    # As TVM's helper: at opt_level 3, where FoldScaleAxis runs.
    with PassContext(opt_level=3):
        return Sequential(passes)(mod)
