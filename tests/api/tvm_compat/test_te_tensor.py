# Licensed to the Apache Software Foundation (ASF) under one
# or more contributor license agreements.  See the NOTICE file
# distributed with this work for additional information
# regarding copyright ownership.  The ASF licenses this file
# to you under the Apache License, Version 2.0 (the
# "License"); you may not use this file except in compliance
# with the License.  You may obtain a copy of the License at
#
#   http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing,
# software distributed under the License is distributed on an
# "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY
# KIND, either express or implied.  See the License for the
# specific language governing permissions and limitations
# under the License.
# ruff: noqa
"""TVM v0.13's tests/python/unittest/test_te_tensor.py, run with `import xtvm as tvm`: the
tests that pass unchanged, then the skipped ones with their reason, then xtvm's own tests of
`te.comm_reducer` computing numbers (checked against numpy), tuple reducers (argmax) included.

Skipped: the `InferBound`/`ScheduleOps` schedule internals (test_tuple_with_different_deps)
and tensor intrinsics called inside `te.compute` (TVM's TensorComputeOp: test_tensor_compute1,
test_tensor_compute2), with the reasons at each.
"""

import numpy as np
import pytest

import xtvm as tvm
import xtvm.testing
from xtvm import te
from xtvm.topi.nn.pooling import pool2d
from xtvm.testing.registries import preserved


def test_tensor():
    m = te.size_var("m")
    n = te.size_var("n")
    l = te.size_var("l")
    A = te.placeholder((m, l), name="A")
    B = te.placeholder((n, l), name="B")
    T = te.compute((m, n, l), lambda i, j, k: A[i, k] * B[j, k])
    print(T)
    print(T.op.body)
    assert tuple(T.shape) == (m, n, l)
    assert isinstance(A.op, tvm.te.PlaceholderOp)
    assert A == A
    assert T.op.output(0) == T
    assert T.op.output(0).__hash__() == T.__hash__()
    d = {T.op.output(0): 1}
    assert d[T] == 1
    assert T[0][0][0].astype("float16").dtype == "float16"


def test_rank_zero():
    m = te.size_var("m")
    A = te.placeholder((m,), name="A")
    scale = te.placeholder((), name="s")
    k = te.reduce_axis((0, m), name="k")
    T = te.compute((), lambda: te.sum(A[k] * scale(), axis=k))
    print(T)
    print(T.op.body)
    assert tuple(T.shape) == ()


def test_conv1d():
    n = te.size_var("n")
    A = te.placeholder((n + 2), name="A")

    def computeB(ii):
        i = ii + 1
        return A[i - 1] + A[i] + A[i + 1]

    B = te.compute(n, computeB)


def test_tensor_slice():
    n = te.size_var("n")
    A = te.compute((n, n), lambda i, j: 1)
    B = te.compute((n,), lambda i: A[0][i] + A[0][i])


def test_tensor_reduce_multi_axis():
    m = te.size_var("m")
    n = te.size_var("n")
    A = te.placeholder((m, n), name="A")
    k1 = te.reduce_axis((0, n), "k")
    k2 = te.reduce_axis((0, m), "k")
    C = te.compute((1,), lambda _: te.sum(A[k1, k2], axis=(k1, k2)))
    C = te.compute((1,), lambda _: te.sum(A[k1, k2], axis=[k1, k2]))


def test_tensor_comm_reducer():
    m = te.size_var("m")
    n = te.size_var("n")
    A = te.placeholder((m, n), name="A")
    k = te.reduce_axis((0, n), "k")
    mysum = te.comm_reducer(lambda x, y: x + y, lambda t: tvm.tir.const(0, dtype=t))
    C = te.compute((m,), lambda i: mysum(A[i, k], axis=k))


def test_tensor_comm_reducer_overload():
    m = te.size_var("m")
    n = te.size_var("n")
    mysum = te.comm_reducer(lambda x, y: x + y, lambda t: tvm.tir.const(0, dtype=t))
    sum_res = mysum(m, n)


def test_tensor_scan():
    m = te.size_var("m")
    n = te.size_var("n")
    x = te.placeholder((m, n))
    s = te.placeholder((m, n))
    res = tvm.te.scan(
        te.compute((1, n), lambda _, i: x[0, i]),
        te.compute((m, n), lambda t, i: s[t - 1, i] + x[t, i]),
        s,
    )
    assert tuple(res.shape) == (m, n)


