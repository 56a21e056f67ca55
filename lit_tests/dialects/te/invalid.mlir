// te verifier messages.
// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

func.func @rank(%A: tensor<4xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{'te.compute' op has 1 axes for a 2-d result}}
  %B = te.compute "B" {
  ^bb0(%i: index):
    %a = te.read %A[%i] : tensor<4xf32> -> f32
    te.yield %a : f32
  } {axis_names = ["i"]} : tensor<4x4xf32>
  func.return %B : tensor<4x4xf32>
}

// -----

func.func @yield_type(%A: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error@+1 {{'te.compute' op body yields f32, the result element type is i32}}
  %B = te.compute "B" {
  ^bb0(%i: index):
    %a = te.read %A[%i] : tensor<4xf32> -> f32
    te.yield %a : f32
  } {axis_names = ["i"]} : tensor<4xi32>
  func.return %B : tensor<4xi32>
}

// -----

func.func @names(%A: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{'te.compute' op axis names must be unique: ['i', 'i']}}
  %B = te.compute "B" {
  ^bb0(%i: index, %j: index):
    %a = te.read %A[%i, %j] : tensor<4x4xf32> -> f32
    te.yield %a : f32
  } {axis_names = ["i", "i"]} : tensor<4x4xf32>
  func.return %B : tensor<4x4xf32>
}

// -----

func.func @read_rank(%A: tensor<4x4xf32>) -> tensor<4xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    // expected-error@+1 {{'te.read' op reads a 2-d tensor with 1 indices}}
    %a = te.read %A[%i] : tensor<4x4xf32> -> f32
    te.yield %a : f32
  } {axis_names = ["i"]} : tensor<4xf32>
  func.return %B : tensor<4xf32>
}

// -----

func.func @combiner(%A: tensor<4xf32>) -> tensor<1xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    // expected-error@+1 {{'te.reduce' op combiner must be one of sum, max, min, prod (or have combine and identity regions), got 'mean'}}
    %s = te.reduce "mean" {
    ^bb1(%k: index):
      %a = te.read %A[%k] : tensor<4xf32> -> f32
      te.yield %a : f32
    } {extents = array<i64: 4>, axis_names = ["k"]} : f32
    te.yield %s : f32
  } {axis_names = ["i"]} : tensor<1xf32>
  func.return %B : tensor<1xf32>
}

// -----

// A custom reducer (te.comm_reducer) has a combine region and an identity, both of the
// result type.
func.func @custom_without_identity(%A: tensor<4xf32>) -> tensor<1xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    // expected-error@+1 {{'te.reduce' op needs both a combine region and an identity, or neither}}
    %s = te.reduce "mysum" {
    ^bb1(%k: index):
      %a = te.read %A[%k] : tensor<4xf32> -> f32
      te.yield %a : f32
    } combine {
    ^bb2(%x: f32, %y: f32):
      %z = arith.addf %x, %y : f32
      te.yield %z : f32
    } {extents = array<i64: 4>, axis_names = ["k"]} : f32
    te.yield %s : f32
  } {axis_names = ["i"]} : tensor<1xf32>
  func.return %B : tensor<1xf32>
}

// -----

func.func @custom_combine_arguments(%A: tensor<4xf32>) -> tensor<1xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    // expected-error@+1 {{'te.reduce' op combine region takes (f32, f32), got (f32)}}
    %s = te.reduce "mysum" {
    ^bb1(%k: index):
      %a = te.read %A[%k] : tensor<4xf32> -> f32
      te.yield %a : f32
    } combine {
    ^bb2(%x: f32):
      te.yield %x : f32
    } {extents = array<i64: 4>, axis_names = ["k"], identity = 0.0 : f32} : f32
    te.yield %s : f32
  } {axis_names = ["i"]} : tensor<1xf32>
  func.return %B : tensor<1xf32>
}

// -----

func.func @custom_identity_type(%A: tensor<4xf32>) -> tensor<1xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    // expected-error@+1 {{'te.reduce' op identity has type i32, the result is f32}}
    %s = te.reduce "mysum" {
    ^bb1(%k: index):
      %a = te.read %A[%k] : tensor<4xf32> -> f32
      te.yield %a : f32
    } combine {
    ^bb2(%x: f32, %y: f32):
      %z = arith.addf %x, %y : f32
      te.yield %z : f32
    } {extents = array<i64: 4>, axis_names = ["k"], identity = 0 : i32} : f32
    te.yield %s : f32
  } {axis_names = ["i"]} : tensor<1xf32>
  func.return %B : tensor<1xf32>
}

// -----

func.func @tuple_component_out_of_range(%A: tensor<4xf32>) -> tensor<1xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    // expected-error@+1 {{'te.reduce' op component 2 is not one of its 2 values}}
    %s = te.reduce "argmax" {
    ^bb1(%k: index):
      %a = te.read %A[%k] : tensor<4xf32> -> f32
      %c = arith.index_cast %k : index to i32
      te.yield %c, %a : i32, f32
    } combine {
    ^bb2(%x0: i32, %x1: f32, %y0: i32, %y1: f32):
      te.yield %x0, %x1 : i32, f32
    } {extents = array<i64: 4>, axis_names = ["k"], identity = [-1 : i32, 0.0 : f32], component = 2 : i64} : f32
    te.yield %s : f32
  } {axis_names = ["i"]} : tensor<1xf32>
  func.return %B : tensor<1xf32>
}

// -----

