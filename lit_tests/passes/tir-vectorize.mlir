// RUN: xtvm-opt %s -p tir-vectorize --split-input-file 2>%t.remarks | filecheck %s
// RUN: filecheck %s --input-file %t.remarks --check-prefix=REMARK

// An elementwise loop: contiguous loads and stores become vector.load/vector.store at the
// loop's first index, the invariant scalar is broadcast, arith and math work on vectors.
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME:    (%[[A:.*]]: memref<8x8xf32>, %[[B:.*]]: memref<8x8xf32>, %[[S:.*]]: f32, %[[R:.*]]: index)
// CHECK-NOT:     tir.for
// CHECK:         %[[X:.*]] = vector.load %[[A]][%[[R]], %c0] : memref<8x8xf32>, vector<8xf32>
// CHECK-NEXT:    %[[SPLAT:.*]] = vector.broadcast %[[S]] : f32 to vector<8xf32>
// CHECK-NEXT:    %[[Y:.*]] = arith.mulf %[[X]], %[[SPLAT]] : vector<8xf32>
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[Y]] : vector<8xf32>
// CHECK-NEXT:    vector.store %[[E]], %[[B]][%[[R]], %c0] : memref<8x8xf32>, vector<8xf32>
// CHECK-NEXT:    func.return
func.func @elementwise(%A: memref<8x8xf32>, %B: memref<8x8xf32>, %s: f32, %r: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  tir.for %v = %c0 to %c8 vectorized {
    %x = memref.load %A[%r, %v] : memref<8x8xf32>
    %y = arith.mulf %x, %s : f32
    %e = math.exp %y : f32
    memref.store %e, %B[%r, %v] : memref<8x8xf32>
  }
  func.return
}

// -----

// An offset index (v + 8, from a split) keeps the access contiguous: the vector starts at 8.
// The loop variable used as a number becomes the vector [8, 9, 10, 11] (an index vector).
// CHECK-LABEL: func.func @offset_and_iota
// CHECK:         %[[BASE:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[X:.*]] = vector.load %{{.*}}[%[[BASE]]] : memref<16xindex>, vector<4xindex>
// CHECK-NEXT:    %[[SPLAT:.*]] = vector.broadcast %[[BASE]] : index to vector<4xindex>
// CHECK-NEXT:    %[[STEPS:.*]] = arith.constant dense<[0, 1, 2, 3]> : vector<4xindex>
// CHECK-NEXT:    %[[I:.*]] = arith.addi %[[SPLAT]], %[[STEPS]] : vector<4xindex>
// CHECK-NEXT:    %[[Y:.*]] = arith.muli %[[X]], %[[I]] : vector<4xindex>
// CHECK-NEXT:    vector.store %[[Y]], %{{.*}}[%[[BASE]]] : memref<16xindex>, vector<4xindex>
func.func @offset_and_iota(%A: memref<16xindex>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for %v = %c0 to %c4 vectorized {
    %i = arith.addi %v, %c8 : index
    %x = memref.load %A[%i] : memref<16xindex>
    %y = arith.muli %x, %i : index
    memref.store %y, %A[%i] : memref<16xindex>
  }
  func.return
}

// -----

// A sum into one element becomes a vector.reduction of the lanes into the loaded accumulator.
// CHECK-LABEL: func.func @sum_into_scalar
// CHECK-SAME:    (%[[A:.*]]: memref<8xf32>, %[[ACC:.*]]: memref<1xf32>)
// CHECK:         %[[OLD:.*]] = memref.load %[[ACC]][%c0] : memref<1xf32>
// CHECK-NEXT:    %[[X:.*]] = vector.load %[[A]][%c0] : memref<8xf32>, vector<8xf32>
// CHECK-NEXT:    %[[SUM:.*]] = vector.reduction <add>, %[[X]], %[[OLD]] : vector<8xf32> into f32
// CHECK-NEXT:    memref.store %[[SUM]], %[[ACC]][%c0] : memref<1xf32>
func.func @sum_into_scalar(%A: memref<8xf32>, %acc: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  tir.for %v = %c0 to %c8 vectorized {
    %old = memref.load %acc[%c0] : memref<1xf32>
    %x = memref.load %A[%v] : memref<8xf32>
    %sum = arith.addf %old, %x : f32
    memref.store %sum, %acc[%c0] : memref<1xf32>
  }
  func.return
}

// -----

