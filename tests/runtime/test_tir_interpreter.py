"""The tir reference interpreter: scalar semantics (integer division and wrap-around, NaN
comparisons, casts), loops and guards, extern calls, kernel launches, vector ops, and its
errors."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.builder import ImplicitBuilder
from xdsl.dialects import arith, func, memref, vector
from xdsl.dialects.builtin import (
    FunctionType,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    VectorType,
    f32,
)
from xdsl.ir import Block, Region

from xtvm.dialects.registry import default_context
from xtvm.runtime import tir_interpreter
from xtvm.runtime.registry import register_func
from xtvm.runtime.tir_interpreter import TirInterpreterError

CTX = default_context()


def compile_text(text: str) -> tir_interpreter.CompiledModule:
    return tir_interpreter.compile_module(CTX.parse(text, "test.mlir"))


def test_integer_division_rounds_like_arith() -> None:
    module = compile_text(
        """
func.func @divide(%A: memref<8xi32>, %B: memref<8xi32>, %Q: memref<4x8xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c8 serial {
    %a = memref.load %A[%i] : memref<8xi32>
    %b = memref.load %B[%i] : memref<8xi32>
    %t = arith.divsi %a, %b : i32
    %f = arith.floordivsi %a, %b : i32
    %r = arith.remsi %a, %b : i32
    %c = arith.ceildivsi %a, %b : i32
    memref.store %t, %Q[%c0, %i] : memref<4x8xi32>
    memref.store %f, %Q[%c1, %i] : memref<4x8xi32>
    memref.store %r, %Q[%c2, %i] : memref<4x8xi32>
    memref.store %c, %Q[%c3, %i] : memref<4x8xi32>
  }
  func.return
}
"""
    )
    a = np.array([7, -7, 7, -7, 0, 9, -9, 1], "int32")
    b = np.array([2, 2, -2, -2, 3, 4, 4, -1], "int32")
    q = np.zeros((4, 8), "int32")
    module("divide", a, b, q)
    np.testing.assert_array_equal(q[0], np.trunc(a / b).astype("int32"))
    np.testing.assert_array_equal(q[1], a // b)
    np.testing.assert_array_equal(q[2], np.fmod(a, b))
    np.testing.assert_array_equal(q[3], -(-a // b))


def test_i8_arithmetic_wraps_and_casts_truncate() -> None:
    module = compile_text(
        """
func.func @wrap(%A: memref<3xi8>, %F: memref<3xf32>, %I: memref<3xi32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %k = arith.constant 100 : i8
  tir.for %i = %c0 to %c3 serial {
    %a = memref.load %A[%i] : memref<3xi8>
    %s = arith.addi %a, %k : i8
    memref.store %s, %A[%i] : memref<3xi8>
    %f = memref.load %F[%i] : memref<3xf32>
    %t = arith.fptosi %f : f32 to i32
    memref.store %t, %I[%i] : memref<3xi32>
  }
  func.return
}
"""
    )
    a = np.array([100, -100, 27], "int8")
    f = np.array([2.7, -2.7, 0.5], "float32")
    out = np.zeros(3, "int32")
    module("wrap", a, f, out)
    np.testing.assert_array_equal(a, np.array([100, -100, 27], "int8") + np.int8(100))
    np.testing.assert_array_equal(out, [2, -2, 0])


def test_float_compare_is_ordered_or_unordered_with_nan() -> None:
    module = compile_text(
        """
func.func @compare(%A: memref<2xf32>, %O: memref<2xi32>, %U: memref<2xi32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  tir.for %i = %c0 to %c2 serial {
    %a = memref.load %A[%i] : memref<2xf32>
    %o = arith.cmpf olt, %a, %zero : f32
    %u = arith.cmpf ult, %a, %zero : f32
    %oi = arith.extui %o : i1 to i32
    %ui = arith.extui %u : i1 to i32
    memref.store %oi, %O[%i] : memref<2xi32>
    memref.store %ui, %U[%i] : memref<2xi32>
  }
  func.return
}
"""
    )
    a = np.array([np.nan, -1.0], "float32")
    ordered, unordered = np.zeros(2, "int32"), np.zeros(2, "int32")
    module("compare", a, ordered, unordered)
    np.testing.assert_array_equal(ordered, [0, 1])
    np.testing.assert_array_equal(unordered, [1, 1])


@pytest.mark.usefixtures("preserve_registries")  # registers a global function
def test_scf_for_with_iter_args_and_extern_calls() -> None:
    register_func("test.tir_interpreter.double", lambda x: x * 2, override=True)
    module = compile_text(
        """
func.func @sum_exp(%A: memref<5xf32>, %B: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %c5 step %c1 iter_args(%acc = %zero) -> (f32) {
    %a = memref.load %A[%i] : memref<5xf32>
    %e = tir.call_extern "expf"(%a) : (f32) -> f32
    %next = arith.addf %acc, %e : f32
    scf.yield %next : f32
  }
  %d = tir.call_extern "test.tir_interpreter.double"(%sum) : (f32) -> f32
  memref.store %d, %B[%c0] : memref<1xf32>
  func.return
}
"""
    )
    a = np.linspace(-1, 1, 5, dtype="float32")
    b = np.zeros(1, "float32")
    module("sum_exp", a, b)
    np.testing.assert_allclose(b, [2 * np.exp(a).sum()], rtol=1e-6)
    assert b.dtype == np.float32


def test_intermediate_buffers_and_select() -> None:
    module = compile_text(
        """
