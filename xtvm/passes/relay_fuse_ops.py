"""`relay-fuse-ops`: group relay ops into primitive functions, as TVM's FuseOps does.

Fusion reads each op's pattern kind (`relay.OpPattern`) and follows TVM's
`src/relay/transforms/fuse_ops.cc` step for step:

1. The dataflow graph of a function: one node per op of its body, in program order (a
   topological order), with an edge from producer to consumer labelled by the consumer's pattern
   (a broadcast whose operand already has the result's shape is elementwise on that edge). A value
   read by anything other than a relay op (`func.return`, `func.call`) is an external reference.
2. The post-dominator tree of that graph, each node's parent being the least common ancestor of
   its consumers, and the worst pattern met on the way recorded with it.
3. Three sweeps over the nodes, each trying to merge a node's group into the group of its
   post-dominator when every op on every path between them passes a test:
   sweep 0 fuses an OUT_ELEMWISE_FUSABLE op (conv2d, dense) with the elementwise and broadcast
   ops after it, and elementwise/broadcast ops into injective or reduction consumers;
   sweep 1 fuses injective ops and tuples into injective consumers;
   sweep 2 fuses injective ops into tuples that already belong to an injective group.
   OPAQUE ops never merge, and a merge that would put more than `max-depth` ops in one group is
   refused, as is one after which an op would be recomputed more than MAX_INLINED_COPIES times
   in its kernel (a value read twice is computed twice once inlined; `concatenate([y, y])`
   chains would double the kernel at every step). Merging along every path to the
   post-dominator is what keeps the graph acyclic.

Every group rooted at a relay op becomes a private `func.func` with the unit attribute
`primitive`, named `fused_` + its op names (`fused_nn_conv2d_nn_bias_add_nn_relu`), and its ops
are replaced by a `func.call`; a group made of a lone `relay.tuple` or an isolated
`relay.tuple_get_item` stays inline, as in TVM, and so do dead ops (left to relay-dce). A
`relay.const` all of whose users are in one group moves into it (with `link-params` off, only a
scalar one); `relay.param`s and the other constants are passed as arguments. A
`relay.annotation.stop_fusion` is opaque, so nothing fuses across it, and is then removed.
Functions that are private, already `primitive`, or claimed
by an external `compiler` are left alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    FunctionType,
    ModuleOp,
    SymbolRefAttr,
    TensorType,
    UnitAttr,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xtvm.dialects import relay
from xtvm.dialects.relay import OpPattern
from xtvm.ir.numpy_types import numpy_dtype
from xtvm.ir.verify import refuse_multiple_blocks

ELEMWISE = OpPattern.ELEMWISE
BROADCAST = OpPattern.BROADCAST
INJECTIVE = OpPattern.INJECTIVE
COMM_REDUCE = OpPattern.COMM_REDUCE
OUT_ELEMWISE_FUSABLE = OpPattern.OUT_ELEMWISE_FUSABLE
TUPLE = OpPattern.TUPLE
OPAQUE = OpPattern.OPAQUE


# ---------------------------------------------------------------------------------------------
# The indexed forward graph


@dataclass(eq=False)
class Node:
    """One op of the function body, with its consumers as (node, edge pattern) pairs."""

    index: int
    op: Operation
    pattern: OpPattern
    outputs: list[tuple[Node, OpPattern]] = field(default_factory=list)
    extern_ref: bool = False


def is_fusable_op(op: Operation) -> bool:
    """Relay ops take part in fusion; constants and params are inputs, never nodes."""
    return isinstance(op, relay.RelayOp) and not isinstance(op, relay.ConstOp | relay.ParamOp)


def edge_pattern(consumer: Operation, operand: SSAValue) -> OpPattern:
    """TVM's pattern of the edge `operand` -> `consumer`: a same-shape broadcast is elementwise."""
    assert isinstance(consumer, relay.RelayOp)
    if isinstance(consumer, relay.TupleOp):
        return INJECTIVE
    pattern = consumer.PATTERN
    if pattern == BROADCAST and operand.type == consumer.results[0].type:
        return ELEMWISE
    return pattern


