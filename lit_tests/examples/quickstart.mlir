// The README's quick start: the bundled relay block through the graph-level pipeline.
// RUN: xtvm-opt %S/../../examples/quickstart.mlir -p relay-simplify-inference,relay-fold-constant,relay-fuse-ops | filecheck %s

// Batch norm became a multiply and an add by folded per-channel constants, and the whole
// block is one primitive function called from main.
// CHECK-LABEL: func.func private @fused_nn_conv2d_multiply_add_nn_relu_add
// CHECK-SAME:    attributes {primitive}
// CHECK:         relay.nn.conv2d
// CHECK:         %[[SCALE:.*]] = relay.const dense<{{.*}}> : tensor<4x1x1xf32>
// CHECK:         %[[SHIFT:.*]] = relay.const dense<{{.*}}> : tensor<4x1x1xf32>
// CHECK:         relay.multiply %{{.*}}, %[[SCALE]]
// CHECK:         relay.add %{{.*}}, %[[SHIFT]]
// CHECK:         relay.nn.relu
// CHECK-NOT:     relay.nn.batch_norm
// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %[[OUT:.*]] = func.call @fused_nn_conv2d_multiply_add_nn_relu_add
// CHECK-NEXT:    func.return %[[OUT]]
