// te.extern verifier messages.
// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

func.func @buffer_mismatch(%A: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'te.extern' op buffer memref<4xf32> does not match its tensor tensor<8xf32>}}
  %C = "te.extern"(%A) ({
  ^bb0(%a: memref<4xf32>, %c: memref<8xf32>):
    te.yield
  }) {name = "C"} : (tensor<8xf32>) -> tensor<8xf32>
  func.return %C : tensor<8xf32>
}

// -----

func.func @buffer_count(%A: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'te.extern' op body must take one buffer per tensor}}
  %C = "te.extern"(%A) ({
  ^bb0(%a: memref<8xf32>):
    te.yield
  }) {name = "C"} : (tensor<8xf32>) -> tensor<8xf32>
  func.return %C : tensor<8xf32>
}

// -----

func.func @packed_types(%a: memref<8xf32>) {
  // expected-error@+1 {{'tir.call_extern' op packed lists one type per argument}}
  %s = tir.call_extern "f"(%a) {packed = []} : (memref<8xf32>) -> i32
  func.return
}
