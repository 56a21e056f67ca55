"""convert-relay-to-te: every relay op lowered through its strategy, run as tir, against the
relay interpreter.

Each case builds a small relay function, runs relay-fuse-ops and convert-relay-to-te (and
convert-te-to-tir on the kernels), then executes `@main` as a graph executor would: params
and constants from the graph, each `func.call` a tir kernel run by the tir interpreter on its
inputs and fresh output buffers. Shapes are small and often odd (7x13), since the tir
interpreter runs in Python.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue

from xtvm.dialects import relay, te, tir
from xtvm.ir.diagnostics import DiagnosticError
from xtvm.ir.numpy_types import element_type, numpy_dtype
from xtvm.ir.printer import print_ir
from xtvm.passes.convert_relay_to_te import ConvertRelayToTePass
from xtvm.passes.convert_te_to_tir import ConvertTeToTirPass
from xtvm.passes.relay_fold_constant import RelayFoldConstantPass
from xtvm.passes.relay_fuse_ops import RelayFuseOpsPass
from xtvm.passes.relay_simplify_inference import RelaySimplifyInferencePass
from xtvm.runtime import tir_interpreter
from xtvm.runtime.relay_interpreter import evaluate
from xtvm.testing.passes import CTX, count, run
from xtvm.topi.strategy import STRATEGIES, STRUCTURAL

RNG = np.random.default_rng(7)

# ---------------------------------------------------------------------------------------------
# Building, lowering and running


Build = Callable[..., SSAValue | Sequence[SSAValue]]


class Graph:
    """Appends relay ops to a block: `g(op)` adds `op` and returns its (first) result."""

    def __init__(self, block: Block) -> None:
        self.block = block

    def __call__(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0]

    def const(self, array: np.ndarray) -> SSAValue:
        return self(relay.ConstOp(np.asarray(array)))

    def param(self, name: str, shape: Sequence[int], dtype: str = "float32") -> SSAValue:
        return self(relay.ParamOp(name, TensorType(element_type(dtype), shape)))


def function(
    inputs: Sequence[tuple[Sequence[int], str]], build: Build, name: str = "main"
) -> ModuleOp:
    """`@name(inputs)` returning what `build(g, *args)` returns."""
    block = Block(arg_types=[TensorType(element_type(d), s) for s, d in inputs])
    for k, arg in enumerate(block.args):
        arg.name_hint = "xyzabc"[k] if k < 6 else f"a{k}"
    result = build(Graph(block), *block.args)
    results = list(result) if isinstance(result, list | tuple) else [result]
    block.add_op(func.ReturnOp(*results))
    types = ([a.type for a in block.args], [r.type for r in results])
    return ModuleOp([func.FuncOp(name, types, Region(block))])


def lower(module: ModuleOp, target: str = "llvm") -> tuple[ModuleOp, ModuleOp]:
    """relay-fuse-ops and convert-relay-to-te on `module` (in place, verified after each), and
    the te kernels lowered to tir in a module of their own."""
    run(module, RelayFuseOpsPass(), ConvertRelayToTePass(target))
    kernels = [
        f.clone()
        for f in module.ops
        if isinstance(f, func.FuncOp) and any(isinstance(o, te.ComputeOp) for o in f.walk())
    ]
    assert not any(isinstance(o, relay.RelayOp) for k in kernels for o in k.walk())
    return module, run(ModuleOp(kernels), ConvertTeToTirPass())


def execute(
    graph: ModuleOp,
    kernels: ModuleOp,
    inputs: Sequence[np.ndarray],
    params: Mapping[str, np.ndarray] | None = None,
) -> list[np.ndarray]:
    """Run `@main` of `graph` as a graph executor: each call a tir kernel of `kernels`."""
    return run_graph(graph, tir_interpreter.compile_module(kernels), inputs, params)


def run_graph(
    graph: ModuleOp,
    call: Callable[..., object],
    inputs: Sequence[np.ndarray],
    params: Mapping[str, np.ndarray] | None = None,
) -> list[np.ndarray]:
    """Run `@main` of `graph`, each `func.call` a kernel run by `call(name, *buffers)`."""
    main = next(f for f in graph.ops if isinstance(f, func.FuncOp) and f.sym_name.data == "main")
    env: dict[SSAValue, object] = dict(zip(main.body.block.args, inputs, strict=True))
    for op in main.body.block.ops:
        args = [env[v] for v in op.operands]
        if isinstance(op, func.ReturnOp):
            return flatten(args)
        if isinstance(op, relay.ParamOp):
            values: list[object] = [np.asarray((params or {})[op.param_name.data])]
        elif isinstance(op, relay.ConstOp):
            values = [np.require(relay.numpy_from_dense(op.value), requirements="C")]
        elif isinstance(op, relay.TupleOp):
            values = [tuple(args)]
        elif isinstance(op, relay.TupleGetItemOp):
            values = [args[0][op.index.value.data]]  # type: ignore[index]
        else:
            assert isinstance(op, func.CallOp), f"@main still holds {op.name}"
            values = [
                np.zeros(t.get_shape(), numpy_dtype(t.get_element_type()))  # type: ignore[attr-defined]
                for t in op.result_types
            ]
            call(op.callee.string_value(), *args, *values)
        env.update(zip(op.results, values, strict=True))
    raise AssertionError("@main has no func.return")


def flatten(values: Sequence[object]) -> list[np.ndarray]:
    out: list[np.ndarray] = []
    for v in values:
        out.extend(flatten(v) if isinstance(v, tuple) else [np.asarray(v)])  # type: ignore[arg-type]
    return out


def random_input(shape: Sequence[int], dtype: str) -> np.ndarray:
    if dtype == "bool":
        return RNG.integers(0, 2, shape).astype(bool)
    if dtype.startswith("int"):
        return RNG.integers(-8, 8, shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def check_lowering(
    module: ModuleOp,
    inputs: Sequence[np.ndarray],
    params: Mapping[str, np.ndarray] | None = None,
    target: str = "llvm",
    rtol: float = 1e-5,
) -> tuple[ModuleOp, ModuleOp]:
    """Lower `module` and compare its run with the relay interpreter's on `inputs`."""
    expected = evaluate(module, inputs, params=params)
    graph, kernels = lower(module, target)
    got = execute(graph, kernels, inputs, params)
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape, (g.dtype, g.shape, e.dtype, e.shape)
        if e.dtype.kind == "f":
            np.testing.assert_allclose(g, e, rtol=rtol, atol=rtol, err_msg=print_ir(graph, CTX))
        else:
            np.testing.assert_array_equal(g, e, err_msg=print_ir(graph, CTX))
    return graph, kernels


# ---------------------------------------------------------------------------------------------
# One case per op and attribute variant


@dataclass
class Case:
    """A relay function over `inputs` ((shape, dtype) pairs) built by `build(g, *args)`."""

    name: str
    inputs: list[tuple[tuple[int, ...], str]]
    build: Build
    values: Values | None = None  # custom inputs (positive, nonzero, indices)
    params: dict[str, np.ndarray] = field(default_factory=dict)
    rtol: float = 1e-5

    def arrays(self) -> list[np.ndarray]:
        if self.values is not None:
            return self.values(self.inputs)
        return [random_input(s, d) for s, d in self.inputs]


Values = Callable[[list[tuple[tuple[int, ...], str]]], list[np.ndarray]]
F32 = "float32"
I32 = "int32"


def f32(*shape: int) -> tuple[tuple[int, ...], str]:
    return (shape, F32)


def i32(*shape: int) -> tuple[tuple[int, ...], str]:
    return (shape, I32)


def b1(*shape: int) -> tuple[tuple[int, ...], str]:
    return (shape, "bool")


def f16(*shape: int) -> tuple[tuple[int, ...], str]:
    return (shape, "float16")


def f64(*shape: int) -> tuple[tuple[int, ...], str]:
    return (shape, "float64")


def uniform(low: float, high: float) -> Values:
    """Every input drawn uniformly from [low, high)."""
    return lambda inputs: [RNG.uniform(low, high, s).astype(d) for s, d in inputs]


def trig_cases(op: type[relay.UnaryOp], low: float, high: float) -> list[Case]:
    """Arguments over several periods (range reduction) in f32 and f64, then the unary cases
    over [low, high)."""
    values = uniform(low, high)
    return [
        Case("f32", [f32(7, 13)], lambda g, x: g(op(x)), values),
        Case("f64", [f64(2, 3, 5)], lambda g, x: g(op(x)), values, rtol=1e-12),
        *unary_case(op, values),
    ]


def positive(inputs: list[tuple[tuple[int, ...], str]]) -> list[np.ndarray]:
    return [(np.abs(RNG.standard_normal(s)) + 0.5).astype(d) for s, d in inputs]


def nonzero(inputs: list[tuple[tuple[int, ...], str]]) -> list[np.ndarray]:
    return [(RNG.integers(1, 9, s) * RNG.choice([-1, 1], s)).astype(d) for s, d in inputs]


