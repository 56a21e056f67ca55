// RUN: xtvm-opt %s -p tir-loop-partition --split-input-file | filecheck %s

// A split of 10 by 4, guarded by i < 10 (i = o * 4 + ii): o in [0, 2) needs no guard; the tail
// o = 2 runs ii in [0, 2) unguarded and ii in [2, 4), where the guard is false, not at all.
// CHECK-LABEL: func.func @split_guard
// CHECK-SAME:    (%[[A:.*]]: memref<10xf32>)
// CHECK:         tir.for %[[O:.*]] = %c0 to %c2 serial {
// CHECK-NEXT:      tir.for %[[II:.*]] = %c0 to %c4 vectorized {
// CHECK-NEXT:        %[[S:.*]] = arith.muli %[[O]], %c4 : index
// CHECK-NEXT:        %[[I:.*]] = arith.addi %[[S]], %[[II]] : index
// CHECK-NEXT:        memref.store %{{.*}}, %[[A]][%[[I]]]
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.for %[[TAIL:.*]] = %c0 to %c2 vectorized {
// CHECK-NOT:       scf.if
// CHECK:           memref.store
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @split_guard(%A: memref<10xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c10 = arith.constant 10 : index
  %x = arith.constant 1.0 : f32
  tir.for %o = %c0 to %c3 serial {
    tir.for %ii = %c0 to %c4 vectorized {
      %s = arith.muli %o, %c4 : index
      %i = arith.addi %s, %ii : index
      %in = arith.cmpi ult, %i, %c10 : index
      scf.if %in {
        memref.store %x, %A[%i] : memref<10xf32>
      }
    }
  }
  func.return
}

// -----

// Two overshooting splits guarded together (i < 5 and j < 7): the main nest has no branch, and
// neither have the tails, which run the last row and column (i = 4, j = 6) with constants.
// CHECK-LABEL: func.func @tile_guards
// CHECK-NOT:     scf.if
// CHECK:         tir.for %[[IO:.*]] = %c0 to %c2 serial {
// CHECK-NEXT:      tir.for %{{.*}} = %c0 to %c2 serial {
// CHECK-NEXT:        tir.for %{{.*}} = %c0 to %c2 serial {
// CHECK-NEXT:          tir.for %{{.*}} = %c0 to %c3 serial {
// CHECK-COUNT-4:         arith
// CHECK-NEXT:            memref.store
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      tir.for
// CHECK:             %[[J6:.*]] = arith.constant 6 : index
// CHECK-NEXT:        memref.store %{{.*}}, %{{.*}}[%{{.*}}, %[[J6]]]
// CHECK:         %[[I4:.*]] = arith.constant 4 : index
// CHECK:         memref.store %{{.*}}, %{{.*}}[%[[I4]], %{{.*}}]
// CHECK:         memref.store
// CHECK-NOT:     scf.if
func.func @tile_guards(%A: memref<5x7xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  tir.for %io = %c0 to %c3 serial {
    tir.for %jo = %c0 to %c3 serial {
      tir.for %ii = %c0 to %c2 serial {
        tir.for %ji = %c0 to %c3 serial {
          %si = arith.muli %io, %c2 : index
          %i = arith.addi %si, %ii : index
          %sj = arith.muli %jo, %c3 : index
          %j = arith.addi %sj, %ji : index
          %in_i = arith.cmpi ult, %i, %c5 : index
          %in_j = arith.cmpi ult, %j, %c7 : index
          %in = arith.andi %in_i, %in_j : i1
          scf.if %in {
            memref.store %x, %A[%i, %j] : memref<5x7xf32>
          }
        }
      }
    }
  }
  func.return
}

// -----

// A lower guard (i >= 3, padding style) cuts the loop the other way: [0, 3) does nothing and
// [3, 8) runs unguarded.
// CHECK-LABEL: func.func @lower_guard
// CHECK-NOT:     tir.for %{{.*}} = %c0
// CHECK:         tir.for %{{.*}} = %c3 to %c8 serial {
// CHECK-NEXT:      memref.store
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @lower_guard(%A: memref<8xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c3 = arith.constant 3 : index
  tir.for %i = %c0 to %c8 serial {
    %in = arith.cmpi sge, %i, %c3 : index
    scf.if %in {
      memref.store %x, %A[%i] : memref<8xf32>
    }
  }
  func.return
}

// -----

// A guard on a non-linear index (i * i < 10) or a comparison that guards nothing is left alone.
// CHECK-LABEL: func.func @not_partitioned
// CHECK:         tir.for %{{.*}} = %c0 to %c8 serial {
// CHECK:           arith.cmpi ult
// CHECK:           scf.if
// CHECK:           arith.cmpi ult
// CHECK-NEXT:      arith.select
func.func @not_partitioned(%A: memref<8xf32>, %x: f32, %y: f32) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c4 = arith.constant 4 : index
  %c10 = arith.constant 10 : index
  tir.for %i = %c0 to %c8 serial {
    %sq = arith.muli %i, %i : index
    %in = arith.cmpi ult, %sq, %c10 : index
    scf.if %in {
      memref.store %x, %A[%i] : memref<8xf32>
    }
    %low = arith.cmpi ult, %i, %c4 : index
    %v = arith.select %low, %x, %y : f32
    memref.store %v, %A[%i] : memref<8xf32>
  }
  func.return
}

