"""ONNX Attention (opset 23+) as relay batch products, and RMSNormalization (opset 23).

torch's exporter emits `Attention` for `scaled_dot_product_attention` from opset 23 on (every
Hugging Face and timm transformer) and `RMSNormalization` for `nn.RMSNorm` (Llama). Attention
decomposes as the ONNX function body does: Q Kᵀ by `nn.batch_matmul`, times the scale,
soft-capped, plus the bias (attention mask, causal and sliding-window limits), softmax, times V.

Everything that depends on shapes alone is computed at import time: the causal and window
limits become one constant bias, grouped-query heads (fewer K/V heads than Q heads) are
repeated by a broadcast. A query row that no key may attend gives zeros, as the spec says
(softmax of an all -inf row is NaN and is replaced). `nonpad_kv_seqlen` must be a constant.
"""

from __future__ import annotations

import math

import numpy as np
from onnx import helper
from xdsl.ir import SSAValue

from xtvm.dialects import relay
from xtvm.dialects.relay import static_shape
from xtvm.frontends.onnx.context import ConversionError, Converter, NodeContext
from xtvm.frontends.onnx.converters import Outputs, norm_axis, reshape, scalar, transpose


def heads_first(c: NodeContext, x: SSAValue, heads: int, what: str) -> SSAValue:
    """A 3-d [batch, seq, heads * size] input as [batch, heads, seq, size]."""
    batch, seq, hidden = static_shape(x)
    if heads < 1 or hidden % heads:
        raise ConversionError(f"{what} hidden size {hidden} is not a multiple of {heads} heads")
    return transpose(c, reshape(c, x, [batch, seq, heads, hidden // heads]), [0, 2, 1, 3])


def repeat_heads(c: NodeContext, x: SSAValue, times: int) -> SSAValue:
    """[b, h, s, d] with each head repeated `times` times in place (h0, h0, h1, h1, ...)."""
    if times == 1:
        return x
    b, h, s, d = static_shape(x)
    wide = c.emit(relay.BroadcastToOp(reshape(c, x, [b, h, 1, s, d]), [b, h, times, s, d]))
    return reshape(c, wide, [b, h * times, s, d])


def static_bias(
    c: NodeContext, batch: int, queries: int, total: int, offset: np.ndarray
) -> np.ndarray | None:
    """The causal and sliding-window limits as an additive [batch, 1, q, total] bias (0 or
    -inf), for the per-batch offsets of the first query; None when there are none."""
    causal = c.int_attr("is_causal", 0)
    left, right = c.int_attr("left_window_size", -1), c.int_attr("right_window_size", -1)
    if left < -1 or right < -1:
        raise ConversionError(f"window sizes must be -1 or >= 0, got {left} and {right}")
    if not causal and left < 0 and right < 0:
        return None
    i = np.arange(queries).reshape(1, queries, 1) + offset.reshape(-1, 1, 1)
    j = np.arange(total).reshape(1, 1, total)
    allowed = np.ones((offset.size, queries, total), dtype=bool)
    if causal:
        allowed &= j <= i
    if left >= 0:
        allowed &= i - j <= left
    if right >= 0:
        allowed &= j - i <= right
    bias = np.where(allowed, 0.0, -np.inf)
    return np.broadcast_to(bias[:, None], (batch, 1, queries, total))


def attention(c: NodeContext) -> Outputs:
    q, k, v = c.value(0), c.value(1), c.value(2)
    rank, dtype = c.rank(0), c.dtype(0)
    if not (rank == c.rank(1) == c.rank(2)) or rank not in (3, 4):
        raise ConversionError(
            f"Q, K and V must all be 3-d or all 4-d, got ranks {c.rank(0)}, {c.rank(1)}, "
            f"{c.rank(2)}"
        )
    if rank == 3:
        q = heads_first(c, q, c.int_attr("q_num_heads", 0), "Q")
        k = heads_first(c, k, c.int_attr("kv_num_heads", 0), "K")
        v = heads_first(c, v, c.int_attr("kv_num_heads", 0), "V")
    q_shape, k_shape, v_shape = static_shape(q), static_shape(k), static_shape(v)
    (batch, q_heads, queries, size), (_, kv_heads, _, k_size) = q_shape, k_shape
    if size != k_size or v_shape[1] != kv_heads or k_shape[2] != v_shape[2]:
        raise ConversionError(
            f"Q {list(q_shape)}, K {list(k_shape)} and V {list(v_shape)} do not "
            "fit (head sizes of Q and K, heads and lengths of K and V must agree)"
        )
    if kv_heads < 1 or q_heads % kv_heads:
        raise ConversionError(f"{q_heads} query heads are not a multiple of {kv_heads} K/V heads")
    if c.has(4) != c.has(5):
        raise ConversionError("past_key and past_value must be given together")
    past = 0
    if c.has(4):
        if c.has(6):
            raise ConversionError("nonpad_kv_seqlen cannot be combined with past_key/past_value")
        past = c.shape(4)[2]
        k = c.emit(relay.ConcatenateOp([c.value(4), k], 2))
        v = c.emit(relay.ConcatenateOp([c.value(5), v], 2))
    present_k, present_v = k, v
    total, v_size = static_shape(k)[2], static_shape(v)[3]

    # Shape-only limits: causal and sliding window from the first query's offset, and the
    # keys past each sample's nonpad_kv_seqlen.
    offset = np.full(1, past)
    padding = None
    if c.has(6):
        lengths = c.static(6, "nonpad_kv_seqlen").astype(np.int64).reshape(-1)
        if lengths.size != batch:
            raise ConversionError(f"nonpad_kv_seqlen has {lengths.size} entries for {batch}")
        offset = lengths - queries
        padding = np.where(np.arange(total) < lengths[:, None], 0.0, -np.inf)
    bias = static_bias(c, batch, queries, total, offset)
    if padding is not None:
        bias = (0.0 if bias is None else bias) + padding.reshape(batch, 1, 1, total)

    k = repeat_heads(c, k, q_heads // kv_heads)
    v = repeat_heads(c, v, q_heads // kv_heads)
    # Q and K each scaled by sqrt(scale) before the product, as the spec says (no overflow
    # in float16); the multiplies fuse into the kernels that lay out Q and K.
    scale = c.attr("scale")
    scale = 1.0 / math.sqrt(size) if scale is None else float(scale)  # type: ignore[arg-type]
    root = math.sqrt(abs(scale))
    q = c.emit(relay.MultiplyOp(q, scalar(c, math.copysign(root, scale), dtype)))
    k = c.emit(relay.MultiplyOp(k, scalar(c, root, dtype)))
    rows = batch * q_heads
    scores = c.emit(
        relay.BatchMatmulOp(
            reshape(c, q, [rows, queries, size]), reshape(c, k, [rows, total, size])
        )
    )
    scores = reshape(c, scores, [batch, q_heads, queries, total])
    captured = {0: scores}
    softcap = c.float_attr("softcap", 0.0)
    if softcap > 0:
        capped = c.emit(relay.TanhOp(c.emit(relay.DivideOp(scores, scalar(c, softcap, dtype)))))
        scores = c.emit(relay.MultiplyOp(capped, scalar(c, softcap, dtype)))
    captured[1] = scores

    masked = c.has(3)  # a mask known only at run time may mask a whole row
    if bias is not None:
        masked = masked or bool(np.isneginf(bias.max(axis=-1)).any())
        scores = c.emit(relay.AddOp(scores, c.lift(bias.astype(dtype))))
    if c.has(3):
        scores = c.emit(relay.AddOp(scores, mask_bias(c, total)))
    captured[2] = scores

    precision = c.attr("softmax_precision")
    wide = dtype if precision is None else np.dtype(helper.tensor_dtype_to_np_dtype(precision))
    if wide != dtype:
        scores = c.emit(relay.CastOp(scores, wide))
    probs = c.emit(relay.SoftmaxOp(scores, -1))
    if masked:  # fully masked rows: softmax of all -inf is NaN, the spec says 0
        nan = c.emit(relay.IsnanOp(probs))
        probs = c.emit(relay.WhereOp(nan, scalar(c, 0, wide), probs))
    if wide != dtype:
        probs = c.emit(relay.CastOp(probs, dtype))
    captured[3] = probs

    y = c.emit(
        relay.BatchMatmulOp(
            reshape(c, probs, [rows, queries, total]),
            reshape(c, v, [rows, total, v_size]),
            transpose_b=False,
        )
    )
    y = reshape(c, y, [batch, q_heads, queries, v_size])
    if rank == 3:
        y = reshape(c, transpose(c, y, [0, 2, 1, 3]), [batch, queries, q_heads * v_size])
    mode = c.int_attr("qk_matmul_output_mode", 0)
    if mode not in captured:
        raise ConversionError(f"qk_matmul_output_mode must be 0 to 3, got {mode}")
    return [y, present_k, present_v, captured[mode]]


def mask_bias(c: NodeContext, total: int) -> SSAValue:
    """attn_mask as an additive bias over all `total` keys: booleans become 0 (attend) or -inf,
    and a mask shorter than `total` is padded with masked keys."""
    mask, shape, dtype = c.value(3), c.shape(3), c.dtype(0)
    if not shape or shape[-1] > total:
        raise ConversionError(f"attn_mask of shape {list(shape)} does not fit {total} keys")
    if c.dtype(3) == np.bool_:
        mask = c.emit(relay.WhereOp(mask, scalar(c, 0, dtype), scalar(c, -np.inf, dtype)))
    elif c.dtype(3) != dtype:
        raise ConversionError(f"a float attn_mask must be {dtype}, got {c.dtype(3)}")
    if shape[-1] < total:
        fill = np.full((*shape[:-1], total - shape[-1]), -np.inf, dtype)
        mask = c.emit(relay.ConcatenateOp([mask, c.lift(fill)], len(shape) - 1))
    return mask


def rms_norm(c: NodeContext) -> Outputs:
    """x / sqrt(mean(x², trailing axes) + epsilon) * scale, in float32 for `stash_type` 1."""
    x, shape, dtype = c.value(0), c.shape(0), c.dtype(0)
    axis = norm_axis(c.int_attr("axis", -1), len(shape))
    stash = c.int_attr("stash_type", 1)
    wide = np.dtype(helper.tensor_dtype_to_np_dtype(stash)) if stash else dtype
    if wide != dtype:
        x = c.emit(relay.CastOp(x, wide))
    square = c.emit(relay.MultiplyOp(x, x))
    mean = c.emit(relay.MeanOp(square, list(range(axis, len(shape))), keepdims=True))
    eps = scalar(c, c.float_attr("epsilon", 1e-5), wide)
    y = c.emit(relay.MultiplyOp(x, c.emit(relay.RsqrtOp(c.emit(relay.AddOp(mean, eps))))))
    if wide != dtype:
        y = c.emit(relay.CastOp(y, dtype))
    return [c.emit(relay.MultiplyOp(y, c.value(1)))]


CONVERTERS: dict[str, Converter] = {
    "Attention": attention,
    "RMSNormalization": rms_norm,
}