def special_floats(inputs: list[tuple[tuple[int, ...], str]]) -> list[np.ndarray]:
    """Random values with NaN, both infinities, the largest finite value and zeros mixed in."""
    out = []
    for shape, dtype in inputs:
        x = RNG.standard_normal(shape).astype(dtype)
        special = np.array([np.nan, np.inf, -np.inf, np.finfo(dtype).max, -0.0, 0.0], dtype)
        x.ravel()[RNG.choice(x.size, x.size // 2, replace=False)] = RNG.choice(special, x.size // 2)
        out.append(x)
    return out


def float_test_cases(op: type[relay.FloatTestOp]) -> list[Case]:
    """Scalar tails and vector bodies (67 elements), f32 and f64, over special values."""
    return [
        Case(dtype, [(shape, dtype)], lambda g, x: g(op(x)), special_floats)
        for shape, dtype in [((3, 67), F32), ((5, 9), "float64")]
    ]


def binary_cases(op: type[relay.ElementwiseBinaryOp]) -> list[Case]:
    cases = [
        Case("same_shape", [f32(7, 13), f32(7, 13)], lambda g, x, y: g(op(x, y))),
        Case("broadcast_row", [f32(7, 13), f32(13)], lambda g, x, y: g(op(x, y))),
        Case("broadcast_both", [f32(3, 1, 5), f32(4, 1)], lambda g, x, y: g(op(x, y))),
        Case("scalar_const", [f32(7, 13)], lambda g, x: g(op(x, g.const(np.float32(1.5))))),
    ]
    if op is relay.DivideOp:
        cases.append(
            Case("int_truncates", [i32(5, 7), i32(7)], lambda g, x, y: g(op(x, y)), nonzero)
        )
    elif op is relay.PowerOp:
        cases = [
            Case("positive_base", [f32(7, 13), f32(13)], lambda g, x, y: g(op(x, y)), positive),
            Case(
                "int",
                [i32(5, 7), i32(7)],
                lambda g, x, y: g(op(x, y)),
                lambda inputs: [
                    RNG.integers(-3, 4, (5, 7)).astype(I32),
                    RNG.integers(0, 3, (7,)).astype(I32),
                ],
            ),
        ]
    else:
        cases.append(Case("int", [i32(5, 7), i32(1, 7)], lambda g, x, y: g(op(x, y))))
    if op in (relay.AddOp, relay.MultiplyOp, relay.MaximumOp, relay.LessOp, relay.GreaterOp):
        cases.append(Case("bool", [b1(4, 5), b1(5)], lambda g, x, y: g(op(x, y))))
    if op in (relay.AddOp, relay.MultiplyOp, relay.DivideOp):
        cases.append(Case("f16", [f16(3, 5), f16(5)], lambda g, x, y: g(op(x, y)), rtol=1e-3))
    return cases


def unary_case(op: type[relay.UnaryOp], values: Values | None = None) -> list[Case]:
    return [
        Case("odd", [f32(7, 13)], lambda g, x: g(op(x)), values),
        Case("rank3", [f32(2, 3, 5)], lambda g, x: g(op(x)), values),
    ]


def conv(**kw: object) -> Build:
    return lambda g, x, w: g(relay.Conv2dOp(x, w, **kw))  # type: ignore[arg-type]


def pool(op: type[relay.RelayOp], **kw: object) -> Build:
    return lambda g, x: g(op(x, **kw))  # type: ignore[arg-type]


def reduce(op: type[relay.ReduceOp], **kw: object) -> Build:
    return lambda g, x: g(op(x, **kw))  # type: ignore[arg-type]


def take_values(low: int, high: int) -> Values:
    """Data, then indices in [low, high)."""
    return lambda inputs: [
        random_input(*inputs[0]),
        RNG.integers(low, high, inputs[1][0]).astype(I32),
    ]


def indexed(ranges: Sequence[tuple[int, int]]) -> Values:
    """Inputs drawn at random, except those given an integer range [low, high) here by
    position (indices)."""

    def values(inputs: list[tuple[tuple[int, ...], str]]) -> list[np.ndarray]:
        out = []
        for k, (shape, dtype) in enumerate(inputs):
            if k < len(ranges) and ranges[k]:
                out.append(RNG.integers(*ranges[k], shape).astype(dtype))
            else:
                out.append(random_input(shape, dtype))
        return out

    return values


def i64(*shape: int) -> tuple[tuple[int, ...], str]:
    return (shape, "int64")


CASES: dict[type[relay.RelayOp], list[Case]] = {
    relay.AddOp: binary_cases(relay.AddOp),
    relay.SubtractOp: binary_cases(relay.SubtractOp),
    relay.MultiplyOp: binary_cases(relay.MultiplyOp),
    relay.DivideOp: binary_cases(relay.DivideOp),
    relay.PowerOp: binary_cases(relay.PowerOp),
    relay.MaximumOp: binary_cases(relay.MaximumOp),
    relay.MinimumOp: binary_cases(relay.MinimumOp),
    relay.EqualOp: [
        Case("ints", [i32(7, 13), i32(13)], lambda g, x, y: g(relay.EqualOp(x, y))),
        Case("floats", [f32(5, 3)], lambda g, x: g(relay.EqualOp(x, g(relay.NegativeOp(x))))),
    ],
    relay.LessOp: binary_cases(relay.LessOp),
    relay.GreaterOp: binary_cases(relay.GreaterOp),
    relay.LessEqualOp: binary_cases(relay.LessEqualOp),
    relay.GreaterEqualOp: binary_cases(relay.GreaterEqualOp),
    relay.NotEqualOp: binary_cases(relay.NotEqualOp),
    relay.FloorDivideOp: [
        Case("floats", [f32(7, 13), f32(13)], lambda g, x, y: g(relay.FloorDivideOp(x, y))),
        Case("ints", [i32(5, 7), i32(7)], lambda g, x, y: g(relay.FloorDivideOp(x, y)), nonzero),
    ],
    relay.FloorModOp: [
        Case("floats", [f32(7, 13), f32(13)], lambda g, x, y: g(relay.FloorModOp(x, y))),
        Case("ints", [i32(5, 7), i32(7)], lambda g, x, y: g(relay.FloorModOp(x, y)), nonzero),
    ],
    relay.ModOp: [
        Case("floats", [f32(7, 13), f32(13)], lambda g, x, y: g(relay.ModOp(x, y))),
        Case("ints", [i32(5, 7), i32(7)], lambda g, x, y: g(relay.ModOp(x, y)), nonzero),
    ],
    relay.LeftShiftOp: [
        Case(
            "ints",
            [i32(5, 7), i32(7)],
            lambda g, x, y: g(relay.LeftShiftOp(x, y)),
            indexed([(-100, 100), (0, 8)]),
        )
    ],
    relay.RightShiftOp: [
        Case(
            "ints",
            [i32(5, 7), i32(7)],
            lambda g, x, y: g(relay.RightShiftOp(x, y)),
            indexed([(-100, 100), (0, 8)]),
        )
    ],
    relay.LogicalAndOp: [
        Case("bools", [b1(4, 5), b1(5)], lambda g, x, y: g(relay.LogicalAndOp(x, y)))
    ],
    relay.LogicalOrOp: [
        Case("bools", [b1(4, 5), b1(5)], lambda g, x, y: g(relay.LogicalOrOp(x, y)))
    ],
    relay.WhereOp: [
        Case(
            "broadcast",
            [((7, 13), "bool"), f32(7, 13), f32(13)],
            lambda g, c, x, y: g(relay.WhereOp(c, x, y)),
        ),
        Case(
            "from_comparison",
            [f32(5, 6), f32(5, 6)],
            lambda g, x, y: g(relay.WhereOp(g(relay.LessOp(x, y)), x, y)),
        ),
    ],
    relay.CopyOp: [*unary_case(relay.CopyOp)],
    relay.NegativeOp: [
        *unary_case(relay.NegativeOp),
        Case("int", [i32(7, 3)], lambda g, x: g(relay.NegativeOp(x))),
    ],
    relay.AbsOp: [
        *unary_case(relay.AbsOp),
        Case("int", [i32(7, 3)], lambda g, x: g(relay.AbsOp(x))),
    ],
    relay.ExpOp: unary_case(relay.ExpOp),
    relay.LogOp: unary_case(relay.LogOp, positive),
    relay.SqrtOp: unary_case(relay.SqrtOp, positive),
    relay.RsqrtOp: unary_case(relay.RsqrtOp, positive),
    relay.TanhOp: unary_case(relay.TanhOp),
    relay.SigmoidOp: unary_case(relay.SigmoidOp),
    relay.ErfOp: unary_case(relay.ErfOp),
    relay.CosOp: trig_cases(relay.CosOp, -20.0, 20.0),
    relay.SinOp: trig_cases(relay.SinOp, -20.0, 20.0),
    relay.TanOp: trig_cases(relay.TanOp, -1.4, 1.4),  # away from the poles at +-pi/2
    relay.AtanOp: trig_cases(relay.AtanOp, -50.0, 50.0),
    relay.FloorOp: unary_case(relay.FloorOp),
    relay.CeilOp: unary_case(relay.CeilOp),
    relay.TruncOp: unary_case(relay.TruncOp),
    relay.RoundOp: [
        *unary_case(relay.RoundOp),
        Case(
            "halves",
            [f32(9)],
            lambda g, x: g(relay.RoundOp(x)),
            lambda inputs: [np.arange(-4.5, 4.5, dtype=F32)],
        ),
    ],
    relay.SignOp: [
        *unary_case(relay.SignOp),
        Case("int", [i32(7, 3)], lambda g, x: g(relay.SignOp(x))),
    ],
    relay.ShapeOfOp: [
        Case("i64", [f32(2, 3, 5)], lambda g, x: g(relay.ShapeOfOp(x, "int64"))),
        Case("i32", [f32(7)], lambda g, x: g(relay.ShapeOfOp(x))),
        Case("f32", [f32(4, 6)], lambda g, x: g(relay.ShapeOfOp(x, "float32"))),
    ],
    relay.NdarraySizeOp: [
        Case("i32", [f32(2, 3, 5)], lambda g, x: g(relay.NdarraySizeOp(x))),
        Case("f32", [f32(2, 3, 5)], lambda g, x: g(relay.NdarraySizeOp(x, "float32"))),
    ],
    relay.LogicalNotOp: [
        Case("odd", [b1(7, 13)], lambda g, x: g(relay.LogicalNotOp(x))),
        Case(
            "of_comparison",
            [f32(2, 3, 5), f32(5)],
            lambda g, x, y: g(relay.LogicalNotOp(g(relay.LessOp(x, y)))),
        ),
    ],
    relay.IsnanOp: float_test_cases(relay.IsnanOp),
    relay.IsinfOp: float_test_cases(relay.IsinfOp),
    relay.IsfiniteOp: float_test_cases(relay.IsfiniteOp),
    relay.ClipOp: [
        Case("float", [f32(7, 13)], lambda g, x: g(relay.ClipOp(x, -0.5, 0.75))),
        Case("int_fractional_bounds", [i32(7, 13)], lambda g, x: g(relay.ClipOp(x, -2.5, 3.7))),
    ],
    relay.CastOp: [
        Case(
            "float_to_int",
            [f32(7, 13)],
            lambda g, x: g(relay.CastOp(g(relay.MultiplyOp(x, g.const(np.float32(4)))), "int32")),
        ),
        Case("int_to_float", [i32(7, 13)], lambda g, x: g(relay.CastOp(x, "float32"))),
        Case("to_bool", [i32(7, 13)], lambda g, x: g(relay.CastOp(x, "bool"))),
        Case("bool_to_float", [((4, 5), "bool")], lambda g, x: g(relay.CastOp(x, "float32"))),
        Case("widen", [f32(4, 5)], lambda g, x: g(relay.CastOp(x, "float64"))),
    ],
    relay.ReluOp: [
        *unary_case(relay.ReluOp),
        Case("int", [i32(7, 3)], lambda g, x: g(relay.ReluOp(x))),
        Case("bool", [b1(7, 3)], lambda g, x: g(relay.ReluOp(x))),
    ],
    relay.LeakyReluOp: [
        Case("alpha", [f32(7, 13)], lambda g, x: g(relay.LeakyReluOp(x, 0.2))),
        Case("default_rank4", [f32(1, 3, 2, 5)], lambda g, x: g(relay.LeakyReluOp(x))),
    ],
    relay.PreluOp: [
        Case("nchw", [f32(1, 3, 5, 4), f32(3)], lambda g, x, a: g(relay.PreluOp(x, a))),
        Case("last_axis", [f32(5, 7), f32(7)], lambda g, x, a: g(relay.PreluOp(x, a, axis=-1))),
    ],
    relay.GeluOp: [
        Case("erf", [f32(7, 13)], lambda g, x: g(relay.GeluOp(x))),
        Case("tanh", [f32(7, 13)], lambda g, x: g(relay.GeluOp(x, "tanh"))),
    ],
    relay.SoftmaxOp: [
        Case("last_axis", [f32(7, 13)], lambda g, x: g(relay.SoftmaxOp(x))),
        Case("axis0", [f32(5, 3, 4)], lambda g, x: g(relay.SoftmaxOp(x, axis=0))),
        Case("f16", [f16(3, 9)], lambda g, x: g(relay.SoftmaxOp(x)), rtol=1e-3),
    ],
    relay.LogSoftmaxOp: [
        Case("last_axis", [f32(7, 13)], lambda g, x: g(relay.LogSoftmaxOp(x))),
        Case("axis1", [f32(2, 5, 3)], lambda g, x: g(relay.LogSoftmaxOp(x, axis=1))),
    ],
    relay.DropoutOp: [
        Case("identity", [f32(7, 13)], lambda g, x: g(relay.DropoutOp(x, 0.3))),
        Case(
            "between_ops",
            [f32(4, 5)],
            lambda g, x: g(relay.ExpOp(g(relay.DropoutOp(g(relay.AbsOp(x)))))),
        ),
    ],
    relay.Conv2dOp: [
        Case("plain", [f32(1, 3, 7, 9), f32(4, 3, 3, 3)], conv()),
        Case("padding", [f32(1, 3, 7, 9), f32(5, 3, 3, 3)], conv(padding=(1, 2, 0, 1))),
        Case(
            "strides",
            [f32(2, 2, 9, 11), f32(3, 2, 3, 3)],
            conv(strides=(2, 3), padding=(1, 1, 1, 1)),
        ),
        Case(
            "dilation",
            [f32(1, 2, 9, 9), f32(2, 2, 3, 3)],
            conv(dilation=(2, 2), padding=(2, 2, 2, 2)),
        ),
        Case("groups", [f32(1, 4, 6, 7), f32(6, 2, 3, 3)], conv(groups=2, padding=(1, 1, 1, 1))),
        Case("depthwise", [f32(1, 4, 7, 6), f32(4, 1, 3, 3)], conv(groups=4, padding=(1, 1, 1, 1))),
        Case("f16", [f16(1, 8, 5, 5), f16(3, 8, 3, 3)], conv(padding=(1, 1, 1, 1)), rtol=2e-3),
        Case("pointwise_wide", [f32(1, 5, 4, 20), f32(17, 5, 1, 1)], conv()),
        Case(
            "nhwc_hwio",
            [f32(1, 7, 6, 3), f32(3, 3, 3, 20)],
            conv(padding=(1, 1, 1, 1), data_layout="NHWC", kernel_layout="HWIO"),
        ),
        Case(
            "nhwc_strided",
            [f32(2, 9, 8, 2), f32(3, 3, 2, 4)],
            conv(strides=(2, 2), data_layout="NHWC", kernel_layout="HWIO"),
        ),
    ],
    relay.Conv2dWinogradOp: [
        Case(
            "tile4_packed",
            [f32(1, 9, 7, 16), f32(6, 6, 2, 16, 16)],
            lambda g, x, u: g(relay.Conv2dWinogradOp(x, u, 4, (1, 0, 1, 1))),
            rtol=5e-4,  # sums of 36 x 16 products of random kernel values, in another order
        ),
        Case(
            "tile2_batch",
            [f32(2, 6, 5, 16), f32(4, 4, 16, 8)],
            lambda g, x, u: g(relay.Conv2dWinogradOp(x, u, 2, (1, 1, 1, 1))),
            rtol=5e-4,
        ),
    ],
    relay.Conv2dTransposeOp: [
        Case(
            "plain",
            [f32(1, 3, 4, 5), f32(3, 2, 3, 3)],
            lambda g, x, w: g(relay.Conv2dTransposeOp(x, w)),
        ),
        Case(
            "strided_padded",
            [f32(1, 2, 3, 4), f32(2, 3, 3, 3)],
            lambda g, x, w: g(
                relay.Conv2dTransposeOp(
                    x, w, strides=(2, 2), padding=(1, 1, 1, 1), output_padding=(1, 0)
                )
            ),
        ),
        Case(
            "groups_dilation",
            [f32(1, 4, 3, 3), f32(4, 1, 2, 2)],
            lambda g, x, w: g(
                relay.Conv2dTransposeOp(x, w, strides=(1, 2), dilation=(2, 1), groups=2)
            ),
        ),
        Case(
            "nhwc_hwoi",
            [f32(1, 3, 5, 4), f32(3, 3, 2, 4)],
            lambda g, x, w: g(
                relay.Conv2dTransposeOp(
                    x,
                    w,
                    strides=(2, 1),
                    padding=(1, 0, 0, 1),
                    data_layout="NHWC",
                    kernel_layout="HWOI",
                )
            ),
        ),
        Case(
            "output_padding_past_stride",
            [f32(1, 2, 3, 3), f32(2, 3, 2, 2)],
            lambda g, x, w: g(relay.Conv2dTransposeOp(x, w, output_padding=(2, 1))),
        ),
        Case(
            "oihw",
            [f32(1, 3, 4, 4), f32(5, 3, 3, 3)],
            lambda g, x, w: g(relay.Conv2dTransposeOp(x, w, strides=(2, 2), kernel_layout="OIHW")),
        ),
    ],
    relay.BitpackOp: [
        Case(
            "planes_first",
            [i32(2, 16, 3)],
            lambda g, x: g(relay.BitpackOp(x, bits=3, pack_axis=1, bit_axis=0, pack_type="uint8")),
            values=indexed([(-8, 8)]),
        ),
        Case(
            "uint16_last",
            [i32(3, 32)],
            lambda g, x: g(
                relay.BitpackOp(x, bits=2, pack_axis=-1, bit_axis=2, pack_type="uint16")
            ),
            values=indexed([(0, 4)]),
        ),
    ],
    relay.CorrelationOp: [
        Case(
            "multiply",
            [f32(2, 3, 9, 7), f32(2, 3, 9, 7)],
            lambda g, a, b: g(relay.CorrelationOp(a, b, 3, 2, 2, 1, (2, 1))),
        ),
        Case(
            "difference",
            [f32(1, 2, 6, 6), f32(1, 2, 6, 6)],
            lambda g, a, b: g(relay.CorrelationOp(a, b, 1, 2, 1, 2, (2, 2), is_multiply=False)),
        ),
    ],
    relay.Conv1dOp: [
        Case(
            "strided_dilated",
            [f32(2, 3, 11), f32(4, 3, 3)],
            lambda g, x, w: g(relay.Conv1dOp(x, w, strides=(2,), padding=(1, 2), dilation=(2,))),
        ),
        Case(
            "nwc_groups",
            [f32(1, 9, 4), f32(3, 2, 6)],
            lambda g, x, w: g(
                relay.Conv1dOp(x, w, groups=2, data_layout="NWC", kernel_layout="WIO")
            ),
        ),
    ],
    relay.Conv3dOp: [
        Case(
            "grouped_strided",
            [f32(1, 4, 5, 6, 5), f32(6, 2, 3, 2, 3)],
            lambda g, x, w: g(
                relay.Conv3dOp(x, w, strides=(1, 2, 1), padding=(1, 0, 1, 1, 1, 0), groups=2)
            ),
        ),
        Case(
            "ndhwc_dilated",
            [f32(1, 6, 5, 7, 3), f32(2, 3, 2, 3, 4)],
            lambda g, x, w: g(
                relay.Conv3dOp(x, w, dilation=(2, 1, 3), data_layout="NDHWC", kernel_layout="DHWIO")
            ),
        ),
        Case(
            "int8_out_dtype",
            [((1, 3, 4, 4, 4), "int8"), ((2, 3, 2, 2, 2), "uint8")],
            lambda g, x, w: g(relay.Conv3dOp(x, w, padding=(1,) * 6, out_dtype="int32")),
        ),
    ],
    relay.Conv1dTransposeOp: [
        Case(
            "strided_padded",
            [f32(2, 4, 5), f32(4, 3, 3)],
            lambda g, x, w: g(
                relay.Conv1dTransposeOp(x, w, strides=(2,), padding=(1, 0), output_padding=(1,))
            ),
        ),
        Case(
            "nwc_groups",
            [f32(1, 5, 4), f32(4, 1, 3)],
            lambda g, x, w: g(
                relay.Conv1dTransposeOp(x, w, groups=2, data_layout="NWC", dilation=(2,))
            ),
        ),
    ],
    relay.Conv3dTransposeOp: [
        Case(
            "strided",
            [f32(1, 4, 3, 4, 2), f32(4, 3, 2, 3, 2)],
            lambda g, x, w: g(
                relay.Conv3dTransposeOp(
                    x, w, strides=(2, 2, 3), padding=(1, 0, 1, 0, 1, 0), output_padding=(1, 0, 2)
                )
            ),
        ),
        Case(
            "ndhwc_oidhw",
            [f32(1, 3, 4, 2, 4), f32(3, 4, 2, 2, 1)],
            lambda g, x, w: g(
                relay.Conv3dTransposeOp(
                    x, w, strides=(1, 2, 1), data_layout="NDHWC", kernel_layout="OIDHW"
                )
            ),
        ),
    ],
    relay.DenseOp: [
        Case("odd", [f32(7, 13), f32(5, 13)], lambda g, x, w: g(relay.DenseOp(x, w))),
        Case("wide", [f32(2, 9), f32(37, 9)], lambda g, x, w: g(relay.DenseOp(x, w))),
        Case("rank3", [f32(2, 3, 4), f32(6, 4)], lambda g, x, w: g(relay.DenseOp(x, w))),
        Case("int", [i32(3, 4), i32(5, 4)], lambda g, x, w: g(relay.DenseOp(x, w))),
        Case("f16", [f16(3, 40), f16(5, 40)], lambda g, x, w: g(relay.DenseOp(x, w)), rtol=2e-3),
    ],
    relay.MatmulOp: [
        Case("plain", [f32(7, 5), f32(5, 13)], lambda g, a, b: g(relay.MatmulOp(a, b))),
        Case(
            "transposed",
            [f32(5, 7), f32(13, 5)],
            lambda g, a, b: g(relay.MatmulOp(a, b, True, True)),
        ),
        Case("vector", [f32(5), f32(5, 6)], lambda g, a, b: g(relay.MatmulOp(a, b))),
        Case("batched_lhs", [f32(2, 3, 5), f32(5, 4)], lambda g, a, b: g(relay.MatmulOp(a, b))),
    ],
    relay.BatchMatmulOp: [
        Case("nt", [f32(2, 7, 5), f32(2, 3, 5)], lambda g, x, y: g(relay.BatchMatmulOp(x, y))),
        Case(
            "nn_broadcast",
            [f32(3, 4, 5), f32(1, 5, 6)],
            lambda g, x, y: g(relay.BatchMatmulOp(x, y, transpose_b=False)),
        ),
        Case(
            "tn",
            [f32(2, 5, 4), f32(2, 5, 3)],
            lambda g, x, y: g(relay.BatchMatmulOp(x, y, True, False)),
        ),
    ],
    relay.BiasAddOp: [
        Case("nchw", [f32(1, 3, 5, 4), f32(3)], lambda g, x, b: g(relay.BiasAddOp(x, b))),
        Case("last_axis", [f32(7, 13), f32(13)], lambda g, x, b: g(relay.BiasAddOp(x, b, axis=-1))),
    ],
    relay.BatchNormOp: [
        Case(
            "nchw",
            [f32(2, 3, 4, 5), f32(3), f32(3), f32(3)],
            lambda g, x, gamma, beta, mean: g(
                relay.TupleGetItemOp(
                    g(
                        relay.BatchNormOp(
                            x, gamma, beta, mean, g.const(np.array([0.5, 1.0, 2.0], F32))
                        )
                    ),
                    0,
                )
            ),
        ),
        Case(
            "tuple_result_no_scale",
            [f32(4, 6), f32(6), f32(6), f32(6)],
            lambda g, x, gamma, beta, mean: g(
                relay.BatchNormOp(
                    x,
                    gamma,
                    beta,
                    mean,
                    g.const(np.full(6, 2.0, F32)),
                    axis=1,
                    center=False,
                    scale=False,
                )
            ),
        ),
    ],
    relay.LayerNormOp: [
        Case(
            "last_axis",
            [f32(7, 13), f32(13), f32(13)],
            lambda g, x, a, b: g(relay.LayerNormOp(x, a, b)),
        ),
        Case(
            "axis0_no_center",
            [f32(5, 3), f32(5), f32(5)],
            lambda g, x, a, b: g(relay.LayerNormOp(x, a, b, axis=0, center=False)),
        ),
    ],
    relay.LrnOp: [
        Case("default", [f32(1, 6, 3, 4)], lambda g, x: g(relay.LrnOp(x, size=3))),
        Case(
            "even_size_last_axis",
            [f32(2, 7)],
            lambda g, x: g(relay.LrnOp(x, size=4, axis=-1, alpha=0.1, beta=0.5, bias=1.0)),
        ),
    ],
    relay.MaxPool2dOp: [
        Case("plain", [f32(1, 2, 7, 9)], pool(relay.MaxPool2dOp, pool_size=(2, 2), strides=(2, 2))),
        Case(
            "padded",
            [f32(1, 2, 7, 7)],
            pool(relay.MaxPool2dOp, pool_size=(3, 3), strides=(2, 2), padding=(1, 1, 1, 1)),
        ),
        Case(
            "ceil_mode",
            [f32(1, 2, 7, 8)],
            pool(relay.MaxPool2dOp, pool_size=(3, 2), strides=(2, 3), ceil_mode=True),
        ),
        Case(
            "dilated_nhwc",
            [f32(1, 9, 8, 3)],
            pool(relay.MaxPool2dOp, pool_size=(2, 2), dilation=(2, 2), layout="NHWC"),
        ),
        Case(
            "int",
            [i32(1, 2, 5, 5)],
            pool(relay.MaxPool2dOp, pool_size=(2, 2), padding=(1, 1, 0, 0)),
        ),
    ],
    relay.MaxPool1dOp: [
        Case(
            "ceil_padded",
            [f32(2, 3, 10)],
            pool(relay.MaxPool1dOp, pool_size=(3,), strides=(2,), padding=(1, 0), ceil_mode=True),
        ),
    ],
    relay.AvgPool1dOp: [
        Case(
            "nwc_count_pad",
            [f32(2, 10, 3)],
            pool(
                relay.AvgPool1dOp,
                pool_size=(3,),
                padding=(1, 1),
                layout="NWC",
                count_include_pad=True,
            ),
        ),
    ],
    relay.MaxPool3dOp: [
        Case(
            "padded",
            [f32(1, 2, 3, 6, 5)],
            pool(
                relay.MaxPool3dOp,
                pool_size=(2, 2, 2),
                strides=(2, 2, 2),
                padding=(2, 0, 1, 0, 1, 1),
            ),
        ),
        Case(
            "ndhwc_ceil",
            [f32(1, 5, 6, 7, 3)],
            pool(
                relay.MaxPool3dOp,
                pool_size=(2, 3, 2),
                strides=(2, 2, 2),
                layout="NDHWC",
                ceil_mode=True,
            ),
        ),
        Case(
            "int",
            [i32(1, 2, 4, 4, 4)],
            pool(relay.MaxPool3dOp, pool_size=(2, 2, 2), dilation=(1, 2, 1)),
        ),
    ],
    relay.AvgPool3dOp: [
        Case(
            "padded_exclude",
            [f32(1, 2, 5, 6, 5)],
            pool(relay.AvgPool3dOp, pool_size=(3, 3, 3), strides=(2, 2, 2), padding=(1,) * 6),
        ),
        Case(
            "count_pad_ndhwc",
            [f32(2, 4, 5, 6, 3)],
            pool(
                relay.AvgPool3dOp,
                pool_size=(2, 2, 3),
                padding=(1, 0, 1, 1, 0, 1),
                layout="NDHWC",
                count_include_pad=True,
            ),
        ),
    ],
    relay.AdaptiveMaxPool1dOp: [
        Case("ncw", [f32(2, 3, 10)], pool(relay.AdaptiveMaxPool1dOp, output_size=(4,))),
        Case(
            "nwc_int",
            [i32(2, 10, 3)],
            pool(relay.AdaptiveMaxPool1dOp, output_size=(3,), layout="NWC"),
        ),
    ],
    relay.AdaptiveAvgPool1dOp: [
        Case("ncw", [f32(2, 3, 10)], pool(relay.AdaptiveAvgPool1dOp, output_size=(7,))),
    ],
    relay.AdaptiveMaxPool2dOp: [
        Case(
            "nhwc",
            [f32(1, 10, 9, 3)],
            pool(relay.AdaptiveMaxPool2dOp, output_size=(4, 5), layout="NHWC"),
        ),
    ],
    relay.AdaptiveAvgPool2dOp: [
        Case("nchw", [f32(1, 3, 10, 9)], pool(relay.AdaptiveAvgPool2dOp, output_size=(4, 5))),
        Case("to_one", [f32(1, 3, 7, 7)], pool(relay.AdaptiveAvgPool2dOp, output_size=(1, 1))),
    ],
    relay.AdaptiveMaxPool3dOp: [
        Case("ncdhw", [f32(1, 3, 5, 7, 6)], pool(relay.AdaptiveMaxPool3dOp, output_size=(2, 3, 6))),
    ],
    relay.AdaptiveAvgPool3dOp: [
        Case(
            "ndhwc_int",
            [i32(1, 5, 7, 6, 3)],
            pool(relay.AdaptiveAvgPool3dOp, output_size=(2, 3, 4), layout="NDHWC"),
        ),
    ],
    relay.AvgPool2dOp: [
        Case("plain", [f32(1, 2, 7, 9)], pool(relay.AvgPool2dOp, pool_size=(2, 2), strides=(2, 2))),
        Case(
            "padded_exclude",
            [f32(1, 2, 7, 7)],
            pool(relay.AvgPool2dOp, pool_size=(3, 3), strides=(2, 2), padding=(1, 1, 1, 1)),
        ),
        Case(
            "padded_include",
            [f32(1, 2, 7, 7)],
            pool(
                relay.AvgPool2dOp,
                pool_size=(3, 3),
                strides=(2, 2),
                padding=(1, 2, 1, 0),
                count_include_pad=True,
            ),
        ),
        Case(
            "ceil_include",
            [f32(1, 2, 6, 7)],
            pool(
                relay.AvgPool2dOp,
                pool_size=(3, 3),
                strides=(2, 2),
                padding=(1, 1, 1, 1),
                ceil_mode=True,
                count_include_pad=True,
            ),
        ),
        Case(
            "dilated_nhwc",
            [f32(1, 8, 9, 2)],
            pool(
                relay.AvgPool2dOp,
                pool_size=(2, 3),
                dilation=(2, 1),
                padding=(1, 0, 1, 1),
                layout="NHWC",
            ),
        ),
        Case("int", [i32(1, 2, 5, 5)], pool(relay.AvgPool2dOp, pool_size=(2, 2))),
    ],
    relay.GlobalAvgPool2dOp: [
        Case("nchw", [f32(2, 3, 5, 7)], lambda g, x: g(relay.GlobalAvgPool2dOp(x))),
        Case("nhwc", [f32(1, 5, 7, 3)], lambda g, x: g(relay.GlobalAvgPool2dOp(x, "NHWC"))),
    ],
    relay.GlobalMaxPool2dOp: [
        Case("nchw", [f32(2, 3, 5, 7)], lambda g, x: g(relay.GlobalMaxPool2dOp(x))),
        Case("nhwc", [f32(1, 5, 7, 3)], lambda g, x: g(relay.GlobalMaxPool2dOp(x, "NHWC"))),
    ],
    relay.PadOp: [
        Case("constant", [f32(3, 5)], lambda g, x: g(relay.PadOp(x, [(1, 2), (0, 3)], 1.5))),
        Case(
            "edge", [f32(3, 5)], lambda g, x: g(relay.PadOp(x, [(2, 1), (3, 0)], pad_mode="edge"))
        ),
        Case(
            "reflect",
            [f32(4, 5)],
            lambda g, x: g(relay.PadOp(x, [(3, 1), (2, 4)], pad_mode="reflect")),
        ),
        Case("int", [i32(2, 3)], lambda g, x: g(relay.PadOp(x, [(1, 1), (1, 1)], 2.0))),
    ],
    relay.Resize2dOp: [
        Case(
            "nearest_half_pixel",
            [f32(1, 2, 3, 4)],
            lambda g, x: g(relay.Resize2dOp(x, (7, 5), method="nearest_neighbor")),
        ),
        Case(
            "nearest_align_corners",
            [f32(1, 2, 3, 4)],
            lambda g, x: g(
                relay.Resize2dOp(
                    x,
                    (6, 9),
                    method="nearest_neighbor",
                    coordinate_transformation_mode="align_corners",
                )
            ),
        ),
        Case(
            "nearest_round_prefer_ceil",
            [f32(1, 2, 5, 4)],
            lambda g, x: g(
                relay.Resize2dOp(
                    x,
                    (3, 8),
                    method="nearest_neighbor",
                    coordinate_transformation_mode="asymmetric",
                    rounding_method="round_prefer_ceil",
                )
            ),
        ),
        Case("bilinear_half_pixel", [f32(1, 2, 3, 4)], lambda g, x: g(relay.Resize2dOp(x, (7, 5)))),
        Case("bilinear_ints", [i32(1, 2, 3, 4)], lambda g, x: g(relay.Resize2dOp(x, (6, 8)))),
        Case(
            "bicubic_asymmetric",
            [f32(1, 2, 3, 4)],
            lambda g, x: g(
                relay.Resize2dOp(
                    x, (7, 5), method="cubic", coordinate_transformation_mode="asymmetric"
                )
            ),
        ),
        Case(
            "bilinear_align_corners_nhwc",
            [f32(1, 3, 4, 2)],
            lambda g, x: g(
                relay.Resize2dOp(
                    x, (5, 7), layout="NHWC", coordinate_transformation_mode="align_corners"
                )
            ),
        ),
    ],
    relay.Resize1dOp: [
        Case("cubic", [f32(1, 2, 5)], lambda g, x: g(relay.Resize1dOp(x, (11,), method="cubic"))),
        Case(
            "cubic_exclude_nwc",
            [f32(2, 6, 3)],
            lambda g, x: g(
                relay.Resize1dOp(x, (4,), layout="NWC", method="cubic", cubic_exclude=1)
            ),
        ),
        Case(
            "nearest_align_corners",
            [f32(1, 2, 5)],
            lambda g, x: g(
                relay.Resize1dOp(
                    x,
                    (25,),
                    method="nearest_neighbor",
                    coordinate_transformation_mode="align_corners",
                )
            ),
        ),
    ],
    relay.Resize3dOp: [
        Case("trilinear", [f32(1, 2, 2, 3, 4)], lambda g, x: g(relay.Resize3dOp(x, (3, 5, 7)))),
        Case(
            "cubic_ndhwc",
            [f32(1, 3, 2, 4, 2)],
            lambda g, x: g(relay.Resize3dOp(x, (5, 3, 6), layout="NDHWC", method="cubic")),
        ),
    ],
    relay.UpsamplingOp: [
        Case("nearest", [f32(1, 2, 3, 4)], lambda g, x: g(relay.UpsamplingOp(x, 2.0, 1.5))),
        Case(
            "bilinear_align_corners",
            [f32(1, 2, 3, 4)],
            lambda g, x: g(relay.UpsamplingOp(x, 2.0, 2.0, method="bilinear", align_corners=True)),
        ),
    ],
    relay.SumOp: [
        Case("all", [f32(7, 13)], reduce(relay.SumOp)),
        Case("axis1_keepdims", [f32(3, 5, 4)], reduce(relay.SumOp, axis=1, keepdims=True)),
        Case("two_axes", [f32(3, 5, 4)], reduce(relay.SumOp, axis=(0, -1))),
        Case("int", [i32(4, 5)], reduce(relay.SumOp, axis=0)),
        Case("f16", [f16(5, 40)], reduce(relay.SumOp, axis=1), rtol=1e-3),
        Case("bool", [b1(4, 5)], reduce(relay.SumOp, axis=1)),
    ],
    relay.MeanOp: [
        Case("axis", [f32(7, 13)], reduce(relay.MeanOp, axis=1)),
        Case("all_keepdims", [f32(3, 4)], reduce(relay.MeanOp, keepdims=True)),
        Case("int_truncates", [i32(4, 5)], reduce(relay.MeanOp, axis=1)),
        Case("bool", [b1(4, 5)], reduce(relay.MeanOp, axis=0)),
    ],
    relay.MaxOp: [
        Case("axis", [f32(7, 13)], reduce(relay.MaxOp, axis=0)),
        Case("all", [i32(3, 4)], reduce(relay.MaxOp)),
        Case("bool", [b1(3, 4)], reduce(relay.MaxOp, axis=1)),
    ],
    relay.MinOp: [
        Case("axis_keepdims", [f32(7, 13)], reduce(relay.MinOp, axis=-1, keepdims=True)),
        Case("all", [i32(3, 4)], reduce(relay.MinOp)),
        Case("bool", [b1(3, 4)], reduce(relay.MinOp, axis=0)),
    ],
    relay.ProdOp: [
        Case("axis", [f32(3, 5)], reduce(relay.ProdOp, axis=1)),
        Case("int", [i32(2, 3)], reduce(relay.ProdOp, axis=(0, 1))),
    ],
    relay.ArgmaxOp: [
        Case("axis", [f32(7, 13)], reduce(relay.ArgmaxOp, axis=1)),
        Case("flattened", [f32(3, 4, 5)], reduce(relay.ArgmaxOp)),
        Case("ties_keepdims", [i32(4, 6)], reduce(relay.ArgmaxOp, axis=0, keepdims=True)),
        Case("bool", [b1(4, 6)], reduce(relay.ArgmaxOp, axis=1)),
        Case("axes", [f32(3, 4, 5)], reduce(relay.ArgmaxOp, axis=(2, 0))),
        Case(
            "last_of_ties",
            [i32(4, 6)],
            reduce(relay.ArgmaxOp, axis=(0,), select_last_index=True),
            lambda inputs: [RNG.integers(0, 2, (4, 6)).astype("int32")],
        ),
    ],
    relay.ArgminOp: [
        Case("axis", [f32(7, 13)], reduce(relay.ArgminOp, axis=0)),
        Case("flattened_keepdims", [i32(3, 4)], reduce(relay.ArgminOp, keepdims=True)),
        Case("axes_keepdims", [f32(3, 4, 5)], reduce(relay.ArgminOp, axis=(0, 1), keepdims=True)),
    ],
    relay.ReshapeOp: [
        Case("infer", [f32(2, 3, 4)], lambda g, x: g(relay.ReshapeOp(x, (0, -1)))),
        Case("regroup", [f32(6, 10)], lambda g, x: g(relay.ReshapeOp(x, (4, 5, 3)))),
    ],
    relay.TransposeOp: [
        Case("reverse", [f32(2, 3, 4)], lambda g, x: g(relay.TransposeOp(x))),
        Case("perm", [f32(2, 3, 4, 5)], lambda g, x: g(relay.TransposeOp(x, (0, 2, 3, 1)))),
    ],
    relay.ConcatenateOp: [
        Case(
            "axis1",
            [f32(2, 3), f32(2, 1), f32(2, 4)],
            lambda g, a, b, c: g(relay.ConcatenateOp([a, b, c], axis=1)),
        ),
        Case("axis0_int", [i32(1, 3), i32(2, 3)], lambda g, a, b: g(relay.ConcatenateOp([a, b]))),
    ],
    relay.SplitOp: [
        Case("sections", [f32(2, 6)], lambda g, x: g(relay.SplitOp(x, 3, axis=1))),
        Case(
            "indices_get_item",
            [f32(7, 3)],
            lambda g, x: g(
                relay.AddOp(
                    g(relay.TupleGetItemOp(g(relay.SplitOp(x, [2, 5])), 2)), g.const(np.float32(1))
                )
            ),
        ),
    ],
    relay.SqueezeOp: [
        Case("all", [f32(1, 3, 1, 4)], lambda g, x: g(relay.SqueezeOp(x))),
        Case("axis", [f32(1, 3, 1)], lambda g, x: g(relay.SqueezeOp(x, [2]))),
    ],
    relay.ExpandDimsOp: [
        Case("middle", [f32(3, 4)], lambda g, x: g(relay.ExpandDimsOp(x, 1, 2))),
        Case("end", [f32(3)], lambda g, x: g(relay.ExpandDimsOp(x, -1))),
    ],
    relay.BatchFlattenOp: [
        Case("nchw", [f32(2, 3, 2, 5)], lambda g, x: g(relay.BatchFlattenOp(x))),
        Case("already_flat_int", [i32(3, 7)], lambda g, x: g(relay.BatchFlattenOp(x))),
    ],
    relay.StridedSliceOp: [
        Case("step", [f32(2, 8)], lambda g, x: g(relay.StridedSliceOp(x, [1], [7], [2], axes=[1]))),
        Case(
            "negative",
            [f32(7, 13)],
            lambda g, x: g(relay.StridedSliceOp(x, [-2, 11], [0, 2], [-1, -3])),
        ),
        Case("clamped", [f32(5, 4)], lambda g, x: g(relay.StridedSliceOp(x, [1, -100], [100, 3]))),
    ],
    relay.TakeOp: [
        Case(
            "axis_clip",
            [f32(3, 5), i32(2, 4)],
            lambda g, x, i: g(relay.TakeOp(x, i, axis=1)),
            take_values(-3, 8),
        ),
        Case(
            "wrap",
            [f32(4, 3), i32(5)],
            lambda g, x, i: g(relay.TakeOp(x, i, axis=0, mode="wrap")),
            take_values(-9, 9),
        ),
        Case(
            "fast_negative",
            [f32(4, 3), i32(5)],
            lambda g, x, i: g(relay.TakeOp(x, i, axis=-1, mode="fast")),
            take_values(-3, 3),
        ),
        Case(
            "flattened",
            [f32(3, 4), i32(2, 3)],
            lambda g, x, i: g(relay.TakeOp(x, i)),
            take_values(0, 12),
        ),
    ],
    relay.BroadcastToOp: [
        Case("rank_up", [f32(3, 1)], lambda g, x: g(relay.BroadcastToOp(x, (2, 3, 4)))),
        Case("same_rank_bool", [b1(1, 7)], lambda g, x: g(relay.BroadcastToOp(x, (5, 7)))),
    ],
    relay.TileOp: [
        Case("same_rank", [f32(2, 3)], lambda g, x: g(relay.TileOp(x, (2, 3)))),
        Case("rank_up", [f32(3)], lambda g, x: g(relay.TileOp(x, (2, 1, 2)))),
    ],
    relay.LayoutTransformOp: [
        Case(
            "nchw_nhwc",
            [f32(1, 3, 2, 5)],
            lambda g, x: g(relay.LayoutTransformOp(x, "NCHW", "NHWC")),
        ),
        Case(
            "nchw_nchw4c",
            [f32(1, 8, 2, 3)],
            lambda g, x: g(relay.LayoutTransformOp(x, "NCHW", "NCHW4c")),
        ),
        Case(
            "nchw4c_nhwc",
            [f32(1, 2, 3, 2, 4)],
            lambda g, x: g(relay.LayoutTransformOp(x, "NCHW4c", "NHWC")),
        ),
    ],
    relay.GatherNdOp: [
        Case(
            "full_tuples",
            [f32(4, 5, 3), i64(2, 3, 2)],
            lambda g, x, i: g(relay.GatherNdOp(x, i)),
            indexed([(), (0, 4)]),
        ),
        Case(
            "batch_dims",
            [f32(2, 5, 3), i32(1, 2, 4)],
            lambda g, x, i: g(relay.GatherNdOp(x, i, batch_dims=1)),
            indexed([(), (0, 5)]),
        ),
    ],
    relay.ScatterNdOp: [
        Case(
            f"{mode}_repeated",
            [f32(5, 3), i64(1, 4), f32(4, 3)],
            lambda g, x, i, u, mode=mode: g(relay.ScatterNdOp(x, i, u, mode)),
            indexed([(), (0, 3)]),
        )
        for mode in relay.SCATTER_MODES
    ]
    + [
        Case(
            "update_elements",
            [i32(3, 4), i64(2, 2), i32(2)],
            lambda g, x, i, u: g(relay.ScatterNdOp(x, i, u)),
            indexed([(), (0, 3)]),
        ),
    ],
    relay.GatherOp: [
        Case(
            "axis1",
            [f32(3, 5), i64(3, 4)],
            lambda g, x, i: g(relay.GatherOp(x, i, axis=1)),
            indexed([(), (0, 5)]),
        ),
        Case(
            "axis0_smaller",
            [f32(4, 3, 2), i32(2, 2, 2)],
            lambda g, x, i: g(relay.GatherOp(x, i, axis=-3)),
            indexed([(), (0, 4)]),
        ),
    ],
    relay.ScatterElementsOp: [
        Case(
            f"{mode}_axis1",
            [f32(3, 5), i64(2, 4), f32(2, 4)],
            lambda g, x, i, u, mode=mode: g(relay.ScatterElementsOp(x, i, u, 1, mode)),
            indexed([(), (0, 5)]),
        )
        for mode in relay.SCATTER_MODES
    ]
    + [
        Case(
            "add_negative_indices",
            [f32(3, 5), i64(3, 4), f32(3, 4)],
            lambda g, x, i, u: g(relay.ScatterElementsOp(x, i, u, 1, "add")),
            indexed([(), (-5, 5)]),
        )
    ]
    + [
        Case(
            "update_axis0_int",
            [i32(4, 3), i64(3, 3), i32(3, 3)],
            lambda g, x, i, u: g(relay.ScatterElementsOp(x, i, u, 0)),
            indexed([(), (0, 4)]),
        ),
    ],
    relay.CumsumOp: [
        Case("axis1", [f32(3, 7)], lambda g, x: g(relay.CumsumOp(x, 1))),
        Case("exclusive_int", [i32(4, 3)], lambda g, x: g(relay.CumsumOp(x, 0, exclusive=True))),
        Case("flattened", [f32(2, 3)], lambda g, x: g(relay.CumsumOp(x))),
    ],
    relay.CumprodOp: [
        Case("axis1", [f32(3, 7)], lambda g, x: g(relay.CumprodOp(x, 1))),
        Case("exclusive_int", [i32(4, 3)], lambda g, x: g(relay.CumprodOp(x, 0, exclusive=True))),
    ],
    relay.DepthToSpaceOp: [
        Case("dcr", [f32(2, 12, 3, 2)], lambda g, x: g(relay.DepthToSpaceOp(x, 2))),
        Case(
            "cdr_nhwc",
            [f32(1, 2, 3, 18)],
            lambda g, x: g(relay.DepthToSpaceOp(x, 3, "NHWC", "CDR")),
        ),
    ],
    relay.SpaceToDepthOp: [
        Case("nchw", [f32(2, 3, 4, 6)], lambda g, x: g(relay.SpaceToDepthOp(x, 2))),
        Case("nhwc", [f32(1, 6, 3, 2)], lambda g, x: g(relay.SpaceToDepthOp(x, 3, "NHWC"))),
    ],
    relay.CropAndResizeOp: [
        Case(
            f"{layout}_{method}",
            [f32(2, 3, 9, 7) if layout == "NCHW" else f32(2, 9, 7, 3), f32(4, 4), i32(4)],
            lambda g, x, b, i, layout=layout, method=method, size=size: g(
                relay.CropAndResizeOp(x, b, i, (size, 5), layout, method, -1.0)
            ),
            lambda inputs: [
                RNG.uniform(size=inputs[0][0]).astype("float32"),
                RNG.uniform(-0.2, 1.2, size=(4, 4)).astype("float32"),
                np.array([1, 0, 1, 1], "int32"),
            ],
        )
        for layout, method, size in [
            ("NCHW", "bilinear", 4),
            ("NHWC", "nearest_neighbor", 1),
            ("NHWC", "bilinear", 3),
        ]
    ],
    relay.DeformableConv2dOp: [
        Case(
            "nchw_groups",
            [f32(1, 4, 6, 5), f32(1, 2 * 9 * 2, 6, 5), f32(4, 2, 3, 3)],
            lambda g, x, o, w: g(
                relay.DeformableConv2dOp(
                    x, o, w, padding=(1, 1, 1, 1), deformable_groups=2, groups=2
                )
            ),
            lambda inputs: [RNG.uniform(-2, 2, s).astype(d) for s, d in inputs],
        ),
        Case(
            "nhwc_strided",
            [f32(1, 7, 6, 2), f32(1, 3, 3, 2 * 4), f32(2, 2, 2, 3)],
            lambda g, x, o, w: g(
                relay.DeformableConv2dOp(
                    x,
                    o,
                    w,
                    strides=(2, 2),
                    dilation=(2, 1),
                    data_layout="NHWC",
                    kernel_layout="HWIO",
                )
            ),
            lambda inputs: [RNG.uniform(-2, 2, s).astype(d) for s, d in inputs],
        ),
    ],
    relay.Dilation2dOp: [
        Case(
            "nchw_padded",
            [f32(2, 3, 5, 6), f32(3, 2, 3)],
            lambda g, x, w: g(relay.Dilation2dOp(x, w, padding=(1, 0, 0, 2))),
        ),
        Case(
            "nhwc_strided_dilated",
            [f32(1, 9, 8, 2), f32(2, 2, 2)],
            lambda g, x, w: g(
                relay.Dilation2dOp(
                    x, w, strides=(2, 3), dilations=(2, 1), data_layout="NHWC", kernel_layout="HWI"
                )
            ),
        ),
    ],
    relay.SliceLikeOp: [
        Case("leading", [f32(4, 5, 3), f32(2, 3)], lambda g, x, y: g(relay.SliceLikeOp(x, y))),
    ],
    relay.CorrelationOp: [
        Case(
            "multiply",
            [f32(2, 3, 7, 6), f32(2, 3, 7, 6)],
            lambda g, a, b: g(relay.CorrelationOp(a, b, 3, 2, 2, 1, [3, 2])),
        ),
        Case(
            "subtract_rounded_up",
            [f32(1, 2, 6, 5), f32(1, 2, 6, 5)],
            lambda g, a, b: g(relay.CorrelationOp(a, b, 1, 2, 3, 2, [2, 1, 3, 2], False)),
        ),
    ],
    relay.ReinterpretOp: [
        Case("f32_as_i32", [f32(4, 5)], lambda g, x: g(relay.ReinterpretOp(x, "int32"))),
        Case(
            "i64_as_f64",
            [i64(7)],
            lambda g, x: g(relay.ReinterpretOp(x, "float64")),
            indexed([(2**62, 2**62 + 2**40)]),  # normal doubles
        ),
    ],
    relay.StridedSetOp: [
        Case(
            "strided",
            [f32(5, 6), f32(2, 3)],
            lambda g, x, v: g(relay.StridedSetOp(x, v, [1, 0], [5, 6], [2, 2])),
        ),
        Case(
            "reversed_broadcast",
            [f32(4, 5), f32(1)],
            lambda g, x, v: g(relay.StridedSetOp(x, v, [3], [0], [-1])),
        ),
    ],
    relay.SpaceToBatchNdOp: [
        Case(
            "padded",
            [f32(2, 2, 4, 3)],
            lambda g, x: g(relay.SpaceToBatchNdOp(x, [2, 2], [[0, 0], [1, 1]], 0.5)),
        ),
        Case(
            "one_axis", [i32(3, 3, 2, 1)], lambda g, x: g(relay.SpaceToBatchNdOp(x, [3], [[0, 0]]))
        ),
    ],
    relay.BatchToSpaceNdOp: [
        Case(
            "cropped",
            [f32(8, 1, 3, 2)],
            lambda g, x: g(relay.BatchToSpaceNdOp(x, [2, 2], [[0, 1], [2, 0]])),
        ),
    ],
    relay.AffineGridOp: [
        Case("grid", [f32(2, 2, 3)], lambda g, x: g(relay.AffineGridOp(x, [3, 4]))),
    ],
    relay.GridSampleOp: [
        Case(
            f"{method}_{padding}_{'aligned' if align else 'edges'}",
            [f32(2, 3, 5, 4), f32(2, 2, 3, 6)],
            lambda g, x, w, m=method, p=padding, a=align: g(
                relay.GridSampleOp(x, w, m, "NCHW", p, a)
            ),
            uniform(-1.3, 1.3),
        )
        for method, padding, align in [
            ("bilinear", "zeros", True),
            ("nearest", "border", False),
            ("bicubic", "reflection", True),
            ("bicubic", "zeros", False),
            ("bilinear", "reflection", False),
        ]
    ]
    + [
        Case(
            "trilinear_border",
            [f32(1, 2, 3, 4, 5), f32(1, 3, 2, 3, 4)],
            lambda g, x, w: g(relay.GridSampleOp(x, w, "bilinear", "NCDHW", "border", True)),
            uniform(-1.3, 1.3),
        )
    ],
    relay.UniqueOp: [
        Case(
            "sorted_counts",
            [i32(12)],
            lambda g, x: g(relay.UniqueOp(x, sorted=True, return_counts=True)),
            indexed([(0, 5)]),
        ),
        Case(
            "first_occurrence",
            [i64(9)],
            lambda g, x: g(relay.UniqueOp(x, sorted=False)),
            indexed([(-3, 3)]),
        ),
    ],
    relay.ReverseSequenceOp: [
        Case(
            "seq0_batch2",
            [f32(5, 2, 3), i32(3)],
            lambda g, x, n: g(relay.ReverseSequenceOp(x, n, seq_axis=0, batch_axis=-1)),
            indexed([(), (-1, 8)]),
        ),
    ],
    relay.UnravelIndexOp: [
        Case(
            "vector",
            [i64(6), i64(3)],
            lambda g, i, s: g(relay.UnravelIndexOp(i, s)),
            indexed([(0, 200), (1, 7)]),
        ),
        Case(
            "scalar",
            [i32(), i32(2)],
            lambda g, i, s: g(relay.UnravelIndexOp(i, s)),
            indexed([(0, 50), (1, 9)]),
        ),
    ],
    relay.SegmentSumOp: [
        Case(
            "counted",
            [f32(6, 4, 3), i32(5)],
            lambda g, x, s: g(relay.SegmentSumOp(x, s, num_segments=7)),
            indexed([(), (0, 7)]),
        ),
    ],
    relay.SparseReshapeOp: [
        Case(
            f"{name}",
            [i64(5, len(prev)), i64(len(prev)), i64(len(new))],
            lambda g, i, p, n: g(relay.SparseReshapeOp(i, p, n)),
            lambda _, prev=prev, new=new: [
                np.array([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 2, 3]])[:, : len(prev)],
                np.array(prev, "int64"),
                np.array(new, "int64"),
            ],
        )
        for name, prev, new in [
            ("inferred", [2, 3, 6], [9, -1]),
            ("same", [2, 3, 6], [2, -1, 6]),
            ("flat", [2, 3, 6], [-1]),
            ("split", [4, 6], [2, 2, -1, 3]),
        ]
    ],
    relay.StftOp: [
        Case(
            "batch_normalized_twosided",
            [f32(2, 11), f32(4)],
            lambda g, x, w: g(relay.StftOp(x, w, 4, 2, 3, normalized=True, onesided=False)),
        ),
        Case("vector_int_window", [f32(9), i32(3)], lambda g, x, w: g(relay.StftOp(x, w, 3, 3, 3))),
    ],
    relay.TriluOp: [
        Case("upper", [f32(4, 5)], lambda g, x: g(relay.TriluOp(x))),
        Case("lower_k", [f32(2, 3, 4)], lambda g, x: g(relay.TriluOp(x, k=-1, upper=False))),
        Case("upper_k_int", [i32(3, 3)], lambda g, x: g(relay.TriluOp(x, k=2))),
    ],
    relay.MultiboxPriorOp: [
        Case(
            "ratios_clip",
            [f32(1, 2, 3, 5)],
            lambda g, x: g(relay.MultiboxPriorOp(x, (0.5, 0.25), (1.0, 2.0, 0.5), clip=True)),
        ),
        Case(
            "steps",
            [f32(2, 1, 4, 2)],
            lambda g, x: g(relay.MultiboxPriorOp(x, (0.7,), (1.0, 3.0), (0.2, 0.4), (0.3, 0.6))),
        ),
    ],
    relay.YoloReorgOp: [
        Case("stride2", [f32(2, 8, 4, 6)], lambda g, x: g(relay.YoloReorgOp(x, 2))),
        Case("stride3_int", [i32(1, 9, 3, 6)], lambda g, x: g(relay.YoloReorgOp(x, 3))),
    ],
    relay.RoiAlignOp: [
        Case(
            f"{layout}_{mode}_{ratio}",
            [f32(2, 3, 9, 7) if layout == "NCHW" else f32(2, 9, 7, 3), f32(5, 5)],
            lambda g, x, r, layout=layout, mode=mode, ratio=ratio: g(
                relay.RoiAlignOp(x, r, (3, 2), 0.5, ratio, layout, mode)
            ),
            lambda inputs: [random_input(*inputs[0]), rois(5, 2, 18.0)],
        )
        for layout, mode, ratio in [("NCHW", "avg", -1), ("NHWC", "max", 2), ("NCHW", "max", 0)]
    ],
    relay.RoiPoolOp: [
        Case(
            "scaled",
            [f32(2, 3, 9, 7), f32(6, 5)],
            lambda g, x, r: g(relay.RoiPoolOp(x, r, (3, 2), 0.5)),
            lambda inputs: [random_input(*inputs[0]), rois(6, 2, 18.0)],
        ),
    ],
    relay.GetValidCountsOp: [
        Case(
            f"id{id_index}",
            [f32(3, 9, 6)],
            lambda g, x, id_index=id_index: fields(
                g, g(relay.GetValidCountsOp(x, 0.1, id_index, 1)), 3
            ),
        )
        for id_index in (0, -1)
    ],
    relay.NonMaxSuppressionOp: [
        Case(
            f"{name}",
            [f32(2, 8, 6), i32(2), i32(2, 8), i32(), f32()],
            lambda g, *a, attrs=attrs: (
                fields(g, g(relay.NonMaxSuppressionOp(*a, **attrs)), 2)
                if attrs.get("return_indices", True)
                else g(relay.NonMaxSuppressionOp(*a, **attrs))
            ),
            lambda inputs, limit=limit: nms_inputs(limit),
        )
        for name, limit, attrs in [
            ("indices", -1, {}),
            ("forced_top_k_limit", 2, {"force_suppress": True, "top_k": 5}),
            ("boxes_to_bottom", 3, {"return_indices": False, "invalid_to_bottom": True}),
            ("boxes_in_place", -1, {"return_indices": False}),
        ]
    ],
    relay.MultiboxTransformLocOp: [
        Case(
            f"clip_{clip}",
            [f32(2, 4, 6), f32(2, 24), f32(1, 6, 4)],
            lambda g, c, p, a, clip=clip: fields(
                g, g(relay.MultiboxTransformLocOp(c, p, a, clip, 0.3)), 2
            ),
            lambda inputs: [
                RNG.uniform(size=(2, 4, 6)).astype(F32),
                RNG.uniform(-1, 1, size=(2, 24)).astype(F32),
                corner_boxes((1, 6), 1.0),
            ],
        )
        for clip in (True, False)
    ],
    relay.ProposalOp: [
        Case(
            f"iou_loss_{iou_loss}",
            [f32(2, 4, 3, 4), f32(2, 8, 3, 4), f32(2, 3)],
            lambda g, c, d, i, iou_loss=iou_loss: g(
                relay.ProposalOp(c, d, i, (1.0,), (0.5, 2.0), 8, 0.5, 9, 6, 4, iou_loss)
            ),
            lambda inputs: [
                RNG.uniform(size=(2, 4, 3, 4)).astype(F32),
                RNG.uniform(-1, 1, size=(2, 8, 3, 4)).astype(F32),
                np.float32([[24, 32, 1.0], [20, 30, 0.5]]),
            ],
            rtol=1e-4,
        )
        for iou_loss in (False, True)
    ],
    relay.AllClassNonMaxSuppressionOp: [
        Case(
            output_format,
            [f32(2, 7, 4), f32(2, 3, 7), i32(), f32(), f32()],
            lambda g, *a, output_format=output_format, count=count: fields(
                g, g(relay.AllClassNonMaxSuppressionOp(*a, output_format=output_format)), count
            ),
            lambda inputs: [
                corner_boxes((2, 7)),
                RNG.uniform(size=(2, 3, 7)).astype(F32),
                np.array(3, "int32"),
                np.array(0.3, F32),
                np.array(0.2, F32),
            ],
        )
        for output_format, count in [("onnx", 2), ("tensorflow", 3)]
    ],
}


def fields(g: Graph, value: SSAValue, count: int) -> list[SSAValue]:
    """The fields of a tuple-typed value, each returned."""
    return [g(relay.TupleGetItemOp(value, k)) for k in range(count)]


def corner_boxes(lead: tuple[int, ...], scale: float = 10.0) -> np.ndarray:
    """Random boxes (x1, y1, x2, y2) with x1 < x2 and y1 < y2, overlapping often."""
    low = RNG.uniform(0, scale, size=(*lead, 2))
    size = RNG.uniform(scale / 10, scale / 2, size=(*lead, 2))
    return np.concatenate([low, low + size], axis=-1).astype(F32)


def rois(count: int, batch: int, extent: float) -> np.ndarray:
    """Regions (batch index, x1, y1, x2, y2), some reaching outside the map."""
    corners = RNG.uniform(-2, extent, size=(count, 4)).astype(F32)
    return np.concatenate([RNG.integers(0, batch, (count, 1)).astype(F32), corners], axis=1)


def nms_inputs(limit: int) -> list[np.ndarray]:
    """Boxes (class, score, corners) with scores of both signs and classes 0-2, a valid
    count per batch and the boxes' indices."""
    boxes = np.concatenate(
        [
            RNG.integers(0, 3, (2, 8, 1)).astype(F32),
            RNG.uniform(-0.2, 1, (2, 8, 1)).astype(F32),
            corner_boxes((2, 8)),
        ],
        axis=-1,
    )
    indices = np.stack([RNG.permutation(8) for _ in range(2)]).astype("int32")
    return [boxes, np.int32([8, 6]), indices, np.array(limit, "int32"), np.array(0.3, F32)]


# Ops without a strategy row, and why.
EXCLUDED = (
    {
        op: "structural: the lowering composes it itself (constants, params, tuples)"
        for op in STRUCTURAL
    }
    | {
        op: "QNN: relay-qnn-canonicalize rewrites it into ordinary ops before lowering"
        for op in relay.Relay.operations
        if op.name.startswith("relay.qnn.")
    }
    | {relay.StopFusionOp: "a fusion barrier: relay-fuse-ops removes it before lowering"}
)


def test_every_relay_op_has_a_strategy_or_an_exclusion() -> None:
    missing = [
        op.name for op in relay.Relay.operations if op not in STRATEGIES and op not in EXCLUDED
    ]
    assert missing == [], f"relay ops with neither a strategy row nor an exclusion: {missing}"
    untested = [op.name for op in STRATEGIES if not CASES.get(op)]
    assert untested == [], f"strategy rows without a numeric case: {untested}"


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(case, id=f"{op.name.removeprefix('relay.')}-{case.name}")
        for op, cases in CASES.items()
        for case in cases
    ],
)
def test_op_lowered_matches_relay_interpreter(case: Case) -> None:
    module = function(case.inputs, case.build)
    graph, kernels = check_lowering(module, case.arrays(), case.params, rtol=case.rtol)
    assert count(graph, func.CallOp) >= 1
    assert count(kernels, tir.ForOp) + count(kernels, func.FuncOp) >= 1


