"""`relay-cse`: merge relay ops that compute the same value.

Two relay ops with the same name, operands, properties and result types compute the same value,
since relay ops are pure: the later one is replaced by the earlier one that dominates it. This
also merges equal `relay.const`s and `relay.param`s of the same name. Other dialects' ops are
neither merged nor erased, which is the upstream `cse`'s job.

xDSL's CSE driver keys ops by a hash of their result types, and a tuple type built from a list
(as parsed) cannot be hashed, so it fails on `relay.tuple` and `relay.split`; the key here uses
the dialect's `canonical_type` instead. Scoping is the driver's: an op in a nested region sees
the ops before it in the enclosing blocks, unless its region is isolated from above.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.traits import IsolatedFromAbove

from xtvm.dialects import relay
from xtvm.ir.verify import refuse_multiple_blocks
from xtvm.passes.external_functions import host_functions

KnownOps = dict[Hashable, relay.RelayOp]


def value_key(op: relay.RelayOp) -> Hashable | None:
    """What makes two relay ops compute the same value; None if it cannot be hashed."""
    key = (
        op.name,
        tuple(op.operands),
        tuple(sorted(op.properties.items())),
        tuple(sorted(op.attributes.items())),
        tuple(relay.canonical_type(t) for t in op.result_types),
    )
    try:
        hash(key)
    except TypeError:
        return None
    return key


def merge_in_block(
    block: Block, known: KnownOps, skip: Callable[[Operation], bool] | None = None
) -> None:
    """Replace each relay op of `block` that is in `known` (or earlier in the block); an op
    `skip` accepts is neither replaced nor a replacement (TVM's `fskip`)."""
    for op in list(block.ops):
        for region in op.regions:
            outer = {} if op.has_trait(IsolatedFromAbove, value_if_unregistered=True) else known
            for nested in region.blocks:
                merge_in_block(nested, dict(outer), skip)  # sibling blocks do not see each other
        if not isinstance(op, relay.RelayOp) or (key := value_key(op)) is None:
            continue
        if skip is not None and skip(op):
            continue
        existing = known.setdefault(key, op)
        if existing is not op:
            Rewriter.replace_op(op, [], existing.results)


@dataclass(frozen=True)
class RelayCsePass(ModulePass):
    """Merge relay ops that compute the same value (same op, operands and properties).

    A second `relay.add %x, %y` is replaced by the first; two equal `relay.const`s become one.
    """

    name = "relay-cse"

    skip: Callable[[Operation], bool] | None = None
    """Ops to leave alone (set from Python only: TVM's `EliminateCommonSubexpr(fskip)`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        refuse_multiple_blocks(op, f"'{self.name}'")
        for function in host_functions(op):
            merge_in_block(function.body.block, {}, self.skip)
