// RUN: xtvm-opt %s -p relay-canonicalize-ops --split-input-file | filecheck %s

// A bias along the channels of NCHW data gets two trailing unit axes, then is added.
// CHECK-LABEL: func.func @bias_add_nchw
// CHECK-SAME:    (%[[X:.*]]: tensor<1x3x4x4xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK-NEXT:    %[[E:.*]] = relay.expand_dims %[[B]] {axis = 1 : i64, num_newaxis = 2 : i64} : (tensor<3xf32>) -> tensor<3x1x1xf32>
// CHECK-NEXT:    %[[Y:.*]] = relay.add %[[X]], %[[E]] : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @bias_add_nchw(%x: tensor<1x3x4x4xf32>, %b: tensor<3xf32>) -> tensor<1x3x4x4xf32> {
  %y = relay.nn.bias_add %x, %b : (tensor<1x3x4x4xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  func.return %y : tensor<1x3x4x4xf32>
}

// -----

// Along the last axis the bias broadcasts as it is.
// CHECK-LABEL: func.func @bias_add_last_axis
// CHECK-NEXT:    %[[Y:.*]] = relay.add %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @bias_add_last_axis(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %y = relay.nn.bias_add %x, %b {axis = -1 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
