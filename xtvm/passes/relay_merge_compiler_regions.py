"""`relay-merge-compiler-regions`: group neighbouring ops of one codegen into regions.

The second of TVM's three BYOC steps. After `relay-annotate-target` every offloaded op carries
`compiler = "<codegen>"`; this pass gives each one a `compiler_region = <id> : i64`, one id per
region that `relay-partition-graph` will outline into one function.

Ops are visited in program order, each starting a region of its own, which then absorbs the
region of every operand annotated for the same codegen. A merge is refused when it would make
the region non-convex: a path leaving the region through another op and coming back into it
would become a cycle between the outlined function and the host (TVM's MergeCompilerRegions
checks the same). Region ids are numbered from 0 in program order in each function (TVM names
a partitioned function after its host and its region's id); ops of the host (`default`) and
unannotated ops get none.

Functions with a `compiler` attribute are already outlined and are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass

from xtvm.passes.relay_annotate_target import (
    COMPILER_ATTR,
    DEFAULT_COMPILER,
    compiler_of,
    is_external,
)

REGION_ATTR = "compiler_region"
"""On an offloaded op: the id of the region it is outlined with."""


def users_in_block(op: Operation, block: Block) -> list[Operation]:
    """The ops of `block` that use a result of `op`, directly or inside their regions."""
    users = [block.find_ancestor_op_in_block(use.operation) for r in op.results for use in r.uses]
    return [u for u in users if u is not None]


@dataclass
class RegionMerger:
    """The regions of one block: a union-find over its offloaded ops."""

    block: Block
    index: dict[Operation, int]
    leader: dict[Operation, Operation]
    members: dict[Operation, list[Operation]]

    @staticmethod
    def of(block: Block) -> RegionMerger:
        return RegionMerger(block, {op: i for i, op in enumerate(block.ops)}, {}, {})

    def find(self, op: Operation) -> Operation:
        while self.leader[op] is not op:
            self.leader[op] = self.leader[self.leader[op]]
            op = self.leader[op]
        return op

    def would_cycle(self, ops: list[Operation]) -> bool:
        """Whether some path leaves the op set `ops` and comes back into it.

        A path back must end before the last op of the set in program order, so the search
        never looks past it.
        """
        inside = set(ops)
        last = max(self.index[op] for op in ops)
        stack = [u for op in ops for u in users_in_block(op, self.block) if u not in inside]
        seen: set[Operation] = set()
        while stack:
            op = stack.pop()
            if op in seen or self.index[op] > last:
                continue
            seen.add(op)
            for user in users_in_block(op, self.block):
                if user in inside:
                    return True
                stack.append(user)
        return False

    def add(self, op: Operation) -> None:
        """Start a region for `op` and merge into it each same-codegen operand's region."""
        self.leader[op], self.members[op] = op, [op]
        compiler = compiler_of(op)
        for operand in op.operands:
            producer = operand.owner
            if producer not in self.leader or compiler_of(producer) != compiler:
                continue
            mine, theirs = self.find(op), self.find(producer)  # type: ignore[arg-type]
            if mine is theirs:
                continue
            merged = self.members[theirs] + self.members[mine]
            if self.would_cycle(merged):
                continue
            self.leader[mine] = theirs
            self.members[theirs] = sorted(merged, key=self.index.__getitem__)
            del self.members[mine]

    def regions(self) -> list[list[Operation]]:
        """The regions, each in program order, ordered by their first op."""
        return sorted(self.members.values(), key=lambda ops: self.index[ops[0]])


def merge_block(block: Block, next_id: int) -> int:
    """Number the regions of `block` from `next_id`; returns the next free id."""
    merger = RegionMerger.of(block)
    for op in block.ops:
        op.attributes.pop(REGION_ATTR, None)
        if COMPILER_ATTR in op.attributes and compiler_of(op) != DEFAULT_COMPILER:
            merger.add(op)
    for region in merger.regions():
        for op in region:
            op.attributes[REGION_ATTR] = IntegerAttr(next_id, i64)
        next_id += 1
    return next_id


@dataclass(frozen=True)
class RelayMergeCompilerRegionsPass(ModulePass):
    """Merge adjacent ops annotated for one codegen into regions, never creating a cycle.

    `%a = relay.add .. {compiler = "c"}` feeding `%b = relay.multiply %a .. {compiler = "c"}`
    both get `compiler_region = 0`.
    """

    name = "relay-merge-compiler-regions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in op.body.block.ops:
            if not isinstance(f, func.FuncOp) or is_external(f):
                continue
            next_id = 0
            for block in f.body.blocks:
                next_id = merge_block(block, next_id)