// A reduction loop nested in the vectorized one keeps its structure; its body works on vectors
// (each lane accumulates its own element of C).
// CHECK-LABEL: func.func @nested_reduction
// CHECK:         %[[ZERO:.*]] = vector.broadcast
// CHECK-NEXT:    vector.store %[[ZERO]], %{{.*}}[%c0]
// CHECK-NEXT:    tir.for %[[K:.*]] = %c0 to %c6 serial {
// CHECK-NEXT:      %[[X:.*]] = vector.load %{{.*}}[%[[K]], %c0] : memref<6x4xf32>, vector<4xf32>
// CHECK-NEXT:      %[[OLD:.*]] = vector.load %{{.*}}[%c0] : memref<4xf32>, vector<4xf32>
// CHECK-NEXT:      %[[NEW:.*]] = arith.addf %[[OLD]], %[[X]] : vector<4xf32>
// CHECK-NEXT:      vector.store %[[NEW]], %{{.*}}[%c0] : memref<4xf32>, vector<4xf32>
// CHECK-NEXT:    }
func.func @nested_reduction(%A: memref<6x4xf32>, %C: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %zero = arith.constant 0.0 : f32
  tir.for %v = %c0 to %c4 vectorized {
    memref.store %zero, %C[%v] : memref<4xf32>
    tir.for %k = %c0 to %c6 serial {
      %x = memref.load %A[%k, %v] : memref<6x4xf32>
      %old = memref.load %C[%v] : memref<4xf32>
      %new = arith.addf %old, %x : f32
      memref.store %new, %C[%v] : memref<4xf32>
    }
  }
  func.return
}

// -----

// A branch on a uniform condition with results (a padding row: inside the input, or zero)
// becomes a branch yielding vectors: a vector load on one side, a broadcast zero on the other.
// CHECK-LABEL: func.func @uniform_branch
// CHECK:         %[[V:.*]] = scf.if %inside -> (vector<4xf32>) {
// CHECK-NEXT:      %[[L:.*]] = vector.load %A[%row, %c0] : memref<4x4xf32>, vector<4xf32>
// CHECK-NEXT:      scf.yield %[[L]] : vector<4xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[Z:.*]] = vector.broadcast %zero : f32 to vector<4xf32>
// CHECK-NEXT:      scf.yield %[[Z]] : vector<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    vector.store %[[V]], %B[%c0] : memref<4xf32>, vector<4xf32>
func.func @uniform_branch(%A: memref<4x4xf32>, %B: memref<4xf32>, %row: index, %inside: i1) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tir.for %v = %c0 to %c4 vectorized {
    %x = scf.if %inside -> (f32) {
      %a = memref.load %A[%row, %v] : memref<4x4xf32>
      scf.yield %a : f32
    } else {
      scf.yield %zero : f32
    }
    memref.store %x, %B[%v] : memref<4xf32>
  }
  func.return
}

// -----

// A transposing copy reads along an outer dimension (the loop variable indexes rows): the
// read is a `vector.transfer_read` along that dimension, the store stays contiguous.
// CHECK-LABEL: func.func @transposed_read
// CHECK:         %[[R:.*]] = vector.transfer_read %A[%c0, %i], %{{.*}} {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<8x4xf32>, vector<8xf32>
// CHECK-NEXT:    vector.store %[[R]], %B[%i, %c0] : memref<4x8xf32>, vector<8xf32>
func.func @transposed_read(%A: memref<8x4xf32>, %B: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %i = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  tir.for %v = %c0 to %c8 vectorized {
    %x = memref.load %A[%v, %i] : memref<8x4xf32>
    memref.store %x, %B[%i, %v] : memref<4x8xf32>
  }
  func.return
}

// -----

// A load stepping by 2 per lane (a stride-2 window) is one load of the 7 elements its lanes
// span and a shuffle picking every second one.
// CHECK-LABEL: func.func @strided_load
// CHECK-NOT:     tir.for
// CHECK:         %[[SPAN:.*]] = vector.load %A[%{{.*}}] : memref<9xf32>, vector<7xf32>
// CHECK-NEXT:    %[[PICKED:.*]] = vector.shuffle %[[SPAN]], %[[SPAN]] [0, 2, 4, 6] : vector<7xf32>, vector<7xf32>
// CHECK-NEXT:    vector.store %[[PICKED]], %B[%c0] : memref<4xf32>, vector<4xf32>
func.func @strided_load(%A: memref<9xf32>, %B: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  tir.for %v = %c0 to %c4 vectorized {
    %j = arith.muli %v, %c2 : index
    %i = arith.addi %j, %c1 : index
    %x = memref.load %A[%i] : memref<9xf32>
    memref.store %x, %B[%v] : memref<4xf32>
  }
  func.return
}

