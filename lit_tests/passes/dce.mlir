// RUN: xtvm-opt %s -p dce --split-input-file | filecheck %s

// A chain of unused pure ops goes entirely.
// CHECK-LABEL: func.func @erase_unused_chain
// CHECK-SAME:    (%[[A:.*]]: i32)
// CHECK-NEXT:    func.return %[[A]] : i32
// CHECK-NEXT:  }
func.func @erase_unused_chain(%a: i32) -> i32 {
  %x = arith.addi %a, %a : i32
  %y = arith.muli %x, %x : i32
  %z = arith.subi %y, %a : i32
  func.return %a : i32
}

// -----

// Stores and calls stay; an unused load goes.
// CHECK-LABEL: func.func @keep_side_effects
// CHECK-SAME:    (%[[M:.*]]: memref<4xi32>, %[[I:.*]]: index, %[[V:.*]]: i32)
// CHECK-NEXT:    memref.store %[[V]], %[[M]][%[[I]]] : memref<4xi32>
// CHECK-NOT:     memref.load
// CHECK-NEXT:    func.call @keep_side_effects(%[[M]], %[[I]], %[[V]])
// CHECK-NEXT:    func.return
func.func @keep_side_effects(%m: memref<4xi32>, %i: index, %v: i32) {
  memref.store %v, %m[%i] : memref<4xi32>
  %l = memref.load %m[%i] : memref<4xi32>
  func.call @keep_side_effects(%m, %i, %v) : (memref<4xi32>, index, i32) -> ()
  func.return
}

// -----

// Unused scf.if and scf.for whose bodies are pure go, with the constants they used.
// CHECK-LABEL: func.func @erase_pure_region_ops
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
func.func @erase_pure_region_ops(%c: i1, %a: i32) {
  %r = scf.if %c -> (i32) {
    %y = arith.muli %a, %a : i32
    scf.yield %y : i32
  } else {
    scf.yield %a : i32
  }
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %a) -> (i32) {
    %n = arith.addi %acc, %acc : i32
    scf.yield %n : i32
  }
  func.return
}

// -----

// A loop whose body stores stays.
// CHECK-LABEL: func.func @keep_loop_with_store
// CHECK:         scf.for
// CHECK-NEXT:      memref.store
func.func @keep_loop_with_store(%m: memref<4xindex>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %i, %m[%i] : memref<4xindex>
  }
  func.return
}

// -----

// An unreachable block goes.
// CHECK-LABEL: func.func @erase_unreachable_block
// CHECK-SAME:    (%[[A:.*]]: i32)
// CHECK-NEXT:    func.return %[[A]] : i32
// CHECK-NEXT:  }
func.func @erase_unreachable_block(%a: i32) -> i32 {
  func.return %a : i32
^unreachable:
  %x = arith.addi %a, %a : i32
  func.return %x : i32
}
