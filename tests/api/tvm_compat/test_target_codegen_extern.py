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
"""TVM v0.13's tests/python/unittest/test_target_codegen_extern.py, run with
`import xtvm as tvm` (the functions they register are removed after each test, see
conftest.py), then xtvm's own tests of `te.extern` with `tvm.tir.call_packed` and
`tvm.tir.call_extern`: values checked against numpy, errors checked by message.

All three of TVM's tests run unchanged (test_add_pipeline's GPU kernel is lowered, and built
only where a GPU is present).
"""

import ctypes
import subprocess

import numpy as np
import pytest

import xtvm as tvm
import xtvm.testing
from xtvm import te


@tvm.testing.uses_gpu
def test_add_pipeline():
    nn = 64
    max_threads = 4
    n = tvm.runtime.convert(nn)
    A = te.placeholder((n,), name="A")

    def extern_generator(ins, outs):
        """Manually write the IR for the extern function, add pipeline"""
        ib = tvm.tir.ir_builder.create()
        with ib.for_range(0, (n + 1) // 2) as i:
            ib.emit(
                outs[0].vstore(
                    i * 2, ins[0].vload(i * 2, "float32x2") + tvm.tir.const(1, "float32x2")
                )
            )
        return ib.get()

    def extern_generator_gpu(ins, outs):
        """Manually write the IR for the extern function, add pipeline"""
        ib = tvm.tir.ir_builder.create()
        bx = te.thread_axis("blockIdx.x")
        tx = te.thread_axis("threadIdx.x")
        ib.scope_attr(bx, "thread_extent", (nn + max_threads - 1) // max_threads)
        ib.scope_attr(tx, "thread_extent", max_threads)
        idx = bx.var * max_threads + tx.var
        with ib.if_scope(ib.likely(idx < n)):
            ib.emit(
                outs[0].vstore(
                    idx * 2, ins[0].vload(idx * 2, "float32x2") + tvm.tir.const(1, "float32x2")
                )
            )
        return ib.get()

    C_cpu = te.extern(A.shape, [A], extern_generator, name="C")
    C_gpu = te.extern(A.shape, [A], extern_generator_gpu, name="C")
    s_cpu = te.create_schedule(C_cpu.op)
    s_gpu = te.create_schedule(C_gpu.op)
    print(tvm.lower(s_cpu, [A, C_cpu], simple_mode=True))
    print(tvm.lower(s_gpu, [A, C_gpu], simple_mode=True))

    def check_target(target):
        if not tvm.testing.device_enabled(target):
            return
        s = s_gpu if target in ["opencl", "cuda"] else s_cpu
        C = C_gpu if target in ["opencl", "cuda"] else C_cpu
        # build and invoke the kernel.
        f = tvm.build(s, [A, C], target)
        dev = tvm.device(target, 0)
        # launch the kernel.
        n = nn
        a = tvm.nd.array(np.random.uniform(size=n).astype(A.dtype), dev)
        c = tvm.nd.array(np.zeros(n, dtype=C.dtype), dev)
        f(a, c)
        tvm.testing.assert_allclose(c.numpy(), a.numpy() + 1)

    check_target("llvm")
    check_target("opencl")
    check_target("cuda")


def test_pack_buffer_simple():
    nn = 1024
    n = tvm.runtime.convert(nn)
    A = te.placeholder((n,), name="A")

    def extern_generator(ins, outs):
        """Manually write the IR for the extern function, add pipeline."""
        return tvm.tir.call_packed("my_extern_array_func1", ins[0], outs[0])

    C = te.extern(A.shape, [A], extern_generator, name="C")
    s = te.create_schedule(C.op)

    @tvm.register_func
    def my_extern_array_func1(aa, bb):
        aa.copyto(bb)

    def check_target(target):
        if not tvm.testing.device_enabled(target):
            return
        # build and invoke the kernel.
        f = tvm.build(s, [A, C], target)
        dev = tvm.cpu(0)
        # launch the kernel.
        n = nn
        a = tvm.nd.array(np.random.uniform(size=n).astype(A.dtype), dev)
        c = tvm.nd.array(np.zeros(n, dtype=C.dtype), dev)

        f(a, c)
        tvm.testing.assert_allclose(c.numpy(), a.numpy())

    check_target("stackvm")
    check_target("llvm")


def test_pack_buffer_intermediate():
    nn = 1024
    n = tvm.runtime.convert(nn)
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1, name="B")

    def extern_generator(ins, outs):
        """Manually write the IR for the extern function, add pipeline."""
        return tvm.tir.call_packed("my_extern_array_func2", ins[0], outs[0])

    C = te.extern(B.shape, [B], extern_generator, name="C")
    s = te.create_schedule(C.op)

    def check_target(target):
        if not tvm.testing.device_enabled(target):
            return
        # build and invoke the kernel.
        f = tvm.build(s, [A, C], target)
        dev = tvm.cpu(0)
        # launch the kernel.
        n = nn
        a = tvm.nd.array(np.random.uniform(size=n).astype(A.dtype), dev)
        c = tvm.nd.array(np.zeros(n, dtype=C.dtype), dev)

        @tvm.register_func
        def my_extern_array_func2(aa, bb):
            assert aa.shape == a.shape
            tvm.testing.assert_allclose(aa.numpy(), a.numpy() + 1)
            aa.copyto(bb)

        f(a, c)
        tvm.testing.assert_allclose(c.numpy(), a.numpy() + 1)

    check_target("llvm")


# ---------------------------------------------------------------------------------------------
# xtvm's own


def test_packed_call_between_stages_with_scalars_and_2d_buffers():
    """A packed function between two computed stages, given 2-d views and scalars; its
    result read by the next stage (the numbers are numpy's)."""
    A = te.placeholder((4, 6), name="A")
    B = te.compute((4, 6), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.extern(
        (4, 6),
        [B],
        lambda ins, outs: tvm.tir.call_packed("test.scale_add", ins[0], outs[0], 3.0, 7),
        name="C",
    )
    D = te.compute((4, 6), lambda i, j: C[i, j] + 1.0, name="D")
    calls = []

    @tvm.register_func("test.scale_add")
    def scale_add(x, y, scale, shift):
        calls.append((x.shape, y.shape, scale, shift))
        y.copyfrom(x.numpy() * scale + shift)

    f = tvm.build(te.create_schedule(D.op), [A, D], "llvm")
    a = np.random.uniform(size=(4, 6)).astype("float32")
    d = tvm.nd.array(np.zeros((4, 6), "float32"))
    f(tvm.nd.array(a), d)
    np.testing.assert_allclose(d.numpy(), a * 2 * 3 + 7 + 1, rtol=1e-6)
    assert calls == [((4, 6), (4, 6), 3.0, 7)]


def test_extern_multi_out_built():
    A = te.placeholder((8,), name="A")

    def split_signs(x, pos, neg):
        values = x.numpy()
        pos.copyfrom(np.maximum(values, 0))
        neg.copyfrom(np.minimum(values, 0))

    tvm.register_func("test.split_signs", split_signs)
    P, N = te.extern(
        [(8,), (8,)],
        [A],
        lambda ins, outs: tvm.tir.call_packed("test.split_signs", ins[0], outs[0], outs[1]),
        name="S",
    )
    D = te.compute((8,), lambda i: P[i] * 10.0 + N[i], name="D")
    f = tvm.build(te.create_schedule(D.op), [A, D], "llvm")
    a = np.linspace(-2, 2, 8).astype("float32")
    d = tvm.nd.array(np.zeros(8, "float32"))
    f(tvm.nd.array(a), d)
    np.testing.assert_allclose(d.numpy(), np.maximum(a, 0) * 10 + np.minimum(a, 0))


def test_lower_prints_the_packed_call():
    A = te.placeholder((8,), name="A")
    C = te.extern(
        (8,), [A], lambda ins, outs: tvm.tir.call_packed("test.f", ins[0], outs[0]), name="C"
    )
    s = te.create_schedule(C.op)
    assert s[C].op is C.op
    text = str(tvm.lower(s, [A, C], simple_mode=True))
    assert 'tir.call_extern "test.f"(%A, %C) {packed = [memref<8xf32>, memref<8xf32>]}' in text


def test_a_failing_function_fails_the_kernel_with_its_message():
    A = te.placeholder((4,), name="A")
    C = te.extern(
        (4,), [A], lambda ins, outs: tvm.tir.call_packed("test.fails", ins[0], outs[0]), name="C"
    )

    @tvm.register_func("test.fails")
    def fails(x, y):
        raise ValueError("no such luck")

    f = tvm.build(te.create_schedule(C.op), [A, C], "llvm")
    a, c = tvm.nd.array(np.ones(4, "float32")), tvm.nd.array(np.zeros(4, "float32"))
    with pytest.raises(
        Exception, match="call_packed 'test.fails' failed: ValueError: no such luck"
    ):
        f(a, c)


def test_an_unregistered_function_is_reported_when_called():
    A = te.placeholder((4,), name="A")
    C = te.extern(
        (4,), [A], lambda ins, outs: tvm.tir.call_packed("test.missing", ins[0], outs[0]), name="C"
    )
    f = tvm.build(te.create_schedule(C.op), [A, C], "llvm")
    a, c = tvm.nd.array(np.ones(4, "float32")), tvm.nd.array(np.zeros(4, "float32"))
    with pytest.raises(Exception, match="no global function 'test.missing' is registered"):
        f(a, c)


@pytest.mark.parametrize("name", ["bad name", "x%s", "", "a..b", 'q"'])
def test_packed_names_are_validated(name):
    with pytest.raises(ValueError, match="call_packed"):
        tvm.tir.call_packed(name, 1)


def test_symbolic_extern_shapes_are_refused_when_building():
    m = te.size_var("m")
    A = te.placeholder((m,), name="A")
    B = te.extern((m,), [A], lambda ins, outs: tvm.tir.call_packed("f", ins[0], outs[0]))
    with pytest.raises(NotImplementedError, match="needs static shapes"):
        tvm.build(te.create_schedule(B.op), [A, B], "llvm")


def test_a_kernel_with_packed_calls_is_not_exported(tmp_path):
    A = te.placeholder((4,), name="A")
    C = te.extern(
        (4,), [A], lambda ins, outs: tvm.tir.call_packed("test.f", ins[0], outs[0]), name="C"
    )
    f = tvm.build(te.create_schedule(C.op), [A, C], "llvm")
    with pytest.raises(RuntimeError, match="cannot be exported"):
        f.export_library(str(tmp_path / "lib.so"))


C_SOURCE = """
#include <stdint.h>
int32_t xtvm_test_axpy(const float *x, float *y, float a, int32_t n) {
  for (int32_t i = 0; i < n; i++) y[i] = a * x[i] + 1.0f;
  return 0;
}
"""


def test_call_extern_of_a_linked_c_function(tmp_path):
    """`tvm.tir.call_extern` of a C function of a shared library loaded into the process:
    buffers passed as pointers (`access_ptr`), scalars by value."""
    source = tmp_path / "axpy.c"
    source.write_text(C_SOURCE)
    library = tmp_path / "libaxpy.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", str(source), "-o", str(library)], check=True)
    ctypes.CDLL(str(library), mode=ctypes.RTLD_GLOBAL)
    A = te.placeholder((16,), name="A")
    C = te.extern(
        (16,),
        [A],
        lambda ins, outs: tvm.tir.call_extern(
            "int32", "xtvm_test_axpy", ins[0].access_ptr("r"), outs[0].access_ptr("w"), 2.5, 16
        ),
        name="C",
    )
    D = te.compute((16,), lambda i: C[i] - 1.0, name="D")
    f = tvm.build(te.create_schedule(D.op), [A, D], "llvm")
    a = np.arange(16, dtype="float32")
    d = tvm.nd.array(np.zeros(16, "float32"))
    f(tvm.nd.array(a), d)
    np.testing.assert_allclose(d.numpy(), 2.5 * a)


