"""`relay-partition-graph`: outline each compiler region into a function for its codegen.

The last of TVM's three BYOC steps. Every region that `relay-merge-compiler-regions` numbered
becomes a private `func.func @tvmgen_default_<codegen>_<host>_<n>` with the attributes
`compiler = "<codegen>"`, `global_symbol` (its name), `primitive` and `inline = 1` (TVM's
Primitive and Inline), and the region in the host function is replaced by one `func.call` of
it. `n` is the region's id (the next free number if that name is taken), as TVM names them
after their region; the functions are appended to the module in order of appearance.

- Inputs: the values the region reads from outside, in order of first use. A `relay.const`
  read by the region is copied into the function instead, so that the codegen sees it.
- Outputs: the results the host still reads, in program order; a region may have several, and
  the call then has several results.
- Host ops that sit between the region's ops in program order and read its results move after
  the call; a region is convex, so none of them feeds the region.

The `compiler` and `compiler_region` annotations are removed from the ops of the partitioned
functions. Functions with a `compiler` attribute (the outlined ones) are skipped, here as in
every BYOC pass; a codegen consumes them as they are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, IntegerAttr, ModuleOp, StringAttr, UnitAttr, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from xtvm.dialects import relay
from xtvm.ir.verify import located_error
from xtvm.passes.relay_annotate_target import (
    COMPILER_ATTR,
    DEFAULT_COMPILER,
    compiler_of,
    is_external,
)
from xtvm.passes.relay_merge_compiler_regions import REGION_ATTR

GLOBAL_SYMBOL_ATTR = "global_symbol"
OUTPUT_ATTR = "compiler_output"
"""On an op whose result a `compiler_end` closed: the annotation's rank in post-order; a
region's outputs come in this order (TVM's), the others after them in program order."""


def function_name(codegen: str, n: int, host: str = "main") -> str:
    """TVM's name of the n-th function partitioned out of `host` in the default module: the
    codegen's and the host's names with each character that is not a C identifier's as `_`
    (`unsanitary-name++` gives `tvmgen_default_unsanitary_name___main_0`)."""
    return f"tvmgen_default_{sanitize(codegen)}_{sanitize(host)}_{n}"


def sanitize(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


def strip_annotations(op: Operation) -> None:
    op.attributes.pop(COMPILER_ATTR, None)
    op.attributes.pop(REGION_ATTR, None)
    op.attributes.pop(OUTPUT_ATTR, None)


def block_regions(block: Block) -> list[tuple[int, list[Operation]]]:
    """The compiler regions of `block` and their ids, each in program order, ordered by their
    first op."""
    regions: dict[int, list[Operation]] = {}
    for op in block.ops:
        if COMPILER_ATTR not in op.attributes or compiler_of(op) == DEFAULT_COMPILER:
            continue
        region_id = op.attributes.get(REGION_ATTR)
        if not isinstance(region_id, IntegerAttr):
            raise located_error(
                op,
                f"'{op.name}' op is annotated for '{compiler_of(op)}' but has no "
                f"{REGION_ATTR}; run relay-merge-compiler-regions first",
            )
        ops = regions.setdefault(region_id.value.data, [])
        if ops and compiler_of(ops[0]) != compiler_of(op):
            raise located_error(
                op,
                f"'{op.name}' op is annotated for '{compiler_of(op)}' but region "
                f"{region_id.value.data} is for '{compiler_of(ops[0])}'",
            )
        ops.append(op)
    return list(regions.items())


def output_rank(value: SSAValue) -> int:
    """Where `value` comes among its region's outputs: by its `compiler_end`, else last."""
    rank = value.owner.attributes.get(OUTPUT_ATTR) if isinstance(value.owner, Operation) else None
    return rank.value.data if isinstance(rank, IntegerAttr) else 1 << 62


def constant_ops(owner: object) -> list[Operation] | None:
    """The ops computing a constant or a tuple of constants, operands first (what a partition
    copies in place of taking a parameter), or None for any other value."""
    if isinstance(owner, relay.ConstOp):
        return [owner]
    if not isinstance(owner, relay.TupleOp):
        return None
    ops: list[Operation] = []
    for value in owner.operands:
        inner = constant_ops(value.owner)
        if inner is None:
            return None
        ops.extend(o for o in inner if o not in ops)
    return [*ops, owner]