# ---------------------------------------------------------------------------------------------
# Whole groups: fusion, schedules, constants, targets


def kernel_named(module: ModuleOp, prefix: str) -> func.FuncOp:
    return next(
        f for f in module.ops if isinstance(f, func.FuncOp) and f.sym_name.data.startswith(prefix)
    )


def primitives(kernel: func.FuncOp) -> list[Operation]:
    """The schedule primitives of a te kernel, in order."""
    return [op for s in kernel.walk() if isinstance(s, te.ScheduleOp) for op in s.body.block.ops]


def conv_bn_relu(g: Graph, x: SSAValue, name: str, channels: int, relu: bool = True) -> SSAValue:
    in_channels = x.type.get_shape()[1]  # type: ignore[attr-defined]
    w = g.param(f"{name}.weight", (channels, in_channels, 3, 3))
    conv = g(relay.Conv2dOp(x, w, padding=(1, 1, 1, 1)))
    stats = [
        g.const((RNG.uniform(0.5, 1.5, channels)).astype(F32)) for _ in ("gamma", "beta", "mean")
    ]
    var = g.const(RNG.uniform(0.5, 1.5, channels).astype(F32))
    bn = g(relay.TupleGetItemOp(g(relay.BatchNormOp(conv, *stats, var)), 0))
    return g(relay.ReluOp(bn)) if relu else bn


