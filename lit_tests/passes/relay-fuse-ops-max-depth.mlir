// RUN: xtvm-opt %s -p 'relay-fuse-ops{max-depth=3}' | filecheck %s

// TVM's test_fuse_max: a chain of eight elementwise ops is cut into groups of at most three,
// counted from the start of the chain.
// CHECK-LABEL: func.func private @fused_exp_negative_exp(
// CHECK-LABEL: func.func private @fused_negative_exp_negative(
// CHECK-LABEL: func.func private @fused_exp_negative(
// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    %[[A:.*]] = func.call @fused_exp_negative_exp(%{{.*}})
// CHECK-NEXT:    %[[B:.*]] = func.call @fused_negative_exp_negative(%[[A]])
// CHECK-NEXT:    %[[C:.*]] = func.call @fused_exp_negative(%[[B]])
// CHECK-NEXT:    func.return %[[C]]
func.func @chain(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = relay.exp %x : (tensor<8xf32>) -> tensor<8xf32>
  %1 = relay.negative %0 : (tensor<8xf32>) -> tensor<8xf32>
  %2 = relay.exp %1 : (tensor<8xf32>) -> tensor<8xf32>
  %3 = relay.negative %2 : (tensor<8xf32>) -> tensor<8xf32>
  %4 = relay.exp %3 : (tensor<8xf32>) -> tensor<8xf32>
  %5 = relay.negative %4 : (tensor<8xf32>) -> tensor<8xf32>
  %6 = relay.exp %5 : (tensor<8xf32>) -> tensor<8xf32>
  %7 = relay.negative %6 : (tensor<8xf32>) -> tensor<8xf32>
  func.return %7 : tensor<8xf32>
}

// A diamond larger than the limit is not fused whole; its tail still fuses.
// CHECK-LABEL: func.func @diamond_over_limit
// CHECK-COUNT-2: func.call
// CHECK-NEXT:    func.return
func.func @diamond_over_limit(%x: tensor<8xf32>) -> tensor<8xf32> {
  %a = relay.exp %x : (tensor<8xf32>) -> tensor<8xf32>
  %b = relay.negative %a : (tensor<8xf32>) -> tensor<8xf32>
  %c = relay.sqrt %a : (tensor<8xf32>) -> tensor<8xf32>
  %d = relay.add %b, %c : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  func.return %d : tensor<8xf32>
}
