// The generic form of the tir ops; read back, it prints in the custom form again.
// RUN: xtvm-opt %s --print-generic | filecheck %s
// RUN: xtvm-opt %s --print-generic | xtvm-opt | filecheck %s --check-prefix=CUSTOM

// CHECK-LABEL: "func.func"
// CHECK:         "tir.for"(%{{.*}}, %{{.*}}) <{kind = "thread_binding", thread = "threadIdx.x"}> ({
// CHECK-NEXT:    ^{{.*}}(%[[I:.*]]: index):
// CHECK-NEXT:      %[[X:.*]] = "memref.load"(%{{.*}}, %[[I]])
// CHECK-NEXT:      %[[Y:.*]] = "tir.call_extern"(%[[X]]) <{callee = "tanhf"}> : (f32) -> f32
// CHECK-NEXT:      "memref.store"(%[[Y]], %{{.*}}, %[[I]])
// CHECK-NEXT:      "tir.yield"() : () -> ()
// CHECK-NEXT:    }) : (index, index) -> ()

// CUSTOM-LABEL: func.func @tanh
// CUSTOM:         tir.for %i = %c0 to %c8 thread_binding "threadIdx.x" {
// CUSTOM-NEXT:      %x = memref.load
// CUSTOM-NEXT:      %y = tir.call_extern "tanhf"(%x) : (f32) -> f32
"builtin.module"() ({
  "func.func"() <{sym_name = "tanh", function_type = (memref<8xf32>) -> ()}> ({
  ^bb0(%A: memref<8xf32>):
    %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
    %c8 = "arith.constant"() <{value = 8 : index}> : () -> index
    "tir.for"(%c0, %c8) <{kind = "thread_binding", thread = "threadIdx.x"}> ({
    ^bb0(%i: index):
      %x = "memref.load"(%A, %i) : (memref<8xf32>, index) -> f32
      %y = "tir.call_extern"(%x) <{callee = "tanhf"}> : (f32) -> f32
      "memref.store"(%y, %A, %i) : (f32, memref<8xf32>, index) -> ()
      "tir.yield"() : () -> ()
    }) : (index, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// tir.thread_index and tir.launch (operand segments: arguments, blocks, threads).
// CHECK-LABEL: "func.func"() <{sym_name = "launch_host"
// CHECK:         "tir.launch"(%{{.*}}, %{{.*}}, %{{.*}}) <{kernel = @launch_kernel, operandSegmentSizes = array<i32: 1, 1, 1>}> : (memref<8xf32>, index, index) -> ()
// CUSTOM-LABEL: func.func @launch_kernel
// CUSTOM-NEXT:    %tx = tir.thread_index "threadIdx.x"
// CUSTOM-LABEL: func.func @launch_host
// CUSTOM:         tir.launch @launch_kernel(%A) blocks(%c1) threads(%c8) : memref<8xf32>
"builtin.module"() ({
  "func.func"() <{sym_name = "launch_kernel", function_type = (memref<8xf32>) -> ()}> ({
  ^bb0(%A: memref<8xf32>):
    %tx = "tir.thread_index"() <{thread = "threadIdx.x"}> : () -> index
    %x = "memref.load"(%A, %tx) : (memref<8xf32>, index) -> f32
    "memref.store"(%x, %A, %tx) : (f32, memref<8xf32>, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{sym_name = "launch_host", function_type = (memref<8xf32>) -> ()}> ({
  ^bb0(%A: memref<8xf32>):
    %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
    %c8 = "arith.constant"() <{value = 8 : index}> : () -> index
    "tir.launch"(%A, %c1, %c8) <{kernel = @launch_kernel, operandSegmentSizes = array<i32: 1, 1, 1>}> : (memref<8xf32>, index, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