def test_call_extern_names_are_validated():
    A = te.placeholder((4,), name="A")
    C = te.extern(
        (4,),
        [A],
        lambda ins, outs: tvm.tir.call_extern("int32", "f(); system", ins[0].access_ptr("r")),
        name="C",
    )
    with pytest.raises(Exception, match="f\\(\\); system"):
        tvm.build(te.create_schedule(C.op), [A, C], "llvm")


def test_packed_calls_need_the_llvm_jit():
    A = te.placeholder((4,), name="A")
    C = te.extern(
        (4,), [A], lambda ins, outs: tvm.tir.call_packed("test.f", ins[0], outs[0]), name="C"
    )
    with pytest.raises(Exception, match="build for the llvm target"):
        tvm.build(te.create_schedule(C.op), [A, C], "c")


@pytest.mark.parametrize("where", ["inline", "at"])
def test_an_extern_stage_cannot_be_inlined_or_computed_at(where):
    A = te.placeholder((8,), name="A")
    C = te.extern((8,), [A], lambda ins, outs: tvm.tir.call_packed("f", ins[0], outs[0]), name="C")
    D = te.compute((8,), lambda i: C[i] + 1, name="D")
    s = te.create_schedule(D.op)
    if where == "inline":
        s[C].compute_inline()
    else:
        s[C].compute_at(s[D], D.op.axis[0])
    with pytest.raises(Exception, match="cannot be inlined or computed at a loop"):
        tvm.lower(s, [A, D])
