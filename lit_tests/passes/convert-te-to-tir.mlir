// RUN: xtvm-opt %s -p convert-te-to-tir --split-input-file | filecheck %s

// A split whose factor does not divide the extent is guarded; reorder puts the reduce axis
// between the two halves.
// CHECK-LABEL: func.func @split_guard(%A: memref<10x6xf32>, %B: memref<10xf32>) {
// CHECK:         tir.for %i = %c0 to %c10 serial {
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      memref.store %[[ZERO]], %B[%i] : memref<10xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.for %i_outer = %c0 to %c3 parallel {
// CHECK-NEXT:      tir.for %k = %c0 to %c6 serial {
// CHECK-NEXT:        tir.for %i_inner = %c0 to %c4 vectorized {
// CHECK-NEXT:          %[[SCALED:.*]] = arith.muli %i_outer, %c4 : index
// CHECK-NEXT:          %[[I:.*]] = arith.addi %[[SCALED]], %i_inner : index
// CHECK-NEXT:          %[[IN:.*]] = arith.cmpi ult, %[[I]], %c10 : index
// CHECK-NEXT:          scf.if %[[IN]] {
// CHECK-NEXT:            %[[A:.*]] = memref.load %A[%[[I]], %k] : memref<10x6xf32>
// CHECK-NEXT:            %[[ACC:.*]] = memref.load %B[%[[I]]] : memref<10xf32>
// CHECK-NEXT:            %[[SUM:.*]] = arith.addf %[[ACC]], %[[A]] : f32
// CHECK-NEXT:            memref.store %[[SUM]], %B[%[[I]]] : memref<10xf32>
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @split_guard(%A: tensor<10x6xf32>) -> tensor<10xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    %s = te.reduce "sum" {
    ^bb0(%k: index):
      %a = te.read %A[%i, %k] : tensor<10x6xf32> -> f32
      te.yield %a : f32
    } {extents = array<i64: 6>, axis_names = ["k"]} : f32
    te.yield %s : f32
  } {axis_names = ["i"]} : tensor<10xf32>
  te.schedule {
    te.split "B" {axis = "i", factor = 4 : i64, outer = "i.outer", inner = "i.inner"}
    te.reorder "B" {order = ["i.outer", "k", "i.inner"]}
    te.parallel "B" {axis = "i.outer"}
    te.vectorize "B" {axis = "i.inner"}
  }
  func.return %B : tensor<10xf32>
}

// -----

// fuse, unroll, bind, and an inlined producer.
// CHECK-LABEL: func.func @fuse_inline(%A: memref<4x8xf32>, %C: memref<4x8xf32>) {
// CHECK-NOT:     memref.alloc
// CHECK:         tir.for %bx = %c0 to %c4 thread_binding "blockIdx.x" {
// CHECK-NEXT:      tir.for %tx = %c0 to %c8 thread_binding "threadIdx.x" {
// CHECK-NEXT:        %[[SCALED:.*]] = arith.muli %bx, %c8 : index
// CHECK-NEXT:        %[[F:.*]] = arith.addi %[[SCALED]], %tx : index
// CHECK-NEXT:        %[[I:.*]] = arith.divui %[[F]], %c8 : index
// CHECK-NEXT:        %[[J:.*]] = arith.remui %[[F]], %c8 : index
// CHECK-NEXT:        %[[A:.*]] = memref.load %A[%[[I]], %[[J]]] : memref<4x8xf32>
// CHECK-NEXT:        %[[B:.*]] = arith.addf %[[A]], %[[A]] : f32
// CHECK-NEXT:        %[[C:.*]] = math.exp %[[B]] : f32
// CHECK-NEXT:        memref.store %[[C]], %C[%[[I]], %[[J]]] : memref<4x8xf32>
func.func @fuse_inline(%A: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index, %j: index):
    %a = te.read %A[%i, %j] : tensor<4x8xf32> -> f32
    %b = arith.addf %a, %a : f32
    te.yield %b : f32
  } {axis_names = ["i", "j"]} : tensor<4x8xf32>
  %C = te.compute "C" {
  ^bb0(%i: index, %j: index):
    %b = te.read %B[%i, %j] : tensor<4x8xf32> -> f32
    %c = math.exp %b : f32
    te.yield %c : f32
  } {axis_names = ["i", "j"]} : tensor<4x8xf32>
  te.schedule {
    te.compute_inline "B"
    te.fuse "C" {axes = ["i", "j"], fused = "i.j.fused"}
    te.split "C" {axis = "i.j.fused", factor = 8 : i64, outer = "bx", inner = "tx"}
    te.bind "C" {axis = "bx", thread = "blockIdx.x"}
    te.bind "C" {axis = "tx", thread = "threadIdx.x"}
  }
  func.return %C : tensor<4x8xf32>
}

