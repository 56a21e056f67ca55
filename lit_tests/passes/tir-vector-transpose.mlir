// RUN: xtvm-opt %s -p tir-vector-transpose --split-input-file | filecheck %s

// A 4x4 transpose whose loop reads one column per step (a gather along dim 0): the loop is
// unrolled, the block read as four row loads, joined, and each step's column shuffled out.
// CHECK-LABEL: func.func @square
// CHECK-NOT:     tir.for
// CHECK-NOT:     vector.transfer_read
// CHECK:         %[[R0:.*]] = vector.load %x[%c0, %[[W:.*]]] : memref<4x4xf32>, vector<4xf32>
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[ROW1:.*]] = arith.addi %c0, %[[ONE]] : index
// CHECK-NEXT:    %[[R1:.*]] = vector.load %x[%[[ROW1]], %[[W]]] : memref<4x4xf32>, vector<4xf32>
// CHECK:         %[[R2:.*]] = vector.load %x
// CHECK:         %[[R3:.*]] = vector.load %x
// CHECK-NEXT:    %[[J01:.*]] = vector.shuffle %[[R0]], %[[R1]] [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf32>, vector<4xf32>
// CHECK-NEXT:    %[[J23:.*]] = vector.shuffle %[[R2]], %[[R3]] [0, 1, 2, 3, 4, 5, 6, 7]
// CHECK-NEXT:    %[[B:.*]] = vector.shuffle %[[J01]], %[[J23]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] : vector<8xf32>, vector<8xf32>
// CHECK-NEXT:    %[[C0:.*]] = vector.shuffle %[[B]], %[[B]] [0, 4, 8, 12] : vector<16xf32>, vector<16xf32>
// CHECK-NEXT:    vector.store %[[C0]], %y[%[[W]], %c0]
// CHECK:         %[[C1:.*]] = vector.shuffle %[[B]], %[[B]] [1, 5, 9, 13]
// CHECK-NEXT:    vector.store %[[C1]], %y
// CHECK:         vector.shuffle %[[B]], %[[B]] [2, 6, 10, 14]
// CHECK:         vector.shuffle %[[B]], %[[B]] [3, 7, 11, 15]
// CHECK:         func.return
func.func @square(%x: memref<4x4xf32>, %y: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant 0.0 : f32
  tir.for %w = %c0 to %c4 serial {
    %v = "vector.transfer_read"(%x, %c0, %w, %pad) <{in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>, operandSegmentSizes = array<i32: 1, 2, 1, 0>}> : (memref<4x4xf32>, index, index, f32) -> vector<4xf32>
    vector.store %v, %y[%w, %c0] : memref<4x4xf32>, vector<4xf32>
  }
  func.return
}

// -----

// Steps offset by a value from outside the loop (the block's column start), inside an outer
// loop over blocks: the rows start at the offset.
// CHECK-LABEL: func.func @offset_block
// CHECK:         tir.for %[[B:.*]] = %{{.*}} to %{{.*}} serial {
// CHECK-NEXT:      %[[START:.*]] = arith.muli %[[B]], %{{.*}} : index
// CHECK:           %[[FIRST:.*]] = arith.addi %[[START]], %{{.*}} : index
// CHECK-NEXT:      vector.load %x[%c0, %[[FIRST]]] : memref<4x8xf32>, vector<4xf32>
// CHECK-NOT:       vector.transfer_read
// CHECK:           vector.shuffle
// CHECK-NOT:       tir.for
// CHECK:         }
func.func @offset_block(%x: memref<4x8xf32>, %y: memref<8x4xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant 0.0 : f32
  tir.for %b = %c0 to %c2 serial {
    %start = arith.muli %b, %c4 : index
    tir.for %w = %c0 to %c4 unrolled {
      %i = arith.addi %start, %w : index
      %v = "vector.transfer_read"(%x, %c0, %i, %pad) <{in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>, operandSegmentSizes = array<i32: 1, 2, 1, 0>}> : (memref<4x8xf32>, index, index, f32) -> vector<4xf32>
      vector.store %v, %y[%i, %c0] : memref<8x4xf32>, vector<4xf32>
    }
  }
  func.return
}

// -----

// The loop writes the buffer it gathers from: the reads stay gathers, the loop stays.
// CHECK-LABEL: func.func @writes_source
// CHECK:         tir.for
// CHECK:           vector.transfer_read
func.func @writes_source(%x: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant 0.0 : f32
  tir.for %w = %c0 to %c4 serial {
    %v = "vector.transfer_read"(%x, %c0, %w, %pad) <{in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>, operandSegmentSizes = array<i32: 1, 2, 1, 0>}> : (memref<4x4xf32>, index, index, f32) -> vector<4xf32>
    vector.store %v, %x[%w, %c0] : memref<4x4xf32>, vector<4xf32>
  }
  func.return
}

