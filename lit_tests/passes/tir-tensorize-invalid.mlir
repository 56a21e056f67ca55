// tir-tensorize refuses a nest that does not compute what the intrinsic declares, saying
// which loop or op differs and how.
// RUN: xtvm-opt %s --split-input-file --load-plugin %S/Inputs/tensor_intrinsics.py \
// RUN:   -p tir-tensorize --verify-diagnostics

// The nest's loop is twice the intrinsic's.
func.func @too_long(%A: memref<32x32xf32>, %B: memref<32x32xf32>, %C: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c8 = arith.constant 8 : index
  tir.for %i_outer = %c0 to %c2 serial {
    tir.for %j_outer = %c0 to %c4 serial {
      tir.for %k_outer = %c0 to %c4 serial {
        // expected-error@+1 {{cannot tensorize loop 'i_inner' with intrinsic 'gemm8x8x8': loop 'i_inner' has extent 16, the intrinsic's loop 'i' has 8}}
        tir.for %i_inner = %c0 to %c16 serial {
          tir.for %j_inner = %c0 to %c8 serial {
            %0 = arith.muli %i_outer, %c16 : index
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

// The nest adds where the intrinsic multiplies.
func.func @other_op(%A: memref<32x8xf32>, %B: memref<32x8xf32>, %C: memref<32x32xf32>) {
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
            // expected-error@+1 {{cannot tensorize loop 'i_inner' with intrinsic 'gemm8x8x8': operation differs: the loop nest computes 'arith.addf' where the intrinsic computes 'arith.mulf'}}
            %5 = arith.addf %3, %4 : f32
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

// The nest reads B[k, j] where the intrinsic reads B[j, k].
func.func @transposed(%A: memref<32x8xf32>, %B: memref<32x8xf32>, %C: memref<32x32xf32>) {
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
            // expected-error@+1 {{cannot tensorize loop 'i_inner' with intrinsic 'gemm8x8x8': B is accessed at [i_inner, k] in the loop nest, the intrinsic's B at [j_inner, k]}}
            %4 = memref.load %B[%i, %k] : memref<32x8xf32>
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

// No intrinsic has that name.
func.func @unknown(%A: memref<32x8xf32>, %B: memref<32x8xf32>, %C: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for %i_outer = %c0 to %c4 serial {
    tir.for %j_outer = %c0 to %c4 serial {
      // expected-error@+1 {{unknown tensor intrinsic 'gemm4x4x4' (registered: gemm8x8x8, vadd16)}}
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
      } annotations {tensorize = "gemm4x4x4"}
    }
  }
  func.return
}
