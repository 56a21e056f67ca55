// RUN: xtvm-opt %s -p relay-fuse-ops | filecheck %s
// RUN: xtvm-opt %s -p 'relay-fuse-ops{link-params=false}' | filecheck %s --check-prefix=ARGS

// TVM's test_stop_fusion: nothing fuses across annotation.stop_fusion, which is then dropped.
// CHECK-LABEL: func.func private @fused_add(
// CHECK:         relay.add
// CHECK-LABEL: func.func private @fused_exp(
// CHECK-LABEL: func.func @barrier
// CHECK-NEXT:    %[[A:.*]] = func.call @fused_add(%{{.*}})
// CHECK-NEXT:    %[[B:.*]] = func.call @fused_exp(%[[A]])
// CHECK-NEXT:    func.return %[[B]]
// CHECK-NOT:     stop_fusion
func.func @barrier(%x: tensor<8xf32>) -> tensor<8xf32> {
  %one = relay.const dense<1.0> : tensor<f32>
  %0 = relay.add %x, %one : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %1 = relay.annotation.stop_fusion %0 : (tensor<8xf32>) -> tensor<8xf32>
  %2 = relay.exp %1 : (tensor<8xf32>) -> tensor<8xf32>
  func.return %2 : tensor<8xf32>
}

// Tensor constants move into the group that reads them (link-params, xtvm's default); without
// it only scalars do, and a tensor constant is passed in from the caller, as TVM's default.
// CHECK-LABEL: func.func private @fused_add_multiply(%{{[^:]*}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK:         relay.const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]>
// ARGS-LABEL:  func.func private @fused_add_multiply(%{{[^:]*}}: tensor<4xf32>, %{{[^:]*}}: tensor<4xf32>) -> tensor<4xf32>
// ARGS-NOT:      relay.const dense<[1.0
// ARGS:          relay.const dense<2.000000e+00> : tensor<f32>
// ARGS-LABEL:  func.func @constants
// ARGS:          %[[C:.*]] = relay.const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]>
// ARGS:          func.call @fused_add_multiply(%{{.*}}, %[[C]])
func.func @constants(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = relay.const dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %two = relay.const dense<2.0> : tensor<f32>
  %0 = relay.add %x, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = relay.multiply %0, %two : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  func.return %1 : tensor<4xf32>
}
