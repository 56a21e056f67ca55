// The generic form of the relay ops spells their properties out in `<{...}>`; read back, it
// prints as the custom form again.
// RUN: xtvm-opt %s --print-generic | filecheck %s
// RUN: xtvm-opt %s --print-generic | xtvm-opt | filecheck %s --check-prefix=CUSTOM

// conv2d holds every property in the generic form, the defaults filled in at parse time;
// the custom form prints only those that differ from their default. An op whose properties
// are all defaults (bias_add) or that has none (relu).
// CHECK-LABEL: "func.func"() <{sym_name = "conv"
// CHECK-NEXT:  ^bb0(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>):
// CHECK-NEXT:    %c = "relay.nn.conv2d"(%x, %w) <{strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, groups = 1 : i64, dilation = array<i64: 1, 1>, data_layout = "NCHW", kernel_layout = "OIHW"}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    %y = "relay.nn.bias_add"(%c, %b) <{axis = 1 : i64}> : (tensor<1x4x4x4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    %r = "relay.nn.relu"(%y) : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    "func.return"(%r) : (tensor<1x4x4x4xf32>) -> ()
// CHECK-NEXT:  }) : () -> ()
// CUSTOM-LABEL: func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
// CUSTOM-NEXT:     %c = relay.nn.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
// CUSTOM-NEXT:     %y = relay.nn.bias_add %c, %b : (tensor<1x4x4x4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
// CUSTOM-NEXT:     %r = relay.nn.relu %y : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CUSTOM-NEXT:     func.return %r : tensor<1x4x4x4xf32>
// CUSTOM-NEXT:   }
func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %c = relay.nn.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
  %y = relay.nn.bias_add %c, %b : (tensor<1x4x4x4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %r = relay.nn.relu %y : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  func.return %r : tensor<1x4x4x4xf32>
}

