// Custom syntax of the te ops: a compute with a reduction, an elementwise compute reading it,
// and a schedule with every primitive. Printed, read back and printed again gives the same text.
// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s | xtvm-opt | filecheck %s

// CHECK-LABEL: func.func @matmul_relu(%A: tensor<64x30xf32>, %B: tensor<30x48xf32>) -> tensor<64x48xf32> {
// CHECK-NEXT:    %C = te.compute "C" {
// CHECK-NEXT:    ^bb0(%i: index, %j: index):
// CHECK-NEXT:      %s = te.reduce "sum" {
// CHECK-NEXT:      ^bb0(%k: index):
// CHECK-NEXT:        %a = te.read %A[%i, %k] : tensor<64x30xf32> -> f32
// CHECK-NEXT:        %b = te.read %B[%k, %j] : tensor<30x48xf32> -> f32
// CHECK-NEXT:        %p = arith.mulf %a, %b : f32
// CHECK-NEXT:        te.yield %p : f32
// CHECK-NEXT:      } {extents = array<i64: 30>, axis_names = ["k"]} : f32
// CHECK-NEXT:      te.yield %s : f32
// CHECK-NEXT:    } {axis_names = ["i", "j"]} : tensor<64x48xf32>
// CHECK-NEXT:    %D = te.compute "D" {
// CHECK-NEXT:    ^bb0(%i_1: index, %j_1: index):
// CHECK-NEXT:      %c = te.read %C[%i_1, %j_1] : tensor<64x48xf32> -> f32
// CHECK-NEXT:      %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %r = arith.maximumf %c, %zero : f32
// CHECK-NEXT:      te.yield %r : f32
// CHECK-NEXT:    } {axis_names = ["i", "j"], tag = "elemwise"} : tensor<64x48xf32>
// CHECK-NEXT:    te.schedule {
// CHECK-NEXT:      te.split "C" {axis = "i", factor = 8 : i64, outer = "i.outer", inner = "i.inner"}
// CHECK-NEXT:      te.split "C" {axis = "j", nparts = 4 : i64, outer = "j.outer", inner = "j.inner"}
// CHECK-NEXT:      te.reorder "C" {order = ["i.outer", "j.outer", "k", "i.inner", "j.inner"]}
// CHECK-NEXT:      te.fuse "C" {axes = ["i.outer", "j.outer"], fused = "i.outer.j.outer.fused"}
// CHECK-NEXT:      te.parallel "C" {axis = "i.outer.j.outer.fused"}
// CHECK-NEXT:      te.unroll "C" {axis = "i.inner"}
// CHECK-NEXT:      te.vectorize "C" {axis = "j.inner"}
// CHECK-NEXT:      te.bind "D" {axis = "i", thread = "blockIdx.x"}
// CHECK-NEXT:      te.compute_root "D"
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %D : tensor<64x48xf32>
func.func @matmul_relu(%A: tensor<64x30xf32>, %B: tensor<30x48xf32>) -> tensor<64x48xf32> {
  %C = te.compute "C" {
  ^bb0(%i: index, %j: index):
    %s = te.reduce "sum" {
    ^bb0(%k: index):
      %a = te.read %A[%i, %k] : tensor<64x30xf32> -> f32
      %b = te.read %B[%k, %j] : tensor<30x48xf32> -> f32
      %p = arith.mulf %a, %b : f32
      te.yield %p : f32
    } {extents = array<i64: 30>, axis_names = ["k"]} : f32
    te.yield %s : f32
  } {axis_names = ["i", "j"]} : tensor<64x48xf32>
  %D = te.compute "D" {
  ^bb2(%i: index, %j: index):
    %c = te.read %C[%i, %j] : tensor<64x48xf32> -> f32
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %c, %zero : f32
    te.yield %r : f32
  } {axis_names = ["i", "j"], tag = "elemwise"} : tensor<64x48xf32>
  te.schedule {
    te.split "C" {axis = "i", factor = 8 : i64, outer = "i.outer", inner = "i.inner"}
    te.split "C" {axis = "j", nparts = 4 : i64, outer = "j.outer", inner = "j.inner"}
    te.reorder "C" {order = ["i.outer", "j.outer", "k", "i.inner", "j.inner"]}
    te.fuse "C" {axes = ["i.outer", "j.outer"], fused = "i.outer.j.outer.fused"}
    te.parallel "C" {axis = "i.outer.j.outer.fused"}
    te.unroll "C" {axis = "i.inner"}
    te.vectorize "C" {axis = "j.inner"}
    te.bind "D" {axis = "i", thread = "blockIdx.x"}
    te.compute_root "D"
  }
  func.return %D : tensor<64x48xf32>
}

