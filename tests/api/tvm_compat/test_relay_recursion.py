"""Recursion and global functions calling each other, as TVM v0.13 writes them: test_loop and
test_recursive of tests/python/relay/test_backend_interpreter.py, test_recursion and
test_global_var_recursion of test_type_infer.py, and the mutual recursion of test_ir_parser.py's
programs, run with `import xtvm as tvm` and evaluated by `create_executor`.

Difference: `relay.build` and the graph executor run no recursion (neither do TVM's; it needs
its VM): relay.build raises a TVMError naming create_executor. Every `create_executor` kind
evaluates with the relay interpreter, which runs only the branch an `If` takes. The last tests
are xtvm's own: relay.build computes an `If` of @main as a select and inlines the global
functions @main calls.
"""

import numpy as np
import pytest
from xtvm.relay.scope_builder import ScopeBuilder

import xtvm as tvm
from xtvm import relay, testing


def check_eval(expr, args, expected_result, mod=None, rtol=1e-07):
    for target in ["llvm"]:
        dev = tvm.device(target, 0)
        if not testing.device_enabled(target):
            return
        func = relay.create_executor(mod=mod, device=dev, target=target).evaluate(expr)
        result = func if args is None else func(*args)
        testing.assert_allclose(result.numpy(), expected_result, rtol=rtol)


def test_recursive():  # test_backend_interpreter.py::test_simple_loop
    mod = tvm.IRModule({})
    sum_up = relay.GlobalVar("sum_up")
    i = relay.var("i", shape=[], dtype="int32")
    sb = ScopeBuilder()
    with sb.if_scope(relay.equal(i, relay.const(0, dtype="int32"))):
        sb.ret(i)
    with sb.else_scope():
        one_less = relay.subtract(i, relay.const(1, dtype="int32"))
        rec_call = relay.Call(sum_up, [one_less])
        sb.ret(relay.add(rec_call, i))
    func = relay.Function([i], sb.get(), ret_type=relay.TensorType([], "int32"))
    mod[sum_up] = func
    i_data = np.array(10, dtype="int32")
    check_eval(sum_up, [i_data], sum(range(1, 11)), mod=mod)


def test_loop():
    mod = tvm.IRModule({})
    sum_up = relay.GlobalVar("sum_up")
    i = relay.var("i", shape=[], dtype="int32")
    accum = relay.var("accum", shape=[], dtype="int32")
    sb = ScopeBuilder()
    with sb.if_scope(relay.equal(i, relay.const(0, "int32"))):
        sb.ret(accum)
    with sb.else_scope():
        one_less = relay.subtract(i, relay.const(1, "int32"))
        new_accum = relay.add(accum, i)
        sb.ret(relay.Call(sum_up, [one_less, new_accum]))
    func = relay.Function([i, accum], sb.get())
    mod[sum_up] = func
    i_data = np.array(10, dtype="int32")
    accum_data = np.array(0, dtype="int32")
    check_eval(sum_up, [i_data, accum_data], sum(range(1, 11)), mod=mod)


def test_recursion():  # test_type_infer.py
    sb = relay.ScopeBuilder()
    f = relay.GlobalVar("f")
    ti32 = relay.scalar_type("int32")
    tf32 = relay.scalar_type("float32")
    n = relay.var("n", ti32)
    data = relay.var("data", tf32)

    with sb.if_scope(relay.equal(n, relay.const(0, ti32))):
        sb.ret(data)
    with sb.else_scope():
        sb.ret(f(relay.subtract(n, relay.const(1, ti32)), relay.log(data)))
    mod = tvm.IRModule()
    mod[f] = relay.Function([n, data], sb.get())
    mod = relay.transform.InferType()(mod)
    assert "@f(" in mod.astext()
    assert mod["f"].checked_type == relay.FuncType([ti32, tf32], tf32)
    mod["main"] = relay.Function([n, data], f(n, data))
    run = relay.create_executor(mod=mod).evaluate()
    np.testing.assert_allclose(run(2, np.float32(100.0)).numpy(), np.log(np.log(100.0)), 1e-6)


