"""TVM's relay Python API: building, typing, modules, passes, executors, BYOC, functors."""

from __future__ import annotations

import inspect
from collections.abc import Callable

import numpy as np
import pytest

import xtvm as tvm
from xtvm import relay
from xtvm.api.relay.convert import ConversionError
from xtvm.api.relay.expr import post_order
from xtvm.api.relay.op_table import operator_table
from xtvm.dialects import relay as dialect
from xtvm.passes import byoc_targets

RNG = np.random.default_rng(0)


def rand(*shape: int, dtype: str = "float32") -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def run(fn: relay.Function | tvm.IRModule, *args: np.ndarray, **kwargs: np.ndarray) -> object:
    mod = fn if isinstance(fn, tvm.IRModule) else tvm.IRModule.from_expr(fn)
    return relay.create_executor("graph", mod=mod).evaluate()(*args, **kwargs)


# ---------------------------------------------------------------------------------------------
# Operators: each builds a typed call that evaluates like numpy


def test_every_relay_op_has_a_python_builder():
    table = operator_table()
    missing = [op.name for op in dialect.OPS if op.name.removeprefix("relay.") not in table]
    assert not missing


def test_derived_builders_take_the_signature_of_their_op():
    assert str(inspect.signature(relay.add)) == "(lhs: 'Expr', rhs: 'Expr') -> 'Call'"
    assert str(inspect.signature(relay.nn.softmax)) == "(data: 'Expr', axis: 'int' = -1) -> 'Call'"
    x = relay.var("x", shape=(2, 5))
    call = relay.nn.softmax(x, axis=0)
    assert call.op.name == "nn.softmax" and call.attrs.axis == 0
    with pytest.raises(TypeError, match="rhs"):
        relay.add(x)


def conv_ref(x: np.ndarray, w: np.ndarray, pad: int) -> np.ndarray:
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, _, h, wd = xp.shape
    o, _, kh, kw = w.shape
    out = np.zeros((n, o, h - kh + 1, wd - kw + 1), np.float32)
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, i : i + out.shape[2], j : j + out.shape[3]]
            out += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j])
    return out


