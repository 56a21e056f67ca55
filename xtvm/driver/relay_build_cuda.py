"""`relay.build(mod, target="cuda")`: a relay module compiled into CUDA kernels plus the graph
that launches them.

The graph-level passes are those of the LLVM build (`build_module.py`); convert-relay-to-te
then picks every op's "cuda" schedule (blocks x threads for injective stages, shared-memory
tiles for products and convolutions, see `xtvm.topi.schedule_cuda`). The tir passes are the
source targets' (no tir-vectorize), then tir-split-host-device outlines each thread-bound
nest into a kernel launched by its host function. The CUDA backend renders the kernels; each
host function becomes a launch program the CUDA runtime runs.

    graph_json, lib, params = relay.build(mod, target="cuda", params=params)
    lib.imported_modules[0].get_source()            # the CUDA C
    module = graph_executor.GraphModule(factory["default"](tvm.cuda(0)))   # on a GPU
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from xtvm.backends.cuda.codegen import split_if_needed
from xtvm.driver.relay_graph import (
    BuildError,
    ModuleLike,
    bind_params,
    graph_of,
    inline_global_calls,
    module_of,
    run_passes,
    split_kernels,
)
from xtvm.passes.convert_relay_to_te import ConvertRelayToTePass
from xtvm.passes.convert_te_to_tir import ConvertTeToTirPass
from xtvm.passes.relay_fold_constant import RelayFoldConstantPass
from xtvm.passes.relay_fuse_ops import RelayFuseOpsPass
from xtvm.passes.relay_qnn_canonicalize import RelayQnnCanonicalizePass
from xtvm.passes.relay_simplify_inference import RelaySimplifyInferencePass
from xtvm.passes.tir_loop_partition import TirLoopPartitionPass
from xtvm.passes.tir_simplify import TirSimplifyPass
from xtvm.runtime.cuda import CUDAGraphExecutor, CUDAModule
from xtvm.runtime.graph_executor import GraphExecutorFactory
from xtvm.runtime.ndarray import Device


class CUDAGraphExecutorFactory(GraphExecutorFactory):
    """What a cuda `relay.build` returns: `factory["default"](tvm.cuda(0))` runs on the GPU
    (NoGPUError where none exists); `kernels` is the tir after host/device split."""

    def create(self, dev: Device | None = None) -> CUDAGraphExecutor:  # type: ignore[override]
        if dev is None or dev.device_type != "cuda":
            raise BuildError(f"a cuda build runs on tvm.cuda(0), not {dev or 'cpu(0)'}")
        assert isinstance(self.lib, CUDAModule)
        executor = CUDAGraphExecutor(self.graph_json, self.lib, dev)
        executor.set_input(**self.params)
        return executor

    def export_library(self, path: object) -> None:
        raise NotImplementedError(
            "export_library of a cuda build is not supported: the kernels are CUDA C "
            "(lib.imported_modules[0].get_source()), compiled to PTX when first launched"
        )


def lower_for_cuda(
    mod: ModuleLike, params: Mapping[str, Any] | None = None
) -> tuple[func.FuncOp, ModuleOp]:
    """@main as a graph of kernel calls, and the tir of those calls split into host functions
    and `tir.kernel`s (the module is not changed)."""
    module = module_of(mod).clone()
    inline_global_calls(module)
    bind_params(module, {k: np.asarray(getattr(v, "_data", v)) for k, v in (params or {}).items()})
    run_passes(
        module,
        [
            RelayQnnCanonicalizePass(),  # TVM's QNN Legalize and CanonicalizeOps
            RelaySimplifyInferencePass(),
            RelayFoldConstantPass(),
            RelayFuseOpsPass(),
            ConvertRelayToTePass("cuda"),
        ],
    )
    main, kernels = split_kernels(module)
    run_passes(
        kernels,
        [
            ConvertTeToTirPass(),
            TirSimplifyPass(),
            TirLoopPartitionPass(),
            TirSimplifyPass(),
        ],
    )
    split_if_needed(kernels)  # merges a block's thread loops, then tir-split-host-device
    kernels.verify()
    return main, kernels


def build_cuda(
    mod: ModuleLike, target: str = "cuda", params: Mapping[str, Any] | None = None
) -> CUDAGraphExecutorFactory:
    """Compile `mod` for a CUDA GPU: `graph_json, lib, params = relay.build(mod, "cuda")`."""
    from xtvm.backends.cuda import build_cuda as build_kernels

    main, kernels = lower_for_cuda(mod, params)
    graph, constants = graph_of(main)
    lib = build_kernels(kernels.clone())
    unbound = {k: np.asarray(getattr(v, "_data", v)) for k, v in (params or {}).items()}
    graph_inputs = {n["name"] for n in graph["nodes"] if n["op"] == "null"}
    all_params = {k: v for k, v in unbound.items() if k in graph_inputs} | constants
    return CUDAGraphExecutorFactory(json.dumps(graph), lib, all_params, None, kernels)