// -----

// compute_at: B is computed at the start of each C.i.outer iteration over the box C reads
// there, B[3 * i.outer, 3 * i.outer + 4), in a buffer of that box allocated inside the loop;
// C reads it relative to the box start. The ranges prove the box stays inside B: no guard.
// CHECK-LABEL: func.func @compute_at_stencil(%A: memref<10xf32>, %C: memref<9xf32>) {
// CHECK-NOT:     memref.alloc
// CHECK:         tir.for %i_outer = %c0 to %c3 serial {
// CHECK-NEXT:      %[[START:.*]] = arith.muli %i_outer, %c3 : index
// CHECK-NEXT:      %[[BOX:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:      tir.for %[[L:.*]] = %c0 to %c4 serial {
// CHECK-NEXT:        %[[G:.*]] = arith.addi %[[L]], %[[START]] : index
// CHECK-NEXT:        %[[A:.*]] = memref.load %A[%[[G]]] : memref<10xf32>
// CHECK-NEXT:        %[[SQ:.*]] = arith.mulf %[[A]], %[[A]] : f32
// CHECK-NEXT:        memref.store %[[SQ]], %[[BOX]][%[[L]]] : memref<4xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      tir.for %i_inner = %c0 to %c3 serial {
// CHECK:             %[[I:.*]] = arith.addi %{{.*}}, %i_inner : index
// CHECK:             %[[NEXT:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK-NEXT:        %[[LI:.*]] = arith.subi %[[I]], %[[START]] : index
// CHECK-NEXT:        %{{.*}} = memref.load %[[BOX]][%[[LI]]] : memref<4xf32>
// CHECK-NEXT:        %[[LN:.*]] = arith.subi %[[NEXT]], %[[START]] : index
// CHECK-NEXT:        %{{.*}} = memref.load %[[BOX]][%[[LN]]] : memref<4xf32>
// CHECK:             memref.store %{{.*}}, %C[%[[I]]] : memref<9xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      memref.dealloc %[[BOX]] : memref<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @compute_at_stencil(%A: tensor<10xf32>) -> tensor<9xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    %a = te.read %A[%i] : tensor<10xf32> -> f32
    %b = arith.mulf %a, %a : f32
    te.yield %b : f32
  } {axis_names = ["i"]} : tensor<10xf32>
  %C = te.compute "C" {
  ^bb0(%i: index):
    %one = arith.constant 1 : index
    %next = arith.addi %i, %one : index
    %l = te.read %B[%i] : tensor<10xf32> -> f32
    %r = te.read %B[%next] : tensor<10xf32> -> f32
    %c = arith.addf %l, %r : f32
    te.yield %c : f32
  } {axis_names = ["i"]} : tensor<9xf32>
  te.schedule {
    te.split "C" {axis = "i", factor = 3 : i64, outer = "i.outer", inner = "i.inner"}
    te.compute_at "B" {parent = "C", axis = "i.outer"}
  }
  func.return %C : tensor<9xf32>
}

// -----

