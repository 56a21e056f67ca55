// RUN: xtvm-opt %s -p relay-cse --split-input-file | filecheck %s

// The second identical add is replaced by the first; its users read the first.
// CHECK-LABEL: func.func @merge_identical_ops
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[SUM:.*]] = relay.add %[[X]], %[[Y]]
// CHECK-NEXT:    %[[PROD:.*]] = relay.multiply %[[SUM]], %[[SUM]]
// CHECK-NEXT:    func.return %[[PROD]]
func.func @merge_identical_ops(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %b = relay.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %m = relay.multiply %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %m : tensor<4xf32>
}

// -----

// Equal constants merge; different ones stay apart.
// CHECK-LABEL: func.func @merge_equal_constants
// CHECK-NEXT:    %[[ONE:.*]] = relay.const dense<1.000000e+00>
// CHECK-NEXT:    %[[TWO:.*]] = relay.const dense<2.000000e+00>
// CHECK-NEXT:    %[[S:.*]] = relay.add %[[ONE]], %[[TWO]]
// CHECK-NEXT:    %[[T:.*]] = relay.add %[[S]], %[[ONE]]
// CHECK-NEXT:    func.return %[[T]]
func.func @merge_equal_constants() -> tensor<2xf32> {
  %one = relay.const dense<1.0> : tensor<2xf32>
  %two = relay.const dense<2.0> : tensor<2xf32>
  %one_again = relay.const dense<1.0> : tensor<2xf32>
  %s = relay.add %one, %two : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %t = relay.add %s, %one_again : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %t : tensor<2xf32>
}

// -----

// Same op on the same operands with different properties is a different value.
// CHECK-LABEL: func.func @keep_different_properties
// CHECK:         relay.nn.softmax %{{.*}} {axis = 0 : i64}
// CHECK:         relay.nn.softmax %{{.*}} {axis = 1 : i64}
func.func @keep_different_properties(%x: tensor<2x2xf32>) -> tuple<tensor<2x2xf32>, tensor<2x2xf32>> {
  %a = relay.nn.softmax %x {axis = 0 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %b = relay.nn.softmax %x {axis = 1 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %t = relay.tuple %a, %b : (tensor<2x2xf32>, tensor<2x2xf32>) -> tuple<tensor<2x2xf32>, tensor<2x2xf32>>
  func.return %t : tuple<tensor<2x2xf32>, tensor<2x2xf32>>
}

// -----

// Identical ops of other dialects are left to the upstream `cse`.
// CHECK-LABEL: func.func @keep_other_dialects
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    arith.constant 1 : i32
func.func @keep_other_dialects() -> (i32, i32) {
  %a = arith.constant 1 : i32
  %b = arith.constant 1 : i32
  func.return %a, %b : i32, i32
}

// -----

// Tuple-valued ops merge too, and so do the field reads of the merged tuple.
// CHECK-LABEL: func.func @merge_tuple_valued_ops
// CHECK-NEXT:    %[[PARTS:.*]] = relay.split
// CHECK-NEXT:    %[[FIRST:.*]] = relay.tuple_get_item %[[PARTS]][0]
// CHECK-NEXT:    %[[DOUBLE:.*]] = relay.add %[[FIRST]], %[[FIRST]]
// CHECK-NEXT:    func.return %[[DOUBLE]]
func.func @merge_tuple_valued_ops(%x: tensor<4xf32>) -> tensor<2xf32> {
  %p = relay.split %x {indices_or_sections = 2 : i64} : (tensor<4xf32>) -> tuple<tensor<2xf32>, tensor<2xf32>>
  %q = relay.split %x {indices_or_sections = 2 : i64} : (tensor<4xf32>) -> tuple<tensor<2xf32>, tensor<2xf32>>
  %a = relay.tuple_get_item %p[0] : (tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
  %b = relay.tuple_get_item %q[0] : (tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
  %s = relay.add %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %s : tensor<2xf32>
}
