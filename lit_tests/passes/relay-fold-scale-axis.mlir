// RUN: xtvm-opt %s -p relay-fold-scale-axis --split-input-file | filecheck %s

// Backward: a positive per-channel scale after conv2d, bias_add and relu is paid on the weight
// (rows scaled by 2, 3, 0.5) and on the bias; the multiply goes.
// CHECK-LABEL: func.func @backward_through_bias_and_relu
// CHECK-NEXT:    %[[W:.*]] = relay.const dense<{{.*}}2.000000e+00{{.*}}4.000000e+00{{.*}}9.000000e+00{{.*}}1.200000e+01{{.*}}2.500000e+00{{.*}}3.000000e+00{{.*}}> : tensor<3x2x1x1xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.nn.conv2d %{{.*}}, %[[W]]
// CHECK-NEXT:    %[[B:.*]] = relay.const dense<[1.000000e+00, -3.000000e+00, 1.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    %[[BA:.*]] = relay.nn.bias_add %[[C]], %[[B]]
// CHECK-NEXT:    %[[R:.*]] = relay.nn.relu %[[BA]]
// CHECK-NEXT:    func.return %[[R]]
func.func @backward_through_bias_and_relu(%x: tensor<1x2x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %w = relay.const dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]], [[[5.0]], [[6.0]]]]> : tensor<3x2x1x1xf32>
  %b = relay.const dense<[0.5, -1.0, 2.0]> : tensor<3xf32>
  %s = relay.const dense<[[[2.0]], [[3.0]], [[0.5]]]> : tensor<3x1x1xf32>
  %c = relay.nn.conv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
  %ba = relay.nn.bias_add %c, %b : (tensor<1x3x4x4xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  %r = relay.nn.relu %ba : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %m = relay.multiply %r, %s : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
  func.return %m : tensor<1x3x4x4xf32>
}

// -----

// A weight known only at run time gets a multiply by the scale laid along its output axis,
// which relay-fold-constant folds once the weight is a constant.
// CHECK-LABEL: func.func @backward_param_weight
// CHECK-NEXT:    %[[W:.*]] = relay.param["w"] : tensor<3x2x3x3xf32>
// CHECK-NEXT:    %[[S:.*]] = relay.const dense<{{.*}}> : tensor<3x1x1x1xf32>
// CHECK-NEXT:    %[[SW:.*]] = relay.multiply %[[W]], %[[S]]
// CHECK-NEXT:    %[[C:.*]] = relay.nn.conv2d %{{.*}}, %[[SW]]
// CHECK-NEXT:    func.return %[[C]]
func.func @backward_param_weight(%x: tensor<1x2x5x5xf32>) -> tensor<1x3x3x3xf32> {
  %w = relay.param["w"] : tensor<3x2x3x3xf32>
  %s = relay.const dense<[[[2.0]], [[-3.0]], [[0.5]]]> : tensor<3x1x1xf32>
  %c = relay.nn.conv2d %x, %w : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32>
  %m = relay.multiply %c, %s : (tensor<1x3x3x3xf32>, tensor<3x1x1xf32>) -> tensor<1x3x3x3xf32>
  func.return %m : tensor<1x3x3x3xf32>
}

// -----

// A negative scale does not commute with relu: nothing changes.
// CHECK-LABEL: func.func @negative_scale_after_relu
// CHECK:         relay.nn.relu
// CHECK-NEXT:    relay.multiply
func.func @negative_scale_after_relu(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32> {
  %s = relay.const dense<[[[2.0]], [[-3.0]], [[0.5]]]> : tensor<3x1x1xf32>
  %c = relay.nn.conv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
  %r = relay.nn.relu %c : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %m = relay.multiply %r, %s : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
  func.return %m : tensor<1x3x4x4xf32>
}

// -----

// Forward: a positive scale of the input channels, through relu, is folded into the weight's
// input axis (columns scaled by 2 and 10).
// CHECK-LABEL: func.func @forward_through_relu
// CHECK-NEXT:    %[[R:.*]] = relay.nn.relu %[[X:[[:alnum:]_]+]]
// CHECK-NEXT:    %[[W:.*]] = relay.const dense<{{.*}}2.000000e+00{{.*}}2.000000e+01{{.*}}> : tensor<1x2x1x1xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.nn.conv2d %[[R]], %[[W]]
// CHECK-NEXT:    func.return %[[C]]
func.func @forward_through_relu(%x: tensor<1x2x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %s = relay.const dense<[[[2.0]], [[10.0]]]> : tensor<2x1x1xf32>
  %w = relay.const dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %m = relay.multiply %x, %s : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r = relay.nn.relu %m : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %c = relay.nn.conv2d %r, %w : (tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x1x4x4xf32>
  func.return %c : tensor<1x1x4x4xf32>
}

// -----

// Dense: a scale per output unit is folded into the weight's rows.
// CHECK-LABEL: func.func @backward_dense
// CHECK-NEXT:    %[[W:.*]] = relay.const dense<{{.*}}1.000000e+00{{.*}}2.000000e+00{{.*}}-9.000000e+00{{.*}}-1.200000e+01{{.*}}> : tensor<2x2xf32>
// CHECK-NEXT:    %[[D:.*]] = relay.nn.dense %{{.*}}, %[[W]]
// CHECK-NEXT:    func.return %[[D]]
func.func @backward_dense(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %w = relay.const dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %s = relay.const dense<[1.0, -3.0]> : tensor<2xf32>
  %d = relay.nn.dense %x, %w : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %m = relay.multiply %s, %d : (tensor<2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  func.return %m : tensor<4x2xf32>
}

// -----

// Left alone: a scale that varies along a spatial axis, and a conv2d whose result is also
// used elsewhere.
// CHECK-LABEL: func.func @not_per_channel
// CHECK:         relay.nn.conv2d
// CHECK-NEXT:    relay.multiply
// CHECK-LABEL: func.func @shared_result
// CHECK:         %[[C:.*]] = relay.nn.conv2d
// CHECK-NEXT:    %[[M:.*]] = relay.multiply %[[C]]
// CHECK-NEXT:    func.return %[[C]], %[[M]]
func.func @not_per_channel(%x: tensor<1x2x2x2xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32> {
  %s = relay.const dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %c = relay.nn.conv2d %x, %w : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %m = relay.multiply %c, %s : (tensor<1x2x2x2xf32>, tensor<2x1xf32>) -> tensor<1x2x2x2xf32>
  func.return %m : tensor<1x2x2x2xf32>
}
func.func @shared_result(%x: tensor<1x2x2x2xf32>, %w: tensor<2x2x1x1xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %s = relay.const dense<[[[1.0]], [[2.0]]]> : tensor<2x1x1xf32>
  %c = relay.nn.conv2d %x, %w : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %m = relay.multiply %c, %s : (tensor<1x2x2x2xf32>, tensor<2x1x1xf32>) -> tensor<1x2x2x2xf32>
  func.return %c, %m : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}