def test_tuple_inputs():
    m = te.size_var("m")
    n = te.size_var("n")
    A0 = te.placeholder((m, n), name="A0")
    A1 = te.placeholder((m, n), name="A1")
    T0, T1 = te.compute((m, n), lambda i, j: (A0[i, j] * 2, A1[i, j] * 3), name="T")
    s = te.create_schedule(T0.op)

    for i in range(len(T0.shape)):
        assert T0.shape[i] == T1.shape[i]
    assert T0.op == T1.op
    assert T0.value_index == 0
    assert T1.value_index == 1


def test_tensor_inputs():
    x = te.placeholder((1,), name="x")
    y = te.compute(x.shape, lambda i: x[i] + x[i])
    assert tuple(y.op.input_tensors) == (x,)


def test_tensor_reduce():
    m = te.size_var("m")
    n = te.size_var("n")
    l = te.size_var("l")
    A = te.placeholder((m, l), name="A")
    B = te.placeholder((n, l), name="B")
    T = te.compute((m, n, l), lambda i, j, k: A[i, k] * B[j, k])
    rv = te.reduce_axis((0, A.shape[1]), "k")
    C = te.compute((m, n), lambda i, j: te.sum(T(i, j, rv + 1), axis=rv))
    # json load save
    C_json = tvm.ir.save_json(C)
    C_loaded = tvm.ir.load_json(C_json)
    assert isinstance(C_loaded, te.tensor.Tensor)
    assert str(C_loaded) == str(C)


def test_tensor_reduce_multiout_with_cond():
    def fcombine(x, y):
        return x[0] + y[0], x[1] + y[1]

    def fidentity(t0, t1):
        return tvm.tir.const(0, t0), tvm.tir.const(1, t1)

    mysum = te.comm_reducer(fcombine, fidentity, name="mysum")

    m = te.var("m")
    n = te.var("n")
    idx = te.placeholder((m, n), name="idx", dtype="int32")
    val = te.placeholder((m, n), name="val", dtype="int32")
    k = te.reduce_axis((0, n), "k")
    cond = te.floormod(k, 2) == 0
    T0, T1 = te.compute((m,), lambda i: mysum((idx[i, k], val[i, k]), axis=k, where=cond), name="T")


@pytest.mark.skip(
    reason="a tensor intrinsic called inside te.compute (TVM's TensorComputeOp) is not provided "
    "(xtvm applies intrinsics with s[C].tensorize); the test also reads TVM's lowered Stmt tree"
)
def test_tensor_compute1():
    pass


@pytest.mark.skip(
    reason="a tensor intrinsic called inside te.compute (TVM's TensorComputeOp) is not provided "
    "(xtvm applies intrinsics with s[C].tensorize); the test also reads TVM's lowered Stmt tree"
)
def test_tensor_compute2():
    pass


def test_scan_multi_out():
    m = te.size_var("m")
    n = te.size_var("n")
    x1 = te.placeholder((m, n))
    s1 = te.placeholder((m, n))
    x2 = te.placeholder((m, n))
    s2 = te.placeholder((m, n))
    s1_init = te.compute((1, n), lambda _, i: x1[0, i])
    s2_init = te.compute((1, n), lambda _, i: x2[0, i])
    s1_update = te.compute((m, n), lambda t, i: s1[t - 1, i] + s2[t - 1, i] + x1[t, i])
    s2_update = te.compute((m, n), lambda t, i: x2[t, i] + s2[t - 1, i])

    r0, r1 = tvm.te.scan([s1_init, s2_init], [s1_update, s2_update], [s1, s2])
    assert r0.value_index == 0
    assert r1.value_index == 1
    json_str = tvm.ir.save_json(r0.op)
    zz = tvm.ir.load_json(json_str)
    assert isinstance(zz, tvm.te.ScanOp)


def test_extern():
    m = te.size_var("m")
    A = te.placeholder((m,), name="A")

    def extern_func(ins, outs):
        assert isinstance(ins[0], tvm.te.schedule.Buffer)
        return tvm.tir.call_packed("myadd", ins[0].data, outs[0].data, m)

    B = te.extern((m,), [A], extern_func)
    assert tuple(B.shape) == (m,)


def test_extern_multi_out():
    m = te.size_var("m")
    A = te.placeholder((m,), name="A")
    B = te.compute((m,), lambda i: A[i] * 10)

    def extern_func(ins, outs):
        assert isinstance(ins[0], tvm.te.schedule.Buffer)
        return tvm.tir.call_packed("myadd", ins[0].data, outs[0].data, outs[1].data, m)

    res = te.extern([A.shape, A.shape], [A, B], extern_func)
    assert len(res) == 2
    assert res[1].value_index == 1


