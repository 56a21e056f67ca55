"""`relay-alter-op-layout`: give each NHWC conv2d's constant kernel the CPU schedule's layout.

TVM's AlterOpLayout for x86. The CPU register tile of an NHWC conv2d computes a block of output
channels (`nhwc_channel_block`) and walks the kernel along input channels, kernel row and
column. In HWIO that block is 32 floats out of every row of O: each step of the walk lands on a
new cache line (a new page every few steps for 512 channels), which the hardware prefetcher
does not follow, so a kernel arriving from DRAM stalls the tile. Packed as `OHWI<block>o` (one
contiguous slab per block of output channels) the walk is a sequential stream: 7x7x512 3x3
layers with cold weights go from 48 to 104 GFLOP/s.

Output channels that no whole vector divides (squeezenet's 1000 classes split only into
8-lane blocks, half a vector) are padded with zero kernels to a multiple of the widest block,
and a `relay.strided_slice` after the conv2d drops the padding again.

Stride-1 3x3 convolutions with enough tiles become Winograd F(4x4, 3x3) convolutions
(`relay.nn.contrib_conv2d_winograd_without_weight_transform`, TVM's AlterOpLayout for
winograd): the kernel is transformed here, once, and packed in blocks of output channels;
each call then does 36 products per 16 outputs and channel pair instead of 144. See
`winograd_blocking` for which ones; the `winograd=false` option keeps direct convolutions.
A layer that could be either (winograd with fewer tiles too) asks
`topi.dispatch.choose_implementation`: inside `autotvm.apply_history_best`, the one whose
tuned record is fastest is built, as TVM's strategy picks among an op's implementations.

Only constant kernels change (packed at compile time, as `relay-convert-layout` transposes
them): a kernel known at run time would pay the packing on every call. Grouped convolutions,
kernels already in another layout and at most one tile of channels stay as they are.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import Float32Type, ModuleOp, StringAttr, TensorType
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xtvm.dialects import relay
from xtvm.ir import winograd
from xtvm.passes.external_functions import host_functions
from xtvm.passes.relay_infer_types import infer_op
from xtvm.runtime.relay_interpreter import transform_layout
from xtvm.topi.dispatch import choose_implementation
from xtvm.topi.schedule import NHWC_CHANNELS, VECTOR_LANES, nhwc_channel_block
from xtvm.topi.winograd import COLUMNS, LANES

WINOGRAD_TILE = 4
# Fewer output tiles than this (7x7 outputs have 4) and the transformed kernel, 4x the
# kernel's size, is read for too few products: the layer is bound by memory, not arithmetic.
WINOGRAD_MIN_TILES = 16
# A tuned record may choose winograd from this many tiles (7x7 outputs: 4); below it the
# transforms outweigh any saving, and the alternative is not offered.
WINOGRAD_TUNED_MIN_TILES = 4

HWIO = relay.Layout.parse("HWIO")


def channel_blocking(out_channels: int) -> tuple[int, int] | None:
    """(block, padded channel count) of a packed kernel with `out_channels`, or None."""
    block = nhwc_channel_block(out_channels)
    widest = NHWC_CHANNELS[0][0]
    if out_channels <= widest or (block is not None and block >= VECTOR_LANES):
        return None if block is None else (block, out_channels)
    return widest, -(-out_channels // widest) * widest


def blocking_of(op: relay.Conv2dOp) -> tuple[int, int] | None:
    """How `op`'s kernel is packed, or None when it keeps its own layout."""
    if op.data_layout.data != "NHWC" or op.kernel_layout.data != HWIO.text:
        return None
    if op.groups.value.data != 1 or not isinstance(op.weight.owner, relay.ConstOp):
        return None
    assert isinstance(op.weight.type, TensorType)
    return channel_blocking(op.weight.type.get_shape()[3])


def pack_kernel(op: relay.Conv2dOp, block: int, channels: int) -> None:
    """Replace `op`'s constant kernel by its copy in `OHWI<block>o`, zero-padded to `channels`
    output channels (a slice after `op` then drops the extra ones)."""
    const = op.weight.owner
    assert isinstance(const, relay.ConstOp)
    array = relay.numpy_from_dense(const.value)
    out_channels = array.shape[3]
    array = np.pad(array, [(0, 0)] * 3 + [(0, channels - out_channels)])
    layout = relay.Layout.parse(f"OHWI{block}o")
    packed = relay.ConstOp(np.ascontiguousarray(transform_layout(array, HWIO, layout)))
    Rewriter.insert_op(packed, InsertPoint.before(op))
    op.operands[1] = packed.result
    op.kernel_layout = StringAttr(layout.text)
    infer_op(op)
    if not const.result.uses:
        Rewriter.erase_op(const)
    if channels > out_channels:
        sliced = relay.StridedSliceOp(op.result, [0], [out_channels], axes=[3])
        Rewriter.insert_op(sliced, InsertPoint.after(op))
        op.result.replace_uses_with_if(sliced.result, lambda use: use.operation is not sliced)
        infer_op(sliced)


