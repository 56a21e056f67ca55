"""Tensor intrinsics for tir-tensorize.mlir: an 8x8x8 gemm with body/reset/update (`C[i, j] +=
A[i, k] * B[j, k]` on strided tiles) and a 16-wide vector add on a compact 1-d buffer."""

from __future__ import annotations

import xtvm as tvm
from xtvm import te


def gemm() -> te.TensorIntrin:
    a = te.placeholder((8, 8), name="A")
    b = te.placeholder((8, 8), name="B")
    k = te.reduce_axis((0, 8), name="k")
    c = te.compute((8, 8), lambda i, j: te.sum(a[i, k] * b[j, k], axis=k), name="C")

    def lower(ins, outs):
        aa, bb = ins
        (cc,) = outs

        def call(name):
            ib = tvm.tir.ir_builder.create()
            pointers = aa.access_ptr("r"), bb.access_ptr("r"), cc.access_ptr("w")
            strides = aa.strides[0], bb.strides[0], cc.strides[0]
            ib.emit(tvm.tir.call_extern("int32", name, *pointers, *strides))
            return ib.get()

        return call("gemm_body"), call("gemm_reset"), call("gemm_update")

    binds = {
        t: tvm.tir.decl_buffer(
            t.shape, t.dtype, t.name, offset_factor=1, strides=[te.var(f"{t.name}_s"), 1]
        )
        for t in (a, b, c)
    }
    return te.decl_tensor_intrin(c.op, lower, name="gemm8x8x8", binds=binds)


def vadd() -> te.TensorIntrin:
    a = te.placeholder((16,), name="A")
    b = te.placeholder((16,), name="B")
    c = te.compute((16,), lambda i: a[i] + b[i], name="C")

    def lower(ins, outs):
        return tvm.tir.call_extern(
            "int32",
            "vadd16",
            ins[0].access_ptr("r"),
            ins[1].access_ptr("r"),
            outs[0].access_ptr("w"),
            outs[0].elem_offset,
        )

    return te.decl_tensor_intrin(
        c.op, lower, name="vadd16", default_buffer_params={"offset_factor": 16}
    )


def xtvm_plugin(registry: object) -> None:
    for intrin in (gemm(), vadd()):
        te.register_tensor_intrin(intrin.name, intrin, override=True)
