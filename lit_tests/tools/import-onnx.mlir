// xtvm-import-onnx: an ONNX model becomes relay IR text that xtvm-opt reads back, and weights.
// The models are written at test time by Inputs/make_onnx_model.py.

// RUN: %python %S/Inputs/make_onnx_model.py cnn %t.cnn.onnx
// RUN: xtvm-import-onnx %t.cnn.onnx -o %t.cnn.mlir --params-out %t.cnn.npz
// RUN: filecheck %s --input-file %t.cnn.mlir
// Initializers are params by reference, their values in the npz; node names become locations.
// CHECK-LABEL: func.func @main(%x: tensor<1x3x8x8xf32>) -> tensor<1x10xf32> {
// CHECK-NEXT:    %[[W:.*]] = relay.param["conv.w"] : tensor<4x3x3x3xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.nn.conv2d %x, %[[W]] {padding = array<i64: 1, 1, 1, 1>}
// CHECK-SAME:      -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %[[B:.*]] = relay.param["conv.b"] : tensor<4xf32>
// CHECK-NEXT:    %[[BA:.*]] = relay.nn.bias_add %[[C]], %[[B]]
// CHECK-NEXT:    %[[R:.*]] = relay.nn.relu %[[BA]]
// CHECK-NEXT:    %[[P:.*]] = relay.nn.max_pool2d %[[R]] {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>}
// CHECK-NEXT:    %[[F:.*]] = relay.reshape %[[P]] {newshape = array<i64: 1, 64>}
// CHECK-NEXT:    %[[FW:.*]] = relay.param["fc.w"] : tensor<10x64xf32>
// CHECK-NEXT:    %[[D:.*]] = relay.nn.dense %[[F]], %[[FW]]
// CHECK-NEXT:    %[[FB:.*]] = relay.param["fc.b"] : tensor<10xf32>
// CHECK-NEXT:    %[[L:.*]] = relay.nn.bias_add %[[D]], %[[FB]]
// CHECK-NEXT:    %[[S:.*]] = relay.nn.softmax %[[L]] {axis = 1 : i64} : (tensor<1x10xf32>) -> tensor<1x10xf32>
// CHECK-NEXT:    func.return %[[S]] : tensor<1x10xf32>

// The written file reads back through xtvm-opt and prints the same again (round trip).
// RUN: xtvm-opt %t.cnn.mlir > %t.cnn.1.mlir
// RUN: diff %t.cnn.mlir %t.cnn.1.mlir
// RUN: xtvm-opt %t.cnn.mlir | filecheck %s
// The npz holds every initializer with its shape.
// RUN: %python -c "import numpy as n; p = n.load('%t.cnn.npz'); print(sorted((k, p[k].shape) for k in p))" \
// RUN:   | filecheck %s --check-prefix=PARAMS
// PARAMS: [('conv.b', (4,)), ('conv.w', (4, 3, 3, 3)), ('fc.b', (10,)), ('fc.w', (10, 64))]

// --print-debuginfo names each op after its ONNX node; xtvm-opt keeps the locations.
// RUN: xtvm-import-onnx %t.cnn.onnx --print-debuginfo | xtvm-opt --print-debuginfo \
// RUN:   | filecheck %s --check-prefix=LOC
// LOC: relay.nn.conv2d {{.*}} loc("conv1")
// LOC: relay.nn.relu {{.*}} loc("relu1")
// LOC: relay.nn.dense {{.*}} loc("fc")
// LOC: relay.nn.softmax {{.*}} loc("softmax")

// A dynamic input dimension needs --shape; without it the error names the input.
// RUN: %python %S/Inputs/make_onnx_model.py dynamic %t.dyn.onnx
// RUN: xtvm-import-onnx %t.dyn.onnx --shape x:5x3 | filecheck %s --check-prefix=SHAPE
// SHAPE: func.func @main(%x: tensor<5x3xf32>) -> tensor<5x3xf32>
// RUN: not xtvm-import-onnx %t.dyn.onnx 2>&1 | filecheck %s --check-prefix=DYNAMIC
// DYNAMIC: error: graph inputs with dynamic shapes: 'x' (dimension 'N')
// DYNAMIC-NOT: Traceback

// Unsupported operators: one error listing every op type with its nodes, exit 1, no output.
// RUN: %python %S/Inputs/make_onnx_model.py unsupported %t.bad.onnx
// RUN: not xtvm-import-onnx %t.bad.onnx -o %t.bad.mlir 2> %t.bad.err
// RUN: filecheck %s --check-prefix=UNKNOWN-OPS --input-file %t.bad.err
// RUN: not test -e %t.bad.mlir
// UNKNOWN-OPS:      bad.onnx: error: the model uses 2 unsupported operator types:
// UNKNOWN-OPS-NEXT:   Hardmax (used by 2 nodes: 'hardmax1', 'hardmax2')
// UNKNOWN-OPS-NEXT:   Shrink (used by 1 node: 'shrink')
// UNKNOWN-OPS-NOT:  {{.}}