CASES: list[tuple[str, list[tuple[int, ...]], Callable[..., relay.Expr], Callable[..., object]]] = [
    ("add", [(2, 3), (3,)], relay.add, np.add),
    ("subtract", [(2, 3), (2, 3)], relay.subtract, np.subtract),
    ("multiply", [(2, 3), (1, 3)], relay.multiply, np.multiply),
    ("divide", [(2, 3), (2, 3)], relay.divide, np.divide),
    ("maximum", [(4,), (4,)], relay.maximum, np.maximum),
    ("minimum", [(4,), (4,)], relay.minimum, np.minimum),
    ("negative", [(5,)], relay.negative, np.negative),
    ("abs", [(5,)], relay.abs, np.abs),
    ("exp", [(5,)], relay.exp, np.exp),
    ("tanh", [(5,)], relay.tanh, np.tanh),
    ("sigmoid", [(5,)], relay.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    ("clip", [(6,)], lambda x: relay.clip(x, -0.5, 0.5), lambda x: np.clip(x, -0.5, 0.5)),
    ("relu", [(2, 4)], relay.nn.relu, lambda x: np.maximum(x, 0)),
    (
        "leaky_relu",
        [(6,)],
        lambda x: relay.nn.leaky_relu(x, 0.1),
        lambda x: np.where(x > 0, x, 0.1 * x),
    ),
    (
        "softmax",
        [(2, 5)],
        lambda x: relay.nn.softmax(x, axis=1),
        lambda x: np.exp(x) / np.exp(x).sum(1, keepdims=True),
    ),
    ("dense", [(2, 3), (4, 3)], relay.nn.dense, lambda x, w: x @ w.T),
    (
        "batch_matmul",
        [(2, 3, 4), (2, 5, 4)],
        relay.nn.batch_matmul,
        lambda a, b: a @ b.transpose(0, 2, 1),
    ),
    ("bias_add", [(2, 3, 4), (3,)], relay.nn.bias_add, lambda x, b: x + b[:, None]),
    (
        "conv2d",
        [(1, 3, 6, 6), (4, 3, 3, 3)],
        lambda x, w: relay.nn.conv2d(x, w, padding=1, channels=4, kernel_size=3),
        lambda x, w: conv_ref(x, w, 1),
    ),
    (
        "max_pool2d",
        [(1, 2, 4, 4)],
        lambda x: relay.nn.max_pool2d(x, pool_size=2, strides=2),
        lambda x: x.reshape(1, 2, 2, 2, 2, 2).max(axis=(3, 5)),
    ),
    (
        "avg_pool2d",
        [(1, 2, 4, 4)],
        lambda x: relay.nn.avg_pool2d(x, pool_size=(2, 2), strides=(2, 2)),
        lambda x: x.reshape(1, 2, 2, 2, 2, 2).mean(axis=(3, 5)),
    ),
    (
        "global_avg_pool2d",
        [(1, 3, 4, 4)],
        relay.nn.global_avg_pool2d,
        lambda x: x.mean((2, 3), keepdims=True),
    ),
    ("batch_flatten", [(2, 3, 4)], relay.nn.batch_flatten, lambda x: x.reshape(2, 12)),
    (
        "pad",
        [(2, 3)],
        lambda x: relay.nn.pad(x, ((1, 0), (0, 2))),
        lambda x: np.pad(x, ((1, 0), (0, 2))),
    ),
    ("sum", [(2, 3, 4)], lambda x: relay.sum(x, axis=1), lambda x: x.sum(1)),
    (
        "mean_exclude",
        [(2, 3, 4)],
        lambda x: relay.mean(x, axis=1, exclude=True, keepdims=True),
        lambda x: x.mean((0, 2), keepdims=True),
    ),
    ("max", [(2, 3)], lambda x: relay.max(x, axis=[0, 1]), lambda x: np.asarray(x.max())),
    ("argmax", [(2, 5)], lambda x: relay.argmax(x, axis=1), lambda x: x.argmax(1).astype(np.int32)),
    ("reshape", [(2, 3, 4)], lambda x: relay.reshape(x, (0, -1)), lambda x: x.reshape(2, 12)),
    (
        "transpose",
        [(2, 3, 4)],
        lambda x: relay.transpose(x, (2, 0, 1)),
        lambda x: x.transpose(2, 0, 1),
    ),
    (
        "concatenate",
        [(2, 3), (2, 1)],
        lambda a, b: relay.concatenate([a, b], axis=1),
        lambda a, b: np.concatenate([a, b], 1),
    ),
    ("split", [(2, 6)], lambda x: relay.split(x, 3, axis=1)[1], lambda x: x[:, 2:4]),
    ("squeeze", [(2, 1, 3)], lambda x: relay.squeeze(x, axis=[1]), lambda x: x[:, 0]),
    ("expand_dims", [(2, 3)], lambda x: relay.expand_dims(x, 1, 2), lambda x: x[:, None, None]),
    (
        "strided_slice",
        [(6, 4)],
        lambda x: relay.strided_slice(x, [1, 0], [5, 4], [2, 1]),
        lambda x: x[1:5:2],
    ),
    (
        "broadcast_to",
        [(1, 3)],
        lambda x: relay.broadcast_to(x, (4, 3)),
        lambda x: np.broadcast_to(x, (4, 3)),
    ),
    ("tile", [(2, 3)], lambda x: relay.tile(x, (2, 1)), lambda x: np.tile(x, (2, 1))),
    ("where", [(4,), (4,)], lambda a, b: relay.where(relay.greater(a, b), a, b), np.maximum),
    ("cast", [(4,)], lambda x: relay.cast(x, "float64"), lambda x: x.astype(np.float64)),
    (
        "operators",
        [(3,), (3,)],
        lambda a, b: (a + b) * a - b / 2.0 + -a,
        lambda a, b: (a + b) * a - b / 2 - a,
    ),
]


@pytest.mark.parametrize("name, shapes, build, reference", CASES, ids=[c[0] for c in CASES])
def test_operator_evaluates_like_numpy(
    name: str,
    shapes: list[tuple[int, ...]],
    build: Callable[..., relay.Expr],
    reference: Callable[..., object],
) -> None:
    args = [relay.var(f"a{i}", shape=s) for i, s in enumerate(shapes)]
    body = build(*args)
    inputs = [rand(*s) for s in shapes]
    if name == "divide":
        inputs[1] = np.abs(inputs[1]) + 0.5
    expected = np.asarray(reference(*inputs))
    assert body.checked_type == relay.TensorType(expected.shape, str(expected.dtype))
    got = run(relay.Function(args, body), *inputs)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5, atol=1e-6)