def test_resnet_block_end_to_end() -> None:
    """conv+bn+relu, conv+bn, residual add, relu: batch norm simplified and folded into the
    conv kernels as multiply/add by hoisted per-channel constants."""

    def block(g: Graph, x: SSAValue) -> SSAValue:
        y = conv_bn_relu(g, x, "conv1", 4)
        y = conv_bn_relu(g, y, "conv2", 4, relu=False)
        return g(relay.ReluOp(g(relay.AddOp(y, x))))

    module = function([f32(1, 4, 7, 9)], block)
    params = {
        "conv1.weight": random_input((4, 4, 3, 3), F32),
        "conv2.weight": random_input((4, 4, 3, 3), F32),
    }
    run(module, RelaySimplifyInferencePass(), RelayFoldConstantPass())
    graph, kernels = check_lowering(module, [random_input((1, 4, 7, 9), F32)], params)
    names = [f.sym_name.data for f in graph.ops if isinstance(f, func.FuncOp)]
    assert names == [
        "fused_nn_conv2d_multiply_add_nn_relu",
        "fused_nn_conv2d_multiply_add_add_nn_relu",
        "main",
    ]
    second = kernel_named(graph, "fused_nn_conv2d_multiply_add_add")
    # conv1's output, the weight, the residual x, then the hoisted bn scale and shift.
    assert len(second.function_type.inputs) == 5 and len(second.function_type.outputs) == 1
    inlined = [p.stage.data for p in primitives(second) if isinstance(p, te.ComputeInlineOp)]
    assert inlined == ["pad_temp", "T_multiply", "T_add", "T_add_1"]
    main = kernel_named(graph, "main")
    assert count(main, relay.ConstOp) == 4 and count(main, relay.ParamOp) == 2
    assert count(kernels, tir.ForOp) > 0


