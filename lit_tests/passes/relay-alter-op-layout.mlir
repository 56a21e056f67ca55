// RUN: xtvm-opt %s -p relay-alter-op-layout --split-input-file | filecheck %s
// RUN: xtvm-opt %s -p 'relay-alter-op-layout{winograd=false}' --split-input-file | filecheck %s --check-prefix=DIRECT

// A constant HWIO kernel of an NHWC conv2d with 64 output channels is packed at compile time
// into two 32-channel slabs (OHWI32o, the CPU register tile's block); the result is the same.
// CHECK-LABEL: func.func @packed
// CHECK-NEXT:    %[[W:.*]] = relay.const dense<{{.*}}> : tensor<2x1x1x2x32xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.nn.conv2d %x, %[[W]] {data_layout = "NHWC", kernel_layout = "OHWI32o"} : (tensor<1x4x4x2xf32>, tensor<2x1x1x2x32xf32>) -> tensor<1x4x4x64xf32>
// CHECK-NEXT:    func.return %[[C]] : tensor<1x4x4x64xf32>
func.func @packed(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x64xf32> {
  %w = relay.const dense<1.5> : tensor<1x1x2x64xf32>
  %c = relay.nn.conv2d %x, %w {data_layout = "NHWC", kernel_layout = "HWIO"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x64xf32>) -> tensor<1x4x4x64xf32>
  func.return %c : tensor<1x4x4x64xf32>
}

// -----

// 48 channels split into blocks of 16; the packed kernel keeps the element order the tile reads.
// CHECK-LABEL: func.func @block_of_16
// CHECK:         relay.nn.conv2d %x, %{{.*}} {padding = array<i64: 1, 1, 1, 1>, data_layout = "NHWC", kernel_layout = "OHWI16o"} : (tensor<1x5x5x3xf32>, tensor<3x3x3x3x16xf32>) -> tensor<1x5x5x48xf32>
func.func @block_of_16(%x: tensor<1x5x5x3xf32>) -> tensor<1x5x5x48xf32> {
  %w = relay.const dense<0.5> : tensor<3x3x3x48xf32>
  %c = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, data_layout = "NHWC", kernel_layout = "HWIO"} : (tensor<1x5x5x3xf32>, tensor<3x3x3x48xf32>) -> tensor<1x5x5x48xf32>
  func.return %c : tensor<1x5x5x48xf32>
}

// -----

// 40 channels would split into 8-lane blocks, half a vector: the kernel is padded with zeros to
// two 32-channel blocks and a slice drops the 24 extra channels after the conv2d.
// CHECK-LABEL: func.func @padded
// CHECK-NEXT:    %[[W:.*]] = relay.const dense<{{.*}}> : tensor<2x1x1x3x32xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.nn.conv2d %x, %[[W]] {data_layout = "NHWC", kernel_layout = "OHWI32o"} : (tensor<1x4x4x3xf32>, tensor<2x1x1x3x32xf32>) -> tensor<1x4x4x64xf32>
// CHECK-NEXT:    %[[S:.*]] = relay.strided_slice %[[C]] {begin = array<i64: 0>, end = array<i64: 40>, axes = array<i64: 3>} : (tensor<1x4x4x64xf32>) -> tensor<1x4x4x40xf32>
// CHECK-NEXT:    %[[R:.*]] = relay.nn.relu %[[S]] : (tensor<1x4x4x40xf32>) -> tensor<1x4x4x40xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<1x4x4x40xf32>
func.func @padded(%x: tensor<1x4x4x3xf32>) -> tensor<1x4x4x40xf32> {
  %w = relay.const dense<1.0> : tensor<1x1x3x40xf32>
  %c = relay.nn.conv2d %x, %w {data_layout = "NHWC", kernel_layout = "HWIO"} : (tensor<1x4x4x3xf32>, tensor<1x1x3x40xf32>) -> tensor<1x4x4x40xf32>
  %r = relay.nn.relu %c : (tensor<1x4x4x40xf32>) -> tensor<1x4x4x40xf32>
  func.return %r : tensor<1x4x4x40xf32>
}

// -----

