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
"""TVM v0.13's tests/python/integration/test_reduce.py, run with `import xtvm as tvm`: its
CPU tests (init values, rfactor, argmax by a tuple reducer) unchanged, built for llvm and
checked against numpy; then xtvm's own tests of rfactor.

Imports as TVM's (`tvm.topi.testing`, `tvm.driver.build_module.schedule_to_module`). Skipped, GPU only: reductions bound to GPU threads (cross-thread and warp reductions,
`set_store_predicate`) and test_reduce_storage_reuse.
"""

import numpy as np
import pytest

import xtvm as tvm
from xtvm import te, topi
from xtvm.driver.build_module import schedule_to_module
import xtvm.testing
import xtvm.topi.testing


@pytest.mark.skip(reason="GPU only: reductions bound to GPU threads (cross-thread reduction)")
def test_reduce_prims():
    pass


def test_init_imm():
    """Test initial values which are immutable in reduction ops."""
    num_n = 1027
    arr_length = tvm.runtime.convert(num_n)
    placeholder_a = te.placeholder((arr_length,), name="A")
    axis_k = te.reduce_axis((0, arr_length))
    result_b = te.compute(
        (), lambda: te.sum(placeholder_a[axis_k], axis=axis_k, init=10.0), name="B"
    )
    # schedule
    schedule_s = te.create_schedule(result_b.op)

    # one line to build the function.
    def check_target(target="llvm"):
        if not tvm.runtime.enabled(target):
            return
        dev = tvm.cpu(0)
        fapi = tvm.lower(schedule_s, args=[placeholder_a, result_b])
        fsum = tvm.build(fapi, target=target, name="mysum")
        # launch the kernel.
        buff_a = tvm.nd.array(np.random.uniform(size=(num_n,)).astype(placeholder_a.dtype), dev)
        buff_b = tvm.nd.array(np.zeros((), dtype=result_b.dtype), dev)
        fsum(buff_a, buff_b)
        res = 10.0 + np.sum(buff_a.numpy(), axis=0)
        tvm.testing.assert_allclose(buff_b.numpy(), res, rtol=1e-4)

    check_target()


def test_init():
    """Test initializer which is non-const."""
    num_n = 1027
    arr_length = tvm.runtime.convert(num_n)
    placeholder_a = te.placeholder((arr_length, arr_length), name="A")
    placeholder_c = te.placeholder((arr_length, arr_length), name="C")
    placeholder_i = te.placeholder((arr_length, arr_length), name="I")
    axis_k = te.reduce_axis((0, arr_length))
    result_b = te.compute(
        (arr_length, arr_length),
        lambda i, j: te.sum(
            placeholder_a[i, axis_k] * placeholder_c[axis_k, j],
            axis=axis_k,
            init=placeholder_i[i, j],
        ),
        name="B",
    )

    # schedule
    schedule = te.create_schedule(result_b.op)

    # one line to build the function.
    def check_target(target="llvm"):
        if not tvm.runtime.enabled(target):
            return
        dev = tvm.cpu(0)
        fapi = tvm.lower(schedule, args=[placeholder_a, placeholder_c, placeholder_i, result_b])
        print(fapi)
        mmult = tvm.build(fapi, target=target, name="mmult")
        # launch the kernel.
        buff_a = tvm.nd.array(
            np.random.uniform(size=(num_n, num_n)).astype(placeholder_a.dtype), dev
        )
        buff_c = tvm.nd.array(
            np.random.uniform(size=(num_n, num_n)).astype(placeholder_c.dtype), dev
        )
        buff_i = tvm.nd.array(np.random.uniform(size=(num_n, num_n)).astype(result_b.dtype), dev)
        buf_b = tvm.nd.array(np.zeros((num_n, num_n), dtype=result_b.dtype), dev)
        mmult(buff_a, buff_c, buff_i, buf_b)
        res = buff_i.numpy() + np.matmul(buff_a.numpy(), buff_c.numpy())
        tvm.testing.assert_allclose(buf_b.numpy(), res, rtol=1e-4)

    check_target()


def test_rfactor():
    """Test rfactors."""
    num_n = 1027
    arr_length = tvm.runtime.convert(num_n)
    placeholder_a = te.placeholder((arr_length,), name="A")
    axis_k = te.reduce_axis((0, arr_length))
    placeholder_b = te.compute((), lambda: te.sum(placeholder_a[axis_k], axis=axis_k), name="B")
    # schedule
    schedule = te.create_schedule(placeholder_b.op)
    axis_kf, _ = schedule[placeholder_b].split(axis_k, nparts=4)
    rfactor_bf = schedule.rfactor(placeholder_b, axis_kf)
    schedule[rfactor_bf].parallel(rfactor_bf.op.axis[0])

    # one line to build the function.
    def check_target(target="llvm"):
        if not tvm.testing.device_enabled(target):
            return
        dev = tvm.cpu(0)
        fapi = tvm.lower(schedule, args=[placeholder_a, placeholder_b])
        fsum = tvm.build(fapi, target=target, name="mysum")
        # launch the kernel.
        buff_a = tvm.nd.array(np.random.uniform(size=(num_n,)).astype(placeholder_a.dtype), dev)
        buff_b = tvm.nd.array(np.zeros((), dtype=placeholder_b.dtype), dev)
        fsum(buff_a, buff_b)
        res = np.sum(buff_a.numpy(), axis=0)
        tvm.testing.assert_allclose(buff_b.numpy(), res, rtol=1e-4)

    check_target()


