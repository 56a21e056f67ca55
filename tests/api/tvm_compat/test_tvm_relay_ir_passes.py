"""TVM 0.13's relay IR, pass and graph-executor tests (test_ir_nodes.py, test_type_infer.py,
test_pass_fold_constant.py, test_pass_annotate_target.py, test_pass_partition_graph.py,
test_backend_graph_executor.py), adapted to run with `import xtvm as tvm` on the CPU.

Differences: an `If` is a select of both branches (relay is pure), so a recursion it would end
does not end; there is no Relay VM.
"""

from __future__ import annotations

import numpy as np
import pytest
from xtvm.relay.testing import run_infer_type

import xtvm as tvm
from xtvm import relay
from xtvm.contrib import graph_executor
from xtvm.passes import byoc_targets


def evaluate(func: relay.Function, *args: np.ndarray) -> object:
    return relay.create_executor("graph", mod=tvm.IRModule.from_expr(func)).evaluate()(*args)


def test_untyped_operands_are_inferred() -> None:
    data = relay.var("data", relay.TensorType((1, 3, 224, 224), "float32"))
    weight, gamma, beta = relay.var("weight"), relay.var("bn_gamma"), relay.var("bn_beta")
    mean, var = relay.var("bn_mean"), relay.var("bn_var")
    conv = relay.nn.conv2d(data, weight, kernel_size=(3, 3), channels=16, padding=(1, 1))
    bn = relay.nn.batch_norm(conv, gamma, beta, mean, var)
    yy = run_infer_type(bn[0])
    assert yy.checked_type == relay.TensorType((1, 16, 224, 224), "float32")
    assert weight.checked_type == relay.TensorType((16, 3, 3, 3), "float32")
    assert gamma.checked_type == relay.TensorType((16,), "float32")
    mod = relay.transform.InferType()(tvm.IRModule.from_expr(bn[0]))
    assert [p.checked_type for p in mod["main"].params][1] == weight.checked_type
    d = relay.var("d", shape=(2, 5))
    w = relay.var("w")
    assert relay.nn.dense(d, w, units=4).checked_type == relay.TensorType((2, 4))


def test_let_and_scope_builder() -> None:
    x = relay.var("x", shape=(3,))
    sb = relay.ScopeBuilder()
    y = sb.let("y", x + x)
    z = sb.let("z", y * relay.const(2.0))
    sb.ret(z - x)
    f = relay.Function([x], sb.get())
    assert isinstance(f.body, relay.Let) and f.checked_type.ret_type == relay.TensorType((3,))
    np.testing.assert_allclose(evaluate(f, np.ones(3, "float32")).numpy(), [3, 3, 3])


def test_if() -> None:
    cond = relay.var("cond", shape=(), dtype="bool")
    x = relay.var("x", shape=(2,))
    sb = relay.ScopeBuilder()
    with sb.if_scope(cond):
        sb.ret(x + x)
    with sb.else_scope():
        sb.ret(-x)
    f = relay.Function([cond, x], sb.get())
    data = np.array([1.0, 2.0], "float32")
    np.testing.assert_array_equal(evaluate(f, np.array(True), data).numpy(), [2, 4])
    np.testing.assert_array_equal(evaluate(f, np.array(False), data).numpy(), [-1, -2])
    direct = relay.If(cond, relay.Tuple([x, x]), relay.Tuple([-x, x]))
    assert run_infer_type(direct).checked_type == relay.TupleType([x.checked_type] * 2)
    with pytest.raises(relay.RelayTypeError, match="bool scalar"):
        run_infer_type(relay.If(x, x, x))


def test_function_call_and_global_functions() -> None:
    x = relay.var("x", shape=(2,))
    double = relay.Function([x], x + x)
    y = relay.var("y", shape=(2,))
    caller = relay.Function([y], double(y) * relay.const(3.0))
    np.testing.assert_array_equal(
        evaluate(caller, np.array([1.0, 2.0], "float32")).numpy(), [6, 12]
    )
    mod = tvm.IRModule()
    gv = relay.GlobalVar("double")
    mod[gv] = double
    mod["main"] = relay.Function([y], relay.Call(gv, [y]) + y)
    out = relay.create_executor("graph", mod=mod).evaluate()(np.array([1.0, 2.0], "float32"))
    np.testing.assert_array_equal(out.numpy(), [3, 6])


