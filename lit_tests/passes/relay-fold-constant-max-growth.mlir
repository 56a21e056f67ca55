// RUN: xtvm-opt %s -p 'relay-fold-constant{max-elements=4 max-growth=2}' --split-input-file | filecheck %s

// Beyond max-elements, a result no larger than max-growth times its operands still folds
// (a transform of a large weight).
// CHECK-LABEL: func.func @fold_transform
// CHECK-NEXT:    %[[V:.*]] = relay.const dense<{{\[}}[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>
// CHECK-NEXT:    func.return %[[V]]
func.func @fold_transform() -> tensor<3x2xi32> {
  %a = relay.const dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %t = relay.transpose %a {axes = array<i64: 1, 0>} : (tensor<2x3xi32>) -> tensor<3x2xi32>
  func.return %t : tensor<3x2xi32>
}

// -----

// An expansion past both limits stays an op (a tiny model cannot ask for a huge constant).
// CHECK-LABEL: func.func @keep_expansion
// CHECK:         relay.broadcast_to
func.func @keep_expansion() -> tensor<4x4xi32> {
  %a = relay.const dense<[1, 2, 3, 4]> : tensor<4xi32>
  %b = relay.broadcast_to %a {shape = array<i64: 4, 4>} : (tensor<4xi32>) -> tensor<4x4xi32>
  func.return %b : tensor<4x4xi32>
}