// -----

// Three steps of four-lane columns are not a square; a read whose other index changes with
// the loop is not a block either.
// CHECK-LABEL: func.func @not_square
// CHECK:         tir.for
// CHECK:           vector.transfer_read
// CHECK-LABEL: func.func @moving_rows
// CHECK:         tir.for
// CHECK:           vector.transfer_read
func.func @not_square(%x: memref<4x4xf32>, %y: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %pad = arith.constant 0.0 : f32
  tir.for %w = %c0 to %c3 serial {
    %v = "vector.transfer_read"(%x, %c0, %w, %pad) <{in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>, operandSegmentSizes = array<i32: 1, 2, 1, 0>}> : (memref<4x4xf32>, index, index, f32) -> vector<4xf32>
    vector.store %v, %y[%w, %c0] : memref<4x4xf32>, vector<4xf32>
  }
  func.return
}
func.func @moving_rows(%x: memref<8x4xf32>, %y: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant 0.0 : f32
  tir.for %w = %c0 to %c4 serial {
    %v = "vector.transfer_read"(%x, %w, %w, %pad) <{in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>, operandSegmentSizes = array<i32: 1, 2, 1, 0>}> : (memref<8x4xf32>, index, index, f32) -> vector<4xf32>
    vector.store %v, %y[%w, %c0] : memref<4x4xf32>, vector<4xf32>
  }
  func.return
}

// -----

// The block's first row computed inside the loop from values defined outside it (as a stage
// computed at a tile's loop adds the tile's start in its body): it does not change in the
// loop, so the block is read as rows starting there.
// CHECK-LABEL: func.func @invariant_rows
// CHECK-NOT:     tir.for
// CHECK-NOT:     vector.transfer_read
// CHECK:         %pad = arith.constant
// CHECK-NEXT:    %[[W:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[ROW:.*]] = arith.addi %row, %start : index
// CHECK-NEXT:    vector.load %x[%[[ROW]], %[[W]]] : memref<8x4xf32>, vector<4xf32>
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[ROW1:.*]] = arith.addi %[[ROW]], %[[ONE]] : index
// CHECK-NEXT:    vector.load %x[%[[ROW1]], %[[W]]]
// CHECK:         vector.shuffle
// CHECK:         func.return
func.func @invariant_rows(%x: memref<8x4xf32>, %y: memref<4x4xf32>, %row: index, %start: index) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant 0.0 : f32
  tir.for %w = %c0 to %c4 serial {
    %r = arith.addi %row, %start : index
    %v = "vector.transfer_read"(%x, %r, %w, %pad) <{in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>, operandSegmentSizes = array<i32: 1, 2, 1, 0>}> : (memref<8x4xf32>, index, index, f32) -> vector<4xf32>
    vector.store %v, %y[%w, %c0] : memref<4x4xf32>, vector<4xf32>
  }
  func.return
}

// -----

// A row computed inside the loop from its variable, or read from memory there, may change
// from step to step: the gathers stay.
// CHECK-LABEL: func.func @rows_from_the_step
// CHECK:         tir.for
// CHECK:           vector.transfer_read
// CHECK-LABEL: func.func @rows_from_memory
// CHECK:         tir.for
// CHECK:           vector.transfer_read
func.func @rows_from_the_step(%x: memref<8x4xf32>, %y: memref<4x4xf32>, %row: index) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant 0.0 : f32
  tir.for %w = %c0 to %c4 serial {
    %r = arith.addi %row, %w : index
    %v = "vector.transfer_read"(%x, %r, %w, %pad) <{in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>, operandSegmentSizes = array<i32: 1, 2, 1, 0>}> : (memref<8x4xf32>, index, index, f32) -> vector<4xf32>
    vector.store %v, %y[%w, %c0] : memref<4x4xf32>, vector<4xf32>
  }
  func.return
}
func.func @rows_from_memory(%x: memref<8x4xf32>, %y: memref<4x4xf32>, %rows: memref<1xindex>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant 0.0 : f32
  tir.for %w = %c0 to %c4 serial {
    %r = memref.load %rows[%c0] : memref<1xindex>
    %v = "vector.transfer_read"(%x, %r, %w, %pad) <{in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>, operandSegmentSizes = array<i32: 1, 2, 1, 0>}> : (memref<8x4xf32>, index, index, f32) -> vector<4xf32>
    vector.store %v, %y[%w, %c0] : memref<4x4xf32>, vector<4xf32>
  }
  func.return
}
