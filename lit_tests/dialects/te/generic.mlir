// The generic form of the te ops; read back, it prints in the custom form again.
// RUN: xtvm-opt %s --print-generic | filecheck %s
// RUN: xtvm-opt %s --print-generic | xtvm-opt | filecheck %s --check-prefix=CUSTOM

// CHECK-LABEL: "func.func"
// CHECK:         %{{.*}} = "te.compute"() <{name = "B", axis_names = ["i"]}> ({
// CHECK-NEXT:    ^{{.*}}(%[[I:.*]]: index):
// CHECK-NEXT:      %[[S:.*]] = "te.reduce"() <{combiner = "max", extents = array<i64: 4>, axis_names = ["k"], regionSegmentSizes = array<i32: 1, 0, 0>}> ({
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

// The new stage-creating ops have a result; te.dim keeps its dimension as a property.
// CHECK-LABEL: "func.func"() <{sym_name = "cached"
// CHECK:         %{{.*}} = "te.dim"(%{{.*}}) <{dim = 0 : i64}> : (tensor<?xf32>) -> index
// CHECK:         %{{.*}} = "te.compute"(%{{.*}}) <{name = "B", axis_names = ["i"]}> ({
// CHECK:         %{{.*}} = "te.cache_read"(%{{.*}}) <{name = "A.local", scope = "local", readers = ["B"]}> : (tensor<?xf32>) -> tensor<?xf32>
// CHECK-NEXT:    "te.compute_at"() <{stage = "A.local", parent = "B", axis = "i"}> : () -> ()

// CUSTOM-LABEL: func.func @cached
// CUSTOM:         %A.local = te.cache_read %A {name = "A.local", scope = "local", readers = ["B"]} : tensor<?xf32>
func.func @cached(%A: tensor<?xf32>) -> tensor<?xf32> {
  %n = te.dim %A, 0 : tensor<?xf32>
  %B = te.compute "B" (%n) {
  ^bb0(%i: index):
    %a = te.read %A[%i] : tensor<?xf32> -> f32
    te.yield %a : f32
  } {axis_names = ["i"]} : tensor<?xf32>
  te.schedule {
    %A.local = te.cache_read %A {name = "A.local", scope = "local", readers = ["B"]} : tensor<?xf32>
    te.compute_at "A.local" {parent = "B", axis = "i"}
  }
  func.return %B : tensor<?xf32>
}
