// te.scan and te.set_scope verifier messages.
// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

func.func @no_update(%X: tensor<?x4xf32>, %m: index) -> tensor<?x4xf32> {
  %s_init = te.compute "s_init" {
  ^bb0(%_: index, %i: index):
    %0 = arith.constant 0 : index
    %1 = te.read %X[%0, %i] : tensor<?x4xf32> -> f32
    te.yield %1 : f32
  } {axis_names = ["_", "i"]} : tensor<1x4xf32>
  // expected-error@+1 {{'te.scan' op body must end with a te.yield of one update per result}}
  %scan = "te.scan"(%s_init, %m) <{name = "scan"}> ({
  ^bb0(%state: tensor<?x4xf32>):
    te.yield
  }) {operandSegmentSizes = array<i32: 1, 1>} : (tensor<1x4xf32>, index) -> tensor<?x4xf32>
  func.return %scan : tensor<?x4xf32>
}

// -----

func.func @sizes(%X: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %s_init = te.compute "s_init" {
  ^bb0(%_: index, %i: index):
    %0 = arith.constant 0 : index
    %1 = te.read %X[%0, %i] : tensor<?x4xf32> -> f32
    te.yield %1 : f32
  } {axis_names = ["_", "i"]} : tensor<1x4xf32>
  // expected-error@+1 {{'te.scan' op has 0 size operands for 1 dynamic dimensions of its results}}
  %scan = "te.scan"(%s_init) <{name = "scan"}> ({
  ^bb0(%state: tensor<?x4xf32>):
    te.yield %state : tensor<?x4xf32>
  }) {operandSegmentSizes = array<i32: 1, 0>} : (tensor<1x4xf32>) -> tensor<?x4xf32>
  func.return %scan : tensor<?x4xf32>
}

// -----

func.func @scope(%A: tensor<4xf32>) -> tensor<4xf32> {
  te.schedule {
    // expected-error@+1 {{'te.set_scope' op scope 'nowhere' is not a known storage scope}}
    te.set_scope "B" {scope = "nowhere"}
  }
  func.return %A : tensor<4xf32>
}