def build_graph(block: Block) -> list[Node]:
    """The dataflow graph of the relay ops in `block`, in program order."""
    nodes: dict[Operation, Node] = {}
    for op in block.ops:
        if is_fusable_op(op):
            assert isinstance(op, relay.RelayOp)
            nodes[op] = Node(len(nodes), op, op.PATTERN)
    for node in nodes.values():
        for result in node.op.results:
            for use in result.uses:
                consumer = block.find_ancestor_op_in_block(use.operation)
                target = nodes.get(consumer) if consumer is use.operation else None
                if target is None or (
                    isinstance(consumer, relay.TupleOp) and not isinstance(result.type, TensorType)
                ):
                    node.extern_ref = True  # read by a return, a call, or a nested tuple
                    continue
                node.outputs.append((target, edge_pattern(consumer, result)))
    return list(nodes.values())


# ---------------------------------------------------------------------------------------------
# The post-dominator tree


@dataclass(eq=False)
class DomNode:
    """A node's place in the post-dominator tree; `pattern` is the worst edge up to `parent`."""

    node: Node
    parent: DomNode | None
    depth: int
    pattern: OpPattern


def least_common_ancestor(
    lhs: DomNode | None, rhs: DomNode | None, pattern: OpPattern
) -> tuple[DomNode | None, OpPattern]:
    while lhs is not rhs:
        if lhs is None or rhs is None:
            return None, pattern
        if lhs.depth < rhs.depth:
            pattern, rhs = max(pattern, rhs.pattern), rhs.parent
        elif rhs.depth < lhs.depth:
            pattern, lhs = max(pattern, lhs.pattern), lhs.parent
        else:
            pattern = max(pattern, lhs.pattern, rhs.pattern)
            lhs, rhs = lhs.parent, rhs.parent
    return lhs, pattern


def post_dominator_tree(nodes: Sequence[Node]) -> list[DomNode]:
    """Each node's immediate post-dominator, built from the last node back."""
    tree: list[DomNode | None] = [None] * len(nodes)
    for node in reversed(nodes):
        if node.extern_ref or not node.outputs:
            tree[node.index] = DomNode(node, None, 1, OPAQUE)
            continue
        first, first_pattern = node.outputs[0]
        parent, pattern = tree[first.index], max(ELEMWISE, first_pattern)
        for consumer, consumer_pattern in node.outputs[1:]:
            parent, pattern = least_common_ancestor(parent, tree[consumer.index], pattern)
            pattern = max(pattern, consumer_pattern)
        depth = parent.depth + 1 if parent is not None else 1
        tree[node.index] = DomNode(node, parent, depth, pattern)
    return [d for d in tree if d is not None]


# ---------------------------------------------------------------------------------------------
# Partitioning


@dataclass(eq=False)
class Group:
    """A union-find set of nodes; the root's `pattern` is the group's."""

    pattern: OpPattern
    parent: Group | None = None
    num_nodes: int = 1
    has_anchor: bool = False
    reads_twice: bool = False  # a member has several uses (see inlined_copies)
    members: list[int] = field(default_factory=list)  # the nodes' indices, kept at the root

    def find_root(self) -> Group:
        root = self
        while root.parent is not None:
            root = root.parent
        node = self
        while node.parent is not None and node.parent is not root:
            node.parent, node = root, node.parent
        return root


PathCondition = Callable[[OpPattern, bool], bool]

# A merge after which one op would be computed more often than this in its kernel (a value
# read twice is computed twice once inlined) is refused.
MAX_INLINED_COPIES = 16


