// The generic form of the accel ops; read back, it prints in the custom form again.
// RUN: xtvm-opt %s --print-generic | filecheck %s
// RUN: xtvm-opt %s --print-generic | xtvm-opt | filecheck %s --check-prefix=CUSTOM
// RUN: xtvm-opt %s --print-generic | xtvm-opt --print-generic | filecheck %s

// CHECK-LABEL: "accel.target"() <{sym_name = "tiny", header = "tiny.h"}> ({
// CHECK-NEXT:    "accel.memory"() <{name = "spad", size = 4096 : i64, align = 16 : i64, element_type = f32}> : () -> ()
// CHECK-NEXT:    "accel.dma"() <{function = "tiny_load", direction = "load", scope = "spad"}> : () -> ()
// CHECK-NEXT:    "accel.intrin"() <{name = "add4", in_scopes = ["spad", "spad"], out_scopes = ["spad"], body = "tiny_add"}> ({
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>):
// CHECK-NEXT:      %[[C:.*]] = "te.compute"()
// CHECK:           "accel.yield"(%[[C]]) : (tensor<4xf32>) -> ()
// CHECK-NEXT:    }) : () -> ()
// CHECK-NEXT:  }) : () -> ()

// CUSTOM-LABEL: accel.target @tiny header "tiny.h" {
// CUSTOM-NEXT:    accel.memory "spad" size 4096 align 16 : f32
// CUSTOM-NEXT:    accel.dma "tiny_load" load "spad"
// CUSTOM-NEXT:    accel.intrin "add4" ins(%{{.*}} : tensor<4xf32> in "spad", %{{.*}} : tensor<4xf32> in "spad") outs("spad") body "tiny_add" {
"accel.target"() <{sym_name = "tiny", header = "tiny.h"}> ({
  "accel.memory"() <{name = "spad", size = 4096 : i64, align = 16 : i64, element_type = f32}> : () -> ()
  "accel.dma"() <{function = "tiny_load", direction = "load", scope = "spad"}> : () -> ()
  "accel.intrin"() <{name = "add4", in_scopes = ["spad", "spad"], out_scopes = ["spad"], body = "tiny_add"}> ({
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %c = "te.compute"() <{name = "C", axis_names = ["i"]}> ({
    ^bb1(%i: index):
      %x = "te.read"(%a, %i) : (tensor<4xf32>, index) -> f32
      %y = "te.read"(%b, %i) : (tensor<4xf32>, index) -> f32
      %s = "arith.addf"(%x, %y) : (f32, f32) -> f32
      "te.yield"(%s) : (f32) -> ()
    }) : () -> tensor<4xf32>
    "accel.yield"(%c) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
