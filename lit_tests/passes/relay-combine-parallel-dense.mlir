// RUN: xtvm-opt %s -p relay-combine-parallel-dense --split-input-file | filecheck %s
// RUN: xtvm-opt %s -p relay-combine-parallel-dense{min-num-branches=2} --split-input-file | filecheck %s --check-prefix=TWO

// Three projections of %x, each with its bias (attention's Q, K, V): one matmul by the
// weights side by side, one add of the biases side by side, and a column slice per branch.
// CHECK-LABEL: func.func @qkv
// CHECK-NEXT:    %[[W:.*]] = relay.const dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, 3.000000e+00], [1.000000e+00, 2.000000e+00, 3.000000e+00, 3.000000e+00]]> : tensor<2x4xf32>
// CHECK-NEXT:    %[[M:.*]] = relay.nn.matmul %x, %[[W]] : (tensor<8x2xf32>, tensor<2x4xf32>) -> tensor<8x4xf32>
// CHECK-NEXT:    %[[B:.*]] = relay.const dense<[4.000000e+00, 5.000000e+00, 6.000000e+00, 6.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %[[A:.*]] = relay.add %[[M]], %[[B]] : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
// CHECK-NEXT:    %[[Q:.*]] = relay.strided_slice %[[A]] {begin = array<i64: 0>, end = array<i64: 1>, axes = array<i64: 1>} : (tensor<8x4xf32>) -> tensor<8x1xf32>
// CHECK-NEXT:    %[[K:.*]] = relay.strided_slice %[[A]] {begin = array<i64: 1>, end = array<i64: 2>, axes = array<i64: 1>} : (tensor<8x4xf32>) -> tensor<8x1xf32>
// CHECK-NEXT:    %[[V:.*]] = relay.strided_slice %[[A]] {begin = array<i64: 2>, end = array<i64: 4>, axes = array<i64: 1>} : (tensor<8x4xf32>) -> tensor<8x2xf32>
// CHECK-NEXT:    func.return %[[Q]], %[[K]], %[[V]]
func.func @qkv(%x: tensor<8x2xf32>) -> (tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x2xf32>) {
  %wq = relay.const dense<1.0> : tensor<2x1xf32>
  %bq = relay.const dense<4.0> : tensor<1xf32>
  %q = relay.nn.matmul %x, %wq : (tensor<8x2xf32>, tensor<2x1xf32>) -> tensor<8x1xf32>
  %qb = relay.add %q, %bq : (tensor<8x1xf32>, tensor<1xf32>) -> tensor<8x1xf32>
  %wk = relay.const dense<2.0> : tensor<2x1xf32>
  %bk = relay.const dense<5.0> : tensor<1xf32>
  %k = relay.nn.matmul %x, %wk : (tensor<8x2xf32>, tensor<2x1xf32>) -> tensor<8x1xf32>
  %kb = relay.add %bk, %k : (tensor<1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
  %wv = relay.const dense<3.0> : tensor<2x2xf32>
  %bv = relay.const dense<6.0> : tensor<2xf32>
  %v = relay.nn.matmul %x, %wv : (tensor<8x2xf32>, tensor<2x2xf32>) -> tensor<8x2xf32>
  %vb = relay.add %v, %bv : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8x2xf32>
  func.return %qb, %kb, %vb : tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x2xf32>
}

// -----

// Dense weights ([n, k]) stack along their rows; a branch without a bias keeps every add
// where it was, reading its slice.
// CHECK-LABEL: func.func @dense_without_bias
// CHECK-NEXT:    relay.const dense<4.000000e+00> : tensor<1xf32>
// CHECK-NEXT:    %[[W:.*]] = relay.const dense<{{.*}}> : tensor<3x2xf32>
// CHECK-NEXT:    %[[D:.*]] = relay.nn.dense %x, %[[W]] : (tensor<4x2xf32>, tensor<3x2xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %[[S0:.*]] = relay.strided_slice %[[D]] {begin = array<i64: 0>, end = array<i64: 1>, axes = array<i64: 1>}
// CHECK-NEXT:    %[[S1:.*]] = relay.strided_slice %[[D]] {begin = array<i64: 1>, end = array<i64: 2>, axes = array<i64: 1>}
// CHECK-NEXT:    %[[S2:.*]] = relay.strided_slice %[[D]] {begin = array<i64: 2>, end = array<i64: 3>, axes = array<i64: 1>}
// CHECK:         relay.add %[[S0]], %{{.*}}
// CHECK-NOT:     relay.nn.dense
func.func @dense_without_bias(%x: tensor<4x2xf32>) -> (tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>) {
  %w0 = relay.const dense<1.0> : tensor<1x2xf32>
  %b0 = relay.const dense<4.0> : tensor<1xf32>
  %d0 = relay.nn.dense %x, %w0 : (tensor<4x2xf32>, tensor<1x2xf32>) -> tensor<4x1xf32>
  %a0 = relay.add %d0, %b0 : (tensor<4x1xf32>, tensor<1xf32>) -> tensor<4x1xf32>
  %w1 = relay.const dense<2.0> : tensor<1x2xf32>
  %d1 = relay.nn.dense %x, %w1 : (tensor<4x2xf32>, tensor<1x2xf32>) -> tensor<4x1xf32>
  %w2 = relay.const dense<3.0> : tensor<1x2xf32>
  %d2 = relay.nn.dense %x, %w2 : (tensor<4x2xf32>, tensor<1x2xf32>) -> tensor<4x1xf32>
  func.return %a0, %d1, %d2 : tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>
}

// -----

// Two branches are too few by default (TVM's threshold is 3); with min-num-branches=2 they
// combine. A weight known only at run time never joins.
// CHECK-LABEL: func.func @two_branches
// CHECK-COUNT-2: relay.nn.matmul %x
// CHECK-NOT:     relay.strided_slice
// TWO-LABEL:   func.func @two_branches
// TWO:           relay.nn.matmul %x, %{{.*}} : (tensor<8x2xf32>, tensor<2x2xf32>) -> tensor<8x2xf32>
// TWO-COUNT-2:   relay.strided_slice
// TWO:           relay.nn.matmul %x, %w
func.func @two_branches(%x: tensor<8x2xf32>, %w: tensor<2x1xf32>) -> (tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x1xf32>) {
  %w0 = relay.const dense<1.0> : tensor<2x1xf32>
  %m0 = relay.nn.matmul %x, %w0 : (tensor<8x2xf32>, tensor<2x1xf32>) -> tensor<8x1xf32>
  %w1 = relay.const dense<2.0> : tensor<2x1xf32>
  %m1 = relay.nn.matmul %x, %w1 : (tensor<8x2xf32>, tensor<2x1xf32>) -> tensor<8x1xf32>
  %m2 = relay.nn.matmul %x, %w : (tensor<8x2xf32>, tensor<2x1xf32>) -> tensor<8x1xf32>
  func.return %m0, %m1, %m2 : tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x1xf32>
}
