// RUN: xtvm-opt %s -p canonicalize --split-input-file | filecheck %s

// Integer constants fold, `x + 0` and `x * 1` simplify, and the dead constants go.
// CHECK-LABEL: func.func @fold_integer_arithmetic
// CHECK-SAME:    (%[[A:.*]]: i32, %[[B:.*]]: i32)
// CHECK-NEXT:    %[[FIVE:.*]] = arith.constant 5 : i32
// CHECK-NEXT:    func.return %[[FIVE]], %[[A]], %[[B]] : i32, i32, i32
func.func @fold_integer_arithmetic(%a: i32, %b: i32) -> (i32, i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %five = arith.addi %c2, %c3 : i32
  %same_a = arith.addi %a, %c0 : i32
  %same_b = arith.muli %b, %c1 : i32
  func.return %five, %same_a, %same_b : i32, i32, i32
}

// -----

// Float constants fold to one constant each.
// CHECK-LABEL: func.func @fold_float_arithmetic
// CHECK-NEXT:    %[[PROD:.*]] = arith.constant 3.375000e+00 : f32
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    func.return %[[PROD]], %[[ZERO]] : f32, f64
func.func @fold_float_arithmetic() -> (f32, f64) {
  %a = arith.constant 1.5 : f32
  %b = arith.constant 2.25 : f32
  %prod = arith.mulf %a, %b : f32
  %one = arith.constant 1.0 : f64
  %zero = arith.subf %one, %one : f64
  func.return %prod, %zero : f32, f64
}

// -----

// Comparing a value with itself folds to a constant.
// CHECK-LABEL: func.func @fold_self_comparison
// CHECK-NEXT:    %[[EQ:.*]] = arith.constant true
// CHECK-NEXT:    %[[LT:.*]] = arith.constant false
// CHECK-NEXT:    func.return %[[EQ]], %[[LT]] : i1, i1
func.func @fold_self_comparison(%a: i32) -> (i1, i1) {
  %eq = arith.cmpi eq, %a, %a : i32
  %lt = arith.cmpi slt, %a, %a : i32
  func.return %eq, %lt : i1, i1
}

// -----

// A select on a constant condition picks its operand; one on equal operands is that operand.
// CHECK-LABEL: func.func @fold_select
// CHECK-SAME:    (%[[C:.*]]: i1, %[[A:.*]]: i32, %[[B:.*]]: i32)
// CHECK-NEXT:    func.return %[[A]], %[[B]] : i32, i32
func.func @fold_select(%c: i1, %a: i32, %b: i32) -> (i32, i32) {
  %true = arith.constant true
  %picked = arith.select %true, %a, %b : i32
  %same = arith.select %c, %b, %b : i32
  func.return %picked, %same : i32, i32
}

// -----

// A constant operand of a commutative op moves to the right.
// CHECK-LABEL: func.func @constant_to_the_right
// CHECK-SAME:    (%[[A:.*]]: i32)
// CHECK-NEXT:    %[[C:.*]] = arith.constant 7 : i32
// CHECK-NEXT:    %[[SUM:.*]] = arith.addi %[[A]], %[[C]] : i32
// CHECK-NEXT:    func.return %[[SUM]]
func.func @constant_to_the_right(%a: i32) -> i32 {
  %c = arith.constant 7 : i32
  %sum = arith.addi %c, %a : i32
  func.return %sum : i32
}

// -----

// scf.if on a constant condition is replaced by the taken region, side effects included.
// CHECK-LABEL: func.func @inline_constant_if
// CHECK-SAME:    (%[[A:.*]]: i32, %[[B:.*]]: i32, %[[M:.*]]: memref<1xi32>)
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    memref.store %[[A]], %[[M]][%[[C0]]] : memref<1xi32>
// CHECK-NEXT:    func.return %[[A]] : i32
func.func @inline_constant_if(%a: i32, %b: i32, %m: memref<1xi32>) -> i32 {
  %true = arith.constant true
  %c0 = arith.constant 0 : index
  %r = scf.if %true -> (i32) {
    memref.store %a, %m[%c0] : memref<1xi32>
    scf.yield %a : i32
  } else {
    scf.yield %b : i32
  }
  func.return %r : i32
}

// -----

// A loop that never runs yields its initial values.
// CHECK-LABEL: func.func @remove_zero_trip_loop
// CHECK-SAME:    (%[[A:.*]]: i32, %[[M:.*]]: memref<1xi32>)
// CHECK-NOT:     scf.for
// CHECK-NOT:     memref.store
// CHECK:         func.return %[[A]] : i32
func.func @remove_zero_trip_loop(%a: i32, %m: memref<1xi32>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c1 to %c0 step %c1 iter_args(%acc = %a) -> (i32) {
    memref.store %acc, %m[%c0] : memref<1xi32>
    scf.yield %acc : i32
  }
  func.return %r : i32
}

// -----

// A conditional branch on a constant becomes the taken path; the other block is dead.
// CHECK-LABEL: func.func @fold_constant_cond_br
// CHECK-SAME:    (%[[A:.*]]: i32, %[[B:.*]]: i32)
// CHECK-NEXT:    func.return %[[A]] : i32
// CHECK-NEXT:  }
func.func @fold_constant_cond_br(%a: i32, %b: i32) -> i32 {
  %true = arith.constant true
  cf.cond_br %true, ^taken, ^not_taken
^taken:
  func.return %a : i32
^not_taken:
  func.return %b : i32
}

// -----

// An unused pure op goes; the store and what it needs stay.
// CHECK-LABEL: func.func @keep_effects
// CHECK-SAME:    (%[[A:.*]]: i32, %[[M:.*]]: memref<1xi32>, %[[I:.*]]: index)
// CHECK-NEXT:    %[[X:.*]] = arith.muli %[[A]], %[[A]] : i32
// CHECK-NEXT:    memref.store %[[X]], %[[M]][%[[I]]] : memref<1xi32>
// CHECK-NEXT:    func.return
func.func @keep_effects(%a: i32, %m: memref<1xi32>, %i: index) {
  %x = arith.muli %a, %a : i32
  %unused = arith.addi %a, %x : i32
  memref.store %x, %m[%i] : memref<1xi32>
  func.return
}

// -----

// Float constants fold as IEEE arithmetic computes: beyond f32's range, an infinity; a sum
// that rounds back into range stays finite; 0/0 is NaN.
// CHECK-LABEL: func.func @fold_float_overflow
// CHECK-NEXT:    %[[INF:.*]] = arith.constant 0x7f800000 : f32
// CHECK-NEXT:    %[[NEG:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:    %[[BIG:.*]] = arith.constant 2.000000e+38 : f32
// CHECK-NEXT:    %[[NAN:.*]] = arith.constant 0x7fc00000 : f32
// CHECK-NEXT:    func.return %[[INF]], %[[NEG]], %[[BIG]], %[[NAN]] : f32, f32, f32, f32
func.func @fold_float_overflow() -> (f32, f32, f32, f32) {
  %big = arith.constant 1.0e+38 : f32
  %low = arith.constant -3.4e+38 : f32
  %zero = arith.constant 0.0 : f32
  %inf = arith.subf %big, %low : f32
  %neg = arith.mulf %low, %big : f32
  %sum = arith.addf %big, %big : f32
  %nan = arith.divf %zero, %zero : f32
  func.return %inf, %neg, %sum, %nan : f32, f32, f32, f32
}
