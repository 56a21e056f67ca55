"""Dynamic dimensions in relay types (`relay.Any()`, `te.size_var`), as TVM 0.13 users write
them: type inference, printing and parsing, evaluation by `create_executor`, and the error
`relay.build` gives (its graph executor compiles static shapes, as TVM's; TVM users run
dynamic shapes on its VM, which xtvm does not have). xtvm's own tests: TVM's test_any.py runs
everything on the VM.
"""

import numpy as np
import pytest

import xtvm as tvm
from xtvm import relay, te


def test_any_and_size_var_types():
    n = te.size_var("n")
    x = relay.var("x", shape=(n, 4))
    y = relay.var("y", shape=(relay.Any(), 4))
    assert str(x.type_annotation) == "Tensor[(n, 4), float32]"
    assert str(y.type_annotation) == "Tensor[(?, 4), float32]"
    b = relay.var("b", shape=(4,))
    w = relay.var("w", shape=(8, 4))
    assert str((x + b).checked_type) == "Tensor[(?, 4), float32]"
    assert str(relay.nn.dense(x, w).checked_type) == "Tensor[(?, 8), float32]"
    assert str(relay.sum(y, axis=1).checked_type) == "Tensor[(?), float32]"
    assert str(relay.transpose(y).checked_type) == "Tensor[(4, ?), float32]"
    assert relay.TensorType((relay.Any(), 4)) == relay.TensorType((n, 4))
    assert relay.TensorType((relay.Any(), 4)) != relay.TensorType((3, 4))


def test_any_infer_type_print_and_parse():
    x = relay.var("x", shape=(relay.Any(), 4))
    b = relay.var("b", shape=(4,))
    mod = tvm.IRModule.from_expr(relay.Function([x, b], relay.nn.relu(x + b)))
    mod = relay.transform.InferType()(mod)
    text = mod.astext()
    assert "%x: Tensor[(?, 4), float32]" in text
    assert "-> Tensor[(?, 4), float32]" in text
    again = tvm.parser.parse(text)
    assert tvm.ir.structural_equal(again, mod)
    assert again["main"].params[0].checked_type == relay.TensorType((tvm.tir.Any(), 4))


def test_any_evaluates_at_every_size():
    x = relay.var("x", shape=(relay.Any(), 3))
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.nn.softmax(x * relay.const(2.0))))
    run = relay.create_executor(mod=mod).evaluate()
    for rows in (1, 5):
        data = np.random.rand(rows, 3).astype("float32")
        e = np.exp(2 * data - (2 * data).max(axis=1, keepdims=True))
        np.testing.assert_allclose(run(data).numpy(), e / e.sum(axis=1, keepdims=True), 1e-5)
    with pytest.raises(Exception, match=r"shape \(2, 4\)"):
        run(np.zeros((2, 4), "float32"))


def test_build_refuses_dynamic_shapes():
    x = relay.var("x", shape=(te.size_var("n"), 4))
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.nn.relu(x)))
    with pytest.raises(tvm.error.TVMError, match=r"%x of @main .*dynamic dimension"):
        relay.build(mod, target="llvm")


def test_shape_rule_on_dynamic_dims_is_refused():
    x = relay.var("x", shape=(relay.Any(), 4))
    call = relay.concatenate([x, x], axis=0)  # built; type inference refuses it, as TVM's would
    with pytest.raises(Exception, match="cannot compute its result shape from dynamic"):
        call.checked_type  # noqa: B018
    with pytest.raises(TypeError, match=r"neither an int nor relay\.Any"):
        relay.TensorType((1.5, 4))
