// REQUIRES: dnnl
// RUN: xtvm-compile %s --emit external -o - | filecheck %s
// RUN: sed 's/relay.nn.relu %a/relay.exp %a/' %s > %t.mlir
// RUN: not xtvm-compile %t.mlir --emit external 2>&1 | filecheck %s --check-prefix=REFUSED

// The dnnl codegen describes the partitioned function as a JSON graph: the input, the weights
// as constants at byte offsets of one 64-byte aligned blob, and one convolution that absorbed
// the per-channel add as its bias and the relu as a post-op. The host's exp is not in it.
// CHECK:       // tvmgen_default_dnnl_main_0: oneDNN graph (200 bytes of weights)
// CHECK-NEXT:  {"nodes": [
// CHECK-NEXT:    {"op": "input", "name": "x", "shape": [1, 2, 5, 5], "dtype": "float32"},
// CHECK-NEXT:    {"op": "const", "name": "const1", "shape": [2, 2, 3, 3], "offset": 0},
// CHECK-NEXT:    {"op": "const", "name": "const2", "shape": [2, 1, 1], "offset": 192},
// CHECK-NEXT:    {"op": "kernel", "name": "nn.conv2d", "inputs": [0, 1, 2], "shape": [1, 2, 5, 5], "dtype": "float32", "attrs": {"strides": [1, 1], "padding": [1, 1, 1, 1], "dilation": [1, 1], "groups": 1, "bias": true, "post_ops": [{"op": "nn.relu"}]}}
// CHECK-NEXT:   ],
// CHECK-NEXT:   "arg_nodes": [0], "heads": [3]}
// CHECK-NOT:   exp

// An op the runtime does not take, in a function outlined for dnnl, is a located error.
// REFUSED: dnnl.mlir.tmp.mlir:[[# @LINE + 12]]:8: error: 'relay.exp' op is not supported by the dnnl codegen

func.func @main(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32> {
  %0 = func.call @tvmgen_default_dnnl_main_0(%x) : (tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
  %1 = relay.exp %0 : (tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
  func.return %1 : tensor<1x2x5x5xf32>
}
func.func private @tvmgen_default_dnnl_main_0(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32> attributes {compiler = "dnnl", global_symbol = "tvmgen_default_dnnl_main_0"} {
  %w = relay.const dense<0.5> : tensor<2x2x3x3xf32>
  %b = relay.const dense<[[[1.0]], [[-1.0]]]> : tensor<2x1x1xf32>
  %c = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x5x5xf32>
  %a = relay.add %c, %b : (tensor<1x2x5x5xf32>, tensor<2x1x1xf32>) -> tensor<1x2x5x5xf32>
  %r = relay.nn.relu %a : (tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
  func.return %r : tensor<1x2x5x5xf32>
}
