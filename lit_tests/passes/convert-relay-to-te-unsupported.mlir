// What convert-relay-to-te refuses: each is a located error at the op, never a skipped op.
// RUN: xtvm-opt %s -p convert-relay-to-te --split-input-file --verify-diagnostics

// An op that is not a relay op has no strategy.
func.func private @fused_add(%x: tensor<2x3xf32>) -> tensor<2x3xf32> attributes {primitive} {
  // expected-error@+1 {{failed to legalize operation 'arith.constant'}}
  %c = arith.constant 1 : i32
  %y = relay.add %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

// bf16 has no numpy dtype, so te cannot compute in it; an op outside any primitive function
// is outlined into one of its own first and reported where it was written.
func.func @main(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  // expected-error@+1 {{failed to legalize operation 'relay.exp': no te lowering for bf16}}
  %y = relay.exp %x : (tensor<4xbf16>) -> tensor<4xbf16>
  func.return %y : tensor<4xbf16>
}

// -----

// A primitive function that returns no tensor has nothing to compute.
// expected-error@+1 {{primitive function '@fused_nothing' returns no tensor: nothing to compute}}
func.func private @fused_nothing(%x: tensor<4xf32>) attributes {primitive} {
  %y = relay.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return
}
