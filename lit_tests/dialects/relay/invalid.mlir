// Relay verifier messages: each op infers its result type and checks its properties, and the
// errors name the op as MLIR does.
// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

func.func @broadcast(%x: tensor<2x3xf32>, %y: tensor<4xf32>) {
  // expected-error@+1 {{'relay.add' op operand shapes do not broadcast: 2x3 vs 4}}
  %z = relay.add %x, %y : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @wrong_result(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'relay.nn.relu' op result type tensor<3x2xf32> does not match the inferred type tensor<2x3xf32>}}
  %z = relay.nn.relu %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return
}

// -----

func.func @elem_mismatch(%x: tensor<4xf32>, %y: tensor<4xi32>) {
  // expected-error@+1 {{'relay.multiply' op operand element types differ: f32 vs i32}}
  %z = relay.multiply %x, %y : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @conv_strides(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+1 {{'relay.nn.conv2d' op strides must be 2 positive integers, got [1, 1, 1]}}
  %c = relay.nn.conv2d %x, %w {strides = array<i64: 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return
}

// -----

func.func @conv_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error@+1 {{'relay.nn.conv2d' op data has 3 channels but weight expects 2 (2 per group x 1 groups)}}
  %c = relay.nn.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return
}

// -----

func.func @conv_padding(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+1 {{'relay.nn.conv2d' op padding must be 4 non-negative integers (top, left, bottom, right), got [1, 1]}}
  %c = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  func.return
}

// -----

func.func @conv_layout(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+1 {{'relay.nn.conv2d' op data_layout must be one of "NCHW", "NHWC", got "NCWH"}}
  %c = relay.nn.conv2d %x, %w {data_layout = "NCWH"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return
}

// -----

func.func @conv_kernel_layout(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+1 {{'relay.nn.conv2d' op kernel_layout must order O, I, H and W, got "OIHX"}}
  %c = relay.nn.conv2d %x, %w {kernel_layout = "OIHX"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return
}

// -----

func.func @conv_kernel_block(%x: tensor<1x8x8x3xf32>, %w: tensor<2x3x3x3x4xf32>) {
  // expected-error@+1 {{'relay.nn.conv2d' op weight: dimension 4 of layout OHWI8o must be 8, got 4}}
  %c = relay.nn.conv2d %x, %w {data_layout = "NHWC", kernel_layout = "OHWI8o"} : (tensor<1x8x8x3xf32>, tensor<2x3x3x3x4xf32>) -> tensor<1x6x6x16xf32>
  func.return
}

// -----

func.func @conv_kernel_rank(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x16xf32>) {
  // expected-error@+1 {{'relay.nn.conv2d' op data must be 4-d and weight 5-d (OHWI8o), got 1x8x8x3 and 3x3x3x16}}
  %c = relay.nn.conv2d %x, %w {data_layout = "NHWC", kernel_layout = "OHWI8o"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<1x6x6x16xf32>
  func.return
}

// -----

func.func @dense_units(%x: tensor<2x5xf32>, %w: tensor<3x4xf32>) {
  // expected-error@+1 {{'relay.nn.dense' op data has 5 input features but weight 3x4 expects 4}}
  %d = relay.nn.dense %x, %w : (tensor<2x5xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @softmax_axis(%x: tensor<2x5xf32>) {
  // expected-error@+1 {{'relay.nn.softmax' op axis 2 is out of range for rank 2}}
  %y = relay.nn.softmax %x {axis = 2 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  func.return
}

// -----

func.func @sum_axis(%x: tensor<2x5xf32>) {
  // expected-error@+1 {{'relay.sum' op axis -3 is out of range for rank 2}}
  %y = relay.sum %x {axis = array<i64: -3>} : (tensor<2x5xf32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @mean_repeat(%x: tensor<2x5xf32>) {
  // expected-error@+1 {{'relay.mean' op axis -1 is repeated in [1, -1]}}
  %y = relay.mean %x {axis = array<i64: 1, -1>} : (tensor<2x5xf32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @argmax_empty(%x: tensor<2x5xf32>) {
  // expected-error@+1 {{'relay.argmax' op takes one axis or more (or none for all), got []}}
  %y = relay.argmax %x {axis = array<i64>} : (tensor<2x5xf32>) -> tensor<i32>
  func.return
}

// -----

func.func @reshape_size(%x: tensor<2x3x4xf32>) {
  // expected-error@+1 {{'relay.reshape' op cannot reshape 2x3x4 (24 elements) to 5x5 (25 elements)}}
  %y = relay.reshape %x {newshape = array<i64: 5, 5>} : (tensor<2x3x4xf32>) -> tensor<5x5xf32>
  func.return
}

// -----

func.func @reshape_two_minus(%x: tensor<2x3x4xf32>) {
  // expected-error@+1 {{'relay.reshape' op newshape [-1, -1] has more than one -1}}
  %y = relay.reshape %x {newshape = array<i64: -1, -1>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  func.return
}

// -----

func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<2x3x1xf32>) {
  // expected-error@+1 {{'relay.concatenate' op operand shapes differ outside axis 1: 2x3 vs 2x3x1}}
  %y = relay.concatenate %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3x1xf32>) -> tensor<2x6xf32>
  func.return
}

// -----

func.func @concat_shape(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error@+1 {{'relay.concatenate' op operand shapes differ outside axis 1: 2x3 vs 3x3}}
  %y = relay.concatenate %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  func.return
}

// -----

func.func @slice_lengths(%x: tensor<2x8xf32>) {
  // expected-error@+1 {{'relay.strided_slice' op axes, begin, end and strides differ in length: 2, 2, 1, 2}}
  %y = relay.strided_slice %x {begin = array<i64: 0, 1>, end = array<i64: 7>, axes = array<i64: 0, 1>} : (tensor<2x8xf32>) -> tensor<2x6xf32>
  func.return
}

// -----

func.func @slice_past_the_rank(%x: tensor<2x8xf32>) {
  // expected-error@+1 {{'relay.strided_slice' op 3 slice bounds for rank 2}}
  %y = relay.strided_slice %x {begin = array<i64: 0, 1, 0>, end = array<i64: 7>} : (tensor<2x8xf32>) -> tensor<2x6xf32>
  func.return
}

// -----

func.func @slice_stride(%x: tensor<2x8xf32>) {
  // expected-error@+1 {{'relay.strided_slice' op strides must not be 0, got [1, 0]}}
  %y = relay.strided_slice %x {begin = array<i64: 0, 1>, end = array<i64: 2, 7>, strides = array<i64: 1, 0>} : (tensor<2x8xf32>) -> tensor<2x6xf32>
  func.return
}

// -----

func.func @layout(%x: tensor<1x8x2x2xf32>) {
  // expected-error@+1 {{'relay.layout_transform' op invalid layout 'NCHW4q'}}
  %y = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW4q"} : (tensor<1x8x2x2xf32>) -> tensor<1x2x2x2x4xf32>
  func.return
}

// -----

func.func @layout_axes(%x: tensor<1x8x2x2xf32>) {
  // expected-error@+1 {{'relay.layout_transform' op layouts NCHW and NCDHW have different primal axes}}
  %y = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NCDHW"} : (tensor<1x8x2x2xf32>) -> tensor<1x8x2x2xf32>
  func.return
}

// -----

func.func @tuple_index(%x: tensor<2xf32>) {
  %t = relay.tuple %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tuple<tensor<2xf32>, tensor<2xf32>>
  // expected-error@+1 {{'relay.tuple_get_item' op index 2 is out of range for a tuple of 2 fields}}
  %y = relay.tuple_get_item %t[2] : (tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
  func.return
}

// -----

func.func @bn_channels(%x: tensor<1x3x4x4xf32>, %g: tensor<4xf32>, %b: tensor<3xf32>) {
  // expected-error@+1 {{'relay.nn.batch_norm' op gamma must have shape 3 (axis 1 of data 1x3x4x4), got 4}}
  %t = relay.nn.batch_norm %x, %g, %b, %b, %b : (tensor<1x3x4x4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tuple<tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>>
  func.return
}

// -----

func.func @pool_size(%x: tensor<1x3x7x7xf32>) {
  // expected-error@+1 {{'relay.nn.max_pool2d' op pool_size must be 2 positive integers, got [0, 2]}}
  %y = relay.nn.max_pool2d %x {pool_size = array<i64: 0, 2>} : (tensor<1x3x7x7xf32>) -> tensor<1x3x6x6xf32>
  func.return
}

// -----

func.func @pad_width(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'relay.nn.pad' op pad_width must be 4 non-negative integers (before, after per axis of 2x3), got [0, 0, 1]}}
  %y = relay.nn.pad %x {pad_width = array<i64: 0, 0, 1>} : (tensor<2x3xf32>) -> tensor<2x4xf32>
  func.return
}

// -----

func.func @clip_bounds(%x: tensor<4xf32>) {
  // expected-error@+1 {{'relay.clip' op a_min 6.0 is greater than a_max 0.0}}
  %y = relay.clip %x {a_min = 6.0 : f64, a_max = 0.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @split_sections(%x: tensor<2x6xf32>) {
  // expected-error@+1 {{'relay.split' op 4 sections do not divide axis of size 6}}
  %t = relay.split %x {indices_or_sections = 4 : i64, axis = 1 : i64} : (tensor<2x6xf32>) -> tuple<tensor<2x6xf32>>
  func.return
}

// -----

func.func @squeeze(%x: tensor<1x3xf32>) {
  // expected-error@+1 {{'relay.squeeze' op cannot squeeze axis 1 of size 3}}
  %y = relay.squeeze %x {axis = array<i64: 1>} : (tensor<1x3xf32>) -> tensor<1xf32>
  func.return
}

// -----

func.func @transpose_axes(%x: tensor<2x3x4xf32>) {
  // expected-error@+1 {{'relay.transpose' op axes [0, 1] must have one entry per axis of rank 3}}
  %y = relay.transpose %x {axes = array<i64: 0, 1>} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @broadcast_to(%x: tensor<3xf32>) {
  // expected-error@+1 {{'relay.broadcast_to' op cannot broadcast 3 to 2x4}}
  %y = relay.broadcast_to %x {shape = array<i64: 2, 4>} : (tensor<3xf32>) -> tensor<2x4xf32>
  func.return
}

// -----

func.func @where_cond(%c: tensor<4xf32>, %x: tensor<4xf32>) {
  // expected-error@+1 {{'relay.where' op condition must have element type i1, got f32}}
  %y = relay.where %c, %x, %x : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @log_int(%x: tensor<4xi32>) {
  // expected-error@+1 {{'relay.log' op operand element type must be a float type, got i32}}
  %y = relay.log %x : (tensor<4xi32>) -> tensor<4xi32>
  func.return
}

// -----

func.func @param_empty() {
  // expected-error@+1 {{'relay.param' op name must not be empty}}
  %w = relay.param[""] : tensor<4xf32>
  func.return
}

// -----

func.func @const_type() {
  // expected-error@+1 {{dense literal dimension has 2 elements, type says 3}}
  %c = relay.const dense<[1.0, 2.0]> : tensor<3xf32>
  func.return
}

// -----

// A constant has a static shape: a dynamic dimension is refused at the literal.
func.func @const_dynamic() {
  // expected-error@+1 {{dense literal needs a static shape, got 'tensor<?xf32>'}}
  %c = relay.const dense<[1.0, 2.0]> : tensor<?xf32>
  func.return
}

// -----

func.func @const_dynamic_hex() {
  // expected-error@+1 {{dense literal needs a static shape, got 'tensor<?xf32>'}}
  %c = relay.const dense<"0x0000803F"> : tensor<?xf32>
  func.return
}

// -----

func.func @missing_prop(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'relay.reshape' op property 'newshape' expected}}
  %y = relay.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  func.return
}

// -----

func.func @batch_matmul(%x: tensor<2x3x5xf32>, %y: tensor<3x4x5xf32>) {
  // expected-error@+1 {{'relay.nn.batch_matmul' op batch sizes do not broadcast: 2 vs 3}}
  %z = relay.nn.batch_matmul %x, %y : (tensor<2x3x5xf32>, tensor<3x4x5xf32>) -> tensor<2x3x4xf32>
  func.return
}

// -----

func.func @winograd_tile(%x: tensor<1x8x8x16xf32>, %u: tensor<5x5x16x8xf32>) {
  // expected-error@+1 {{'relay.nn.contrib_conv2d_winograd_without_weight_transform' op tile_size must be 2 or 4, got 3}}
  %y = relay.nn.contrib_conv2d_winograd_without_weight_transform %x, %u {tile_size = 3 : i64} : (tensor<1x8x8x16xf32>, tensor<5x5x16x8xf32>) -> tensor<1x6x6x8xf32>
  func.return
}

// -----

func.func @winograd_alpha(%x: tensor<1x8x8x16xf32>, %u: tensor<4x4x16x8xf32>) {
  // expected-error@+1 {{'relay.nn.contrib_conv2d_winograd_without_weight_transform' op data must be 4-d NHWC and weight [6, 6, C, K] or [6, 6, K/b, C, b], got 1x8x8x16 and 4x4x16x8}}
  %y = relay.nn.contrib_conv2d_winograd_without_weight_transform %x, %u : (tensor<1x8x8x16xf32>, tensor<4x4x16x8xf32>) -> tensor<1x6x6x8xf32>
  func.return
}

// -----

func.func @winograd_channels(%x: tensor<1x8x8x16xf32>, %u: tensor<6x6x2x8x16xf32>) {
  // expected-error@+1 {{'relay.nn.contrib_conv2d_winograd_without_weight_transform' op data has 16 channels but weight expects 8}}
  %y = relay.nn.contrib_conv2d_winograd_without_weight_transform %x, %u : (tensor<1x8x8x16xf32>, tensor<6x6x2x8x16xf32>) -> tensor<1x6x6x32xf32>
  func.return
}

// -----

func.func @winograd_small(%x: tensor<1x1x2x16xf32>, %u: tensor<6x6x16x8xf32>) {
  // expected-error@+1 {{'relay.nn.contrib_conv2d_winograd_without_weight_transform' op 3x3 kernel is larger than padded input 1x2}}
  %y = relay.nn.contrib_conv2d_winograd_without_weight_transform %x, %u : (tensor<1x1x2x16xf32>, tensor<6x6x16x8xf32>) -> tensor<1x1x1x8xf32>
  func.return
}

// -----

func.func @gather_nd_components(%x: tensor<4x5xf32>, %i: tensor<3x2xi64>) {
  // expected-error@+1 {{'relay.gather_nd' op 3 index components and 0 batch dims do not fit data of rank 2}}
  %y = relay.gather_nd %x, %i : (tensor<4x5xf32>, tensor<3x2xi64>) -> tensor<2xf32>
  func.return
}

// -----

func.func @scatter_nd_updates(%x: tensor<4x5xf32>, %i: tensor<1x3xi64>, %u: tensor<3x4xf32>) {
  // expected-error@+1 {{'relay.scatter_nd' op updates shape 3x4 must be 3x5 (index dims, then data's trailing dims)}}
  %y = relay.scatter_nd %x, %i, %u : (tensor<4x5xf32>, tensor<1x3xi64>, tensor<3x4xf32>) -> tensor<4x5xf32>
  func.return
}

// -----

func.func @scatter_nd_mode(%x: tensor<4xf32>, %i: tensor<1x3xi64>, %u: tensor<3xf32>) {
  // expected-error@+1 {{'relay.scatter_nd' op mode must be one of "update", "add", "mul", "min", "max", got "mean"}}
  %y = relay.scatter_nd %x, %i, %u {mode = "mean"} : (tensor<4xf32>, tensor<1x3xi64>, tensor<3xf32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @gather_float_indices(%x: tensor<3x4xf32>, %i: tensor<3x4xf32>) {
  // expected-error@+1 {{'relay.gather' op indices must have an integer element type, got f32}}
  %y = relay.gather %x, %i : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  func.return
}

// -----

func.func @scatter_elements_exceeds(%x: tensor<3x3xf32>, %i: tensor<2x4xi64>, %u: tensor<2x4xf32>) {
  // expected-error@+1 {{'relay.scatter_elements' op indices shape 2x4 exceeds data shape 3x3 off axis 0}}
  %y = relay.scatter_elements %x, %i, %u : (tensor<3x3xf32>, tensor<2x4xi64>, tensor<2x4xf32>) -> tensor<3x3xf32>
  func.return
}

// -----

func.func @cumsum_axis(%x: tensor<3x3xf32>) {
  // expected-error@+1 {{'relay.cumsum' op axis 2 is out of range for rank 2}}
  %y = relay.cumsum %x {axis = 2 : i64} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  func.return
}

// -----

func.func @trilu_rank(%x: tensor<3xf32>) {
  // expected-error@+1 {{'relay.trilu' op data must have rank 2 or more, got 3}}
  %y = relay.trilu %x : (tensor<3xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @shift_float(%x: tensor<4xf32>) {
  // expected-error@+1 {{'relay.left_shift' op operand element type must be an integer type, got f32}}
  %z = relay.left_shift %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @shape_of_bool(%x: tensor<4xf32>) {
  // expected-error@+1 {{'relay.shape_of' op dtype must be an integer or float type, got i1}}
  %z = relay.shape_of %x {dtype = i1} : (tensor<4xf32>) -> tensor<1xi1>
  func.return
}

// -----

func.func @nms_result(%d: tensor<1x5x6xf32>, %v: tensor<1xi32>, %i: tensor<1x5xi32>, %m: tensor<i32>, %t: tensor<f32>) {
  // expected-error@+1 {{'relay.vision.non_max_suppression' op result type tensor<1x5x6xf32> does not match the inferred type tuple<tensor<1x5xi32>, tensor<1x1xi32>>}}
  %z = relay.vision.non_max_suppression %d, %v, %i, %m, %t : (tensor<1x5x6xf32>, tensor<1xi32>, tensor<1x5xi32>, tensor<i32>, tensor<f32>) -> tensor<1x5x6xf32>
  func.return
}

// -----

// Symbolic sizes (`?`): a result type must be as symbolic as the inferred one: batch_flatten of a `?` is no 12.
func.func @static_claim(%x: tensor<2x?x4xf32>) {
  // expected-error@+1 {{'relay.nn.batch_flatten' op result type tensor<2x12xf32> does not match the inferred type tensor<2x?xf32>}}
  %f = relay.nn.batch_flatten %x : (tensor<2x?x4xf32>) -> tensor<2x12xf32>
  func.return
}

// -----

func.func @roi_align_mode(%x: tensor<1x4x6x6xf32>, %r: tensor<3x5xf32>) {
  // expected-error@+1 {{'relay.vision.roi_align' op mode must be one of "avg", "max", got "sum"}}
  %z = relay.vision.roi_align %x, %r {pooled_size = array<i64: 2, 2>, spatial_scale = 1.0 : f64, mode = "sum"} : (tensor<1x4x6x6xf32>, tensor<3x5xf32>) -> tensor<3x4x2x2xf32>
  func.return
}

// -----

// Static sizes beside a symbolic one must still agree.
func.func @concat(%x: tensor<?x3xf32>, %y: tensor<?x2xf32>) {
  // expected-error@+1 {{'relay.concatenate' op operand shapes differ outside axis 0: ?x3 vs ?x2}}
  %c = relay.concatenate %x, %y : (tensor<?x3xf32>, tensor<?x2xf32>) -> tensor<?x3xf32>
  func.return
}

// -----

func.func @conv3d_channels(%x: tensor<1x4x3x3x3xf32>, %w: tensor<2x3x1x1x1xf32>) {
  // expected-error@+1 {{'relay.nn.conv3d' op data has 4 channels but weight expects 3 (3 per group x 1 groups)}}
  %y = relay.nn.conv3d %x, %w : (tensor<1x4x3x3x3xf32>, tensor<2x3x1x1x1xf32>) -> tensor<1x2x3x3x3xf32>
  func.return
}

// -----

func.func @conv1d_transpose_output_padding(%x: tensor<1x4x3xf32>, %w: tensor<4x2x3xf32>) {
  // expected-error@+1 {{'relay.nn.conv1d_transpose' op output_padding must be 1 non-negative integers, got [1, 1]}}
  %y = relay.nn.conv1d_transpose %x, %w {output_padding = array<i64: 1, 1>} : (tensor<1x4x3xf32>, tensor<4x2x3xf32>) -> tensor<1x2x5xf32>
  func.return
}

// -----

func.func @max_pool3d_padding(%x: tensor<1x2x4x4x4xf32>) {
  // expected-error@+1 {{'relay.nn.max_pool3d' op padding must be 6 non-negative integers (before, then after each spatial axis), got [1, 1, 1, 1]}}
  %y = relay.nn.max_pool3d %x {pool_size = array<i64: 2, 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x3x3x3xf32>
  func.return
}

// -----

func.func @adaptive_pool_layout(%x: tensor<1x2x4x4xf32>) {
  // expected-error@+1 {{'relay.nn.adaptive_max_pool2d' op layout must be "NCHW" or "NHWC", got "NCW"}}
  %y = relay.nn.adaptive_max_pool2d %x {output_size = array<i64: 2, 2>, layout = "NCW"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  func.return
}
