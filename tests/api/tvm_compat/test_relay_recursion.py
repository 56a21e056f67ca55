"""Recursion and global functions calling each other, as TVM v0.13 writes them: test_loop and
test_recursive of tests/python/relay/test_backend_interpreter.py, test_recursion and
test_global_var_recursion of test_type_infer.py, and the mutual recursion of test_ir_parser.py's
programs, run with `import xtvm as tvm` and evaluated by `create_executor`.

Difference: `relay.build` and the graph executor run no recursion (neither do TVM's; it needs
its VM); every `create_executor` kind evaluates with the relay interpreter, which runs only the
branch an `If` takes.
"""

import numpy as np
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