// Integer lists are `array<i64: ...>`, bools `true`/`false`, floats f64 attributes, a dtype a
// type and a layout a string; split's indices_or_sections is an integer or an array. The
// tuple_get_item index and the custom-form brackets become an `index` property.
// CHECK-LABEL: "func.func"() <{sym_name = "props"
// CHECK-NEXT:  ^bb0(%x: tensor<2x6xf32>, %img: tensor<1x8x2x2xf32>):
// CHECK-NEXT:    %a = "relay.argmax"(%x) <{axis = array<i64: 1>, keepdims = false, select_last_index = false}> : (tensor<2x6xf32>) -> tensor<2xi32>
// CHECK-NEXT:    %m = "relay.mean"(%x) <{axis = array<i64: 1>, keepdims = true}> : (tensor<2x6xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    %c = "relay.clip"(%x) <{a_min = -1.000000e+00 : f64, a_max = 1.000000e+00 : f64}> : (tensor<2x6xf32>) -> tensor<2x6xf32>
// CHECK-NEXT:    %s = "relay.split"(%c) <{indices_or_sections = array<i64: 4>, axis = 1 : i64}> : (tensor<2x6xf32>) -> tuple<tensor<2x4xf32>, tensor<2x2xf32>>
// CHECK-NEXT:    %g = "relay.tuple_get_item"(%s) <{index = 0 : i64}> : (tuple<tensor<2x4xf32>, tensor<2x2xf32>>) -> tensor<2x4xf32>
// CHECK-NEXT:    %l = "relay.layout_transform"(%img) <{src_layout = "NCHW", dst_layout = "NCHW4c"}> : (tensor<1x8x2x2xf32>) -> tensor<1x2x2x2x4xf32>
// CHECK-NEXT:    %i = "relay.cast"(%x) <{dtype = i32}> : (tensor<2x6xf32>) -> tensor<2x6xi32>
// CHECK-NEXT:    "func.return"(%a, %m, %g, %l, %i) : (tensor<2xi32>, tensor<2x1xf32>, tensor<2x4xf32>, tensor<1x2x2x2x4xf32>, tensor<2x6xi32>) -> ()
// CHECK-NEXT:  }) : () -> ()
// CUSTOM-LABEL: func.func @props(%x: tensor<2x6xf32>, %img: tensor<1x8x2x2xf32>) -> (tensor<2xi32>, tensor<2x1xf32>, tensor<2x4xf32>, tensor<1x2x2x2x4xf32>, tensor<2x6xi32>) {
// CUSTOM-NEXT:     %a = relay.argmax %x {axis = array<i64: 1>} : (tensor<2x6xf32>) -> tensor<2xi32>
// CUSTOM-NEXT:     %m = relay.mean %x {axis = array<i64: 1>, keepdims = true} : (tensor<2x6xf32>) -> tensor<2x1xf32>
// CUSTOM-NEXT:     %c = relay.clip %x {a_min = -1.000000e+00 : f64, a_max = 1.000000e+00 : f64} : (tensor<2x6xf32>) -> tensor<2x6xf32>
// CUSTOM-NEXT:     %s = relay.split %c {indices_or_sections = array<i64: 4>, axis = 1 : i64} : (tensor<2x6xf32>) -> tuple<tensor<2x4xf32>, tensor<2x2xf32>>
// CUSTOM-NEXT:     %g = relay.tuple_get_item %s[0] : (tuple<tensor<2x4xf32>, tensor<2x2xf32>>) -> tensor<2x4xf32>
// CUSTOM-NEXT:     %l = relay.layout_transform %img {src_layout = "NCHW", dst_layout = "NCHW4c"} : (tensor<1x8x2x2xf32>) -> tensor<1x2x2x2x4xf32>
// CUSTOM-NEXT:     %i = relay.cast %x {dtype = i32} : (tensor<2x6xf32>) -> tensor<2x6xi32>
// CUSTOM-NEXT:     func.return %a, %m, %g, %l, %i : tensor<2xi32>, tensor<2x1xf32>, tensor<2x4xf32>, tensor<1x2x2x2x4xf32>, tensor<2x6xi32>
// CUSTOM-NEXT:   }
func.func @props(%x: tensor<2x6xf32>, %img: tensor<1x8x2x2xf32>) -> (tensor<2xi32>, tensor<2x1xf32>, tensor<2x4xf32>, tensor<1x2x2x2x4xf32>, tensor<2x6xi32>) {
  %a = relay.argmax %x {axis = array<i64: 1>} : (tensor<2x6xf32>) -> tensor<2xi32>
  %m = relay.mean %x {axis = array<i64: 1>, keepdims = true} : (tensor<2x6xf32>) -> tensor<2x1xf32>
  %c = relay.clip %x {a_min = -1.0 : f64, a_max = 1.0 : f64} : (tensor<2x6xf32>) -> tensor<2x6xf32>
  %s = relay.split %c {indices_or_sections = array<i64: 4>, axis = 1 : i64} : (tensor<2x6xf32>) -> tuple<tensor<2x4xf32>, tensor<2x2xf32>>
  %g = relay.tuple_get_item %s[0] : (tuple<tensor<2x4xf32>, tensor<2x2xf32>>) -> tensor<2x4xf32>
  %l = relay.layout_transform %img {src_layout = "NCHW", dst_layout = "NCHW4c"} : (tensor<1x8x2x2xf32>) -> tensor<1x2x2x2x4xf32>
  %i = relay.cast %x {dtype = i32} : (tensor<2x6xf32>) -> tensor<2x6xi32>
  func.return %a, %m, %g, %l, %i : tensor<2xi32>, tensor<2x1xf32>, tensor<2x4xf32>, tensor<1x2x2x2x4xf32>, tensor<2x6xi32>
}

