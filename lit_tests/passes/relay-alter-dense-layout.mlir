// RUN: xtvm-opt %s -p relay-alter-dense-layout --split-input-file | filecheck %s
// RUN: xtvm-opt %s -p 'relay-alter-dense-layout{pack_bytes=256}' --split-input-file | filecheck %s --check-prefix=PACK

// A dense of 8 rows by a constant [n, k] weight becomes a matmul by the weight transposed at
// compile time ([k, n]: the register tile's contiguous columns); the bias stays after it.
// CHECK-LABEL: func.func @dense_rows
// CHECK-NEXT:    %[[W:.*]] = relay.const dense<{{\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT:    %[[M:.*]] = relay.nn.matmul %x, %[[W]] : (tensor<8x2xf32>, tensor<2x2xf32>) -> tensor<8x2xf32>
// CHECK-NEXT:    %[[B:.*]] = relay.add %[[M]], %x
// CHECK-NEXT:    func.return %[[B]]
func.func @dense_rows(%x: tensor<8x2xf32>) -> tensor<8x2xf32> {
  %w = relay.const dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %d = relay.nn.dense %x, %w : (tensor<8x2xf32>, tensor<2x2xf32>) -> tensor<8x2xf32>
  %b = relay.add %d, %x : (tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<8x2xf32>
  func.return %b : tensor<8x2xf32>
}

// -----

// 40 columns split into no whole half tile: the weight gets 24 zero columns and a slice drops
// them after the product, whose 3-d data is left as it is.
// CHECK-LABEL: func.func @padded_columns
// CHECK-NEXT:    %[[W:.*]] = relay.const dense<{{.*}}> : tensor<3x64xf32>
// CHECK-NEXT:    %[[M:.*]] = relay.nn.matmul %x, %[[W]] : (tensor<1x8x3xf32>, tensor<3x64xf32>) -> tensor<1x8x64xf32>
// CHECK-NEXT:    %[[S:.*]] = relay.strided_slice %[[M]] {begin = array<i64: 0>, end = array<i64: 40>, axes = array<i64: 2>} : (tensor<1x8x64xf32>) -> tensor<1x8x40xf32>
// CHECK-NEXT:    func.return %[[S]] : tensor<1x8x40xf32>
func.func @padded_columns(%x: tensor<1x8x3xf32>) -> tensor<1x8x40xf32> {
  %w = relay.const dense<0.5> : tensor<3x40xf32>
  %m = relay.nn.matmul %x, %w : (tensor<1x8x3xf32>, tensor<3x40xf32>) -> tensor<1x8x40xf32>
  func.return %m : tensor<1x8x40xf32>
}

// -----

// A single row (a CNN's classifier) keeps its dense: its k-vectorized tile is the one for a
// matrix-vector product; so does a weight known only at run time, and whole column tiles.
// CHECK-LABEL: func.func @unchanged
// CHECK:         relay.nn.dense %x, %{{.*}} : (tensor<1x4xf32>, tensor<40x4xf32>)
// CHECK:         relay.nn.dense %y, %w
// CHECK:         relay.nn.matmul %y, %{{.*}} : (tensor<8x4xf32>, tensor<4x48xf32>)
// CHECK-NOT:     relay.strided_slice
func.func @unchanged(%x: tensor<1x4xf32>, %y: tensor<8x4xf32>, %w: tensor<40x4xf32>) -> (tensor<1x40xf32>, tensor<8x40xf32>, tensor<8x48xf32>) {
  %c = relay.const dense<1.0> : tensor<40x4xf32>
  %a = relay.nn.dense %x, %c : (tensor<1x4xf32>, tensor<40x4xf32>) -> tensor<1x40xf32>
  %b = relay.nn.dense %y, %w : (tensor<8x4xf32>, tensor<40x4xf32>) -> tensor<8x40xf32>
  %k = relay.const dense<1.0> : tensor<4x48xf32>
  %m = relay.nn.matmul %y, %k : (tensor<8x4xf32>, tensor<4x48xf32>) -> tensor<8x48xf32>
  func.return %a, %b, %m : tensor<1x40xf32>, tensor<8x40xf32>, tensor<8x48xf32>
}

// -----

// A weight that is a transpose of a constant (a tied embedding read by the output projection,
// which relay-fold-constant{keep_weight_transposes} leaves here) is laid out from the constant
// directly: padded, the transpose gone. Its row gather reads the padded layout (a column of
// its real columns, transposed back), defined before it, so the constant itself goes. A
// product of one row gets the transposed constant folded instead of a transpose kernel.
// CHECK-LABEL: func.func @tied
// CHECK-NEXT:    %[[W:.*]] = relay.const dense<{{.*}}> : tensor<3x64xf32>
// CHECK-NEXT:    %[[R:.*]] = relay.strided_slice %[[W]] {begin = array<i64: 0>, end = array<i64: 40>, axes = array<i64: 1>} : (tensor<3x64xf32>) -> tensor<3x40xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.take %[[R]], %i {axis = 1 : i64} : (tensor<3x40xf32>, tensor<2xi64>) -> tensor<3x2xf32>
// CHECK-NEXT:    %[[G:.*]] = relay.transpose %[[C]] {axes = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[F:.*]] = relay.const dense<2.500000e-01> : tensor<3x40xf32>
// CHECK-NEXT:    %[[M:.*]] = relay.nn.matmul %x, %[[W]] : (tensor<8x3xf32>, tensor<3x64xf32>) -> tensor<8x64xf32>
// CHECK-NEXT:    %[[S:.*]] = relay.strided_slice %[[M]] {begin = array<i64: 0>, end = array<i64: 40>, axes = array<i64: 1>}
// CHECK-NEXT:    %[[O:.*]] = relay.nn.matmul %y, %[[F]] : (tensor<1x3xf32>, tensor<3x40xf32>) -> tensor<1x40xf32>
// CHECK-NOT:     tensor<40x3xf32>
// CHECK:         func.return %[[G]], %[[S]], %[[O]]
func.func @tied(%i: tensor<2xi64>, %x: tensor<8x3xf32>, %y: tensor<1x3xf32>) -> (tensor<2x3xf32>, tensor<8x40xf32>, tensor<1x40xf32>) {
  %e = relay.const dense<0.25> : tensor<40x3xf32>
  %g = relay.take %e, %i {axis = 0 : i64} : (tensor<40x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %t = relay.transpose %e {axes = array<i64: 1, 0>} : (tensor<40x3xf32>) -> tensor<3x40xf32>
  %m = relay.nn.matmul %x, %t : (tensor<8x3xf32>, tensor<3x40xf32>) -> tensor<8x40xf32>
  %o = relay.nn.matmul %y, %t : (tensor<1x3xf32>, tensor<3x40xf32>) -> tensor<1x40xf32>
  func.return %g, %m, %o : tensor<2x3xf32>, tensor<8x40xf32>, tensor<1x40xf32>
}

// -----

// Over `pack_bytes`, a constant weight read by one product is packed at compile time into
// panels of 32 columns ([n / 32, k, 32], zero columns completing the last): the rows as one
// batch by the panels, a transpose putting each panel's columns back in place, a reshape, and
// a slice of the real columns.
// PACK-LABEL: func.func @packed
// PACK-NEXT:    %[[W:.*]] = relay.const dense<{{.*}}> : tensor<2x3x32xf32>
// PACK-NEXT:    %[[R:.*]] = relay.reshape %x {newshape = array<i64: 1, 8, 3>} : (tensor<1x8x3xf32>) -> tensor<1x8x3xf32>
// PACK-NEXT:    %[[P:.*]] = relay.nn.batch_matmul %[[R]], %[[W]] {transpose_b = false} : (tensor<1x8x3xf32>, tensor<2x3x32xf32>) -> tensor<2x8x32xf32>
// PACK-NEXT:    %[[T:.*]] = relay.transpose %[[P]] {axes = array<i64: 1, 0, 2>} : (tensor<2x8x32xf32>) -> tensor<8x2x32xf32>
// PACK-NEXT:    %[[C:.*]] = relay.reshape %[[T]] {newshape = array<i64: 1, 8, 64>} : (tensor<8x2x32xf32>) -> tensor<1x8x64xf32>
// PACK-NEXT:    %[[S:.*]] = relay.strided_slice %[[C]] {begin = array<i64: 0>, end = array<i64: 40>, axes = array<i64: 2>} : (tensor<1x8x64xf32>) -> tensor<1x8x40xf32>
// PACK-NEXT:    func.return %[[S]] : tensor<1x8x40xf32>
func.func @packed(%x: tensor<1x8x3xf32>) -> tensor<1x8x40xf32> {
  %w = relay.const dense<0.5> : tensor<3x40xf32>
  %m = relay.nn.matmul %x, %w : (tensor<1x8x3xf32>, tensor<3x40xf32>) -> tensor<1x8x40xf32>
  func.return %m : tensor<1x8x40xf32>
}

// -----

// A weight under `pack_bytes` keeps the row-major layout (zero columns to whole tiles).
// PACK-LABEL: func.func @small
// PACK-NEXT:    %[[W:.*]] = relay.const dense<{{.*}}> : tensor<3x8xf32>
// PACK-NEXT:    %[[M:.*]] = relay.nn.matmul %x, %[[W]] : (tensor<8x3xf32>, tensor<3x8xf32>) -> tensor<8x8xf32>
func.func @small(%x: tensor<8x3xf32>) -> tensor<8x8xf32> {
  %w = relay.const dense<0.5> : tensor<3x8xf32>
  %m = relay.nn.matmul %x, %w : (tensor<8x3xf32>, tensor<3x8xf32>) -> tensor<8x8xf32>
  func.return %m : tensor<8x8xf32>
}

// -----

// A weight another op reads too (a tied embedding's gather) is not packed.
// PACK-LABEL: func.func @shared
// PACK:          relay.nn.matmul
// PACK-NOT:      relay.nn.batch_matmul
func.func @shared(%x: tensor<8x3xf32>, %i: tensor<2xi64>) -> (tensor<8x40xf32>, tensor<3x2xf32>) {
  %w = relay.const dense<0.5> : tensor<3x40xf32>
  %m = relay.nn.matmul %x, %w : (tensor<8x3xf32>, tensor<3x40xf32>) -> tensor<8x40xf32>
  %g = relay.take %w, %i {axis = 1 : i64} : (tensor<3x40xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  func.return %m, %g : tensor<8x40xf32>, tensor<3x2xf32>
}