def test_global_var_recursion():  # test_type_infer.py
    mod = tvm.IRModule({})
    gv = relay.GlobalVar("main")
    x = relay.var("x", shape=[])
    tt = relay.scalar_type("float32")

    func = relay.Function([x], relay.Call(gv, [x]), tt)
    mod[gv] = func
    mod = relay.transform.InferType()(mod)
    func_ty = mod["main"].checked_type

    assert func_ty == relay.FuncType([tt], tt)


def test_mutual_recursion_from_text():
    mod = tvm.parser.parse(
        """
        #[version = "0.0.5"]
        def @even(%n: int32) -> bool {
          if (%n == 0) { True } else { @odd(%n - 1) }
        }
        def @odd(%n: int32) -> bool {
          if (%n == 0) { False } else { @even(%n - 1) }
        }
        def @main(%n: int32) -> (bool, bool) {
          (@even(%n), @odd(%n))
        }
        """
    )
    run = relay.create_executor(mod=mod).evaluate()
    for n in (0, 1, 6, 7):
        even, odd = run(np.int32(n))
        assert bool(even.numpy()) == (n % 2 == 0)
        assert bool(odd.numpy()) == (n % 2 == 1)
    again = tvm.parser.parse(mod.astext())
    assert tvm.ir.structural_equal(again, mod)


def run_built(mod, **inputs):
    from xtvm.contrib import graph_executor

    lib = relay.build(mod, target="llvm")
    m = graph_executor.GraphModule(lib["default"](tvm.cpu(0)))
    for name, value in inputs.items():
        m.set_input(name, value)
    m.run()
    return m.get_output(0).numpy()


def test_build_if_on_a_scalar():
    """xtvm's own: relay.build computes an If of pure branches as a select."""
    c = relay.var("c", shape=(), dtype="bool")
    x = relay.var("x", shape=(4,))
    f = relay.Function([c, x], relay.If(c, x * relay.const(2.0), x - relay.const(1.0)))
    mod = tvm.IRModule.from_expr(f)
    data = np.arange(4, dtype="float32")
    np.testing.assert_allclose(run_built(mod, c=np.array(True), x=data), data * 2)
    np.testing.assert_allclose(run_built(mod, c=np.array(False), x=data), data - 1)


def test_build_calls_global_functions():
    """xtvm's own: relay.build inlines the global functions @main calls."""
    mod = tvm.IRModule({})
    f, g = relay.GlobalVar("f"), relay.GlobalVar("g")
    a = relay.var("a", shape=(3,))
    mod[f] = relay.Function([a], a * relay.const(3.0))
    b = relay.var("b", shape=(3,))
    mod[g] = relay.Function([b], f(b) + relay.const(1.0))
    x = relay.var("x", shape=(3,))
    mod["main"] = relay.Function([x], g(x) + f(x))
    data = np.array([1.0, 2.0, 3.0], "float32")
    np.testing.assert_allclose(run_built(mod, x=data), data * 3 + 1 + data * 3)


def test_build_refuses_recursion():
    """relay.build of a recursion raises a TVMError naming create_executor (TVM's graph
    executor has no control flow either)."""
    mod = tvm.parser.parse(
        """
        #[version = "0.0.5"]
        def @sum_up(%i: int32) -> int32 {
          if (%i == 0) { %i } else { @sum_up(%i - 1) + %i }
        }
        def @main(%n: int32) -> int32 {
          @sum_up(%n)
        }
        """
    )
    with pytest.raises(tvm.error.TVMError, match=r"@sum_up is recursive.*create_executor"):
        relay.build(mod, target="llvm")
    assert relay.create_executor(mod=mod).evaluate()(np.int32(10)).numpy() == 55
