// Custom syntax of the tir ops: loops of every kind, an extern call, a guarded store and a
// scoped intermediate buffer. Printed, read back and printed again gives the same text.
// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s | xtvm-opt | filecheck %s

// CHECK-LABEL: func.func @kinds(%A: memref<64xf32>, %B: memref<64xf32>) {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c4 = arith.constant 4 : index
// CHECK-NEXT:    %c16 = arith.constant 16 : index
// CHECK-NEXT:    tir.for %o = %c0 to %c4 parallel {
// CHECK-NEXT:      tir.for %u = %c0 to %c4 unrolled {
// CHECK-NEXT:        tir.for %v = %c0 to %c4 vectorized {
// CHECK-NEXT:          tir.for %s = %c0 to %c4 serial {
// CHECK:                 %y = tir.call_extern "expf"(%x) : (f32) -> f32
// CHECK-NEXT:            memref.store %y, %B[%i] : memref<64xf32>
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      } annotations {pragma_auto_unroll_max_step = 16 : i64}
// CHECK-NEXT:    }
func.func @kinds(%A: memref<64xf32>, %B: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  tir.for %o = %c0 to %c4 parallel {
    tir.for %u = %c0 to %c4 unrolled {
      tir.for %v = %c0 to %c4 vectorized {
        tir.for %s = %c0 to %c4 serial {
          %a = arith.muli %o, %c16 : index
          %b = arith.muli %u, %c4 : index
          %ab = arith.addi %a, %b : index
          %i = arith.addi %ab, %s : index
          %x = memref.load %A[%i] : memref<64xf32>
          %y = tir.call_extern "expf"(%x) : (f32) -> f32
          memref.store %y, %B[%i] : memref<64xf32>
        }
      }
    } annotations {pragma_auto_unroll_max_step = 16 : i64}
  }
  func.return
}

// CHECK-LABEL: func.func @threads(%A: memref<100xf32>) {
// CHECK:         tir.for %bx = %c0 to %c4 thread_binding "blockIdx.x" {
// CHECK-NEXT:      tir.for %tx = %c0 to %c32 thread_binding "threadIdx.x" {
// CHECK:             scf.if %in {
// CHECK:           %tile = memref.alloc() : memref<32xf32, "shared">
// CHECK:           tir.call_extern "sync"() : () -> ()
func.func @threads(%A: memref<100xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c100 = arith.constant 100 : index
  tir.for %bx = %c0 to %c4 thread_binding "blockIdx.x" {
    tir.for %tx = %c0 to %c32 thread_binding "threadIdx.x" {
      %base = arith.muli %bx, %c32 : index
      %i = arith.addi %base, %tx : index
      %in = arith.cmpi ult, %i, %c100 : index
      scf.if %in {
        %x = memref.load %A[%i] : memref<100xf32>
        %y = arith.mulf %x, %x : f32
        memref.store %y, %A[%i] : memref<100xf32>
      }
    }
    %tile = memref.alloc() : memref<32xf32, "shared">
    tir.call_extern "sync"() : () -> ()
    memref.dealloc %tile : memref<32xf32, "shared">
  }
  func.return
}

// A kernel reads its thread indices; the host launches it on a grid (x, y, z extents), with or
// without arguments.
// CHECK-LABEL: func.func @kernel(%A: memref<128xf32>, %s: f32) attributes {tir.kernel = {blocks = array<i64: 4, 1, 1>, threads = array<i64: 32, 1, 1>}} {
// CHECK-NEXT:    %bx = tir.thread_index "blockIdx.x"
// CHECK-NEXT:    %tx = tir.thread_index "threadIdx.x"
// CHECK-LABEL: func.func @host(%A: memref<128xf32>, %s: f32) {
// CHECK:         tir.launch @kernel(%A, %s) blocks(%c4, %c1, %c1) threads(%c32, %c1, %c1) : memref<128xf32>, f32
// CHECK-NEXT:    tir.launch @empty() blocks(%c1) threads(%c1)
func.func @kernel(%A: memref<128xf32>, %s: f32) attributes {tir.kernel = {blocks = array<i64: 4, 1, 1>, threads = array<i64: 32, 1, 1>}} {
  %bx = tir.thread_index "blockIdx.x"
  %tx = tir.thread_index "threadIdx.x"
  %c32 = arith.constant 32 : index
  %base = arith.muli %bx, %c32 : index
  %i = arith.addi %base, %tx : index
  memref.store %s, %A[%i] : memref<128xf32>
  func.return
}
func.func @empty() {
  func.return
}
func.func @host(%A: memref<128xf32>, %s: f32) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  tir.launch @kernel(%A, %s) blocks(%c4, %c1, %c1) threads(%c32, %c1, %c1) : memref<128xf32>, f32
  tir.launch @empty() blocks(%c1) threads(%c1)
  func.return
}
