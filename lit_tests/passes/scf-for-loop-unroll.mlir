// RUN: xtvm-opt %s -p scf-for-loop-unroll --split-input-file | filecheck %s

// Constant bounds: one copy of the body per iteration, the induction variable a constant.
// CHECK-LABEL: func.func @unroll_with_step
// CHECK-SAME:    (%[[M:.*]]: memref<8xindex>)
// CHECK-NOT:     scf.for
// CHECK:         arith.constant 5 : index
// CHECK-NEXT:    %[[I0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    memref.store %[[I0]], %[[M]][%[[I0]]] : memref<8xindex>
// CHECK-NEXT:    %[[I2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    memref.store %[[I2]], %[[M]][%[[I2]]] : memref<8xindex>
// CHECK-NEXT:    %[[I4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    memref.store %[[I4]], %[[M]][%[[I4]]] : memref<8xindex>
// CHECK-NEXT:    func.return
func.func @unroll_with_step(%m: memref<8xindex>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  scf.for %i = %c0 to %c5 step %c2 {
    memref.store %i, %m[%i] : memref<8xindex>
  }
  func.return
}

// -----

// iter_args thread through the copies; the loop's result is the last copy's value.
// CHECK-LABEL: func.func @unroll_iter_args
// CHECK-SAME:    (%[[A:.*]]: i32)
// CHECK-NOT:     scf.for
// CHECK:         %[[X1:.*]] = arith.muli %[[A]], %[[A]] : i32
// CHECK:         %[[X2:.*]] = arith.muli %[[X1]], %[[X1]] : i32
// CHECK:         %[[X3:.*]] = arith.muli %[[X2]], %[[X2]] : i32
// CHECK-NEXT:    func.return %[[X3]] : i32
func.func @unroll_iter_args(%a: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %a) -> (i32) {
    %sq = arith.muli %acc, %acc : i32
    scf.yield %sq : i32
  }
  func.return %r : i32
}

// -----

// A loop over i32 unrolls with i32 constants.
// CHECK-LABEL: func.func @unroll_i32_loop
// CHECK:         arith.constant 0 : index
// CHECK-NEXT:    %[[I0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    memref.store %[[I0]]
// CHECK-NEXT:    %[[I1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    memref.store %[[I1]]
// CHECK-NEXT:    func.return
func.func @unroll_i32_loop(%m: memref<8xi32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %z = arith.constant 0 : index
  scf.for %i = %c0 to %c2 step %c1 : i32 {
    memref.store %i, %m[%z] : memref<8xi32>
  }
  func.return
}

// -----

// A nest unrolls completely, outer iteration by outer iteration.
// CHECK-LABEL: func.func @unroll_nest
// CHECK-NOT:     scf.for
// CHECK-COUNT-4: memref.store
// CHECK-NEXT:    func.return
func.func @unroll_nest(%m: memref<8xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c2 step %c1 {
      %s = arith.addi %i, %j : index
      memref.store %s, %m[%s] : memref<8xindex>
    }
  }
  func.return
}

// -----

// A loop that never runs disappears.
// CHECK-LABEL: func.func @unroll_zero_trip
// CHECK-NOT:     scf.for
// CHECK-NOT:     memref.store
// CHECK:         func.return
func.func @unroll_zero_trip(%m: memref<4xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c1 to %c0 step %c1 {
    memref.store %i, %m[%i] : memref<4xindex>
  }
  func.return
}

// -----

// A dynamic bound is left alone.
// CHECK-LABEL: func.func @keep_dynamic_bound
// CHECK-SAME:    (%[[N:.*]]: index
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK-NEXT:      memref.store
// CHECK-NEXT:    }
func.func @keep_dynamic_bound(%n: index, %m: memref<8xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    memref.store %i, %m[%i] : memref<8xindex>
  }
  func.return
}