@dataclass
class RegionOutliner:
    """Outlines one region of a host block into a function and calls it."""

    block: Block
    ops: Sequence[Operation]
    members: set[Operation] = field(init=False)

    def __post_init__(self) -> None:
        self.members = set(self.ops)

    def inside(self, op: Operation | None) -> bool:
        return op is not None and op in self.members

    def host_op(self, user: Operation) -> Operation | None:
        return self.block.find_ancestor_op_in_block(user)

    def interface(self) -> tuple[list[SSAValue], list[Operation], list[SSAValue]]:
        """The region's inputs, the constants (and tuples of constants, as TVM) it copies,
        and the outputs the host reads."""
        inputs: list[SSAValue] = []
        consts: list[Operation] = []
        for op in self.ops:
            for value in op.operands:
                owner = value.owner
                if isinstance(owner, Operation) and self.inside(owner):
                    continue
                copied = constant_ops(owner)
                if copied is not None:
                    consts.extend(c for c in copied if c not in consts)
                elif value not in inputs:
                    inputs.append(value)
        outputs = [
            result
            for op in self.ops
            for result in op.results
            if any(not self.inside(self.host_op(use.operation)) for use in result.uses)
        ]
        return inputs, consts, sorted(outputs, key=output_rank)

    def function(
        self,
        name: str,
        codegen: str,
        inputs: list[SSAValue],
        consts: list[Operation],
        outputs: list[SSAValue],
    ) -> func.FuncOp:
        """A function computing `outputs` from `inputs` with copies of the region's ops."""
        body = Block(arg_types=[v.type for v in inputs])
        mapping: dict[SSAValue, SSAValue] = {}
        for value, arg in zip(inputs, body.args, strict=True):
            arg.name_hint = value.name_hint
            mapping[value] = arg
        for op in [*consts, *self.ops]:
            copy = op.clone(mapping)
            strip_annotations(copy)
            body.add_op(copy)
        body.add_op(func.ReturnOp(*[mapping[v] for v in outputs]))
        signature = FunctionType.from_lists([v.type for v in inputs], [v.type for v in outputs])
        f = func.FuncOp(name, signature, Region(body), visibility="private")
        f.attributes[COMPILER_ATTR] = StringAttr(codegen)
        f.attributes[GLOBAL_SYMBOL_ATTR] = StringAttr(name)
        f.attributes["primitive"] = UnitAttr()
        f.attributes["inline"] = IntegerAttr(1, i64)
        return f

    def dependents(self) -> list[Operation]:
        """Host ops between the region's first and last op that read the region's results."""
        ops = list(self.block.ops)
        first, last = ops.index(self.ops[0]), ops.index(self.ops[-1])
        tainted: set[Operation] = set(self.ops)
        found: list[Operation] = []
        for op in ops[first : last + 1]:
            if op in tainted:
                continue
            owners = {v.owner for inner in op.walk() for v in inner.operands}
            if owners & tainted:
                tainted.add(op)
                found.append(op)
        for op in self.ops:
            blocker = next((v.owner for v in op.operands if v.owner in found), None)
            if isinstance(blocker, Operation):
                raise located_error(
                    op,
                    f"compiler region is not convex: '{blocker.name}' op reads the region and "
                    f"feeds '{op.name}' op in it",
                )
        return found

    def replace_by_call(
        self, callee: func.FuncOp, inputs: list[SSAValue], outputs: list[SSAValue]
    ) -> None:
        """Call `callee` after the region's last op, then erase the region."""
        moved = self.dependents()
        call = func.CallOp(callee.sym_name.data, inputs, [v.type for v in outputs])
        self.block.insert_op_after(call, self.ops[-1])
        anchor: Operation = call
        for op in moved:
            self.block.detach_op(op)
            self.block.insert_op_after(op, anchor)
            anchor = op
        for value, result in zip(outputs, call.results, strict=True):
            result.name_hint = value.name_hint
            value.replace_uses_with_if(
                result, lambda use: not self.inside(self.host_op(use.operation))
            )
        for op in reversed(self.ops):
            self.block.erase_op(op)


@dataclass(frozen=True)
class RelayPartitionGraphPass(ModulePass):
    """Outline each compiler region into a `compiler`-attributed function and call it.

    Region 0 of `ccompiler` ops becomes `func.func private @tvmgen_default_ccompiler_main_0`
    `attributes {compiler = "ccompiler", global_symbol = ...}` and one `func.call` of it.
    """

    name = "relay-partition-graph"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        hosts = [f for f in op.body.block.ops if isinstance(f, func.FuncOp) and not is_external(f)]
        taken = {f.sym_name.data for f in op.body.block.ops if isinstance(f, func.FuncOp)}
        outlined: list[func.FuncOp] = []
        for host in hosts:
            for block in host.body.blocks:
                for region_id, ops in block_regions(block):
                    outliner = RegionOutliner(block, ops)
                    inputs, consts, outputs = outliner.interface()
                    codegen = compiler_of(ops[0])
                    number = region_id
                    while function_name(codegen, number, host.sym_name.data) in taken:
                        number += 1  # a second partitioning continues the numbering
                    name = function_name(codegen, number, host.sym_name.data)
                    taken.add(name)
                    callee = outliner.function(name, codegen, inputs, consts, outputs)
                    outliner.replace_by_call(callee, inputs, outputs)
                    outlined.append(callee)
                    for const in reversed(consts):  # a tuple before its constants
                        if not any(r.uses for r in const.results):
                            block.erase_op(const)
            for inner in host.body.walk():
                strip_annotations(inner)
        op.body.block.add_ops(outlined)