def test_elementwise_chain_becomes_one_loop_nest() -> None:
    module = function(
        [f32(7, 13), f32(13)],
        lambda g, x, y: g(relay.MultiplyOp(g(relay.ExpOp(g(relay.AddOp(x, y)))), x)),
    )
    graph, kernels = check_lowering(module, [random_input((7, 13), F32), random_input((13,), F32)])
    kernel = kernel_named(graph, "fused_add_exp_multiply")
    inlined = [p.stage.data for p in primitives(kernel) if isinstance(p, te.ComputeInlineOp)]
    assert inlined == ["T_add", "T_exp"]
    assert count(kernels, memref_alloc()) == 0
    loops = [op for op in kernels.walk() if isinstance(op, tir.ForOp)]
    assert [loop.kind.data for loop in loops] == ["parallel", "vectorized"]


def rotary_then_transpose(g: Graph, x: SSAValue, cos: SSAValue, transposed: bool) -> SSAValue:
    """Llama's keys: x * cos + concat(-upper, lower) * cos, then the innermost two axes
    swapped for Q.K^T (or, with `transposed` false, x's own transpose alone)."""
    if not transposed:
        return g(relay.TransposeOp(x, (0, 2, 1)))
    lower = g(relay.StridedSliceOp(x, [0], [16], axes=[2]))
    upper = g(relay.StridedSliceOp(x, [16], [32], axes=[2]))
    turned = g(relay.ConcatenateOp([g(relay.NegativeOp(upper)), lower], axis=2))
    rotated = g(relay.AddOp(g(relay.MultiplyOp(x, cos)), g(relay.MultiplyOp(turned, cos))))
    return g(relay.TransposeOp(rotated, (0, 2, 1)))


