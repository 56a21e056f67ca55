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