@dataclass
class GraphPartitioner:
    """TVM's `GraphPartitioner`: merges groups along post-dominator paths in three sweeps."""

    nodes: Sequence[Node]
    max_depth: int
    groups: list[Group] = field(default_factory=list)

    def partition(self) -> list[Group]:
        self.groups = [
            Group(
                n.pattern,
                has_anchor=n.pattern == OUT_ELEMWISE_FUSABLE,
                reads_twice=len(n.outputs) > 1,
                members=[n.index],
            )
            for n in self.nodes
        ]
        tree = post_dominator_tree(self.nodes)
        for phase in range(3):
            for node, dom in zip(self.nodes, tree, strict=True):
                self.try_fuse(node, dom, phase)
        return self.groups

    def try_fuse(self, node: Node, dom: DomNode, phase: int) -> None:
        group = self.groups[node.index]
        if group.pattern == OPAQUE or dom.parent is None:
            return
        sink = dom.parent.node
        if self.count_fused_nodes(node, sink) > self.max_depth:
            return
        if self.inlined_copies(node, sink) > MAX_INLINED_COPIES:
            return
        sink_group = self.groups[sink.index]
        if phase == 2:
            # Injective ops join a tuple that has already joined an injective consumer.
            root = sink_group.find_root()
            if group.pattern > INJECTIVE or root.pattern == TUPLE:
                return
            if sink_group.pattern == TUPLE and root.pattern <= INJECTIVE:
                self.fuse_if(node, sink, lambda kind, is_sink: kind <= INJECTIVE)
            return
        if group.find_root() is sink_group.find_root() or sink_group.pattern == TUPLE:
            return  # already together; nothing fuses into a tuple before sweep 2
        if group.pattern == OUT_ELEMWISE_FUSABLE:
            if phase == 0 and dom.pattern == ELEMWISE:
                self.fuse_if(node, sink, lambda kind, is_sink: kind <= BROADCAST)
        elif group.pattern <= BROADCAST:
            if dom.pattern <= INJECTIVE or dom.pattern == COMM_REDUCE:
                self.fuse_if(node, sink, broadcast_path)
        elif group.pattern in (INJECTIVE, TUPLE):
            if phase == 1 and group.pattern == INJECTIVE and feeds_padded_copy(node, sink):
                self.fuse_if(node, sink, lambda kind, is_sink: is_sink or kind <= INJECTIVE)
            elif phase == 1:  # after sweep 0, so that conv2d groups are complete
                self.fuse_if(node, sink, lambda kind, is_sink: kind <= INJECTIVE)
        # A reduction only merges as the sink of others.

    def fuse_if(self, src: Node, sink: Node, condition: PathCondition) -> None:
        if self.check_path(src, sink, condition):
            self.commit_fuse(src, sink)

    def paths(self, src: Node, sink: Node) -> list[Node]:
        """The nodes on all paths from `src` (excluded) to `sink` (included)."""
        seen: set[int] = set()
        order: list[Node] = []
        stack = [consumer for consumer, _ in src.outputs]
        while stack:
            node = stack.pop()
            if node.index in seen:
                continue
            seen.add(node.index)
            order.append(node)
            if node is not sink:
                stack.extend(consumer for consumer, _ in node.outputs)
        return order

    def check_path(self, src: Node, sink: Node, condition: PathCondition) -> bool:
        return all(
            condition(self.groups[n.index].find_root().pattern, n is sink)
            for n in self.paths(src, sink)
        )

    def commit_fuse(self, src: Node, sink: Node) -> None:
        target = self.groups[sink.index]
        for node in [src, *self.paths(src, sink)]:
            self.merge(self.groups[node.index], target)

    def count_fused_nodes(self, src: Node, sink: Node) -> int:
        """The size of the sink's group once `src` and the ops up to the sink have joined it."""
        between = [n for n in [src, *self.paths(src, sink)] if n is not sink]
        return self.groups[sink.index].find_root().num_nodes + sum(
            self.groups[n.index].num_nodes for n in between
        )

    def inlined_copies(self, src: Node, sink: Node) -> int:
        """How often the most recomputed op of the merged group would be emitted: a kernel
        inlines its intermediate values, so a value read twice is computed twice, and a
        chain of such reads doubles at every step. Only counted when a group taking part has
        an op with several uses (otherwise no op is computed twice)."""
        taking_part = {self.groups[n.index].find_root() for n in [src, *self.paths(src, sink)]}
        if not any(group.reads_twice for group in taking_part):
            return 1
        # Only the merged groups' nodes are visited (walking every node of the function made
        # fusion quadratic in its size: an unrolled LSTM has tens of thousands of ops).
        members = {index for group in taking_part for index in group.members}
        copies: dict[int, int] = {}
        for index in sorted(members, reverse=True):  # consumers before producers
            node = self.nodes[index]
            inside = [c.index for c, _ in node.outputs if c.index in members]
            read_outside = node.extern_ref or len(inside) < len(node.outputs) or not node.outputs
            copies[node.index] = int(read_outside) + sum(copies[i] for i in inside)
        return max(copies.values())

    @staticmethod
    def merge(child: Group, parent: Group) -> None:
        child, parent = child.find_root(), parent.find_root()
        if child is parent:
            return
        parent.num_nodes += child.num_nodes
        parent.reads_twice = parent.reads_twice or child.reads_twice
        parent.members.extend(child.members)
        child.members = []
        child.parent = parent
        if child.has_anchor:
            parent.has_anchor = True
            parent.pattern = max(parent.pattern, child.pattern)