// A box that may leave the producer is guarded: B[4 * i.outer, 4 * i.outer + 4) for 3 tiles
// of a 10-element B.
// CHECK-LABEL: func.func @compute_at_guarded
// CHECK:         tir.for %i_outer = %c0 to %c3 serial {
// CHECK-NEXT:      %[[START:.*]] = arith.muli %i_outer, %c4 : index
// CHECK-NEXT:      %[[BOX:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:      tir.for %[[L:.*]] = %c0 to %c4 serial {
// CHECK-NEXT:        %[[G:.*]] = arith.addi %[[L]], %[[START]] : index
// CHECK-NEXT:        %[[IN:.*]] = arith.cmpi ult, %[[G]], %c10 : index
// CHECK-NEXT:        scf.if %[[IN]] {
func.func @compute_at_guarded(%A: tensor<10xf32>) -> tensor<10xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    %a = te.read %A[%i] : tensor<10xf32> -> f32
    te.yield %a : f32
  } {axis_names = ["i"]} : tensor<10xf32>
  %C = te.compute "C" {
  ^bb0(%i: index):
    %b = te.read %B[%i] : tensor<10xf32> -> f32
    te.yield %b : f32
  } {axis_names = ["i"]} : tensor<10xf32>
  te.schedule {
    te.split "C" {axis = "i", factor = 4 : i64, outer = "i.outer", inner = "i.inner"}
    te.compute_at "B" {parent = "C", axis = "i.outer"}
  }
  func.return %C : tensor<10xf32>
}

// -----

