// A VTA-like accelerator: three scratchpads, DMA in and out, an 8x8x8 int8 GEMM core with an
// int32 accumulator, and an element-wise ALU (add) on the accumulator.
// `xtvm.target.load("vta.mlir")` registers it; vta_sim.c implements its functions.
accel.target @vta header "vta_sim.h" {
  accel.memory "inp" size 32768 align 16 : i8
  accel.memory "wgt" size 262144 align 64 : i8
  accel.memory "acc" size 131072 align 64 : i32
  accel.dma "vta_load_inp" load "inp"
  accel.dma "vta_load_wgt" load "wgt"
  accel.dma "vta_load_acc" load "acc"
  accel.dma "vta_store_acc" store "acc"

  // C[i, j] += sum_k A[i, k] * B[j, k]: weights are stored output-channel major, as in VTA.
  accel.intrin "vta_gemm_8x8x8" ins(%a : tensor<8x8xi8> in "inp", %b : tensor<8x8xi8> in "wgt") outs("acc") body "vta_gemm" reset "vta_gemm_reset" update "vta_gemm_update" {
    %c = te.compute "C" {
    ^bb0(%i: index, %j: index):
      %s = te.reduce "sum" {
      ^bb0(%k: index):
        %x = te.read %a[%i, %k] : tensor<8x8xi8> -> i8
        %y = te.read %b[%j, %k] : tensor<8x8xi8> -> i8
        %x32 = arith.extsi %x : i8 to i32
        %y32 = arith.extsi %y : i8 to i32
        %p = arith.muli %x32, %y32 : i32
        te.yield %p : i32
      } {axis_names = ["k"], extents = array<i64: 8>} : i32
      te.yield %s : i32
    } {axis_names = ["i", "j"]} : tensor<8x8xi32>
    accel.yield %c : tensor<8x8xi32>
  }

  // The ALU: x + y on 1x8 accumulator vectors (bias, residual adds).
  accel.intrin "vta_alu_add_1x8" ins(%x : tensor<1x8xi32> in "acc", %y : tensor<1x8xi32> in "acc") outs("acc") body "vta_alu_add" {
    %r = te.compute "R" {
    ^bb0(%i: index, %j: index):
      %u = te.read %x[%i, %j] : tensor<1x8xi32> -> i32
      %v = te.read %y[%i, %j] : tensor<1x8xi32> -> i32
      %w = arith.addi %u, %v : i32
      te.yield %w : i32
    } {axis_names = ["i", "j"]} : tensor<1x8xi32>
    accel.yield %r : tensor<1x8xi32>
  }
}
