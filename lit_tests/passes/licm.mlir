// RUN: xtvm-opt %s -p licm --split-input-file | filecheck %s

// Ops that depend only on values from outside the loop move before it, in order; ops that
// use the induction variable stay.
// CHECK-LABEL: func.func @hoist_invariant_chain
// CHECK-SAME:    (%[[A:.*]]: i32, %[[B:.*]]: i32, %[[M:.*]]: memref<8xi32>)
// CHECK:         %[[PROD:.*]] = arith.muli %[[A]], %[[B]] : i32
// CHECK-NEXT:    %[[SUM:.*]] = arith.addi %[[PROD]], %[[A]] : i32
// CHECK-NEXT:    scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[IV:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:      %[[DEP:.*]] = arith.addi %[[IV]], %[[SUM]] : i32
// CHECK-NEXT:      memref.store %[[DEP]], %[[M]][%[[I]]] : memref<8xi32>
// CHECK-NEXT:    }
func.func @hoist_invariant_chain(%a: i32, %b: i32, %m: memref<8xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %prod = arith.muli %a, %b : i32
    %sum = arith.addi %prod, %a : i32
    %iv = arith.index_cast %i : index to i32
    %dep = arith.addi %iv, %sum : i32
    memref.store %dep, %m[%i] : memref<8xi32>
  }
  func.return
}

// -----

// In a nest, each op rises as far as its operands allow: out of both loops, or only out of
// the inner one.
// CHECK-LABEL: func.func @hoist_out_of_nest
// CHECK:         %[[SQ:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[TWICE:.*]] = arith.addi %[[I]], %[[I]] : index
// CHECK-NEXT:      scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        memref.store %[[SQ]], %{{.*}}[%[[TWICE]]] : memref<8xi32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
func.func @hoist_out_of_nest(%a: i32, %m: memref<8xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %sq = arith.muli %a, %a : i32
      %twice = arith.addi %i, %i : index
      memref.store %sq, %m[%twice] : memref<8xi32>
    }
  }
  func.return
}

// -----

// A constant used with a loop-carried value moves out; the use of the carried value stays.
// CHECK-LABEL: func.func @hoist_constant_keep_carried_use
// CHECK:         %[[K:.*]] = arith.constant 3 : i32
// CHECK-NEXT:    %{{.*}} = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (i32) {
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %[[ACC]], %[[K]] : i32
// CHECK-NEXT:      scf.yield %[[NEXT]] : i32
func.func @hoist_constant_keep_carried_use(%a: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %a) -> (i32) {
    %k = arith.constant 3 : i32
    %next = arith.addi %acc, %k : i32
    scf.yield %next : i32
  }
  func.return %r : i32
}

// -----

// Memory accesses stay in the loop, even at an invariant address.
// CHECK-LABEL: func.func @keep_memory_effects
// CHECK:         scf.for
// CHECK-NEXT:      memref.load
// CHECK-NEXT:      memref.store
// CHECK-NEXT:    }
func.func @keep_memory_effects(%m: memref<8xi32>, %v: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %m[%c0] : memref<8xi32>
    memref.store %v, %m[%c0] : memref<8xi32>
  }
  func.return
}
