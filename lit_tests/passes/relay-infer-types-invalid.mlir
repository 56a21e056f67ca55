// RUN: not xtvm-opt %s -p relay-infer-types --no-verify-each 2>&1 | filecheck %s

// The op whose inference fails is named, at its own location, with its verifier's message.
// CHECK: relay-infer-types-invalid.mlir:[[# @LINE + 3]]:8: error: 'relay.add' op operand shapes do not broadcast: 2x3 vs 4
func.func @bad_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  %e = relay.exp %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = relay.add %e, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return %c : tensor<2x3xf32>
}
