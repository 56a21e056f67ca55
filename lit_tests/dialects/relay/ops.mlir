// Custom syntax of the relay ops, one function per op family: printed, read back and printed
// again gives the same text. Properties equal to their default are not printed.
// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s | xtvm-opt | filecheck %s

// Broadcasting binary ops: a rank-1 or rank-0 operand stretches over the other one.
// CHECK-LABEL: func.func @binary(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %s: tensor<f32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    %a = relay.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %b = relay.subtract %a, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %c = relay.multiply %b, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %d = relay.divide %c, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %e = relay.power %d, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %f = relay.maximum %e, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %g = relay.minimum %f, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %g : tensor<2x3xf32>
// CHECK-NEXT:  }
func.func @binary(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %s: tensor<f32>) -> tensor<2x3xf32> {
  %a = relay.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %b = relay.subtract %a, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = relay.multiply %b, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %d = relay.divide %c, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %e = relay.power %d, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %f = relay.maximum %e, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = relay.minimum %f, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %g : tensor<2x3xf32>
}

// Comparisons give i1 tensors; logical_not and where take them.
// CHECK-LABEL: func.func @compare(%x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<4xi32>) -> tensor<4xf32> {
// CHECK-NEXT:    %eq = relay.equal %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
// CHECK-NEXT:    %lt = relay.less %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK-NEXT:    %gt = relay.greater %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK-NEXT:    %n = relay.logical_not %gt : (tensor<4xi1>) -> tensor<4xi1>
// CHECK-NEXT:    %nan = relay.isnan %x : (tensor<4xf32>) -> tensor<4xi1>
// CHECK-NEXT:    %inf = relay.isinf %x : (tensor<4xf32>) -> tensor<4xi1>
// CHECK-NEXT:    %fin = relay.isfinite %y : (tensor<4xf32>) -> tensor<4xi1>
// CHECK-NEXT:    %w = relay.where %lt, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %w : tensor<4xf32>
// CHECK-NEXT:  }
func.func @compare(%x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<4xi32>) -> tensor<4xf32> {
  %eq = relay.equal %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %lt = relay.less %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %gt = relay.greater %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %n = relay.logical_not %gt : (tensor<4xi1>) -> tensor<4xi1>
  %nan = relay.isnan %x : (tensor<4xf32>) -> tensor<4xi1>
  %inf = relay.isinf %x : (tensor<4xf32>) -> tensor<4xi1>
  %fin = relay.isfinite %y : (tensor<4xf32>) -> tensor<4xi1>
  %w = relay.where %lt, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %w : tensor<4xf32>
}

// Comparisons, floor division, shifts, rounding and trigonometry; shape_of and
// ndarray_size read only their operand's type (ndarray_size's default dtype, i32, is not printed).
// CHECK-LABEL: func.func @tvm_level1_3(%x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi32>, tensor<4xf32>, tensor<1xi64>, tensor<i32>) {
// CHECK-NEXT:    %le = relay.less_equal %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK-NEXT:    %ge = relay.greater_equal %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK-NEXT:    %ne = relay.not_equal %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK-NEXT:    %and = relay.logical_and %le, %ge : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
// CHECK-NEXT:    %or = relay.logical_or %and, %ne : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
// CHECK-NEXT:    %fd = relay.floor_divide %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK-NEXT:    %fm = relay.floor_mod %fd, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK-NEXT:    %ls = relay.left_shift %fm, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK-NEXT:    %rs = relay.right_shift %ls, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK-NEXT:    %a = relay.cos %x : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %b = relay.sin %a : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %c = relay.tan %b : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %d = relay.atan %c : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %e = relay.floor %d : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %f = relay.ceil %e : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %g = relay.trunc %f : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %h = relay.round %g : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %s = relay.sign %h : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %shape = relay.shape_of %x {dtype = i64} : (tensor<4xf32>) -> tensor<1xi64>
// CHECK-NEXT:    %size = relay.ndarray_size %x : (tensor<4xf32>) -> tensor<i32>
// CHECK-NEXT:    func.return %or, %rs, %s, %shape, %size : tensor<4xi1>, tensor<4xi32>, tensor<4xf32>, tensor<1xi64>, tensor<i32>
// CHECK-NEXT:  }
func.func @tvm_level1_3(%x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi32>, tensor<4xf32>, tensor<1xi64>, tensor<i32>) {
  %le = relay.less_equal %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %ge = relay.greater_equal %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %ne = relay.not_equal %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %and = relay.logical_and %le, %ge : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %or = relay.logical_or %and, %ne : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %fd = relay.floor_divide %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %fm = relay.floor_mod %fd, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %ls = relay.left_shift %fm, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %rs = relay.right_shift %ls, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %a = relay.cos %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = relay.sin %a : (tensor<4xf32>) -> tensor<4xf32>
  %c = relay.tan %b : (tensor<4xf32>) -> tensor<4xf32>
  %d = relay.atan %c : (tensor<4xf32>) -> tensor<4xf32>
  %e = relay.floor %d : (tensor<4xf32>) -> tensor<4xf32>
  %f = relay.ceil %e : (tensor<4xf32>) -> tensor<4xf32>
  %g = relay.trunc %f : (tensor<4xf32>) -> tensor<4xf32>
  %h = relay.round %g : (tensor<4xf32>) -> tensor<4xf32>
  %s = relay.sign %h : (tensor<4xf32>) -> tensor<4xf32>
  %shape = relay.shape_of %x {dtype = i64} : (tensor<4xf32>) -> tensor<1xi64>
  %size = relay.ndarray_size %x : (tensor<4xf32>) -> tensor<i32>
  func.return %or, %rs, %s, %shape, %size : tensor<4xi1>, tensor<4xi32>, tensor<4xf32>, tensor<1xi64>, tensor<i32>
}

// Float unary ops keep their operand's type.
// CHECK-LABEL: func.func @unary(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %a = relay.negative %x : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %b = relay.abs %a : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %c = relay.exp %b : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %d = relay.log %c : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %e = relay.sqrt %d : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %f = relay.rsqrt %e : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %g = relay.tanh %f : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %h = relay.sigmoid %g : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %i = relay.erf %h : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %i : tensor<4xf32>
// CHECK-NEXT:  }
func.func @unary(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.negative %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = relay.abs %a : (tensor<4xf32>) -> tensor<4xf32>
  %c = relay.exp %b : (tensor<4xf32>) -> tensor<4xf32>
  %d = relay.log %c : (tensor<4xf32>) -> tensor<4xf32>
  %e = relay.sqrt %d : (tensor<4xf32>) -> tensor<4xf32>
  %f = relay.rsqrt %e : (tensor<4xf32>) -> tensor<4xf32>
  %g = relay.tanh %f : (tensor<4xf32>) -> tensor<4xf32>
  %h = relay.sigmoid %g : (tensor<4xf32>) -> tensor<4xf32>
  %i = relay.erf %h : (tensor<4xf32>) -> tensor<4xf32>
  func.return %i : tensor<4xf32>
}