def winograd_blocking(op: relay.Conv2dOp, any_tiles: bool = False) -> int | None:
    """The output-channel block of `op`'s winograd kernel, or None to keep it direct.

    Winograd takes float32 NHWC conv2ds with a constant HWIO 3x3 kernel, stride 1, no
    dilation or groups; input channels a multiple of the transforms' vector (LANES), output
    channels of whole vectors (blocks of COLUMNS, else LANES) and at least
    WINOGRAD_MIN_TILES output tiles (WINOGRAD_TUNED_MIN_TILES with `any_tiles`: what a tuned
    record may choose).
    """
    if op.data_layout.data != "NHWC" or op.kernel_layout.data != HWIO.text:
        return None
    if op.groups.value.data != 1 or not isinstance(op.weight.owner, relay.ConstOp):
        return None
    if relay.array_values(op.strides) != (1, 1) or relay.array_values(op.dilation) != (1, 1):
        return None
    assert isinstance(op.weight.type, TensorType) and isinstance(op.result.type, TensorType)
    kh, kw, channels, out_channels = op.weight.type.get_shape()
    if (kh, kw) != (3, 3) or op.weight.type.element_type != Float32Type():
        return None
    least = WINOGRAD_TUNED_MIN_TILES if any_tiles else WINOGRAD_MIN_TILES
    if channels % LANES or winograd_tiles(op) < least:
        return None
    return next((b for b in (COLUMNS, LANES) if out_channels % b == 0), None)


def winograd_tiles(op: relay.Conv2dOp) -> int:
    """The output tiles of `op` as a winograd conv2d (per batch)."""
    assert isinstance(op.result.type, TensorType)
    _, out_h, out_w, _ = op.result.type.get_shape()
    return -(-out_h // WINOGRAD_TILE) * -(-out_w // WINOGRAD_TILE)


def shape_of(value: object) -> tuple[int, ...]:
    assert isinstance(value.type, TensorType)  # type: ignore[attr-defined]
    return tuple(value.type.get_shape())  # type: ignore[attr-defined]


def implementations(op: relay.Conv2dOp, block: int) -> list[tuple[str, tuple[object, ...]]]:
    """The two ways to build `op` (winograd with kernel blocks of `block`, or direct with its
    kernel packed as `blocking_of` says), each named with the `workload` attribute that its
    TOPI compute carries: what a tuned record is looked up by."""
    data = shape_of(op.data)
    kh, kw, channels, out_channels = shape_of(op.weight)
    padding = relay.array_values(op.padding)
    alpha = WINOGRAD_TILE + 2
    packed = (alpha, alpha, out_channels // block, channels, block)
    winograd_workload = ("conv2d_winograd", data, packed, WINOGRAD_TILE, padding, "float32")
    blocking = blocking_of(op)
    kernel, layout = (kh, kw, channels, out_channels), HWIO.text
    if blocking is not None:
        kernel = (blocking[1] // blocking[0], kh, kw, channels, blocking[0])
        layout = f"OHWI{blocking[0]}o"
    direct = ("conv2d", data, kernel, (1, 1), padding, (1, 1), 1, "NHWC", layout, "float32")
    return [("winograd", winograd_workload), ("direct", direct)]


def to_winograd(op: relay.Conv2dOp, block: int) -> None:
    """Replace `op` by a winograd conv2d on its kernel transformed and packed by `block`."""
    const = op.weight.owner
    assert isinstance(const, relay.ConstOp)
    kernel = winograd.transform_kernel(relay.numpy_from_dense(const.value), WINOGRAD_TILE, block)
    packed = relay.ConstOp(kernel)
    conv = relay.Conv2dWinogradOp(
        op.data, packed.result, WINOGRAD_TILE, relay.array_values(op.padding)
    )
    Rewriter.insert_op(packed, InsertPoint.before(op))
    Rewriter.replace_op(op, conv)
    infer_op(conv)
    if not const.result.uses:
        Rewriter.erase_op(const)


@dataclass(frozen=True)
class RelayAlterOpLayoutPass(ModulePass):
    """Pack the constant HWIO kernels of NHWC conv2d into the CPU tile's `OHWI<block>o`, or
    transform them for winograd (unless `winograd=false`)."""

    name = "relay-alter-op-layout"

    winograd: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in host_functions(op):
            for conv in [c for c in function.walk() if isinstance(c, relay.Conv2dOp)]:
                block = winograd_blocking(conv, any_tiles=True) if self.winograd else None
                if block is not None:
                    default = "winograd" if winograd_blocking(conv) else "direct"
                    if choose_implementation(implementations(conv, block), default) == "winograd":
                        to_winograd(conv, block)
                        continue
                blocking = blocking_of(conv)
                if blocking is not None:
                    pack_kernel(conv, *blocking)