@pytest.mark.skip(
    reason="te.schedule.InferBound/ScheduleOps and TVM's ProducerRealize statements are not "
    "provided: xtvm lowers schedules to its tir dialect, not to TVM's Stmt objects"
)
def test_tuple_with_different_deps():
    pass


def test_tensor_pool():
    def intrin_pool():
        A = te.placeholder((64, 16, 16), name="A")
        kh = te.reduce_axis((0, 3), name="kh")
        kw = te.reduce_axis((0, 3), name="kw")
        P = te.compute(
            (64, 14, 14),
            lambda c, oh, ow: tvm.te.max(A[c, oh + kh, ow + kw], axis=[kh, kw]),
            name="p",
        )

        def intrin_func(ins, outs):
            dinp = ins[0]
            dout = outs[0]
            return tvm.tir.call_packed("op", dinp, dout)

        return te.decl_tensor_intrin(P.op, intrin_func, default_buffer_params={"offset_factor": 1})

    A = te.placeholder((1, 64, 16, 16), name="A")
    P = pool2d(
        data=A, kernel=(3, 3), stride=(1, 1), dilation=(1, 1), padding=(0, 0, 0, 0), pool_type="max"
    )
    s = te.create_schedule(P.op)
    _, oh, _, _ = P.op.axis
    intrin = intrin_pool()
    s[P].tensorize(oh, intrin)
    tvm.lower(s, [A, P])


def test_tensorized_pool_calls():
    """test_tensor_pool's intrinsic (a packed call over a 3x3 max pool of 64 channels)
    tensorized on the channel loop of a 1x64x16x16 pool, built and run: the call is made."""

    def intrin_pool():
        A = te.placeholder((64, 16, 16), name="A")
        kh = te.reduce_axis((0, 3), name="kh")
        kw = te.reduce_axis((0, 3), name="kw")
        P = te.compute(
            (64, 14, 14),
            lambda c, oh, ow: tvm.te.max(A[c, oh + kh, ow + kw], axis=[kh, kw]),
            name="p",
        )

        def intrin_func(ins, outs):
            return tvm.tir.call_packed("test.pool_3x3", ins[0], outs[0])

        return te.decl_tensor_intrin(P.op, intrin_func, default_buffer_params={"offset_factor": 1})

    @tvm.register_func("test.pool_3x3")
    def pool(a, p):
        x = a.numpy()
        windows = [x[:, i : i + 14, j : j + 14] for i in range(3) for j in range(3)]
        tvm.nd.array(np.max(windows, axis=0)).copyto(p)

    A = te.placeholder((1, 64, 16, 16), name="A")
    kh = te.reduce_axis((0, 3), name="kh")
    kw = te.reduce_axis((0, 3), name="kw")
    P = te.compute(
        (1, 64, 14, 14),
        lambda n, c, oh, ow: te.max(A[n, c, oh + kh, ow + kw], axis=[kh, kw]),
        name="pool",
    )
    s = te.create_schedule(P.op)
    with preserved():  # the intrinsic's registration
        s[P].tensorize(P.op.axis[1], intrin_pool())
        f = tvm.build(s, [A, P], "llvm")
    a = np.random.rand(1, 64, 16, 16).astype("float32")
    p = tvm.nd.array(np.zeros((1, 64, 14, 14), "float32"))
    f(tvm.nd.array(a), p)
    want = np.max([a[:, :, i : i + 14, j : j + 14] for i in range(3) for j in range(3)], axis=0)
    np.testing.assert_array_equal(p.numpy(), want)


def test_tensor_scalar_mixed():
    # test te with tensor and scalar
    a = np.array(np.random.uniform(size=(10,)), "float32")
    b = np.array(np.random.uniform(size=(1))[0], "float32")
    c = np.array(np.random.uniform(size=(10,)), "float32")

    @tvm.register_func("tvm.test_tensor_scalar_scale")
    def my_scale(tensor, scalar, out):
        out_np = tensor.numpy() * scalar.numpy()
        tvm.nd.array(out_np).copyto(out)

    A = te.placeholder(a.shape, name="A")
    B = te.placeholder(b.shape, name="B")
    C = te.extern(
        a.shape,
        [A, B],
        lambda ins, outs: tvm.tir.call_packed(
            "tvm.test_tensor_scalar_scale", ins[0], ins[1], outs[0]
        ),
        name="C",
    )
    s = te.create_schedule(C.op)
    f = tvm.build(s, [A, B, C], "llvm")

    ta = tvm.nd.array(a)
    tb = tvm.nd.array(b)
    tc = tvm.nd.array(c)
    f(ta, tb, tc)
    tvm.testing.assert_allclose(a * b, tc.numpy())


