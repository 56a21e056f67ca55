"""The pass registry: kebab-case name -> lazy loader of the pass class.

xtvm's own passes live one per module in this package (`relay_fuse_ops.py` is
`relay-fuse-ops`); the upstream xDSL passes that carry their usual meaning are registered here
too. Loaders are lazy so that start-up stays cheap.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xdsl.passes import ModulePass

PassLoader = Callable[[], "type[ModulePass]"]

# Upstream passes and their one-line summaries (some xDSL classes have no docstring).
UPSTREAM_PASSES = {
    "cse": "Eliminate common subexpressions",
    "dce": "Remove dead operations",
    "licm": "Hoist loop-invariant code out of loops",
    "convert-scf-to-cf": "Lower structured control flow (scf) to branches (cf)",
    "lower-affine": "Lower affine ops to arith and scf",
    "scf-for-loop-flatten": "Flatten nested scf.for loops where the inner one is contiguous",
}


# xtvm's passes: name -> class; the module is the name in snake_case (STYLE.md §2).
OWN_PASSES = {
    "canonicalize": "CanonicalizePass",
    "convert-relay-to-te": "ConvertRelayToTePass",
    "convert-te-to-tir": "ConvertTeToTirPass",
    "reconcile-unrealized-casts": "ReconcileUnrealizedCastsPass",
    "relay-alter-dense-layout": "RelayAlterDenseLayoutPass",
    "relay-alter-op-layout": "RelayAlterOpLayoutPass",
    "relay-annotate-target": "RelayAnnotateTargetPass",
    "relay-canonicalize-ops": "RelayCanonicalizeOpsPass",
    "relay-combine-layer-norm": "RelayCombineLayerNormPass",
    "relay-combine-parallel-dense": "RelayCombineParallelDensePass",
    "relay-convert-layout": "RelayConvertLayoutPass",
    "relay-cse": "RelayCsePass",
    "relay-dce": "RelayDcePass",
    "relay-fold-constant": "RelayFoldConstantPass",
    "relay-fold-scale-axis": "RelayFoldScaleAxisPass",
    "relay-fuse-ops": "RelayFuseOpsPass",
    "relay-infer-types": "RelayInferTypesPass",
    "relay-inline": "RelayInlinePass",
    "relay-merge-compiler-regions": "RelayMergeCompilerRegionsPass",
    "relay-qnn-canonicalize": "RelayQnnCanonicalizePass",
    "relay-partition-graph": "RelayPartitionGraphPass",
    "relay-print-dot": "RelayPrintDotPass",
    "relay-simplify-expr": "RelaySimplifyExprPass",
    "relay-simplify-inference": "RelaySimplifyInferencePass",
    "relay-split-to-slices": "RelaySplitToSlicesPass",
    "scf-for-loop-unroll": "ScfForLoopUnrollPass",
    "tir-loop-partition": "TirLoopPartitionPass",
    "tir-lower-intrinsics": "TirLowerIntrinsicsPass",
    "tir-serialize-parallel": "TirSerializeParallelPass",
    "tir-simplify": "TirSimplifyPass",
    "tir-split-host-device": "TirSplitHostDevicePass",
    "tir-storage-flatten": "TirStorageFlattenPass",
    "tir-tensorize": "TirTensorizePass",
    "tir-unroll": "TirUnrollPass",
    "tir-vectorize": "TirVectorizePass",
    "tir-vector-accumulate": "TirVectorAccumulatePass",
    "tir-vector-transpose": "TirVectorTransposePass",
}


def _load(name: str, class_name: str) -> type[ModulePass]:
    module = importlib.import_module(f"{__name__}.{name.replace('-', '_')}")
    return getattr(module, class_name)


def _own_passes() -> dict[str, PassLoader]:
    """xtvm's passes, each imported on first use."""
    return {name: partial(_load, name, cls) for name, cls in OWN_PASSES.items()}


def _load_upstream(name: str) -> type[ModulePass]:
    from xdsl.transforms import get_all_passes

    return get_all_passes()[name]()


def upstream_passes() -> dict[str, PassLoader]:
    """The upstream passes, each imported on first use (xDSL is pinned, so all are there)."""
    return {name: partial(_load_upstream, name) for name in UPSTREAM_PASSES}


def all_passes() -> dict[str, PassLoader]:
    """Every pass the tools know, by name."""
    return upstream_passes() | _own_passes()
