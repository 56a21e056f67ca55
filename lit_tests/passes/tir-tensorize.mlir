// tir-tensorize: a loop nest marked `tensorize` (by convert-te-to-tir from te.tensorize) is
// matched against the intrinsic's description and replaced by its lowering, the buffers bound
// to subviews of the regions the nest accesses. The intrinsics come from a plugin file.
// RUN: xtvm-opt %s --split-input-file --load-plugin %S/Inputs/tensor_intrinsics.py \
// RUN:   -p tir-tensorize | filecheck %s

// A reduction split by the nest: the reset runs on the first iteration of the outer reduce
// loop, the update on every one; strides bind to the buffers' (32) as int32 arguments.
// CHECK-LABEL: func.func @gemm_split_k
// CHECK:         tir.for %[[KO:k_outer]] = %c0 to %c4 serial {
// CHECK-NEXT:      %[[IO8:.*]] = arith.muli %i_outer, %c8 : index
// CHECK-NEXT:      %[[KO8:.*]] = arith.muli %[[KO]], %c8 : index
// CHECK-NEXT:      %[[A:.*]] = memref.subview %A[%[[IO8]], %[[KO8]]] [8, 8] [1, 1]
// CHECK-SAME:        to memref<8x8xf32, strided<[32, 1], offset: ?>>
// CHECK:           %[[B:.*]] = memref.subview %B[
// CHECK:           %[[C:.*]] = memref.subview %C[
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[KO]], %c0 : index
// CHECK-NEXT:      scf.if %[[FIRST]] {
// CHECK:             tir.call_extern "gemm_reset"(%[[A]], %[[B]], %[[C]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}})
// CHECK-SAME:          i32, i32, i32) -> ()
// CHECK-NEXT:      }
// CHECK:           tir.call_extern "gemm_update"(%[[A]], %[[B]], %[[C]],
// CHECK-NOT:     tir.for
// CHECK-NOT:     memref.load
func.func @gemm_split_k(%A: memref<32x32xf32>, %B: memref<32x32xf32>, %C: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for %i_outer = %c0 to %c4 serial {
    tir.for %j_outer = %c0 to %c4 serial {
      tir.for %k_outer = %c0 to %c4 serial {
        tir.for %i_inner = %c0 to %c8 serial {
          tir.for %j_inner = %c0 to %c8 serial {
            %0 = arith.muli %i_outer, %c8 : index
            %i = arith.addi %0, %i_inner : index
            %1 = arith.muli %j_outer, %c8 : index
            %j = arith.addi %1, %j_inner : index
            %2 = arith.cmpi eq, %k_outer, %c0 : index
            scf.if %2 {
              %3 = arith.constant 0.000000e+00 : f32
              memref.store %3, %C[%i, %j] : memref<32x32xf32>
            }
            tir.for %k_inner = %c0 to %c8 serial {
              %4 = arith.muli %k_outer, %c8 : index
              %k = arith.addi %4, %k_inner : index
              %5 = memref.load %A[%i, %k] : memref<32x32xf32>
              %6 = memref.load %B[%j, %k] : memref<32x32xf32>
              %7 = arith.mulf %5, %6 : f32
              %8 = memref.load %C[%i, %j] : memref<32x32xf32>
              %9 = arith.addf %8, %7 : f32
              memref.store %9, %C[%i, %j] : memref<32x32xf32>
            }
          }
        } annotations {tensorize = "gemm8x8x8"}
      }
    }
  }
  func.return
}

// -----

// The whole reduction inside the nest: one call of the body.
// CHECK-LABEL: func.func @gemm_whole_k
// CHECK-NOT:     scf.if
// CHECK:         %[[A:.*]] = memref.subview %A[
// CHECK-SAME:      to memref<8x8xf32, strided<[8, 1], offset: ?>>
// CHECK:         tir.call_extern "gemm_body"(%[[A]],
// CHECK-NOT:     memref.load
func.func @gemm_whole_k(%A: memref<32x8xf32>, %B: memref<32x8xf32>, %C: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for %i_outer = %c0 to %c4 serial {
    tir.for %j_outer = %c0 to %c4 serial {
      tir.for %i_inner = %c0 to %c8 serial {
        tir.for %j_inner = %c0 to %c8 serial {
          %0 = arith.muli %i_outer, %c8 : index
          %i = arith.addi %0, %i_inner : index
          %1 = arith.muli %j_outer, %c8 : index
          %j = arith.addi %1, %j_inner : index
          %2 = arith.constant 0.000000e+00 : f32
          memref.store %2, %C[%i, %j] : memref<32x32xf32>
          tir.for %k = %c0 to %c8 serial {
            %3 = memref.load %A[%i, %k] : memref<32x8xf32>
            %4 = memref.load %B[%j, %k] : memref<32x8xf32>
            %5 = arith.mulf %3, %4 : f32
            %6 = memref.load %C[%i, %j] : memref<32x32xf32>
            %7 = arith.addf %6, %5 : f32
            memref.store %7, %C[%i, %j] : memref<32x32xf32>
          }
        }
      } annotations {tensorize = "gemm8x8x8"}
    }
  }
  func.return
}

// -----

// A 1-d intrinsic on rows of a 2-d buffer: the leading unit dimension of the region is
// dropped (a rank-reducing subview); elem_offset is the region's linear start, i * 64 + j.
// CHECK-LABEL: func.func @vadd_rows
// CHECK:         tir.for %[[I:.*]] = %c0 to %c4 serial {
// CHECK-NEXT:      tir.for %[[JO:.*]] = %c0 to %c4 serial {
// CHECK-NEXT:        %[[J:.*]] = arith.muli %[[JO]], %c16 : index
// CHECK-NEXT:        %[[A:.*]] = memref.subview %A[%[[I]], %[[J]]] [1, 16] [1, 1]
// CHECK-SAME:          to memref<16xf32, strided<[1], offset: ?>>
// CHECK:             %[[ROW:.*]] = arith.muli %[[I]], %c64 : index
// CHECK:             %[[OFFSET:.*]] = arith.addi %[[ROW]],
// CHECK-NEXT:        %[[OFFSET32:.*]] = arith.index_cast %[[OFFSET]] : index to i32
// CHECK-NEXT:        tir.call_extern "vadd16"(%[[A]], %{{.*}}, %{{.*}}, %[[OFFSET32]])
// CHECK-NEXT:      }
// CHECK-NEXT:    }
func.func @vadd_rows(%A: memref<4x64xf32>, %B: memref<4x64xf32>, %C: memref<4x64xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  tir.for %i = %c0 to %c4 serial {
    tir.for %j_outer = %c0 to %c4 serial {
      tir.for %j_inner = %c0 to %c16 serial {
        %0 = arith.muli %j_outer, %c16 : index
        %j = arith.addi %0, %j_inner : index
        %1 = memref.load %A[%i, %j] : memref<4x64xf32>
        %2 = memref.load %B[%i, %j] : memref<4x64xf32>
        %3 = arith.addf %1, %2 : f32
        memref.store %3, %C[%i, %j] : memref<4x64xf32>
      } annotations {tensorize = "vadd16"}
    }
  }
  func.return
}
