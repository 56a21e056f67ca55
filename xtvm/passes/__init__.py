"""The pass registry: kebab-case name -> lazy loader of the pass class.

xtvm's own passes live one per module in this package (`relay_fuse_ops.py` is
`relay-fuse-ops`); the upstream xDSL passes that carry their usual meaning are registered here
too. Loaders are lazy so that start-up stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.passes import ModulePass

PassLoader = Callable[[], type[ModulePass]]

# Upstream passes and their one-line summaries (some xDSL classes have no docstring).
UPSTREAM_PASSES = {
    "canonicalize": "Fold ops and apply each op's canonicalization patterns",
    "cse": "Eliminate common subexpressions",
    "dce": "Remove dead operations",
    "licm": "Hoist loop-invariant code out of loops",
    "convert-scf-to-cf": "Lower structured control flow (scf) to branches (cf)",
    "lower-affine": "Lower affine ops to arith and scf",
    "reconcile-unrealized-casts": "Remove chains of unrealized conversion casts that cancel out",
    "scf-for-loop-unroll": "Fully unroll scf.for loops with constant trip counts",
    "scf-for-loop-flatten": "Flatten nested scf.for loops where the inner one is contiguous",
}


def _relay_annotate_target() -> type[ModulePass]:
    from xtvm.passes.relay_annotate_target import RelayAnnotateTargetPass

    return RelayAnnotateTargetPass


def _relay_cse() -> type[ModulePass]:
    from xtvm.passes.relay_cse import RelayCsePass

    return RelayCsePass


def _relay_dce() -> type[ModulePass]:
    from xtvm.passes.relay_dce import RelayDcePass

    return RelayDcePass


def _relay_fold_constant() -> type[ModulePass]:
    from xtvm.passes.relay_fold_constant import RelayFoldConstantPass

    return RelayFoldConstantPass


def _relay_fold_scale_axis() -> type[ModulePass]:
    from xtvm.passes.relay_fold_scale_axis import RelayFoldScaleAxisPass

    return RelayFoldScaleAxisPass


def _relay_fuse_ops() -> type[ModulePass]:
    from xtvm.passes.relay_fuse_ops import RelayFuseOpsPass

    return RelayFuseOpsPass


def _relay_infer_types() -> type[ModulePass]:
    from xtvm.passes.relay_infer_types import RelayInferTypesPass

    return RelayInferTypesPass


def _relay_merge_compiler_regions() -> type[ModulePass]:
    from xtvm.passes.relay_merge_compiler_regions import RelayMergeCompilerRegionsPass

    return RelayMergeCompilerRegionsPass


def _relay_partition_graph() -> type[ModulePass]:
    from xtvm.passes.relay_partition_graph import RelayPartitionGraphPass

    return RelayPartitionGraphPass


def _relay_simplify_inference() -> type[ModulePass]:
    from xtvm.passes.relay_simplify_inference import RelaySimplifyInferencePass

    return RelaySimplifyInferencePass


def _relay_print_dot() -> type[ModulePass]:
    from xtvm.passes.relay_print_dot import RelayPrintDotPass

    return RelayPrintDotPass


def _own_passes() -> dict[str, PassLoader]:
    """xtvm's passes: one entry per module of this package."""
    return {
        "relay-annotate-target": _relay_annotate_target,
        "relay-cse": _relay_cse,
        "relay-dce": _relay_dce,
        "relay-fold-constant": _relay_fold_constant,
        "relay-fold-scale-axis": _relay_fold_scale_axis,
        "relay-fuse-ops": _relay_fuse_ops,
        "relay-infer-types": _relay_infer_types,
        "relay-merge-compiler-regions": _relay_merge_compiler_regions,
        "relay-partition-graph": _relay_partition_graph,
        "relay-print-dot": _relay_print_dot,
        "relay-simplify-inference": _relay_simplify_inference,
    }


def upstream_passes() -> dict[str, PassLoader]:
    from xdsl.transforms import get_all_passes

    available = get_all_passes()
    return {name: available[name] for name in UPSTREAM_PASSES if name in available}


def all_passes() -> dict[str, PassLoader]:
    """Every pass the tools know, by name."""
    return upstream_passes() | _own_passes()
