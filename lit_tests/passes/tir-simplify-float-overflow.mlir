// tir-simplify folds float constants as canonicalize does: an infinity beyond f32's range.
// RUN: xtvm-opt %s -p tir-simplify | filecheck %s

// CHECK-LABEL: func.func @fold_float_overflow
// CHECK-NEXT:    %[[INF:.*]] = arith.constant 0x7f800000 : f32
// CHECK-NEXT:    func.return %[[INF]] : f32
func.func @fold_float_overflow() -> f32 {
  %big = arith.constant 1.0e+38 : f32
  %low = arith.constant -3.4e+38 : f32
  %inf = arith.subf %big, %low : f32
  func.return %inf : f32
}
