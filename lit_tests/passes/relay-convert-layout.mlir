// RUN: xtvm-opt %s -p 'relay-convert-layout{layout=NHWC}' --split-input-file | filecheck %s
// RUN: xtvm-opt %s -p 'relay-convert-layout{layout=NCHW}' --split-input-file | filecheck %s --check-prefix=NCHW
// RUN: xtvm-opt %s -p 'relay-convert-layout{layout=NHWC grouped=false}' --split-input-file | filecheck %s --check-prefix=UNGROUPED
// RUN: xtvm-opt %s -p 'relay-convert-layout{layout=NHWC min_channels=4}' --split-input-file | filecheck %s --check-prefix=WIDE
// RUN: xtvm-opt %s -p 'relay-convert-layout{layout=NHWC min_channels=4 out_block=4}' --split-input-file | filecheck %s --check-prefix=BLOCK
// RUN: not xtvm-opt %s -p 'relay-convert-layout{layout=NCWH}' 2>&1 | filecheck %s --check-prefix=BAD

// BAD: error: invalid options for pass 'relay-convert-layout': layout must be "NHWC" or "NCHW", got "NCWH"

// conv2d, bias_add, relu and max_pool all move to NHWC: one transform on the way in, the
// constant weight transposed to HWIO at compile time, the bias along axis 3, the pool in NHWC,
// and one transform back before the return; the signature stays NCHW. layout=NCHW keeps it.
// CHECK-LABEL: func.func @conv_bias_relu_pool
// CHECK-SAME:    (%[[X:.*]]: tensor<1x2x4x4xf32>) -> tensor<1x3x2x2xf32>
// CHECK:         %[[B:.*]] = relay.const dense<[5.000000e-01, -1.000000e+00, 2.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    %[[XT:.*]] = relay.layout_transform %[[X]] {src_layout = "NCHW", dst_layout = "NHWC"} : (tensor<1x2x4x4xf32>) -> tensor<1x4x4x2xf32>
// CHECK-NEXT:    %[[W:.*]] = relay.const dense<[[[[1.000000e+00, 3.000000e+00, 5.000000e+00], [2.000000e+00, 4.000000e+00, 6.000000e+00]]]]> : tensor<1x1x2x3xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.nn.conv2d %[[XT]], %[[W]] {data_layout = "NHWC", kernel_layout = "HWIO"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x3xf32>) -> tensor<1x4x4x3xf32>
// CHECK-NEXT:    %[[BA:.*]] = relay.nn.bias_add %[[C]], %[[B]] {axis = 3 : i64}
// CHECK-NEXT:    %[[R:.*]] = relay.nn.relu %[[BA]] : (tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
// CHECK-NEXT:    %[[P:.*]] = relay.nn.max_pool2d %[[R]] {{{.*}}layout = "NHWC"} : (tensor<1x4x4x3xf32>) -> tensor<1x2x2x3xf32>
// CHECK-NEXT:    %[[PT:.*]] = relay.layout_transform %[[P]] {src_layout = "NHWC", dst_layout = "NCHW"} : (tensor<1x2x2x3xf32>) -> tensor<1x3x2x2xf32>
// CHECK-NEXT:    func.return %[[PT]] : tensor<1x3x2x2xf32>
// NCHW-LABEL:  func.func @conv_bias_relu_pool
// NCHW-NOT:      relay.layout_transform
// NCHW:          relay.nn.conv2d %x, %w :
// NCHW-NOT:      relay.layout_transform
// NCHW:          func.return %p
func.func @conv_bias_relu_pool(%x: tensor<1x2x4x4xf32>) -> tensor<1x3x2x2xf32> {
  %w = relay.const dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]], [[[5.0]], [[6.0]]]]> : tensor<3x2x1x1xf32>
  %b = relay.const dense<[0.5, -1.0, 2.0]> : tensor<3xf32>
  %c = relay.nn.conv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
  %ba = relay.nn.bias_add %c, %b : (tensor<1x3x4x4xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  %r = relay.nn.relu %ba : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %p = relay.nn.max_pool2d %r {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x2x2xf32>
  func.return %p : tensor<1x3x2x2xf32>
}

// -----

// A per-channel constant of shape C x 1 x 1 becomes a vector of C; the residual operand, a
// function argument, gets a transform in, and so does a weight known only at run time.
// CHECK-LABEL: func.func @broadcast_and_residual
// CHECK-SAME:    (%[[X:.*]]: tensor<1x2x3x3xf32>, %[[Y:.*]]: tensor<1x2x3x3xf32>)
// CHECK-NEXT:    %[[W:.*]] = relay.param["w"] : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[XT:.*]] = relay.layout_transform %[[X]] {src_layout = "NCHW", dst_layout = "NHWC"}
// CHECK-NEXT:    %[[WT:.*]] = relay.layout_transform %[[W]] {src_layout = "OIHW", dst_layout = "HWIO"} : (tensor<2x2x1x1xf32>) -> tensor<1x1x2x2xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.nn.conv2d %[[XT]], %[[WT]] {data_layout = "NHWC", kernel_layout = "HWIO"}
// CHECK-NEXT:    %[[S:.*]] = relay.const dense<[2.000000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[M:.*]] = relay.multiply %[[C]], %[[S]] : (tensor<1x3x3x2xf32>, tensor<2xf32>) -> tensor<1x3x3x2xf32>
// CHECK-NEXT:    %[[YT:.*]] = relay.layout_transform %[[Y]] {src_layout = "NCHW", dst_layout = "NHWC"}
// CHECK-NEXT:    %[[A:.*]] = relay.add %[[M]], %[[YT]] : (tensor<1x3x3x2xf32>, tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
// CHECK-NEXT:    %[[AT:.*]] = relay.layout_transform %[[A]] {src_layout = "NHWC", dst_layout = "NCHW"}
// CHECK-NEXT:    func.return %[[AT]] : tensor<1x2x3x3xf32>
func.func @broadcast_and_residual(%x: tensor<1x2x3x3xf32>, %y: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = relay.param["w"] : tensor<2x2x1x1xf32>
  %s = relay.const dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>
  %c = relay.nn.conv2d %x, %w : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %m = relay.multiply %c, %s : (tensor<1x2x3x3xf32>, tensor<2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %a = relay.add %m, %y : (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  func.return %a : tensor<1x2x3x3xf32>
}

// -----

// Between two converted convolutions the data stays NHWC, and their shared weight is
// transformed once; concatenate and the reduction get their axes renamed (C is 3, H and W are
// 1 and 2), and the N x C mean reads the same in both layouts: nothing to transform back.
// CHECK-LABEL: func.func @chain_concat_reduce
// CHECK:         %[[WT:.*]] = relay.layout_transform %{{.*}} {src_layout = "OIHW", dst_layout = "HWIO"}
// CHECK-NEXT:    %[[C1:.*]] = relay.nn.conv2d %{{.*}}, %[[WT]]
// CHECK-NEXT:    %[[R:.*]] = relay.nn.relu %[[C1]]
// CHECK-NEXT:    %[[C2:.*]] = relay.nn.conv2d %[[R]], %[[WT]]
// CHECK-NEXT:    %[[CAT:.*]] = relay.concatenate %[[C1]], %[[C2]] {axis = 3 : i64} : (tensor<1x3x3x2xf32>, tensor<1x3x3x2xf32>) -> tensor<1x3x3x4xf32>
// CHECK-NEXT:    %[[MEAN:.*]] = relay.mean %[[CAT]] {axis = array<i64: 1, 2>} : (tensor<1x3x3x4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:    func.return %[[MEAN]] : tensor<1x4xf32>
func.func @chain_concat_reduce(%x: tensor<1x2x3x3xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x4xf32> {
  %c1 = relay.nn.conv2d %x, %w : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %r = relay.nn.relu %c1 : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %c2 = relay.nn.conv2d %r, %w : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %cat = relay.concatenate %c1, %c2 {axis = 1 : i64} : (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  %mean = relay.mean %cat {axis = array<i64: 2, 3>} : (tensor<1x4x3x3xf32>) -> tensor<1x4xf32>
  func.return %mean : tensor<1x4xf32>
}

// -----

// Ops that cannot take NHWC read NCHW through a transform back: batch_flatten (then dense)
// after a global pool, and conv2d_transpose, whose layout is fixed.
// CHECK-LABEL: func.func @boundaries
// CHECK:         %[[C:.*]] = relay.nn.conv2d
// CHECK-NEXT:    %[[G:.*]] = relay.nn.global_avg_pool2d %[[C]] {layout = "NHWC"} : (tensor<1x3x3x2xf32>) -> tensor<1x1x1x2xf32>
// CHECK-NEXT:    %[[GT:.*]] = relay.layout_transform %[[G]] {src_layout = "NHWC", dst_layout = "NCHW"}
// CHECK-NEXT:    %[[F:.*]] = relay.nn.batch_flatten %[[GT]]
// CHECK-NEXT:    %[[O:.*]] = relay.nn.dense %[[F]]
// CHECK-NEXT:    %[[CT:.*]] = relay.layout_transform %[[C]] {src_layout = "NHWC", dst_layout = "NCHW"} : (tensor<1x3x3x2xf32>) -> tensor<1x2x3x3xf32>
// CHECK-NEXT:    %[[T:.*]] = relay.nn.conv2d_transpose %[[CT]]
// CHECK-NEXT:    func.return %[[O]], %[[T]]
func.func @boundaries(%x: tensor<1x2x3x3xf32>, %w: tensor<2x2x1x1xf32>, %v: tensor<2x1x1x1xf32>, %d: tensor<5x2xf32>) -> (tensor<1x5xf32>, tensor<1x1x3x3xf32>) {
  %c = relay.nn.conv2d %x, %w : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %g = relay.nn.global_avg_pool2d %c : (tensor<1x2x3x3xf32>) -> tensor<1x2x1x1xf32>
  %f = relay.nn.batch_flatten %g : (tensor<1x2x1x1xf32>) -> tensor<1x2xf32>
  %o = relay.nn.dense %f, %d : (tensor<1x2xf32>, tensor<5x2xf32>) -> tensor<1x5xf32>
  %t = relay.nn.conv2d_transpose %c, %v : (tensor<1x2x3x3xf32>, tensor<2x1x1x1xf32>) -> tensor<1x1x3x3xf32>
  func.return %o, %t : tensor<1x5xf32>, tensor<1x1x3x3xf32>
}

// -----

// A model already in NHWC is left alone by layout=NHWC. layout=NCHW converts it: its own
// transform of the input to NHWC cancels against the one the pass would add, softmax moves to
// axis 1, and the result goes back to NHWC.
// CHECK-LABEL: func.func @nhwc_model
// CHECK-NEXT:    relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NHWC"}
// CHECK-NEXT:    relay.nn.conv2d %t, %w {data_layout = "NHWC", kernel_layout = "HWIO"}
// CHECK-NEXT:    relay.nn.softmax %c {axis = 3 : i64}
// CHECK-NEXT:    func.return %s
// NCHW-LABEL:  func.func @nhwc_model
// NCHW-SAME:     (%[[X:.*]]: tensor<1x2x3x3xf32>, %[[W:.*]]: tensor<1x1x2x4xf32>) -> tensor<1x3x3x4xf32>
// NCHW-NEXT:     %[[WT:.*]] = relay.layout_transform %[[W]] {src_layout = "HWIO", dst_layout = "OIHW"} : (tensor<1x1x2x4xf32>) -> tensor<4x2x1x1xf32>
// NCHW-NEXT:     %[[C:.*]] = relay.nn.conv2d %[[X]], %[[WT]] : (tensor<1x2x3x3xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x3x3xf32>
// NCHW-NEXT:     %[[S:.*]] = relay.nn.softmax %[[C]] {axis = 1 : i64}
// NCHW-NEXT:     %[[ST:.*]] = relay.layout_transform %[[S]] {src_layout = "NCHW", dst_layout = "NHWC"}
// NCHW-NEXT:     func.return %[[ST]] : tensor<1x3x3x4xf32>
func.func @nhwc_model(%x: tensor<1x2x3x3xf32>, %w: tensor<1x1x2x4xf32>) -> tensor<1x3x3x4xf32> {
  %t = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NHWC"} : (tensor<1x2x3x3xf32>) -> tensor<1x3x3x2xf32>
  %c = relay.nn.conv2d %t, %w {data_layout = "NHWC", kernel_layout = "HWIO"} : (tensor<1x3x3x2xf32>, tensor<1x1x2x4xf32>) -> tensor<1x3x3x4xf32>
  %s = relay.nn.softmax %c {axis = 3 : i64} : (tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  func.return %s : tensor<1x3x3x4xf32>
}

// -----

// A function handed to an external codegen is not touched.
// CHECK-LABEL: func.func private @external
// CHECK-NEXT:    relay.nn.conv2d %x, %w : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
// CHECK-NEXT:    func.return
func.func private @external(%x: tensor<1x2x3x3xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32> attributes {compiler = "ccompiler"} {
  %c = relay.nn.conv2d %x, %w : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  func.return %c : tensor<1x2x3x3xf32>
}

// -----

// grouped=false: a grouped (here depthwise) conv2d keeps its layout and is a boundary; the
// ungrouped conv2d before it converts. By default both convert.
// UNGROUPED-LABEL: func.func @grouped
// UNGROUPED:         relay.nn.conv2d %{{.*}}, %{{.*}} {data_layout = "NHWC", kernel_layout = "HWIO"}
// UNGROUPED-NEXT:    %[[R:.*]] = relay.nn.relu %{{.*}} : (tensor<1x6x6x4xf32>)
// UNGROUPED-NEXT:    %[[T:.*]] = relay.layout_transform %[[R]] {src_layout = "NHWC", dst_layout = "NCHW"}
// UNGROUPED-NEXT:    relay.nn.conv2d %[[T]], %{{.*}} {padding = array<i64: 1, 1, 1, 1>, groups = 4 : i64} : (tensor<1x4x6x6xf32>
// CHECK-LABEL: func.func @grouped
// CHECK:         relay.nn.conv2d %{{.*}}, %{{.*}} {data_layout = "NHWC", kernel_layout = "HWIO"}
// CHECK:         relay.nn.conv2d %{{.*}}, %{{.*}} {padding = array<i64: 1, 1, 1, 1>, groups = 4 : i64, data_layout = "NHWC", kernel_layout = "HWIO"}
func.func @grouped(%x: tensor<1x4x6x6xf32>, %w: tensor<4x4x1x1xf32>, %d: tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %c = relay.nn.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %r = relay.nn.relu %c : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %g = relay.nn.conv2d %r, %d {padding = array<i64: 1, 1, 1, 1>, groups = 4 : i64} : (tensor<1x4x6x6xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32>
  %s = relay.nn.relu %g : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  func.return %s : tensor<1x4x6x6xf32>
}

// -----

// min_channels=4: a conv2d reading 3 channels (an RGB image) keeps NCHW and is a boundary; the
// 4-channel conv2d after it converts. By default both convert, and so they do with out_block=4
// (the first one's 4 output channels are a whole block).
// BLOCK-LABEL: func.func @narrow_input
// BLOCK:         relay.nn.conv2d %{{.*}}, %{{.*}} {strides = array<i64: 2, 2>, data_layout = "NHWC", kernel_layout = "HWIO"}
// BLOCK:         relay.nn.conv2d %{{.*}}, %{{.*}} {data_layout = "NHWC", kernel_layout = "HWIO"}
// WIDE-LABEL: func.func @narrow_input
// WIDE:         %[[C:.*]] = relay.nn.conv2d %{{.*}}, %{{.*}} {strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>
// WIDE-NEXT:    %[[T:.*]] = relay.layout_transform %[[C]] {src_layout = "NCHW", dst_layout = "NHWC"}
// WIDE:         relay.nn.conv2d %[[T]], %{{.*}} {data_layout = "NHWC", kernel_layout = "HWIO"}
// CHECK-LABEL: func.func @narrow_input
// CHECK:         relay.nn.conv2d %{{.*}}, %{{.*}} {strides = array<i64: 2, 2>, data_layout = "NHWC", kernel_layout = "HWIO"}
// CHECK:         relay.nn.conv2d %{{.*}}, %{{.*}} {data_layout = "NHWC", kernel_layout = "HWIO"}
func.func @narrow_input(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x1x1xf32>, %v: tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32> {
  %c = relay.nn.conv2d %x, %w {strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x4x4xf32>
  %d = relay.nn.conv2d %c, %v : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  func.return %d : tensor<1x4x4x4xf32>
}

// -----

// min_channels counts the channels of the data as the original program has it, also where a
// converted conv2d made it NHWC already: 2 channels over an 8x8 image keep the second conv2d
// NCHW (a boundary), 4 channels over a 2x2 image convert it (the NHWC type's axis 1 is H).
// WIDE-LABEL: func.func @narrow_after_converted
// WIDE:         %[[C:.*]] = relay.nn.conv2d %{{.*}}, %{{.*}} {data_layout = "NHWC", kernel_layout = "HWIO"} : (tensor<1x8x8x4xf32>
// WIDE-NEXT:    %[[T:.*]] = relay.layout_transform %[[C]] {src_layout = "NHWC", dst_layout = "NCHW"}
// WIDE-NEXT:    relay.nn.conv2d %[[T]], %v : (tensor<1x2x8x8xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x8x8xf32>
func.func @narrow_after_converted(%x: tensor<1x4x8x8xf32>, %w: tensor<2x4x1x1xf32>, %v: tensor<3x2x1x1xf32>) -> tensor<1x3x8x8xf32> {
  %c = relay.nn.conv2d %x, %w : (tensor<1x4x8x8xf32>, tensor<2x4x1x1xf32>) -> tensor<1x2x8x8xf32>
  %d = relay.nn.conv2d %c, %v : (tensor<1x2x8x8xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x8x8xf32>
  func.return %d : tensor<1x3x8x8xf32>
}

// -----

// WIDE-LABEL: func.func @wide_after_converted
// WIDE:         %[[C:.*]] = relay.nn.conv2d %{{.*}}, %{{.*}} {data_layout = "NHWC", kernel_layout = "HWIO"} : (tensor<1x2x2x4xf32>
// WIDE-NOT:     relay.layout_transform %[[C]]
// WIDE:         relay.nn.conv2d %[[C]], %{{.*}} {data_layout = "NHWC", kernel_layout = "HWIO"} : (tensor<1x2x2x4xf32>, tensor<1x1x4x3xf32>) -> tensor<1x2x2x3xf32>
func.func @wide_after_converted(%x: tensor<1x4x2x2xf32>, %w: tensor<4x4x1x1xf32>, %v: tensor<3x4x1x1xf32>) -> tensor<1x3x2x2xf32> {
  %c = relay.nn.conv2d %x, %w : (tensor<1x4x2x2xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x2x2xf32>
  %d = relay.nn.conv2d %c, %v : (tensor<1x4x2x2xf32>, tensor<3x4x1x1xf32>) -> tensor<1x3x2x2xf32>
  func.return %d : tensor<1x3x2x2xf32>
}

// -----

// A join of a converted value with one an unconverted (grouped) conv2d computed keeps the
// original layout: the converted value goes back once, the add needs no transform of its own.
// UNGROUPED-LABEL: func.func @join
// UNGROUPED:         %[[R:.*]] = relay.nn.relu %{{.*}} : (tensor<1x6x6x4xf32>)
// UNGROUPED-NEXT:    %[[T:.*]] = relay.layout_transform %[[R]] {src_layout = "NHWC", dst_layout = "NCHW"}
// UNGROUPED-NEXT:    %[[G:.*]] = relay.nn.conv2d %[[T]], %{{.*}} {groups = 2 : i64} : (tensor<1x4x6x6xf32>
// UNGROUPED-NEXT:    %[[A:.*]] = relay.add %[[G]], %[[T]] : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
// UNGROUPED-NEXT:    func.return %[[A]] : tensor<1x4x6x6xf32>
func.func @join(%x: tensor<1x4x6x6xf32>, %w: tensor<4x4x1x1xf32>, %d: tensor<4x2x1x1xf32>) -> tensor<1x4x6x6xf32> {
  %c = relay.nn.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %r = relay.nn.relu %c : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %g = relay.nn.conv2d %r, %d {groups = 2 : i64} : (tensor<1x4x6x6xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x6x6xf32>
  %a = relay.add %g, %r : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  func.return %a : tensor<1x4x6x6xf32>
}