// The winograd conv2d holds tile_size and padding; the custom form prints the non-defaults.
// CHECK-LABEL: "func.func"() <{sym_name = "winograd"
// CHECK-NEXT:  ^bb0(%x: tensor<1x8x8x16xf32>, %u: tensor<4x4x16x8xf32>):
// CHECK-NEXT:    %y = "relay.nn.contrib_conv2d_winograd_without_weight_transform"(%x, %u) <{tile_size = 2 : i64, padding = array<i64: 1, 1, 1, 1>}> : (tensor<1x8x8x16xf32>, tensor<4x4x16x8xf32>) -> tensor<1x8x8x8xf32>
// CUSTOM-LABEL: func.func @winograd(
// CUSTOM-NEXT:     %y = relay.nn.contrib_conv2d_winograd_without_weight_transform %x, %u {tile_size = 2 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x16xf32>, tensor<4x4x16x8xf32>) -> tensor<1x8x8x8xf32>
func.func @winograd(%x: tensor<1x8x8x16xf32>, %u: tensor<4x4x16x8xf32>) -> tensor<1x8x8x8xf32> {
  %y = relay.nn.contrib_conv2d_winograd_without_weight_transform %x, %u {tile_size = 2 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x16xf32>, tensor<4x4x16x8xf32>) -> tensor<1x8x8x8xf32>
  func.return %y : tensor<1x8x8x8xf32>
}

// const holds its value, param its name (in brackets in the custom form), both as properties.
// CHECK-LABEL: "func.func"() <{sym_name = "consts"
// CHECK-NEXT:    %c = "relay.const"() <{value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}> : () -> tensor<2xf32>
// CHECK-NEXT:    %w = "relay.param"() <{name = "conv1.weight"}> : () -> tensor<16x3x3x3xf32>
// CHECK-NEXT:    %t = "relay.tuple"(%c, %w) : (tensor<2xf32>, tensor<16x3x3x3xf32>) -> tuple<tensor<2xf32>, tensor<16x3x3x3xf32>>
// CHECK-NEXT:    "func.return"(%c, %w, %t) : (tensor<2xf32>, tensor<16x3x3x3xf32>, tuple<tensor<2xf32>, tensor<16x3x3x3xf32>>) -> ()
// CHECK-NEXT:  }) : () -> ()
// CUSTOM-LABEL: func.func @consts() -> (tensor<2xf32>, tensor<16x3x3x3xf32>, tuple<tensor<2xf32>, tensor<16x3x3x3xf32>>) {
// CUSTOM-NEXT:     %c = relay.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CUSTOM-NEXT:     %w = relay.param["conv1.weight"] : tensor<16x3x3x3xf32>
// CUSTOM-NEXT:     %t = relay.tuple %c, %w : (tensor<2xf32>, tensor<16x3x3x3xf32>) -> tuple<tensor<2xf32>, tensor<16x3x3x3xf32>>
// CUSTOM-NEXT:     func.return %c, %w, %t : tensor<2xf32>, tensor<16x3x3x3xf32>, tuple<tensor<2xf32>, tensor<16x3x3x3xf32>>
// CUSTOM-NEXT:   }
func.func @consts() -> (tensor<2xf32>, tensor<16x3x3x3xf32>, tuple<tensor<2xf32>, tensor<16x3x3x3xf32>>) {
  %c = relay.const dense<[1.0, 2.0]> : tensor<2xf32>
  %w = relay.param["conv1.weight"] : tensor<16x3x3x3xf32>
  %t = relay.tuple %c, %w : (tensor<2xf32>, tensor<16x3x3x3xf32>) -> tuple<tensor<2xf32>, tensor<16x3x3x3xf32>>
  func.return %c, %w, %t : tensor<2xf32>, tensor<16x3x3x3xf32>, tuple<tensor<2xf32>, tensor<16x3x3x3xf32>>
}

// The gather and scatter ops carry their properties in the generic form as well.
// CHECK-LABEL: "func.func"() <{sym_name = "scatter"
// CHECK-NEXT:  ^bb0(%x: tensor<3x3xf32>, %i: tensor<2x3xi64>, %u: tensor<2x3xf32>):
// CHECK-NEXT:    %y = "relay.scatter_elements"(%x, %i, %u) <{axis = 1 : i64, reduction = "add"}> : (tensor<3x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<3x3xf32>
// CUSTOM-LABEL: func.func @scatter(
// CUSTOM-NEXT:     %y = relay.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "add"} : (tensor<3x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<3x3xf32>
func.func @scatter(%x: tensor<3x3xf32>, %i: tensor<2x3xi64>, %u: tensor<2x3xf32>) -> tensor<3x3xf32> {
  %y = relay.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "add"} : (tensor<3x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<3x3xf32>
  func.return %y : tensor<3x3xf32>
}