@pytest.mark.parametrize("computed", [True, False])
def test_transpose_of_a_computed_chain_is_buffered(computed: bool) -> None:
    """A transpose moving the innermost axis of a chain computed from several tensors runs
    on buffers (the chain contiguous, then a square-blocked copy): inlined, each vector of
    the transposed rows recomputed the chain from gathered elements. A transpose of an input
    alone stays one inlined loop nest."""
    module = function(
        [f32(4, 64, 32), f32(64, 32)],
        lambda g, x, c: rotary_then_transpose(g, x, c, computed),
    )
    inputs = [random_input((4, 64, 32), F32), random_input((64, 32), F32)]
    graph, kernels = check_lowering(module, inputs)
    kernel = next(f for f in graph.ops if isinstance(f, func.FuncOp) and f.sym_name.data != "main")
    inlined = {p.stage.data for p in primitives(kernel) if isinstance(p, te.ComputeInlineOp)}
    split = {p.stage.data for p in primitives(kernel) if p.name == "te.split"}
    if computed:
        assert "T_add" not in inlined and "T_transpose" not in inlined
        assert "T_transpose" in split  # cpu_transpose's squares
        assert count(kernels, memref_alloc()) == 1  # the chain's buffer
    else:
        assert count(kernels, memref_alloc()) == 0


