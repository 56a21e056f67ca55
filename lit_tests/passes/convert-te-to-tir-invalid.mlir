// Invalid schedules are located errors at the primitive.
// RUN: xtvm-opt %s -p convert-te-to-tir --split-input-file --verify-diagnostics

func.func @split_twice(%A: tensor<8xf32>) -> tensor<8xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    %a = te.read %A[%i] : tensor<8xf32> -> f32
    te.yield %a : f32
  } {axis_names = ["i"]} : tensor<8xf32>
  te.schedule {
    te.split "B" {axis = "i", factor = 2 : i64, outer = "i.outer", inner = "i.inner"}
    // expected-error@+1 {{axis 'i' of stage 'B' was already split or fused}}
    te.split "B" {axis = "i", factor = 4 : i64, outer = "i.o", inner = "i.i"}
  }
  func.return %B : tensor<8xf32>
}

// -----

func.func @unknown_stage(%A: tensor<8xf32>) -> tensor<8xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    %a = te.read %A[%i] : tensor<8xf32> -> f32
    te.yield %a : f32
  } {axis_names = ["i"]} : tensor<8xf32>
  te.schedule {
    // expected-error@+1 {{no stage named 'C' (stages: B)}}
    te.parallel "C" {axis = "i"}
  }
  func.return %B : tensor<8xf32>
}

// -----

func.func @unknown_axis(%A: tensor<8xf32>) -> tensor<8xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    %a = te.read %A[%i] : tensor<8xf32> -> f32
    te.yield %a : f32
  } {axis_names = ["i"]} : tensor<8xf32>
  te.schedule {
    // expected-error@+1 {{stage 'B' has no axis 'j' (its loops: i)}}
    te.vectorize "B" {axis = "j"}
  }
  func.return %B : tensor<8xf32>
}

// -----

func.func @fuse_not_adjacent(%A: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index, %j: index, %k: index):
    %a = te.read %A[%i, %j, %k] : tensor<2x3x4xf32> -> f32
    te.yield %a : f32
  } {axis_names = ["i", "j", "k"]} : tensor<2x3x4xf32>
  te.schedule {
    // expected-error@+1 {{fuse needs at least two adjacent axes, outermost first; loops are i, j, k}}
    te.fuse "B" {axes = ["i", "k"], fused = "ik"}
  }
  func.return %B : tensor<2x3x4xf32>
}

// -----

func.func @inline_reduction(%A: tensor<4x4xf32>) -> tensor<4xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    %s = te.reduce "sum" {
    ^bb0(%k: index):
      %a = te.read %A[%i, %k] : tensor<4x4xf32> -> f32
      te.yield %a : f32
    } {extents = array<i64: 4>, axis_names = ["k"]} : f32
    te.yield %s : f32
  } {axis_names = ["i"]} : tensor<4xf32>
  te.schedule {
    // expected-error@+1 {{cannot inline stage 'B': it is a reduction}}
    te.compute_inline "B"
  }
  func.return %B : tensor<4xf32>
}

// -----

func.func @compute_at_non_consumer(%A: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %B = te.compute "B" {
  ^bb0(%i: index):
    %a = te.read %A[%i] : tensor<8xf32> -> f32
    te.yield %a : f32
  } {axis_names = ["i"]} : tensor<8xf32>
  %C = te.compute "C" {
  ^bb0(%i: index):
    %a = te.read %A[%i] : tensor<8xf32> -> f32
    te.yield %a : f32
  } {axis_names = ["i"]} : tensor<8xf32>
  te.schedule {
    // expected-error@+1 {{stage 'C' does not read stage 'B': compute_at needs a consumer}}
    te.compute_at "B" {parent = "C", axis = "i"}
  }
  func.return %B, %C : tensor<8xf32>, tensor<8xf32>
}

// -----

func.func @compute_at_split_axis(%A: tensor<8xf32>) -> tensor<8xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    %a = te.read %A[%i] : tensor<8xf32> -> f32
    te.yield %a : f32
  } {axis_names = ["i"]} : tensor<8xf32>
  %C = te.compute "C" {
  ^bb0(%i: index):
    %b = te.read %B[%i] : tensor<8xf32> -> f32
    te.yield %b : f32
  } {axis_names = ["i"]} : tensor<8xf32>
  te.schedule {
    te.split "C" {axis = "i", factor = 2 : i64, outer = "i.outer", inner = "i.inner"}
    // expected-error@+1 {{axis 'i' of stage 'C' was already split or fused}}
    te.compute_at "B" {parent = "C", axis = "i"}
  }
  func.return %C : tensor<8xf32>
}

// -----

func.func @compute_at_then_split(%A: tensor<8xf32>) -> tensor<8xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    %a = te.read %A[%i] : tensor<8xf32> -> f32
    te.yield %a : f32
  } {axis_names = ["i"]} : tensor<8xf32>
  %C = te.compute "C" {
  ^bb0(%i: index):
    %b = te.read %B[%i] : tensor<8xf32> -> f32
    te.yield %b : f32
  } {axis_names = ["i"]} : tensor<8xf32>
  te.schedule {
    // expected-error@+1 {{axis 'i' of stage 'C' is no longer a loop: it was split or fused after this compute_at}}
    te.compute_at "B" {parent = "C", axis = "i"}
    te.split "C" {axis = "i", factor = 2 : i64, outer = "i.outer", inner = "i.inner"}
  }
  func.return %C : tensor<8xf32>
}