// cache_write: the reduction moves to stage C.local (axes i.c, k) in a "local" buffer of the
// tile, computed at C's i.outer; C copies the tile out.
// CHECK-LABEL: func.func @cache_write_tile(%A: memref<8x4xf32>, %C: memref<8xf32>) {
// CHECK:         tir.for %i_outer = %c0 to %c2 serial {
// CHECK-NEXT:      %[[START:.*]] = arith.muli %i_outer, %c4 : index
// CHECK-NEXT:      %[[LOCAL:.*]] = memref.alloc() : memref<4xf32, "local">
// CHECK-NEXT:      tir.for %i_c = %c0 to %c4 serial {
// CHECK-NEXT:        %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:        memref.store %[[ZERO]], %[[LOCAL]][%i_c] : memref<4xf32, "local">
// CHECK-NEXT:      }
// CHECK-NEXT:      tir.for %k = %c0 to %c4 serial {
// CHECK-NEXT:        tir.for %[[IC:.*]] = %c0 to %c4 serial {
// CHECK-NEXT:          %[[ROW:.*]] = arith.addi %[[IC]], %[[START]] : index
// CHECK-NEXT:          %[[A:.*]] = memref.load %A[%[[ROW]], %k] : memref<8x4xf32>
// CHECK-NEXT:          %[[ACC:.*]] = memref.load %[[LOCAL]][%[[IC]]] : memref<4xf32, "local">
// CHECK-NEXT:          %[[SUM:.*]] = arith.addf %[[ACC]], %[[A]] : f32
// CHECK-NEXT:          memref.store %[[SUM]], %[[LOCAL]][%[[IC]]] : memref<4xf32, "local">
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      tir.for %i_inner = %c0 to %c4 serial {
// CHECK-NEXT:        %[[SCALED:.*]] = arith.muli %i_outer, %c4 : index
// CHECK-NEXT:        %[[I:.*]] = arith.addi %[[SCALED]], %i_inner : index
// CHECK-NEXT:        %[[LI:.*]] = arith.subi %[[I]], %[[START]] : index
// CHECK-NEXT:        %[[V:.*]] = memref.load %[[LOCAL]][%[[LI]]] : memref<4xf32, "local">
// CHECK-NEXT:        memref.store %[[V]], %C[%[[I]]] : memref<8xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      memref.dealloc %[[LOCAL]] : memref<4xf32, "local">
// CHECK-NEXT:    }
func.func @cache_write_tile(%A: tensor<8x4xf32>) -> tensor<8xf32> {
  %C = te.compute "C" {
  ^bb0(%i: index):
    %s = te.reduce "sum" {
    ^bb1(%k: index):
      %a = te.read %A[%i, %k] : tensor<8x4xf32> -> f32
      te.yield %a : f32
    } {extents = array<i64: 4>, axis_names = ["k"]} : f32
    te.yield %s : f32
  } {axis_names = ["i"]} : tensor<8xf32>
  te.schedule {
    %CC = te.cache_write %C {name = "C.local", scope = "local"} : tensor<8xf32>
    te.split "C" {axis = "i", factor = 4 : i64, outer = "i.outer", inner = "i.inner"}
    te.compute_at "C.local" {parent = "C", axis = "i.outer"}
    te.reorder "C.local" {order = ["k", "i.c"]}
  }
  func.return %C : tensor<8xf32>
}

// -----

// Bound inference relaxes a "shared" stage over the thread loops around its attach point
// (TVM's InferBound): A.shared, computed at B's threadIdx.x loop, holds the whole block's 32
// elements from bx * 32, its own threadIdx.x loop sharing out the copy; the "local" copy
// computed there holds the thread's one element only.
// CHECK-LABEL: func.func @shared_relaxed_over_threads
// CHECK:         tir.for %bx = %c0 to %c2 thread_binding "blockIdx.x" {
// CHECK-NEXT:      tir.for %tx = %c0 to %c32 thread_binding "threadIdx.x" {
// CHECK:             %[[START:A_shared_ax0_start]] = arith.muli %bx, %c32 : index
// CHECK-NEXT:        %[[SHARED:.*]] = memref.alloc() : memref<32xf32, "shared">
// CHECK-NEXT:        tir.for %ax0 = %c0 to %c32 thread_binding "threadIdx.x" {
// CHECK-NEXT:          %[[G:.*]] = arith.addi %ax0, %[[START]] : index
// CHECK-NEXT:          %[[A:.*]] = memref.load %A[%[[G]]] : memref<64xf32>
// CHECK-NEXT:          memref.store %[[A]], %[[SHARED]][%ax0] : memref<32xf32, "shared">
// CHECK-NEXT:        }
// CHECK:             %[[OWN:.*]] = arith.addi %{{.*}}, %tx : index
// CHECK-NEXT:        %[[LOCAL:.*]] = memref.alloc() : memref<1xf32, "local">
// CHECK-NEXT:        tir.for %{{.*}} = %c0 to %c1 serial {
// CHECK:               %[[IN:.*]] = arith.subi %{{.*}}, %[[START]] : index
// CHECK-NEXT:          %{{.*}} = memref.load %[[SHARED]][%[[IN]]] : memref<32xf32, "shared">
func.func @shared_relaxed_over_threads(%A: tensor<64xf32>) -> tensor<64xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    %a = te.read %A[%i] : tensor<64xf32> -> f32
    %two = arith.constant 2.0 : f32
    %b = arith.mulf %a, %two : f32
    te.yield %b : f32
  } {axis_names = ["i"]} : tensor<64xf32>
  te.schedule {
    %AA = te.cache_read %A {name = "A.shared", scope = "shared", readers = ["B"]} : tensor<64xf32>
    %AL = te.cache_read %AA {name = "A.shared.local", scope = "local", readers = ["B"]} : tensor<64xf32>
    te.split "B" {axis = "i", factor = 32 : i64, outer = "bx", inner = "tx"}
    te.bind "B" {axis = "bx", thread = "blockIdx.x"}
    te.bind "B" {axis = "tx", thread = "threadIdx.x"}
    te.compute_at "A.shared" {parent = "B", axis = "tx"}
    te.bind "A.shared" {axis = "ax0", thread = "threadIdx.x"}
    te.compute_at "A.shared.local" {parent = "B", axis = "tx"}
  }
  func.return %B : tensor<64xf32>
}

// -----

