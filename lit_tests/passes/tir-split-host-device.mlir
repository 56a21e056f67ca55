// RUN: xtvm-opt %s -p tir-split-host-device --split-input-file | filecheck %s

// A blockIdx/threadIdx nest becomes a kernel run once per thread: the loop variables are
// thread indices, the buffers and the scalar are its arguments, constants are cloned in; the
// host launches it on a 4 x 32 grid.
// CHECK-LABEL: func.func @square
// CHECK-SAME:    (%[[A:.*]]: memref<100xf32>, %[[S:.*]]: f32)
// CHECK:         tir.launch @square_kernel0(%[[A]], %[[S]]) blocks(%c4, %c1, %c1) threads(%c32, %c1, %c1) : memref<100xf32>, f32
// CHECK-NEXT:    func.return
// CHECK-LABEL: func.func @square_kernel0
// CHECK-SAME:    (%[[KA:.*]]: memref<100xf32>, %[[KS:.*]]: f32)
// CHECK-SAME:    attributes {tir.kernel = {blocks = array<i64: 4, 1, 1>, threads = array<i64: 32, 1, 1>}}
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG:     %[[C100:.*]] = arith.constant 100 : index
// CHECK:         %[[BX:.*]] = tir.thread_index "blockIdx.x"
// CHECK-NEXT:    %[[TX:.*]] = tir.thread_index "threadIdx.x"
// CHECK-NEXT:    %[[BASE:.*]] = arith.muli %[[BX]], %[[C32]] : index
// CHECK-NEXT:    %[[I:.*]] = arith.addi %[[BASE]], %[[TX]] : index
// CHECK-NEXT:    %[[IN:.*]] = arith.cmpi ult, %[[I]], %[[C100]] : index
// CHECK-NEXT:    scf.if %[[IN]] {
// CHECK-NEXT:      %[[X:.*]] = memref.load %[[KA]][%[[I]]]
// CHECK-NEXT:      %[[Y:.*]] = arith.mulf %[[X]], %[[KS]] : f32
// CHECK-NEXT:      memref.store %[[Y]], %[[KA]][%[[I]]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @square(%A: memref<100xf32>, %s: f32) {
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
        %y = arith.mulf %x, %s : f32
        memref.store %y, %A[%i] : memref<100xf32>
      }
    }
  }
  func.return
}

// -----

// A 2-d grid of 2-d blocks, with index arithmetic between the loops (each thread computes it)
// and a serial loop inside the kernel.
// CHECK-LABEL: func.func @grid_2d
// CHECK:         tir.launch @grid_2d_kernel0(%{{.*}}) blocks(%c2, %c3, %c1) threads(%c4, %c5, %c1)
// CHECK-LABEL: func.func @grid_2d_kernel0
// CHECK-SAME:    tir.kernel = {blocks = array<i64: 2, 3, 1>, threads = array<i64: 4, 5, 1>}
// CHECK:         %[[BY:.*]] = tir.thread_index "blockIdx.y"
// CHECK-NEXT:    %[[ROW:.*]] = arith.muli %[[BY]], %c5 : index
// CHECK-NEXT:    %[[BX:.*]] = tir.thread_index "blockIdx.x"
// CHECK-NEXT:    %[[TY:.*]] = tir.thread_index "threadIdx.y"
// CHECK-NEXT:    %[[TX:.*]] = tir.thread_index "threadIdx.x"
// CHECK:         tir.for %{{.*}} = %c0 to %c2 serial {
func.func @grid_2d(%A: memref<15x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %one = arith.constant 1.0 : f32
  tir.for %by = %c0 to %c3 thread_binding "blockIdx.y" {
    %row = arith.muli %by, %c5 : index
    tir.for %bx = %c0 to %c2 thread_binding "blockIdx.x" {
      tir.for %ty = %c0 to %c5 thread_binding "threadIdx.y" {
        tir.for %tx = %c0 to %c4 thread_binding "threadIdx.x" {
          %i = arith.addi %row, %ty : index
          %col = arith.muli %bx, %c4 : index
          %j = arith.addi %col, %tx : index
          tir.for %r = %c0 to %c2 serial {
            %x = memref.load %A[%i, %j] : memref<15x8xf32>
            %y = arith.addf %x, %one : f32
            memref.store %y, %A[%i, %j] : memref<15x8xf32>
          }
        }
      }
    }
  }
  func.return
}

// -----

// Two nests become two kernels, launched in order; host code between them stays in the host,
// and a host loop variable a nest uses is passed to its kernel.
// CHECK-LABEL: func.func @two_kernels
// CHECK-SAME:    (%[[A:.*]]: memref<4x8xf32>)
// CHECK:         tir.launch @two_kernels_kernel0(%[[A]]) blocks(%c8, %c1, %c1) threads(%c1, %c1, %c1)
// CHECK-NEXT:    memref.store
// CHECK-NEXT:    tir.for %[[I:.*]] = %c0 to %c4 serial {
// CHECK-NEXT:      tir.launch @two_kernels_kernel1(%[[A]], %[[I]]) blocks(%c1, %c1, %c1) threads(%c8, %c1, %c1) : memref<4x8xf32>, index
// CHECK-NEXT:    }
// CHECK-LABEL: func.func @two_kernels_kernel0
// CHECK-LABEL: func.func @two_kernels_kernel1
// CHECK-SAME:    (%{{.*}}: memref<4x8xf32>, %[[KI:.*]]: index)
func.func @two_kernels(%A: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  tir.for %bx = %c0 to %c8 thread_binding "blockIdx.x" {
    memref.store %zero, %A[%c0, %bx] : memref<4x8xf32>
  }
  memref.store %zero, %A[%c0, %c0] : memref<4x8xf32>
  tir.for %i = %c0 to %c4 serial {
    tir.for %tx = %c0 to %c8 thread_binding "threadIdx.x" {
      %x = memref.load %A[%i, %tx] : memref<4x8xf32>
      %y = arith.addf %x, %x : f32
      memref.store %y, %A[%i, %tx] : memref<4x8xf32>
    }
  }
  func.return
}
