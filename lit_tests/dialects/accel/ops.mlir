// Custom syntax of the accel ops: a target with memories, DMA functions, a reduction intrinsic
// (body, reset, update) and an element-wise one. Printed, read back and printed again gives
// the same text.
// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s | xtvm-opt | filecheck %s

// CHECK-LABEL: accel.target @tiny header "tiny.h" {
// CHECK-NEXT:    accel.memory "spad" size 4096 align 16 : f32
// CHECK-NEXT:    accel.memory "accum" size 1024 align 64 : f32 attributes {banks = 2 : i64}
// CHECK-NEXT:    accel.dma "tiny_load" load "spad"
// CHECK-NEXT:    accel.dma "tiny_store" store "accum"
// CHECK-NEXT:    accel.intrin "dot4" ins(%[[A:.*]] : tensor<4x4xf32> in "spad", %[[B:.*]] : tensor<4x4xf32> in "spad") outs("accum") body "tiny_dot" reset "tiny_zero" update "tiny_dot_acc" {
// CHECK-NEXT:      %[[C:.*]] = te.compute "C" {
// CHECK-NEXT:      ^{{.*}}(%[[I:.*]]: index, %[[J:.*]]: index):
// CHECK-NEXT:        %[[S:.*]] = te.reduce "sum" {
// CHECK-NEXT:        ^{{.*}}(%[[K:.*]]: index):
// CHECK-NEXT:          %[[X:.*]] = te.read %[[A]][%[[I]], %[[K]]] : tensor<4x4xf32> -> f32
// CHECK-NEXT:          %[[Y:.*]] = te.read %[[B]][%[[K]], %[[J]]] : tensor<4x4xf32> -> f32
// CHECK-NEXT:          %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:          te.yield %[[P]] : f32
// CHECK-NEXT:        } {axis_names = ["k"], extents = array<i64: 4>} : f32
// CHECK-NEXT:        te.yield %[[S]] : f32
// CHECK-NEXT:      } {axis_names = ["i", "j"]} : tensor<4x4xf32>
// CHECK-NEXT:      accel.yield %[[C]] : tensor<4x4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    accel.intrin "relu4" ins(%{{.*}} : tensor<4xf32> in "accum") outs("accum") body "tiny_relu" attributes {latency = 2 : i64} {
// CHECK:           accel.yield %{{.*}} : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
accel.target @tiny header "tiny.h" {
  accel.memory "spad" size 4096 align 16 : f32
  accel.memory "accum" size 1024 align 64 : f32 attributes {banks = 2}
  accel.dma "tiny_load" load "spad"
  accel.dma "tiny_store" store "accum"
  accel.intrin "dot4" ins(%a : tensor<4x4xf32> in "spad", %b : tensor<4x4xf32> in "spad") outs("accum") body "tiny_dot" reset "tiny_zero" update "tiny_dot_acc" {
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
  accel.intrin "relu4" ins(%v : tensor<4xf32> in "accum") outs("accum") body "tiny_relu" attributes {latency = 2} {
    %r = te.compute "R" {
    ^bb0(%i: index):
      %x = te.read %v[%i] : tensor<4xf32> -> f32
      %zero = arith.constant 0.0 : f32
      %m = arith.maximumf %x, %zero : f32
      te.yield %m : f32
    } {axis_names = ["i"]} : tensor<4xf32>
    accel.yield %r : tensor<4xf32>
  }
}

// A target without a header or anything in it is still a target.
// CHECK-LABEL: accel.target @empty {
// CHECK-NEXT:  }
accel.target @empty {
}
