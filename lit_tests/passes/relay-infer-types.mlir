// RUN: xtvm-opt %s -p relay-infer-types --split-input-file --no-verify-each | filecheck %s

// A new argument shape flows through the ops to the function's result type.
// CHECK-LABEL: func.func @propagate_argument_shape
// CHECK-SAME:    (%[[X:.*]]: tensor<8x3xf32>) -> tensor<8x3xf32>
// CHECK-NEXT:    %[[E:.*]] = relay.exp %[[X]] : (tensor<8x3xf32>) -> tensor<8x3xf32>
// CHECK-NEXT:    %[[S:.*]] = relay.nn.softmax %[[E]] {axis = 1 : i64} : (tensor<8x3xf32>) -> tensor<8x3xf32>
// CHECK-NEXT:    func.return %[[S]] : tensor<8x3xf32>
func.func @propagate_argument_shape(%x: tensor<8x3xf32>) -> tensor<1x3xf32> {
  %e = relay.exp %x : (tensor<8x3xf32>) -> tensor<1x3xf32>
  %s = relay.nn.softmax %e {axis = 1 : i64} : (tensor<1x3xf32>) -> tensor<1x3xf32>
  func.return %s : tensor<1x3xf32>
}

// -----

// Broadcasting and reshapes are recomputed; params keep their declared type.
// CHECK-LABEL: func.func @infer_broadcast_and_reshape
// CHECK-SAME:    -> tensor<2x12xf32>
// CHECK:         %[[B:.*]] = relay.param["bias"] : tensor<4xf32>
// CHECK:         relay.add %{{.*}}, %[[B]] : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK:         relay.reshape {{.*}} -> tensor<2x12xf32>
func.func @infer_broadcast_and_reshape(%x: tensor<2x3x4xf32>) -> tensor<4xf32> {
  %b = relay.param["bias"] : tensor<4xf32>
  %a = relay.add %x, %b : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %r = relay.reshape %a {newshape = array<i64: 0, -1>} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// A callee's new signature reaches its calls, and the caller's signature follows.
// CHECK-LABEL: func.func @callee
// CHECK-SAME:    -> tensor<5xf32>
// CHECK-LABEL: func.func @caller
// CHECK-SAME:    -> tensor<5xf32>
// CHECK-NEXT:    %[[C:.*]] = func.call @callee(%{{.*}}) : (tensor<5xf32>) -> tensor<5xf32>
// CHECK-NEXT:    %[[N:.*]] = relay.negative %[[C]] : (tensor<5xf32>) -> tensor<5xf32>
func.func @callee(%x: tensor<5xf32>) -> tensor<2xf32> {
  %e = relay.exp %x : (tensor<5xf32>) -> tensor<2xf32>
  func.return %e : tensor<2xf32>
}
func.func @caller(%x: tensor<5xf32>) -> tensor<2xf32> {
  %c = func.call @callee(%x) : (tensor<5xf32>) -> tensor<2xf32>
  %n = relay.negative %c : (tensor<2xf32>) -> tensor<2xf32>
  func.return %n : tensor<2xf32>
}

// -----

// Tuple results are inferred field by field.
// CHECK-LABEL: func.func @infer_split
// CHECK:         relay.split {{.*}} -> tuple<tensor<3xi32>, tensor<3xi32>>
// CHECK:         relay.tuple_get_item {{.*}} -> tensor<3xi32>
func.func @infer_split(%x: tensor<6xi32>) -> tensor<2xi32> {
  %t = relay.split %x {indices_or_sections = 2 : i64} : (tensor<6xi32>) -> tuple<tensor<2xi32>, tensor<2xi32>>
  %a = relay.tuple_get_item %t[1] : (tuple<tensor<2xi32>, tensor<2xi32>>) -> tensor<2xi32>
  func.return %a : tensor<2xi32>
}
