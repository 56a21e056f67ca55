// te.scan (a recurrence over the first dimension) and te.set_scope: printed, read back and
// printed again gives the same text, in both forms; the verifiers' messages.
// RUN: xtvm-opt %s --split-input-file | filecheck %s
// RUN: xtvm-opt %s --split-input-file | xtvm-opt --split-input-file | filecheck %s
// RUN: xtvm-opt %s --split-input-file --print-generic | xtvm-opt --split-input-file | filecheck %s

// CHECK-LABEL: func.func @cumsum(%X: tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK:         %scan = "te.scan"(%s_init, %m) <{name = "scan"}> ({
// CHECK-NEXT:    ^bb0(%scan.state: tensor<?x4xf32>):
// CHECK-NEXT:      %s_update = te.compute "s_update" (%m) {
// CHECK:             %{{.*}} = te.read %scan.state[%{{.*}}, %i_1] : tensor<?x4xf32> -> f32
// CHECK:           te.yield %s_update : tensor<?x4xf32>
// CHECK-NEXT:    }) {operandSegmentSizes = array<i32: 1, 1>} : (tensor<1x4xf32>, index) -> tensor<?x4xf32>
// CHECK:         te.schedule {
// CHECK-NEXT:      te.set_scope "s_init" {scope = "local"}
// CHECK-NEXT:    }
func.func @cumsum(%X: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %m = te.dim %X, 0 : tensor<?x4xf32>
  %s_init = te.compute "s_init" {
  ^bb0(%_: index, %i: index):
    %0 = arith.constant 0 : index
    %1 = te.read %X[%0, %i] : tensor<?x4xf32> -> f32
    te.yield %1 : f32
  } {axis_names = ["_", "i"]} : tensor<1x4xf32>
  %scan = "te.scan"(%s_init, %m) <{name = "scan"}> ({
  ^bb0(%scan.state: tensor<?x4xf32>):
    %s_update = te.compute "s_update" (%m) {
    ^bb0(%t: index, %i_1: index):
      %2 = arith.constant 1 : index
      %3 = arith.subi %t, %2 : index
      %4 = te.read %scan.state[%3, %i_1] : tensor<?x4xf32> -> f32
      %5 = te.read %X[%t, %i_1] : tensor<?x4xf32> -> f32
      %6 = arith.addf %4, %5 : f32
      te.yield %6 : f32
    } {axis_names = ["t", "i"]} : tensor<?x4xf32>
    te.yield %s_update : tensor<?x4xf32>
  }) {operandSegmentSizes = array<i32: 1, 1>} : (tensor<1x4xf32>, index) -> tensor<?x4xf32>
  te.schedule {
    te.set_scope "s_init" {scope = "local"}
  }
  func.return %scan : tensor<?x4xf32>
}
