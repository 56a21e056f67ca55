// te.tensorize in the custom and the generic form: each reads back to the same op.
// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s | xtvm-opt | filecheck %s
// RUN: xtvm-opt %s --print-generic | filecheck %s --check-prefix=GENERIC
// RUN: xtvm-opt %s --print-generic | xtvm-opt | filecheck %s

// CHECK-LABEL: func.func @tensorized
// CHECK:         te.schedule {
// CHECK-NEXT:      te.split "C" {axis = "i", factor = 8 : i64, outer = "i.outer", inner = "i.inner"}
// CHECK-NEXT:      te.tensorize "C" {axis = "i.inner", intrin = "vadd8"}
// CHECK-NEXT:    }
// GENERIC:       "te.tensorize"() <{stage = "C", axis = "i.inner", intrin = "vadd8"}> : () -> ()
func.func @tensorized(%A: tensor<64xf32>) -> tensor<64xf32> {
  %C = te.compute "C" {
  ^bb0(%i: index):
    %a = te.read %A[%i] : tensor<64xf32> -> f32
    te.yield %a : f32
  } {axis_names = ["i"]} : tensor<64xf32>
  te.schedule {
    te.split "C" {axis = "i", factor = 8 : i64, outer = "i.outer", inner = "i.inner"}
    te.tensorize "C" {axis = "i.inner", intrin = "vadd8"}
  }
  func.return %C : tensor<64xf32>
}