def test_tensor_scalar():
    # test te with scalar shape
    a = np.array(np.random.uniform(size=(1))[0], "float32")
    b = np.array(0.0, "float32")

    @tvm.register_func("tvm.test_tensor_scalar_copy")
    def mycopy(x, y):
        x.copyto(y)

    A = te.placeholder(a.shape, name="A")
    B = te.extern(
        a.shape,
        [A],
        lambda ins, outs: tvm.tir.call_packed("tvm.test_tensor_scalar_copy", ins[0], outs[0]),
        name="B",
    )
    s = te.create_schedule(B.op)
    f = tvm.build(s, [A, B], "llvm")

    ta = tvm.nd.array(a)
    tb = tvm.nd.array(b)
    f(ta, tb)
    tvm.testing.assert_allclose(ta.numpy(), tb.numpy())


# xtvm's own: custom reducers compute numbers


def build_reduction(reducer, dtype="float32", where=None, shape=(6, 7)):
    A = te.placeholder(shape, name="A", dtype=dtype)
    k = te.reduce_axis((0, shape[1]), "k")
    cond = None if where is None else where(k)
    B = te.compute((shape[0],), lambda i: reducer(A[i, k], axis=k, where=cond), name="B")
    s = te.create_schedule(B.op)
    return tvm.build(s, [A, B], "llvm"), s, B


def test_comm_reducer_sum_numbers():
    mysum = te.comm_reducer(lambda x, y: x + y, lambda t: tvm.tir.const(0, dtype=t), "mysum")
    f, _, _ = build_reduction(mysum)
    a = np.random.rand(6, 7).astype("float32")
    b = tvm.nd.array(np.zeros(6, "float32"))
    f(tvm.nd.array(a), b)
    tvm.testing.assert_allclose(b.numpy(), a.sum(axis=1), rtol=1e-5)


def test_comm_reducer_where_and_int():
    """An int32 product-of-maxima reducer over the even positions only."""
    absmax = te.comm_reducer(
        lambda x, y: te.max(te.abs(x), te.abs(y)), lambda t: tvm.tir.const(0, dtype=t), "absmax"
    )
    f, _, _ = build_reduction(absmax, "int32", where=lambda k: te.floormod(k, 2) == 0)
    a = np.random.randint(-50, 50, (6, 7)).astype("int32")
    b = tvm.nd.array(np.zeros(6, "int32"))
    f(tvm.nd.array(a), b)
    np.testing.assert_array_equal(b.numpy(), np.abs(a[:, ::2]).max(axis=1))


def test_comm_reducer_scheduled():
    """A split reduce axis and a reordered nest keep the reducer's result."""
    logsumexp_like = te.comm_reducer(
        lambda x, y: te.log(te.exp(x) + te.exp(y)),
        lambda t: tvm.tir.const(-1e30, dtype=t),
        "logaddexp",
    )
    f, s, B = build_reduction(logsumexp_like, shape=(4, 12))
    ko, ki = s[B].split(B.op.reduce_axis[0], factor=4)
    s[B].reorder(ko, B.op.axis[0], ki)
    g = tvm.build(s, [B.op.input_tensors[0], B], "llvm")
    a = np.random.rand(4, 12).astype("float32")
    for fn in (f, g):
        b = tvm.nd.array(np.zeros(4, "float32"))
        fn(tvm.nd.array(a), b)
        tvm.testing.assert_allclose(b.numpy(), np.log(np.exp(a).sum(axis=1)), rtol=1e-5)


def test_comm_reducer_overload_combines():
    mysum = te.comm_reducer(lambda x, y: x + y, lambda t: tvm.tir.const(0, dtype=t))
    x = te.var("x")
    assert "add" in repr(mysum(x, 3)) or "+" in str(mysum(x, 3))


