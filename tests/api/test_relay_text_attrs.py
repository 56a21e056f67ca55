"""Relay text as TVM 0.13 writes it: operator attributes from TVM's attribute nodes (required
fields always, others when not at their default, in the node's order), read back by the
parser; and type errors reported by type inference, not while a call is built or an
expression read."""

import numpy as np
import pytest

import xtvm as tvm
from xtvm import relay
from xtvm.topi.testing import conv1d_ncw_python, conv2d_nchw_python


def call_line(expr: relay.Expr) -> str:
    """The last line of `expr.astext()`: the call itself."""
    return expr.astext(show_meta_data=False).strip().splitlines()[-1]


def test_attributes_print_as_tvm_attribute_nodes() -> None:
    x = relay.var("x", shape=(1, 3, 8, 8))
    w = relay.var("w", shape=(4, 3, 3, 3))
    # padding is widened to four numbers by TVM's builder, so it differs from (0, 0)
    assert call_line(relay.nn.conv2d(x, w)) == "nn.conv2d(%x, %w, padding=[0, 0, 0, 0])"
    assert (
        call_line(relay.nn.conv2d(x, w, strides=2, padding=1, channels=4, kernel_size=3))
        == "nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3])"
    )
    # fields without a default (pool_size, units, axes) are always written
    assert (
        call_line(relay.nn.max_pool2d(x))
        == "nn.max_pool2d(%x, pool_size=[1, 1], padding=[0, 0, 0, 0])"
    )
    assert call_line(relay.transpose(x)) == "transpose(%x, axes=None)"
    assert call_line(relay.transpose(x, axes=(0, 2, 3, 1))) == "transpose(%x, axes=[0, 2, 3, 1])"
    a, b = relay.var("a", shape=(2, 5)), relay.var("b", shape=(3, 5))
    assert call_line(relay.nn.dense(a, b)) == "nn.dense(%a, %b, units=None)"
    assert call_line(relay.nn.dense(a, b, units=3)) == "nn.dense(%a, %b, units=3)"
    # TVM's order: Conv2DTransposeAttrs declares channels and kernel_size first
    t = relay.nn.conv2d_transpose(x, relay.var("k"), channels=2, kernel_size=3, padding=1)
    assert call_line(t) == (
        "nn.conv2d_transpose(%x, %k, channels=2, kernel_size=[3, 3], padding=[1, 1, 1, 1])"
    )


def test_out_dtype_is_printed_and_reads_back() -> None:
    x = relay.var("x", shape=(1, 3, 8, 8), dtype="int8")
    w = relay.var("w", shape=(4, 3, 3, 3), dtype="int8")
    y = relay.nn.conv2d(x, w, out_dtype="int32")
    # the call keeps its int8 operands, as TVM's; xtvm computes it on them cast to int32
    assert call_line(y) == 'nn.conv2d(%x, %w, padding=[0, 0, 0, 0], out_dtype="int32")'
    assert y.args[0] is x and y.args[1] is w
    data = np.random.randint(-8, 8, (1, 3, 8, 8)).astype("int8")
    weight = np.random.randint(-8, 8, (4, 3, 3, 3)).astype("int8")
    want = conv2d_nchw_python(data.astype("int32"), weight.astype("int32"), 1, 0)
    fn = relay.Function([x, w], y)
    for kind in ("graph", "debug"):  # compiled, and the reference interpreter
        got = relay.create_executor(kind, target="llvm").evaluate(fn)(data, weight).numpy()
        assert got.dtype == np.int32 and (got == want).all()
    # a rewrite keeps the call's form: TVM's operands and out_dtype
    other = relay.var("v", shape=(1, 3, 8, 8), dtype="int8")

    class Swap(relay.ExprMutator):
        def visit_var(self, var: relay.Var) -> relay.Expr:
            return other if var is x else var

    swapped = Swap().visit(y)
    assert call_line(swapped) == 'nn.conv2d(%v, %w, padding=[0, 0, 0, 0], out_dtype="int32")'
    assert swapped.args[0] is other
    mod = tvm.IRModule.from_expr(relay.Function([x, w], y))
    again = tvm.parser.parse(mod.astext())
    assert again.astext() == mod.astext()
    assert again["main"].body.checked_type == relay.TensorType((1, 4, 6, 6), "int32")


