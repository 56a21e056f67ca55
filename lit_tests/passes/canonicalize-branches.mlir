// Canonicalizing a function whose first ops with patterns are branches and integer ops (in a
// fresh process, before any float op was seen) folds what it can and keeps the rest.
// RUN: xtvm-opt %s -p canonicalize | filecheck %s

// CHECK-LABEL: func.func @blocks
// CHECK:         arith.shrui
// CHECK:         arith.divsi
func.func @blocks(%a: i32, %c: i1) -> i32 {
  cf.br ^bb1(%a : i32)
^bb1(%v1: i32):
  %k1 = arith.constant 2147483647 : i32
  %r1 = arith.shrui %v1, %k1 : i32
  cf.cond_br %c, ^bb2(%r1 : i32), ^bb1(%v1 : i32)
^bb2(%v2: i32):
  %k2 = arith.constant 31 : i32
  %r2 = arith.divsi %v2, %k2 : i32
  func.return %r2 : i32
}
