// A target file's intrinsic in the pass pipeline: with vta.mlir loaded, tir-tensorize replaces
// the 8x8x8 nest of the accumulator stage by the intrinsic's reset (on the first chunk of k)
// and update calls, on views of the scratchpad tiles. A nest reading main memory instead of
// the intrinsic's scratchpads is a located error.
// RUN: not xtvm-opt --load-target %S/../../examples/accelerators/vta/vta.mlir %s \
// RUN:   --split-input-file -p convert-te-to-tir,tir-tensorize | filecheck %s
// RUN: not xtvm-opt --load-target %S/../../examples/accelerators/vta/vta.mlir %s \
// RUN:   --split-input-file -p convert-te-to-tir,tir-tensorize 2>&1 | filecheck %s --check-prefix=ERR

// CHECK-LABEL: func.func @gemm
// CHECK:         %[[ACC:.*]] = memref.alloc() : memref<8x8xi32, "acc">
// CHECK:         tir.for %[[KO:.*]] = %{{.*}} to %{{.*}} serial {
// CHECK:           %[[WGT:.*]] = memref.alloc() : memref<8x8xi8, "wgt">
// CHECK:           %[[INP:.*]] = memref.alloc() : memref<8x8xi8, "inp">
// CHECK:           %[[IV:.*]] = memref.subview %[[INP]][
// CHECK:           %[[WV:.*]] = memref.subview %[[WGT]][
// CHECK:           %[[AV:.*]] = memref.subview %[[ACC]][
// CHECK:           scf.if
// CHECK-NEXT:        tir.call_extern "vta_gemm_reset"(%[[AV]], %{{.*}})
// CHECK:           tir.call_extern "vta_gemm_update"(%[[AV]], %[[IV]], %[[WV]], %{{.*}}, %{{.*}}, %{{.*}})
func.func @gemm(%A: tensor<8x16xi8>, %B: tensor<8x16xi8>) -> tensor<8x8xi32> {
  %C = te.compute "C" {
  ^bb0(%i: index, %j: index):
    %s = te.reduce "sum" {
    ^bb0(%k: index):
      %a = te.read %A[%i, %k] : tensor<8x16xi8> -> i8
      %a32 = arith.extsi %a : i8 to i32
      %b = te.read %B[%j, %k] : tensor<8x16xi8> -> i8
      %b32 = arith.extsi %b : i8 to i32
      %p = arith.muli %a32, %b32 : i32
      te.yield %p : i32
    } {extents = array<i64: 16>, axis_names = ["k"]} : i32
    te.yield %s : i32
  } {axis_names = ["i", "j"]} : tensor<8x8xi32>
  te.schedule {
    %C.acc = te.cache_write %C {name = "C.acc", scope = "acc"} : tensor<8x8xi32>
    %A.inp = te.cache_read %A {name = "A.inp", scope = "inp", readers = ["C.acc"]} : tensor<8x16xi8>
    %B.wgt = te.cache_read %B {name = "B.wgt", scope = "wgt", readers = ["C.acc"]} : tensor<8x16xi8>
    te.split "C.acc" {axis = "k", factor = 8 : i64, outer = "k.outer", inner = "k.inner"}
    te.reorder "C.acc" {order = ["k.outer", "i.c", "j.c", "k.inner"]}
    te.compute_at "A.inp" {parent = "C.acc", axis = "k.outer"}
    te.compute_at "B.wgt" {parent = "C.acc", axis = "k.outer"}
    te.tensorize "C.acc" {axis = "i.c", intrin = "vta_gemm_8x8x8"}
  }
  func.return %C : tensor<8x8xi32>
}

// -----

// ERR: error: cannot tensorize loop 'i' with 'vta_gemm_8x8x8': tile 0 of intrinsic 'vta_gemm_8x8x8' must be in scratchpad 'inp' of target @vta
func.func @uncached(%A: tensor<8x8xi8>, %B: tensor<8x8xi8>) -> tensor<8x8xi32> {
  %C = te.compute "C" {
  ^bb0(%i: index, %j: index):
    %s = te.reduce "sum" {
    ^bb0(%k: index):
      %a = te.read %A[%i, %k] : tensor<8x8xi8> -> i8
      %a32 = arith.extsi %a : i8 to i32
      %b = te.read %B[%j, %k] : tensor<8x8xi8> -> i8
      %b32 = arith.extsi %b : i8 to i32
      %p = arith.muli %a32, %b32 : i32
      te.yield %p : i32
    } {extents = array<i64: 8>, axis_names = ["k"]} : i32
    te.yield %s : i32
  } {axis_names = ["i", "j"]} : tensor<8x8xi32>
  te.schedule {
    te.tensorize "C" {axis = "i", intrin = "vta_gemm_8x8x8"}
  }
  func.return %C : tensor<8x8xi32>
}