// -----

// A 0-d buffer (a scalar constant shared by several kernels, such as GELU's 0.5) has no index
// to step along: its load stays one scalar load, broadcast to the lanes.
// CHECK-LABEL: func.func @zero_d_load
// CHECK-NOT:     tir.for
// CHECK:         %[[C:.*]] = memref.load %c[] : memref<f32>
// CHECK-NEXT:    %[[X:.*]] = vector.load %A[%c0] : memref<8xf32>, vector<8xf32>
// CHECK-NEXT:    %[[SPLAT:.*]] = vector.broadcast %[[C]] : f32 to vector<8xf32>
// CHECK-NEXT:    %[[Y:.*]] = arith.mulf %[[X]], %[[SPLAT]] : vector<8xf32>
// CHECK-NEXT:    vector.store %[[Y]], %B[%c0] : memref<8xf32>, vector<8xf32>
func.func @zero_d_load(%A: memref<8xf32>, %c: memref<f32>, %B: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  tir.for %v = %c0 to %c8 vectorized {
    %s = memref.load %c[] : memref<f32>
    %x = memref.load %A[%v] : memref<8xf32>
    %y = arith.mulf %x, %s : f32
    memref.store %y, %B[%v] : memref<8xf32>
  }
  func.return
}

// -----

// A gather (index 8 * v, sparser than MAX_LOAD_STRIDE) cannot be vectorized: the loop becomes
// serial, with a remark.
// REMARK: loop at {{.*}}tir-vectorize.mlir:[[# @LINE + 7]]:3 not vectorized: gather or scatter: the index is not contiguous ('memref.load' at {{.*}}:[[# @LINE + 9]]:10)
// CHECK-LABEL: func.func @gather
// CHECK:         tir.for %{{.*}} = %c0 to %c4 serial {
func.func @gather(%A: memref<32xf32>, %B: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c4 = arith.constant 4 : index
  tir.for %v = %c0 to %c4 vectorized {
    %i = arith.muli %v, %c8 : index
    %x = memref.load %A[%i] : memref<32xf32>
    memref.store %x, %B[%v] : memref<4xf32>
  }
  func.return
}

// -----

// A strided access (the loop variable in an outer dimension), a call, a branch whose condition
// differs per lane (its comparison has no vector form in xDSL 0.74), a cast without vector form
// and a loop whose extent is unknown are left serial, each with its reason (last loop first).
// REMARK: not vectorized: the loop's extent is not a constant
// REMARK: not vectorized: 'arith.fptosi' op has no vector form
// REMARK: not vectorized: 'arith.cmpi' op has no vector form
// REMARK: not vectorized: 'tir.call_extern' op cannot be vectorized
// REMARK: not vectorized: strided access: an outer index varies across lanes
// CHECK-LABEL: func.func @refused
// CHECK-NOT:     vectorized
// CHECK-NOT:     vector.
func.func @refused(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  tir.for %v = %c0 to %c4 vectorized {
    %x = memref.load %A[%v, %c0] : memref<4x4xf32>
    memref.store %x, %A[%v, %c0] : memref<4x4xf32>
  }
  tir.for %v = %c0 to %c4 vectorized {
    %x = memref.load %A[%c0, %v] : memref<4x4xf32>
    %y = tir.call_extern "expf"(%x) : (f32) -> f32
    memref.store %y, %A[%c0, %v] : memref<4x4xf32>
  }
  tir.for %v = %c0 to %c4 vectorized {
    %low = arith.cmpi ult, %v, %c2 : index
    scf.if %low {
      %x = memref.load %A[%c0, %v] : memref<4x4xf32>
      memref.store %x, %B[%c2, %v] : memref<4x4xf32>
    }
  }
  tir.for %v = %c0 to %c4 vectorized {
    %x = memref.load %A[%c0, %v] : memref<4x4xf32>
    %i = arith.fptosi %x : f32 to i32
    %f = arith.sitofp %i : i32 to f32
    memref.store %f, %B[%c2, %v] : memref<4x4xf32>
  }
  tir.for %v = %c0 to %n vectorized {
    %x = memref.load %A[%c0, %v] : memref<4x4xf32>
    memref.store %x, %B[%c2, %v] : memref<4x4xf32>
  }
  func.return
}