// -----

// Thread-bound loops are launch dimensions and are never cut; the serial loop inside is.
// CHECK-LABEL: func.func @threads_stay
// CHECK:         tir.for %[[BX:.*]] = %c0 to %c2 thread_binding "blockIdx.x" {
// CHECK-NEXT:      tir.for %{{.*}} = %c0 to %c5 serial {
// CHECK-NOT:         scf.if
// CHECK:           }
// CHECK-NEXT:      tir.for %{{.*}} = %c5 to %c8 serial {
// CHECK:             scf.if
func.func @threads_stay(%A: memref<13xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c13 = arith.constant 13 : index
  tir.for %bx = %c0 to %c2 thread_binding "blockIdx.x" {
    tir.for %t = %c0 to %c8 serial {
      %s = arith.muli %bx, %c8 : index
      %i = arith.addi %s, %t : index
      %in = arith.cmpi ult, %i, %c13 : index
      scf.if %in {
        memref.store %x, %A[%i] : memref<13xf32>
      }
    }
  }
  func.return
}

// -----

// A clamped padding read (`select(inside, A[clamp(i)], 0)`, te.ClampedSelect) over a parallel
// row loop: the loop is not cut (one parallel loop) but its body versioned, the interior rows
// y in [1, 7) reading without a select; the border rows keep theirs, and the reduction loop
// inside them is not cut.
// CHECK-LABEL: func.func @padded_rows
// CHECK:         tir.for %[[Y:.*]] = %c0 to %c8 parallel {
// CHECK-NEXT:      %[[LO:.*]] = arith.cmpi sge, %[[Y]], %c1 : index
// CHECK-NEXT:      scf.if %[[LO]] {
// CHECK-NEXT:        %[[HI:.*]] = arith.cmpi slt, %[[Y]], %c7 : index
// CHECK-NEXT:        scf.if %[[HI]] {
// CHECK-NOT:           arith.select
// CHECK:               tir.for %{{.*}} = %c0 to %c3 serial {
// CHECK-NOT:             arith.select
// CHECK:             } else {
// CHECK:               tir.for %{{.*}} = %c0 to %c3 serial {
// CHECK:                 arith.select
// CHECK:         } else {
// CHECK:           tir.for %{{.*}} = %c0 to %c3 serial {
// CHECK:             arith.select
// CHECK-NOT:     tir.for
// CHECK:         func.return
func.func @padded_rows(%A: memref<8xf32>, %B: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  tir.for %y = %c0 to %c8 parallel {
    %acc = memref.alloc() : memref<1xf32>
    memref.store %zero, %acc[%c0] : memref<1xf32>
    tir.for %r = %c0 to %c3 serial {
      %t = arith.addi %y, %r : index
      %i = arith.subi %t, %c1 : index
      %lo = arith.cmpi sge, %i, %c0 : index
      %hi = arith.cmpi slt, %i, %c8 : index
      %in = arith.andi %lo, %hi : i1
      %m = arith.maxsi %i, %c0 : index
      %j = arith.minsi %m, %c7 : index
      %v = memref.load %A[%j] : memref<8xf32>
      %s = arith.select %in, %v, %zero : f32
      %a = memref.load %acc[%c0] : memref<1xf32>
      %n = arith.addf %a, %s : f32
      memref.store %n, %acc[%c0] : memref<1xf32>
    }
    %o = memref.load %acc[%c0] : memref<1xf32>
    memref.store %o, %B[%y] : memref<8xf32>
    memref.dealloc %acc : memref<1xf32>
  }
  func.return
}
