// RUN: xtvm-opt %s -p tir-storage-flatten --split-input-file --verify-diagnostics

// A buffer of dynamic shape has no static strides.
func.func @dynamic(%A: memref<?x4xf32>, %i: index) {
  // expected-error@+1 {{cannot flatten buffer of dynamic shape memref<?x4xf32>}}
  %x = memref.load %A[%i, %i] : memref<?x4xf32>
  func.return
}

// -----

// An op the pass does not know (a cast to another shape) cannot take the flattened buffer.
func.func @cast(%A: memref<4x4xf32>) {
  // expected-error@+1 {{'memref.cast' op uses a buffer tir-storage-flatten cannot flatten}}
  %v = "memref.cast"(%A) : (memref<4x4xf32>) -> memref<?x4xf32>
  func.return
}

// -----

// A function body of several blocks (unstructured control flow) is refused at the function.
// expected-error@+1 {{'func.func' op has a region of 2 blocks; 'tir-storage-flatten' handles single-block regions only}}
func.func @branches(%A: memref<4x4xf32>, %i: index) {
  cf.br ^bb1
^bb1:
  %x = memref.load %A[%i, %i] : memref<4x4xf32>
  func.return
}