def memref_alloc() -> type[Operation]:
    from xdsl.dialects import memref

    return memref.AllocOp


def test_conv_bias_relu_gets_a_register_tile() -> None:
    module = function(
        [f32(1, 3, 9, 34), f32(16, 3, 3, 3), f32(16)],
        lambda g, x, w, b: g(
            relay.ReluOp(g(relay.BiasAddOp(g(relay.Conv2dOp(x, w, padding=(1, 1, 1, 1))), b)))
        ),
    )
    inputs = [random_input(s, F32) for s in ((1, 3, 9, 34), (16, 3, 3, 3), (16,))]
    graph, kernels = check_lowering(module, inputs)
    kernel = kernel_named(graph, "fused_nn_conv2d")
    conv = [p for p in primitives(kernel) if p.stage.data == "conv2d_nchw"]
    # The convolution is computed inside each tile of the stage that ends the group (relu).
    assert [p.name for p in conv] == ["te.compute_at", "te.reorder", "te.unroll", "te.vectorize"]
    tile = {p.name for p in primitives(kernel) if p.stage.data != "conv2d_nchw"}
    assert {"te.split", "te.fuse", "te.parallel"} <= tile
    kinds = {loop.kind.data for loop in kernels.walk() if isinstance(loop, tir.ForOp)}
    assert {"parallel", "vectorized", "unrolled"} <= kinds