// cache_read copies A into a "shared" buffer whose row stride storage_align pads from 4 to
// 9 (= 8 * 1 + 1); B reads the copy. pragma annotates loops.
// CHECK-LABEL: func.func @cache_read_aligned(%A: memref<4x4xf32>, %B: memref<4x4xf32>) {
// CHECK:         %[[SHARED:.*]] = memref.alloc() : memref<4x4xf32, strided<[9, 1]>, "shared">
// CHECK-NEXT:    tir.for %ax0 = %c0 to %c4 serial {
// CHECK-NEXT:      tir.for %ax1 = %c0 to %c4 serial {
// CHECK-NEXT:        %[[A:.*]] = memref.load %A[%ax0, %ax1] : memref<4x4xf32>
// CHECK-NEXT:        memref.store %[[A]], %[[SHARED]][%ax0, %ax1] : memref<4x4xf32, strided<[9, 1]>, "shared">
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.for %i = %c0 to %c4 serial {
// CHECK-NEXT:      tir.for %j = %c0 to %c4 serial {
// CHECK-NEXT:        %[[V:.*]] = memref.load %[[SHARED]][%j, %i] : memref<4x4xf32, strided<[9, 1]>, "shared">
// CHECK-NEXT:        memref.store %[[V]], %B[%i, %j] : memref<4x4xf32>
// CHECK-NEXT:      } annotations {pragma_unroll_explicit = 1 : i64}
// CHECK-NEXT:    } annotations {pragma_auto_unroll_max_step = 8 : i64}
// CHECK-NEXT:    memref.dealloc %[[SHARED]] : memref<4x4xf32, strided<[9, 1]>, "shared">
// CHECK-NEXT:    func.return
func.func @cache_read_aligned(%A: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index, %j: index):
    %a = te.read %A[%j, %i] : tensor<4x4xf32> -> f32
    te.yield %a : f32
  } {axis_names = ["i", "j"]} : tensor<4x4xf32>
  te.schedule {
    %AA = te.cache_read %A {name = "A.shared", scope = "shared", readers = ["B"]} : tensor<4x4xf32>
    te.storage_align "A.shared" {axis = "ax0", factor = 8 : i64, offset = 1 : i64}
    te.pragma "B" {axis = "i", key = "auto_unroll_max_step", value = 8 : i64}
    te.pragma "B" {axis = "j", key = "unroll_explicit"}
  }
  func.return %B : tensor<4x4xf32>
}

// -----

// Symbolic extent: %n is read from A's buffer, the split's outer extent is ceildiv(n, 8) and
// the body is guarded by i < n.
// CHECK-LABEL: func.func @symbolic_split(%A: memref<?x4xf32>, %B: memref<?x4xf32>) {
// CHECK:         %n = memref.dim %A, %c0 : memref<?x4xf32>
// CHECK-NEXT:    %[[OUTER:.*]] = arith.ceildivui %n, %c8 : index
// CHECK-NEXT:    tir.for %i_outer = %c0 to %[[OUTER]] serial {
// CHECK-NEXT:      tir.for %i_inner = %c0 to %c8 serial {
// CHECK-NEXT:        tir.for %j = %c0 to %c4 serial {
// CHECK-NEXT:          %[[SCALED:.*]] = arith.muli %i_outer, %c8 : index
// CHECK-NEXT:          %[[I:.*]] = arith.addi %[[SCALED]], %i_inner : index
// CHECK-NEXT:          %[[IN:.*]] = arith.cmpi ult, %[[I]], %n : index
// CHECK-NEXT:          scf.if %[[IN]] {
// CHECK-NEXT:            %[[A:.*]] = memref.load %A[%[[I]], %j] : memref<?x4xf32>
// CHECK-NEXT:            %[[B:.*]] = arith.addf %[[A]], %[[A]] : f32
// CHECK-NEXT:            memref.store %[[B]], %B[%[[I]], %j] : memref<?x4xf32>
func.func @symbolic_split(%A: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %n = te.dim %A, 0 : tensor<?x4xf32>
  %B = te.compute "B" (%n) {
  ^bb0(%i: index, %j: index):
    %a = te.read %A[%i, %j] : tensor<?x4xf32> -> f32
    %b = arith.addf %a, %a : f32
    te.yield %b : f32
  } {axis_names = ["i", "j"]} : tensor<?x4xf32>
  te.schedule {
    te.split "B" {axis = "i", factor = 8 : i64, outer = "i.outer", inner = "i.inner"}
  }
  func.return %B : tensor<?x4xf32>
}

