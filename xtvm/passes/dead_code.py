"""xDSL's dead-code decisions, reached without collecting every effect of a loop nest.

xDSL asks whether an op "would be trivially dead" by gathering the memory effects of
everything nested in it (`RecursiveMemoryEffect`) into one set and then checking that set.
A greedy rewrite asks it of every op it visits, and of a loop again for each loop around it,
so a deep loop nest is walked in full at every level, each time it is revisited: 27 of the 50
s of `tir-simplify` (under cProfile) on a full-size LSTM's kernels. The functions here give
the same answer, stopping at the first effect (or op of unknown effects) that makes the op
live: a store near the top of a loop body ends the walk.

`GreedyApplier` is xDSL's GreedyRewritePatternApplier with this check in place of its own;
`region_dce` is xDSL's region dead-code elimination with it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.ir import Operation, Region, SSAValue
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriterListener,
    RewritePattern,
)
from xdsl.traits import (
    EffectInstance,
    IsTerminator,
    MemoryEffect,
    MemoryEffectKind,
    RecursiveMemoryEffect,
    SymbolOpInterface,
)
from xdsl.transforms.dead_code_elimination import LiveSet

RECURSIVE_EFFECTS = RecursiveMemoryEffect.get_effects.__func__  # type: ignore[attr-defined]


def recursive(trait: MemoryEffect) -> bool:
    """Whether `trait` gives the effects of the ops nested in its op (RecursiveMemoryEffect's
    own `get_effects`, not overridden)."""
    return getattr(type(trait).get_effects, "__func__", None) is RECURSIVE_EFFECTS


def effect_sets(op: Operation) -> Iterator[AbstractSet[EffectInstance] | None]:
    """The effects xDSL's `get_effects(op)` unites, set by set (None: unknown), breadth
    first: an op's own effects before those of the ops nested in it, so that a loop body's
    store is met before the branches beside it are searched."""
    queue = deque([op])
    while queue:
        current = queue.popleft()
        traits = current.get_traits_of_type(MemoryEffect)
        if not traits:
            yield None
        for trait in traits:
            if recursive(trait):
                queue.extend(c for r in current.regions for b in r.blocks for c in b.ops)
            else:
                yield trait.get_effects(current)


def observable(root: Operation) -> bool:
    """Whether `root` or an op nested in it has an effect beyond `root`'s results, or
    effects unknown: what makes xDSL's `result_only_effects(root)` false. A write, a free,
    or an allocation of a value defined outside `root` is observable; a read is not."""
    for effects in effect_sets(root):
        if effects is None:
            return True
        for e in effects:
            if e.kind == MemoryEffectKind.READ:
                continue
            if e.kind == MemoryEffectKind.ALLOC and isinstance(e.value, SSAValue):
                if root.is_ancestor(e.value.owner):  # type: ignore[arg-type]
                    continue
            return True
    return False


def side_effect_free(op: Operation) -> bool:
    """xDSL's `is_side_effect_free`: `op` and all it holds have no memory effect (all known)."""
    return all(effects is not None and not effects for effects in effect_sets(op))


def would_be_trivially_dead(op: Operation) -> bool:
    """xDSL's `would_be_trivially_dead`: `op` would be dead if its results were unused."""
    return (
        not op.has_trait(IsTerminator, value_if_unregistered=False)
        and not op.has_trait(SymbolOpInterface, value_if_unregistered=False)
        and not observable(op)
    )


def is_trivially_dead(op: Operation) -> bool:
    """xDSL's `is_trivially_dead`: `op`'s results are unused and it has no other effect."""
    return all(r.first_use is None for r in op.results) and would_be_trivially_dead(op)


@dataclass(eq=False, repr=False)
class GreedyApplier(GreedyRewritePatternApplier):
    """GreedyRewritePatternApplier erasing trivially dead ops with `is_trivially_dead` (made
    by `greedy`, with xDSL's own check, `dce_enabled`, off)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if is_trivially_dead(op):
            rewriter.erase(op)
            return
        super().match_and_rewrite(op, rewriter)


def greedy(
    patterns: list[RewritePattern], ctx: Context | None = None, folding: bool = False
) -> GreedyApplier:
    """A GreedyApplier of `patterns` (folding with `ctx` when `folding`)."""
    return GreedyApplier(patterns, ctx=ctx, folding_enabled=folding, dce_enabled=False)


class FastLiveSet(LiveSet):
    """xDSL's LiveSet with the early-stopping `would_be_trivially_dead`."""

    def propagate_op_liveness(self, op: Operation) -> None:
        for region in op.regions:
            self.propagate_region_liveness(region)
        if self.is_live(op):
            return
        # A live user first: it spares a search of a nest's effects (an scf.if chain of
        # loads, yielding to an if that stores, has none to find).
        if any(
            self.is_live(use.operation) for result in op.results for use in result.uses
        ) or not would_be_trivially_dead(op):
            self.set_live(op)


def region_dce(region: Region, listener: PatternRewriterListener | None = None) -> bool:
    """xDSL's `region_dce` (erase the ops of `region` that nothing live needs)."""
    live = FastLiveSet()
    while live.changed:
        live.changed = False
        live.propagate_region_liveness(region)
    live.delete_dead(region, listener)
    return live.changed
