// RUN: xtvm-opt %s -p scf-for-loop-flatten --split-input-file | filecheck %s

// Indices unused: the nest becomes one loop of outer trip count times inner trip count.
// CHECK-LABEL: func.func @flatten_unused_indices
// CHECK-SAME:    (%[[M:.*]]: memref<1xi32>, %[[V:.*]]: i32)
// CHECK:         %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %{{.*}} = arith.constant 8 : index
// CHECK-NEXT:    %[[FACTOR:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[UB:.*]] = arith.muli %[[C4]], %[[FACTOR]] : index
// CHECK-NEXT:    scf.for %{{.*}} = %{{.*}} to %[[UB]] step %{{.*}} {
// CHECK-NEXT:      memref.store %[[V]], %[[M]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @flatten_unused_indices(%m: memref<1xi32>, %v: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      memref.store %v, %m[%c0] : memref<1xi32>
    }
  }
  func.return
}

// -----

// `i + j` over a tiled range is one linear loop over the full range with the inner step.
// CHECK-LABEL: func.func @flatten_linear_index
// CHECK-SAME:    (%[[M:.*]]: memref<32xi32>, %[[V:.*]]: i32)
// CHECK:         %[[C1:.*]] = arith.constant 1 : index
// CHECK:         %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT:    scf.for %[[K:.*]] = %{{.*}} to %[[C32]] step %[[C1]] {
// CHECK-NEXT:      memref.store %[[V]], %[[M]][%[[K]]] : memref<32xi32>
// CHECK-NEXT:    }
// CHECK-NOT:     arith.addi
func.func @flatten_linear_index(%m: memref<32xi32>, %v: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  scf.for %i = %c0 to %c32 step %c8 {
    scf.for %j = %c0 to %c8 step %c1 {
      %k = arith.addi %i, %j : index
      memref.store %v, %m[%k] : memref<32xi32>
    }
  }
  func.return
}

// -----

// Carried values forwarded in order by both loops stay carried by the single loop.
// CHECK-LABEL: func.func @flatten_carried_values
// CHECK-SAME:    (%[[A:.*]]: i32)
// CHECK:         %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[Y:.*]] = %[[A]]) -> (i32) {
// CHECK-NEXT:      %[[N:.*]] = arith.addi %[[Y]], %[[Y]] : i32
// CHECK-NEXT:      scf.yield %[[N]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : i32
func.func @flatten_carried_values(%a: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%x = %a) -> (i32) {
    %s = scf.for %j = %c0 to %c4 step %c1 iter_args(%y = %x) -> (i32) {
      %n = arith.addi %y, %y : i32
      scf.yield %n : i32
    }
    scf.yield %s : i32
  }
  func.return %r : i32
}

// -----

// An op between the two loops makes the nest imperfect: nothing changes.
// CHECK-LABEL: func.func @keep_imperfect_nest
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      memref.store %{{.*}}, %{{.*}}[%[[I]]]
// CHECK-NEXT:      scf.for
func.func @keep_imperfect_nest(%m: memref<32xi32>, %v: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  scf.for %i = %c0 to %c32 step %c8 {
    memref.store %v, %m[%i] : memref<32xi32>
    scf.for %j = %c0 to %c8 step %c1 {
      %k = arith.addi %i, %j : index
      memref.store %v, %m[%k] : memref<32xi32>
    }
  }
  func.return
}
