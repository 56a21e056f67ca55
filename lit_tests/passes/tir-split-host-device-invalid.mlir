// RUN: xtvm-opt %s -p tir-split-host-device --split-input-file --verify-diagnostics

// A store between the block loop and the thread loop would run once per thread in a kernel.
func.func @store_between(%A: memref<8xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  tir.for %bx = %c0 to %c2 thread_binding "blockIdx.x" {
    // expected-error@+1 {{'memref.store' op between thread-bound loops would run once per thread in a kernel, not once per block}}
    memref.store %x, %A[%bx] : memref<8xf32>
    tir.for %tx = %c0 to %c4 thread_binding "threadIdx.x" {
      memref.store %x, %A[%tx] : memref<8xf32>
    }
  }
  func.return
}

// -----

// Two thread loops in sequence inside one block need a barrier between them.
func.func @sequence(%A: memref<8xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  tir.for %bx = %c0 to %c2 thread_binding "blockIdx.x" {
    tir.for %tx = %c0 to %c4 thread_binding "threadIdx.x" {
      memref.store %x, %A[%tx] : memref<8xf32>
    }
    // expected-error@+1 {{two thread-bound loops in sequence need a barrier between them}}
    tir.for %ty = %c0 to %c4 thread_binding "threadIdx.x" {
      memref.store %x, %A[%ty] : memref<8xf32>
    }
  }
  func.return
}

// -----

// Virtual threads are not GPU axes.
func.func @virtual(%A: memref<8xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  // expected-error@+1 {{vthread loops are not supported by tir-split-host-device}}
  tir.for %v = %c0 to %c2 thread_binding "vthread" {
    memref.store %x, %A[%v] : memref<8xf32>
  }
  func.return
}
