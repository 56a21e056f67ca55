// RUN: xtvm-opt %s -p relay-simplify-inference --split-input-file | filecheck %s

// batch_norm along the channels of NCHW data becomes data * scale + shift, with scale and
// shift computed from the statistics and given two trailing unit axes.
// CHECK-LABEL: func.func @unpack_batch_norm_nchw
// CHECK-SAME:    (%[[X:.*]]: tensor<1x3x4x4xf32>, %[[GAMMA:.*]]: tensor<3xf32>, %[[BETA:.*]]: tensor<3xf32>, %[[MEAN:.*]]: tensor<3xf32>, %[[VAR:.*]]: tensor<3xf32>)
// CHECK-NEXT:    %[[EPS:.*]] = relay.const dense<1.000000e-03> : tensor<f32>
// CHECK-NEXT:    %[[VAR_EPS:.*]] = relay.add %[[VAR]], %[[EPS]]
// CHECK-NEXT:    %[[STD:.*]] = relay.sqrt %[[VAR_EPS]]
// CHECK-NEXT:    %[[SCALE:.*]] = relay.divide %[[GAMMA]], %[[STD]]
// CHECK-NEXT:    %[[NEG_MEAN:.*]] = relay.negative %[[MEAN]]
// CHECK-NEXT:    %[[MEAN_SCALED:.*]] = relay.multiply %[[NEG_MEAN]], %[[SCALE]]
// CHECK-NEXT:    %[[SHIFT:.*]] = relay.add %[[MEAN_SCALED]], %[[BETA]]
// CHECK-NEXT:    %[[SCALE_B:.*]] = relay.expand_dims %[[SCALE]] {axis = 1 : i64, num_newaxis = 2 : i64} : (tensor<3xf32>) -> tensor<3x1x1xf32>
// CHECK-NEXT:    %[[SHIFT_B:.*]] = relay.expand_dims %[[SHIFT]] {axis = 1 : i64, num_newaxis = 2 : i64} : (tensor<3xf32>) -> tensor<3x1x1xf32>
// CHECK-NEXT:    %[[SCALED:.*]] = relay.multiply %[[X]], %[[SCALE_B]]
// CHECK-NEXT:    %[[OUT:.*]] = relay.add %[[SCALED]], %[[SHIFT_B]]
// CHECK-NEXT:    func.return %[[OUT]]
func.func @unpack_batch_norm_nchw(%x: tensor<1x3x4x4xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<1x3x4x4xf32> {
  %t = relay.nn.batch_norm %x, %g, %b, %m, %v {epsilon = 1.0e-03 : f64} : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tuple<tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>>
  %y = relay.tuple_get_item %t[0] : (tuple<tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>>) -> tensor<1x3x4x4xf32>
  func.return %y : tensor<1x3x4x4xf32>
}

// -----

// On the last axis no expand_dims is needed; without scale and center the scale is 1 / std
// and the shift has no beta. Reading the moving mean gives the statistic itself.
// CHECK-LABEL: func.func @unpack_batch_norm_last_axis
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>, %{{.*}}: tensor<3xf32>, %{{.*}}: tensor<3xf32>, %[[MEAN:.*]]: tensor<3xf32>, %{{.*}}: tensor<3xf32>)
// CHECK:         %[[ONE:.*]] = relay.const dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[SCALE:.*]] = relay.divide %[[ONE]], %{{.*}}
// CHECK-NEXT:    %[[NEG_MEAN:.*]] = relay.negative %[[MEAN]]
// CHECK-NEXT:    %[[SHIFT:.*]] = relay.multiply %[[NEG_MEAN]], %[[SCALE]]
// CHECK-NEXT:    %[[SCALED:.*]] = relay.multiply %[[X]], %[[SCALE]]
// CHECK-NEXT:    %[[OUT:.*]] = relay.add %[[SCALED]], %[[SHIFT]]
// CHECK-NOT:     relay.nn.batch_norm
// CHECK:         %[[T:.*]] = relay.tuple %[[OUT]], %[[MEAN]]
// CHECK-NEXT:    func.return %[[T]]
func.func @unpack_batch_norm_last_axis(%x: tensor<2x3xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tuple<tensor<2x3xf32>, tensor<3xf32>> {
  %t = relay.nn.batch_norm %x, %g, %b, %m, %v {axis = -1 : i64, center = false, scale = false} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tuple<tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>>
  %y = relay.tuple_get_item %t[0] : (tuple<tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>>) -> tensor<2x3xf32>
  %mean = relay.tuple_get_item %t[1] : (tuple<tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>>) -> tensor<3xf32>
  %r = relay.tuple %y, %mean : (tensor<2x3xf32>, tensor<3xf32>) -> tuple<tensor<2x3xf32>, tensor<3xf32>>
  func.return %r : tuple<tensor<2x3xf32>, tensor<3xf32>>
}

// -----

// A batch_norm returned as a whole tuple becomes a relay.tuple of its inference values.
// CHECK-LABEL: func.func @unpack_batch_norm_whole_tuple
// CHECK-SAME:    (%[[X:.*]]: tensor<4x2xf32>, %{{.*}}: tensor<2xf32>, %{{.*}}: tensor<2xf32>, %[[MEAN:.*]]: tensor<2xf32>, %[[VAR:.*]]: tensor<2xf32>)
// CHECK-NOT:     relay.nn.batch_norm
// CHECK:         %[[OUT:.*]] = relay.add {{.*}} : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
// CHECK-NEXT:    %[[T:.*]] = relay.tuple %[[OUT]], %[[MEAN]], %[[VAR]]
// CHECK-NEXT:    func.return %[[T]]
func.func @unpack_batch_norm_whole_tuple(%x: tensor<4x2xf32>, %g: tensor<2xf32>, %b: tensor<2xf32>, %m: tensor<2xf32>, %v: tensor<2xf32>) -> tuple<tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>> {
  %t = relay.nn.batch_norm %x, %g, %b, %m, %v : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tuple<tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>>
  func.return %t : tuple<tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>>
}

// -----

// Dropout is the identity at inference: its users read its input.
// CHECK-LABEL: func.func @remove_dropout
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[R:.*]] = relay.nn.relu %[[X]]
// CHECK-NEXT:    func.return %[[R]]
func.func @remove_dropout(%x: tensor<4xf32>) -> tensor<4xf32> {
  %d = relay.nn.dropout %x {rate = 0.2 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  %r = relay.nn.relu %d : (tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// layer_norm over the last axis: mean, variance, normalise, then gamma and beta broadcast as
// they are.
// CHECK-LABEL: func.func @unpack_layer_norm_last_axis
// CHECK-SAME:    (%[[X:.*]]: tensor<2x5xf32>, %[[G:.*]]: tensor<5xf32>, %[[B:.*]]: tensor<5xf32>)
// CHECK-NEXT:    %[[M:.*]] = relay.mean %[[X]] {axis = array<i64: 1>, keepdims = true}
// CHECK-NEXT:    %[[C:.*]] = relay.subtract %[[X]], %[[M]]
// CHECK-NEXT:    %[[SQ:.*]] = relay.multiply %[[C]], %[[C]]
// CHECK-NEXT:    %[[V:.*]] = relay.mean %[[SQ]] {axis = array<i64: 1>, keepdims = true}
// CHECK-NEXT:    %[[E:.*]] = relay.const dense<1.000000e-03> : tensor<f32>
// CHECK-NEXT:    %[[VE:.*]] = relay.add %[[V]], %[[E]]
// CHECK-NEXT:    %[[S:.*]] = relay.sqrt %[[VE]]
// CHECK-NEXT:    %[[N:.*]] = relay.divide %[[C]], %[[S]]
// CHECK-NEXT:    %[[NG:.*]] = relay.multiply %[[N]], %[[G]]
// CHECK-NEXT:    %[[R:.*]] = relay.add %[[NG]], %[[B]]
// CHECK-NEXT:    func.return %[[R]]
func.func @unpack_layer_norm_last_axis(%x: tensor<2x5xf32>, %g: tensor<5xf32>, %b: tensor<5xf32>) -> tensor<2x5xf32> {
  %y = relay.nn.layer_norm %x, %g, %b {epsilon = 1.0e-03 : f64} : (tensor<2x5xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  func.return %y : tensor<2x5xf32>
}

// -----

// layer_norm over the channels of NCHW data, without centering: gamma gets two trailing axes
// and beta is not used.
// CHECK-LABEL: func.func @unpack_layer_norm_channels
// CHECK:         %[[G2:.*]] = relay.expand_dims %{{.*}} {axis = 1 : i64, num_newaxis = 2 : i64} : (tensor<3xf32>) -> tensor<3x1x1xf32>
// CHECK-NEXT:    %[[R:.*]] = relay.multiply %{{.*}}, %[[G2]]
// CHECK-NEXT:    func.return %[[R]]
func.func @unpack_layer_norm_channels(%x: tensor<1x3x2x2xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<1x3x2x2xf32> {
  %y = relay.nn.layer_norm %x, %g, %b {axis = 1 : i64, center = false} : (tensor<1x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x2x2xf32>
  func.return %y : tensor<1x3x2x2xf32>
}

// -----

// Ops other than batch_norm, layer_norm and dropout are untouched.
// CHECK-LABEL: func.func @keep_other_ops
// CHECK-NEXT:    relay.nn.softmax
// CHECK-NEXT:    func.return
func.func @keep_other_ops(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = relay.nn.softmax %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
