"""TVM's pass semantics through the Python API: FoldConstant with and without `fold_qnn`,
`annotation.stop_fusion` as a fusion barrier, FuseOps' `link_params`, float `shape_of`,
module attributes kept by passes, and `relay.const`'s dtypes. Numbers against numpy."""

from __future__ import annotations

import numpy as np
import pytest
from xtvm.relay import transform
from xtvm.relay.backend import Executor

import xtvm as tvm
from xtvm import relay


def run(fn: relay.Function, *args: np.ndarray) -> np.ndarray:
    mod = tvm.IRModule.from_expr(fn)
    return relay.create_executor("graph", mod=mod, target="llvm").evaluate()(*args).numpy()


def main_calls(mod: tvm.IRModule) -> list[str]:
    """The op names called in `mod["main"]`'s body and the functions in it, a call of a fused
    function as "fn"."""
    names: list[str] = []

    class Calls(relay.ExprVisitor):
        def visit_call(self, call: relay.Call) -> None:
            op = call.op
            names.append(op.name if isinstance(op, tvm.ir.Op) else "fn")
            super().visit_call(call)

    Calls().visit(mod["main"].body)
    return names


def quantized_sum() -> relay.Function:
    x = relay.var("x", shape=(2, 3), dtype="int8")
    lhs = relay.const(np.array([[10, -20, 30], [1, 2, 3]], "int8"))
    q = relay.qnn.op.add(
        lhs,
        x,
        lhs_scale=relay.const(0.5),
        lhs_zero_point=relay.const(0),
        rhs_scale=relay.const(0.5),
        rhs_zero_point=relay.const(0),
        output_scale=relay.const(0.5),
        output_zero_point=relay.const(0),
    )
    doubled = relay.qnn.op.requantize(
        relay.const(np.array([4, 8, -6], "int8")),
        input_scale=relay.const(1.0),
        input_zero_point=relay.const(0),
        output_scale=relay.const(0.5),
        output_zero_point=relay.const(0),
    )
    return relay.Function([x], relay.add(q, doubled))


def test_fold_constant_keeps_qnn_ops_unless_asked() -> None:
    mod = transform.InferType()(tvm.IRModule.from_expr(quantized_sum()))
    kept = transform.FoldConstant()(mod)
    assert "qnn.requantize" in main_calls(kept)
    folded = transform.FoldConstant(fold_qnn=True)(mod)
    calls = main_calls(folded)
    assert "qnn.requantize" not in calls
    assert "qnn.add" in calls  # its operand x is not constant: it stays quantized
    x = np.array([[1, 2, 3], [-4, -5, -6]], "int8")
    expected = np.array([[10, -20, 30], [1, 2, 3]]) + x + np.array([8, 16, -12])
    np.testing.assert_array_equal(run(folded["main"], x), expected.astype("int8"))
    np.testing.assert_array_equal(run(mod["main"], x), expected.astype("int8"))


def test_fold_constant_never_folds_dropout() -> None:
    data = relay.const(np.arange(4, dtype="float32"))
    body = relay.nn.dropout(data) + relay.const(1.0)
    mod = transform.FoldConstant()(transform.InferType()(tvm.IRModule.from_expr(body)))
    assert "nn.dropout" in main_calls(mod)


def test_stop_fusion_splits_groups_and_computes_the_same() -> None:
    x = relay.var("x", shape=(3, 4))
    y = relay.annotation.stop_fusion(relay.add(x, relay.const(1.0)))
    fn = relay.Function([x], relay.exp(y))
    mod = transform.FuseOps()(transform.InferType()(tvm.IRModule.from_expr(fn)))
    calls = main_calls(mod)
    assert calls.count("fn") == 2 and sorted(calls) == ["add", "exp", "fn", "fn"]
    data = np.random.default_rng(1).random((3, 4), dtype="float32")
    np.testing.assert_allclose(run(fn, data), np.exp(data + 1), rtol=1e-6)


@pytest.mark.parametrize("link", [False, True])
def test_fuse_ops_link_params_decides_where_tensor_constants_go(link: bool) -> None:
    x = relay.var("x", shape=(4,))
    weights = np.array([1.0, 2.0, 3.0, 4.0], "float32")
    fn = relay.Function([x], relay.multiply(relay.add(x, relay.const(weights)), relay.const(2.0)))
    mod = transform.InferType()(tvm.IRModule.from_expr(fn))
    with tvm.transform.PassContext(config={"relay.FuseOps.link_params": link}):
        fused = transform.FuseOps()(mod)
    call = fused["main"].body
    assert isinstance(call, relay.Call)
    assert len(call.args) == (1 if link else 2)
    data = np.array([0.5, -1.0, 2.0, 0.0], "float32")
    np.testing.assert_allclose(run(fused["main"], data), (data + weights) * 2)


