// "tiny": an out-of-tree f32 accelerator, shipped by the tiny_accel plugin package. A 4x4x4
// matmul core accumulating in its own memory, a 4-wide relu, DMA in and out.
accel.target @tiny header "tiny_sim.h" {
  accel.memory "tiny_spad" size 16384 align 16 : f32
  accel.memory "tiny_acc" size 4096 align 16 : f32
  accel.dma "tiny_load" load "tiny_spad"
  accel.dma "tiny_store" store "tiny_acc"

  // C[i, j] += sum_k A[i, k] * B[k, j]
  accel.intrin "tiny_matmul_4x4x4" ins(%a : tensor<4x4xf32> in "tiny_spad", %b : tensor<4x4xf32> in "tiny_spad") outs("tiny_acc") body "tiny_matmul" reset "tiny_zero" update "tiny_matmul_acc" {
    %c = te.compute "C" {
    ^bb0(%i: index, %j: index):
      %s = te.reduce "sum" {
      ^bb0(%k: index):
        %x = te.read %a[%i, %k] : tensor<4x4xf32> -> f32
        %y = te.read %b[%k, %j] : tensor<4x4xf32> -> f32
        %p = arith.mulf %x, %y : f32
        te.yield %p : f32
      } {axis_names = ["k"], extents = array<i64: 4>} : f32
      te.yield %s : f32
    } {axis_names = ["i", "j"]} : tensor<4x4xf32>
    accel.yield %c : tensor<4x4xf32>
  }
}