func.func @relu_copy(%A: memref<4xf32>, %B: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %T = memref.alloc() : memref<4xf32, "local">
  tir.for %i = %c0 to %c4 serial {
    %a = memref.load %A[%i] : memref<4xf32>
    %p = arith.cmpf ogt, %a, %zero : f32
    %r = arith.select %p, %a, %zero : f32
    memref.store %r, %T[%i] : memref<4xf32, "local">
  }
  tir.for %i = %c0 to %c4 parallel {
    %t = memref.load %T[%i] : memref<4xf32, "local">
    memref.store %t, %B[%i] : memref<4xf32>
  }
  memref.dealloc %T : memref<4xf32, "local">
  func.return
}
"""
    )
    a = np.array([-1, 2, -3, 4], "float32")
    b = np.zeros(4, "float32")
    module("relu_copy", a, b)
    np.testing.assert_array_equal(b, np.maximum(a, 0))


def test_errors_name_what_is_wrong() -> None:
    module = compile_text(
        """
func.func @f(%A: memref<4xf32>) {
  func.return
}
"""
    )
    with pytest.raises(TirInterpreterError, match=r"expected float32\[4\], got float64\[4\]"):
        module("f", np.zeros(4))
    with pytest.raises(TirInterpreterError, match="takes 1 arguments, got 2"):
        module("f", np.zeros(4, "float32"), np.zeros(4, "float32"))
    with pytest.raises(TirInterpreterError, match="no function @g"):
        module("g")
    with pytest.raises(TirInterpreterError, match=r"unknown function 'nope' at test.mlir:3:"):
        compile_text(
            """
func.func @h(%x: f32) {
  %y = tir.call_extern "nope"(%x) : (f32) -> f32
  func.return
}
"""
        )
    with pytest.raises(TirInterpreterError, match=r"cannot run 'memref.copy' at test.mlir:3:"):
        compile_text(
            """
func.func @h(%a: memref<4xf32>, %b: memref<4xf32>) {
  "memref.copy"(%a, %b) : (memref<4xf32>, memref<4xf32>) -> ()
  func.return
}
"""
        )


def test_launch_runs_the_kernel_once_per_thread_of_the_grid() -> None:
    module = compile_text(
        """
func.func @ids(%B: memref<2x3x4xindex>) {
  %by = tir.thread_index "blockIdx.y"
  %bx = tir.thread_index "blockIdx.x"
  %tx = tir.thread_index "threadIdx.x"
  %c4 = arith.constant 4 : index
  %row = arith.muli %by, %c4 : index
  %id = arith.addi %row, %tx : index
  memref.store %id, %B[%by, %bx, %tx] : memref<2x3x4xindex>
  func.return
}
func.func @host(%B: memref<2x3x4xindex>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  tir.launch @ids(%B) blocks(%c3, %c2) threads(%c4) : memref<2x3x4xindex>
  func.return
}
"""
    )
    b = np.full((2, 3, 4), -1, "int64")
    module("host", b)
    by, _, tx = np.indices((2, 3, 4))
    np.testing.assert_array_equal(b, by * 4 + tx)


def test_vector_ops_run_on_numpy_arrays() -> None:
    """vector.load/store/broadcast/reduction and arith on vectors, as tir-vectorize emits them."""
    buffer, cell, lanes = MemRefType(f32, [8]), MemRefType(f32, [1]), VectorType(f32, [8])
    block = Block(arg_types=[buffer, cell, f32])
    a, best, s = block.args
    with ImplicitBuilder(block):
        zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
        x = vector.LoadOp(a, [zero], lanes)
        scaled = arith.MulfOp(x, vector.BroadcastOp(s, lanes))
        vector.StoreOp(scaled, a, [zero])
        old = memref.LoadOp.get(best, [zero])
        kind = vector.CombiningKindAttr(vector.CombiningKindFlag.MAXIMUMF)
        top = vector.ReductionOp.create(
            operands=[scaled.result, old.res], result_types=[f32], properties={"kind": kind}
        )
        memref.StoreOp.get(top.results[0], best, [zero])
        func.ReturnOp()
    kernel = func.FuncOp("vec", FunctionType.from_lists([buffer, cell, f32], []), Region(block))
    module = tir_interpreter.compile_module(ModuleOp([kernel]))
    data, largest = np.arange(8, dtype="float32") - 4, np.array([-100.0], "float32")
    module("vec", data, largest, np.float32(0.5))
    np.testing.assert_array_equal(data, (np.arange(8) - 4) * 0.5)
    assert largest[0] == 1.5


def test_round_takes_halves_away_from_zero_like_the_backends() -> None:
    """`math.round` (C's `round`) rounds halves away from zero in the interpreter as in
    compiled code; numpy's `round` would take them to even."""
    from xtvm.backends.llvm import build_module

    text = """
func.func @nearest(%A: memref<12xf32>, %B: memref<12xf32>) {
  %c0 = arith.constant 0 : index
  %c12 = arith.constant 12 : index
  tir.for %i = %c0 to %c12 serial {
    %a = memref.load %A[%i] : memref<12xf32>
    %r = math.round %a : f32
    memref.store %r, %B[%i] : memref<12xf32>
  }
  func.return
}
"""
    values = [0.5, 1.5, 2.5, -0.5, -2.5, 0.49999997, -0.49999997, 2.4999, 3.0, -0.0, np.inf]
    a = np.array([*values, np.nan], "float32")
    expected = np.array([1, 2, 3, -1, -3, 0, -0.0, 2, 3, -0.0, np.inf, np.nan], "float32")
    interpreted = np.zeros(12, "float32")
    compile_text(text)("nearest", a, interpreted)
    compiled = np.zeros(12, "float32")
    build_module(CTX.parse(text, "round.mlir"))["nearest"](a, compiled)
    np.testing.assert_array_equal(interpreted, expected)
    np.testing.assert_array_equal(compiled, expected)
    np.testing.assert_array_equal(np.signbit(interpreted), np.signbit(compiled))
