// RUN: xtvm-opt %s -p relay-print-dot --verify-diagnostics

// A function body of several blocks (unstructured control flow) is refused at the function.
// expected-error@+1 {{'func.func' op has a region of 3 blocks; 'relay-print-dot' handles single-block regions only}}
func.func @branches(%a: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  %x = relay.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %y = relay.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
^bb2:
  func.return %x : tensor<4xf32>
}
