// RUN: xtvm-opt %s -p tir-simplify --split-input-file | filecheck %s

// The guard of a split that divides the extent (i = o * 4 + ii < 12, o < 3, ii < 4) is always
// true: the comparison folds and the scf.if is replaced by its body.
// CHECK-LABEL: func.func @guard_of_dividing_split
// CHECK-NOT:     scf.if
// CHECK-NOT:     arith.cmpi
// CHECK:         memref.store
func.func @guard_of_dividing_split(%A: memref<12xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c12 = arith.constant 12 : index
  %zero = arith.constant 0.0 : f32
  tir.for %o = %c0 to %c3 serial {
    tir.for %ii = %c0 to %c4 serial {
      %s = arith.muli %o, %c4 : index
      %i = arith.addi %s, %ii : index
      %in = arith.cmpi ult, %i, %c12 : index
      scf.if %in {
        memref.store %zero, %A[%i] : memref<12xf32>
      }
    }
  }
  func.return
}

// -----

// A guard the ranges cannot settle (i < 10 with i up to 11) stays.
// CHECK-LABEL: func.func @guard_of_overshooting_split
// CHECK:         %[[IN:.*]] = arith.cmpi ult
// CHECK-NEXT:    scf.if %[[IN]] {
func.func @guard_of_overshooting_split(%A: memref<10xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c10 = arith.constant 10 : index
  %zero = arith.constant 0.0 : f32
  tir.for %o = %c0 to %c3 serial {
    tir.for %ii = %c0 to %c4 serial {
      %s = arith.muli %o, %c4 : index
      %i = arith.addi %s, %ii : index
      %in = arith.cmpi ult, %i, %c10 : index
      scf.if %in {
        memref.store %zero, %A[%i] : memref<10xf32>
      }
    }
  }
  func.return
}

// -----

// Un-fusing a fused loop split back into (bx, tx): (bx * 8 + tx) / 8 is bx and
// (bx * 8 + tx) % 8 is tx, as tx < 8; the index arithmetic disappears.
// CHECK-LABEL: func.func @division_of_multiple
// CHECK:         tir.for %[[BX:.*]] = %{{.*}} to %{{.*}} serial {
// CHECK-NEXT:      tir.for %[[TX:.*]] = %{{.*}} to %{{.*}} serial {
// CHECK-NEXT:        %[[X:.*]] = memref.load %A[%[[BX]], %[[TX]]]
// CHECK-NEXT:        memref.store %[[X]], %B[%[[TX]], %[[BX]]]
// CHECK-NEXT:      }
// CHECK-NEXT:    }
func.func @division_of_multiple(%A: memref<4x8xf32>, %B: memref<8x4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for %bx = %c0 to %c4 serial {
    tir.for %tx = %c0 to %c8 serial {
      %s = arith.muli %bx, %c8 : index
      %f = arith.addi %s, %tx : index
      %i = arith.divui %f, %c8 : index
      %j = arith.remui %f, %c8 : index
      %x = memref.load %A[%i, %j] : memref<4x8xf32>
      memref.store %x, %B[%j, %i] : memref<8x4xf32>
    }
  }
  func.return
}

// -----

// (o * 8 + ii) / 4 is o * 2 when ii < 4 (a multiple of the divisor in the coefficient); with ii
// up to 5 the remainder may reach the divisor and the division stays.
// CHECK-LABEL: func.func @division_needs_the_bound
// CHECK:         %[[TWO:.*]] = arith.constant 2 : index
// CHECK:         tir.for %[[O:.*]] = %{{.*}} to %{{.*}} serial {
// CHECK-NEXT:      %[[Q:.*]] = arith.muli %[[O]], %[[TWO]] : index
// CHECK:           tir.for
// CHECK-NEXT:        memref.store %{{.*}}, %A[%[[Q]]]
// CHECK:           tir.for
// CHECK:             %[[D:.*]] = arith.divui
// CHECK-NEXT:        memref.store %{{.*}}, %A[%[[D]]]
func.func @division_needs_the_bound(%A: memref<16xi32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1 : i32
  tir.for %o = %c0 to %c4 serial {
    tir.for %ii = %c0 to %c4 serial {
      %s = arith.muli %o, %c8 : index
      %n = arith.addi %s, %ii : index
      %q = arith.divui %n, %c4 : index
      memref.store %one, %A[%q] : memref<16xi32>
    }
    tir.for %jj = %c0 to %c6 serial {
      %s = arith.muli %o, %c8 : index
      %n = arith.addi %s, %jj : index
      %q = arith.divui %n, %c4 : index
      memref.store %one, %A[%q] : memref<16xi32>
    }
  }
  func.return
}