// clip prints its float bounds in full; cast changes the element type to its dtype.
// CHECK-LABEL: func.func @clip_cast(%x: tensor<4xf32>) -> tensor<4xi32> {
// CHECK-NEXT:    %c = relay.clip %x {a_min = 0.000000e+00 : f64, a_max = 6.000000e+00 : f64} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %i = relay.cast %c {dtype = i32} : (tensor<4xf32>) -> tensor<4xi32>
// CHECK-NEXT:    func.return %i : tensor<4xi32>
// CHECK-NEXT:  }
func.func @clip_cast(%x: tensor<4xf32>) -> tensor<4xi32> {
  %c = relay.clip %x {a_min = 0.0 : f64, a_max = 6.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  %i = relay.cast %c {dtype = i32} : (tensor<4xf32>) -> tensor<4xi32>
  func.return %i : tensor<4xi32>
}

// Activations; softmax's axis is printed because it is not the default (-1),
// log_softmax's default axis is left out.
// CHECK-LABEL: func.func @activations(%x: tensor<2x5xf32>, %img: tensor<1x6x4x4xf32>) -> (tensor<2x5xf32>, tensor<1x6x4x4xf32>) {
// CHECK-NEXT:    %a = relay.nn.relu %x : (tensor<2x5xf32>) -> tensor<2x5xf32>
// CHECK-NEXT:    %b = relay.nn.leaky_relu %a {alpha = 1.000000e-01 : f64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
// CHECK-NEXT:    %c = relay.nn.gelu %b {approximate = "tanh"} : (tensor<2x5xf32>) -> tensor<2x5xf32>
// CHECK-NEXT:    %d = relay.nn.softmax %c {axis = 1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
// CHECK-NEXT:    %e = relay.nn.log_softmax %d : (tensor<2x5xf32>) -> tensor<2x5xf32>
// CHECK-NEXT:    %f = relay.nn.dropout %e {rate = 2.000000e-01 : f64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
// CHECK-NEXT:    %l = relay.nn.lrn %img {size = 3 : i64} : (tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32>
// CHECK-NEXT:    func.return %f, %l : tensor<2x5xf32>, tensor<1x6x4x4xf32>
// CHECK-NEXT:  }
func.func @activations(%x: tensor<2x5xf32>, %img: tensor<1x6x4x4xf32>) -> (tensor<2x5xf32>, tensor<1x6x4x4xf32>) {
  %a = relay.nn.relu %x : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %b = relay.nn.leaky_relu %a {alpha = 0.1 : f64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %c = relay.nn.gelu %b {approximate = "tanh"} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %d = relay.nn.softmax %c {axis = 1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %e = relay.nn.log_softmax %d : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %f = relay.nn.dropout %e {rate = 0.2 : f64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %l = relay.nn.lrn %img {size = 3 : i64} : (tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32>
  func.return %f, %l : tensor<2x5xf32>, tensor<1x6x4x4xf32>
}

// conv2d with padding; the second conv2d spells out every property but prints only strides,
// the others being their defaults. bias_add and conv2d_transpose (strides 2: 8 -> 17).
// CHECK-LABEL: func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %wt: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x2x17x17xf32>) {
// CHECK-NEXT:    %c = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %s = relay.nn.conv2d %x, %w {strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32>
// CHECK-NEXT:    %ba = relay.nn.bias_add %c, %b : (tensor<1x4x8x8xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %t = relay.nn.conv2d_transpose %ba, %wt {strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x17x17xf32>
// CHECK-NEXT:    func.return %ba, %t : tensor<1x4x8x8xf32>, tensor<1x2x17x17xf32>
// CHECK-NEXT:  }
func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %wt: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x2x17x17xf32>) {
  %c = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %s = relay.nn.conv2d %x, %w {strides = array<i64: 2, 2>, dilation = array<i64: 1, 1>, groups = 1 : i64, data_layout = "NCHW", kernel_layout = "OIHW"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32>
  %ba = relay.nn.bias_add %c, %b : (tensor<1x4x8x8xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %t = relay.nn.conv2d_transpose %ba, %wt {strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x17x17xf32>
  func.return %ba, %t : tensor<1x4x8x8xf32>, tensor<1x2x17x17xf32>
}

// Non-default layouts are kept.
// CHECK-LABEL: func.func @nhwc_conv(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
// CHECK-NEXT:    %c = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, data_layout = "NHWC", kernel_layout = "HWIO"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT:    func.return %c : tensor<1x8x8x4xf32>
// CHECK-NEXT:  }
func.func @nhwc_conv(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  %c = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, data_layout = "NHWC", kernel_layout = "HWIO"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %c : tensor<1x8x8x4xf32>
}

// A blocked kernel layout: OHWI8o holds 16 output channels as 2 blocks of 8.
// CHECK-LABEL: func.func @packed_conv(%x: tensor<1x8x8x3xf32>, %w: tensor<2x3x3x3x8xf32>) -> tensor<1x6x6x16xf32> {
// CHECK-NEXT:    %c = relay.nn.conv2d %x, %w {data_layout = "NHWC", kernel_layout = "OHWI8o"} : (tensor<1x8x8x3xf32>, tensor<2x3x3x3x8xf32>) -> tensor<1x6x6x16xf32>
func.func @packed_conv(%x: tensor<1x8x8x3xf32>, %w: tensor<2x3x3x3x8xf32>) -> tensor<1x6x6x16xf32> {
  %c = relay.nn.conv2d %x, %w {data_layout = "NHWC", kernel_layout = "OHWI8o"} : (tensor<1x8x8x3xf32>, tensor<2x3x3x3x8xf32>) -> tensor<1x6x6x16xf32>
  func.return %c : tensor<1x6x6x16xf32>
}

// A winograd conv2d on a transformed kernel, unpacked [6, 6, C, K] and packed in blocks of
// output channels [6, 6, K/b, C, b]; tile_size 4 is the default, 2 is printed.
// CHECK-LABEL: func.func @winograd(%x: tensor<1x8x8x16xf32>, %u: tensor<6x6x16x32xf32>, %p: tensor<6x6x2x16x16xf32>, %u2: tensor<4x4x16x8xf32>) -> (tensor<1x8x8x32xf32>, tensor<1x6x6x32xf32>, tensor<1x8x7x8xf32>) {
// CHECK-NEXT:    %a = relay.nn.contrib_conv2d_winograd_without_weight_transform %x, %u {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x16xf32>, tensor<6x6x16x32xf32>) -> tensor<1x8x8x32xf32>
// CHECK-NEXT:    %b = relay.nn.contrib_conv2d_winograd_without_weight_transform %x, %p : (tensor<1x8x8x16xf32>, tensor<6x6x2x16x16xf32>) -> tensor<1x6x6x32xf32>
// CHECK-NEXT:    %c = relay.nn.contrib_conv2d_winograd_without_weight_transform %x, %u2 {tile_size = 2 : i64, padding = array<i64: 1, 0, 1, 1>} : (tensor<1x8x8x16xf32>, tensor<4x4x16x8xf32>) -> tensor<1x8x7x8xf32>
func.func @winograd(%x: tensor<1x8x8x16xf32>, %u: tensor<6x6x16x32xf32>, %p: tensor<6x6x2x16x16xf32>, %u2: tensor<4x4x16x8xf32>) -> (tensor<1x8x8x32xf32>, tensor<1x6x6x32xf32>, tensor<1x8x7x8xf32>) {
  %a = relay.nn.contrib_conv2d_winograd_without_weight_transform %x, %u {tile_size = 4 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x16xf32>, tensor<6x6x16x32xf32>) -> tensor<1x8x8x32xf32>
  %b = relay.nn.contrib_conv2d_winograd_without_weight_transform %x, %p : (tensor<1x8x8x16xf32>, tensor<6x6x2x16x16xf32>) -> tensor<1x6x6x32xf32>
  %c = relay.nn.contrib_conv2d_winograd_without_weight_transform %x, %u2 {tile_size = 2 : i64, padding = array<i64: 1, 0, 1, 1>} : (tensor<1x8x8x16xf32>, tensor<4x4x16x8xf32>) -> tensor<1x8x7x8xf32>
  func.return %a, %b, %c : tensor<1x8x8x32xf32>, tensor<1x6x6x32xf32>, tensor<1x8x7x8xf32>
}

// dense, matmul (plain and with transpose_b) and batch_matmul (transpose_b by default).
// CHECK-LABEL: func.func @matmuls(%x: tensor<2x5xf32>, %w: tensor<3x5xf32>, %m: tensor<5x3xf32>, %bx: tensor<2x3x5xf32>, %by: tensor<2x4x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3x4xf32>) {
// CHECK-NEXT:    %d = relay.nn.dense %x, %w : (tensor<2x5xf32>, tensor<3x5xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %mm = relay.nn.matmul %x, %m : (tensor<2x5xf32>, tensor<5x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %mt = relay.nn.matmul %x, %w {transpose_b = true} : (tensor<2x5xf32>, tensor<3x5xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %bm = relay.nn.batch_matmul %bx, %by : (tensor<2x3x5xf32>, tensor<2x4x5xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    func.return %d, %mt, %bm : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3x4xf32>
// CHECK-NEXT:  }
func.func @matmuls(%x: tensor<2x5xf32>, %w: tensor<3x5xf32>, %m: tensor<5x3xf32>, %bx: tensor<2x3x5xf32>, %by: tensor<2x4x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3x4xf32>) {
  %d = relay.nn.dense %x, %w : (tensor<2x5xf32>, tensor<3x5xf32>) -> tensor<2x3xf32>
  %mm = relay.nn.matmul %x, %m : (tensor<2x5xf32>, tensor<5x3xf32>) -> tensor<2x3xf32>
  %mt = relay.nn.matmul %x, %w {transpose_b = true} : (tensor<2x5xf32>, tensor<3x5xf32>) -> tensor<2x3xf32>
  %bm = relay.nn.batch_matmul %bx, %by : (tensor<2x3x5xf32>, tensor<2x4x5xf32>) -> tensor<2x3x4xf32>
  func.return %d, %mt, %bm : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3x4xf32>
}

// dense whose features are known only at run time (`?`) checks them then, as TVM's DenseRel
// leaves a symbolic dimension to unification.
// CHECK-LABEL: func.func @dense_dynamic_features(%x: tensor<2x?xf32>, %w: tensor<3x5xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    %d = relay.nn.dense %x, %w : (tensor<2x?xf32>, tensor<3x5xf32>) -> tensor<2x3xf32>
func.func @dense_dynamic_features(%x: tensor<2x?xf32>, %w: tensor<3x5xf32>) -> tensor<2x3xf32> {
  %d = relay.nn.dense %x, %w : (tensor<2x?xf32>, tensor<3x5xf32>) -> tensor<2x3xf32>
  func.return %d : tensor<2x3xf32>
}

// matmul with transpose_a on N-d data swaps its last two axes, as TVM's MatmulRel.
// CHECK-LABEL: func.func @matmul_transposed_nd(%a: tensor<2x3x5x4xf32>, %b: tensor<6x5xf32>) -> tensor<2x3x4x6xf32> {
// CHECK-NEXT:    %y = relay.nn.matmul %a, %b {transpose_a = true, transpose_b = true} : (tensor<2x3x5x4xf32>, tensor<6x5xf32>) -> tensor<2x3x4x6xf32>
func.func @matmul_transposed_nd(%a: tensor<2x3x5x4xf32>, %b: tensor<6x5xf32>) -> tensor<2x3x4x6xf32> {
  %y = relay.nn.matmul %a, %b {transpose_a = true, transpose_b = true} : (tensor<2x3x5x4xf32>, tensor<6x5xf32>) -> tensor<2x3x4x6xf32>
  func.return %y : tensor<2x3x4x6xf32>
}

// batch_norm returns a 3-tuple, read with tuple_get_item; prelu and layer_norm.
// CHECK-LABEL: func.func @norms(%x: tensor<1x3x4x4xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %s: tensor<2x5xf32>, %lg: tensor<5xf32>, %lb: tensor<5xf32>) -> (tensor<1x3x4x4xf32>, tensor<2x5xf32>) {
// CHECK-NEXT:    %t = relay.nn.batch_norm %x, %g, %b, %m, %v {epsilon = 1.000000e-03 : f64} : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tuple<tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>>
// CHECK-NEXT:    %y = relay.tuple_get_item %t[0] : (tuple<tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:    %p = relay.nn.prelu %y, %g : (tensor<1x3x4x4xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:    %l = relay.nn.layer_norm %s, %lg, %lb : (tensor<2x5xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
// CHECK-NEXT:    func.return %p, %l : tensor<1x3x4x4xf32>, tensor<2x5xf32>
// CHECK-NEXT:  }
func.func @norms(%x: tensor<1x3x4x4xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %s: tensor<2x5xf32>, %lg: tensor<5xf32>, %lb: tensor<5xf32>) -> (tensor<1x3x4x4xf32>, tensor<2x5xf32>) {
  %t = relay.nn.batch_norm %x, %g, %b, %m, %v {epsilon = 1.0e-03 : f64} : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tuple<tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>>
  %y = relay.tuple_get_item %t[0] : (tuple<tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>>) -> tensor<1x3x4x4xf32>
  %p = relay.nn.prelu %y, %g : (tensor<1x3x4x4xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  %l = relay.nn.layer_norm %s, %lg, %lb : (tensor<2x5xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  func.return %p, %l : tensor<1x3x4x4xf32>, tensor<2x5xf32>
}

// Windowed and global pools.
// CHECK-LABEL: func.func @pools(%x: tensor<1x3x7x7xf32>) -> (tensor<1x3x3x3xf32>, tensor<1x3x5x5xf32>, tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>) {
// CHECK-NEXT:    %a = relay.nn.max_pool2d %x {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x3x7x7xf32>) -> tensor<1x3x3x3xf32>
// CHECK-NEXT:    %b = relay.nn.avg_pool2d %x {pool_size = array<i64: 3, 3>, count_include_pad = true} : (tensor<1x3x7x7xf32>) -> tensor<1x3x5x5xf32>
// CHECK-NEXT:    %c = relay.nn.global_avg_pool2d %x : (tensor<1x3x7x7xf32>) -> tensor<1x3x1x1xf32>
// CHECK-NEXT:    %d = relay.nn.global_max_pool2d %x : (tensor<1x3x7x7xf32>) -> tensor<1x3x1x1xf32>
// CHECK-NEXT:    func.return %a, %b, %c, %d : tensor<1x3x3x3xf32>, tensor<1x3x5x5xf32>, tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>
// CHECK-NEXT:  }
func.func @pools(%x: tensor<1x3x7x7xf32>) -> (tensor<1x3x3x3xf32>, tensor<1x3x5x5xf32>, tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>) {
  %a = relay.nn.max_pool2d %x {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x3x7x7xf32>) -> tensor<1x3x3x3xf32>
  %b = relay.nn.avg_pool2d %x {pool_size = array<i64: 3, 3>, count_include_pad = true} : (tensor<1x3x7x7xf32>) -> tensor<1x3x5x5xf32>
  %c = relay.nn.global_avg_pool2d %x : (tensor<1x3x7x7xf32>) -> tensor<1x3x1x1xf32>
  %d = relay.nn.global_max_pool2d %x : (tensor<1x3x7x7xf32>) -> tensor<1x3x1x1xf32>
  func.return %a, %b, %c, %d : tensor<1x3x3x3xf32>, tensor<1x3x5x5xf32>, tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>
}

// 3-d convolution (out_dtype converting int8 data and a uint8 kernel), transposed
// convolutions over 1, 2 and 3 spatial axes in their non-default layouts.
// CHECK-LABEL: func.func @conv_nd(%x: tensor<1x3x4x6x6xi8>, %w: tensor<2x3x3x3x3xui8>, %v: tensor<1x4x5xf32>, %k: tensor<4x3x3xf32>, %h: tensor<1x5x5x4xf32>, %g: tensor<3x3x2x4xf32>, %d: tensor<1x2x3x3x3xf32>, %e: tensor<2x2x2x2x2xf32>) -> (tensor<1x2x4x6x6xi32>, tensor<1x3x11xf32>, tensor<1x11x7x2xf32>, tensor<1x2x5x5x5xf32>) {
// CHECK-NEXT:    %a = relay.nn.conv3d %x, %w {padding = array<i64: 1, 1, 1, 1, 1, 1>, out_dtype = "int32"} : (tensor<1x3x4x6x6xi8>, tensor<2x3x3x3x3xui8>) -> tensor<1x2x4x6x6xi32>
// CHECK-NEXT:    %b = relay.nn.conv1d_transpose %v, %k {strides = array<i64: 2>, padding = array<i64: 1, 0>, output_padding = array<i64: 1>} : (tensor<1x4x5xf32>, tensor<4x3x3xf32>) -> tensor<1x3x11xf32>
// CHECK-NEXT:    %c = relay.nn.conv2d_transpose %h, %g {strides = array<i64: 2, 1>, data_layout = "NHWC", kernel_layout = "HWOI"} : (tensor<1x5x5x4xf32>, tensor<3x3x2x4xf32>) -> tensor<1x11x7x2xf32>
// CHECK-NEXT:    %f = relay.nn.conv3d_transpose %d, %e {strides = array<i64: 2, 2, 2>, padding = array<i64: 1, 1, 1, 0, 0, 0>} : (tensor<1x2x3x3x3xf32>, tensor<2x2x2x2x2xf32>) -> tensor<1x2x5x5x5xf32>
// CHECK-NEXT:    func.return %a, %b, %c, %f : tensor<1x2x4x6x6xi32>, tensor<1x3x11xf32>, tensor<1x11x7x2xf32>, tensor<1x2x5x5x5xf32>
// CHECK-NEXT:  }
func.func @conv_nd(%x: tensor<1x3x4x6x6xi8>, %w: tensor<2x3x3x3x3xui8>, %v: tensor<1x4x5xf32>, %k: tensor<4x3x3xf32>, %h: tensor<1x5x5x4xf32>, %g: tensor<3x3x2x4xf32>, %d: tensor<1x2x3x3x3xf32>, %e: tensor<2x2x2x2x2xf32>) -> (tensor<1x2x4x6x6xi32>, tensor<1x3x11xf32>, tensor<1x11x7x2xf32>, tensor<1x2x5x5x5xf32>) {
  %a = relay.nn.conv3d %x, %w {padding = array<i64: 1, 1, 1, 1, 1, 1>, out_dtype = "int32"} : (tensor<1x3x4x6x6xi8>, tensor<2x3x3x3x3xui8>) -> tensor<1x2x4x6x6xi32>
  %b = relay.nn.conv1d_transpose %v, %k {strides = array<i64: 2>, padding = array<i64: 1, 0>, output_padding = array<i64: 1>} : (tensor<1x4x5xf32>, tensor<4x3x3xf32>) -> tensor<1x3x11xf32>
  %c = relay.nn.conv2d_transpose %h, %g {strides = array<i64: 2, 1>, data_layout = "NHWC", kernel_layout = "HWOI"} : (tensor<1x5x5x4xf32>, tensor<3x3x2x4xf32>) -> tensor<1x11x7x2xf32>
  %f = relay.nn.conv3d_transpose %d, %e {strides = array<i64: 2, 2, 2>, padding = array<i64: 1, 1, 1, 0, 0, 0>, dilation = array<i64: 1, 1, 1>} : (tensor<1x2x3x3x3xf32>, tensor<2x2x2x2x2xf32>) -> tensor<1x2x5x5x5xf32>
  func.return %a, %b, %c, %f : tensor<1x2x4x6x6xi32>, tensor<1x3x11xf32>, tensor<1x11x7x2xf32>, tensor<1x2x5x5x5xf32>
}

// 1-d convolution and pools (NWC data with a WIO kernel kept).
// CHECK-LABEL: func.func @one_d(%x: tensor<1x9x4xf32>, %w: tensor<3x2x6xf32>, %y: tensor<1x3x9xf32>) -> (tensor<1x9x6xf32>, tensor<1x3x4xf32>, tensor<1x3x9xf32>) {
// CHECK-NEXT:    %a = relay.nn.conv1d %x, %w {padding = array<i64: 1, 1>, groups = 2 : i64, data_layout = "NWC", kernel_layout = "WIO"} : (tensor<1x9x4xf32>, tensor<3x2x6xf32>) -> tensor<1x9x6xf32>
// CHECK-NEXT:    %b = relay.nn.max_pool1d %y {pool_size = array<i64: 3>, strides = array<i64: 2>} : (tensor<1x3x9xf32>) -> tensor<1x3x4xf32>
// CHECK-NEXT:    %c = relay.nn.avg_pool1d %y {pool_size = array<i64: 3>, padding = array<i64: 1, 1>} : (tensor<1x3x9xf32>) -> tensor<1x3x9xf32>
// CHECK-NEXT:    func.return %a, %b, %c : tensor<1x9x6xf32>, tensor<1x3x4xf32>, tensor<1x3x9xf32>
// CHECK-NEXT:  }
func.func @one_d(%x: tensor<1x9x4xf32>, %w: tensor<3x2x6xf32>, %y: tensor<1x3x9xf32>) -> (tensor<1x9x6xf32>, tensor<1x3x4xf32>, tensor<1x3x9xf32>) {
  %a = relay.nn.conv1d %x, %w {padding = array<i64: 1, 1>, groups = 2 : i64, data_layout = "NWC", kernel_layout = "WIO"} : (tensor<1x9x4xf32>, tensor<3x2x6xf32>) -> tensor<1x9x6xf32>
  %b = relay.nn.max_pool1d %y {pool_size = array<i64: 3>, strides = array<i64: 2>} : (tensor<1x3x9xf32>) -> tensor<1x3x4xf32>
  %c = relay.nn.avg_pool1d %y {pool_size = array<i64: 3>, padding = array<i64: 1, 1>, count_include_pad = false} : (tensor<1x3x9xf32>) -> tensor<1x3x9xf32>
  func.return %a, %b, %c : tensor<1x9x6xf32>, tensor<1x3x4xf32>, tensor<1x3x9xf32>
}

// correlation of two feature maps: (2 * 2 + 1)^2 displacements, strides 2 and 1.
// CHECK-LABEL: func.func @correlation(%a: tensor<2x3x9x7xf32>, %b: tensor<2x3x9x7xf32>) -> tensor<2x25x4x2xf32> {
// CHECK-NEXT:    %c = relay.nn.correlation %a, %b {kernel_size = 3 : i64, max_displacement = 2 : i64, stride1 = 2 : i64, padding = array<i64: 2, 1>, is_multiply = false} : (tensor<2x3x9x7xf32>, tensor<2x3x9x7xf32>) -> tensor<2x25x4x2xf32>
// CHECK-NEXT:    func.return %c : tensor<2x25x4x2xf32>
// CHECK-NEXT:  }
func.func @correlation(%a: tensor<2x3x9x7xf32>, %b: tensor<2x3x9x7xf32>) -> tensor<2x25x4x2xf32> {
  %c = relay.nn.correlation %a, %b {kernel_size = 3 : i64, max_displacement = 2 : i64, stride1 = 2 : i64, stride2 = 1 : i64, padding = array<i64: 2, 1>, is_multiply = false} : (tensor<2x3x9x7xf32>, tensor<2x3x9x7xf32>) -> tensor<2x25x4x2xf32>
  func.return %c : tensor<2x25x4x2xf32>
}

// bitpack: 2 bit planes (a new axis 2) of 16 int32 elements packed into 2 uint8 words.
// CHECK-LABEL: func.func @bitpack(%x: tensor<2x16xi32>) -> tensor<2x2x2xui8> {
// CHECK-NEXT:    %y = relay.nn.bitpack %x {bits = 2 : i64, pack_type = "uint8"} : (tensor<2x16xi32>) -> tensor<2x2x2xui8>
// CHECK-NEXT:    func.return %y : tensor<2x2x2xui8>
// CHECK-NEXT:  }
func.func @bitpack(%x: tensor<2x16xi32>) -> tensor<2x2x2xui8> {
  %y = relay.nn.bitpack %x {bits = 2 : i64, pack_axis = 1 : i64, pack_type = "uint8"} : (tensor<2x16xi32>) -> tensor<2x2x2xui8>
  func.return %y : tensor<2x2x2xui8>
}

// 3-d pools and adaptive pools over 1, 2 and 3 spatial axes.
// CHECK-LABEL: func.func @pools_nd(%x: tensor<1x3x5x7x7xf32>, %y: tensor<1x10x3xf32>, %z: tensor<1x3x9x8xf32>) -> (tensor<1x3x2x3x3xf32>, tensor<1x3x6x8x8xf32>, tensor<1x4x3xf32>, tensor<1x3x2x3xf32>, tensor<1x3x1x1x1xf32>) {
// CHECK-NEXT:    %a = relay.nn.max_pool3d %x {pool_size = array<i64: 2, 2, 2>, strides = array<i64: 2, 2, 2>} : (tensor<1x3x5x7x7xf32>) -> tensor<1x3x2x3x3xf32>
// CHECK-NEXT:    %b = relay.nn.avg_pool3d %x {pool_size = array<i64: 2, 2, 2>, padding = array<i64: 1, 1, 1, 1, 1, 1>, count_include_pad = true} : (tensor<1x3x5x7x7xf32>) -> tensor<1x3x6x8x8xf32>
// CHECK-NEXT:    %c = relay.nn.adaptive_avg_pool1d %y {output_size = array<i64: 4>, layout = "NWC"} : (tensor<1x10x3xf32>) -> tensor<1x4x3xf32>
// CHECK-NEXT:    %d = relay.nn.adaptive_max_pool2d %z {output_size = array<i64: 2, 3>} : (tensor<1x3x9x8xf32>) -> tensor<1x3x2x3xf32>
// CHECK-NEXT:    %e = relay.nn.adaptive_avg_pool3d %x {output_size = array<i64: 1, 1, 1>} : (tensor<1x3x5x7x7xf32>) -> tensor<1x3x1x1x1xf32>
// CHECK-NEXT:    func.return %a, %b, %c, %d, %e : tensor<1x3x2x3x3xf32>, tensor<1x3x6x8x8xf32>, tensor<1x4x3xf32>, tensor<1x3x2x3xf32>, tensor<1x3x1x1x1xf32>
// CHECK-NEXT:  }
func.func @pools_nd(%x: tensor<1x3x5x7x7xf32>, %y: tensor<1x10x3xf32>, %z: tensor<1x3x9x8xf32>) -> (tensor<1x3x2x3x3xf32>, tensor<1x3x6x8x8xf32>, tensor<1x4x3xf32>, tensor<1x3x2x3xf32>, tensor<1x3x1x1x1xf32>) {
  %a = relay.nn.max_pool3d %x {pool_size = array<i64: 2, 2, 2>, strides = array<i64: 2, 2, 2>} : (tensor<1x3x5x7x7xf32>) -> tensor<1x3x2x3x3xf32>
  %b = relay.nn.avg_pool3d %x {pool_size = array<i64: 2, 2, 2>, padding = array<i64: 1, 1, 1, 1, 1, 1>, count_include_pad = true} : (tensor<1x3x5x7x7xf32>) -> tensor<1x3x6x8x8xf32>
  %c = relay.nn.adaptive_avg_pool1d %y {output_size = array<i64: 4>, layout = "NWC"} : (tensor<1x10x3xf32>) -> tensor<1x4x3xf32>
  %d = relay.nn.adaptive_max_pool2d %z {output_size = array<i64: 2, 3>} : (tensor<1x3x9x8xf32>) -> tensor<1x3x2x3xf32>
  %e = relay.nn.adaptive_avg_pool3d %x {output_size = array<i64: 1, 1, 1>} : (tensor<1x3x5x7x7xf32>) -> tensor<1x3x1x1x1xf32>
  func.return %a, %b, %c, %d, %e : tensor<1x3x2x3x3xf32>, tensor<1x3x6x8x8xf32>, tensor<1x4x3xf32>, tensor<1x3x2x3xf32>, tensor<1x3x1x1x1xf32>
}

// pad, resize2d and upsampling.
// CHECK-LABEL: func.func @pad_resize(%x: tensor<2x3xf32>, %img: tensor<1x2x3x4xf32>) -> (tensor<2x6xf32>, tensor<1x2x6x9xf32>, tensor<1x2x6x8xf32>) {
// CHECK-NEXT:    %p = relay.nn.pad %x {pad_width = array<i64: 0, 0, 1, 2>, pad_value = 1.000000e+00 : f64} : (tensor<2x3xf32>) -> tensor<2x6xf32>
// CHECK-NEXT:    %r = relay.image.resize2d %img {size = array<i64: 6, 9>, method = "nearest_neighbor"} : (tensor<1x2x3x4xf32>) -> tensor<1x2x6x9xf32>
// CHECK-NEXT:    %u = relay.nn.upsampling %img {scale_h = 2.000000e+00 : f64, scale_w = 2.000000e+00 : f64} : (tensor<1x2x3x4xf32>) -> tensor<1x2x6x8xf32>
// CHECK-NEXT:    func.return %p, %r, %u : tensor<2x6xf32>, tensor<1x2x6x9xf32>, tensor<1x2x6x8xf32>
// CHECK-NEXT:  }
func.func @pad_resize(%x: tensor<2x3xf32>, %img: tensor<1x2x3x4xf32>) -> (tensor<2x6xf32>, tensor<1x2x6x9xf32>, tensor<1x2x6x8xf32>) {
  %p = relay.nn.pad %x {pad_width = array<i64: 0, 0, 1, 2>, pad_value = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2x6xf32>
  %r = relay.image.resize2d %img {size = array<i64: 6, 9>, method = "nearest_neighbor"} : (tensor<1x2x3x4xf32>) -> tensor<1x2x6x9xf32>
  %u = relay.nn.upsampling %img {scale_h = 2.0 : f64, scale_w = 2.0 : f64} : (tensor<1x2x3x4xf32>) -> tensor<1x2x6x8xf32>
  func.return %p, %r, %u : tensor<2x6xf32>, tensor<1x2x6x9xf32>, tensor<1x2x6x8xf32>
}

// Reductions with and without axis and keepdims; argmax/argmin give i32 indices.
// CHECK-LABEL: func.func @reductions(%x: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2x1xf32>, tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<2xi32>, tensor<2xi32>) {
// CHECK-NEXT:    %s = relay.sum %x {axis = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %m = relay.mean %x {axis = array<i64: 1>, keepdims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    %mx = relay.max %x : (tensor<2x3xf32>) -> tensor<f32>
// CHECK-NEXT:    %mn = relay.min %x {axis = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %p = relay.prod %x {axis = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %am = relay.argmax %x {axis = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xi32>
// CHECK-NEXT:    %an = relay.argmin %x {axis = array<i64: -1>} : (tensor<2x3xf32>) -> tensor<2xi32>
// CHECK-NEXT:    func.return %s, %m, %mx, %mn, %p, %am, %an : tensor<2xf32>, tensor<2x1xf32>, tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<2xi32>, tensor<2xi32>
// CHECK-NEXT:  }
func.func @reductions(%x: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2x1xf32>, tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<2xi32>, tensor<2xi32>) {
  %s = relay.sum %x {axis = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  %m = relay.mean %x {axis = array<i64: 1>, keepdims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %mx = relay.max %x : (tensor<2x3xf32>) -> tensor<f32>
  %mn = relay.min %x {axis = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
  %p = relay.prod %x {axis = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
  %am = relay.argmax %x {axis = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xi32>
  %an = relay.argmin %x {axis = array<i64: -1>} : (tensor<2x3xf32>) -> tensor<2xi32>
  func.return %s, %m, %mx, %mn, %p, %am, %an : tensor<2xf32>, tensor<2x1xf32>, tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<2xi32>, tensor<2xi32>
}

// Shape ops: reshape with 0 and -1, transpose, concatenate of three operands, split into
// sections and at indices, squeeze, expand_dims, batch_flatten and strided_slice with axes.
// CHECK-LABEL: func.func @shapes(%x: tensor<2x3x4xf32>, %y: tensor<2x6xf32>, %z: tensor<1x3x1xf32>) -> (tensor<2x12xf32>, tensor<2x4x3xf32>, tensor<2x7xf32>, tuple<tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>>, tensor<3x1xf32>, tensor<2x1x1x3x4xf32>, tensor<2x12xf32>) {
// CHECK-NEXT:    %r = relay.reshape %x {newshape = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
// CHECK-NEXT:    %t = relay.transpose %x {axes = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
// CHECK-NEXT:    %c = relay.concatenate %y, %y, %r {axis = 1 : i64} : (tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x12xf32>) -> tensor<2x24xf32>
// CHECK-NEXT:    %s = relay.split %y {indices_or_sections = 3 : i64, axis = 1 : i64} : (tensor<2x6xf32>) -> tuple<tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>>
// CHECK-NEXT:    %si = relay.split %y {indices_or_sections = array<i64: 1, 4>, axis = 1 : i64} : (tensor<2x6xf32>) -> tuple<tensor<2x1xf32>, tensor<2x3xf32>, tensor<2x2xf32>>
// CHECK-NEXT:    %q = relay.squeeze %z {axis = array<i64: 0>} : (tensor<1x3x1xf32>) -> tensor<3x1xf32>
// CHECK-NEXT:    %e = relay.expand_dims %x {axis = 1 : i64, num_newaxis = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<2x1x1x3x4xf32>
// CHECK-NEXT:    %f = relay.nn.batch_flatten %x : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
// CHECK-NEXT:    %ss = relay.strided_slice %c {begin = array<i64: 1>, end = array<i64: 15>, strides = array<i64: 2>, axes = array<i64: 1>} : (tensor<2x24xf32>) -> tensor<2x7xf32>
// CHECK-NEXT:    func.return %r, %t, %ss, %s, %q, %e, %f : tensor<2x12xf32>, tensor<2x4x3xf32>, tensor<2x7xf32>, tuple<tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>>, tensor<3x1xf32>, tensor<2x1x1x3x4xf32>, tensor<2x12xf32>
// CHECK-NEXT:  }
func.func @shapes(%x: tensor<2x3x4xf32>, %y: tensor<2x6xf32>, %z: tensor<1x3x1xf32>) -> (tensor<2x12xf32>, tensor<2x4x3xf32>, tensor<2x7xf32>, tuple<tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>>, tensor<3x1xf32>, tensor<2x1x1x3x4xf32>, tensor<2x12xf32>) {
  %r = relay.reshape %x {newshape = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %t = relay.transpose %x {axes = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %c = relay.concatenate %y, %y, %r {axis = 1 : i64} : (tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x12xf32>) -> tensor<2x24xf32>
  %s = relay.split %y {indices_or_sections = 3 : i64, axis = 1 : i64} : (tensor<2x6xf32>) -> tuple<tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>>
  %si = relay.split %y {indices_or_sections = array<i64: 1, 4>, axis = 1 : i64} : (tensor<2x6xf32>) -> tuple<tensor<2x1xf32>, tensor<2x3xf32>, tensor<2x2xf32>>
  %q = relay.squeeze %z {axis = array<i64: 0>} : (tensor<1x3x1xf32>) -> tensor<3x1xf32>
  %e = relay.expand_dims %x {axis = 1 : i64, num_newaxis = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<2x1x1x3x4xf32>
  %f = relay.nn.batch_flatten %x : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %ss = relay.strided_slice %c {begin = array<i64: 1>, end = array<i64: 15>, strides = array<i64: 2>, axes = array<i64: 1>} : (tensor<2x24xf32>) -> tensor<2x7xf32>
  func.return %r, %t, %ss, %s, %q, %e, %f : tensor<2x12xf32>, tensor<2x4x3xf32>, tensor<2x7xf32>, tuple<tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>>, tensor<3x1xf32>, tensor<2x1x1x3x4xf32>, tensor<2x12xf32>
}

// take, broadcast_to, tile and a layout_transform to a blocked layout.
// CHECK-LABEL: func.func @gather_broadcast(%x: tensor<2x5xf32>, %i: tensor<3xi32>, %v: tensor<3xf32>, %img: tensor<1x8x2x2xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x10xf32>, tensor<1x2x2x2x4xf32>) {
// CHECK-NEXT:    %t = relay.take %x, %i {axis = 1 : i64, mode = "wrap"} : (tensor<2x5xf32>, tensor<3xi32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %b = relay.broadcast_to %v {shape = array<i64: 2, 3>} : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %r = relay.tile %x {reps = array<i64: 2, 2>} : (tensor<2x5xf32>) -> tensor<4x10xf32>
// CHECK-NEXT:    %l = relay.layout_transform %img {src_layout = "NCHW", dst_layout = "NCHW4c"} : (tensor<1x8x2x2xf32>) -> tensor<1x2x2x2x4xf32>
// CHECK-NEXT:    func.return %t, %b, %r, %l : tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x10xf32>, tensor<1x2x2x2x4xf32>
// CHECK-NEXT:  }
func.func @gather_broadcast(%x: tensor<2x5xf32>, %i: tensor<3xi32>, %v: tensor<3xf32>, %img: tensor<1x8x2x2xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x10xf32>, tensor<1x2x2x2x4xf32>) {
  %t = relay.take %x, %i {axis = 1 : i64, mode = "wrap"} : (tensor<2x5xf32>, tensor<3xi32>) -> tensor<2x3xf32>
  %b = relay.broadcast_to %v {shape = array<i64: 2, 3>} : (tensor<3xf32>) -> tensor<2x3xf32>
  %r = relay.tile %x {reps = array<i64: 2, 2>} : (tensor<2x5xf32>) -> tensor<4x10xf32>
  %l = relay.layout_transform %img {src_layout = "NCHW", dst_layout = "NCHW4c"} : (tensor<1x8x2x2xf32>) -> tensor<1x2x2x2x4xf32>
  func.return %t, %b, %r, %l : tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x10xf32>, tensor<1x2x2x2x4xf32>
}

// Constants (dense, integer and splat), a named parameter, and nested tuples.
// CHECK-LABEL: func.func @consts_params_tuples(%x: tensor<2xf32>) -> tuple<tensor<2xf32>, tensor<2xi32>> {
// CHECK-NEXT:    %c = relay.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %i = relay.const dense<[3, -4]> : tensor<2xi32>
// CHECK-NEXT:    %splat = relay.const dense<5.000000e-01> : tensor<2x2xf32>
// CHECK-NEXT:    %w = relay.param["conv1.weight"] : tensor<16x3x3x3xf32>
// CHECK-NEXT:    %a = relay.add %x, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %t = relay.tuple %a, %i : (tensor<2xf32>, tensor<2xi32>) -> tuple<tensor<2xf32>, tensor<2xi32>>
// CHECK-NEXT:    %n = relay.tuple %t, %x : (tuple<tensor<2xf32>, tensor<2xi32>>, tensor<2xf32>) -> tuple<tuple<tensor<2xf32>, tensor<2xi32>>, tensor<2xf32>>
// CHECK-NEXT:    %g = relay.tuple_get_item %n[0] : (tuple<tuple<tensor<2xf32>, tensor<2xi32>>, tensor<2xf32>>) -> tuple<tensor<2xf32>, tensor<2xi32>>
// CHECK-NEXT:    func.return %g : tuple<tensor<2xf32>, tensor<2xi32>>
// CHECK-NEXT:  }
func.func @consts_params_tuples(%x: tensor<2xf32>) -> tuple<tensor<2xf32>, tensor<2xi32>> {
  %c = relay.const dense<[1.0, 2.0]> : tensor<2xf32>
  %i = relay.const dense<[3, -4]> : tensor<2xi32>
  %splat = relay.const dense<0.5> : tensor<2x2xf32>
  %w = relay.param["conv1.weight"] : tensor<16x3x3x3xf32>
  %a = relay.add %x, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %t = relay.tuple %a, %i : (tensor<2xf32>, tensor<2xi32>) -> tuple<tensor<2xf32>, tensor<2xi32>>
  %n = relay.tuple %t, %x : (tuple<tensor<2xf32>, tensor<2xi32>>, tensor<2xf32>) -> tuple<tuple<tensor<2xf32>, tensor<2xi32>>, tensor<2xf32>>
  %g = relay.tuple_get_item %n[0] : (tuple<tuple<tensor<2xf32>, tensor<2xi32>>, tensor<2xf32>>) -> tuple<tensor<2xf32>, tensor<2xi32>>
  func.return %g : tuple<tensor<2xf32>, tensor<2xi32>>
}

// gather_nd (index tuples on axis 0, batch dims paired), scatter_nd, gather, scatter_elements,
// cumsum and trilu; defaults (batch_dims 0, mode "update", exclusive false, k 0, upper true)
// are not printed.
// CHECK-LABEL: func.func @gather_scatter_scan(
// CHECK-NEXT:    %g = relay.gather_nd %x, %i : (tensor<4x5x6xf32>, tensor<2x3xi64>) -> tensor<3x6xf32>
// CHECK-NEXT:    %gb = relay.gather_nd %x, %j {batch_dims = 1 : i64} : (tensor<4x5x6xf32>, tensor<1x4x2xi32>) -> tensor<4x2x6xf32>
// CHECK-NEXT:    %s = relay.scatter_nd %x, %i, %u {mode = "add"} : (tensor<4x5x6xf32>, tensor<2x3xi64>, tensor<3x6xf32>) -> tensor<4x5x6xf32>
// CHECK-NEXT:    %e = relay.gather %x, %k {axis = 2 : i64} : (tensor<4x5x6xf32>, tensor<4x5x2xi64>) -> tensor<4x5x2xf32>
// CHECK-NEXT:    %se = relay.scatter_elements %x, %k, %v {axis = -1 : i64, reduction = "max"} : (tensor<4x5x6xf32>, tensor<4x5x2xi64>, tensor<4x5x2xf32>) -> tensor<4x5x6xf32>
// CHECK-NEXT:    %c = relay.cumsum %x {axis = 1 : i64, exclusive = true} : (tensor<4x5x6xf32>) -> tensor<4x5x6xf32>
// CHECK-NEXT:    %cf = relay.cumsum %u : (tensor<3x6xf32>) -> tensor<18xf32>
// CHECK-NEXT:    %t = relay.trilu %x : (tensor<4x5x6xf32>) -> tensor<4x5x6xf32>
// CHECK-NEXT:    %tl = relay.trilu %x {k = -1 : i64, upper = false} : (tensor<4x5x6xf32>) -> tensor<4x5x6xf32>
func.func @gather_scatter_scan(%x: tensor<4x5x6xf32>, %i: tensor<2x3xi64>, %j: tensor<1x4x2xi32>, %u: tensor<3x6xf32>, %k: tensor<4x5x2xi64>, %v: tensor<4x5x2xf32>) -> (tensor<3x6xf32>, tensor<4x2x6xf32>, tensor<4x5x6xf32>, tensor<4x5x2xf32>, tensor<4x5x6xf32>, tensor<4x5x6xf32>, tensor<18xf32>, tensor<4x5x6xf32>, tensor<4x5x6xf32>) {
  %g = relay.gather_nd %x, %i : (tensor<4x5x6xf32>, tensor<2x3xi64>) -> tensor<3x6xf32>
  %gb = relay.gather_nd %x, %j {batch_dims = 1 : i64} : (tensor<4x5x6xf32>, tensor<1x4x2xi32>) -> tensor<4x2x6xf32>
  %s = relay.scatter_nd %x, %i, %u {mode = "add"} : (tensor<4x5x6xf32>, tensor<2x3xi64>, tensor<3x6xf32>) -> tensor<4x5x6xf32>
  %e = relay.gather %x, %k {axis = 2 : i64} : (tensor<4x5x6xf32>, tensor<4x5x2xi64>) -> tensor<4x5x2xf32>
  %se = relay.scatter_elements %x, %k, %v {axis = -1 : i64, reduction = "max"} : (tensor<4x5x6xf32>, tensor<4x5x2xi64>, tensor<4x5x2xf32>) -> tensor<4x5x6xf32>
  %c = relay.cumsum %x {axis = 1 : i64, exclusive = true} : (tensor<4x5x6xf32>) -> tensor<4x5x6xf32>
  %cf = relay.cumsum %u : (tensor<3x6xf32>) -> tensor<18xf32>
  %t = relay.trilu %x {k = 0 : i64, upper = true} : (tensor<4x5x6xf32>) -> tensor<4x5x6xf32>
  %tl = relay.trilu %x {k = -1 : i64, upper = false} : (tensor<4x5x6xf32>) -> tensor<4x5x6xf32>
  func.return %g, %gb, %s, %e, %se, %c, %cf, %t, %tl : tensor<3x6xf32>, tensor<4x2x6xf32>, tensor<4x5x6xf32>, tensor<4x5x2xf32>, tensor<4x5x6xf32>, tensor<4x5x6xf32>, tensor<18xf32>, tensor<4x5x6xf32>, tensor<4x5x6xf32>
}

// TVM 0.13's further ops: deformable_conv2d, dilation2d, crop_and_resize, depth_to_space,
// space_to_depth, sparse_reshape (a tuple), segment_sum (a '?' count without num_segments),
// stft, reverse_sequence, unravel_index, slice_like, argmax over several axes (last
// index), mod.
// CHECK-LABEL: func.func @tvm_more_ops(
// CHECK-NEXT:    %dc = relay.nn.deformable_conv2d %x, %o, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<1x18x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %di = relay.image.dilation2d %x, %k {dilations = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<4x2x2xf32>) -> tensor<1x4x6x6xf32>
// CHECK-NEXT:    %cr = relay.image.crop_and_resize %x, %b, %bi {crop_size = array<i64: 2, 3>, method = "nearest_neighbor"} : (tensor<1x4x8x8xf32>, tensor<3x4xf32>, tensor<3xi32>) -> tensor<3x4x2x3xf32>
// CHECK-NEXT:    %d2s = relay.nn.depth_to_space %x {block_size = 2 : i64, mode = "CDR"} : (tensor<1x4x8x8xf32>) -> tensor<1x1x16x16xf32>
// CHECK-NEXT:    %s2d = relay.nn.space_to_depth %x {block_size = 2 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x16x4x4xf32>
// CHECK-NEXT:    %sr = relay.sparse_reshape %si, %ps, %ns : (tensor<5x3xi64>, tensor<3xi64>, tensor<2xi64>) -> tuple<tensor<5x2xi64>, tensor<2xi64>>
// CHECK-NEXT:    %ss = relay.segment_sum %b, %bi {num_segments = 4 : i64} : (tensor<3x4xf32>, tensor<3xi32>) -> tensor<4x4xf32>
// CHECK-NEXT:    %sd = relay.segment_sum %b, %bi : (tensor<3x4xf32>, tensor<3xi32>) -> tensor<?x4xf32>
// CHECK-NEXT:    %st = relay.stft %sig, %win {n_fft = 4 : i64, hop_length = 2 : i64, win_length = 4 : i64, onesided = false} : (tensor<2x9xf32>, tensor<4xf32>) -> tensor<2x4x3x2xf32>
// CHECK-NEXT:    %rs = relay.reverse_sequence %b, %seq {seq_axis = 0 : i64, batch_axis = 1 : i64} : (tensor<3x4xf32>, tensor<4xi32>) -> tensor<3x4xf32>
// CHECK-NEXT:    %ui = relay.unravel_index %flat, %dims : (tensor<5xi64>, tensor<2xi64>) -> tensor<2x5xi64>
// CHECK-NEXT:    %sl = relay.slice_like %b, %like {axes = array<i64: 1>} : (tensor<3x4xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    %am = relay.argmax %x {axis = array<i64: 3, 1>, select_last_index = true} : (tensor<1x4x8x8xf32>) -> tensor<1x8xi32>
// CHECK-NEXT:    %md = relay.mod %b, %b : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    func.return
func.func @tvm_more_ops(%x: tensor<1x4x8x8xf32>, %o: tensor<1x18x8x8xf32>, %w: tensor<4x4x3x3xf32>, %k: tensor<4x2x2xf32>, %b: tensor<3x4xf32>, %bi: tensor<3xi32>, %si: tensor<5x3xi64>, %ps: tensor<3xi64>, %ns: tensor<2xi64>, %ids: tensor<6xi32>, %sig: tensor<2x9xf32>, %win: tensor<4xf32>, %seq: tensor<4xi32>, %flat: tensor<5xi64>, %dims: tensor<2xi64>, %like: tensor<1x2xf32>) {
  %dc = relay.nn.deformable_conv2d %x, %o, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<1x18x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %di = relay.image.dilation2d %x, %k {dilations = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<4x2x2xf32>) -> tensor<1x4x6x6xf32>
  %cr = relay.image.crop_and_resize %x, %b, %bi {crop_size = array<i64: 2, 3>, method = "nearest_neighbor"} : (tensor<1x4x8x8xf32>, tensor<3x4xf32>, tensor<3xi32>) -> tensor<3x4x2x3xf32>
  %d2s = relay.nn.depth_to_space %x {block_size = 2 : i64, mode = "CDR"} : (tensor<1x4x8x8xf32>) -> tensor<1x1x16x16xf32>
  %s2d = relay.nn.space_to_depth %x {block_size = 2 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x16x4x4xf32>
  %sr = relay.sparse_reshape %si, %ps, %ns : (tensor<5x3xi64>, tensor<3xi64>, tensor<2xi64>) -> tuple<tensor<5x2xi64>, tensor<2xi64>>
  %ss = relay.segment_sum %b, %bi {num_segments = 4 : i64} : (tensor<3x4xf32>, tensor<3xi32>) -> tensor<4x4xf32>
  %sd = relay.segment_sum %b, %bi : (tensor<3x4xf32>, tensor<3xi32>) -> tensor<?x4xf32>
  %st = relay.stft %sig, %win {n_fft = 4 : i64, hop_length = 2 : i64, win_length = 4 : i64, onesided = false} : (tensor<2x9xf32>, tensor<4xf32>) -> tensor<2x4x3x2xf32>
  %rs = relay.reverse_sequence %b, %seq {seq_axis = 0 : i64, batch_axis = 1 : i64} : (tensor<3x4xf32>, tensor<4xi32>) -> tensor<3x4xf32>
  %ui = relay.unravel_index %flat, %dims : (tensor<5xi64>, tensor<2xi64>) -> tensor<2x5xi64>
  %sl = relay.slice_like %b, %like {axes = array<i64: 1>} : (tensor<3x4xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
  %am = relay.argmax %x {axis = array<i64: 3, 1>, select_last_index = true} : (tensor<1x4x8x8xf32>) -> tensor<1x8xi32>
  %md = relay.mod %b, %b : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  func.return
}

// TVM 0.13's vision ops (relay.vision): float lists print as array<f64>, non_max_suppression's
// result is a tensor or, with return_indices (the default), a tuple.
// CHECK-LABEL: func.func @vision_ops(
// CHECK-NEXT:    %mp = relay.vision.multibox_prior %x {sizes = array<f64: 5.000000e-01, 2.500000e-01>, ratios = array<f64: 1.000000e+00, 2.000000e+00>, clip = true} : (tensor<1x4x6x6xf32>) -> tensor<1x108x4xf32>
// CHECK-NEXT:    %yr = relay.vision.yolo_reorg %x {stride = 2 : i64} : (tensor<1x4x6x6xf32>) -> tensor<1x16x3x3xf32>
// CHECK-NEXT:    %ra = relay.vision.roi_align %x, %r {pooled_size = array<i64: 2, 2>, spatial_scale = 5.000000e-01 : f64, sample_ratio = 2 : i64, mode = "max"} : (tensor<1x4x6x6xf32>, tensor<3x5xf32>) -> tensor<3x4x2x2xf32>
// CHECK-NEXT:    %rp = relay.vision.roi_pool %x, %r {pooled_size = array<i64: 3, 3>, spatial_scale = 1.000000e+00 : f64} : (tensor<1x4x6x6xf32>, tensor<3x5xf32>) -> tensor<3x4x3x3xf32>
// CHECK-NEXT:    %gv = relay.vision.get_valid_counts %d {score_threshold = 2.500000e-01 : f64, id_index = -1 : i64} : (tensor<1x5x6xf32>) -> tuple<tensor<1xi32>, tensor<1x5x6xf32>, tensor<1x5xi32>>
// CHECK-NEXT:    %nb = relay.vision.non_max_suppression %d, %v, %i, %m, %t {top_k = 3 : i64, return_indices = false} : (tensor<1x5x6xf32>, tensor<1xi32>, tensor<1x5xi32>, tensor<i32>, tensor<f32>) -> tensor<1x5x6xf32>
// CHECK-NEXT:    %ni = relay.vision.non_max_suppression %d, %v, %i, %m, %t {force_suppress = true} : (tensor<1x5x6xf32>, tensor<1xi32>, tensor<1x5xi32>, tensor<i32>, tensor<f32>) -> tuple<tensor<1x5xi32>, tensor<1x1xi32>>
// CHECK-NEXT:    %mt = relay.vision.multibox_transform_loc %s, %l, %a {clip = false, variances = array<f64: 1.000000e-01, 1.000000e-01, 3.000000e-01, 3.000000e-01>} : (tensor<1x2x5xf32>, tensor<1x20xf32>, tensor<1x5x4xf32>) -> tuple<tensor<1x5x6xf32>, tensor<1xi32>>
// CHECK-NEXT:    %pr = relay.vision.proposal %pc, %pb, %pi {scales = array<f64: 1.000000e+00>, ratios = array<f64: 5.000000e-01, 2.000000e+00>, feature_stride = 8 : i64, rpn_post_nms_top_n = 3 : i64, iou_loss = true} : (tensor<1x4x3x3xf32>, tensor<1x8x3x3xf32>, tensor<1x3xf32>) -> tensor<3x5xf32>
// CHECK-NEXT:    %ac = relay.vision.all_class_non_max_suppression %b, %s, %m, %t, %t {output_format = "tensorflow"} : (tensor<1x5x4xf32>, tensor<1x2x5xf32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tuple<tensor<1x10x2xi64>, tensor<1x10xf32>, tensor<1xi64>>
func.func @vision_ops(%x: tensor<1x4x6x6xf32>, %r: tensor<3x5xf32>, %d: tensor<1x5x6xf32>, %v: tensor<1xi32>, %i: tensor<1x5xi32>, %m: tensor<i32>, %t: tensor<f32>, %b: tensor<1x5x4xf32>, %s: tensor<1x2x5xf32>, %l: tensor<1x20xf32>, %a: tensor<1x5x4xf32>, %pc: tensor<1x4x3x3xf32>, %pb: tensor<1x8x3x3xf32>, %pi: tensor<1x3xf32>) {
  %mp = relay.vision.multibox_prior %x {sizes = array<f64: 0.5, 0.25>, ratios = array<f64: 1.0, 2.0>, clip = true} : (tensor<1x4x6x6xf32>) -> tensor<1x108x4xf32>
  %yr = relay.vision.yolo_reorg %x {stride = 2 : i64} : (tensor<1x4x6x6xf32>) -> tensor<1x16x3x3xf32>
  %ra = relay.vision.roi_align %x, %r {pooled_size = array<i64: 2, 2>, spatial_scale = 0.5 : f64, sample_ratio = 2 : i64, mode = "max"} : (tensor<1x4x6x6xf32>, tensor<3x5xf32>) -> tensor<3x4x2x2xf32>
  %rp = relay.vision.roi_pool %x, %r {pooled_size = array<i64: 3, 3>, spatial_scale = 1.0 : f64} : (tensor<1x4x6x6xf32>, tensor<3x5xf32>) -> tensor<3x4x3x3xf32>
  %gv = relay.vision.get_valid_counts %d {score_threshold = 0.25 : f64, id_index = -1 : i64} : (tensor<1x5x6xf32>) -> tuple<tensor<1xi32>, tensor<1x5x6xf32>, tensor<1x5xi32>>
  %nb = relay.vision.non_max_suppression %d, %v, %i, %m, %t {top_k = 3 : i64, return_indices = false} : (tensor<1x5x6xf32>, tensor<1xi32>, tensor<1x5xi32>, tensor<i32>, tensor<f32>) -> tensor<1x5x6xf32>
  %ni = relay.vision.non_max_suppression %d, %v, %i, %m, %t {force_suppress = true} : (tensor<1x5x6xf32>, tensor<1xi32>, tensor<1x5xi32>, tensor<i32>, tensor<f32>) -> tuple<tensor<1x5xi32>, tensor<1x1xi32>>
  %mt = relay.vision.multibox_transform_loc %s, %l, %a {clip = false, variances = array<f64: 0.1, 0.1, 0.3, 0.3>} : (tensor<1x2x5xf32>, tensor<1x20xf32>, tensor<1x5x4xf32>) -> tuple<tensor<1x5x6xf32>, tensor<1xi32>>
  %pr = relay.vision.proposal %pc, %pb, %pi {scales = array<f64: 1.0>, ratios = array<f64: 0.5, 2.0>, feature_stride = 8 : i64, rpn_post_nms_top_n = 3 : i64, iou_loss = true} : (tensor<1x4x3x3xf32>, tensor<1x8x3x3xf32>, tensor<1x3xf32>) -> tensor<3x5xf32>
  %ac = relay.vision.all_class_non_max_suppression %b, %s, %m, %t, %t {output_format = "tensorflow"} : (tensor<1x5x4xf32>, tensor<1x2x5xf32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tuple<tensor<1x10x2xi64>, tensor<1x10xf32>, tensor<1xi64>>
  func.return
}

// Data movement of TVM 0.13's op levels 3-5: reinterpret, strided_set, space_to_batch_nd,
// batch_to_space_nd, affine_grid, grid_sample (default attributes unprinted), unique (a tuple
// of four, five with counts), strided_slice with bounds shorter than the rank, correlation.
// CHECK-LABEL: func.func @tvm_data_movement(
// CHECK-NEXT:    %ri = relay.reinterpret %b {dtype = i32} : (tensor<3x4xf32>) -> tensor<3x4xi32>
// CHECK-NEXT:    %ss = relay.strided_set %b, %v {begin = array<i64: 2>, end = array<i64: -4>, strides = array<i64: -1>} : (tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    %sb = relay.nn.space_to_batch_nd %x {block_shape = array<i64: 2, 2>, paddings = array<i64: 0, 0, 2, 0>, pad_value = 1.500000e+00 : f64} : (tensor<2x2x4x1xf32>) -> tensor<8x1x3x1xf32>
// CHECK-NEXT:    %bs = relay.nn.batch_to_space_nd %sb {block_shape = array<i64: 2, 2>, crops = array<i64: 0, 0, 2, 0>} : (tensor<8x1x3x1xf32>) -> tensor<2x2x4x1xf32>
// CHECK-NEXT:    %ag = relay.image.affine_grid %t {target_shape = array<i64: 4, 5>} : (tensor<2x2x3xf32>) -> tensor<2x2x4x5xf32>
// CHECK-NEXT:    %gs = relay.image.grid_sample %img, %ag : (tensor<2x3x6x6xf32>, tensor<2x2x4x5xf32>) -> tensor<2x3x4x5xf32>
// CHECK-NEXT:    %gc = relay.image.grid_sample %img, %ag {method = "bicubic", padding_mode = "reflection", align_corners = false} : (tensor<2x3x6x6xf32>, tensor<2x2x4x5xf32>) -> tensor<2x3x4x5xf32>
// CHECK-NEXT:    %un = relay.unique %ids : (tensor<6xi32>) -> tuple<tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<1xi32>>
// CHECK-NEXT:    %uc = relay.unique %ids {sorted = false, return_counts = true} : (tensor<6xi32>) -> tuple<tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<1xi32>, tensor<6xi32>>
// CHECK-NEXT:    %sl = relay.strided_slice %x {begin = array<i64: 1>, end = array<i64: 2, 3>} : (tensor<2x2x4x1xf32>) -> tensor<1x2x4x1xf32>
// CHECK-NEXT:    %co = relay.nn.correlation %img, %img {kernel_size = 3 : i64, max_displacement = 2 : i64, stride1 = 2 : i64, padding = array<i64: 2>, is_multiply = false} : (tensor<2x3x6x6xf32>, tensor<2x3x6x6xf32>) -> tensor<2x25x2x2xf32>
// CHECK-NEXT:    func.return
func.func @tvm_data_movement(%b: tensor<3x4xf32>, %v: tensor<1x4xf32>, %x: tensor<2x2x4x1xf32>, %t: tensor<2x2x3xf32>, %img: tensor<2x3x6x6xf32>, %ids: tensor<6xi32>) {
  %ri = relay.reinterpret %b {dtype = i32} : (tensor<3x4xf32>) -> tensor<3x4xi32>
  %ss = relay.strided_set %b, %v {begin = array<i64: 2>, end = array<i64: -4>, strides = array<i64: -1>} : (tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
  %sb = relay.nn.space_to_batch_nd %x {block_shape = array<i64: 2, 2>, paddings = array<i64: 0, 0, 2, 0>, pad_value = 1.5 : f64} : (tensor<2x2x4x1xf32>) -> tensor<8x1x3x1xf32>
  %bs = relay.nn.batch_to_space_nd %sb {block_shape = array<i64: 2, 2>, crops = array<i64: 0, 0, 2, 0>} : (tensor<8x1x3x1xf32>) -> tensor<2x2x4x1xf32>
  %ag = relay.image.affine_grid %t {target_shape = array<i64: 4, 5>} : (tensor<2x2x3xf32>) -> tensor<2x2x4x5xf32>
  %gs = relay.image.grid_sample %img, %ag {method = "bilinear"} : (tensor<2x3x6x6xf32>, tensor<2x2x4x5xf32>) -> tensor<2x3x4x5xf32>
  %gc = relay.image.grid_sample %img, %ag {method = "bicubic", padding_mode = "reflection", align_corners = false} : (tensor<2x3x6x6xf32>, tensor<2x2x4x5xf32>) -> tensor<2x3x4x5xf32>
  %un = relay.unique %ids {sorted = true} : (tensor<6xi32>) -> tuple<tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<1xi32>>
  %uc = relay.unique %ids {sorted = false, return_counts = true} : (tensor<6xi32>) -> tuple<tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<1xi32>, tensor<6xi32>>
  %sl = relay.strided_slice %x {begin = array<i64: 1>, end = array<i64: 2, 3>} : (tensor<2x2x4x1xf32>) -> tensor<1x2x4x1xf32>
  %co = relay.nn.correlation %img, %img {kernel_size = 3 : i64, max_displacement = 2 : i64, stride1 = 2 : i64, stride2 = 1 : i64, padding = array<i64: 2>, is_multiply = false} : (tensor<2x3x6x6xf32>, tensor<2x3x6x6xf32>) -> tensor<2x25x2x2xf32>
  func.return
}

// A float shape_of (TVM allows any numeric dtype) and the fusion barrier stop_fusion.
// CHECK-LABEL: func.func @float_shape_and_barrier
// CHECK-NEXT:    %shape = relay.shape_of %x {dtype = f32} : (tensor<2x3xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %kept = relay.annotation.stop_fusion %shape : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    func.return %kept : tensor<2xf32>
func.func @float_shape_and_barrier(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %shape = relay.shape_of %x {dtype = f32} : (tensor<2x3xf32>) -> tensor<2xf32>
  %kept = relay.annotation.stop_fusion %shape : (tensor<2xf32>) -> tensor<2xf32>
  func.return %kept : tensor<2xf32>
}