def feeds_padded_copy(node: Node, sink: Node) -> bool:
    """Whether `node` (injective) is the data of `sink`, an NCHW depthwise conv2d with padding,
    and read by nothing else. Such a conv2d copies its padded input before its loops
    (`schedule.padding_at_root`): the injective ops before it (ShuffleNet's channel shuffle,
    a reshape, transpose and reshape) join that copy instead of making one of their own.
    Not in TVM, whose injective ops never fuse into a conv2d."""
    conv = sink.op
    if not isinstance(conv, relay.Conv2dOp) or len(node.outputs) != 1 or node.extern_ref:
        return False
    if conv.operands[0] is not node.op.results[0] or conv.operands[1] is node.op.results[0]:
        return False
    layouts = (conv.data_layout.data, conv.kernel_layout.data)
    if layouts != ("NCHW", "OIHW") or not any(relay.array_values(conv.padding)):
        return False
    weight = conv.operands[1].type
    return (
        isinstance(weight, TensorType)
        and int(weight.get_shape()[1]) == 1
        and int(conv.groups.value.data) > 1
    )


def broadcast_path(kind: OpPattern, is_sink: bool) -> bool:
    """Ops between an elementwise op and its post-dominator: injective; the sink may be more."""
    if not is_sink:
        return kind <= INJECTIVE
    return kind <= COMM_REDUCE or kind == OUT_ELEMWISE_FUSABLE


def fuse_groups(block: Block, max_depth: int) -> list[list[Operation]]:
    """The fusion groups of the relay ops in `block`, each in program order."""
    nodes = build_graph(block)
    groups = GraphPartitioner(nodes, max_depth).partition()
    members: dict[int, list[Operation]] = {}
    for node, group in zip(nodes, groups, strict=True):
        members.setdefault(id(group.find_root()), []).append(node.op)
    return list(members.values())


# ---------------------------------------------------------------------------------------------
# Outlining


def fused_name(ops: Sequence[Operation]) -> str:
    """TVM's readable name: `fused_` and the op names without tuples, dots made underscores."""
    names = [
        op.name.removeprefix("relay.").replace(".", "_")
        for op in ops
        if not isinstance(op, relay.TupleOp | relay.TupleGetItemOp | relay.ConstOp)
    ]
    return "_".join(["fused", *names])


def unique_name(base: str, taken: set[str]) -> str:
    name, suffix = base, 0
    while name in taken:
        suffix += 1
        name = f"{base}_{suffix}"
    taken.add(name)
    return name


def stays_inline(ops: Sequence[Operation]) -> bool:
    """A lone tuple, a lone tuple_get_item (its tuple is made elsewhere), or dead code.

    TVM keeps the first two in the caller; ops whose results nobody reads are left to relay-dce.
    """
    if len(ops) == 1 and isinstance(ops[0], relay.TupleOp | relay.TupleGetItemOp):
        return True
    members = set(ops)
    return not any(use.operation not in members for op in ops for r in op.results for use in r.uses)


def outline_group(
    ops: Sequence[Operation],
    name: str,
    before: func.FuncOp,
    position: Mapping[Operation, int] | None = None,
    link_params: bool = True,
) -> func.CallOp:
    """Move `ops` (in program order, all in one block) into a new primitive function `@name`.

    The function is inserted before `before`. Its arguments are the values the ops read from
    outside, its results those read outside (one or several); a `relay.const` used only by these
    ops moves along (without `link_params`, only a scalar one: a tensor constant stays with the
    caller and is passed as an argument, as TVM's FuseOps does by default). The ops are replaced
    by one `func.call` placed at the last of them; the caller keeps its block topologically
    sorted afterwards (`sort_block`). `position`, the ops' indices in the block, orders them
    without walking the whole block for each group.
    """
    block = ops[-1].parent_block()
    assert block is not None
    members = set(ops)
    for op in ops:
        for operand in op.operands:
            const = operand.owner
            if not isinstance(const, relay.ConstOp) or const in members:
                continue
            if not link_params and not is_scalar_constant(const):
                continue
            users = {block.find_ancestor_op_in_block(u.operation) for u in const.result.uses}
            if users <= members:
                members.add(const)
    if position is not None and all(op in position for op in members):
        body_ops = sorted(members, key=position.__getitem__)
    else:
        body_ops = [op for op in block.ops if op in members]

    inputs: list[SSAValue] = []
    for op in body_ops:
        for operand in op.operands:
            if operand.owner not in members and operand not in inputs:
                inputs.append(operand)
    outputs = [
        result
        for op in body_ops
        for result in op.results
        if any(block.find_ancestor_op_in_block(u.operation) not in members for u in result.uses)
    ]

    body = Block(arg_types=[v.type for v in inputs])
    value_map: dict[SSAValue, SSAValue] = dict(zip(inputs, body.args, strict=True))
    for arg, value in zip(body.args, inputs, strict=True):
        arg.name_hint = value.name_hint
    for op in body_ops:
        body.add_op(op.clone(value_mapper=value_map))
    body.add_op(func.ReturnOp(*[value_map[v] for v in outputs]))
    function = func.FuncOp(
        name,
        FunctionType.from_lists([v.type for v in inputs], [v.type for v in outputs]),
        Region(body),
        visibility="private",
    )
    function.attributes["primitive"] = UnitAttr()
    function.location = ops[0].location  # what is said about the function points at its ops
    Rewriter.insert_op(function, InsertPoint.before(before))

    call = func.CallOp(SymbolRefAttr(name), inputs, [v.type for v in outputs])
    call.location = body_ops[-1].location
    Rewriter.insert_op(call, InsertPoint.after(body_ops[-1]))
    for old, new in zip(outputs, call.results, strict=True):
        new.name_hint = old.name_hint
        old.replace_uses_with_if(new, lambda use: use.operation not in members)
    for op in reversed(body_ops):
        Rewriter.erase_op(op, safe_erase=False)
    return call


