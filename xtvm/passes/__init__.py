"""The pass registry: kebab-case name -> lazy loader of the pass class.

xtvm's own passes live one per module in this package (`relay_fuse_ops.py` is
`relay-fuse-ops`); the upstream xDSL passes that carry their usual meaning are registered here
too. Loaders are lazy so that start-up stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.passes import ModulePass

PassLoader = Callable[[], type[ModulePass]]

UPSTREAM_PASSES = (
    "canonicalize",
    "cse",
    "dce",
    "licm",
    "convert-scf-to-cf",
    "lower-affine",
    "reconcile-unrealized-casts",
    "scf-for-loop-unroll",
    "scf-for-loop-flatten",
)


def _relay_cse() -> type[ModulePass]:
    from xtvm.passes.relay_cse import RelayCsePass

    return RelayCsePass


def _relay_dce() -> type[ModulePass]:
    from xtvm.passes.relay_dce import RelayDcePass

    return RelayDcePass


def _relay_fold_constant() -> type[ModulePass]:
    from xtvm.passes.relay_fold_constant import RelayFoldConstantPass

    return RelayFoldConstantPass


def _relay_infer_types() -> type[ModulePass]:
    from xtvm.passes.relay_infer_types import RelayInferTypesPass

    return RelayInferTypesPass


def _relay_simplify_inference() -> type[ModulePass]:
    from xtvm.passes.relay_simplify_inference import RelaySimplifyInferencePass

    return RelaySimplifyInferencePass


def _own_passes() -> dict[str, PassLoader]:
    """xtvm's passes: one entry per module of this package."""
    return {
        "relay-cse": _relay_cse,
        "relay-dce": _relay_dce,
        "relay-fold-constant": _relay_fold_constant,
        "relay-infer-types": _relay_infer_types,
        "relay-simplify-inference": _relay_simplify_inference,
    }


def upstream_passes() -> dict[str, PassLoader]:
    from xdsl.transforms import get_all_passes

    available = get_all_passes()
    return {name: available[name] for name in UPSTREAM_PASSES if name in available}


def all_passes() -> dict[str, PassLoader]:
    """Every pass the tools know, by name."""
    return upstream_passes() | _own_passes()
