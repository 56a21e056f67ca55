// RUN: xtvm-opt %s -p convert-te-to-tir --split-input-file | filecheck %s

// A split whose factor does not divide the extent is guarded; reorder puts the reduce axis
// between the two halves.
// CHECK-LABEL: func.func @split_guard(%A: memref<10x6xf32>, %B: memref<10xf32>) {
// CHECK:         tir.for %i = %c0 to %c10 serial {
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      memref.store %[[ZERO]], %B[%i] : memref<10xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.for %i_outer = %c0 to %c3 parallel {
// CHECK-NEXT:      tir.for %k = %c0 to %c6 serial {
// CHECK-NEXT:        tir.for %i_inner = %c0 to %c4 vectorized {
// CHECK-NEXT:          %[[SCALED:.*]] = arith.muli %i_outer, %c4 : index
// CHECK-NEXT:          %[[I:.*]] = arith.addi %[[SCALED]], %i_inner : index
// CHECK-NEXT:          %[[IN:.*]] = arith.cmpi ult, %[[I]], %c10 : index
// CHECK-NEXT:          scf.if %[[IN]] {
// CHECK-NEXT:            %[[A:.*]] = memref.load %A[%[[I]], %k] : memref<10x6xf32>
// CHECK-NEXT:            %[[ACC:.*]] = memref.load %B[%[[I]]] : memref<10xf32>
// CHECK-NEXT:            %[[SUM:.*]] = arith.addf %[[ACC]], %[[A]] : f32
// CHECK-NEXT:            memref.store %[[SUM]], %B[%[[I]]] : memref<10xf32>
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @split_guard(%A: tensor<10x6xf32>) -> tensor<10xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    %s = te.reduce "sum" {
    ^bb0(%k: index):
      %a = te.read %A[%i, %k] : tensor<10x6xf32> -> f32
      te.yield %a : f32
    } {extents = array<i64: 6>, axis_names = ["k"]} : f32
    te.yield %s : f32
  } {axis_names = ["i"]} : tensor<10xf32>
  te.schedule {
    te.split "B" {axis = "i", factor = 4 : i64, outer = "i.outer", inner = "i.inner"}
    te.reorder "B" {order = ["i.outer", "k", "i.inner"]}
    te.parallel "B" {axis = "i.outer"}
    te.vectorize "B" {axis = "i.inner"}
  }
  func.return %B : tensor<10xf32>
}

// -----

// fuse, unroll, bind, and an inlined producer.
// CHECK-LABEL: func.func @fuse_inline(%A: memref<4x8xf32>, %C: memref<4x8xf32>) {
// CHECK-NOT:     memref.alloc
// CHECK:         tir.for %bx = %c0 to %c4 thread_binding "blockIdx.x" {
// CHECK-NEXT:      tir.for %tx = %c0 to %c8 thread_binding "threadIdx.x" {
// CHECK-NEXT:        %[[SCALED:.*]] = arith.muli %bx, %c8 : index
// CHECK-NEXT:        %[[F:.*]] = arith.addi %[[SCALED]], %tx : index
// CHECK-NEXT:        %[[I:.*]] = arith.divui %[[F]], %c8 : index
// CHECK-NEXT:        %[[J:.*]] = arith.remui %[[F]], %c8 : index
// CHECK-NEXT:        %[[A:.*]] = memref.load %A[%[[I]], %[[J]]] : memref<4x8xf32>
// CHECK-NEXT:        %[[B:.*]] = arith.addf %[[A]], %[[A]] : f32
// CHECK-NEXT:        %[[C:.*]] = math.exp %[[B]] : f32
// CHECK-NEXT:        memref.store %[[C]], %C[%[[I]], %[[J]]] : memref<4x8xf32>
func.func @fuse_inline(%A: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index, %j: index):
    %a = te.read %A[%i, %j] : tensor<4x8xf32> -> f32
    %b = arith.addf %a, %a : f32
    te.yield %b : f32
  } {axis_names = ["i", "j"]} : tensor<4x8xf32>
  %C = te.compute "C" {
  ^bb0(%i: index, %j: index):
    %b = te.read %B[%i, %j] : tensor<4x8xf32> -> f32
    %c = math.exp %b : f32
    te.yield %c : f32
  } {axis_names = ["i", "j"]} : tensor<4x8xf32>
  te.schedule {
    te.compute_inline "B"
    te.fuse "C" {axes = ["i", "j"], fused = "i.j.fused"}
    te.split "C" {axis = "i.j.fused", factor = 8 : i64, outer = "bx", inner = "tx"}
    te.bind "C" {axis = "bx", thread = "blockIdx.x"}
    te.bind "C" {axis = "tx", thread = "threadIdx.x"}
  }
  func.return %C : tensor<4x8xf32>
}
