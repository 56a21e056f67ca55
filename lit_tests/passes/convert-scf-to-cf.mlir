// RUN: xtvm-opt %s -p convert-scf-to-cf --split-input-file | filecheck %s

// scf.if without else: a conditional branch around the then-block.
// CHECK-LABEL: func.func @if_without_else
// CHECK-SAME:    (%[[C:.*]]: i1, %[[M:.*]]: memref<1xi32>, %[[V:.*]]: i32)
// CHECK:         cf.cond_br %[[C]], ^[[THEN:.*]], ^[[CONT:.*]]
// CHECK-NEXT:  ^[[THEN]]:
// CHECK-NEXT:    memref.store %[[V]], %[[M]]
// CHECK-NEXT:    cf.br ^[[CONT]]
// CHECK-NEXT:  ^[[CONT]]:
// CHECK-NEXT:    func.return
func.func @if_without_else(%c: i1, %m: memref<1xi32>, %v: i32) {
  %c0 = arith.constant 0 : index
  scf.if %c {
    memref.store %v, %m[%c0] : memref<1xi32>
  }
  func.return
}

// -----

// scf.if with else and a result: both branches pass their value to the join block.
// CHECK-LABEL: func.func @if_else_with_result
// CHECK-SAME:    (%[[C:.*]]: i1, %[[A:.*]]: i32, %[[B:.*]]: i32)
// CHECK-NEXT:    cf.cond_br %[[C]], ^[[THEN:.*]], ^[[ELSE:.*]]
// CHECK-NEXT:  ^[[THEN]]:
// CHECK-NEXT:    %[[SUM:.*]] = arith.addi %[[A]], %[[B]] : i32
// CHECK-NEXT:    cf.br ^[[JOIN:.*]](%[[SUM]] : i32)
// CHECK-NEXT:  ^[[ELSE]]:
// CHECK-NEXT:    cf.br ^[[JOIN]](%[[B]] : i32)
// CHECK-NEXT:  ^[[JOIN]](%[[R:.*]]: i32):
// CHECK:         func.return %[[R]] : i32
// CHECK-NOT:     scf.
func.func @if_else_with_result(%c: i1, %a: i32, %b: i32) -> i32 {
  %r = scf.if %c -> (i32) {
    %sum = arith.addi %a, %b : i32
    scf.yield %sum : i32
  } else {
    scf.yield %b : i32
  }
  func.return %r : i32
}

// -----

// scf.for: a header block carrying the induction variable and iter_args, a body that
// increments, and an exit reading the last carried value.
// CHECK-LABEL: func.func @for_with_iter_args
// CHECK-SAME:    (%[[LB:.*]]: index, %[[UB:.*]]: index, %[[STEP:.*]]: index, %[[INIT:.*]]: f32)
// CHECK-NEXT:    cf.br ^[[HEAD:.*]](%[[LB]], %[[INIT]] : index, f32)
// CHECK-NEXT:  ^[[HEAD]](%[[I:.*]]: index, %[[ACC:.*]]: f32):
// CHECK-NEXT:    %[[LT:.*]] = arith.cmpi slt, %[[I]], %[[UB]] : index
// CHECK-NEXT:    cf.cond_br %[[LT]], ^[[BODY:.*]], ^[[EXIT:.*]]
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addf %[[ACC]], %[[ACC]] : f32
// CHECK-NEXT:    %[[I2:.*]] = arith.addi %[[I]], %[[STEP]] : index
// CHECK-NEXT:    cf.br ^[[HEAD]](%[[I2]], %[[NEXT]] : index, f32)
// CHECK-NEXT:  ^[[EXIT]]:
// CHECK-NEXT:    func.return %[[ACC]] : f32
func.func @for_with_iter_args(%lb: index, %ub: index, %step: index, %init: f32) -> f32 {
  %r = scf.for %i = %lb to %ub step %step iter_args(%acc = %init) -> (f32) {
    %next = arith.addf %acc, %acc : f32
    scf.yield %next : f32
  }
  func.return %r : f32
}

// -----

