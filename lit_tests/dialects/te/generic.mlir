// The generic form of the te ops; read back, it prints in the custom form again.
// RUN: xtvm-opt %s --print-generic | filecheck %s
// RUN: xtvm-opt %s --print-generic | xtvm-opt | filecheck %s --check-prefix=CUSTOM

// CHECK-LABEL: "func.func"
// CHECK:         %{{.*}} = "te.compute"() <{name = "B", axis_names = ["i"]}> ({
// CHECK-NEXT:    ^{{.*}}(%[[I:.*]]: index):
// CHECK-NEXT:      %[[S:.*]] = "te.reduce"() <{combiner = "max", extents = array<i64: 4>, axis_names = ["k"]}> ({
// CHECK-NEXT:      ^{{.*}}(%[[K:.*]]: index):
// CHECK-NEXT:        %[[A:.*]] = "te.read"(%{{.*}}, %[[I]], %[[K]]) : (tensor<3x4xf32>, index, index) -> f32
// CHECK-NEXT:        "te.yield"(%[[A]]) : (f32) -> ()
// CHECK-NEXT:      }) : () -> f32
// CHECK-NEXT:      "te.yield"(%[[S]]) : (f32) -> ()
// CHECK-NEXT:    }) : () -> tensor<3xf32>
// CHECK-NEXT:    "te.schedule"() ({
// CHECK-NEXT:      "te.split"() <{stage = "B", axis = "i", factor = 2 : i64, outer = "i.outer", inner = "i.inner"}> : () -> ()
// CHECK-NEXT:    }) : () -> ()

// CUSTOM-LABEL: func.func @row_max
// CUSTOM:         te.reduce "max" {
// CUSTOM:         te.split "B" {axis = "i", factor = 2 : i64, outer = "i.outer", inner = "i.inner"}
func.func @row_max(%A: tensor<3x4xf32>) -> tensor<3xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    %m = te.reduce "max" {
    ^bb1(%k: index):
      %a = te.read %A[%i, %k] : tensor<3x4xf32> -> f32
      te.yield %a : f32
    } {extents = array<i64: 4>, axis_names = ["k"]} : f32
    te.yield %m : f32
  } {axis_names = ["i"]} : tensor<3xf32>
  te.schedule {
    te.split "B" {axis = "i", factor = 2 : i64, outer = "i.outer", inner = "i.inner"}
  }
  func.return %B : tensor<3xf32>
}