def test_rfactor_init():
    """Test rfactors with constant inits."""
    num_n = 1027
    arr_length = tvm.runtime.convert(num_n)
    placeholder_a = te.placeholder((arr_length, arr_length), name="A")
    placeholder_c = te.placeholder((arr_length, arr_length), name="C")
    placeholder_i = te.placeholder((arr_length, arr_length), name="I")
    axis_k = te.reduce_axis((0, arr_length))
    result_b = te.compute(
        (arr_length, arr_length),
        lambda i, j: te.sum(
            placeholder_a[i, axis_k] * placeholder_c[axis_k, j],
            axis=axis_k,
            init=placeholder_i[i, j],
        ),
        name="B",
    )

    # schedule
    schedule = te.create_schedule(result_b.op)
    axis_kf, _ = schedule[result_b].split(axis_k, nparts=4)
    rfactor_bf = schedule.rfactor(result_b, axis_kf, 1)
    schedule[rfactor_bf].parallel(rfactor_bf.op.axis[0])

    # one line to build the function.
    def check_target(target="llvm"):
        if not tvm.runtime.enabled(target):
            return
        dev = tvm.cpu(0)
        fapi = tvm.lower(schedule, args=[placeholder_a, placeholder_c, placeholder_i, result_b])
        print(fapi)
        mmult = tvm.build(fapi, target=target, name="mmult")
        # launch the kernel.
        buff_a = tvm.nd.array(
            np.random.uniform(size=(num_n, num_n)).astype(placeholder_a.dtype), dev
        )
        buff_c = tvm.nd.array(
            np.random.uniform(size=(num_n, num_n)).astype(placeholder_c.dtype), dev
        )
        buff_i = tvm.nd.array(np.random.uniform(size=(num_n, num_n)).astype(result_b.dtype), dev)
        buff_b = tvm.nd.array(np.zeros((num_n, num_n), dtype=result_b.dtype), dev)
        mmult(buff_a, buff_c, buff_i, buff_b)
        res = buff_i.numpy() + np.matmul(buff_a.numpy(), buff_c.numpy())
        tvm.testing.assert_allclose(buff_b.numpy(), res, rtol=1e-4)

    check_target()


def test_rfactor_factor_axis():
    """Test rfactors across axis."""
    num_n = 1027
    arr_length = tvm.runtime.convert(num_n)
    placeholder_a = te.placeholder((arr_length,), name="A")
    axis_k = te.reduce_axis((0, arr_length))
    placeholder_b = te.compute((), lambda: te.sum(placeholder_a[axis_k], axis=axis_k), name="B")
    # schedule
    schedule = te.create_schedule(placeholder_b.op)
    axis_kf, _ = schedule[placeholder_b].split(axis_k, nparts=4)
    rfactor_bf = schedule.rfactor(placeholder_b, axis_kf, 0)
    schedule[rfactor_bf].parallel(rfactor_bf.op.axis[0])

    # one line to build the function.
    def check_target(target="llvm"):
        if not tvm.testing.device_enabled(target):
            return
        dev = tvm.cpu(0)
        fapi = tvm.lower(schedule, args=[placeholder_a, placeholder_b])
        fsum = tvm.build(fapi, target=target, name="mysum")
        # launch the kernel.
        buff_a = tvm.nd.array(np.random.uniform(size=(num_n,)).astype(placeholder_a.dtype), dev)
        buff_b = tvm.nd.array(np.zeros((), dtype=placeholder_b.dtype), dev)
        fsum(buff_a, buff_b)
        res = np.sum(buff_a.numpy(), axis=0)
        tvm.testing.assert_allclose(buff_b.numpy(), res, rtol=1e-4)

    check_target()


@pytest.mark.skip(
    reason="GPU only: rfactor with the reduce axis bound to threadIdx (cross-thread reduction, set_store_predicate)"
)
def test_rfactor_threads():
    pass


@pytest.mark.skip(
    reason="GPU only: rfactor with the reduce axis bound to threadIdx (cross-thread reduction, set_store_predicate)"
)
def test_rfactor_elemwise_threads():
    pass


