// tir to CUDA C: thread-bound loops outlined into `extern "C" __global__` kernels (the host
// function is not device code), thread indices, __restrict__ and CUDA math spellings.
// RUN: xtvm-translate %s --target cuda | filecheck %s

// CHECK:       #include <cuda_fp16.h>
// CHECK-NOT:   void main(
// CHECK-LABEL: extern "C" __global__ void __launch_bounds__(64) main_kernel0(float *__restrict__ A, float *__restrict__ B) {
// CHECK-NEXT:    int64_t i = (((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x);
// CHECK-NEXT:    float a = A[i];
// CHECK-NEXT:    B[i] = __expf(a) + tanhf(a);
// CHECK-NEXT:  }
func.func @main(%A: memref<1024xf32>, %B: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  tir.for %bx = %c0 to %c16 thread_binding "blockIdx.x" {
    tir.for %tx = %c0 to %c64 thread_binding "threadIdx.x" {
      %0 = arith.muli %bx, %c64 : index
      %i = arith.addi %0, %tx : index
      %a = memref.load %A[%i] : memref<1024xf32>
      %e = math.exp %a : f32
      %t = math.tanh %a : f32
      %b = arith.addf %e, %t : f32
      memref.store %b, %B[%i] : memref<1024xf32>
    }
  }
  func.return
}
