// RUN: xtvm-opt %s -p tir-storage-flatten --split-input-file | filecheck %s

// A 2-d copy: both signature buffers become 1-d and each access computes i * 6 + j once (the
// load and the store share it).
// CHECK-LABEL: func.func @copy_2d
// CHECK-SAME:    (%[[A:.*]]: memref<24xf32>, %[[B:.*]]: memref<24xf32>)
// CHECK:         tir.for %[[I:.*]] = %{{.*}} to %{{.*}} serial {
// CHECK-NEXT:      tir.for %[[J:.*]] = %{{.*}} to %{{.*}} serial {
// CHECK-NEXT:        %[[ROW:.*]] = arith.muli %[[I]], %c6 : index
// CHECK-NEXT:        %[[K:.*]] = arith.addi %[[ROW]], %[[J]] : index
// CHECK-NEXT:        %[[X:.*]] = memref.load %[[A]][%[[K]]] : memref<24xf32>
// CHECK-NEXT:        memref.store %[[X]], %[[B]][%[[K]]] : memref<24xf32>
func.func @copy_2d(%A: memref<4x6xf32>, %B: memref<4x6xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  tir.for %i = %c0 to %c4 serial {
    tir.for %j = %c0 to %c6 serial {
      %x = memref.load %A[%i, %j] : memref<4x6xf32>
      memref.store %x, %B[%i, %j] : memref<4x6xf32>
    }
  }
  func.return
}

// -----

// An intermediate buffer keeps its memory space; constant indices fold into one offset
// (C[1, 2, k] is C[20 + k]); a rank-0 buffer becomes one element.
// CHECK-LABEL: func.func @alloc_constants_rank0
// CHECK-SAME:    (%[[S:.*]]: memref<1xf32>, %[[C:.*]]: memref<24xf32>)
// CHECK-DAG:     %[[C20:.*]] = arith.constant 20 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[T:.*]] = memref.alloc() : memref<24xf32, "shared">
// CHECK:         %[[Y:.*]] = memref.load %[[T]][%[[C8]]] : memref<24xf32, "shared">
// CHECK-NEXT:    memref.store %[[Y]], %[[S]][%[[C0]]] : memref<1xf32>
// CHECK-NEXT:    tir.for %[[K:.*]] = %{{.*}} to %{{.*}} serial {
// CHECK-NEXT:      %[[L:.*]] = arith.addi %[[K]], %[[C20]] : index
// CHECK-NEXT:      memref.store %[[Y]], %[[C]][%[[L]]] : memref<24xf32>
// CHECK:         memref.dealloc %[[T]] : memref<24xf32, "shared">
func.func @alloc_constants_rank0(%S: memref<f32>, %C: memref<2x3x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %t = memref.alloc() : memref<4x6xf32, "shared">
  %y = memref.load %t[%c1, %c2] : memref<4x6xf32, "shared">
  memref.store %y, %S[] : memref<f32>
  tir.for %k = %c0 to %c4 serial {
    memref.store %y, %C[%c1, %c2, %k] : memref<2x3x4xf32>
  }
  memref.dealloc %t : memref<4x6xf32, "shared">
  func.return
}

// -----

// memref.dim of a flattened buffer is its original extent; 1-d buffers are left alone.
// CHECK-LABEL: func.func @dim_and_1d
// CHECK-SAME:    (%[[A:.*]]: memref<12xf32>, %[[V:.*]]: memref<5xf32>) -> index
// CHECK:         %[[C4:.*]] = arith.constant 4 : index
// CHECK:         memref.load %[[V]][%{{.*}}] : memref<5xf32>
// CHECK:         func.return %[[C4]] : index
func.func @dim_and_1d(%A: memref<3x4xf32>, %V: memref<5xf32>) -> index {
  %c1 = arith.constant 1 : index
  %d = memref.dim %A, %c1 : memref<3x4xf32>
  %x = memref.load %V[%c1] : memref<5xf32>
  memref.store %x, %V[%c1] : memref<5xf32>
  func.return %d : index
}

// -----

// A call passes the flattened buffer on; the callee's signature and declarations follow.
// CHECK-LABEL: func.func private @external(memref<6xf32>)
// CHECK-LABEL: func.func @caller
// CHECK-SAME:    (%[[A:.*]]: memref<6xf32>)
// CHECK-NEXT:    func.call @external(%[[A]]) : (memref<6xf32>) -> ()
func.func private @external(memref<2x3xf32>)
func.func @caller(%A: memref<2x3xf32>) {
  func.call @external(%A) : (memref<2x3xf32>) -> ()
  func.return
}
