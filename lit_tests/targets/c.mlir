// tir to C99: the kernel ABI, loops and their pragmas, inlined expressions, dynamic
// dimensions, stack buffers, guards and libm calls.
// RUN: xtvm-translate %s --target c | filecheck %s

// Kernels return a status; the message of the last error is the library's.
// CHECK:       #include <math.h>
// CHECK:       static char xtvm_error_text[512];
// CHECK-NEXT:  const char *xtvm_last_error(void) { return xtvm_error_text; }
// CHECK-LABEL: int32_t scale(float *restrict A, float *restrict B) {
// CHECK-NEXT:    for (int64_t i = 0; i < 64; ++i) {
// CHECK-NEXT:      float a = A[i];
// CHECK-NEXT:      B[i] = a * 2.0f;
// CHECK-NEXT:    }
// CHECK-NEXT:    return 0;
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

// A dynamic dimension a C caller passes negative is an error, not a loop past the buffer.
// CHECK-LABEL: int32_t rows(float *restrict A, int64_t A_dim0) {
// CHECK-NEXT:    if (!(A_dim0 >= 0)) {
// CHECK-NEXT:      snprintf(xtvm_error_text, sizeof xtvm_error_text, "rows: argument A: dimension 0 is %lld, a negative size", (long long)(A_dim0));
// CHECK-NEXT:      return 1;
// CHECK-NEXT:    }
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
// CHECK-LABEL: int32_t sum(double *restrict X, double *restrict Y) {
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

// The argument binder at the entry: every use of the symbolic size n agrees with the first
// (A's dimension 0), an expression is computed and compared (floor division as te's), and
// the scalar m binds m. A heap buffer of a dynamic size checks that the product of its sizes
// does not overflow, and that malloc gave memory; a failure frees what is live and returns 1.
// CHECK-LABEL: int32_t bind(float *restrict A, float *restrict C, int64_t m, int64_t A_dim0, int64_t C_dim0, int64_t C_dim1) {
// CHECK:         if (!((int64_t)(C_dim0) == (int64_t)(A_dim0))) {
// CHECK-NEXT:      snprintf(xtvm_error_text, sizeof xtvm_error_text, "bind: argument C: dimension 0 is %lld, but n = %lld from argument A", (long long)(C_dim0), (long long)(A_dim0));
// CHECK-NEXT:      return 1;
// CHECK:         if (!((int64_t)(C_dim1) == (int64_t)(((int64_t)(m) + (int64_t)(2))))) {
// CHECK-NEXT:      snprintf(xtvm_error_text, sizeof xtvm_error_text, "bind: argument C: dimension 1 is %lld, but m + 2 = %lld (m = %lld from argument m)", (long long)(C_dim1), (long long)(((int64_t)(m) + (int64_t)(2))), (long long)(m));
// CHECK:         uint64_t T_bytes = 4ULL;
// CHECK-NEXT:    if (!(!__builtin_mul_overflow(T_bytes, (uint64_t)(A_dim0), &T_bytes) && T_bytes <= 4611686018427387904ULL)) {
// CHECK-NEXT:      snprintf(xtvm_error_text, sizeof xtvm_error_text, "bind: buffer 'T': its size overflows");
// CHECK-NEXT:      return 1;
// CHECK-NEXT:    }
// CHECK-NEXT:    float *restrict T = (float *)malloc(sizeof(float) * (T_bytes / sizeof(float)));
// CHECK-NEXT:    if (!(T != NULL)) {
// CHECK-NEXT:      snprintf(xtvm_error_text, sizeof xtvm_error_text, "bind: buffer 'T': out of memory");
// CHECK-NEXT:      return 1;
// CHECK-NEXT:    }
func.func @bind(%A: memref<?xf32>, %C: memref<?x?xf32>, %m: index) attributes {xtvm.arg_dims = [["n"], ["n", ["add", "m", 2 : i64]], "m"]} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %A, %c0 : memref<?xf32>
  %T = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %T : memref<?xf32>
  func.return
}

// tir.reinterpret between a float and an integer reads the bits through a union; integers
// changing signedness stay a C conversion.
// CHECK-LABEL: int32_t bits(float *restrict A, int32_t *restrict B) {
// CHECK:         float a = A[i];
// CHECK-NEXT:    B[i] = ((union { float from; int32_t to; }){ .from = a }).to;
func.func @bits(%A: memref<8xf32>, %B: memref<8xi32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c8 serial {
    %a = memref.load %A[%i] : memref<8xf32>
    %b = arith.bitcast %a : f32 to i32
    memref.store %b, %B[%i] : memref<8xi32>
  }
  func.return
}