// -----

// Unsigned buffers keep their type; the min's identity 255 cannot be an arith.constant of
// ui8 (signless only), so it is an index constant cast to ui8, and the combiner is minui.
// CHECK-LABEL: func.func @unsigned_min_reduce(%A: memref<4x8xui8>, %B: memref<4xui8>) {
// CHECK:         %c255 = arith.constant 255 : index
// CHECK:         tir.for %i = %c0 to %c4 serial {
// CHECK-NEXT:      %[[INIT:.*]] = arith.index_cast %c255 : index to ui8
// CHECK-NEXT:      memref.store %[[INIT]], %B[%i] : memref<4xui8>
// CHECK-NEXT:      tir.for %k = %c0 to %c8 serial {
// CHECK-NEXT:        %[[A:.*]] = memref.load %A[%i, %k] : memref<4x8xui8>
// CHECK-NEXT:        %[[ACC:.*]] = memref.load %B[%i] : memref<4xui8>
// CHECK-NEXT:        %[[MIN:.*]] = arith.minui %[[ACC]], %[[A]] : ui8
// CHECK-NEXT:        memref.store %[[MIN]], %B[%i] : memref<4xui8>
func.func @unsigned_min_reduce(%A: tensor<4x8xui8>) -> tensor<4xui8> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    %m = te.reduce "min" {
    ^bb0(%k: index):
      %a = te.read %A[%i, %k] : tensor<4x8xui8> -> ui8
      te.yield %a : ui8
    } {extents = array<i64: 8>, axis_names = ["k"]} : ui8
    te.yield %m : ui8
  } {axis_names = ["i"]} : tensor<4xui8>
  func.return %B : tensor<4xui8>
}

// -----