def test_batch_norm_tuple_and_tvm_attrs() -> None:
    x = relay.var("x", shape=(1, 2, 3, 3))
    g, b, m, v = (relay.const(a) for a in (np.array([1.0, 2.0], "float32"),) * 4)
    bn = relay.nn.batch_norm(x, g, b, m, v, epsilon=1e-3)
    assert isinstance(bn.checked_type, relay.TupleType) and len(bn) == 3
    assert bn.attrs.epsilon == pytest.approx(1e-3) and bn.attrs["axis"] == 1
    conv = relay.nn.conv2d(x, relay.var("w", shape=(4, 2, 3, 3)), strides=(1, 1), padding=(1, 2))
    assert conv.attrs.padding == (1, 2, 1, 2) and conv.attrs.data_layout == "NCHW"
    with pytest.raises(AttributeError, match="no attribute 'channels'"):
        _ = conv.attrs.channels
    data = rand(1, 2, 3, 3)
    out = run(relay.Function([x], bn[0]), data)
    scale = np.array([1.0, 2.0])[:, None, None]
    expected = (data - scale) / np.sqrt(scale + 1e-3) * scale + scale
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5)


# ---------------------------------------------------------------------------------------------
# Type errors


def test_ill_typed_call_is_a_relay_type_error_naming_the_op() -> None:
    a, b = relay.var("a", shape=(2, 3)), relay.var("b", shape=(4,))
    # As in TVM, an ill-typed call is built; type inference (InferType) reports it.
    call = relay.add(a, b)
    with pytest.raises(relay.RelayTypeError, match=r"'relay.add' op .*2x3.*4"):
        call.checked_type  # noqa: B018
    with pytest.raises(tvm.error.TVMError, match=r"'relay.add' op .*2x3.*4"):
        tvm.relay.transform.InferType()(tvm.IRModule.from_expr(relay.Function([a, b], call)))
    with pytest.raises(tvm.error.TVMError, match=r"'relay.add' op .*2x3.*4"):
        relay.build(relay.Function([a, b], call), target="llvm")
    with pytest.raises(relay.RelayTypeError, match="has no type"):
        relay.nn.relu(relay.var("untyped")).checked_type  # noqa: B018
    with pytest.raises(ValueError, match="padding must have 1, 2 or 4 values"):
        relay.nn.conv2d(
            relay.var("x", shape=(1, 1, 4, 4)),
            relay.var("w", shape=(1, 1, 3, 3)),
            padding=(1, 1, 1),
        )
    conv = relay.nn.conv2d(
        relay.var("x", shape=(1, 1, 4, 4)), relay.var("w", shape=(2, 1, 3, 3)), channels=8
    )
    with pytest.raises(tvm.error.TVMError, match="channels=8"):
        conv.checked_type  # noqa: B018


def test_free_variable_and_function_value_are_conversion_errors() -> None:
    x, y = relay.var("x", shape=(2,)), relay.var("y", shape=(2,))
    with pytest.raises(ConversionError, match="free variable %y"):
        tvm.IRModule.from_expr(relay.Function([x], relay.add(x, y)))


# ---------------------------------------------------------------------------------------------
# Modules


