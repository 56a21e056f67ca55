// RUN: xtvm-opt %s -p relay-dce --split-input-file | filecheck %s

// An unused op goes, and so does the op only it read; the used chain stays.
// CHECK-LABEL: func.func @erase_unused_chain
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[E:.*]] = relay.exp %[[X]]
// CHECK-NEXT:    func.return %[[E]]
func.func @erase_unused_chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = relay.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %n = relay.negative %x : (tensor<4xf32>) -> tensor<4xf32>
  %t = relay.tanh %n : (tensor<4xf32>) -> tensor<4xf32>
  func.return %e : tensor<4xf32>
}

// -----

// Unused constants, params and tuples are relay ops too.
// CHECK-LABEL: func.func @erase_unused_leaves
// CHECK-NOT:     relay.
// CHECK:         func.return
func.func @erase_unused_leaves(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = relay.const dense<1.0> : tensor<2xf32>
  %w = relay.param["w"] : tensor<2xf32>
  %t = relay.tuple %c, %w : (tensor<2xf32>, tensor<2xf32>) -> tuple<tensor<2xf32>, tensor<2xf32>>
  func.return %x : tensor<2xf32>
}

// -----

// Unused ops of other dialects are not relay-dce's business.
// CHECK-LABEL: func.func @keep_other_dialects
// CHECK-NEXT:    arith.constant
// CHECK-NEXT:    func.return
func.func @keep_other_dialects(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = arith.constant 1 : i32
  %e = relay.exp %x : (tensor<2xf32>) -> tensor<2xf32>
  func.return %x : tensor<2xf32>
}

// -----

// An unused private function is a symbol, never dead code here.
// CHECK-LABEL: func.func private @keep_function
// CHECK-NEXT:    relay.exp
func.func private @keep_function(%x: tensor<2xf32>) -> tensor<2xf32> {
  %e = relay.exp %x : (tensor<2xf32>) -> tensor<2xf32>
  func.return %e : tensor<2xf32>
}
