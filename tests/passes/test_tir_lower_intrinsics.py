"""tir-lower-intrinsics: every math op the pass lowers computes the same as a libm call (tir
interpreter on random inputs, f16/f32/f64), and the keep option decides what stays."""

from __future__ import annotations

import pytest
from xdsl.dialects import math as xmath

import xtvm as tvm
from xtvm import te
from xtvm.dialects import tir
from xtvm.dialects.registry import default_context
from xtvm.passes.tir_lower_intrinsics import LIBM, TirLowerIntrinsicsPass
from xtvm.testing.passes import assert_same_tir_behaviour as assert_same_behaviour
from xtvm.testing.passes import count, run

CTX = default_context()
BINARY = {"powf", "atan2", "copysign"}
UNARY = [*sorted(op.name.removeprefix("math.") for op in LIBM if op is not xmath.FmaOp), "rsqrt"]


def kernel(op: str, typ: str) -> str:
    """`B[i] = op(A[i])` (or `op(A[i], A[i + 1])`) over 16 elements of `typ`."""
    if op in BINARY:
        body = f"""%y = memref.load %A[%i1] : memref<17x{typ}>
    %r = math.{op} %x, %y : {typ}"""
    elif op == "fma":
        body = f"%r = math.fma %x, %x, %x : {typ}"
    else:
        body = f"%r = math.{op} %x : {typ}"
    return f"""
func.func @{op}_{typ}(%A: memref<17x{typ}>, %B: memref<16x{typ}>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  tir.for %i = %c0 to %c16 serial {{
    %i1 = arith.addi %i, %c1 : index
    %x = memref.load %A[%i] : memref<17x{typ}>
    {body}
    memref.store %r, %B[%i] : memref<16x{typ}>
  }}
  func.return
}}
"""


@pytest.mark.parametrize("typ", ["f32", "f64", "f16"])
def test_every_lowered_op_computes_the_same(typ: str) -> None:
    text = "".join(kernel(op, typ) for op in [*UNARY, "fma"])
    module = CTX.parse(text, "math.mlir")
    before = module.clone()
    run(module, TirLowerIntrinsicsPass(keep=()))
    assert count(module, tir.CallExternOp) == len(UNARY) + 1  # one call per kernel
    assert not any(op.dialect_name() == "math" for op in module.walk())
    assert_same_behaviour(before, module, rtol={"f16": 2e-3, "f32": 1e-6, "f64": 1e-12}[typ])


def test_default_keeps_the_ops_with_instructions() -> None:
    module = CTX.parse("".join(kernel(op, "f32") for op in ["sqrt", "absf", "exp"]), "k.mlir")
    run(module, TirLowerIntrinsicsPass())
    assert count(module, xmath.SqrtOp) == count(module, xmath.AbsFOp) == 1
    assert [op.callee.data for op in module.walk() if isinstance(op, tir.CallExternOp)] == ["expf"]


def test_te_kernel_with_intrinsics() -> None:
    A = te.placeholder((5, 7), name="A")
    B = te.compute(A.shape, lambda i, j: te.sigmoid(A[i, j]) + te.tanh(A[i, j]), name="B")
    C = te.compute(A.shape, lambda i, j: te.sqrt(te.abs(B[i, j])) * te.exp(A[i, j]), name="C")
    s = te.create_schedule(C.op)
    s[B].compute_inline()
    module = tvm.lower(s, [A, C], name="kernel").xdsl
    before = module.clone()
    run(module, TirLowerIntrinsicsPass())
    assert count(module, tir.CallExternOp) >= 2
    assert_same_behaviour(before, module, rtol=1e-6)
