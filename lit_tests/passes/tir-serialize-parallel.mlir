// RUN: xtvm-opt %s -p tir-serialize-parallel --split-input-file | filecheck %s
// RUN: xtvm-opt %s -p 'tir-serialize-parallel{min-work=100}' --split-input-file | filecheck %s --check-prefix=LOW

// 16 rows of 64 elements, 4 ops each: 4096 ops, too little for the thread pool by default.
// CHECK-LABEL: func.func @small
// CHECK:         tir.for %{{.*}} = %{{.*}} to %{{.*}} serial {
// CHECK-NOT:     parallel
// LOW-LABEL: func.func @small
// LOW:         tir.for %{{.*}} = %{{.*}} to %{{.*}} parallel {
func.func @small(%A: memref<16x64xf32>, %B: memref<16x64xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  tir.for %i = %c0 to %c16 parallel {
    tir.for %j = %c0 to %c64 serial {
      %a = memref.load %A[%i, %j] : memref<16x64xf32>
      %b = arith.mulf %a, %a : f32
      memref.store %b, %B[%i, %j] : memref<16x64xf32>
    }
  }
  func.return
}

// -----

// 1024 rows x 4 tiles x 64 x 3 ops, about 800,000 (the inner bound is a tile edge: its
// interval's top, 64, counts), is enough work to stay parallel.
// CHECK-LABEL: func.func @large
// CHECK:         tir.for %{{.*}} = %{{.*}} to %{{.*}} parallel {
func.func @large(%A: memref<1024x256xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  tir.for %i = %c0 to %c1024 parallel {
    tir.for %jo = %c0 to %c4 serial {
      %base = arith.muli %jo, %c64 : index
      %rest = arith.subi %c256, %base : index
      %edge = arith.minsi %rest, %c64 : index
      tir.for %ji = %c0 to %edge serial {
        %j = arith.addi %base, %ji : index
        %a = memref.load %A[%i, %j] : memref<1024x256xf32>
        %b = arith.addf %a, %a : f32
        memref.store %b, %A[%i, %j] : memref<1024x256xf32>
      }
    }
  }
  func.return
}

// -----

// A single iteration has nothing to share, however much it does; the parallel loop nested
// in it becomes serial too (codegen would fork it otherwise).
// CHECK-LABEL: func.func @one_iteration
// CHECK:         tir.for %{{.*}} = %{{.*}} to %{{.*}} serial {
// CHECK:           tir.for %{{.*}} = %{{.*}} to %{{.*}} serial {
// LOW-LABEL: func.func @one_iteration
// LOW:         tir.for %{{.*}} = %{{.*}} to %{{.*}} serial {
// LOW:           tir.for %{{.*}} = %{{.*}} to %{{.*}} serial {
func.func @one_iteration(%A: memref<1x100000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cn = arith.constant 100000 : index
  tir.for %i = %c0 to %c1 parallel {
    tir.for %j = %c0 to %cn parallel {
      %a = memref.load %A[%i, %j] : memref<1x100000xf32>
      memref.store %a, %A[%i, %j] : memref<1x100000xf32>
    }
  }
  func.return
}

// -----

// A dynamic trip count may be large: the loop stays parallel.
// CHECK-LABEL: func.func @dynamic
// CHECK:         tir.for %{{.*}} = %{{.*}} to %{{.*}} parallel {
func.func @dynamic(%A: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %A, %c0 : memref<?xf32>
  tir.for %i = %c0 to %n parallel {
    %a = memref.load %A[%i] : memref<?xf32>
    memref.store %a, %A[%i] : memref<?xf32>
  }
  func.return
}