// -----

// Constants fold (canonicalize does not fold remui; the ranges do), x * 1 and x + 0 go.
// CHECK-LABEL: func.func @fold_constants
// CHECK-SAME:    (%[[A:.*]]: memref<8xf32>, %[[N:.*]]: index)
// CHECK-DAG:     %[[C5:.*]] = arith.constant 5 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK:         memref.load %[[A]][%[[C5]]]
// CHECK-NEXT:    memref.store %{{.*}}, %[[A]][%[[C1]]]
// CHECK-NEXT:    memref.store %{{.*}}, %[[A]][%[[N]]]
func.func @fold_constants(%A: memref<8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c13 = arith.constant 13 : index
  %c4 = arith.constant 4 : index
  %five = arith.addi %c2, %c3 : index
  %r = arith.remui %c13, %c4 : index
  %x = arith.muli %n, %c1 : index
  %y = arith.addi %x, %c0 : index
  %v = memref.load %A[%five] : memref<8xf32>
  memref.store %v, %A[%r] : memref<8xf32>
  memref.store %v, %A[%y] : memref<8xf32>
  func.return
}

// -----

// A loop that runs once becomes its body with the variable at its lower bound; one that never
// runs is erased.
// CHECK-LABEL: func.func @trivial_loops
// CHECK-SAME:    (%[[A:.*]]: memref<8xf32>)
// CHECK:         %[[C3:.*]] = arith.constant 3 : index
// CHECK-NOT:     tir.for
// CHECK:         memref.store %{{.*}}, %[[A]][%[[C3]]]
// CHECK-NOT:     memref.store
func.func @trivial_loops(%A: memref<8xf32>) {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tir.for %i = %c3 to %c4 serial {
    memref.store %zero, %A[%i] : memref<8xf32>
  }
  tir.for %j = %c4 to %c3 parallel {
    memref.store %zero, %A[%j] : memref<8xf32>
  }
  func.return
}

// -----

// Invariant arithmetic moves out of the loops it does not depend on (o * 16 out of the inner
// loop, exp(s) out of both).
// CHECK-LABEL: func.func @hoist_invariants
// CHECK:         %[[E:.*]] = math.exp %{{.*}} : f32
// CHECK-NEXT:    tir.for %[[O:.*]] = %{{.*}} to %{{.*}} parallel {
// CHECK-NEXT:      %[[BASE:.*]] = arith.muli %[[O]], %{{.*}} : index
// CHECK-NEXT:      tir.for %[[I:.*]] = %{{.*}} to %{{.*}} serial {
// CHECK-NEXT:        %[[K:.*]] = arith.addi %[[BASE]], %[[I]] : index
// CHECK-NEXT:        memref.store %[[E]], %{{.*}}[%[[K]]]
func.func @hoist_invariants(%A: memref<64xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  tir.for %o = %c0 to %c4 parallel {
    tir.for %i = %c0 to %c16 serial {
      %base = arith.muli %o, %c16 : index
      %k = arith.addi %base, %i : index
      %e = math.exp %s : f32
      memref.store %e, %A[%k] : memref<64xf32>
    }
  }
  func.return
}

// -----

// Nothing leaves a thread-bound loop: its body becomes a GPU kernel and keeps its arithmetic.
// CHECK-LABEL: func.func @keep_kernel_body
// CHECK:         tir.for %[[TX:.*]] = %{{.*}} to %{{.*}} thread_binding "threadIdx.x" {
// CHECK-NEXT:      math.exp
func.func @keep_kernel_body(%A: memref<64xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  tir.for %tx = %c0 to %c16 thread_binding "threadIdx.x" {
    %e = math.exp %s : f32
    memref.store %e, %A[%tx] : memref<64xf32>
  }
  func.return
}

// -----

// A division by a value that may be zero is not speculatable: it stays inside the loop.
// CHECK-LABEL: func.func @keep_unsafe_division
// CHECK:         tir.for
// CHECK-NEXT:      arith.divui
func.func @keep_unsafe_division(%A: memref<8xindex>, %n: index, %d: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c8 serial {
    %q = arith.divui %n, %d : index
    memref.store %q, %A[%i] : memref<8xindex>
  }
  func.return
}

// -----