def test_comm_reducer_refusals():
    A = te.placeholder((4, 5), name="A")
    k = te.reduce_axis((0, 5), "k")
    n = te.var("n")
    varying = te.comm_reducer(lambda x, y: x + y, lambda t: n.astype(t), "varying")
    B = te.compute((4,), lambda i: varying(A[i, k], axis=k), name="B")
    with pytest.raises(NotImplementedError, match="identity must be a constant"):
        tvm.build(te.create_schedule(B.op), [n, A, B], "llvm")
    bad = te.comm_reducer(lambda x, y: x[0] + y[0], lambda t0, t1: (0, 0), "bad")
    with pytest.raises(tvm.TVMError, match="must return 2-tuples"):
        bad((k, A[0, k]), axis=k)
    argmax = te.comm_reducer(
        lambda x, y: (x[0], y[1]), lambda t0, t1: (tvm.tir.const(-1, t0), tvm.tir.const(0, t1))
    )
    T0, T1 = argmax((k, A[0, k]), axis=k)
    with pytest.raises(tvm.TVMError, match="values of one tuple reduction, in order"):
        te.compute((4,), lambda i: (T1, T0), name="T")


def argmax_reducer():
    def fcombine(x, y):
        lhs = tvm.tir.Select((x[1] >= y[1]), x[0], y[0])
        rhs = tvm.tir.Select((x[1] >= y[1]), x[1], y[1])
        return lhs, rhs

    def fidentity(t0, t1):
        return tvm.tir.const(-1, t0), tvm.te.min_value(t1)

    return te.comm_reducer(fcombine, fidentity, name="argmax")


@pytest.mark.parametrize("schedule", ["default", "split_reduce_outside"])
def test_tuple_reducer_argmax_numbers(schedule):
    """argmax by a tuple reducer (TVM's test_argmax), symbolic shapes; also with the reduce
    axis split and its outer part moved outside the spatial loop."""
    m, n = te.size_var("m"), te.size_var("n")
    idx = te.placeholder((m, n), name="idx", dtype="int32")
    val = te.placeholder((m, n), name="val", dtype="float32")
    k = te.reduce_axis((0, n), "k")
    T0, T1 = te.compute((m,), lambda i: argmax_reducer()((idx[i, k], val[i, k]), axis=k), name="T")
    s = te.create_schedule(T0.op)
    if schedule == "split_reduce_outside":
        ko, ki = s[T0].split(k, factor=4)
        s[T0].reorder(ko, T0.op.axis[0], ki)
    f = tvm.build(s, [idx, val, T0, T1], "llvm")
    h, w = 12, 16
    np_idx = np.repeat(np.arange(w, dtype="int32").reshape(1, w), h, axis=0)
    np_val = np.random.uniform(size=(h, w)).astype("float32")
    r0 = tvm.nd.array(np.full(h, 7, "int32"))
    r1 = tvm.nd.array(np.zeros(h, "float32"))
    f(tvm.nd.array(np_idx), tvm.nd.array(np_val), r0, r1)
    np.testing.assert_array_equal(r0.numpy(), np.argmax(np_val, axis=1))
    np.testing.assert_array_equal(r1.numpy(), np_val.max(axis=1))


def test_tuple_reducer_where_numbers():
    """A (sum, product) tuple reducer over the even positions only."""

    def fcombine(x, y):
        return x[0] + y[0], x[1] * y[1]

    def fidentity(t0, t1):
        return tvm.tir.const(0, t0), tvm.tir.const(1, t1)

    sumprod = te.comm_reducer(fcombine, fidentity, name="sumprod")
    A = te.placeholder((5, 8), name="A", dtype="int32")
    B = te.placeholder((5, 8), name="B", dtype="float32")
    k = te.reduce_axis((0, 8), "k")
    cond = te.floormod(k, 2) == 0
    S, P = te.compute((5,), lambda i: sumprod((A[i, k], B[i, k]), axis=k, where=cond), name="T")
    C = te.compute((5,), lambda i: S[i].astype("float32") + P[i], name="C")
    s = te.create_schedule(C.op)
    f = tvm.build(s, [A, B, C], "llvm")
    a = np.random.randint(-9, 9, (5, 8)).astype("int32")
    b = np.random.uniform(0.5, 1.5, (5, 8)).astype("float32")
    c = tvm.nd.array(np.zeros(5, "float32"))
    f(tvm.nd.array(a), tvm.nd.array(b), c)
    want = a[:, ::2].sum(axis=1) + b[:, ::2].prod(axis=1)
    np.testing.assert_allclose(c.numpy(), want, rtol=1e-5)
