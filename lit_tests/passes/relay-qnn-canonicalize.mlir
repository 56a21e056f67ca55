// RUN: xtvm-opt %s -p relay-qnn-canonicalize --split-input-file | filecheck %s

// A per-channel zero point and scale broadcast along axis 1, the last axis, as they are.
// CHECK-LABEL: func.func @dequantize_per_channel
// CHECK-SAME:    (%[[Q:.*]]: tensor<2x3xui8>, %[[S:.*]]: tensor<3xf32>, %[[Z:.*]]: tensor<3xi32>)
// CHECK-NEXT:    %[[I:.*]] = relay.cast %[[Q]] {dtype = i32}
// CHECK-NEXT:    %[[D:.*]] = relay.subtract %[[I]], %[[Z]] : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
// CHECK-NEXT:    %[[F:.*]] = relay.cast %[[D]] {dtype = f32}
// CHECK-NEXT:    %[[Y:.*]] = relay.multiply %[[F]], %[[S]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @dequantize_per_channel(%q: tensor<2x3xui8>, %s: tensor<3xf32>, %z: tensor<3xi32>) -> tensor<2x3xf32> {
  %y = relay.qnn.dequantize %q, %s, %z {axis = 1 : i64} : (tensor<2x3xui8>, tensor<3xf32>, tensor<3xi32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

// qnn.dense: the int32 dense of both operands less their zero points.
// CHECK-LABEL: func.func @qnn_dense
// CHECK-SAME:    (%[[X:.*]]: tensor<2x5xi8>, %[[W:.*]]: tensor<3x5xi8>, %[[ZX:.*]]: tensor<i32>, %[[ZW:.*]]: tensor<i32>
// CHECK-NEXT:    %[[XI:.*]] = relay.cast %[[X]] {dtype = i32}
// CHECK-NEXT:    %[[XS:.*]] = relay.subtract %[[XI]], %[[ZX]]
// CHECK-NEXT:    %[[WI:.*]] = relay.cast %[[W]] {dtype = i32}
// CHECK-NEXT:    %[[WS:.*]] = relay.subtract %[[WI]], %[[ZW]]
// CHECK-NEXT:    %[[Y:.*]] = relay.nn.dense %[[XS]], %[[WS]] : (tensor<2x5xi32>, tensor<3x5xi32>) -> tensor<2x3xi32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @qnn_dense(%x: tensor<2x5xi8>, %w: tensor<3x5xi8>, %zx: tensor<i32>, %zw: tensor<i32>, %sx: tensor<f32>, %sw: tensor<f32>) -> tensor<2x3xi32> {
  %y = relay.qnn.dense %x, %w, %zx, %zw, %sx, %sw : (tensor<2x5xi8>, tensor<3x5xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<2x3xi32>
  func.return %y : tensor<2x3xi32>
}

// -----

// requantize: the shifted value times scale_in / scale_out in f64, halves rounded upward,
// plus the output zero point, clipped to int8.
// CHECK-LABEL: func.func @requantize
// CHECK:         relay.divide {{.*}} : (tensor<f64>, tensor<f64>) -> tensor<f64>
// CHECK:         relay.multiply {{.*}} : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
// CHECK:         relay.add {{.*}} : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
// CHECK-NEXT:    relay.floor
// CHECK:         relay.clip {{.*}} {a_min = -1.280000e+02 : f64, a_max = 1.270000e+02 : f64}
// CHECK-NEXT:    %[[Y:.*]] = relay.cast {{.*}} {dtype = i8}
// CHECK-NEXT:    func.return %[[Y]]
// CHECK-NOT:     relay.qnn
func.func @requantize(%q: tensor<4xi32>, %s: tensor<f32>, %z: tensor<i32>, %s2: tensor<f32>, %z2: tensor<i32>) -> tensor<4xi8> {
  %y = relay.qnn.requantize %q, %s, %z, %s2, %z2 : (tensor<4xi32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<4xi8>
  func.return %y : tensor<4xi8>
}