def test_text_round_trips_with_tvm_attributes() -> None:
    x = relay.var("x", shape=(1, 3, 8, 8))
    w = relay.var("w", shape=(4, 3, 3, 3))
    body = relay.nn.avg_pool2d(
        relay.nn.conv2d(x, w, padding=(1, 1), channels=4, kernel_size=(3, 3)),
        pool_size=2,
        strides=2,
        count_include_pad=True,
    )
    body = relay.transpose(relay.nn.batch_flatten(body))
    mod = tvm.IRModule.from_expr(relay.Function([x, w], body))
    text = mod.astext()
    assert "count_include_pad=True" in text and "axes=None" in text
    again = tvm.parser.parse(text)
    assert again.astext() == text
    assert tvm.ir.structural_equal(again["main"], mod["main"])
    data = np.random.rand(1, 3, 8, 8).astype("float32")
    weight = np.random.rand(4, 3, 3, 3).astype("float32")
    run = relay.create_executor("graph", mod=again, target="llvm").evaluate()
    want = relay.create_executor("graph", mod=mod, target="llvm").evaluate()(data, weight)
    np.testing.assert_allclose(run(data, weight).numpy(), want.numpy(), rtol=1e-5)


def test_ill_typed_call_is_reported_by_type_inference() -> None:
    call = relay.nn.bias_add(relay.const(1), relay.const(2), axis=0)  # built, as in TVM
    with pytest.raises(tvm.error.TVMError, match="axis 0 is out of range for rank 0"):
        relay.testing.run_infer_type(call)
    # an expression is read without type-checking it (TVM's parse_expr) ...
    expr = relay.parse_expr("1 == (1 < 2)")
    with pytest.raises(tvm.error.TVMError, match="equal"):
        expr.checked_type  # noqa: B018
    # ... a module is type-checked as it is read, the error located at the call
    with pytest.raises(tvm.error.DiagnosticError, match=r"from_string:2:.*equal"):
        tvm.parser.parse('#[version = "0.0.5"]\ndef @main() { 1 == (1 < 2) }')


def test_equality_binds_looser_than_comparison() -> None:
    expr = relay.parse_expr("1 == 1 < 2")  # 1 == (1 < 2), as TVM's operator table reads it
    assert expr.op.name == "equal"
    assert expr.args[1].op.name == "less"


def test_build_takes_a_target_object() -> None:
    x = relay.var("x", shape=(4,), dtype="int8")
    y = relay.nn.pad(x, ((1, 1),), pad_value=relay.const(np.array([2], dtype="int8")))
    lib = relay.build(relay.Function([x], y), tvm.target.Target("llvm", host="llvm"))
    module = tvm.contrib.graph_executor.GraphModule(lib["default"](tvm.cpu()))
    data = np.arange(4, dtype="int8")
    module.set_input("x", data)
    module.run()
    np.testing.assert_array_equal(module.get_output(0).numpy(), np.pad(data, 1, constant_values=2))


def test_conv1d_and_pool1d_are_calls_of_tvms_operators() -> None:
    """TVM's nn.conv1d / nn.max_pool1d / nn.avg_pool1d: calls of their own ops, printed with
    TVM's attributes."""
    x = relay.var("x", shape=(1, 3, 32))
    w = relay.var("w")
    conv = relay.nn.conv1d(x, w, strides=2, padding=1, channels=4, kernel_size=3)
    assert conv.op.name == "nn.conv1d" and conv.args[1] is w
    assert conv.attrs.strides == (2,)
    assert conv.checked_type == relay.TensorType((1, 4, 16), "float32")
    assert w.checked_type == relay.TensorType((4, 3, 3), "float32")  # from channels, kernel_size
    pool = relay.nn.max_pool1d(conv, pool_size=2, strides=2)
    assert call_line(conv) == (
        "nn.conv1d(%x, %w, strides=[2], padding=[1, 1], channels=4, kernel_size=[3])"
    )
    assert call_line(pool) == "nn.max_pool1d(%0, pool_size=[2], strides=[2], padding=[0, 0])"
    again = relay.parse_expr(pool.astext())
    assert again.op.name == "nn.max_pool1d" and again.args[0].op.name == "nn.conv1d"
    assert again.astext() == pool.astext()

    data = np.random.rand(1, 3, 32).astype("float32")
    weight = np.random.rand(4, 3, 3).astype("float32")
    c = conv1d_ncw_python(data, weight, 2, 1, 1)
    want = c.reshape(1, 4, 8, 2).max(axis=3)
    fn = relay.Function([x, w], pool)
    for kind in ("graph", "debug"):  # compiled, and the reference interpreter
        got = relay.create_executor(kind, target="llvm").evaluate(fn)(data, weight)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)

    # a rewrite makes the call again on its new operands
    class Rename(relay.ExprMutator):
        def visit_var(self, var: relay.Var) -> relay.Expr:
            return relay.var("y", shape=(1, 3, 64)) if var is x else var

    wider = Rename().visit(pool)
    assert wider.op.name == "nn.max_pool1d"
    assert wider.checked_type == relay.TensorType((1, 4, 16), "float32")