// A fused axis split by a divisor of the fused extent (f = o * 4 + ii, ii < 4): f / 24 is o / 6
// and f % 4 is ii; the remainder by the inner extent is the inner loop variable.
// CHECK-LABEL: func.func @split_of_fused
// CHECK:         tir.for %[[O:.*]] = %{{.*}} to %{{.*}} serial {
// CHECK:           %[[I:.*]] = arith.divui %[[O]], %c6 : index
// CHECK-NEXT:      tir.for %[[II:.*]] = %{{.*}} to %{{.*}} serial {
// CHECK:             memref.load %{{.*}}[%[[I]], %[[II]]]
func.func @split_of_fused(%A: memref<2x4xf32>, %B: memref<48xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c12 = arith.constant 12 : index
  %c24 = arith.constant 24 : index
  tir.for %o = %c0 to %c12 serial {
    tir.for %ii = %c0 to %c4 serial {
      %s = arith.muli %o, %c4 : index
      %f = arith.addi %s, %ii : index
      %i = arith.divui %f, %c24 : index
      %j = arith.remui %f, %c4 : index
      %x = memref.load %A[%i, %j] : memref<2x4xf32>
      memref.store %x, %B[%f] : memref<48xf32>
    }
  }
  func.return
}

// -----

// A guard that is always false in its loop (a tail past the extent) removes the branch; the loop
// is left empty and erased.
// CHECK-LABEL: func.func @dead_branch
// CHECK-NEXT:    func.return
func.func @dead_branch(%A: memref<16xf32>, %x: f32) {
  %c12 = arith.constant 12 : index
  %c16 = arith.constant 16 : index
  tir.for %i = %c12 to %c16 serial {
    %in = arith.cmpi slt, %i, %c12 : index
    scf.if %in {
      memref.store %x, %A[%i] : memref<16xf32>
    }
  }
  func.return
}

// -----

// A clamped padding read in tiles inside the border: the column 2 * x + r - 1 of x in [1, 8)
// and r in [0, 3) lies in [1, 15], so max(col, 0) and min(col, 15) are col itself; the row
// 2 * i + r - 1 is only known to be >= 1 inside the branch on i >= 1 (the interior rows of a
// parallel loop's split body), and keeps its clamp in the other branch.
// CHECK-LABEL: func.func @decided_clamps
// CHECK:         scf.if
// CHECK-NOT:     arith.maxsi
// CHECK-NOT:     arith.minsi
// CHECK:         } else {
// CHECK:         arith.maxsi
// CHECK-NOT:     arith.maxsi
// CHECK:         func.return
func.func @decided_clamps(%A: memref<16x16xf32>, %B: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c15 = arith.constant 15 : index
  tir.for %i = %c0 to %c8 serial {
    %inside = arith.cmpi sge, %i, %c1 : index
    scf.if %inside {
      tir.for %x = %c1 to %c8 serial {
        tir.for %r = %c0 to %c3 serial {
          %i2 = arith.muli %i, %c2 : index
          %ir = arith.addi %i2, %r : index
          %row = arith.subi %ir, %c1 : index
          %row_lo = arith.maxsi %row, %c0 : index
          %row_in = arith.minsi %row_lo, %c15 : index
          %x2 = arith.muli %x, %c2 : index
          %xr = arith.addi %x2, %r : index
          %col = arith.subi %xr, %c1 : index
          %col_lo = arith.maxsi %col, %c0 : index
          %col_in = arith.minsi %col_lo, %c15 : index
          %v = memref.load %A[%row_in, %col_in] : memref<16x16xf32>
          memref.store %v, %B[%i, %x] : memref<8x8xf32>
        }
      }
    } else {
      tir.for %r = %c0 to %c3 serial {
        %i2 = arith.muli %i, %c2 : index
        %ir = arith.addi %i2, %r : index
        %row = arith.subi %ir, %c1 : index
        %row_lo = arith.maxsi %row, %c0 : index
        %v = memref.load %A[%row_lo, %c0] : memref<16x16xf32>
        memref.store %v, %B[%i, %c0] : memref<8x8xf32>
      }
    }
  }
  func.return
}

// -----

// Like terms of an index difference cancel: a tile's global index less the tile's start,
// (o * 4 + ii) - o * 4, is the loop index inside the tile (a register array's index).
// CHECK-LABEL: func.func @like_terms_cancel
// CHECK:         tir.for %[[O:.*]] = %{{.*}} to %{{.*}} serial {
// CHECK-NEXT:      tir.for %[[II:.*]] = %{{.*}} to %{{.*}} serial {
// CHECK-NOT:         arith.subi
// CHECK:             memref.store %{{.*}}, %{{.*}}[%[[II]]] : memref<4xf32>
func.func @like_terms_cancel(%A: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tir.for %o = %c0 to %c3 serial {
    tir.for %ii = %c0 to %c4 serial {
      %s = arith.muli %o, %c4 : index
      %i = arith.addi %s, %ii : index
      %local = arith.subi %i, %s : index
      memref.store %zero, %A[%local] : memref<4xf32>
    }
  }
  func.return
}