def test_module_round_trip_is_structurally_equal_and_prints_ir() -> None:
    x = relay.var("x", shape=(1, 3, 4, 4))
    w = relay.var("w", shape=(2, 3, 1, 1))
    y = relay.nn.relu(relay.nn.conv2d(x, w))
    fn = relay.Function([x, w], relay.Tuple([y, relay.sum(y, axis=1)]))
    mod = tvm.IRModule()
    mod["main"] = fn
    text = str(mod)
    assert "relay.nn.conv2d %x, %w" in text
    assert "-> (tensor<1x2x4x4xf32>, tensor<1x4x4xf32>)" in text  # a tuple body returns two values
    back = mod["main"]
    assert isinstance(back.body, relay.Tuple)
    assert tvm.ir.structural_equal(fn, back)
    again = tvm.IRModule({"main": back})
    assert str(again) == text
    assert tvm.ir.structural_equal(mod, again)
    out = run(mod, rand(1, 3, 4, 4), rand(2, 3, 1, 1))
    assert isinstance(out, tuple) and out[1].shape == (1, 4, 4)


def test_global_functions_call_each_other() -> None:
    mod = tvm.IRModule()
    a = relay.var("a", shape=(3,))
    mod["double"] = relay.Function([a], relay.add(a, a))
    double = mod.get_global_var("double")
    x = relay.var("x", shape=(3,))
    mod["main"] = relay.Function([x], relay.exp(relay.Call(double, [x])))
    assert "func.call @double(%x)" in str(mod)
    data = rand(3)
    np.testing.assert_allclose(run(mod, data).numpy(), np.exp(2 * data), rtol=1e-6)
    call = mod["main"].body.args[0]
    assert isinstance(call.op, relay.GlobalVar) and call.op.name_hint == "double"
    with pytest.raises(ValueError, match='cannot find global var "nope"'):
        mod.get_global_var("nope")


def test_calling_a_function_value_outlines_it() -> None:
    p = relay.var("p", shape=(2,))
    inner = relay.Function([p], relay.multiply(p, p)).with_attr("Primitive", 1)
    x = relay.var("x", shape=(2,))
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.Call(inner, [x])))
    # Outlined in the IR, the primitive function reads back as a literal, as TVM keeps it.
    assert [gv.name_hint for gv in mod.get_global_vars()] == ["main"]
    callee = mod["main"].body.op
    assert isinstance(callee, relay.Function) and callee.attrs["Primitive"] == 1
    assert tvm.ir.structural_equal(callee, inner)
    np.testing.assert_allclose(run(mod, np.array([2.0, 3.0], "float32")).numpy(), [4.0, 9.0])


def test_let_binds_a_value() -> None:
    x = relay.var("x", shape=(2,))
    t = relay.var("t", shape=(2,))
    fn = relay.Function([x], relay.Let(t, relay.add(x, x), relay.multiply(t, t)))
    assert fn.checked_type.ret_type == relay.TensorType((2,))
    np.testing.assert_allclose(run(fn, np.array([1.0, 2.0], "float32")).numpy(), [4.0, 16.0])


def test_param_refs_take_values_from_params() -> None:
    x = relay.var("x", shape=(2, 3))
    w = relay.param("fc.weight", shape=(4, 3))
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.nn.dense(x, w)))
    assert 'relay.param["fc.weight"]' in str(mod)
    data, weight = rand(2, 3), rand(4, 3)
    exe = relay.create_executor("vm", mod=mod, params={"fc.weight": weight})
    np.testing.assert_allclose(exe.evaluate()(data).numpy(), data @ weight.T, rtol=1e-5)
    by_name = relay.create_executor(mod=mod).evaluate()(x=data, **{"fc.weight": weight})
    np.testing.assert_allclose(by_name.numpy(), data @ weight.T, rtol=1e-5)


# ---------------------------------------------------------------------------------------------
# Passes


