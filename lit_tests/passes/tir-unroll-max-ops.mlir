// RUN: xtvm-opt %s -p 'tir-unroll{max-ops=16}' --split-input-file --verify-diagnostics
// RUN: xtvm-opt %s -p 'tir-unroll{max-ops=16}' --split-input-file 2>&1 | filecheck %s

// A trip count of 10^12 is not unrolled (it would fill the memory): the loop stays as it is,
// with a remark at it.
// CHECK: tir-unroll-max-ops.mlir:[[# @LINE + 8]]:3: remark: 'tir.for' op left rolled: unrolling it makes 3000000000000 ops, more than max-ops=16
// CHECK-LABEL: func.func @huge_trip_count
// CHECK:         tir.for %{{.*}} = %{{.*}} to %{{.*}} unrolled {
// CHECK-NEXT:      arith.constant 1 : index
func.func @huge_trip_count(%A: memref<8xf32>, %f: f32) {
  %c0 = arith.constant 0 : index
  %big = arith.constant 1000000000000 : index
  // expected-remark@+1 {{'tir.for' op left rolled: unrolling it makes 3000000000000 ops, more than max-ops=16}}
  tir.for %i = %c0 to %big unrolled {
    %c1 = arith.constant 1 : index
    memref.store %f, %A[%c1] : memref<8xf32>
  }
  func.return
}

// -----

// The bound counts the unrolling of inner loops: 4 x 4 stores (and their constants) are more
// than 16 ops, so the outer loop stays; each inner loop alone (4 stores) is unrolled.
// CHECK-LABEL: func.func @nest_over_the_bound
// CHECK:         tir.for %{{.*}} unrolled {
// CHECK-NOT:       tir.for
// CHECK-COUNT-4:   memref.store
// CHECK-NEXT:    }
func.func @nest_over_the_bound(%A: memref<4x4xf32>, %f: f32) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  // expected-remark@+1 {{'tir.for' op left rolled: unrolling it makes 36 ops, more than max-ops=16}}
  tir.for %i = %c0 to %c4 unrolled {
    tir.for %j = %c0 to %c4 unrolled {
      memref.store %f, %A[%i, %j] : memref<4x4xf32>
    }
  }
  func.return
}