def test_func_type() -> None:
    t = relay.TensorType((1, 2), "float32")
    ft = relay.FuncType([t], t, [], [])
    assert ft.arg_types == (t,) and ft.ret_type == t
    a = relay.TypeVar("a")
    b = relay.TypeVar("b")
    assert relay.FuncType([a], a, [a]) == relay.FuncType([b], b, [b])  # alpha-equivalent
    assert relay.FuncType([a], a, [a]) != relay.FuncType([t], t)
    with pytest.raises(TypeError, match=r"not a relay\.TypeVar"):
        relay.FuncType([t], t, ["a"], [])


def test_bind_params_by_name() -> None:
    x, y = relay.var("x", shape=(2,)), relay.var("y", shape=(2,))
    f = relay.Function([x, y], x + y)
    fb = relay.build_module.bind_params_by_name(f, {"y": np.array([1.0, 2.0], "float32")})
    assert [p.name_hint for p in fb.params] == ["x"]
    np.testing.assert_array_equal(evaluate(fb, np.array([1.0, 1.0], "float32")).numpy(), [2, 3])


def test_fold_dropout() -> None:
    data = relay.const(np.arange(10).astype(np.float32))
    add = relay.nn.dropout(data) + relay.const(1.0)
    mod = tvm.IRModule.from_expr(relay.Function([], add))
    with tvm.transform.PassContext(opt_level=3):
        folded = relay.transform.FoldConstant()(mod)
    assert "nn.dropout(" in folded.astext()
    np.testing.assert_array_equal(
        relay.create_executor("graph", mod=folded).evaluate()().numpy(), np.arange(10) + 1
    )


@pytest.fixture
def test_target() -> object:
    for name in ("add", "nn.relu"):
        tvm.ir.register_op_attr(name, "target.compat_test", True)
    yield "compat_test"
    byoc_targets.unregister_target("compat_test")


def test_annotate_target_without_predicates() -> None:
    x = relay.var("x", shape=(3,))
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.nn.relu(x + x)))
    annotated = relay.transform.AnnotateTarget("no_such_codegen")(mod)
    assert "no_such_codegen" not in annotated.astext()


def test_annotate_target_twice_keeps_annotations(test_target: str) -> None:
    x = relay.var("x", shape=(3,))
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.exp(relay.nn.relu(x + x))))
    first = relay.transform.AnnotateTarget(test_target)(mod)
    second = relay.transform.AnnotateTarget("no_such_codegen")(first)
    ends = [line for line in second.astext().splitlines() if "compiler_end(" in line]
    assert sum(f'compiler="{test_target}"' in line for line in ends) == 2


def test_partition_without_merge(test_target: str) -> None:
    x = relay.var("x", shape=(3,))
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.exp(relay.nn.relu(x + x))))
    part = relay.transform.PartitionGraph()(relay.transform.AnnotateTarget(test_target)(mod))
    names = sorted(gv.name_hint for gv in part.get_global_vars())
    assert names == [
        "main",
        f"tvmgen_default_{test_target}_main_0",
        f"tvmgen_default_{test_target}_main_1",
    ]
    data = np.array([-1.0, 0.5, 2.0], "float32")
    got = relay.create_executor("graph", mod=part).evaluate()(data).numpy()
    np.testing.assert_allclose(got, np.exp(np.maximum(data + data, 0)), rtol=1e-6)


def test_graph_executor_inputs_and_timing() -> None:
    x, w = relay.var("x", shape=(2, 3)), relay.var("w", shape=(4, 3))
    mod = tvm.IRModule.from_expr(relay.Function([x, w], relay.nn.dense(x, w)))
    with tvm.transform.PassContext(opt_level=3):
        lib = relay.build(mod, target="llvm", params={"w": np.ones((4, 3), "float32")})
    dev = tvm.cpu(0)
    m = graph_executor.GraphModule(lib["default"](dev))
    assert m.get_input_index("x") == 0 and m.get_input_index("nope") == -1
    shapes, dtypes = m.get_input_info()
    assert shapes["x"] == (2, 3) and dtypes["x"] == "float32"
    m.set_input("x", np.ones((2, 3), "float32"))
    m.run()
    np.testing.assert_array_equal(m.get_output(0).numpy(), np.full((2, 4), 3.0))
    timer = m.module.time_evaluator("run", dev, number=2, repeat=2)
    assert len(timer().results) == 2


def test_symbolic_dims_are_typed() -> None:
    assert str(relay.TensorType((relay.Any(), 3))) == "Tensor[(?, 3), float32]"
    assert str(relay.var("x", shape=(tvm.te.size_var("n"), 3)).checked_type) == (
        "Tensor[(n, 3), float32]"
    )