def conv_bn_relu() -> tuple[relay.Function, np.ndarray]:
    x = relay.var("x", shape=(1, 3, 6, 6))
    w = relay.const(rand(4, 3, 3, 3))
    stats = [relay.const(np.abs(rand(4)) + 0.5) for _ in range(4)]
    y = relay.nn.batch_norm(relay.nn.conv2d(x, w, padding=1), *stats)[0]
    y = relay.nn.dropout(relay.nn.relu(y))
    return relay.Function([x], y), rand(1, 3, 6, 6)


def test_pass_pipeline_preserves_results_and_input() -> None:
    fn, data = conv_bn_relu()
    mod = tvm.IRModule.from_expr(fn)
    before = str(mod)
    seq = tvm.transform.Sequential(
        [
            relay.transform.InferType(),
            relay.transform.SimplifyInference(),
            relay.transform.FoldConstant(),
            relay.transform.FoldScaleAxis(),
            relay.transform.FuseOps(fuse_opt_level=2),
        ]
    )
    with tvm.transform.PassContext(opt_level=3):
        opt = seq(mod)
    assert str(mod) == before  # passes return a new module
    assert "relay.nn.batch_norm" not in str(opt)
    # Fused functions are outlined in the IR; TVM keeps them as literals, not module globals.
    assert [gv.name_hint for gv in opt.get_global_vars()] == ["main"]
    fused = [f.sym_name.data for f in opt.xdsl.ops if f.sym_name.data != "main"]
    assert fused == ["fused_nn_conv2d_add_nn_relu"]
    np.testing.assert_allclose(run(opt, data).numpy(), run(mod, data).numpy(), rtol=1e-4, atol=1e-5)


def test_pass_context_opt_level_and_disabled_passes() -> None:
    fn, _ = conv_bn_relu()
    mod = tvm.IRModule.from_expr(fn)
    seq = tvm.transform.Sequential(
        [relay.transform.SimplifyInference(), relay.transform.EliminateCommonSubexpr()]
    )
    ran: list[str] = []

    @tvm.transform.module_pass(opt_level=3, name="Spy")
    def spy(m: tvm.IRModule, ctx: tvm.transform.PassContext) -> tvm.IRModule:
        ran.append(ctx.opt_level)
        return m

    with tvm.transform.PassContext(opt_level=2):
        tvm.transform.Sequential([spy])(mod)
    assert ran == []
    with tvm.transform.PassContext(opt_level=2, required_pass=["Spy"]):
        tvm.transform.Sequential([spy])(mod)
    assert ran == [2]
    with tvm.transform.PassContext(opt_level=3, disabled_pass=["SimplifyInference"]):
        assert "relay.nn.batch_norm" in str(seq(mod))
    assert "relay.nn.batch_norm" not in str(seq(mod))  # default level 2 still simplifies


def test_fuse_ops_level_zero_fuses_nothing() -> None:
    x = relay.var("x", shape=(4,))
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.exp(relay.add(x, x))))
    fused = relay.transform.FuseOps(fuse_opt_level=0)(mod)
    assert [gv.name_hint for gv in fused.get_global_vars()] == ["main"]  # literals, as TVM's
    names = sorted(f.sym_name.data for f in fused.xdsl.ops)
    assert names == ["fused_add", "fused_exp", "main"]


def test_function_pass_rewrites_with_an_expr_mutator() -> None:
    class AddToSubtract(relay.ExprMutator):
        def visit_call(self, call: relay.Call) -> relay.Expr:
            new = super().visit_call(call)
            if isinstance(new.op, tvm.relay.op.Op) and new.op.name == "add":
                return relay.subtract(*new.args)
            return new

    @relay.transform.function_pass(opt_level=1)
    class Rewrite:
        def transform_function(
            self, func: relay.Function, mod: tvm.IRModule, ctx: object
        ) -> relay.Function:
            return AddToSubtract().visit(func)

    x, y = relay.var("x", shape=(3,)), relay.var("y", shape=(3,))
    shared = relay.add(x, y)
    mod = tvm.IRModule.from_expr(relay.Function([x, y], relay.multiply(shared, shared)))
    out = Rewrite()(mod)
    text = str(out)
    assert text.count("relay.subtract") == 1 and "relay.add" not in text  # the DAG stays a DAG
    a, b = rand(3), rand(3)
    np.testing.assert_allclose(run(out, a, b).numpy(), (a - b) ** 2, rtol=1e-5)