// -----

func.func @compute_at_shared_producer(%A: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %B = te.compute "B" {
  ^bb0(%i: index):
    %a = te.read %A[%i] : tensor<8xf32> -> f32
    te.yield %a : f32
  } {axis_names = ["i"]} : tensor<8xf32>
  %C = te.compute "C" {
  ^bb0(%i: index):
    %b = te.read %B[%i] : tensor<8xf32> -> f32
    te.yield %b : f32
  } {axis_names = ["i"]} : tensor<8xf32>
  %D = te.compute "D" {
  ^bb0(%i: index):
    %b = te.read %B[%i] : tensor<8xf32> -> f32
    te.yield %b : f32
  } {axis_names = ["i"]} : tensor<8xf32>
  te.schedule {
    // expected-error@+1 {{stage 'B' is also read by D: compute_at needs 'C' to be its only reader}}
    te.compute_at "B" {parent = "C", axis = "i"}
  }
  func.return %C, %D : tensor<8xf32>, tensor<8xf32>
}

// -----

func.func @bind_thread_twice(%A: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index, %j: index):
    %a = te.read %A[%i, %j] : tensor<4x8xf32> -> f32
    te.yield %a : f32
  } {axis_names = ["i", "j"]} : tensor<4x8xf32>
  te.schedule {
    te.bind "B" {axis = "i", thread = "threadIdx.x"}
    // expected-error@+1 {{thread 'threadIdx.x' is already bound to axis 'i' of stage 'B'}}
    te.bind "B" {axis = "j", thread = "threadIdx.x"}
  }
  func.return %B : tensor<4x8xf32>
}

// -----

func.func @cache_read_non_reader(%A: tensor<8xf32>, %X: tensor<8xf32>) -> tensor<8xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    %a = te.read %A[%i] : tensor<8xf32> -> f32
    te.yield %a : f32
  } {axis_names = ["i"]} : tensor<8xf32>
  te.schedule {
    // expected-error@+1 {{stage 'B' does not read the tensor cache_read caches}}
    %XX = te.cache_read %X {name = "X.shared", scope = "shared", readers = ["B"]} : tensor<8xf32>
  }
  func.return %B : tensor<8xf32>
}

// -----

func.func @cache_write_late(%A: tensor<8xf32>) -> tensor<8xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    %a = te.read %A[%i] : tensor<8xf32> -> f32
    te.yield %a : f32
  } {axis_names = ["i"]} : tensor<8xf32>
  te.schedule {
    te.split "B" {axis = "i", factor = 2 : i64, outer = "i.outer", inner = "i.inner"}
    // expected-error@+1 {{cache_write of stage 'B' must come before its other primitives}}
    %BB = te.cache_write %B {name = "B.local", scope = "local"} : tensor<8xf32>
  }
  func.return %B : tensor<8xf32>
}

// -----

func.func @cache_write_argument(%A: tensor<8xf32>) -> tensor<8xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    %a = te.read %A[%i] : tensor<8xf32> -> f32
    te.yield %a : f32
  } {axis_names = ["i"]} : tensor<8xf32>
  te.schedule {
    // expected-error@+1 {{cache_write needs a tensor that a te.compute defines}}
    %AA = te.cache_write %A {name = "A.local", scope = "local"} : tensor<8xf32>
  }
  func.return %B : tensor<8xf32>
}

// -----

func.func @align_reduce_axis(%A: tensor<4x4xf32>) -> tensor<4xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    %s = te.reduce "sum" {
    ^bb0(%k: index):
      %a = te.read %A[%i, %k] : tensor<4x4xf32> -> f32
      te.yield %a : f32
    } {extents = array<i64: 4>, axis_names = ["k"]} : f32
    te.yield %s : f32
  } {axis_names = ["i"]} : tensor<4xf32>
  te.schedule {
    // expected-error@+1 {{storage_align needs a data-parallel root axis of stage 'B' (i), got 'k'}}
    te.storage_align "B" {axis = "k", factor = 8 : i64, offset = 1 : i64}
  }
  func.return %B : tensor<4xf32>
}

// -----

func.func @align_output(%A: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index, %j: index):
    %a = te.read %A[%i, %j] : tensor<4x4xf32> -> f32
    te.yield %a : f32
  } {axis_names = ["i", "j"]} : tensor<4x4xf32>
  te.schedule {
    // expected-error@+1 {{stage 'B' is an output: its buffer is an argument}}
    te.storage_align "B" {axis = "i", factor = 8 : i64, offset = 1 : i64}
  }
  func.return %B : tensor<4x4xf32>
}

// -----

// A caller cannot allocate a result whose size only the kernel knows.
func.func private @copy(%A: tensor<?xf32>) -> tensor<?xf32> {
  %n = te.dim %A, 0 : tensor<?xf32>
  %B = te.compute "B" (%n) {
  ^bb0(%i: index):
    %a = te.read %A[%i] : tensor<?xf32> -> f32
    te.yield %a : f32
  } {axis_names = ["i"]} : tensor<?xf32>
  func.return %B : tensor<?xf32>
}
func.func @dynamic_result(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error@+1 {{cannot allocate the result of @copy for its caller: tensor<?xf32> has a dynamic shape}}
  %y = func.call @copy(%x) : (tensor<?xf32>) -> tensor<?xf32>
  func.return %y : tensor<?xf32>
}