// A nest becomes two headers; the inner loop's exit continues the outer body.
// CHECK-LABEL: func.func @nested_for
// CHECK:         cf.br ^[[OUTER:.*]](%{{.*}} : index)
// CHECK-NEXT:  ^[[OUTER]](%[[I:.*]]: index):
// CHECK:         cf.cond_br %{{.*}}, ^[[OUTER_BODY:.*]], ^[[DONE:.*]]
// CHECK-NEXT:  ^[[OUTER_BODY]]:
// CHECK-NEXT:    cf.br ^[[INNER:.*]](%{{.*}} : index)
// CHECK-NEXT:  ^[[INNER]](%[[J:.*]]: index):
// CHECK-NEXT:    %{{.*}} = arith.cmpi slt, %[[J]], %[[I]] : index
// CHECK-NEXT:    cf.cond_br %{{.*}}, ^[[INNER_BODY:.*]], ^[[INNER_EXIT:.*]]
// CHECK-NEXT:  ^[[INNER_BODY]]:
// CHECK-NEXT:    memref.store %[[J]], %{{.*}}[%[[I]]]
// CHECK:         cf.br ^[[INNER]]
// CHECK-NEXT:  ^[[INNER_EXIT]]:
// CHECK:         cf.br ^[[OUTER]]
// CHECK-NEXT:  ^[[DONE]]:
// CHECK-NEXT:    func.return
func.func @nested_for(%n: index, %m: memref<?xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %i step %c1 {
      memref.store %j, %m[%i] : memref<?xindex>
    }
  }
  func.return
}

// -----

// A loop over i32 compares and increments in i32.
// CHECK-LABEL: func.func @for_over_i32
// CHECK-SAME:    (%[[LB:.*]]: i32, %[[UB:.*]]: i32, %[[S:.*]]: i32, %{{.*}}: memref<1xi32>)
// CHECK:         cf.br ^[[HEAD:.*]](%[[LB]] : i32)
// CHECK-NEXT:  ^[[HEAD]](%[[I:.*]]: i32):
// CHECK-NEXT:    %{{.*}} = arith.cmpi slt, %[[I]], %[[UB]] : i32
// CHECK:         %[[NEXT:.*]] = arith.addi %[[I]], %[[S]] : i32
// CHECK-NEXT:    cf.br ^[[HEAD]](%[[NEXT]] : i32)
func.func @for_over_i32(%lb: i32, %ub: i32, %s: i32, %m: memref<1xi32>) {
  %c0 = arith.constant 0 : index
  scf.for %i = %lb to %ub step %s : i32 {
    memref.store %i, %m[%c0] : memref<1xi32>
  }
  func.return
}

// -----

// scf.index_switch becomes cf.switch.
// CHECK-LABEL: func.func @index_switch
// CHECK-SAME:    (%[[I:.*]]: index, %[[A:.*]]: i32, %[[B:.*]]: i32)
// CHECK-NEXT:    %[[CASE:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:    cf.switch %[[CASE]] : i32, [
// CHECK-NEXT:    default: ^[[DEFAULT:.*]],
// CHECK-NEXT:      1: ^[[ONE:.*]],
// CHECK-NEXT:      5: ^[[FIVE:.*]]
// CHECK-NEXT:    ]
// CHECK-NEXT:  ^[[ONE]]:
// CHECK-NEXT:    cf.br ^[[JOIN:.*]](%[[A]] : i32)
// CHECK-NEXT:  ^[[FIVE]]:
// CHECK-NEXT:    %[[SUM:.*]] = arith.addi %[[A]], %[[B]] : i32
// CHECK-NEXT:    cf.br ^[[JOIN]](%[[SUM]] : i32)
// CHECK-NEXT:  ^[[DEFAULT]]:
// CHECK-NEXT:    cf.br ^[[JOIN]](%[[B]] : i32)
// CHECK-NEXT:  ^[[JOIN]](%[[R:.*]]: i32):
// CHECK-NEXT:    func.return %[[R]] : i32
func.func @index_switch(%i: index, %a: i32, %b: i32) -> i32 {
  %r = "scf.index_switch"(%i) <{cases = array<i64: 1, 5>}> ({
    scf.yield %b : i32
  }, {
    scf.yield %a : i32
  }, {
    %sum = arith.addi %a, %b : i32
    scf.yield %sum : i32
  }) : (index) -> i32
  func.return %r : i32
}
