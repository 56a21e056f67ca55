// RUN: xtvm-opt %s -p scf-for-loop-unroll --split-input-file --verify-diagnostics
// RUN: not xtvm-opt %s -p 'scf-for-loop-unroll{max-ops=16}' --split-input-file 2>/dev/null \
// RUN:   | filecheck %s

// A trip count of 10^12 is not unrolled (it would fill the memory): the loop stays as it is,
// with a remark at it.
// CHECK-LABEL: func.func @huge_trip_count
// CHECK:         scf.for
func.func @huge_trip_count(%m: memref<8xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %big = arith.constant 1000000000000 : index
  // expected-remark@+1 {{'scf.for' op left rolled: unrolling it makes 2000000000000 ops, more than max-ops=65536}}
  scf.for %i = %c0 to %big step %c1 {
    memref.store %i, %m[%c0] : memref<8xindex>
  }
  func.return
}

// -----

// The bound counts the inner loops' unrolling: with max-ops=16 the 4 x 4 nest stays a loop
// whose body, the inner loop unrolled, holds 4 stores.
// CHECK-LABEL: func.func @nest_over_the_bound
// CHECK:         scf.for
// CHECK-NOT:       scf.for
// CHECK-COUNT-4:   memref.store
// CHECK-NEXT:    }
func.func @nest_over_the_bound(%m: memref<8xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      memref.store %j, %m[%i] : memref<8xindex>
    }
  }
  func.return
}

// -----

// A constant step of 0 would unroll forever: an error at the loop.
func.func @zero_step(%m: memref<8xindex>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  // expected-error@+1 {{'scf.for' op step must be positive to unroll, got 0}}
  scf.for %i = %c0 to %c4 step %c0 {
    memref.store %i, %m[%c0] : memref<8xindex>
  }
  func.return
}