// Left alone: a kernel known only at run time (packing would run on every call), an NCHW
// conv2d, a grouped one, 32 channels (one tile: HWIO already is its slab) and 20 channels
// (less than one 32-channel tile, which they fill by 8-lane and 4-lane vectors).
// CHECK-LABEL: func.func @unchanged
// CHECK-NOT:     kernel_layout = "OHWI
// CHECK:         func.return
func.func @unchanged(%x: tensor<1x4x4x4xf32>, %wa: tensor<1x1x4x64xf32>, %xc: tensor<1x4x4x4xf32>) -> (tensor<1x4x4x64xf32>, tensor<1x64x4x4xf32>, tensor<1x4x4x64xf32>, tensor<1x4x4x32xf32>, tensor<1x4x4x20xf32>) {
  %a = relay.nn.conv2d %x, %wa {data_layout = "NHWC", kernel_layout = "HWIO"} : (tensor<1x4x4x4xf32>, tensor<1x1x4x64xf32>) -> tensor<1x4x4x64xf32>
  %wb = relay.const dense<1.0> : tensor<64x4x1x1xf32>
  %b = relay.nn.conv2d %xc, %wb : (tensor<1x4x4x4xf32>, tensor<64x4x1x1xf32>) -> tensor<1x64x4x4xf32>
  %wg = relay.const dense<1.0> : tensor<1x1x2x64xf32>
  %g = relay.nn.conv2d %x, %wg {groups = 2 : i64, data_layout = "NHWC", kernel_layout = "HWIO"} : (tensor<1x4x4x4xf32>, tensor<1x1x2x64xf32>) -> tensor<1x4x4x64xf32>
  %w32 = relay.const dense<1.0> : tensor<1x1x4x32xf32>
  %c32 = relay.nn.conv2d %x, %w32 {data_layout = "NHWC", kernel_layout = "HWIO"} : (tensor<1x4x4x4xf32>, tensor<1x1x4x32xf32>) -> tensor<1x4x4x32xf32>
  %w20 = relay.const dense<1.0> : tensor<1x1x4x20xf32>
  %c20 = relay.nn.conv2d %x, %w20 {data_layout = "NHWC", kernel_layout = "HWIO"} : (tensor<1x4x4x4xf32>, tensor<1x1x4x20xf32>) -> tensor<1x4x4x20xf32>
  func.return %a, %b, %g, %c32, %c20 : tensor<1x4x4x64xf32>, tensor<1x64x4x4xf32>, tensor<1x4x4x64xf32>, tensor<1x4x4x32xf32>, tensor<1x4x4x20xf32>
}

// -----

// A stride-1 3x3 conv2d with 16 output tiles (16x16, in 4x4 tiles) and 16 input channels
// becomes a winograd conv2d: its kernel transformed at compile time into 6x6 positions and
// packed by 16 output channels ([6, 6, K/16, C, 16]); the relu after it stays. With
// winograd=false it stays a direct conv2d.
// CHECK-LABEL: func.func @winograd
// CHECK-NEXT:    %[[U:.*]] = relay.const dense<"0x0000003D{{.*}}"> : tensor<6x6x1x16x16xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.nn.contrib_conv2d_winograd_without_weight_transform %x, %[[U]] {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x16x16xf32>, tensor<6x6x1x16x16xf32>) -> tensor<1x16x16x16xf32>
// CHECK-NEXT:    %[[R:.*]] = relay.nn.relu %[[C]]
// CHECK-NEXT:    func.return %[[R]]
// DIRECT-LABEL: func.func @winograd
// DIRECT:         relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, data_layout = "NHWC", kernel_layout = "HWIO"}
// DIRECT-NOT:     winograd
func.func @winograd(%x: tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32> {
  %w = relay.const dense<0.5> : tensor<3x3x16x16xf32>
  %c = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, data_layout = "NHWC", kernel_layout = "HWIO"} : (tensor<1x16x16x16xf32>, tensor<3x3x16x16xf32>) -> tensor<1x16x16x16xf32>
  %r = relay.nn.relu %c : (tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  func.return %r : tensor<1x16x16x16xf32>
}

// -----

// Direct convolutions remain where winograd does not pay or does not apply: stride 2, fewer
// than 16 output tiles (a 12x12 output has 9), input channels that are not a multiple of 16
// (the transforms' vector), a kernel known only at run time.
// CHECK-LABEL: func.func @direct
// CHECK-NOT:     winograd
// CHECK:         func.return
func.func @direct(%x: tensor<1x16x16x16xf32>, %x14: tensor<1x14x14x16xf32>, %x8: tensor<1x16x16x8xf32>, %wr: tensor<3x3x16x16xf32>) -> (tensor<1x8x8x16xf32>, tensor<1x12x12x16xf32>, tensor<1x16x16x16xf32>, tensor<1x16x16x16xf32>) {
  %w = relay.const dense<0.5> : tensor<3x3x16x16xf32>
  %s = relay.nn.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, data_layout = "NHWC", kernel_layout = "HWIO"} : (tensor<1x16x16x16xf32>, tensor<3x3x16x16xf32>) -> tensor<1x8x8x16xf32>
  %vs = relay.nn.conv2d %x14, %w {data_layout = "NHWC", kernel_layout = "HWIO"} : (tensor<1x14x14x16xf32>, tensor<3x3x16x16xf32>) -> tensor<1x12x12x16xf32>
  %w8 = relay.const dense<0.5> : tensor<3x3x8x16xf32>
  %c8 = relay.nn.conv2d %x8, %w8 {padding = array<i64: 1, 1, 1, 1>, data_layout = "NHWC", kernel_layout = "HWIO"} : (tensor<1x16x16x8xf32>, tensor<3x3x8x16xf32>) -> tensor<1x16x16x16xf32>
  %r = relay.nn.conv2d %x, %wr {padding = array<i64: 1, 1, 1, 1>, data_layout = "NHWC", kernel_layout = "HWIO"} : (tensor<1x16x16x16xf32>, tensor<3x3x16x16xf32>) -> tensor<1x16x16x16xf32>
  func.return %s, %vs, %c8, %r : tensor<1x8x8x16xf32>, tensor<1x12x12x16xf32>, tensor<1x16x16x16xf32>, tensor<1x16x16x16xf32>
}
