// RUN: xtvm-opt %s -p cse --split-input-file | filecheck %s

// Two identical additions become one.
// CHECK-LABEL: func.func @merge_identical
// CHECK-SAME:    (%[[A:.*]]: i32, %[[B:.*]]: i32)
// CHECK-NEXT:    %[[SUM:.*]] = arith.addi %[[A]], %[[B]] : i32
// CHECK-NEXT:    func.return %[[SUM]], %[[SUM]] : i32, i32
func.func @merge_identical(%a: i32, %b: i32) -> (i32, i32) {
  %x = arith.addi %a, %b : i32
  %y = arith.addi %a, %b : i32
  func.return %x, %y : i32, i32
}

// -----

// Equal constants merge; a constant of another type does not.
// CHECK-LABEL: func.func @merge_constants
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[WIDE:.*]] = arith.constant 1 : i64
// CHECK-NEXT:    func.return %[[ONE]], %[[ONE]], %[[WIDE]] : i32, i32, i64
func.func @merge_constants() -> (i32, i32, i64) {
  %x = arith.constant 1 : i32
  %y = arith.constant 1 : i32
  %z = arith.constant 1 : i64
  func.return %x, %y, %z : i32, i32, i64
}

// -----

// Ops that differ in a property (the overflow flags) are different computations.
// CHECK-LABEL: func.func @keep_different_properties
// CHECK-NEXT:    %[[PLAIN:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    %[[NSW:.*]] = arith.addi %{{.*}}, %{{.*}} overflow<nsw> : i32
// CHECK-NEXT:    func.return %[[PLAIN]], %[[NSW]]
func.func @keep_different_properties(%a: i32, %b: i32) -> (i32, i32) {
  %x = arith.addi %a, %b : i32
  %y = arith.addi %a, %b overflow<nsw> : i32
  func.return %x, %y : i32, i32
}

// -----

// A computation inside a region reuses the same one from the enclosing block.
// CHECK-LABEL: func.func @reuse_from_enclosing_block
// CHECK-NEXT:    %[[SQ:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    %{{.*}} = scf.if %{{.*}} -> (i32) {
// CHECK-NEXT:      scf.yield %[[SQ]] : i32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %[[SQ]] : i32
// CHECK-NEXT:    }
func.func @reuse_from_enclosing_block(%a: i32, %c: i1) -> i32 {
  %x = arith.muli %a, %a : i32
  %r = scf.if %c -> (i32) {
    %y = arith.muli %a, %a : i32
    scf.yield %y : i32
  } else {
    scf.yield %x : i32
  }
  func.return %r : i32
}

// -----

// Sibling regions do not dominate each other: each keeps its own copy.
// CHECK-LABEL: func.func @keep_sibling_regions_apart
// CHECK:         scf.if
// CHECK-NEXT:      %[[T:.*]] = arith.muli
// CHECK-NEXT:      scf.yield %[[T]] : i32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[E:.*]] = arith.muli
// CHECK-NEXT:      scf.yield %[[E]] : i32
func.func @keep_sibling_regions_apart(%a: i32, %c: i1) -> i32 {
  %r = scf.if %c -> (i32) {
    %y = arith.muli %a, %a : i32
    scf.yield %y : i32
  } else {
    %z = arith.muli %a, %a : i32
    scf.yield %z : i32
  }
  func.return %r : i32
}

// -----

// Two loads with no write between them merge; a load after a store does not.
// CHECK-LABEL: func.func @loads_around_a_store
// CHECK-SAME:    (%[[M:.*]]: memref<4xi32>, %[[I:.*]]: index, %[[V:.*]]: i32)
// CHECK-NEXT:    %[[FIRST:.*]] = memref.load %[[M]][%[[I]]] : memref<4xi32>
// CHECK-NEXT:    memref.store %[[V]], %[[M]][%[[I]]] : memref<4xi32>
// CHECK-NEXT:    %[[AFTER:.*]] = memref.load %[[M]][%[[I]]] : memref<4xi32>
// CHECK-NEXT:    func.return %[[FIRST]], %[[FIRST]], %[[AFTER]]
func.func @loads_around_a_store(%m: memref<4xi32>, %i: index, %v: i32) -> (i32, i32, i32) {
  %x = memref.load %m[%i] : memref<4xi32>
  %y = memref.load %m[%i] : memref<4xi32>
  memref.store %v, %m[%i] : memref<4xi32>
  %z = memref.load %m[%i] : memref<4xi32>
  func.return %x, %y, %z : i32, i32, i32
}

// -----

// Each allocation is a new buffer, never merged with another.
// CHECK-LABEL: func.func @keep_allocations
// CHECK-NEXT:    %[[X:.*]] = memref.alloc() : memref<4xi32>
// CHECK-NEXT:    %[[Y:.*]] = memref.alloc() : memref<4xi32>
// CHECK-NEXT:    func.return %[[X]], %[[Y]]
func.func @keep_allocations() -> (memref<4xi32>, memref<4xi32>) {
  %x = memref.alloc() : memref<4xi32>
  %y = memref.alloc() : memref<4xi32>
  func.return %x, %y : memref<4xi32>, memref<4xi32>
}

// -----

// Ops with tuple results hash like any other (the tuple type is built from a tuple, not a
// list): the two identical splits merge.
// CHECK-LABEL: func.func @merge_tuple_results
// CHECK-COUNT-1: relay.split
// CHECK-NOT:     relay.split
func.func @merge_tuple_results(%x: tensor<4xf32>) -> (tuple<tensor<2xf32>, tensor<2xf32>>, tuple<tensor<2xf32>, tensor<2xf32>>) {
  %p = relay.split %x {indices_or_sections = 2 : i64} : (tensor<4xf32>) -> tuple<tensor<2xf32>, tensor<2xf32>>
  %q = relay.split %x {indices_or_sections = 2 : i64} : (tensor<4xf32>) -> tuple<tensor<2xf32>, tensor<2xf32>>
  func.return %p, %q : tuple<tensor<2xf32>, tensor<2xf32>>, tuple<tensor<2xf32>, tensor<2xf32>>
}