// An inlined stage and an integer compute with a select.
// CHECK-LABEL: func.func @inline_select
// CHECK:         te.compute_inline "B"
func.func @inline_select(%A: tensor<10xi32>) -> tensor<10xi32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    %a = te.read %A[%i] : tensor<10xi32> -> i32
    %one = arith.constant 1 : i32
    %b = arith.addi %a, %one : i32
    te.yield %b : i32
  } {axis_names = ["i"]} : tensor<10xi32>
  %C = te.compute "C" {
  ^bb0(%i: index):
    %b = te.read %B[%i] : tensor<10xi32> -> i32
    %zero = arith.constant 0 : i32
    %pos = arith.cmpi sgt, %b, %zero : i32
    %c = arith.select %pos, %b, %zero : i32
    te.yield %c : i32
  } {axis_names = ["i"]} : tensor<10xi32>
  te.schedule {
    te.compute_inline "B"
  }
  func.return %C : tensor<10xi32>
}

// Symbolic extents (te.dim binds %n, size operands give the `?` extents) and the primitives
// that place and cache stages; cache ops define the cache's tensor.
// CHECK-LABEL: func.func @symbolic_cached(%A: tensor<?x8xf32>, %m: index) -> tensor<?x8xf32> {
// CHECK-NEXT:    %n = te.dim %A, 0 : tensor<?x8xf32>
// CHECK-NEXT:    %P = te.compute "P" (%n) {
// CHECK-NEXT:    ^bb0(%i: index, %j: index):
// CHECK-NEXT:      %s = te.reduce "sum" (%m) {
// CHECK-NEXT:      ^bb0(%k: index):
// CHECK-NEXT:        %a = te.read %A[%i, %k] : tensor<?x8xf32> -> f32
// CHECK-NEXT:        te.yield %a : f32
// CHECK-NEXT:      } {extents = array<i64: -1>, axis_names = ["k"]} : f32
// CHECK-NEXT:      te.yield %s : f32
// CHECK-NEXT:    } {axis_names = ["i", "j"]} : tensor<?x8xf32>
// CHECK-NEXT:    %C = te.compute "C" (%n) {
// CHECK:         } {axis_names = ["i", "j"]} : tensor<?x8xf32>
// CHECK-NEXT:    te.schedule {
// CHECK-NEXT:      %A.shared = te.cache_read %A {name = "A.shared", scope = "shared", readers = ["P"]} : tensor<?x8xf32>
// CHECK-NEXT:      %P.local = te.cache_write %P {name = "P.local", scope = "local"} : tensor<?x8xf32>
// CHECK-NEXT:      te.compute_at "P" {parent = "C", axis = "i"}
// CHECK-NEXT:      te.compute_at "P.local" {parent = "P", axis = "i"}
// CHECK-NEXT:      te.storage_align "A.shared" {axis = "ax0", factor = 16 : i64, offset = 1 : i64}
// CHECK-NEXT:      te.pragma "C" {axis = "i", key = "auto_unroll_max_step", value = 16 : i64}
// CHECK-NEXT:      te.pragma "C" {axis = "j", key = "unroll_explicit"}
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %C : tensor<?x8xf32>
func.func @symbolic_cached(%A: tensor<?x8xf32>, %m: index) -> tensor<?x8xf32> {
  %n = te.dim %A, 0 : tensor<?x8xf32>
  %P = te.compute "P" (%n) {
  ^bb0(%i: index, %j: index):
    %s = te.reduce "sum" (%m) {
    ^bb1(%k: index):
      %a = te.read %A[%i, %k] : tensor<?x8xf32> -> f32
      te.yield %a : f32
    } {extents = array<i64: -1>, axis_names = ["k"]} : f32
    te.yield %s : f32
  } {axis_names = ["i", "j"]} : tensor<?x8xf32>
  %C = te.compute "C" (%n) {
  ^bb0(%i: index, %j: index):
    %p = te.read %P[%i, %j] : tensor<?x8xf32> -> f32
    te.yield %p : f32
  } {axis_names = ["i", "j"]} : tensor<?x8xf32>
  te.schedule {
    %A.shared = te.cache_read %A {name = "A.shared", scope = "shared", readers = ["P"]} : tensor<?x8xf32>
    %P.local = te.cache_write %P {name = "P.local", scope = "local"} : tensor<?x8xf32>
    te.compute_at "P" {parent = "C", axis = "i"}
    te.compute_at "P.local" {parent = "P", axis = "i"}
    te.storage_align "A.shared" {axis = "ax0", factor = 16 : i64, offset = 1 : i64}
    te.pragma "C" {axis = "i", key = "auto_unroll_max_step", value = 16 : i64}
    te.pragma "C" {axis = "j", key = "unroll_explicit"}
  }
  func.return %C : tensor<?x8xf32>
}
