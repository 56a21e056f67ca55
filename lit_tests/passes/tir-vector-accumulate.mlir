// RUN: xtvm-opt %s -p tir-vector-accumulate --split-input-file | filecheck %s

// Dense's lane reductions (k_inner vectorized under a serial k_outer): the 1x2 tile buffer
// gets a 1x2x4 shadow, zero before the loop, updated by a vector add in it, and reduced into
// the tile once after it.
// CHECK-LABEL: func.func @dense_tile
// CHECK:         %[[T:.*]] = memref.alloc() : memref<1x2xf32>
// CHECK:         %[[V:.*]] = memref.alloc() : memref<1x2x4xf32>
// CHECK:         tir.for %[[E0:.*]] = %{{.*}} to %{{.*}} unrolled {
// CHECK-NEXT:      %{{.*}} = arith.constant 2 : index
// CHECK-NEXT:      tir.for %[[E1:.*]] = %{{.*}} to %{{.*}} unrolled {
// CHECK-NEXT:        %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:        %[[ZV:.*]] = vector.broadcast %[[Z]] : f32 to vector<4xf32>
// CHECK-NEXT:        vector.store %[[ZV]], %[[V]][%[[E0]], %[[E1]], %{{.*}}]
// CHECK:         tir.for %{{.*}} = %{{.*}} to %{{.*}} serial {
// CHECK:           %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NEXT:      %{{.*}} = arith.constant 0 : index
// CHECK-NEXT:      %[[OLD:.*]] = vector.load %[[V]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<1x2x4xf32>, vector<4xf32>
// CHECK-NEXT:      %[[NEW:.*]] = arith.addf %[[OLD]], %[[P]] : vector<4xf32>
// CHECK-NEXT:      vector.store %[[NEW]], %[[V]]
// CHECK-NOT:       vector.reduction
// CHECK:         }
// CHECK:         tir.for
// CHECK:           tir.for
// CHECK-NEXT:        %[[X:.*]] = memref.load %[[T]]
// CHECK-NEXT:        %[[L:.*]] = vector.load %[[V]]
// CHECK-NEXT:        %[[S:.*]] = vector.reduction <add>, %[[L]], %[[X]] : vector<4xf32> into f32
// CHECK-NEXT:        memref.store %[[S]], %[[T]]
// CHECK:         memref.dealloc %[[V]]
func.func @dense_tile(%x: memref<1x16xf32>, %w: memref<2x16xf32>, %y: memref<1x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<1x2xf32>
  tir.for %j = %c0 to %c2 serial {
    memref.store %zero, %t[%c0, %j] : memref<1x2xf32>
  }
  tir.for %ko = %c0 to %c4 serial {
    %k = arith.muli %ko, %c4 : index
    tir.for %j = %c0 to %c2 unrolled {
      %a = vector.load %x[%c0, %k] : memref<1x16xf32>, vector<4xf32>
      %b = vector.load %w[%j, %k] : memref<2x16xf32>, vector<4xf32>
      %p = arith.mulf %a, %b : vector<4xf32>
      %acc = memref.load %t[%c0, %j] : memref<1x2xf32>
      %s = vector.reduction <add>, %p, %acc : vector<4xf32> into f32
      memref.store %s, %t[%c0, %j] : memref<1x2xf32>
    }
  }
  tir.for %j = %c0 to %c2 serial {
    %v = memref.load %t[%c0, %j] : memref<1x2xf32>
    memref.store %v, %y[%c0, %j] : memref<1x2xf32>
  }
  memref.dealloc %t : memref<1x2xf32>
  func.return
}

// -----

// A max reduction starts its shadow from the element itself (max is idempotent).
// CHECK-LABEL: func.func @row_max
// CHECK:         %[[V:.*]] = memref.alloc() : memref<1x8xf32>
// CHECK:         %[[X:.*]] = memref.load %{{.*}}[%{{.*}}]
// CHECK-NEXT:    %{{.*}} = vector.broadcast %[[X]] : f32 to vector<8xf32>
// CHECK:         arith.maximumf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK:         vector.reduction <maximumf>
func.func @row_max(%x: memref<64xf32>, %y: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %ninf = arith.constant 0xFF800000 : f32
  %t = memref.alloc() : memref<1xf32>
  memref.store %ninf, %t[%c0] : memref<1xf32>
  tir.for %ko = %c0 to %c8 serial {
    %k = arith.muli %ko, %c8 : index
    %a = vector.load %x[%k] : memref<64xf32>, vector<8xf32>
    %acc = memref.load %t[%c0] : memref<1xf32>
    %m = vector.reduction <maximumf>, %a, %acc : vector<8xf32> into f32
    memref.store %m, %t[%c0] : memref<1xf32>
  }
  %r = memref.load %t[%c0] : memref<1xf32>
  memref.store %r, %y[%c0] : memref<1xf32>
  memref.dealloc %t : memref<1xf32>
  func.return
}

// -----

// Left alone: the loop also reads the buffer other than through the reduction (the partial
// sum is observed every step), and a reduction into an argument (no allocation to shadow).
// CHECK-LABEL: func.func @observed
// CHECK-NOT:     memref<1x4xf32>
// CHECK:         vector.reduction <add>
// CHECK-LABEL: func.func @into_argument
// CHECK-NOT:     memref<1x4xf32>
// CHECK:         vector.reduction <add>
func.func @observed(%x: memref<16xf32>, %y: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<1xf32>
  memref.store %zero, %t[%c0] : memref<1xf32>
  tir.for %ko = %c0 to %c4 serial {
    %k = arith.muli %ko, %c4 : index
    %a = vector.load %x[%k] : memref<16xf32>, vector<4xf32>
    %acc = memref.load %t[%c0] : memref<1xf32>
    %s = vector.reduction <add>, %a, %acc : vector<4xf32> into f32
    memref.store %s, %t[%c0] : memref<1xf32>
    %seen = memref.load %t[%c0] : memref<1xf32>
    memref.store %seen, %y[%ko] : memref<4xf32>
  }
  memref.dealloc %t : memref<1xf32>
  func.return
}
func.func @into_argument(%x: memref<16xf32>, %y: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  tir.for %ko = %c0 to %c4 serial {
    %k = arith.muli %ko, %c4 : index
    %a = vector.load %x[%k] : memref<16xf32>, vector<4xf32>
    %acc = memref.load %y[%c0] : memref<1xf32>
    %s = vector.reduction <add>, %a, %acc : vector<4xf32> into f32
    memref.store %s, %y[%c0] : memref<1xf32>
  }
  func.return
}
