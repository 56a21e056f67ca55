// RUN: xtvm-opt %s -p 'relay-print-dot{output="%t.dot"}' | filecheck %s --check-prefix=IR
// RUN: filecheck %s --input-file %t.dot

// The IR passes through unchanged.
// IR-LABEL: func.func @plain
// IR:         relay.nn.relu

// A plain function: arguments are ellipses, each op a box labelled with its result type, and
// edges follow the operands to the return.
// CHECK-LABEL: digraph "plain" {
// CHECK:         [[X:n[0-9]+]] [label="%x\n2x3xf32", shape=ellipse];
// CHECK:         [[EXP:n[0-9]+]] [label="exp\n2x3xf32", shape=box];
// CHECK:         [[X]] -> [[EXP]];
// CHECK:         [[RELU:n[0-9]+]] [label="nn.relu\n2x3xf32", shape=box];
// CHECK:         [[EXP]] -> [[RELU]];
// CHECK:         [[RET:n[0-9]+]] [label="return", shape=ellipse];
// CHECK:         [[RELU]] -> [[RET]];
func.func @plain(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e = relay.exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = relay.nn.relu %e : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}


// A call to a fused function is drawn as a cluster named after it, holding the callee's ops;
// a partitioned function's cluster also names its codegen. Private functions get no graph.
// CHECK-LABEL: digraph "main" {
// CHECK:         subgraph cluster_1 {
// CHECK-NEXT:    label="fused_add_nn_relu"; style=rounded; color=blue;
// CHECK:         [label="add\n4xf32", shape=box];
// CHECK:         [label="nn.relu\n4xf32", shape=box];
// CHECK:         }
// CHECK:         subgraph cluster_2 {
// CHECK-NEXT:    label="tvmgen_default_ccompiler_main_0 [ccompiler]";
// CHECK:         [label="multiply\n4xf32", shape=box];
// CHECK-NOT:     digraph "fused_add_nn_relu"
func.func private @fused_add_nn_relu(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> attributes {primitive} {
  %s = relay.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %r = relay.nn.relu %s : (tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
func.func private @tvmgen_default_ccompiler_main_0(%a: tensor<4xf32>) -> tensor<4xf32> attributes {compiler = "ccompiler"} {
  %m = relay.multiply %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %m : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %f = func.call @fused_add_nn_relu(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %g = func.call @tvmgen_default_ccompiler_main_0(%f) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %g : tensor<4xf32>
}