def test_argmax():
    """Test argmax."""

    def fcombine(tensor_x, tensor_y):
        lhs = tvm.tir.Select((tensor_x[1] >= tensor_y[1]), tensor_x[0], tensor_y[0])
        rhs = tvm.tir.Select((tensor_x[1] >= tensor_y[1]), tensor_x[1], tensor_y[1])
        return lhs, rhs

    def fidentity(tensor1, tensor2):
        return tvm.tir.const(-1, tensor1), tvm.te.min_value(tensor2)

    argmax = te.comm_reducer(fcombine, fidentity, name="argmax")
    size_var_m = te.size_var("m")
    size_var_n = te.size_var("n")
    idx = te.placeholder((size_var_m, size_var_n), name="idx", dtype="int32")
    val = te.placeholder((size_var_m, size_var_n), name="val", dtype="float32")
    axis_k = te.reduce_axis((0, size_var_n), "k")
    result_t0, result_t1 = te.compute(
        (size_var_m,), lambda i: argmax((idx[i, axis_k], val[i, axis_k]), axis=axis_k), name="T"
    )
    schedule = te.create_schedule(result_t0.op)

    def check_target():
        device = "cpu"
        if not tvm.testing.device_enabled(device):
            print("skip because %s is not enabled.." % device)
            return
        dev = tvm.device(device, 0)
        fapi = tvm.lower(schedule, args=[idx, val, result_t0, result_t1])
        fargmax = tvm.build(fapi, target="llvm", name="argmax")

        height = 12
        width = 16
        np_idx = np.repeat(np.arange(width, dtype="int32").reshape(1, width), height, axis=0)
        np_val = np.random.uniform(size=(height, width)).astype("float32")
        np_res = np.argmax(np_val, axis=1)

        nd_idx = tvm.nd.array(np_idx, dev)
        nd_val = tvm.nd.array(np_val, dev)
        nd_res0 = tvm.nd.array(np.zeros(height, dtype="int32"), dev)
        nd_res1 = tvm.nd.array(np.zeros(height, dtype="float32"), dev)
        fargmax(nd_idx, nd_val, nd_res0, nd_res1)
        tvm.testing.assert_allclose(np_res, nd_res0.numpy())

    check_target()


@pytest.mark.skip(
    reason="GPU only: rfactor of a tuple reducer bound to threadIdx (cross-thread reduction)"
)
def test_rfactor_argmax():
    pass


@pytest.mark.skip(reason="GPU only: warp reductions")
def test_warp_reduction1():
    pass


@pytest.mark.skip(reason="GPU only: warp reductions")
def test_warp_reduction2():
    pass


@pytest.mark.skip(
    reason="CUDA only: tir.transform passes on schedule_to_module's PrimFunc, topi.testing"
)
def test_reduce_storage_reuse():
    pass


# xtvm's own: rfactor


def test_rfactor_custom_reducer_two_axes_numbers():
    """rfactor of a comm_reducer over two reduce axes, the factored axis split by a factor
    that does not divide it, placed at factor_axis 1; its stage parallel, B split."""
    absmax = te.comm_reducer(
        lambda x, y: te.max(te.abs(x), te.abs(y)), lambda t: tvm.tir.const(0, dtype=t), "absmax"
    )
    A = te.placeholder((6, 5, 23), name="A")
    r = te.reduce_axis((0, 5), "r")
    k = te.reduce_axis((0, 23), "k")
    B = te.compute((6,), lambda i: absmax(A[i, r, k], axis=[r, k]), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(k, factor=4)
    BF = s.rfactor(B, ki, factor_axis=1)
    assert tuple(BF.shape) == (6, 4)
    s[BF].parallel(BF.op.axis[0])
    io, ii = s[B].split(B.op.axis[0], factor=4)
    f = tvm.build(s, [A, B], "llvm")
    a = np.random.uniform(-1, 1, (6, 5, 23)).astype("float32")
    b = tvm.nd.array(np.zeros(6, "float32"))
    f(tvm.nd.array(a), b)
    np.testing.assert_array_equal(b.numpy(), np.abs(a).max(axis=(1, 2)))


def test_rfactor_refusals():
    A = te.placeholder((8, 16), name="A")
    k = te.reduce_axis((0, 16), "k")
    B = te.compute((8,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(k, factor=4)
    s[B].reorder(ki, B.op.axis[0], ko)
    with pytest.raises(tvm.TVMError, match="call it after splitting only the reduce axis"):
        s.rfactor(B, ki)
    C = te.compute((8,), lambda i: A[i, 0] * 2, name="C")
    with pytest.raises(tvm.TVMError, match="is not a reduction of one value"):
        te.create_schedule(C.op).rfactor(C, C.op.axis[0])
    s = te.create_schedule(B.op)
    with pytest.raises(tvm.TVMError, match="is not a loop of stage B"):
        s.rfactor(B, te.reduce_axis((0, 4), "x"))