// A call of a kernel passes buffers: tensor operands as read-only buffers, each result as a
// buffer allocated by the caller and passed after the inputs, read back as a tensor; an
// index operand (a symbolic extent) passes as it is. The caller keeps its tensor signature.
// CHECK-LABEL: func.func private @double(%x: memref<4xf32>, %n: index, %y: memref<4xf32>) {
// CHECK-LABEL: func.func @caller
// CHECK-SAME:    (%[[A:.*]]: tensor<4xf32>, %[[N:.*]]: index) -> tensor<4xf32> {
// CHECK-NEXT:    %[[AB:.*]] = bufferization.to_buffer %[[A]] read_only : tensor<4xf32> to memref<4xf32>
// CHECK-NEXT:    %[[OUT:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    func.call @double(%[[AB]], %[[N]], %[[OUT]]) : (memref<4xf32>, index, memref<4xf32>) -> ()
// CHECK-NEXT:    %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict : memref<4xf32> to tensor<4xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<4xf32>
func.func private @double(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %y = te.compute "y" {
  ^bb0(%i: index):
    %a = te.read %x[%i] : tensor<4xf32> -> f32
    %b = arith.addf %a, %a : f32
    te.yield %b : f32
  } {axis_names = ["i"]} : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
func.func @caller(%a: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %r = func.call @double(%a, %n) : (tensor<4xf32>, index) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// An intermediate stage of symbolic extent gets a buffer of dynamic shape, allocated with
// its extent (`memref<?xf32>`, one size operand per `?`).
// CHECK-LABEL: func.func @symbolic_intermediate(%A: memref<?xf32>, %C: memref<?xf32>) {
// CHECK:         %[[N:.*]] = memref.dim %A, %c0 : memref<?xf32>
// CHECK-NEXT:    %B = memref.alloc(%[[N]]) : memref<?xf32>
// CHECK:         memref.store %{{.*}}, %B[%{{.*}}] : memref<?xf32>
// CHECK:         memref.dealloc %B : memref<?xf32>
func.func @symbolic_intermediate(%A: tensor<?xf32>) -> tensor<?xf32> {
  %n = te.dim %A, 0 : tensor<?xf32>
  %B = te.compute "B" (%n) {
  ^bb0(%i: index):
    %a = te.read %A[%i] : tensor<?xf32> -> f32
    %b = arith.addf %a, %a : f32
    te.yield %b : f32
  } {axis_names = ["i"]} : tensor<?xf32>
  %C = te.compute "C" (%n) {
  ^bb0(%i: index):
    %b = te.read %B[%i] : tensor<?xf32> -> f32
    %c = arith.mulf %b, %b : f32
    te.yield %c : f32
  } {axis_names = ["i"]} : tensor<?xf32>
  te.schedule {
    te.split "C" {axis = "i", nparts = 3 : i64, outer = "i.outer", inner = "i.inner"}
  }
  func.return %C : tensor<?xf32>
}

// -----

// A custom reducer (te.comm_reducer): the buffer starts at its identity, and each update is
// its combine region on the stored value and the body's.
// CHECK-LABEL: func.func @custom_reducer
// CHECK:         tir.for %[[I:.*]] = %{{.*}} to %{{.*}} serial {
// CHECK-NEXT:      %[[ID:.*]] = arith.constant -1.000000e+30 : f32
// CHECK-NEXT:      memref.store %[[ID]], %{{.*}}[%[[I]]]
// CHECK-NEXT:      tir.for %[[K:.*]] = %{{.*}} to %{{.*}} serial {
// CHECK-NEXT:        %[[A:.*]] = memref.load %{{.*}}[%[[I]], %[[K]]]
// CHECK-NEXT:        %[[ACC:.*]] = memref.load %{{.*}}[%[[I]]]
// CHECK-NEXT:        %[[M:.*]] = arith.maximumf %[[ACC]], %[[A]] : f32
// CHECK-NEXT:        %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:        %[[R:.*]] = arith.mulf %[[M]], %[[TWO]] : f32
// CHECK-NEXT:        memref.store %[[R]], %{{.*}}[%[[I]]]
func.func @custom_reducer(%A: tensor<6x7xf32>) -> tensor<6xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    %s = te.reduce "twicemax" {
    ^bb1(%k: index):
      %a = te.read %A[%i, %k] : tensor<6x7xf32> -> f32
      te.yield %a : f32
    } combine {
    ^bb2(%x: f32, %y: f32):
      %m = arith.maximumf %x, %y : f32
      %c = arith.constant 2.0 : f32
      %r = arith.mulf %m, %c : f32
      te.yield %r : f32
    } {extents = array<i64: 7>, axis_names = ["k"], identity = -1.0e30 : f32} : f32
    te.yield %s : f32
  } {axis_names = ["i"]} : tensor<6xf32>
  func.return %B : tensor<6xf32>
}

// -----

