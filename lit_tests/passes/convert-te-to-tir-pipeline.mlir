// RUN: xtvm-opt %s -p relay-fuse-ops,convert-relay-to-te,convert-te-to-tir --split-input-file | filecheck %s
// RUN: xtvm-opt %s -p relay-fuse-ops,convert-relay-to-te,convert-te-to-tir --split-input-file --print-generic | xtvm-opt --split-input-file | filecheck %s

// The whole lowering from relay to tir, verified after each pass: @main keeps its tensors
// and calls the destination-passing kernels with buffers, its inputs then an allocated
// buffer per result. A 0-d constant used on both sides of a dense (GELU's 0.5) stays in
// @main and is passed to both kernels as a 0-d buffer.
// CHECK-LABEL: func.func private @fused_multiply
// CHECK-SAME:    (%{{.*}}: memref<4x8xf32>, %{{.*}}: memref<f32>, %{{.*}}: memref<4x8xf32>) {
// CHECK-LABEL: func.func private @fused_nn_dense_multiply
// CHECK-SAME:    (%{{.*}}: memref<4x8xf32>, %{{.*}}: memref<f32>, %{{.*}}: memref<8x8xf32>, %{{.*}}: memref<4x8xf32>) {
// CHECK-LABEL: func.func @gelu_constants
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:    %[[C:.*]] = relay.const dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    %[[XB:.*]] = bufferization.to_buffer %[[X]] read_only : tensor<4x8xf32> to memref<4x8xf32>
// CHECK-NEXT:    %[[CB:.*]] = bufferization.to_buffer %[[C]] read_only : tensor<f32> to memref<f32>
// CHECK-NEXT:    %[[B1:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-NEXT:    func.call @fused_multiply(%[[XB]], %[[CB]], %[[B1]]) : (memref<4x8xf32>, memref<f32>, memref<4x8xf32>) -> ()
// CHECK-NEXT:    %[[T1:.*]] = bufferization.to_tensor %[[B1]] restrict : memref<4x8xf32> to tensor<4x8xf32>
// CHECK-NEXT:    %[[W:.*]] = relay.const
// CHECK-NEXT:    %[[T1B:.*]] = bufferization.to_buffer %[[T1]] read_only : tensor<4x8xf32> to memref<4x8xf32>
// CHECK-NEXT:    %[[CB2:.*]] = bufferization.to_buffer %[[C]] read_only : tensor<f32> to memref<f32>
// CHECK-NEXT:    %[[WB:.*]] = bufferization.to_buffer %[[W]] read_only : tensor<8x8xf32> to memref<8x8xf32>
// CHECK-NEXT:    %[[B2:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-NEXT:    func.call @fused_nn_dense_multiply(%[[T1B]], %[[CB2]], %[[WB]], %[[B2]]) : (memref<4x8xf32>, memref<f32>, memref<8x8xf32>, memref<4x8xf32>) -> ()
// CHECK-NEXT:    %[[T2:.*]] = bufferization.to_tensor %[[B2]] restrict : memref<4x8xf32> to tensor<4x8xf32>
// CHECK-NEXT:    func.return %[[T2]] : tensor<4x8xf32>
func.func @gelu_constants(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = relay.const dense<0.5> : tensor<f32>
  %w = relay.const dense<[[0.5, -0.5, 0.25, 1.0, 0.0, 2.0, -1.0, 0.125], [0.5, -0.5, 0.25, 1.0, 0.0, 2.0, -1.0, 0.125], [0.5, -0.5, 0.25, 1.0, 0.0, 2.0, -1.0, 0.125], [0.5, -0.5, 0.25, 1.0, 0.0, 2.0, -1.0, 0.125], [0.5, -0.5, 0.25, 1.0, 0.0, 2.0, -1.0, 0.125], [0.5, -0.5, 0.25, 1.0, 0.0, 2.0, -1.0, 0.125], [0.5, -0.5, 0.25, 1.0, 0.0, 2.0, -1.0, 0.125], [0.5, -0.5, 0.25, 1.0, 0.0, 2.0, -1.0, 0.125]]> : tensor<8x8xf32>
  %m1 = relay.multiply %x, %c : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %d = relay.nn.dense %m1, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %m2 = relay.multiply %d, %c : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  func.return %m2 : tensor<4x8xf32>
}

// -----

// A kernel with several results (split's tuple, flattened) gets one buffer per result, and
// @main reads the fields it uses from their tensors; a 1-d softmax lowers too.
// CHECK-LABEL: func.func private @fused_split
// CHECK-SAME:    (%{{.*}}: memref<12xf32>, %{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>) {
// CHECK-LABEL: func.func private @fused_nn_softmax_add
// CHECK-SAME:    (%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>) {
// CHECK-LABEL: func.func @split_softmax
// CHECK-NEXT:    %[[XB:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<12xf32> to memref<12xf32>
// CHECK-NEXT:    %[[B0:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    %[[B1:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    %[[B2:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    func.call @fused_split(%[[XB]], %[[B0]], %[[B1]], %[[B2]]) : (memref<12xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
// CHECK-NEXT:    %[[A:.*]] = bufferization.to_tensor %[[B0]] restrict : memref<4xf32> to tensor<4xf32>
// CHECK-NEXT:    %{{.*}} = bufferization.to_tensor %[[B1]] restrict : memref<4xf32> to tensor<4xf32>
// CHECK-NEXT:    %[[C:.*]] = bufferization.to_tensor %[[B2]] restrict : memref<4xf32> to tensor<4xf32>
// CHECK-NEXT:    %[[AB:.*]] = bufferization.to_buffer %[[A]] read_only : tensor<4xf32> to memref<4xf32>
// CHECK-NEXT:    %[[CB:.*]] = bufferization.to_buffer %[[C]] read_only : tensor<4xf32> to memref<4xf32>
// CHECK-NEXT:    %[[OUT:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    func.call @fused_nn_softmax_add(%[[AB]], %[[CB]], %[[OUT]]) : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
// CHECK-NEXT:    %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict : memref<4xf32> to tensor<4xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<4xf32>
func.func @split_softmax(%x: tensor<12xf32>) -> tensor<4xf32> {
  %t = relay.split %x {indices_or_sections = 3 : i64, axis = 0 : i64} : (tensor<12xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>, tensor<4xf32>>
  %a = relay.tuple_get_item %t[0] : (tuple<tensor<4xf32>, tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
  %b = relay.tuple_get_item %t[2] : (tuple<tensor<4xf32>, tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
  %s = relay.nn.softmax %a : (tensor<4xf32>) -> tensor<4xf32>
  %m = relay.add %s, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %m : tensor<4xf32>
}
