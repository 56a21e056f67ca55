// RUN: xtvm-opt %s -p 'relay-fold-constant{max-elements=4}' --split-input-file | filecheck %s

// A result within the limit folds.
// CHECK-LABEL: func.func @fold_small
// CHECK-NEXT:    %[[V:.*]] = relay.const dense<[2, 4, 6, 8]> : tensor<4xi32>
// CHECK-NEXT:    func.return %[[V]]
func.func @fold_small() -> tensor<4xi32> {
  %a = relay.const dense<[1, 2, 3, 4]> : tensor<4xi32>
  %s = relay.add %a, %a : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  func.return %s : tensor<4xi32>
}

// -----

// A broadcast to more elements than the limit is not materialised.
// CHECK-LABEL: func.func @keep_large
// CHECK:         relay.broadcast_to
func.func @keep_large() -> tensor<2x4xi32> {
  %a = relay.const dense<[1, 2, 3, 4]> : tensor<4xi32>
  %b = relay.broadcast_to %a {shape = array<i64: 2, 4>} : (tensor<4xi32>) -> tensor<2x4xi32>
  func.return %b : tensor<2x4xi32>
}
