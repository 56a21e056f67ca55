"""`relay-dce`: erase relay ops whose results are unused.

Relay ops are pure, so an op nobody reads can go, and with it the ops only it read. Other
dialects' ops are left alone, even pure ones: that is the upstream `dce`'s job.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.transforms.dead_code_elimination import is_trivially_dead

from xtvm.dialects import relay
from xtvm.passes.external_functions import host_functions


class EraseUnusedRelayOp(RewritePattern):
    """Erase a relay op none of whose results is used."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.RelayOp, rewriter: PatternRewriter) -> None:
        if not is_trivially_dead(op):
            return
        rewriter.erase(op)


@dataclass(frozen=True)
class RelayDcePass(ModulePass):
    """Erase relay ops whose results are unused, transitively.

    `%e = relay.exp %x` with no use of %e disappears; so does an op used only by it.
    """

    name = "relay-dce"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # Walking backwards meets users before the ops they read; erasing an op re-queues
        # the ops that defined its operands.
        walker = PatternRewriteWalker(EraseUnusedRelayOp(), walk_reverse=True)
        for function in host_functions(op):
            walker.rewrite_region(function.body)
