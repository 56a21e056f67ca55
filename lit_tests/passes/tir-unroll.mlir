// RUN: xtvm-opt %s -p tir-unroll --split-input-file | filecheck %s
// RUN: xtvm-opt %s -p 'tir-unroll{max-extent=3}' --split-input-file | filecheck %s --check-prefix=SHORT

// An unrolled loop becomes one copy of its body per iteration, the loop variable replaced by
// the iteration's constant; the body's own values are cloned per copy.
// CHECK-LABEL: func.func @unroll_marked
// CHECK-SAME:    (%[[A:.*]]: memref<8xf32>, %[[B:.*]]: memref<8xf32>)
// CHECK-NOT:     tir.for
// CHECK:         %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[X2:.*]] = memref.load %[[A]][%[[C2]]] : memref<8xf32>
// CHECK-NEXT:    %[[Y2:.*]] = arith.mulf %[[X2]], %[[X2]] : f32
// CHECK-NEXT:    memref.store %[[Y2]], %[[B]][%[[C2]]] : memref<8xf32>
// CHECK-NEXT:    %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:    %[[X3:.*]] = memref.load %[[A]][%[[C3]]] : memref<8xf32>
// CHECK-NEXT:    %[[Y3:.*]] = arith.mulf %[[X3]], %[[X3]] : f32
// CHECK-NEXT:    memref.store %[[Y3]], %[[B]][%[[C3]]] : memref<8xf32>
// CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : index
// CHECK:         memref.store %{{.*}}, %[[B]][%[[C4]]] : memref<8xf32>
// CHECK-NEXT:    func.return
func.func @unroll_marked(%A: memref<8xf32>, %B: memref<8xf32>) {
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  tir.for %i = %c2 to %c5 unrolled {
    %x = memref.load %A[%i] : memref<8xf32>
    %y = arith.mulf %x, %x : f32
    memref.store %y, %B[%i] : memref<8xf32>
  }
  func.return
}

// -----

// Nested: an unrolled loop inside a parallel one is unrolled in place; the outer loop stays.
// CHECK-LABEL: func.func @unroll_inner
// CHECK:         tir.for %[[O:.*]] = %{{.*}} to %{{.*}} parallel {
// CHECK-COUNT-2:   memref.store
// CHECK-NEXT:    }
func.func @unroll_inner(%A: memref<4x2xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  tir.for %o = %c0 to %c4 parallel {
    tir.for %u = %c0 to %c2 unrolled {
      memref.store %x, %A[%o, %u] : memref<4x2xf32>
    }
  }
  func.return
}

// -----

// Serial loops stay by default; with max-extent=3 the loop of extent 3 is unrolled and the
// one of extent 4 stays; a loop with a bound only known at run time is never unrolled.
// CHECK-LABEL: func.func @serial_by_extent
// CHECK-COUNT-2: tir.for
// CHECK:         tir.for %{{.*}} = %{{.*}} to %[[N:.*]] unrolled
// SHORT-LABEL: func.func @serial_by_extent
// SHORT-NOT:     tir.for %{{.*}} = %c0 to %c3
// SHORT:         tir.for %{{.*}} = %c0 to %c4 serial
// SHORT:         tir.for %{{.*}} = %c0 to %n unrolled
func.func @serial_by_extent(%A: memref<8xf32>, %x: f32, %n: index) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  tir.for %i = %c0 to %c3 serial {
    memref.store %x, %A[%i] : memref<8xf32>
  }
  tir.for %j = %c0 to %c4 serial {
    memref.store %x, %A[%j] : memref<8xf32>
  }
  tir.for %k = %c0 to %n unrolled {
    memref.store %x, %A[%k] : memref<8xf32>
  }
  func.return
}