def test_expr_visitor_counts_each_shared_node_once() -> None:
    class CountCalls(relay.ExprVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.names: list[str] = []

        def visit_call(self, call: relay.Call) -> None:
            self.names.append(call.op.name)
            super().visit_call(call)

    x = relay.var("x", shape=(2,))
    e = relay.exp(x)
    CountCalls_ = CountCalls()
    CountCalls_.visit(relay.Function([x], relay.add(e, e)))
    assert sorted(CountCalls_.names) == ["add", "exp"]


def test_deep_graph_converts_and_visits_without_recursion_errors() -> None:
    x = relay.var("x", shape=(2,))
    y = x
    for _ in range(3000):
        y = relay.nn.relu(y)
    fn = relay.Function([x], y)
    mod = tvm.IRModule.from_expr(fn)
    assert tvm.ir.structural_equal(mod["main"], fn)
    assert relay.ExprMutator().visit(fn) is fn


# ---------------------------------------------------------------------------------------------
# Structural equality


def test_structural_equal_maps_bound_variables_and_compares_attrs_and_values() -> None:
    def build(name: str, pad: int, value: float) -> relay.Function:
        x = relay.var(name, shape=(1, 1, 4, 4))
        w = relay.const(np.full((1, 1, 3, 3), value, "float32"))
        return relay.Function([x], relay.nn.conv2d(x, w, padding=pad))

    assert tvm.ir.structural_equal(build("x", 1, 1.0), build("renamed", 1, 1.0))
    assert not tvm.ir.structural_equal(build("x", 1, 1.0), build("x", 0, 1.0))
    assert not tvm.ir.structural_equal(build("x", 1, 1.0), build("x", 1, 2.0))
    a, b = relay.var("a", shape=(2,)), relay.var("b", shape=(2,))
    assert not tvm.ir.structural_equal(relay.add(a, a), relay.add(b, b))
    assert tvm.ir.structural_equal(relay.add(a, a), relay.add(b, b), map_free_vars=True)
    assert not tvm.ir.structural_equal(relay.add(a, a), relay.add(a, b), map_free_vars=True)
    with pytest.raises(ValueError, match="structural equality failed"):
        tvm.ir.assert_structural_equal(build("x", 1, 1.0), build("x", 0, 1.0))


# ---------------------------------------------------------------------------------------------
# Bring your own codegen, the way TVM's tests drive it


@pytest.fixture
def byoc_target() -> object:
    @tvm.ir.register_op_attr("nn.conv2d", "target.test_api")
    def conv2d_1x1_only(expr: object) -> bool:
        return expr.attrs.kernel_layout == "OIHW" and expr.args[1].checked_type.shape[2:] == (1, 1)

    for name in ("add", "nn.relu"):
        tvm.ir.register_op_attr(name, "target.test_api", True)
    yield "test_api"
    byoc_targets.unregister_target("test_api")


def test_annotate_merge_partition_with_a_predicate(byoc_target: str) -> None:
    x = relay.var("x", shape=(1, 2, 4, 4))
    w1, w3 = relay.var("w1", shape=(2, 2, 1, 1)), relay.var("w3", shape=(2, 2, 3, 3))
    a = relay.nn.relu(relay.add(relay.nn.conv2d(x, w1), x))  # conv 1x1 accepted: one region
    b = relay.nn.conv2d(a, w3, padding=1)  # 3x3 rejected by the predicate: stays on the host
    fn = relay.Function([x, w1, w3], relay.add(b, a))
    mod = tvm.IRModule.from_expr(fn)
    annotated = relay.transform.AnnotateTarget([byoc_target])(mod)
    body = annotated["main"].body
    assert body.op.name == "annotation.compiler_end" and body.attrs.compiler == byoc_target
    seq = tvm.transform.Sequential(
        [
            relay.transform.AnnotateTarget(byoc_target),
            relay.transform.MergeCompilerRegions(),
            relay.transform.PartitionGraph(),
        ]
    )
    part = seq(mod)
    names = [gv.name_hint for gv in part.get_global_vars()]
    assert names == ["main", "tvmgen_default_test_api_main_0", "tvmgen_default_test_api_main_1"]
    region = part["tvmgen_default_test_api_main_0"]
    assert region.attrs["Compiler"] == byoc_target
    assert region.attrs["global_symbol"] == "tvmgen_default_test_api_main_0"
    host_ops = [
        n.op.name if isinstance(n.op, relay.op.Op) else n.op.name_hint
        for n in post_order(part["main"])
        if isinstance(n, relay.Call)
    ]
    assert host_ops == [
        "tvmgen_default_test_api_main_0",
        "nn.conv2d",
        "tvmgen_default_test_api_main_1",
    ]
    inputs = (rand(1, 2, 4, 4), rand(2, 2, 1, 1), rand(2, 2, 3, 3))
    np.testing.assert_allclose(run(part, *inputs).numpy(), run(mod, *inputs).numpy(), rtol=1e-5)


def test_hand_annotated_regions_partition(byoc_target: str) -> None:
    from xtvm.api.relay.op.annotation import compiler_begin, compiler_end

    a, b = relay.var("a", shape=(3,)), relay.var("b", shape=(3,))
    t = byoc_target
    add = compiler_end(relay.add(compiler_begin(a, t), compiler_begin(b, t)), t)
    relu = compiler_end(relay.nn.relu(compiler_begin(add, t)), t)
    fn = relay.Function([a, b], relay.exp(relu))
    mod = tvm.IRModule.from_expr(fn)
    assert str(mod).count(f'compiler = "{t}"') == 2
    part = relay.transform.PartitionGraph()(relay.transform.MergeCompilerRegions()(mod))
    region = part["tvmgen_default_test_api_main_0"]
    assert [n.op.name for n in [region.body, region.body.args[0]]] == ["nn.relu", "add"]
    x, y = rand(3), rand(3)
    np.testing.assert_allclose(run(part, x, y).numpy(), np.exp(np.maximum(x + y, 0)), rtol=1e-6)


# ---------------------------------------------------------------------------------------------
# Package surface


def test_tvm_names_resolve() -> None:
    import xtvm.relay
    from xtvm.relay import transform

    assert xtvm.relay is relay and transform is relay.transform
    assert tvm.relay.nn.conv2d is relay.op.nn.conv2d
    arr = tvm.nd.array(np.arange(4, dtype="float32"), tvm.cpu(0))
    assert arr.shape == (4,) and arr.dtype == "float32" and tvm.cpu(0).exist
    np.testing.assert_array_equal(arr.numpy(), np.arange(4))
    assert relay.op.get("nn.conv2d").name == "nn.conv2d"
    with pytest.raises(ValueError, match=r"unknown relay operator 'nn\.conv4d'"):
        relay.op.get("nn.conv4d")
    with pytest.raises(AttributeError):
        _ = tvm.not_a_name


def test_create_executor_params_bind_main_arguments() -> None:
    """As TVM binds them: params naming @main's arguments leave only the others to pass."""
    x = relay.var("x", shape=(2, 3))
    w = relay.var("w", shape=(4, 3))
    mod = tvm.IRModule.from_expr(relay.Function([x, w], relay.nn.dense(x, w)))
    data, weight = rand(2, 3), rand(4, 3)
    exe = relay.create_executor("graph", mod=mod, params={"w": weight})
    np.testing.assert_allclose(exe.evaluate()(data).numpy(), data @ weight.T, rtol=1e-5)
    np.testing.assert_allclose(exe.evaluate()(x=data).numpy(), data @ weight.T, rtol=1e-5)
    with pytest.raises(TypeError, match=r"@main takes 1 arguments \(w bound by params\), got 2"):
        exe.evaluate()(data, weight)
    unknown = relay.create_executor("graph", mod=mod, params={"bias": weight})
    with pytest.raises(ValueError, match="params name no argument or weight of @main: 'bias'"):
        unknown.evaluate()


def test_a_let_bound_function_that_calls_itself_is_typed_and_runs() -> None:
    """TVM's while loop: `let %loop = fn (i, s) { if (i < 10) { %loop(i + 1, s + x) } else
    { s } }; %loop(0, zeros_like(x))`, whose variable is used inside its own value."""
    x = relay.var("x", shape=(2,))
    i = relay.var("i", shape=(), dtype="int32")
    s = relay.var("s", shape=(2,))
    loop = relay.var("while_loop")
    step = loop(i + relay.const(1, "int32"), s + x)
    body = relay.Function([i, s], relay.If(relay.less(i, relay.const(10, "int32")), step, s))
    mod = tvm.IRModule.from_expr(
        relay.Function(
            [x], relay.Let(loop, body, loop(relay.const(0, "int32"), relay.zeros_like(x)))
        )
    )
    assert (
        str(loop.checked_type)
        == "fn (Tensor[(), int32], Tensor[(2), float32]) -> Tensor[(2), float32]"
    )
    value = np.array([1.5, -2.0], "float32")
    got = relay.create_executor(mod=mod).evaluate()(value).numpy()
    np.testing.assert_allclose(got, 10 * value)


def test_matmul_transposes_the_last_two_axes_of_nd_data() -> None:
    """TVM's nn.matmul with transpose_a on N-d data reduces over its axis -2; an untyped
    tensor_b gets its shape from units."""
    a = relay.var("a", shape=(2, 3, 5, 4))
    b = relay.var("b", shape=(6, 5))
    y = relay.nn.matmul(a, b, transpose_a=True, transpose_b=True)
    assert y.checked_type == relay.TensorType((2, 3, 4, 6), "float32")
    untyped = relay.var("u")
    z = relay.nn.matmul(a, untyped, units=6, transpose_a=True)
    assert z.checked_type == relay.TensorType((2, 3, 4, 6), "float32")
    assert untyped.checked_type == relay.TensorType((5, 6), "float32")
    data = np.random.rand(2, 3, 5, 4).astype("float32")
    weight = np.random.rand(6, 5).astype("float32")
    want = np.swapaxes(data, -1, -2) @ weight.T
    fn = relay.Function([a, b], y)
    for kind in ("graph", "debug"):
        got = relay.create_executor(kind, target="llvm").evaluate(fn)(data, weight).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5)


