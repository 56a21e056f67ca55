"""The ONNX recurrent layers LSTM, GRU and RNN, unrolled into relay over the static sequence.

As TVM's ONNX frontend does, each time step becomes `nn.dense` products, adds, gate
activations and `split`; the input projection of all steps is one `nn.dense` ahead of the loop.
Directions forward, reverse and bidirectional (both, concatenated on the direction axis) share
one step function per layer kind. The two directions of a bidirectional node (with the same
activations) advance together: step t runs the forward direction's step t and the reverse
direction's step steps-1-t, state [2, batch, hidden], its recurrent product one
`nn.batch_matmul` by R [2, gates*hidden, hidden]. That halves the kernels of a run and of a
build, and gives each product twice the work to share among threads (a 2-layer, 512-hidden
bidirectional LSTM of 64 steps: 789 kernel calls became 399, its build 16 s became 6 s).
`sequence_lens` becomes masks: past a batch entry's length the state is carried unchanged and
Y is 0, and a reverse pass starts at the entry's last valid step, which is what walking the
full length backwards with the same masks gives.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.ir import SSAValue

from xtvm.dialects import relay
from xtvm.dialects.relay import static_shape
from xtvm.frontends.onnx.context import ConversionError, Converter, NodeContext
from xtvm.frontends.onnx.converters import (
    Outputs,
    elu_of,
    hard_sigmoid_of,
    reshape,
    scalar,
    transpose,
)

# Activations taking alpha (and beta), with ONNX's defaults.
ALPHA_DEFAULTS = {
    "LeakyRelu": 0.01,
    "ThresholdedRelu": 1.0,
    "ScaledTanh": 1.0,
    "HardSigmoid": 0.2,
    "Elu": 1.0,
    "Affine": 1.0,
}
BETA_DEFAULTS = {"ScaledTanh": 1.0, "HardSigmoid": 0.5, "Affine": 0.0}
SIMPLE = ("Relu", "Tanh", "Sigmoid", "Softsign", "Softplus")


@dataclass(frozen=True)
class Activation:
    """An activation of the `activations` attribute with its alpha and beta."""

    name: str
    alpha: float = 0.0
    beta: float = 0.0

    def __call__(self, c: NodeContext, x: SSAValue) -> SSAValue:
        dtype = c.dtype(0)
        name, alpha, beta = self.name, self.alpha, self.beta
        if name == "Sigmoid":
            return c.emit(relay.SigmoidOp(x))
        if name == "Tanh":
            return c.emit(relay.TanhOp(x))
        if name == "Relu":
            return c.emit(relay.ReluOp(x))
        if name == "LeakyRelu":
            return c.emit(relay.LeakyReluOp(x, alpha))
        if name == "ThresholdedRelu":
            above = c.emit(relay.GreaterOp(x, scalar(c, alpha, dtype)))
            return c.emit(relay.WhereOp(above, x, scalar(c, 0, dtype)))
        if name == "ScaledTanh":
            inner = c.emit(relay.TanhOp(c.emit(relay.MultiplyOp(x, scalar(c, beta, dtype)))))
            return c.emit(relay.MultiplyOp(inner, scalar(c, alpha, dtype)))
        if name == "HardSigmoid":
            return hard_sigmoid_of(c, x, alpha, beta)
        if name == "Elu":
            return elu_of(c, x, alpha)
        if name == "Affine":
            scaled = c.emit(relay.MultiplyOp(x, scalar(c, alpha, dtype)))
            return c.emit(relay.AddOp(scaled, scalar(c, beta, dtype)))
        if name == "Softsign":
            denominator = c.emit(relay.AddOp(c.emit(relay.AbsOp(x)), scalar(c, 1, dtype)))
            return c.emit(relay.DivideOp(x, denominator))
        # Softplus: max(x, 0) + log(1 + exp(-|x|)), without overflow.
        tail = c.emit(relay.ExpOp(c.emit(relay.NegativeOp(c.emit(relay.AbsOp(x))))))
        log1p = c.emit(relay.LogOp(c.emit(relay.AddOp(tail, scalar(c, 1, dtype)))))
        return c.emit(relay.AddOp(c.emit(relay.ReluOp(x)), log1p))


def activations(c: NodeContext, defaults: Sequence[str], directions: int) -> list[Activation]:
    """The `activations` attribute (defaults for each direction), alphas and betas consumed in
    order by the activations that take them."""
    given = c.attr("activations")
    names = list(given) if given else list(defaults) * directions  # type: ignore[call-overload]
    if len(names) != len(defaults) * directions:
        raise ConversionError(
            f"activations {names} must name {len(defaults)} functions per direction "
            f"({len(defaults) * directions} in all)"
        )
    alphas = list(c.attr("activation_alpha") or [])  # type: ignore[call-overload]
    betas = list(c.attr("activation_beta") or [])  # type: ignore[call-overload]
    known = {n.lower(): n for n in (*SIMPLE, *ALPHA_DEFAULTS)}
    out = []
    for raw in names:
        name = known.get(str(raw).lower())
        if name is None:
            raise ConversionError(f"activation '{raw}' is not supported")
        alpha = ALPHA_DEFAULTS.get(name, 0.0)
        if name in ALPHA_DEFAULTS and alphas:
            alpha = float(alphas.pop(0))
        beta = BETA_DEFAULTS.get(name, 0.0)
        if name in BETA_DEFAULTS and betas:
            beta = float(betas.pop(0))
        out.append(Activation(name, alpha, beta))
    return out


# The state carried between steps: (h,) or, for LSTM, (h, c).
State = tuple[SSAValue, ...]


@dataclass
class Layer:
    """What a recurrent node's steps read: its shapes, weights per direction and options.

    A step's direction `d` is an index, or None for both directions of a bidirectional node
    advancing together: state, inputs and weights then carry a leading direction axis of 2
    and the recurrent products are one `nn.batch_matmul`."""

    c: NodeContext
    gates: int
    hidden: int
    batch: int
    steps: int
    clip: float | None
    # direction_weight per (input, direction), made once for all the steps
    weights: dict[tuple[int, int | None], SSAValue] = field(default_factory=dict)

    def weight(self, i: int, d: int | None) -> SSAValue:
        """Input `i` (R, B or P) of direction `d`, its direction axis dropped; for both
        (`d` None) R [2, gates*hidden, hidden] as given, B and P as [2, 1, size], rows
        that broadcast over the batch."""
        if (i, d) not in self.weights:
            if d is not None:
                self.weights[i, d] = direction_weight(self.c, i, d)
            elif len(self.c.shape(i)) == 2:
                self.weights[i, d] = reshape(self.c, self.c.value(i), [2, 1, self.c.shape(i)[1]])
            else:
                self.weights[i, d] = self.c.value(i)
        return self.weights[i, d]

    def product(self, h: SSAValue, weight: SSAValue) -> SSAValue:
        """h W^T: `nn.dense` for one direction, `nn.batch_matmul` for both."""
        if len(static_shape(weight)) == 3:
            return self.c.emit(relay.BatchMatmulOp(h, weight))
        return self.c.emit(relay.DenseOp(h, weight))

    def clipped(self, x: SSAValue) -> SSAValue:
        if self.clip is None:
            return x
        return self.c.emit(relay.ClipOp(x, -self.clip, self.clip))

    def split(self, x: SSAValue, parts: int) -> list[SSAValue]:
        """`x` split into `parts` along its last (gate) axis."""
        t = self.c.emit(relay.SplitOp(x, parts, axis=len(static_shape(x)) - 1))
        return [self.c.emit(relay.TupleGetItemOp(t, i)) for i in range(parts)]


def direction_weight(c: NodeContext, i: int, d: int) -> SSAValue:
    """Input `i` (W, R, B, P, or an initial state in layout 0) for direction `d`, its leading
    direction axis dropped: sliced in numpy when constant, else with strided_slice."""
    value = c.const(i)
    if value is not None:
        return c.lift(np.ascontiguousarray(value[d]))
    shape = c.shape(i)
    piece = c.emit(relay.StridedSliceOp(c.value(i), [d], [d + 1], axes=[0]))
    return reshape(c, piece, shape[1:])


def add(c: NodeContext, *values: SSAValue | None) -> SSAValue:
    present = [v for v in values if v is not None]
    total = present[0]
    for v in present[1:]:
        total = c.emit(relay.AddOp(total, v))
    return total


def lstm_step(
    layer: Layer, d: int | None, acts: Sequence[Activation], xw: SSAValue, state: State
) -> State:
    c = layer.c
    h, cell = state
    gates = add(c, xw, layer.product(h, layer.weight(2, d)))
    i, o, f, g = layer.split(gates, 4)
    peep = None
    if c.has(7):
        row = layer.weight(7, d)
        peep = layer.split(row if d is None else reshape(c, row, [1, 3 * layer.hidden]), 3)

    def peephole(x: SSAValue, k: int, state_c: SSAValue) -> SSAValue:
        if peep is None:
            return x
        return c.emit(relay.AddOp(x, c.emit(relay.MultiplyOp(peep[k], state_c))))

    f_act, g_act, h_act = acts
    i = f_act(c, layer.clipped(peephole(i, 0, cell)))
    if c.int_attr("input_forget", 0):
        f = c.emit(relay.SubtractOp(scalar(c, 1, c.dtype(0)), i))
    else:
        f = f_act(c, layer.clipped(peephole(f, 2, cell)))
    g = g_act(c, layer.clipped(g))
    cell = add(c, c.emit(relay.MultiplyOp(f, cell)), c.emit(relay.MultiplyOp(i, g)))
    o = f_act(c, layer.clipped(peephole(o, 1, cell)))
    return c.emit(relay.MultiplyOp(o, h_act(c, cell))), cell


def gru_step(
    layer: Layer, d: int | None, acts: Sequence[Activation], xw: SSAValue, state: State
) -> State:
    c = layer.c
    (h,) = state
    hidden = layer.hidden
    r_all = layer.weight(2, d)  # [3H, H] (or [2, 3H, H]): z, r, h
    gate_axis = len(static_shape(r_all)) - 2
    r_zr = c.emit(relay.StridedSliceOp(r_all, [0], [2 * hidden], axes=[gate_axis]))
    r_h = c.emit(relay.StridedSliceOp(r_all, [2 * hidden], [3 * hidden], axes=[gate_axis]))
    x_z, x_r, x_h = layer.split(xw, 3)
    h_z, h_r = layer.split(layer.product(h, r_zr), 2)
    f_act, g_act = acts
    z = f_act(c, layer.clipped(add(c, x_z, h_z)))
    r = f_act(c, layer.clipped(add(c, x_r, h_r)))
    rb_h = recurrence_bias(layer, d, 2 * hidden, 3 * hidden)
    if c.int_attr("linear_before_reset", 0):
        recurrent = c.emit(relay.MultiplyOp(r, add(c, layer.product(h, r_h), rb_h)))
    else:
        recurrent = add(c, layer.product(c.emit(relay.MultiplyOp(r, h)), r_h), rb_h)
    candidate = g_act(c, layer.clipped(add(c, x_h, recurrent)))
    one = scalar(c, 1, c.dtype(0))
    keep = c.emit(relay.MultiplyOp(z, h))
    new = c.emit(relay.MultiplyOp(c.emit(relay.SubtractOp(one, z)), candidate))
    return (add(c, new, keep),)


def rnn_step(
    layer: Layer, d: int | None, acts: Sequence[Activation], xw: SSAValue, state: State
) -> State:
    c = layer.c
    (h,) = state
    (act,) = acts
    pre = add(c, xw, layer.product(h, layer.weight(2, d)))
    return (act(c, layer.clipped(pre)),)


def recurrence_bias(layer: Layer, d: int | None, start: int, stop: int) -> SSAValue | None:
    """Entries [start, stop) of direction `d`'s recurrence bias Rb: the GRU's Rb_h, which
    enters the h gate with the recurrence (inside r's product with linear_before_reset)."""
    c = layer.c
    if not c.has(3):
        return None
    half = c.shape(3)[1] // 2
    bias = layer.weight(3, d)
    last = len(static_shape(bias)) - 1
    return c.emit(relay.StridedSliceOp(bias, [half + start], [half + stop], axes=[last]))


def input_bias(c: NodeContext, layer: Layer, d: int, is_gru: bool) -> SSAValue | None:
    """The bias added to the input projection: Wb + Rb, except the GRU's Rb_h (see above)."""
    if not c.has(3):
        return None
    size = layer.gates * layer.hidden
    bias = layer.weight(3, d)
    wb = c.emit(relay.StridedSliceOp(bias, [0], [size], axes=[0]))
    rb = c.emit(relay.StridedSliceOp(bias, [size], [2 * size], axes=[0]))
    if is_gru:  # Rb_h joins the h gate through the recurrence instead
        zero = c.lift(np.zeros(layer.hidden, c.dtype(0)))
        head = c.emit(relay.StridedSliceOp(rb, [0], [2 * layer.hidden], axes=[0]))
        rb = c.emit(relay.ConcatenateOp([head, zero], 0))
    return c.emit(relay.AddOp(wb, rb))


def recurrent(kind: str) -> Converter:
    """The converter of LSTM, GRU or RNN."""
    gates, defaults, step = {
        "LSTM": (4, ("Sigmoid", "Tanh", "Tanh"), lstm_step),
        "GRU": (3, ("Sigmoid", "Tanh"), gru_step),
        "RNN": (1, ("Tanh",), rnn_step),
    }[kind]

    def convert(c: NodeContext) -> Outputs:
        return convert_recurrent(c, kind, gates, defaults, step)

    return convert


# A step: (layer, direction or None for both, its activations, X_t W^T + biases, state) ->
# the new state.
Step = Callable[[Layer, int | None, Sequence[Activation], SSAValue, State], State]


def convert_recurrent(
    c: NodeContext, kind: str, gates: int, defaults: Sequence[str], step: Step
) -> Outputs:
    layout = c.int_attr("layout", 0)
    if layout not in (0, 1):
        raise ConversionError(f"layout must be 0 or 1, got {layout}")
    if c.rank(0) != 3:
        raise ConversionError(f"X must have rank 3, got shape {list(c.shape(0))}")
    x = c.value(0)
    if layout == 1:
        x = transpose(c, x, [1, 0, 2])
    steps, batch, width = static_shape(x)
    direction = c.str_attr("direction", "forward")
    names = {"forward": [0], "reverse": [1], "bidirectional": [0, 1]}
    if direction not in names:
        raise ConversionError(f"direction '{direction}' is not supported")
    directions = len(names[direction])
    hidden = c.int_attr("hidden_size", c.shape(2)[-1] if c.has(2) else 0)
    want_w = (directions, gates * hidden, width)
    want_r = (directions, gates * hidden, hidden)
    if c.shape(1) != want_w or c.shape(2) != want_r:
        raise ConversionError(
            f"W {list(c.shape(1))} and R {list(c.shape(2))} must be {list(want_w)} and "
            f"{list(want_r)} (directions, {gates} gates x hidden_size {hidden}, input or hidden)"
        )
    if c.has(3) and c.shape(3) != (directions, 2 * gates * hidden):
        raise ConversionError(f"B {list(c.shape(3))} must be {[directions, 2 * gates * hidden]}")
    clip = c.attr("clip")
    layer = Layer(c, gates, hidden, batch, steps, None if clip is None else float(clip))  # type: ignore[arg-type]
    acts = activations(c, defaults, directions)
    masks = sequence_masks(c, steps, batch)
    dtype = c.dtype(0)

    flat_x = reshape(c, x, [steps * batch, width])
    count = len(defaults)
    if directions == 2 and acts[:count] == acts[count:]:
        # Both directions advance together, one product for the two per step: half the
        # kernels, each with twice the work to share among threads.
        pair_masks = None
        if masks is not None:
            pair_masks = [
                c.emit(relay.ConcatenateOp([reshape(c, m, [1, batch, 1]) for m in pair], 0))
                for pair in zip(masks, reversed(masks), strict=True)
            ]
        start = initial_state(c, kind, layer, None, layout, dtype)
        projected = paired_inputs(c, layer, flat_x, kind == "GRU")
        hs, state = advance(layer, None, acts[:count], projected, pair_masks, start, step)
        ys = [[half(c, h, 0) for h in hs], [half(c, h, 1) for h in reversed(hs)]]
        finals = [tuple(half(c, s, k) for s in state) for k in (0, 1)]
        return outputs_of(c, layer, ys, finals, layout)
    ys, finals = [], []
    for k, d in enumerate(names[direction]):
        start = initial_state(c, kind, layer, k, layout, dtype)
        projected = per_step(c, layer, project_inputs(c, layer, flat_x, k, kind == "GRU"))
        walk = masks
        if d == 1:  # a reverse pass walks the steps backwards
            projected = projected[::-1]
            walk = None if masks is None else masks[::-1]
        hs, state = advance(
            layer, k, acts[k * count : (k + 1) * count], projected, walk, start, step
        )
        ys.append(hs if d == 0 else hs[::-1])
        finals.append(state)
    return outputs_of(c, layer, ys, finals, layout)


def advance(
    layer: Layer,
    d: int | None,
    acts: Sequence[Activation],
    projected: Sequence[SSAValue],
    masks: Sequence[SSAValue] | None,
    state: State,
    step: Step,
) -> tuple[list[SSAValue], State]:
    """The steps of direction `d` (None: both) over `projected` in order: each step's output
    h (0 past a batch entry's length) and the final state (carried unchanged past it)."""
    c = layer.c
    outputs = []
    zero = None if masks is None else c.lift(np.zeros((), c.dtype(0)))
    for t, xw in enumerate(projected):
        new = step(layer, d, acts, xw, state)
        if masks is not None:
            new = tuple(
                c.emit(relay.WhereOp(masks[t], n, s)) for n, s in zip(new, state, strict=True)
            )
            assert zero is not None
            outputs.append(c.emit(relay.WhereOp(masks[t], new[0], zero)))
        else:
            outputs.append(new[0])
        state = new
    return outputs, state


def half(c: NodeContext, x: SSAValue, d: int) -> SSAValue:
    """Direction `d` of `x` [2, ...], as [1, ...]."""
    return c.emit(relay.StridedSliceOp(x, [d], [d + 1], axes=[0]))


def sequence_masks(c: NodeContext, steps: int, batch: int) -> list[SSAValue] | None:
    """Per step, [batch, 1] booleans: whether the step is within each entry's length; None
    when no entry is shorter than the sequence."""
    if not c.has(4):
        return None
    lengths = c.const(4)
    if lengths is not None and bool(np.all(lengths.reshape(-1) >= steps)):
        return None
    if c.shape(4) != (batch,):
        raise ConversionError(f"sequence_lens must have shape [{batch}], got {list(c.shape(4))}")
    column = reshape(c, c.value(4), [batch, 1])
    index_dtype = c.dtype(4)
    return [c.emit(relay.GreaterOp(column, c.lift(np.array(t, index_dtype)))) for t in range(steps)]


def project_inputs(
    c: NodeContext, layer: Layer, flat_x: SSAValue, d: int, is_gru: bool
) -> SSAValue:
    """X W^T (+ biases) of direction `d` for every step: [steps*batch, gates*hidden] from one
    nn.dense."""
    xw = c.emit(relay.DenseOp(flat_x, direction_weight(c, 1, d)))
    bias = input_bias(c, layer, d, is_gru)
    if bias is not None:
        xw = c.emit(relay.AddOp(xw, bias))
    return xw


def per_step(c: NodeContext, layer: Layer, xw: SSAValue) -> list[SSAValue]:
    """`xw`, [steps * n, ...], split into the steps' n rows each."""
    if layer.steps == 1:
        return [xw]
    pieces = c.emit(relay.SplitOp(xw, layer.steps, axis=0))
    return [c.emit(relay.TupleGetItemOp(pieces, t)) for t in range(layer.steps)]


def paired_inputs(c: NodeContext, layer: Layer, flat_x: SSAValue, is_gru: bool) -> list[SSAValue]:
    """Per step t, [2, batch, gates*hidden]: the forward direction's projected input at t
    beside the reverse direction's at steps - 1 - t, laid out once for all steps."""
    steps, shape = layer.steps, [layer.steps, 1, layer.batch, layer.gates * layer.hidden]
    forward = reshape(c, project_inputs(c, layer, flat_x, 0, is_gru), shape)
    backward = reshape(c, project_inputs(c, layer, flat_x, 1, is_gru), shape)
    backward = c.emit(
        relay.StridedSliceOp(backward, [steps - 1], [-steps - 1], strides=[-1], axes=[0])
    )
    both = c.emit(relay.ConcatenateOp([forward, backward], 1))
    return per_step(c, layer, reshape(c, both, [2 * steps, *shape[2:]]))


def initial_state(
    c: NodeContext, kind: str, layer: Layer, d: int | None, layout: int, dtype: np.dtype
) -> State:
    """(h,) or (h, c) of direction `d` at the start (both, [2, batch, hidden], when None):
    initial_h/initial_c, else zeros."""
    out = []
    for i in (5, 6) if kind == "LSTM" else (5,):
        if not c.has(i):
            lead = [2] if d is None else []
            out.append(c.lift(np.zeros((*lead, layer.batch, layer.hidden), dtype)))
            continue
        shape = c.shape(i)
        if len(shape) != 3 or layer.hidden != shape[2]:
            raise ConversionError(
                f"input {i} (initial state) must be [directions, batch, hidden] (layout 0) or "
                f"[batch, directions, hidden] (layout 1), got {list(shape)}"
            )
        if d is None:
            out.append(transpose(c, c.value(i), [1, 0, 2]) if layout else c.value(i))
        elif layout == 0:
            out.append(direction_weight(c, i, d))
        else:
            piece = c.emit(relay.StridedSliceOp(c.value(i), [d], [d + 1], axes=[1]))
            out.append(reshape(c, piece, [layer.batch, layer.hidden]))
    return tuple(out)


def outputs_of(
    c: NodeContext, layer: Layer, ys: list[list[SSAValue]], finals: list[State], layout: int
) -> Outputs:
    """Y [steps, directions, batch, hidden], Y_h and Y_c [directions, batch, hidden], or
    their layout-1 forms with batch first."""
    b, hsz = layer.batch, layer.hidden
    out: Outputs = []
    if c.wants_output(0):
        per_direction = [
            c.emit(relay.ConcatenateOp([reshape(c, y, [1, 1, b, hsz]) for y in outputs], 0))
            if len(outputs) > 1
            else reshape(c, outputs[0], [1, 1, b, hsz])
            for outputs in ys
        ]
        y = per_direction[0] if len(ys) == 1 else c.emit(relay.ConcatenateOp(per_direction, 1))
        out.append(transpose(c, y, [2, 0, 1, 3]) if layout else y)
    else:
        out.append(None)
    for k in range(len(finals[0])):
        if not c.wants_output(1 + k):
            out.append(None)
            continue
        parts = [reshape(c, state[k], [1, b, hsz]) for state in finals]
        final = parts[0] if len(parts) == 1 else c.emit(relay.ConcatenateOp(parts, 0))
        out.append(transpose(c, final, [1, 0, 2]) if layout else final)
    return out


CONVERTERS: dict[str, Converter] = {
    "LSTM": recurrent("LSTM"),
    "GRU": recurrent("GRU"),
    "RNN": recurrent("RNN"),
}
