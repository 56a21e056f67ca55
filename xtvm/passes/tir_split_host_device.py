"""`tir-split-host-device`: outline thread-bound loop nests into GPU kernels launched by the host.

TVM's SplitHostDevice. Each outermost thread-bound loop nest of a function becomes a kernel, a
`func.func` marked `tir.kernel = {blocks = array<i64: x, y, z>, threads = array<i64: x, y, z>}`
(the extents of its blockIdx/threadIdx loops, -1 where not constant) and run once per thread:
the loops are gone, each loop variable is the `tir.thread_index` of its axis. The host keeps,
in the nest's place, `tir.launch @kernel(args) blocks(x, y, z) threads(x, y, z)`; the kernel's
arguments are the values the nest uses from outside (buffers, scalars), constants are cloned in.

A thread-bound loop may hold pure ops besides the next thread-bound loop (index arithmetic:
each thread computes it), but no side effect (it would run once per thread instead of once per
block) and not two thread-bound loops in sequence (that needs a barrier between them); such
nests, nested duplicates of an axis and `vthread` are located errors.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DictionaryAttr,
    FunctionType,
    ModuleOp,
    i64,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import SymbolTable, is_side_effect_free

from xtvm.dialects import tir
from xtvm.ir.verify import located_error
from xtvm.passes.tir_bounds import EntryConstants, constant_value, defined_inside

AXES = ("x", "y", "z")


def is_thread_loop(op: Operation) -> bool:
    return isinstance(op, tir.ForOp) and op.kind.data == "thread_binding"


def thread_chain(root: tir.ForOp) -> list[tir.ForOp]:
    """The thread-bound loops of the nest at `root`, outermost first, checked to be outlinable."""
    chain, loop, tags = [root], root, set()
    while True:
        assert loop.thread is not None
        tag = loop.thread.data
        if tag == "vthread":
            raise located_error(loop, "vthread loops are not supported by tir-split-host-device")
        if tag in tags:
            raise located_error(loop, f"'{tag}' is bound twice in one loop nest")
        tags.add(tag)
        body = [op for op in loop.body.block.ops if not isinstance(op, tir.YieldOp)]
        inner = [op for op in body if is_thread_loop(op)]
        if not inner:
            break
        if len(inner) > 1:
            raise located_error(
                inner[1], "two thread-bound loops in sequence need a barrier between them"
            )
        for op in body:
            if op is not inner[0] and not is_side_effect_free(op):
                raise located_error(
                    op,
                    f"'{op.name}' op between thread-bound loops would run once per thread in a "
                    "kernel, not once per block",
                )
        loop = inner[0]  # type: ignore[assignment]
        chain.append(loop)
    for op in loop.body.walk():
        if is_thread_loop(op):
            raise located_error(op, "thread-bound loop under a serial loop of a kernel")
    return chain


@dataclass
class Outlining:
    """Builds the kernel of one thread-bound loop nest and the host's launch of it."""

    root: tir.ForOp
    chain: list[tir.ForOp]
    mapping: dict[SSAValue, SSAValue] = field(default_factory=dict)
    params: list[SSAValue] = field(default_factory=list)
    block: Block = field(default_factory=Block)

    def free_value(self, value: SSAValue) -> SSAValue:
        """`value`, defined outside the nest, inside the kernel: a constant or a parameter."""
        if value not in self.mapping:
            owner = value.owner
            if isinstance(owner, arith.ConstantOp):
                clone = owner.clone()
                first = self.block.first_op
                if first is None:
                    self.block.add_op(clone)
                else:
                    self.block.insert_op_before(clone, first)
                self.mapping[value] = clone.result
            else:
                self.mapping[value] = self.block.insert_arg(value.type, len(self.block.args))
                self.mapping[value].name_hint = value.name_hint
                self.params.append(value)
        return self.mapping[value]

    def clone(self, op: Operation) -> None:
        for inner in op.walk():
            for operand in inner.operands:
                if operand not in self.mapping and not defined_inside(operand, self.root):
                    self.free_value(operand)
        copy = op.clone(value_mapper=self.mapping)
        self.block.add_op(copy)

    def kernel_body(self) -> Block:
        for loop in self.chain:
            assert loop.thread is not None
            tid = tir.ThreadIndexOp(loop.thread.data)
            self.block.add_op(tid)
            tid.result.name_hint = loop.induction_variable.name_hint
            value = tid.result
            if constant_value(loop.lower_bound) != 0:
                lower = self.mapping.get(loop.lower_bound) or self.free_value(loop.lower_bound)
                self.block.add_op(shifted := arith.AddiOp(lower, tid.result))
                value = shifted.result
            self.mapping[loop.induction_variable] = value
            for op in loop.body.block.ops:
                if not isinstance(op, tir.YieldOp) and not is_thread_loop(op):
                    self.clone(op)
        self.block.add_op(func.ReturnOp())
        return self.block