def test_conv2d_transpose_in_any_layout_and_output_padding() -> None:
    """TVM's conv2d_transpose in NHWC data with an HWOI kernel is its call (computed in NCHW
    with IOHW); output_padding may reach the stride, as TVM allows."""
    from xtvm.topi.testing import conv2d_transpose_nhwc_python

    x = relay.var("x", shape=(1, 6, 5, 4))
    w = relay.var("w", shape=(3, 3, 2, 4))
    y = relay.nn.conv2d_transpose(
        x, w, strides=2, padding=1, output_padding=2, data_layout="NHWC", kernel_layout="HWOI"
    )
    assert y.op.name == "nn.conv2d_transpose" and y.args[0] is x and y.args[1] is w
    assert 'data_layout="NHWC", kernel_layout="HWOI"' in y.astext()
    assert y.checked_type == relay.TensorType((1, 13, 11, 2), "float32")  # (6-1)*2-2+3+2
    data = np.random.rand(1, 6, 5, 4).astype("float32")
    weight = np.random.rand(3, 3, 2, 4).astype("float32")
    want = conv2d_transpose_nhwc_python(data, weight, "HWOI", 2, 1, output_padding=2)
    fn = relay.Function([x, w], y)
    for kind in ("graph", "debug"):
        got = relay.create_executor(kind, target="llvm").evaluate(fn)(data, weight).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5)
    with pytest.raises(ValueError, match="kernel_layout must order I, O, H, W"):
        relay.nn.conv2d_transpose(x, w, data_layout="NHWC", kernel_layout="HWIX")
