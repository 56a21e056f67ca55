// accel verifier and parser messages, each at the op that is wrong.
// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

accel.target @dup {
  accel.memory "spad" size 1024 align 16 : i8
  // expected-error@+1 {{'accel.memory' op redefines memory 'spad' of target @dup}}
  accel.memory "spad" size 2048 align 16 : i8
}

// -----

accel.target @unknown_dma_scope {
  accel.memory "spad" size 1024 align 16 : i8
  // expected-error@+1 {{'accel.dma' op moves data of unknown memory 'acc' of target @unknown_dma_scope (memories: spad)}}
  accel.dma "load_acc" load "acc"
}

// -----

accel.target @direction {
  accel.memory "spad" size 1024 align 16 : i8
  // expected-error@+1 {{'accel.dma' op direction must be one of load, store, got 'sideways'}}
  accel.dma "move" sideways "spad"
}

// -----

accel.target @two_loads {
  accel.memory "spad" size 1024 align 16 : i8
  accel.dma "load_a" load "spad"
  // expected-error@+1 {{'accel.dma' op: memory 'spad' already has a load DMA ('load_a')}}
  accel.dma "load_b" load "spad"
}

// -----

accel.target @align {
  // expected-error@+1 {{'accel.memory' op align must be a power of two, got 12}}
  accel.memory "spad" size 1024 align 12 : i8
}

// -----

accel.target @partial_element {
  // expected-error@+1 {{'accel.memory' op size 1022 is not a whole number of i32 elements}}
  accel.memory "acc" size 1022 align 16 : i32
}

// -----

accel.target @builtin_scope {
  // expected-error@+1 {{'accel.memory' op name 'shared' is one of TVM's built-in scopes}}
  accel.memory "shared" size 1024 align 16 : f32
}

// -----

accel.target @intrin_scope {
  accel.memory "spad" size 1024 align 16 : f32
  // expected-error@+1 {{'accel.intrin' op intrinsic 'neg': operand 0 lives in unknown memory 'vec' of target @intrin_scope (memories: spad)}}
  accel.intrin "neg" ins(%a : tensor<4xf32> in "vec") outs("spad") body "neg4" {
    %c = te.compute "C" {
    ^bb0(%i: index):
      %x = te.read %a[%i] : tensor<4xf32> -> f32
      %y = arith.negf %x : f32
      te.yield %y : f32
    } {axis_names = ["i"]} : tensor<4xf32>
    accel.yield %c : tensor<4xf32>
  }
}

// -----

accel.target @element_type {
  accel.memory "spad" size 1024 align 16 : i8
  // expected-error@+1 {{'accel.intrin' op intrinsic 'neg': operand 0 of type tensor<4xf32> does not match memory 'spad' of i8}}
  accel.intrin "neg" ins(%a : tensor<4xf32> in "spad") outs("spad") body "neg4" {
    %c = te.compute "C" {
    ^bb0(%i: index):
      %x = te.read %a[%i] : tensor<4xf32> -> f32
      %y = arith.negf %x : f32
      te.yield %y : f32
    } {axis_names = ["i"]} : tensor<4xf32>
    accel.yield %c : tensor<4xf32>
  }
}

// -----

accel.target @too_big {
  accel.memory "spad" size 64 align 16 : f32
  // expected-error@+1 {{'accel.intrin' op intrinsic 'neg': operand 0 of 128 bytes does not fit memory 'spad' of 64 bytes}}
  accel.intrin "neg" ins(%a : tensor<32xf32> in "spad") outs("spad") body "neg32" {
    %c = te.compute "C" {
    ^bb0(%i: index):
      %x = te.read %a[%i] : tensor<32xf32> -> f32
      %y = arith.negf %x : f32
      te.yield %y : f32
    } {axis_names = ["i"]} : tensor<32xf32>
    accel.yield %c : tensor<32xf32>
  }
}

// -----

accel.target @reduction_without_reset {
  accel.memory "spad" size 1024 align 16 : f32
  // expected-error@+1 {{'accel.intrin' op intrinsic 'sum4' is a reduction: it needs reset and update functions}}
  accel.intrin "sum4" ins(%a : tensor<4x4xf32> in "spad") outs("spad") body "sum4" {
    %c = te.compute "C" {
    ^bb0(%i: index):
      %s = te.reduce "sum" {
      ^bb0(%k: index):
        %x = te.read %a[%i, %k] : tensor<4x4xf32> -> f32
        te.yield %x : f32
      } {axis_names = ["k"], extents = array<i64: 4>} : f32
      te.yield %s : f32
    } {axis_names = ["i"]} : tensor<4xf32>
    accel.yield %c : tensor<4xf32>
  }
}

// -----

accel.target @elementwise_with_reset {
  accel.memory "spad" size 1024 align 16 : f32
  // expected-error@+1 {{'accel.intrin' op intrinsic 'neg' is no reduction: it takes no reset or update function}}
  accel.intrin "neg" ins(%a : tensor<4xf32> in "spad") outs("spad") body "neg4" reset "zero4" update "neg4_acc" {
    %c = te.compute "C" {
    ^bb0(%i: index):
      %x = te.read %a[%i] : tensor<4xf32> -> f32
      %y = arith.negf %x : f32
      te.yield %y : f32
    } {axis_names = ["i"]} : tensor<4xf32>
    accel.yield %c : tensor<4xf32>
  }
}

// -----

accel.target @result_scopes {
  accel.memory "spad" size 1024 align 16 : f32
  // expected-error@+1 {{'accel.intrin' op intrinsic 'neg' yields 1 tensors but names 2 result scopes}}
  accel.intrin "neg" ins(%a : tensor<4xf32> in "spad") outs("spad", "spad") body "neg4" {
    %c = te.compute "C" {
    ^bb0(%i: index):
      %x = te.read %a[%i] : tensor<4xf32> -> f32
      %y = arith.negf %x : f32
      te.yield %y : f32
    } {axis_names = ["i"]} : tensor<4xf32>
    accel.yield %c : tensor<4xf32>
  }
}

// -----

accel.target @duplicate_intrinsic {
  accel.memory "spad" size 1024 align 16 : f32
  accel.intrin "copy" ins(%a : tensor<4xf32> in "spad") outs("spad") body "copy4" {
    %c = te.compute "C" {
    ^bb0(%i: index):
      %x = te.read %a[%i] : tensor<4xf32> -> f32
      te.yield %x : f32
    } {axis_names = ["i"]} : tensor<4xf32>
    accel.yield %c : tensor<4xf32>
  }
  // expected-error@+1 {{'accel.intrin' op redefines intrinsic 'copy' of target @duplicate_intrinsic}}
  accel.intrin "copy" ins(%a : tensor<4xf32> in "spad") outs("spad") body "copy4b" {
    %c = te.compute "C" {
    ^bb0(%i: index):
      %x = te.read %a[%i] : tensor<4xf32> -> f32
      te.yield %x : f32
    } {axis_names = ["i"]} : tensor<4xf32>
    accel.yield %c : tensor<4xf32>
  }
}

// -----

// expected-error@+1 {{expects parent op 'accel.target'}}
accel.memory "stray" size 1024 align 16 : f32

// -----

// expected-error@+1 {{'accel.target' op holds accel.memory, accel.dma and accel.intrin ops only, got 'arith.constant'}}
accel.target @stranger {
  %c = arith.constant 0 : i32
}
