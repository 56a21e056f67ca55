// RUN: xtvm-opt %s -p convert-te-to-tir | filecheck %s

// A te.extern stage between two computes: its body is emitted once, its buffers bound to the
// producer's buffer and its own (allocated) one, which the consumer reads.
// CHECK-LABEL: func.func @main(%A: memref<8xf32>, %D: memref<8xf32>) {
// CHECK:         %B = memref.alloc() : memref<8xf32>
// CHECK-NEXT:    %C = memref.alloc() : memref<8xf32>
// CHECK:           memref.store %{{.*}}, %B[%i] : memref<8xf32>
// CHECK:         %{{.*}} = tir.call_extern "my.func"(%B, %C) {packed = [memref<8xf32>, memref<8xf32>]} : (memref<8xf32>, memref<8xf32>) -> i32
// CHECK-NEXT:    tir.for %j = %c0 to %c8 serial {
// CHECK-NEXT:      %{{.*}} = memref.load %C[%j] : memref<8xf32>
func.func @main(%A: tensor<8xf32>) -> tensor<8xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    %a = te.read %A[%i] : tensor<8xf32> -> f32
    te.yield %a : f32
  } {axis_names = ["i"]} : tensor<8xf32>
  %C = "te.extern"(%B) ({
  ^bb0(%b: memref<8xf32>, %c: memref<8xf32>):
    %s = tir.call_extern "my.func"(%b, %c) {packed = [memref<8xf32>, memref<8xf32>]} : (memref<8xf32>, memref<8xf32>) -> i32
    te.yield
  }) {name = "C"} : (tensor<8xf32>) -> tensor<8xf32>
  %D = te.compute "D" {
  ^bb0(%j: index):
    %c = te.read %C[%j] : tensor<8xf32> -> f32
    te.yield %c : f32
  } {axis_names = ["j"]} : tensor<8xf32>
  func.return %D : tensor<8xf32>
}