def test_module_executor_link_params_reaches_fuse_ops() -> None:
    x = relay.var("x", shape=(2,))
    fn = relay.Function([x], relay.exp(relay.add(x, relay.const(np.ones(2, "float32")))))
    mod = transform.InferType()(tvm.IRModule.from_expr(fn))
    mod = mod.with_attr("executor", Executor("aot", {"link-params": True}))
    fused = transform.FuseOps()(mod)
    assert fused.get_attr("executor") == Executor("aot", {"link-params": True})
    assert len(fused["main"].body.args) == 1


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_shape_of_and_ndarray_size_in_any_numeric_dtype(dtype: str) -> None:
    x = relay.var("x", shape=(2, 5, 3))
    fn = relay.Function([x], relay.add(relay.shape_of(x, dtype), relay.ndarray_size(x, dtype)))
    data = np.zeros((2, 5, 3), "float32")
    result = run(fn, data)
    assert result.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(result, np.array([32, 35, 33], dtype))


def test_shape_of_refuses_bool() -> None:
    x = relay.var("x", shape=(2,))
    with pytest.raises(tvm.error.TVMError, match="integer or float type"):
        relay.shape_of(x, "bool").checked_type  # noqa: B018


def test_const_narrows_64_bit_numpy_values_as_tvm() -> None:
    assert relay.const(np.zeros(3)).data.dtype == "float32"
    assert relay.const(np.arange(3)).data.dtype == "int32"
    assert relay.const([1, 2]).data.dtype == "int32"
    assert relay.const(np.zeros(3), "float64").data.dtype == "float64"
    assert relay.const(tvm.nd.array(np.zeros(3))).data.dtype == "float64"


def test_cse_fskip_keeps_the_calls_it_accepts() -> None:
    x = relay.var("x", shape=(2, 3))
    a1, a2 = relay.exp(x), relay.exp(x)
    b1, b2 = relay.negative(x), relay.negative(x)
    fn = relay.Function([x], relay.Tuple([a1, a2, b1, b2]))
    mod = transform.InferType()(tvm.IRModule.from_expr(fn))

    def fskip(expr: relay.Expr) -> bool:
        return isinstance(expr, relay.Call) and expr.op.name == "exp"

    merged = transform.EliminateCommonSubexpr(fskip)(mod)
    assert sorted(main_calls(merged)) == ["exp", "exp", "negative"]
    assert sorted(main_calls(transform.EliminateCommonSubexpr()(mod))) == ["exp", "negative"]
    data = np.arange(6, dtype="float32").reshape(2, 3)
    fields = relay.create_executor("graph", mod=merged, target="llvm").evaluate()(data)
    np.testing.assert_allclose(fields[1].numpy(), np.exp(data), rtol=1e-6)
    np.testing.assert_allclose(fields[3].numpy(), -data)


def test_register_alter_op_layout_is_refused_not_ignored() -> None:
    with pytest.raises(tvm.error.TVMError, match="AlterOpLayout"):
        relay.op.register_alter_op_layout("nn.conv2d", lambda *a: None)


def test_bare_int_in_relay_text_is_int32_as_in_tvm() -> None:
    mod = tvm.relay.parse('#[version = "0.0.5"]\ndef @main(%n: int) { %n + 1 }')
    mod = transform.InferType()(mod)
    assert mod["main"].checked_type.ret_type == relay.TensorType((), "int32")
    assert run(mod["main"], np.array(41, "int32")) == 42


def test_virtual_device_and_core_std() -> None:
    scope = tvm.target.VirtualDevice(tvm.cpu(), tvm.target.Target("llvm"))
    assert (scope.device_type, scope.virtual_device_id) == (1, 0)
    assert tvm.target.VirtualDevice().is_fully_unconstrained()
    with pytest.raises(TypeError, match="device"):
        tvm.target.VirtualDevice("cpu")
    mod = tvm.IRModule()
    mod.import_from_std("core.rly")
    assert [v.name_hint for v in mod.get_global_type_vars()] == ["Storage"]


def test_remove_unused_functions_keeps_what_the_entries_reach() -> None:
    mod = tvm.IRModule()
    x = relay.var("x", shape=(3,))
    double, unused, square = (relay.GlobalVar(n) for n in ("double", "unused", "square"))
    mod[square] = relay.Function([x], relay.multiply(x, x))
    mod[double] = relay.Function([x], relay.add(square(x), square(x)))
    mod[unused] = relay.Function([x], relay.negative(x))
    mod["main"] = relay.Function([x], double(x))
    kept = transform.RemoveUnusedFunctions()(mod)
    assert {gv.name_hint for gv in kept.get_global_vars()} == {"main", "double", "square"}
    data = np.array([1.0, -2.0, 3.0], "float32")
    result = relay.create_executor("graph", mod=kept, target="llvm").evaluate()(data)
    np.testing.assert_allclose(result.numpy(), 2 * data * data)
    both = transform.RemoveUnusedFunctions(["main", "unused"])(mod)
    assert len(both.get_global_vars()) == 4
