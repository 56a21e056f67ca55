"""TVM v0.13's scans: gallery/how_to/work_with_schedules/scan.py (CPU parts) and the scan
tests of tests/python/unittest/test_te_tensor.py and test_te_schedule_ops.py, run with
`import xtvm as tvm` and checked against numpy on LLVM.

Deliberate difference: a shape variable must be a dimension of an input (or an argument);
TVM's tutorial's `l`, seen only in an output, is a static extent here.
"""

import numpy as np

import xtvm as tvm
from xtvm import te


def build_and_run(s, args, inputs, out_shapes):
    f = tvm.build(s, args, "llvm")
    outs = [np.zeros(shape, "float32") for shape in out_shapes]
    f(*inputs, *outs)
    return outs


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


def test_scan_multi_out():
    m = te.size_var("m")
    n = te.size_var("n")
    x1 = te.placeholder((m, n))
    s1 = te.placeholder((m, n))
    x2 = te.placeholder((m, n))
    s2 = te.placeholder((m, n))

    def update(t, i):
        return s1[t - 1, i] + x1[t, i], s2[t - 1, i] + x2[t, i]

    s1_update, s2_update = te.compute((m, n), update)
    r0, r1 = tvm.te.scan(
        [te.compute((1, n), lambda _, i: x1[0, i]), te.compute((1, n), lambda _, i: x2[0, i])],
        [s1_update, s2_update],
        [s1, s2],
    )
    assert r0.value_index == 0
    assert r1.value_index == 1
    assert r0.op.num_outputs == 2
    # xtvm: it runs
    s = te.create_schedule(r0.op)
    a, b = np.random.rand(5, 3).astype("float32"), np.random.rand(5, 3).astype("float32")
    o0, o1 = build_and_run(s, [x1, x2, r0, r1], [a, b], [(5, 3), (5, 3)])
    np.testing.assert_allclose(o0, np.cumsum(a, axis=0), rtol=1e-5)
    np.testing.assert_allclose(o1, np.cumsum(b, axis=0), rtol=1e-5)


def test_cumulative_sum_tutorial():
    m = te.var("m")
    n = te.var("n")
    X = te.placeholder((m, n), name="X")
    s_state = te.placeholder((m, n))
    s_init = te.compute((1, n), lambda _, i: X[0, i])
    s_update = te.compute((m, n), lambda t, i: s_state[t - 1, i] + X[t, i])
    s_scan = tvm.te.scan(s_init, s_update, s_state, inputs=[X])
    s = te.create_schedule(s_scan.op)
    text = str(tvm.lower(s, [X, s_scan], simple_mode=True))
    assert "tir.for %scan_idx" in text
    x = np.random.rand(7, 9).astype("float32")
    (out,) = build_and_run(s, [X, s_scan], [x], [x.shape])
    np.testing.assert_allclose(out, np.cumsum(x, axis=0), rtol=1e-5)


def test_multi_stage_scan_tutorial():
    m = te.var("m")
    n = te.var("n")
    X = te.placeholder((m, n), name="X")
    s_state = te.placeholder((m, n))
    s_init = te.compute((1, n), lambda _, i: X[0, i])
    s_update_s1 = te.compute((m, n), lambda t, i: s_state[t - 1, i] * 2, name="s1")
    s_update_s2 = te.compute((m, n), lambda t, i: s_update_s1[t, i] + X[t, i], name="s2")
    s_scan = tvm.te.scan(s_init, s_update_s2, s_state, inputs=[X])
    s = te.create_schedule(s_scan.op)
    xo, _ = s[s_update_s2].split(s_update_s2.op.axis[1], factor=32)
    s[s_update_s1].compute_at(s[s_update_s2], xo)
    x = np.random.rand(6, 70).astype("float32")
    (out,) = build_and_run(s, [X, s_scan], [x], [x.shape])
    want = x.copy()
    for t in range(1, 6):
        want[t] = want[t - 1] * 2 + x[t]
    np.testing.assert_allclose(out, want, rtol=1e-5)