// -----

// A loop that reads what another lane writes (A[v + 1] = A[v]) would change meaning as vector
// code: it stays serial.
// REMARK: not vectorized: lanes may overlap: the buffer is stored and accessed at different indices in the loop
// CHECK-LABEL: func.func @overlap
// CHECK:         tir.for %{{.*}} serial
func.func @overlap(%A: memref<9xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  tir.for %v = %c0 to %c8 vectorized {
    %x = memref.load %A[%v] : memref<9xf32>
    %w = arith.addi %v, %c1 : index
    memref.store %x, %A[%w] : memref<9xf32>
  }
  func.return
}

// -----

// A stored index that moves with a nested loop (C[k + v]) lets lanes meet across iterations of
// that loop: left serial.
// REMARK: not vectorized: lanes may overlap: a stored index depends on a nested loop
// CHECK-LABEL: func.func @sliding_store
// CHECK:         tir.for %{{.*}} serial
func.func @sliding_store(%A: memref<4xf32>, %C: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  tir.for %v = %c0 to %c4 vectorized {
    tir.for %k = %c0 to %c4 serial {
      %i = arith.addi %k, %v : index
      %x = memref.load %A[%k] : memref<4xf32>
      %old = memref.load %C[%i] : memref<8xf32>
      %new = arith.addf %old, %x : f32
      memref.store %new, %C[%i] : memref<8xf32>
    }
  }
  func.return
}

// -----

// A loop over whole rows of a 7x7 plane (rows and columns fused, split by 16): the lanes'
// (i // 7, i % 7) are consecutive elements of the row-major buffer, one vector access from
// the first lane's element on (row 0, column 16), running past the end of its row. A
// buffer whose rows are not 7 wide is indexed otherwise: that access stays a remark.
// CHECK-LABEL: func.func @whole_rows
// CHECK-SAME:    (%[[A:.*]]: memref<2x7x7xf32>, %[[B:.*]]: memref<2x7x7xf32>)
// CHECK:         %[[C:.*]] = arith.constant 1 : index
// CHECK:         %[[BASE:.*]] = arith.muli %{{.*}}, %c16 : index
// CHECK-NEXT:    %[[ROW:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[X:.*]] = vector.load %[[A]][%[[C]], %[[ROW]], %[[BASE]]] : memref<2x7x7xf32>, vector<16xf32>
// CHECK:         vector.store %{{.*}}, %[[B]][%[[C]], %{{.*}}, %[[BASE]]] : memref<2x7x7xf32>, vector<16xf32>
func.func @whole_rows(%A: memref<2x7x7xf32>, %B: memref<2x7x7xf32>) {
  %c0 = arith.constant 0 : index
  %c = arith.constant 1 : index
  %o = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c16 = arith.constant 16 : index
  %base = arith.muli %o, %c16 : index
  tir.for %v = %c0 to %c16 vectorized {
    %i = arith.addi %base, %v : index
    %y = arith.divui %i, %c7 : index
    %x = arith.remui %i, %c7 : index
    %a = memref.load %A[%c, %y, %x] : memref<2x7x7xf32>
    %b = arith.addf %a, %a : f32
    memref.store %b, %B[%c, %y, %x] : memref<2x7x7xf32>
  }
  func.return
}

// -----

// REMARK: not vectorized: strided access: an outer index varies across lanes
// CHECK-LABEL: func.func @rows_of_another_width
// CHECK:         tir.for
func.func @rows_of_another_width(%A: memref<7x8xf32>) {
  %c0 = arith.constant 0 : index
  %o = arith.constant 0 : index
  %c7 = arith.constant 7 : index
  %c16 = arith.constant 16 : index
  %base = arith.muli %o, %c16 : index
  tir.for %v = %c0 to %c16 vectorized {
    %i = arith.addi %base, %v : index
    %y = arith.divui %i, %c7 : index
    %x = arith.remui %i, %c7 : index
    %a = memref.load %A[%y, %x] : memref<7x8xf32>
    %b = arith.addf %a, %a : f32
    memref.store %b, %A[%y, %x] : memref<7x8xf32>
  }
  func.return
}