func.func @tuple_combine_arguments(%A: tensor<4xf32>) -> tensor<1xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    // expected-error@+1 {{'te.reduce' op combine region takes (i32, f32, i32, f32), got (i32, f32)}}
    %s = te.reduce "argmax" {
    ^bb1(%k: index):
      %a = te.read %A[%k] : tensor<4xf32> -> f32
      %c = arith.index_cast %k : index to i32
      te.yield %c, %a : i32, f32
    } combine {
    ^bb2(%x0: i32, %x1: f32):
      te.yield %x0, %x1 : i32, f32
    } {extents = array<i64: 4>, axis_names = ["k"], identity = [-1 : i32, 0.0 : f32], component = 1 : i64} : f32
    te.yield %s : f32
  } {axis_names = ["i"]} : tensor<1xf32>
  func.return %B : tensor<1xf32>
}

// -----

func.func @tuple_body_yields(%A: tensor<4xf32>) -> tensor<1xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    // expected-error@+1 {{'te.reduce' op body must end with a te.yield of 2 values}}
    %s = te.reduce "argmax" {
    ^bb1(%k: index):
      %a = te.read %A[%k] : tensor<4xf32> -> f32
      te.yield %a : f32
    } combine {
    ^bb2(%x0: i32, %x1: f32, %y0: i32, %y1: f32):
      te.yield %x0, %x1 : i32, f32
    } {extents = array<i64: 4>, axis_names = ["k"], identity = [-1 : i32, 0.0 : f32], component = 1 : i64} : f32
    te.yield %s : f32
  } {axis_names = ["i"]} : tensor<1xf32>
  func.return %B : tensor<1xf32>
}

// -----

func.func @init_type(%A: tensor<4xf32>) -> tensor<1xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    // expected-error@+1 {{'te.reduce' op init region must take no arguments and yield one f32 (a reduction of one value)}}
    %s = te.reduce "sum" {
    ^bb1(%k: index):
      %a = te.read %A[%k] : tensor<4xf32> -> f32
      te.yield %a : f32
    } init {
      %c = arith.constant 1 : i32
      te.yield %c : i32
    } {extents = array<i64: 4>, axis_names = ["k"]} : f32
    te.yield %s : f32
  } {axis_names = ["i"]} : tensor<1xf32>
  func.return %B : tensor<1xf32>
}

// -----

func.func @split_twice_given() {
  te.schedule {
    // expected-error@+1 {{'te.split' op needs exactly one of factor and nparts}}
    te.split "C" {axis = "i", factor = 2 : i64, nparts = 2 : i64, outer = "o", inner = "n"}
  }
  func.return
}

// -----

func.func @bind_tag() {
  te.schedule {
    // expected-error@+1 {{'te.bind' op thread must be one of blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z, vthread, got 'warp.x'}}
    te.bind "C" {axis = "i", thread = "warp.x"}
  }
  func.return
}

// -----

func.func @sizes(%A: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error@+1 {{'te.compute' op has 0 size operands for the 1 dynamic dimensions of tensor<?x4xf32>}}
  %B = te.compute "B" {
  ^bb0(%i: index, %j: index):
    %a = te.read %A[%i, %j] : tensor<?x4xf32> -> f32
    te.yield %a : f32
  } {axis_names = ["i", "j"]} : tensor<?x4xf32>
  func.return %B : tensor<?x4xf32>
}

// -----

func.func @reduce_sizes(%A: tensor<4x4xf32>, %m: index) -> tensor<4xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    // expected-error@+1 {{'te.reduce' op has 1 size operands for 0 dynamic extents}}
    %s = te.reduce "sum" (%m) {
    ^bb1(%k: index):
      %a = te.read %A[%i, %k] : tensor<4x4xf32> -> f32
      te.yield %a : f32
    } {extents = array<i64: 4>, axis_names = ["k"]} : f32
    te.yield %s : f32
  } {axis_names = ["i"]} : tensor<4xf32>
  func.return %B : tensor<4xf32>
}

// -----

func.func @dim_range(%A: tensor<?x4xf32>) -> index {
  // expected-error@+1 {{'te.dim' op dimension 2 is out of range for 2-d tensor<?x4xf32>}}
  %n = te.dim %A, 2 : tensor<?x4xf32>
  func.return %n : index
}

// -----

func.func @unknown_scope(%A: tensor<4xf32>) {
  te.schedule {
    // expected-error@+1 {{'te.cache_read' op scope 'sram' is not a known storage scope (global, local, shared, warp); a target declares its own with te.register_memory_scope}}
    %AA = te.cache_read %A {name = "A.sram", scope = "sram", readers = ["B"]} : tensor<4xf32>
  }
  func.return
}

// -----

func.func @no_readers(%A: tensor<4xf32>) {
  te.schedule {
    // expected-error@+1 {{'te.cache_read' op needs at least one reader}}
    %AA = te.cache_read %A {name = "A.shared", scope = "shared", readers = []} : tensor<4xf32>
  }
  func.return
}

// -----

func.func @cache_write_scope(%C: tensor<4xf32>) {
  te.schedule {
    // expected-error@+1 {{'te.cache_write' op scope 'registers' is not a known storage scope}}
    %CC = te.cache_write %C {name = "C.registers", scope = "registers"} : tensor<4xf32>
  }
  func.return
}

// -----

func.func @align() {
  te.schedule {
    // expected-error@+1 {{'te.storage_align' op needs factor >= 1 and 0 <= offset < factor, got factor 8, offset 8}}
    te.storage_align "A.shared" {axis = "ax0", factor = 8 : i64, offset = 8 : i64}
  }
  func.return
}
