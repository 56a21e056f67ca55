"""`relay.transform.Inline` on functions kept as expressions: a call of an `If` that picks a
global function (TVM's `InlineGlobals` turns the globals into literals), checked by running
the module before and after."""

from __future__ import annotations

import numpy as np
import pytest

import xtvm as tvm
from xtvm import relay


def picking_module(compiler: bool) -> tvm.IRModule:
    """@main(p, x) calls @g1 (x + 1) or @g2 (x * 2) as `p` says, through an If."""
    mod = tvm.IRModule({})
    x = relay.var("x", shape=(3,))
    for name, body in (
        ("g1", lambda v: v + relay.const(1.0)),
        ("g2", lambda v: v * relay.const(2.0)),
    ):
        a = relay.var("a", shape=(3,))
        fn = relay.Function([a], body(a)).with_attr("Inline", tvm.tir.IntImm("int32", 1))
        if compiler:
            fn = fn.with_attr("Compiler", "ccompiler")
        mod[relay.GlobalVar(name)] = fn
    p = relay.var("p", "bool")
    g1, g2 = mod.get_global_var("g1"), mod.get_global_var("g2")
    mod["main"] = relay.Function([p, x], relay.Call(relay.If(p, g1, g2), [x]))
    return relay.transform.InferType()(mod)


def run(mod: tvm.IRModule, p: bool, x: np.ndarray) -> np.ndarray:
    return relay.create_executor(mod=mod).evaluate()(np.array(p), x).numpy()


@pytest.mark.parametrize("compiler", [False, True])
def test_an_if_that_picks_a_function_is_inlined_as_literals(compiler: bool) -> None:
    mod = picking_module(compiler)
    inlined = relay.transform.Inline()(mod)
    assert [gv.name_hint for gv in inlined.get_global_vars()] == ["main"]
    choice = inlined["main"].body.op
    assert isinstance(choice, relay.If)
    assert all(isinstance(f, relay.Function) for f in (choice.true_branch, choice.false_branch))
    x = np.array([1.0, 2.0, 3.0], "float32")
    for p, expected in ((True, x + 1), (False, x * 2)):
        np.testing.assert_allclose(run(mod, p, x), expected)
        np.testing.assert_allclose(run(inlined, p, x), expected)


def test_a_call_of_a_marked_function_inside_such_a_function_is_spliced() -> None:
    mod = picking_module(False)
    x = relay.var("x", shape=(3,))
    p = relay.var("p", "bool")
    g1 = mod.get_global_var("g1")
    picked = relay.Call(relay.If(p, g1, mod.get_global_var("g2")), [x])
    mod["main"] = relay.Function([p, x], relay.Call(g1, [picked]))
    inlined = relay.transform.Inline()(mod)
    assert isinstance(inlined["main"].body, relay.Call)
    assert not isinstance(inlined["main"].body.op, relay.GlobalVar)  # x + 1 in place of @g1
    x_value = np.array([1.0, 2.0, 3.0], "float32")
    np.testing.assert_allclose(run(inlined, True, x_value), x_value + 2)
    np.testing.assert_allclose(run(inlined, False, x_value), x_value * 2 + 1)