def is_scalar_constant(const: relay.ConstOp) -> bool:
    """A rank-0 constant of a plain type (32/64-bit ints and floats, bool): TVM fuses these
    into their group whatever `link_params` says."""
    typ = const.result.type
    if not isinstance(typ, TensorType) or typ.get_num_dims() != 0:
        return False
    return numpy_dtype(typ.element_type).name in ("int32", "int64", "float32", "float64", "bool")


def producers_in(op: Operation, ops: set[Operation]) -> list[Operation]:
    """The ops among `ops` that define values `op` (or an op nested in it) reads."""
    values = (operand for nested in op.walk() for operand in nested.operands)
    return [v.owner for v in values if v.owner in ops and v.owner is not op]  # type: ignore[misc]


def sort_block(block: Block) -> None:
    """Reorder `block` so that every op follows the producers of its operands, stably.

    Outlining puts a call where the last op of its group was; a group with several outputs may
    have outside users before that point, which this moves after the call.
    """
    ops = list(block.ops)
    in_block = set(ops)
    placed: set[Operation] = set()
    order: list[Operation] = []
    for op in ops:
        stack: list[tuple[Operation, bool]] = [(op, False)]
        while stack:
            current, producers_placed = stack.pop()
            if current in placed:
                continue
            if producers_placed:
                placed.add(current)
                order.append(current)
                continue
            stack.append((current, True))
            stack.extend((p, False) for p in producers_in(current, in_block) if p not in placed)
    if order == ops:
        return
    for op in ops:
        op.detach()
    for op in order:
        block.add_op(op)


def is_candidate(function: func.FuncOp) -> bool:
    """Public functions with a body, not already primitive nor claimed by an external compiler."""
    if function.sym_visibility is not None and function.sym_visibility.data != "public":
        return False
    if "primitive" in function.attributes or "compiler" in function.attributes:
        return False
    return bool(function.body.blocks)


@dataclass(frozen=True)
class RelayFuseOpsPass(ModulePass):
    """Fuse relay ops into primitive functions by their pattern kinds, as TVM's FuseOps.

    `conv2d -> bias_add -> relu` becomes `func.call @fused_nn_conv2d_nn_bias_add_nn_relu`.
    """

    name = "relay-fuse-ops"

    max_depth: int = 256
    """The most ops one fused function may hold."""

    link_params: bool = True
    """Move tensor constants into the fused functions that read them (False: pass them in as
    arguments, TVM's default without `relay.FuseOps.link_params`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        refuse_multiple_blocks(op, f"'{self.name}'")
        taken = {f.sym_name.data for f in op.body.block.ops if isinstance(f, func.FuncOp)}
        for function in [f for f in op.body.block.ops if isinstance(f, func.FuncOp)]:
            if not is_candidate(function):
                continue
            block = function.body.block
            # Outlining erases ops and adds calls but keeps the other ops in their order.
            position = {op: index for index, op in enumerate(block.ops)}
            for group in fuse_groups(block, self.max_depth):
                if stays_inline(group) or isinstance(group[0], relay.StopFusionOp):
                    continue  # a barrier is alone in its group (opaque); it is dropped below
                name = unique_name(fused_name(group), taken)
                outline_group(group, name, function, position, self.link_params)
            for barrier in [o for o in block.ops if isinstance(o, relay.StopFusionOp)]:
                barrier.results[0].replace_all_uses_with(barrier.operands[0])
                Rewriter.erase_op(barrier)
            sort_block(block)
