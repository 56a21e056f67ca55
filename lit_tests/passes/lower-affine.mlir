// RUN: xtvm-opt %s -p lower-affine | filecheck %s

// An affine loop copying a buffer (affine ops are written in the generic form: xDSL gives
// them no custom syntax) becomes an scf.for over index constants with memref accesses.
// CHECK-LABEL: func.func @copy
// CHECK-SAME:    (%[[SRC:.*]]: memref<8xf32>, %[[DST:.*]]: memref<8xf32>)
// CHECK-DAG:     %[[LB:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[UB:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[STEP:.*]] = arith.constant 1 : index
// CHECK:         scf.for %[[I:.*]] = %[[LB]] to %[[UB]] step %[[STEP]] {
// CHECK:           %[[V:.*]] = memref.load %[[SRC]][%[[I]]] : memref<8xf32>
// CHECK:           memref.store %[[V]], %[[DST]][%[[I]]] : memref<8xf32>
// CHECK-NOT:     affine.
func.func @copy(%src: memref<8xf32>, %dst: memref<8xf32>) {
  "affine.for"() <{lowerBoundMap = affine_map<() -> (0)>, upperBoundMap = affine_map<() -> (8)>, step = 1 : index, operandSegmentSizes = array<i32: 0, 0, 0>}> ({
  ^bb0(%i: index):
    %v = "affine.load"(%src, %i) <{map = affine_map<(d0) -> (d0)>}> : (memref<8xf32>, index) -> f32
    "affine.store"(%v, %dst, %i) <{map = affine_map<(d0) -> (d0)>}> : (f32, memref<8xf32>, index) -> ()
    "affine.yield"() : () -> ()
  }) : () -> ()
  func.return
}
