// RUN: xtvm-opt %s -p relay-combine-layer-norm --split-input-file | filecheck %s

// The spelt-out layer normalisation of older ONNX exports (ReduceMean, Sub, Pow 2, ReduceMean,
// Add eps, Sqrt, Div, Mul gamma, Add beta) becomes one nn.layer_norm with gamma and beta.
// CHECK-LABEL: func.func @spelt_out
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT:    %[[G:.*]] = relay.const dense<2.000000e+00> : tensor<8xf32>
// CHECK-NEXT:    %[[B:.*]] = relay.const dense<5.000000e-01> : tensor<8xf32>
// CHECK-NEXT:    %[[N:.*]] = relay.nn.layer_norm %[[X]], %[[G]], %[[B]] {epsilon = 9.99{{[0-9]*}}e-06 : f64} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT:    func.return %[[N]]
func.func @spelt_out(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %g = relay.const dense<2.0> : tensor<8xf32>
  %b = relay.const dense<0.5> : tensor<8xf32>
  %two = relay.const dense<2.0> : tensor<f32>
  %eps = relay.const dense<1.0e-05> : tensor<f32>
  %m = relay.mean %x {axis = array<i64: -1>, keepdims = true} : (tensor<2x4x8xf32>) -> tensor<2x4x1xf32>
  %c = relay.subtract %x, %m : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %sq = relay.power %c, %two : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %v = relay.mean %sq {axis = array<i64: 2>, keepdims = true} : (tensor<2x4x8xf32>) -> tensor<2x4x1xf32>
  %ve = relay.add %v, %eps : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4x1xf32>
  %s = relay.sqrt %ve : (tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %n = relay.divide %c, %s : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %ng = relay.multiply %n, %g : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %y = relay.add %ng, %b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  func.return %y : tensor<2x4x8xf32>
}

// -----

// Without gamma and beta (a multiply of the centred value by itself, eps first in the add):
// a layer_norm that neither scales nor centres.
// CHECK-LABEL: func.func @bare
// CHECK-NEXT:    %[[ONES:.*]] = relay.const dense<1.000000e+00> : tensor<5xf32>
// CHECK-NEXT:    %[[ZEROS:.*]] = relay.const dense<0.000000e+00> : tensor<5xf32>
// CHECK-NEXT:    %[[N:.*]] = relay.nn.layer_norm %x, %[[ONES]], %[[ZEROS]] {epsilon = 0.00100{{[0-9]*}} : f64, center = false, scale = false}
// CHECK-NEXT:    func.return %[[N]]
func.func @bare(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %eps = relay.const dense<1.0e-03> : tensor<f32>
  %m = relay.mean %x {axis = array<i64: 1>, keepdims = true} : (tensor<3x5xf32>) -> tensor<3x1xf32>
  %c = relay.subtract %x, %m : (tensor<3x5xf32>, tensor<3x1xf32>) -> tensor<3x5xf32>
  %sq = relay.multiply %c, %c : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %v = relay.mean %sq {axis = array<i64: 1>, keepdims = true} : (tensor<3x5xf32>) -> tensor<3x1xf32>
  %ve = relay.add %eps, %v : (tensor<f32>, tensor<3x1xf32>) -> tensor<3x1xf32>
  %s = relay.sqrt %ve : (tensor<3x1xf32>) -> tensor<3x1xf32>
  %n = relay.divide %c, %s : (tensor<3x5xf32>, tensor<3x1xf32>) -> tensor<3x5xf32>
  func.return %n : tensor<3x5xf32>
}

// -----

// Not a layer normalisation over the last axis, or an intermediate read elsewhere: unchanged.
// CHECK-LABEL: func.func @first_axis
// CHECK-NOT:     relay.nn.layer_norm
// CHECK:         func.return
func.func @first_axis(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %eps = relay.const dense<1.0e-03> : tensor<f32>
  %m = relay.mean %x {axis = array<i64: 0>, keepdims = true} : (tensor<3x5xf32>) -> tensor<1x5xf32>
  %c = relay.subtract %x, %m : (tensor<3x5xf32>, tensor<1x5xf32>) -> tensor<3x5xf32>
  %sq = relay.multiply %c, %c : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %v = relay.mean %sq {axis = array<i64: 0>, keepdims = true} : (tensor<3x5xf32>) -> tensor<1x5xf32>
  %ve = relay.add %v, %eps : (tensor<1x5xf32>, tensor<f32>) -> tensor<1x5xf32>
  %s = relay.sqrt %ve : (tensor<1x5xf32>) -> tensor<1x5xf32>
  %n = relay.divide %c, %s : (tensor<3x5xf32>, tensor<1x5xf32>) -> tensor<3x5xf32>
  func.return %n : tensor<3x5xf32>
}

// -----

// CHECK-LABEL: func.func @variance_also_returned
// CHECK-NOT:     relay.nn.layer_norm
// CHECK:         func.return
func.func @variance_also_returned(%x: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x1xf32>) {
  %eps = relay.const dense<1.0e-03> : tensor<f32>
  %m = relay.mean %x {axis = array<i64: 1>, keepdims = true} : (tensor<3x5xf32>) -> tensor<3x1xf32>
  %c = relay.subtract %x, %m : (tensor<3x5xf32>, tensor<3x1xf32>) -> tensor<3x5xf32>
  %sq = relay.multiply %c, %c : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %v = relay.mean %sq {axis = array<i64: 1>, keepdims = true} : (tensor<3x5xf32>) -> tensor<3x1xf32>
  %ve = relay.add %v, %eps : (tensor<3x1xf32>, tensor<f32>) -> tensor<3x1xf32>
  %s = relay.sqrt %ve : (tensor<3x1xf32>) -> tensor<3x1xf32>
  %n = relay.divide %c, %s : (tensor<3x5xf32>, tensor<3x1xf32>) -> tensor<3x5xf32>
  func.return %n, %v : tensor<3x5xf32>, tensor<3x1xf32>
}
