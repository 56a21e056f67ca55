// RUN: xtvm-opt %s -p relay-simplify-expr --split-input-file | filecheck %s

// (x + c1) + c2 adds the sum of the constants once.
// CHECK-LABEL: func.func @consecutive_add
// CHECK-SAME:    (%[[X:.*]]: tensor<1x3x4x4xf32>)
// CHECK-DAG:     %[[C1:.*]] = relay.const dense<1.000000e+00> : tensor<3x1x1xf32>
// CHECK-DAG:     %[[C2:.*]] = relay.const dense<2.000000e+00> : tensor<3x1x1xf32>
// CHECK:         %[[C:.*]] = relay.add %[[C1]], %[[C2]]
// CHECK-NEXT:    %[[Y:.*]] = relay.add %[[X]], %[[C]]
// CHECK-NEXT:    func.return %[[Y]]
func.func @consecutive_add(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %c1 = relay.const dense<1.0> : tensor<3x1x1xf32>
  %c2 = relay.const dense<2.0> : tensor<3x1x1xf32>
  %a = relay.add %x, %c1 : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
  %b = relay.add %a, %c2 : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
  func.return %b : tensor<1x3x4x4xf32>
}

// -----

// An inner add used elsewhere stays.
// CHECK-LABEL: func.func @inner_add_used_twice
// CHECK:         %[[A:.*]] = relay.add %{{.*}}, %{{.*}}
// CHECK-NEXT:    %[[B:.*]] = relay.add %[[A]], %{{.*}}
// CHECK-NEXT:    func.return %[[A]], %[[B]]
func.func @inner_add_used_twice(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c1 = relay.const dense<1.0> : tensor<4xf32>
  %c2 = relay.const dense<2.0> : tensor<4xf32>
  %a = relay.add %x, %c1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %b = relay.add %a, %c2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

// A reshape of a reshape is one reshape; a reshape to the same shape and an identity
// transpose go.
// CHECK-LABEL: func.func @reshapes
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT:    %[[R:.*]] = relay.reshape %[[X]] {newshape = array<i64: 4, 6>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @reshapes(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %a = relay.reshape %x {newshape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %b = relay.reshape %a {newshape = array<i64: 4, -1>} : (tensor<6x4xf32>) -> tensor<4x6xf32>
  %c = relay.reshape %b {newshape = array<i64: 0, 6>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %d = relay.transpose %c {axes = array<i64: 0, 1>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  func.return %d : tensor<4x6xf32>
}