// A tuple reducer (an argmax): the result accumulates in its buffer, the other value it is
// reduced with in a buffer of the same shape; both start at their identities and each update
// combines both.
// CHECK-LABEL: func.func @argmax
// CHECK:         %[[IDX:.*]] = memref.alloc() : memref<6xi32>
// CHECK-NEXT:    tir.for %[[I:.*]] = %{{.*}} to %{{.*}} serial {
// CHECK-NEXT:      %[[ID0:.*]] = arith.constant -1 : i32
// CHECK-NEXT:      %[[ID1:.*]] = arith.constant -1.000000e+30 : f32
// CHECK-NEXT:      memref.store %[[ID0]], %[[IDX]][%[[I]]]
// CHECK-NEXT:      memref.store %[[ID1]], %[[OUT:.*]][%[[I]]]
// CHECK-NEXT:      tir.for %[[K:.*]] = %{{.*}} to %{{.*}} serial {
// CHECK-NEXT:        %[[A:.*]] = memref.load %{{.*}}[%[[I]], %[[K]]]
// CHECK-NEXT:        %[[C:.*]] = arith.index_cast %[[K]] : index to i32
// CHECK-NEXT:        %[[ACC0:.*]] = memref.load %[[IDX]][%[[I]]]
// CHECK-NEXT:        %[[ACC1:.*]] = memref.load %[[OUT]][%[[I]]]
// CHECK-NEXT:        %[[GE:.*]] = arith.cmpf oge, %[[ACC1]], %[[A]] : f32
// CHECK-NEXT:        %[[S0:.*]] = arith.select %[[GE]], %[[ACC0]], %[[C]] : i32
// CHECK-NEXT:        %[[S1:.*]] = arith.select %[[GE]], %[[ACC1]], %[[A]] : f32
// CHECK-NEXT:        memref.store %[[S0]], %[[IDX]][%[[I]]]
// CHECK-NEXT:        memref.store %[[S1]], %[[OUT]][%[[I]]]
// CHECK:         memref.dealloc %[[IDX]]
func.func @argmax(%A: tensor<6x7xf32>) -> tensor<6xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    %s = te.reduce "argmax" {
    ^bb1(%k: index):
      %a = te.read %A[%i, %k] : tensor<6x7xf32> -> f32
      %c = arith.index_cast %k : index to i32
      te.yield %c, %a : i32, f32
    } combine {
    ^bb2(%x0: i32, %x1: f32, %y0: i32, %y1: f32):
      %ge = arith.cmpf oge, %x1, %y1 : f32
      %r0 = arith.select %ge, %x0, %y0 : i32
      %r1 = arith.select %ge, %x1, %y1 : f32
      te.yield %r0, %r1 : i32, f32
    } {extents = array<i64: 7>, axis_names = ["k"], identity = [-1 : i32, -1.0e30 : f32], component = 1 : i64} : f32
    te.yield %s : f32
  } {axis_names = ["i"]} : tensor<6xf32>
  func.return %B : tensor<6xf32>
}

// -----

// A reduction from an init (TVM's te.sum(..., init=I[i])): the buffer starts at the init
// region's value at the stage's indices instead of the identity.
// CHECK-LABEL: func.func @sum_from_init
// CHECK:         tir.for %[[I:.*]] = %{{.*}} to %{{.*}} serial {
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[INIT:.*]][%[[I]]] : memref<6xf32>
// CHECK-NEXT:      memref.store %[[V]], %[[OUT:.*]][%[[I]]] : memref<6xf32>
// CHECK-NEXT:      tir.for %[[K:.*]] = %{{.*}} to %{{.*}} serial {
// CHECK-NEXT:        %[[A:.*]] = memref.load %{{.*}}[%[[I]], %[[K]]]
// CHECK-NEXT:        %[[ACC:.*]] = memref.load %[[OUT]][%[[I]]]
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[ACC]], %[[A]] : f32
// CHECK-NEXT:        memref.store %[[S]], %[[OUT]][%[[I]]]
func.func @sum_from_init(%A: tensor<6x7xf32>, %I: tensor<6xf32>) -> tensor<6xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    %s = te.reduce "sum" {
    ^bb1(%k: index):
      %a = te.read %A[%i, %k] : tensor<6x7xf32> -> f32
      te.yield %a : f32
    } init {
      %v = te.read %I[%i] : tensor<6xf32> -> f32
      te.yield %v : f32
    } {extents = array<i64: 7>, axis_names = ["k"]} : f32
    te.yield %s : f32
  } {axis_names = ["i"]} : tensor<6xf32>
  func.return %B : tensor<6xf32>
}
