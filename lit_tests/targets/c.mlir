// tir to C99: the kernel ABI, loops and their pragmas, inlined expressions, dynamic
// dimensions, stack buffers, guards and libm calls.
// RUN: xtvm-translate %s --target c | filecheck %s

// CHECK:       #include <math.h>
// CHECK-LABEL: void scale(float *restrict A, float *restrict B) {
// CHECK-NEXT:    for (int64_t i = 0; i < 64; ++i) {
// CHECK-NEXT:      float a = A[i];
// CHECK-NEXT:      B[i] = a * 2.0f;
// CHECK-NEXT:    }
// CHECK-NEXT:  }
func.func @scale(%A: memref<64xf32>, %B: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %two = arith.constant 2.0 : f32
  tir.for %i = %c0 to %c64 serial {
    %a = memref.load %A[%i] : memref<64xf32>
    %b = arith.mulf %a, %two : f32
    memref.store %b, %B[%i] : memref<64xf32>
  }
  func.return
}

// CHECK-LABEL: void rows(float *restrict A, int64_t A_dim0) {
// CHECK-NEXT:    float T[8];
// CHECK-NEXT:    #pragma omp parallel for
// CHECK-NEXT:    for (int64_t i = 0; i < A_dim0; ++i) {
// CHECK-NEXT:      #pragma omp simd
// CHECK-NEXT:      for (int64_t j = 0; j < 8; ++j) {
// CHECK-NEXT:        float a = A[i * 8 + j];
// CHECK-NEXT:        T[j] = tanhf(a);
// CHECK-NEXT:        if ((uint64_t)j < (uint64_t)4) {
// CHECK-NEXT:          A[i * 8 + j] = -INFINITY;
// CHECK-NEXT:        }
func.func @rows(%A: memref<?x8xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %ninf = arith.constant 0xff800000 : f32
  %T = memref.alloc() : memref<8xf32>
  %n = memref.dim %A, %c0 : memref<?x8xf32>
  tir.for %i = %c0 to %n parallel {
    tir.for %j = %c0 to %c8 vectorized {
      %a = memref.load %A[%i, %j] : memref<?x8xf32>
      %t = math.tanh %a : f32
      memref.store %t, %T[%j] : memref<8xf32>
      %small = arith.cmpi ult, %j, %c4 : index
      scf.if %small {
        memref.store %ninf, %A[%i, %j] : memref<?x8xf32>
      }
    }
  }
  memref.dealloc %T : memref<8xf32>
  func.return
}

// Loop-carried values are C variables assigned at the end of each iteration.
// CHECK-LABEL: void sum(double *restrict X, double *restrict Y) {
// CHECK-NEXT:    double acc = 0.0;
// CHECK-NEXT:    for (int64_t k = 0; k < 16; k += 1) {
// CHECK-NEXT:      double x = X[k];
// CHECK-NEXT:      acc = acc + x;
// CHECK-NEXT:    }
// CHECK-NEXT:    Y[0] = acc;
func.func @sum(%X: memref<16xf64>, %Y: memref<1xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f64
  %total = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f64) {
    %x = memref.load %X[%k] : memref<16xf64>
    %next = arith.addf %acc, %x : f64
    scf.yield %next : f64
  }
  memref.store %total, %Y[%c0] : memref<1xf64>
  func.return
}