def test_multiple_states_tutorial():
    m = te.var("m")
    n = te.var("n")
    l = 4  # noqa: E741
    X = te.placeholder((m, n), name="X")
    s_state1 = te.placeholder((m, n))
    s_state2 = te.placeholder((m, l))
    s_init1 = te.compute((1, n), lambda _, i: X[0, i])
    s_init2 = te.compute((1, l), lambda _, i: 0.0)
    s_update1 = te.compute((m, n), lambda t, i: s_state1[t - 1, i] + X[t, i])
    s_update2 = te.compute((m, l), lambda t, i: s_state2[t - 1, i] + s_state1[t - 1, 0])
    s_scan1, s_scan2 = tvm.te.scan([s_init1, s_init2], [s_update1, s_update2], [s_state1, s_state2])
    s = te.create_schedule(s_scan1.op)
    x = np.random.rand(5, 3).astype("float32")
    o1, o2 = build_and_run(s, [X, s_scan1, s_scan2], [x], [(5, 3), (5, l)])
    c = np.cumsum(x, axis=0)
    want2 = np.zeros((5, l), "float32")
    for t in range(1, 5):
        want2[t] = want2[t - 1] + c[t - 1, 0]
    np.testing.assert_allclose(o1, c, rtol=1e-5)
    np.testing.assert_allclose(o2, want2, rtol=1e-5)


def test_scan_inline1():
    m = te.var("m")
    n = te.var("n")
    X = te.placeholder((m, n), name="X")  # xtvm: an input binds m and n
    x = te.compute((m, n), lambda i, j: X[i, j] * 0 + tvm.tir.const(1, "float32"), name="x")
    s_state1 = te.placeholder((m, n))
    s_state2 = te.placeholder((m, n))
    s_init1 = te.compute((1, n), lambda _, i: x[0, i])
    s_init2 = te.compute((1, n), lambda _, i: x[0, i])
    s_x1 = te.compute((m, n), lambda t, i: s_state1[t - 1, i] + x[t, i], name="x1")
    s_x2 = te.compute((m, n), lambda t, i: s_state2[t - 1, i] + 1, name="x2")
    s_update1 = te.compute((m, n), lambda t, i: s_x1[t, i], "u1")
    s_update2 = te.compute((m, n), lambda t, i: s_x2[t, i], "u2")
    res1, res2 = tvm.te.scan([s_init1, s_init2], [s_update1, s_update2], [s_state1, s_state2])
    s = te.create_schedule(res1.op)
    s[s_x1].compute_inline()
    tvm.lower(s, [X, x, res1, res2])
    o = build_and_run(s, [X, x, res1, res2], [np.zeros((3, 2), "float32")], [(3, 2)] * 3)
    np.testing.assert_allclose(o[1], [[1, 1], [2, 2], [3, 3]])
    np.testing.assert_allclose(o[2], [[1, 1], [2, 2], [3, 3]])


def test_scan_inline2():
    m = te.var("m")
    n = te.var("n")
    X = te.placeholder((m, n), name="X")  # xtvm: an input binds m and n
    x = te.compute((m, n), lambda i, j: X[i, j], name="x")
    s_state1 = te.placeholder((m, n))
    s_state2 = te.placeholder((m, n))
    s_init1 = te.compute((1, n), lambda _, i: x[0, i])
    s_init2 = te.compute((1, n), lambda _, i: x[0, i])
    s_xx = te.compute((m, n), lambda t, i: s_state1[t - 1, i] + x[t, i], name="xx")
    s_x1 = te.compute((m, n), lambda t, i: s_xx[t, i] + 1, name="x1")
    s_x2 = te.compute((m, n), lambda t, i: s_xx[t, i] + s_state2[t - 1, 2], name="x2")
    s_update1 = te.compute((m, n), lambda t, i: s_x1[t, i], "u1")
    s_update2 = te.compute((m, n), lambda t, i: s_x2[t, i], "u2")
    res1, res2 = tvm.te.scan([s_init1, s_init2], [s_update1, s_update2], [s_state1, s_state2])
    s = te.create_schedule(res1.op)
    s[s_xx].compute_inline()
    s[s_x1].compute_inline()
    s[s_x2].compute_inline()
    a = np.random.rand(4, 5).astype("float32")
    o1, o2 = build_and_run(s, [X, res1, res2], [a], [(4, 5), (4, 5)])
    w1, w2 = a.copy(), a.copy()
    for t in range(1, 4):
        w1[t] = w1[t - 1] + a[t] + 1
        w2[t] = w1[t - 1] + a[t] + w2[t - 1, 2]
    np.testing.assert_allclose(o1, w1, rtol=1e-5)
    np.testing.assert_allclose(o2, w2, rtol=1e-5)