def launch_dims(
    chain: list[tir.ForOp], kind: str, root: tir.ForOp, constant: EntryConstants
) -> list[SSAValue]:
    """The x, y, z extents of `kind` ("blockIdx" or "threadIdx"), computed before `root`."""
    dims: list[SSAValue] = []
    by_tag = {loop.thread.data: loop for loop in chain if loop.thread is not None}
    for axis in AXES:
        loop = by_tag.get(f"{kind}.{axis}")
        if loop is None:
            dims.append(constant(1))
        elif constant_value(loop.lower_bound) == 0:
            dims.append(loop.upper_bound)
        else:
            extent = arith.SubiOp(loop.upper_bound, loop.lower_bound)
            Rewriter.insert_op(extent, InsertPoint.before(root))
            dims.append(extent.result)
    return dims


def static_extents(chain: list[tir.ForOp], kind: str) -> DenseArrayBase:
    by_tag = {loop.thread.data: loop for loop in chain if loop.thread is not None}
    extents = []
    for axis in AXES:
        loop = by_tag.get(f"{kind}.{axis}")
        if loop is None:
            extents.append(1)
            continue
        lower, upper = constant_value(loop.lower_bound), constant_value(loop.upper_bound)
        extents.append(upper - lower if lower is not None and upper is not None else -1)
    return DenseArrayBase.from_list(i64, extents)


def kernel_name(module: ModuleOp, host: func.FuncOp, count: int) -> str:
    while True:
        name = f"{host.sym_name.data}_kernel{count}"
        if SymbolTable.lookup_symbol(module, name) is None:
            return name
        count += 1


def outline(
    module: ModuleOp, host: func.FuncOp, root: tir.ForOp, count: int, after: Operation
) -> func.FuncOp:
    """Replace the nest at `root` by a launch of a new kernel, placed after `after`."""
    chain = thread_chain(root)
    outlining = Outlining(root, chain)
    body = outlining.kernel_body()
    name = kernel_name(module, host, count)
    kernel = func.FuncOp(
        name, FunctionType.from_lists([v.type for v in outlining.params], []), Region(body)
    )
    kernel.attributes["tir.kernel"] = DictionaryAttr(
        {"blocks": static_extents(chain, "blockIdx"), "threads": static_extents(chain, "threadIdx")}
    )
    Rewriter.insert_op(kernel, InsertPoint.after(after))
    constant = EntryConstants(host)
    launch = tir.LaunchOp(
        name,
        outlining.params,
        launch_dims(chain, "blockIdx", root, constant),
        launch_dims(chain, "threadIdx", root, constant),
    )
    Rewriter.insert_op(launch, InsertPoint.before(root))
    Rewriter.erase_op(root)
    return kernel


def outermost_thread_loops(function: func.FuncOp) -> list[tir.ForOp]:
    roots: list[tir.ForOp] = []
    for op in function.walk():
        if is_thread_loop(op) and not any(root.is_ancestor(op) for root in roots):
            roots.append(op)  # type: ignore[arg-type]
    return roots


@dataclass(frozen=True)
class TirSplitHostDevicePass(ModulePass):
    """Outline thread-bound loop nests into tir.kernel functions launched by tir.launch.

    `tir.for %bx = 0 to 4 thread_binding "blockIdx.x" { tir.for %tx ... }` becomes
    `tir.launch @f_kernel0(%A) blocks(%c4, %c1, %c1) threads(...)` and a kernel @f_kernel0.
    """

    name = "tir-split-host-device"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        hosts = [f for f in op.ops if isinstance(f, func.FuncOp) and f.body.blocks]
        for host in hosts:
            last: Operation = host  # kernels follow their host, in launch order
            for count, root in enumerate(outermost_thread_loops(host)):
                last = outline(op, host, root, count, last)
