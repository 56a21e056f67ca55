"""`relay-convert-layout`: convert conv2d, and the ops around it, to one data layout.

TVM's ConvertLayout. Every `relay.nn.conv2d` takes the desired data layout (NHWC with an HWIO
kernel, or NCHW with an OIHW kernel), and the new layout flows forward through the ops that can
take it: elementwise and broadcasting ops keep it (their broadcast constants are transposed to
match), ops with an axis get the axis renamed (bias_add, batch_norm, layer_norm, softmax,
lrn, concatenate, reductions, squeeze), pad gets its widths permuted, and pools, resize and
upsampling take the layout their input arrives in. A `relay.layout_transform` is emitted only
at a boundary: on a function argument or another value entering a converted op, and where a
permuted value reaches an op that cannot take it (a return, a call, dense, reshape,
conv2d_transpose, which it leaves in its own layout...). A broadcasting op or concatenate that
joins converted values with as many computed in the original layout (by a conv2d left alone,
such as a grouped one) keeps the original layout, so the converted region ends there instead
of spreading into the unconverted one. Function signatures do not change.

The plan: one forward walk over each host function. A value whose data the pass has permuted
carries a tag `(src, dst)`: it holds `layout_transform(original, src, dst)`. Each op looks up
its rule by class; a rule either takes the permuted operands (renaming the op's axis or layout)
and tags its result, or has its operands transformed back. A transform is emitted once per value
and direction, a transform of a transform's result back to its source is that source, and a
constant is transposed at compile time. Ops the rewrite leaves unused are erased.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.transforms.dead_code_elimination import is_trivially_dead

from xtvm.dialects import relay
from xtvm.dialects.relay import static_shape
from xtvm.passes.external_functions import host_functions
from xtvm.passes.relay_infer_types import infer_op

# The kernel layout that goes with each data layout the pass converts to.
KERNEL_LAYOUT = {"NHWC": "HWIO", "NCHW": "OIHW"}

Tag = tuple[str, str]
"""(layout of a value in the original program, layout of the data the pass made for it)."""


def permutation(src: str, dst: str) -> list[int]:
    """The axes of a `src`-layout tensor in the order of `dst` (numpy's transpose argument)."""
    return [src.index(axis) for axis in dst]


def rename_axis(axis: int, tag: Tag) -> int:
    """Where axis `axis` of the original value lies in its permuted data."""
    src, dst = tag
    return dst.index(src[axis % len(src)])


def drop_axes(tag: Tag, letters: set[str]) -> Tag:
    """The tag of a value with the axes named by `letters` removed."""
    src, dst = tag
    return "".join(a for a in src if a not in letters), "".join(a for a in dst if a not in letters)


@dataclass
class LayoutConverter:
    """Converts the ops of one block, in order, to `layout`.

    `tags` holds the permuted values (tuple results have `field_tags`), `transforms` the
    transforms emitted so far by (value, from, to), `detached` the ops whose results the
    rewrite stopped reading, which may be dead at the end, and `no_ops` the transposes and
    layout transforms that became identities: they go at the end, as their operand is tagged
    and their result, the same data, is not.
    """

    layout: str
    grouped: bool = True  # convert grouped and depthwise conv2d too
    depthwise: bool = False  # with grouped false: convert depthwise conv2d of converted data
    min_channels: int = 0  # conv2d whose data has fewer channels keep their layout...
    out_block: int = 0  # ...unless their output channels are a multiple of this
    tags: dict[SSAValue, Tag] = field(default_factory=dict)
    field_tags: dict[SSAValue, dict[int, Tag]] = field(default_factory=dict)
    transforms: dict[tuple[SSAValue, str, str], SSAValue] = field(default_factory=dict)
    detached: list[Operation] = field(default_factory=list)
    no_ops: list[relay.TransposeOp | relay.LayoutTransformOp] = field(default_factory=list)
    current: Operation | None = None

    def run(self, block: Block) -> None:
        for op in list(block.ops):
            self.current = op
            rule = next((RULES[c] for c in type(op).__mro__ if c in RULES), restore_operands)
            rule(self, op)
        for op in self.no_ops:
            op.result.replace_all_uses_with(op.data)
            Rewriter.erase_op(op)
        self.erase_dead()

    def emit(self, op: Operation) -> SSAValue:
        """Insert `op` before the op being converted and return its result."""
        assert self.current is not None
        Rewriter.insert_op(op, InsertPoint.before(self.current))
        return op.results[0]

    def set_operand(self, op: Operation, index: int, value: SSAValue) -> None:
        old = op.operands[index]
        if old is value:
            return
        if isinstance(old.owner, Operation):
            self.detached.append(old.owner)
        op.operands[index] = value

    def retype(self, op: Operation, tag: Tag | None = None) -> None:
        """Re-infer the result types of `op` and tag its result with `tag` if it permutes."""
        assert isinstance(op, relay.RelayOp)
        infer_op(op)
        if tag is not None and tag[0] != tag[1]:
            self.tags[op.results[0]] = tag

    def transform(self, value: SSAValue, src: str, dst: str) -> SSAValue:
        """The data of `value` moved from layout `src` to `dst`, emitted once."""
        if src == dst:
            return value
        key = (value, src, dst)
        if key not in self.transforms:
            self.transforms[key] = self.build_transform(value, src, dst)
        return self.transforms[key]

    def build_transform(self, value: SSAValue, src: str, dst: str) -> SSAValue:
        owner = value.owner
        if isinstance(owner, relay.LayoutTransformOp) and (
            owner.src_layout.data,
            owner.dst_layout.data,
        ) == (dst, src):
            return owner.data  # the inverse transforms cancel
        if isinstance(owner, relay.ConstOp):
            array = relay.numpy_from_dense(owner.value)
            return self.emit(
                relay.ConstOp(np.ascontiguousarray(array.transpose(permutation(src, dst))))
            )
        return self.emit(relay.LayoutTransformOp(value, src, dst))

    def restore(self, value: SSAValue) -> SSAValue:
        """`value` as the original program has it."""
        tag = self.tags.get(value)
        return value if tag is None else self.transform(value, tag[1], tag[0])

    def convert(self, value: SSAValue, src: str, dst: str) -> SSAValue:
        """The data of `value` (read by the original program in layout `src`) in layout `dst`."""
        tag = self.tags.get(value)
        if tag is not None and tag[0] == src:
            return self.transform(value, tag[1], dst)
        return self.transform(self.restore(value), src, dst)

    def broadcast_operand(self, value: SSAValue, tag: Tag) -> SSAValue:
        """An operand of a broadcasting op whose result takes `tag`, made to broadcast with it.

        A lower-rank operand first gets the leading unit axes broadcasting gives it; a constant
        is reshaped at compile time and keeps no leading unit axes (`C x 1 x 1` in NCHW is `C`
        in NHWC).
        """
        src, dst = tag
        shape = static_shape(value)
        if len(shape) == len(src):
            return self.convert(value, src, dst)
        value = self.restore(value)
        if all(size == 1 for size in shape):
            return value  # the same in every layout
        key = (value, src, dst)
        if key in self.transforms:
            return self.transforms[key]
        padded = (1,) * (len(src) - len(shape)) + shape
        owner = value.owner
        if isinstance(owner, relay.ConstOp):
            array = relay.numpy_from_dense(owner.value).reshape(padded)
            array = array.transpose(permutation(src, dst))
            while array.ndim and array.shape[0] == 1:
                array = array[0]
            result = self.emit(relay.ConstOp(np.require(array, requirements="C")))
        else:
            expanded = self.emit(relay.ExpandDimsOp(value, 0, len(src) - len(shape)))
            result = self.transform(expanded, src, dst)
        self.transforms[key] = result
        return result

    def erase_dead(self) -> None:
        """Erase the relay ops the rewrite left unused, and those only they read."""
        work = list(self.detached)
        while work:
            op = work.pop()
            if op.parent is None or not isinstance(op, relay.RelayOp):
                continue
            if not is_trivially_dead(op):
                continue
            work.extend(v.owner for v in op.operands if isinstance(v.owner, Operation))
            Rewriter.erase_op(op)


# ---------------------------------------------------------------------------------------------
# Rules, by op class (the most derived class that has one wins)

Rule = Callable[[LayoutConverter, Operation], None]
RULES: dict[type[Operation], Rule] = {}


def rule(*op_types: type[Operation]) -> Callable[[Rule], Rule]:
    def register(fn: Rule) -> Rule:
        for op_type in op_types:
            RULES[op_type] = fn
        return fn

    return register


def restore_operands(cv: LayoutConverter, op: Operation) -> None:
    """An op without a rule reads its operands, nested ones included, as they were."""
    for inner in op.walk():
        for index, operand in enumerate(inner.operands):
            cv.set_operand(inner, index, cv.restore(operand))


def first_tag(cv: LayoutConverter, values: Sequence[SSAValue], rank: int) -> Tag | None:
    return next((t for v in values if (t := cv.tags.get(v)) and len(t[0]) == rank), None)


@rule(relay.Conv2dOp)
def convert_conv2d(cv: LayoutConverter, op: Operation) -> None:
    """conv2d takes the desired layout and its kernel the matching one: the pass's anchor."""
    assert isinstance(op, relay.Conv2dOp)
    data_layout, kernel_layout = op.data_layout.data, op.kernel_layout.data
    blocked = kernel_layout not in KERNEL_LAYOUT.values()
    assert isinstance(op.result.type, TensorType)
    # the data may be permuted already (its type then in the converted layout): find its
    # channel axis through the tag; the result is not retyped yet
    tag = cv.tags.get(op.data)
    channel_axis = data_layout.index("C")
    channels = static_shape(op.data)[
        channel_axis if tag is None else rename_axis(channel_axis, tag)
    ]
    out_channels = op.result.type.get_shape()[channel_axis]
    whole_blocks = cv.out_block > 0 and out_channels % cv.out_block == 0
    narrow = 0 <= channels < cv.min_channels and not whole_blocks
    groups = op.groups.value.data
    assert isinstance(op.weight.type, TensorType)
    depthwise = op.weight.type.get_shape()[kernel_layout.index("I")] == 1  # a group a channel
    # a depthwise conv2d converts (with `depthwise`) only where its data is converted already
    converted = tag is not None and tag[1] == cv.layout
    kept_grouped = groups > 1 and not cv.grouped and not (cv.depthwise and depthwise and converted)
    if blocked or narrow or kept_grouped:
        restore_operands(cv, op)
        return
    cv.set_operand(op, 0, cv.convert(op.data, data_layout, cv.layout))
    cv.set_operand(op, 1, cv.convert(op.weight, kernel_layout, KERNEL_LAYOUT[cv.layout]))
    op.data_layout = StringAttr(cv.layout)
    op.kernel_layout = StringAttr(KERNEL_LAYOUT[cv.layout])
    cv.retype(op, (data_layout, cv.layout))


LayoutOp = relay.Pool2dOp | relay.GlobalPool2dOp | relay.Resize2dOp | relay.UpsamplingOp


@rule(relay.Pool2dOp, relay.GlobalPool2dOp, relay.Resize2dOp, relay.UpsamplingOp)
def follow_layout(cv: LayoutConverter, op: Operation) -> None:
    """Pools, resize and upsampling work in the layout their input arrives in."""
    assert isinstance(op, LayoutOp)
    tag = cv.tags.get(op.data)
    if tag is None or tag[0] != op.layout.data or tag[1] not in KERNEL_LAYOUT:
        restore_operands(cv, op)
        return
    op.layout = StringAttr(tag[1])
    cv.retype(op, tag)


@rule(relay.UnaryOp)
def keep_layout(cv: LayoutConverter, op: Operation) -> None:
    """Elementwise unary ops compute the same on permuted data."""
    tag = cv.tags.get(op.operands[0])
    if tag is not None:
        cv.retype(op, tag)


AxisOp = relay.ChannelVectorOp | relay.AxisUnaryOp | relay.LrnOp | relay.LayerNormOp


@rule(relay.ChannelVectorOp, relay.AxisUnaryOp, relay.LrnOp, relay.LayerNormOp)
def rename_op_axis(cv: LayoutConverter, op: Operation) -> None:
    """Ops along one axis of their data (bias_add, prelu, softmax, lrn, layer_norm) follow it."""
    assert isinstance(op, AxisOp)
    tag = cv.tags.get(op.data)
    if tag is None:
        restore_operands(cv, op)
        return
    op.axis = relay.int_attr(rename_axis(op.axis.value.data, tag))
    for index, operand in enumerate(op.operands[1:], start=1):
        cv.set_operand(op, index, cv.restore(operand))
    cv.retype(op, tag)


@rule(relay.BatchNormOp)
def convert_batch_norm(cv: LayoutConverter, op: Operation) -> None:
    """batch_norm follows its data when only tuple_get_item reads its tuple."""
    assert isinstance(op, relay.BatchNormOp)
    tag = cv.tags.get(op.data)
    if tag is None or any(
        not isinstance(use.operation, relay.TupleGetItemOp) for use in op.result.uses
    ):
        restore_operands(cv, op)
        return
    op.axis = relay.int_attr(rename_axis(op.axis.value.data, tag))
    cv.retype(op)
    cv.field_tags[op.result] = {0: tag}


@rule(relay.TupleGetItemOp)
def convert_tuple_get_item(cv: LayoutConverter, op: Operation) -> None:
    """A field of a tuple with a permuted field keeps that field's tag."""
    assert isinstance(op, relay.TupleGetItemOp)
    fields = cv.field_tags.get(op.tuple)
    if fields is not None:
        cv.retype(op, fields.get(op.index.value.data))


def stays_original(cv: LayoutConverter, values: Sequence[SSAValue], rank: int) -> bool:
    """Whether an op joining `values` is better left in the original layout: as many of its
    full-rank operands as are permuted were computed in the original layout by ops the pass
    did not convert (a grouped conv2d's branch meeting a converted residual), so the join
    ends the converted region instead of carrying it into the unconverted one, where every
    later join would transform again. Constants and function arguments do not count."""
    full = [v for v in values if len(static_shape(v)) == rank]
    permuted = sum(v in cv.tags for v in full)
    computed = sum(
        v not in cv.tags
        and isinstance(v.owner, Operation)
        and not isinstance(v.owner, relay.ConstOp)
        for v in full
    )
    return computed > 0 and permuted <= computed


@rule(relay.ElementwiseBinaryOp, relay.WhereOp)
def convert_broadcast(cv: LayoutConverter, op: Operation) -> None:
    """Broadcasting ops take the layout of their first permuted operand of full rank; the
    other operands are brought to it (unless the op `stays_original`)."""
    assert isinstance(op, relay.RelayOp)
    if not any(v in cv.tags for v in op.operands):
        return
    rank = len(static_shape(op.results[0]))
    tag = first_tag(cv, op.operands, rank)
    if tag is None or stays_original(cv, op.operands, rank):
        restore_operands(cv, op)
        return
    for index, operand in enumerate(op.operands):
        cv.set_operand(op, index, cv.broadcast_operand(operand, tag))
    cv.retype(op, tag)


@rule(relay.ConcatenateOp)
def convert_concatenate(cv: LayoutConverter, op: Operation) -> None:
    """concatenate takes the layout of its first permuted input, the others follow (unless
    it `stays_original`)."""
    assert isinstance(op, relay.ConcatenateOp)
    if not any(v in cv.tags for v in op.inputs):
        return
    rank = len(static_shape(op.result))
    tag = first_tag(cv, op.inputs, rank)
    if tag is None or stays_original(cv, op.inputs, rank):
        restore_operands(cv, op)
        return
    for index, operand in enumerate(op.inputs):
        cv.set_operand(op, index, cv.convert(operand, *tag))
    op.axis = relay.int_attr(rename_axis(op.axis.value.data, tag))
    cv.retype(op, tag)


@rule(relay.ReduceOp)
def convert_reduce(cv: LayoutConverter, op: Operation) -> None:
    """Reductions reduce the renamed axes; the axes left keep their relative order."""
    assert isinstance(op, relay.ReduceOp)
    tag = cv.tags.get(op.data)
    if tag is None:
        return
    if op.axis is None:
        if isinstance(op, relay.ArgReduceOp):
            restore_operands(cv, op)  # an index into the flattened data
        else:
            cv.retype(op)  # one value: the same in every layout
        return
    axes = relay.array_values(op.axis)
    reduced = {tag[0][a % len(tag[0])] for a in axes}
    op.axis = relay.int_array([rename_axis(a, tag) for a in axes])
    cv.retype(op, tag if op.keepdims.value.data else drop_axes(tag, reduced))


@rule(relay.SqueezeOp)
def convert_squeeze(cv: LayoutConverter, op: Operation) -> None:
    """squeeze removes the renamed axes (or every unit axis, wherever it now is)."""
    assert isinstance(op, relay.SqueezeOp)
    tag = cv.tags.get(op.data)
    if tag is None:
        return
    src, dst = tag
    if op.axis is None:
        removed = {dst[i] for i, size in enumerate(static_shape(op.data)) if size == 1}
    else:
        axes = relay.array_values(op.axis)
        removed = {src[a % len(src)] for a in axes}
        op.axis = relay.int_array([rename_axis(a, tag) for a in axes])
    cv.retype(op, drop_axes(tag, removed))


@rule(relay.PadOp)
def convert_pad(cv: LayoutConverter, op: Operation) -> None:
    """pad takes its (before, after) widths in the permuted order."""
    assert isinstance(op, relay.PadOp)
    tag = cv.tags.get(op.data)
    if tag is None:
        return
    src, dst = tag
    widths = relay.array_values(op.pad_width)
    op.pad_width = relay.int_array(
        [w for axis in dst for w in widths[2 * src.index(axis) : 2 * src.index(axis) + 2]]
    )
    cv.retype(op, tag)


@rule(relay.TransposeOp)
def convert_transpose(cv: LayoutConverter, op: Operation) -> None:
    """A transpose of permuted data composes with the permutation; an identity goes."""
    assert isinstance(op, relay.TransposeOp)
    tag = cv.tags.get(op.data)
    if tag is None:
        return
    src, dst = tag
    perm = relay.TransposeOp.permutation(relay.TransposeOp.props(op.properties), len(src))
    composed = [dst.index(src[a]) for a in perm]
    op.axes = relay.int_array(composed)
    cv.retype(op)
    if composed == sorted(composed):
        cv.no_ops.append(op)


@rule(relay.LayoutTransformOp)
def convert_layout_transform(cv: LayoutConverter, op: Operation) -> None:
    """A layout_transform of permuted data starts from the permuted layout; a no-op goes."""
    assert isinstance(op, relay.LayoutTransformOp)
    tag = cv.tags.get(op.data)
    if tag is None:
        return
    if tag[0] != op.src_layout.data:
        restore_operands(cv, op)
        return
    op.src_layout = StringAttr(tag[1])
    cv.retype(op)
    if tag[1] == op.dst_layout.data:
        cv.no_ops.append(op)


@dataclass(frozen=True)
class RelayConvertLayoutPass(ModulePass):
    """Convert conv2d to one data layout, propagating it and transforming only at boundaries.

    `relay.nn.conv2d %x, %w` (NCHW) becomes, for layout=NHWC, a layout_transform of %x, an NHWC
    conv2d with an HWIO weight, and a layout_transform of the result back to NCHW.
    """

    name = "relay-convert-layout"
    layout: str = "NHWC"
    # false: grouped and depthwise conv2d keep their layout (a boundary), for targets whose
    # schedules run them better there.
    grouped: bool = True
    # with grouped false: depthwise conv2d (a group per input channel) whose data is converted
    # already convert still (MobileNet's expand-depthwise-project: no transform each side).
    depthwise: bool = False
    # conv2d whose data has fewer channels than this keep their layout (a boundary), an
    # image's three colours, unless their output channels are a multiple of out_block (0:
    # none is): for a CPU schedule that vectorizes NHWC output channels in blocks.
    min_channels: int = 0
    out_block: int = 0

    def __post_init__(self) -> None:
        if self.layout not in KERNEL_LAYOUT:
            raise ValueError(f'layout must be "NHWC" or "NCHW", got "{self.layout}"')

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in host_functions(op):
            if len(function.body.blocks) == 1:  # relay functions have one block
                LayoutConverter(
                    self.layout, self.grouped, self.depthwise, self.min_channels, self.out_block
                ).run(function.body.block)