@pytest.mark.parametrize("target", ["cuda", "generic"])
def test_other_targets(target: str) -> None:
    module = function(
        [f32(5, 7), f32(3, 7)],
        lambda g, x, w: g(relay.SoftmaxOp(g(relay.DenseOp(x, w)))),
    )
    graph, kernels = check_lowering(
        module, [random_input((5, 7), F32), random_input((3, 7), F32)], target=target
    )
    names = {p.name for f in graph.ops for p in primitives(f)}  # type: ignore[arg-type]
    if target == "generic":
        assert names <= {"te.compute_inline"}
        return
    binds = {p.thread.data for f in graph.ops for p in primitives(f) if isinstance(p, te.BindOp)}
    # dense: a 2-d grid of blocks of threads, register tiles fed from shared-memory tiles;
    # softmax: blocks x threads
    assert binds == {"blockIdx.x", "threadIdx.x", "blockIdx.y"}
    caches = [p for f in graph.ops for p in primitives(f) if isinstance(p, te.CacheReadOp)]
    assert {"shared", "local"} <= {p.scope.data for p in caches}
    assert any(isinstance(p, te.CacheWriteOp) for f in graph.ops for p in primitives(f))
    kinds = {loop.kind.data for loop in kernels.walk() if isinstance(loop, tir.ForOp)}
    assert "thread_binding" in kinds


def test_identical_functions_share_one_kernel() -> None:
    """Two convolutions of the same shapes with different constant weights: one kernel, each
    call passing its own hoisted weight."""

    def build(g: Graph, x: SSAValue) -> SSAValue:
        for _ in range(2):
            w = g.const(random_input((3, 3, 1, 1), F32))
            x = g(relay.ReluOp(g(relay.Conv2dOp(x, w))))
        return x

    graph, _ = check_lowering(function([f32(1, 3, 5, 5)], build), [random_input((1, 3, 5, 5), F32)])
    kernels = [f for f in graph.ops if isinstance(f, func.FuncOp) and f.sym_name.data != "main"]
    assert [k.sym_name.data for k in kernels] == ["fused_nn_conv2d_nn_relu"]
    calls = [op for op in graph.walk() if isinstance(op, func.CallOp)]
    assert [c.callee.string_value() for c in calls] == ["fused_nn_conv2d_nn_relu"] * 2
    assert calls[0].arguments[1] is not calls[1].arguments[1]


def test_splat_constant_is_read_as_a_value() -> None:
    module = function(
        [f32(4, 5)], lambda g, x: g(relay.AddOp(x, g.const(np.full((4, 5), 2.5, F32))))
    )
    graph, _ = check_lowering(module, [random_input((4, 5), F32)])
    kernel = kernel_named(graph, "fused_add")
    assert len(kernel.function_type.inputs) == 1
    assert count(kernel_named(graph, "main"), relay.ConstOp) == 0


TUPLES = """
func.func private @fused_pick(%t: tuple<tensor<3x4xf32>, tensor<2x5xf32>>)
    -> (tensor<2x5xf32>, tuple<tensor<3x2xf32>, tensor<3x2xf32>>) attributes {primitive} {
  %a = relay.tuple_get_item %t[0] : (tuple<tensor<3x4xf32>, tensor<2x5xf32>>) -> tensor<3x4xf32>
  %b = relay.tuple_get_item %t[1] : (tuple<tensor<3x4xf32>, tensor<2x5xf32>>) -> tensor<2x5xf32>
  %e = relay.exp %b : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %s = relay.split %a {indices_or_sections = 2 : i64, axis = 1 : i64}
    : (tensor<3x4xf32>) -> tuple<tensor<3x2xf32>, tensor<3x2xf32>>
  func.return %e, %s : tensor<2x5xf32>, tuple<tensor<3x2xf32>, tensor<3x2xf32>>
}
func.func @main(%x: tensor<3x4xf32>, %y: tensor<2x5xf32>)
    -> (tensor<2x5xf32>, tuple<tensor<3x2xf32>, tensor<3x2xf32>>) {
  %t = relay.tuple %x, %y
    : (tensor<3x4xf32>, tensor<2x5xf32>) -> tuple<tensor<3x4xf32>, tensor<2x5xf32>>
  %r:2 = func.call @fused_pick(%t) : (tuple<tensor<3x4xf32>, tensor<2x5xf32>>)
    -> (tensor<2x5xf32>, tuple<tensor<3x2xf32>, tensor<3x2xf32>>)
  func.return %r#0, %r#1 : tensor<2x5xf32>, tuple<tensor<3x2xf32>, tensor<3x2xf32>>
}
"""


def test_tuple_argument_and_results_are_flattened() -> None:
    """The kernel takes the tuple's fields and returns three tensors; @main unpacks the tuple
    argument and rebuilds the tuple result."""
    graph, _ = check_lowering(
        CTX.parse(TUPLES), [random_input((3, 4), F32), random_input((2, 5), F32)]
    )
    kernel = kernel_named(graph, "fused_pick")
    assert [str(t) for t in kernel.function_type.inputs] == ["tensor<3x4xf32>", "tensor<2x5xf32>"]
    assert len(kernel.function_type.outputs) == 3
    main = kernel_named(graph, "main")
    assert count(main, relay.TupleGetItemOp) == 2 and count(main, relay.TupleOp) == 2


MULTI_OUTPUT = """
func.func private @fused_exp_add(%x: tensor<6x5xf32>) -> (tensor<6x5xf32>, tensor<6x5xf32>)
    attributes {primitive} {
  %e = relay.exp %x : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %a = relay.add %e, %x : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
  func.return %e, %a : tensor<6x5xf32>, tensor<6x5xf32>
}
func.func @main(%x: tensor<6x5xf32>) -> (tensor<6x5xf32>, tensor<6x5xf32>, tensor<6x5xf32>) {
  %r:2 = func.call @fused_exp_add(%x) : (tensor<6x5xf32>) -> (tensor<6x5xf32>, tensor<6x5xf32>)
  func.return %r#0, %r#1, %x : tensor<6x5xf32>, tensor<6x5xf32>, tensor<6x5xf32>
}
"""


def test_multi_output_group() -> None:
    """An output read by another output stays a stage of its own (not inlined)."""
    graph, _ = check_lowering(CTX.parse(MULTI_OUTPUT), [random_input((6, 5), F32)])
    kernel = kernel_named(graph, "fused_exp_add")
    assert len(kernel.function_type.outputs) == 2
    assert not [p for p in primitives(kernel) if isinstance(p, te.ComputeInlineOp)]


def test_unfused_main_gets_one_kernel_per_op() -> None:
    module = function([f32(4, 6)], lambda g, x: g(relay.SumOp(g(relay.ExpOp(x)), axis=1)))
    inputs = [random_input((4, 6), F32)]
    expected = evaluate(module, inputs)
    run(module, ConvertRelayToTePass())
    names = [f.sym_name.data for f in module.ops if isinstance(f, func.FuncOp)]
    assert names == ["fused_exp", "fused_sum", "main"]
    kernels = run(
        ModuleOp([f.clone() for f in module.ops if f.sym_name.data != "main"]), ConvertTeToTirPass()
    )  # type: ignore[attr-defined]
    np.testing.assert_allclose(execute(module, kernels, inputs)[0], expected[0], rtol=1e-5)


PARAM_INSIDE = """
func.func private @fused_add(%x: tensor<2x3xf32>) -> tensor<2x3xf32> attributes {primitive} {
  %w = relay.param["w"] : tensor<2x3xf32>
  %y = relay.add %x, %w : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = func.call @fused_add(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
"""


def test_param_inside_a_primitive_function_is_hoisted_to_the_call() -> None:
    module = CTX.parse(PARAM_INSIDE)
    params = {"w": random_input((2, 3), F32)}
    graph, _ = check_lowering(module, [random_input((2, 3), F32)], params)
    assert len(kernel_named(graph, "fused_add").function_type.inputs) == 2
    assert count(kernel_named(graph, "main"), relay.ParamOp) == 1


def test_op_without_strategy_is_a_located_error() -> None:
    text = PARAM_INSIDE.replace(
        "%w = relay.param", "%c = arith.constant 1 : i32\n  %w = relay.param"
    )
    module = CTX.parse(text, "input.mlir")
    with pytest.raises(
        DiagnosticError, match=r"failed to legalize operation 'arith\.constant'"
    ) as info:
        ConvertRelayToTePass().apply(CTX.xdsl_context, module)
    assert info.value.diagnostics[0].location.line == 3  # type: ignore[union-attr]


def test_unsigned_elements_compare_as_unsigned() -> None:
    """200 < 100 is false for uint8 (true if the bits were read as int8: -56 < 100)."""
    module = function([((3,), "uint8"), ((3,), "uint8")], lambda g, x, y: g(relay.LessOp(x, y)))
    x, y = np.array([200, 5, 255], np.uint8), np.array([100, 7, 0], np.uint8)
    check_lowering(module, [x, y])


def test_unknown_target() -> None:
    with pytest.raises(ValueError, match="unknown target 'vulkan'"):
        ConvertRelayToTePass("vulkan")
