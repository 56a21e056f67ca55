// RUN: xtvm-opt %s -p relay-fuse-ops --split-input-file | filecheck %s

// TVM's classic: conv2d absorbs the bias_add and relu after it; the weights stay arguments.
// CHECK-LABEL: func.func private @fused_nn_conv2d_nn_bias_add_nn_relu
// CHECK-SAME:    (%[[X:[[:alnum:]_]+]]: tensor<1x3x8x8xf32>, %[[W:[[:alnum:]_]+]]: tensor<4x3x3x3xf32>, %[[B:[[:alnum:]_]+]]: tensor<4xf32>) -> tensor<1x4x8x8xf32> attributes {primitive}
// CHECK-NEXT:    %[[C:.*]] = relay.nn.conv2d %[[X]], %[[W]]
// CHECK-NEXT:    %[[BA:.*]] = relay.nn.bias_add %[[C]], %[[B]]
// CHECK-NEXT:    %[[R:.*]] = relay.nn.relu %[[BA]]
// CHECK-NEXT:    func.return %[[R]]
// CHECK-LABEL: func.func @conv2d_bias_relu
// CHECK-NEXT:    %[[PW:.*]] = relay.param["w"]
// CHECK-NEXT:    %[[PB:.*]] = relay.param["b"]
// CHECK-NEXT:    %[[Y:.*]] = func.call @fused_nn_conv2d_nn_bias_add_nn_relu(%{{.*}}, %[[PW]], %[[PB]])
// CHECK-NEXT:    func.return %[[Y]]
func.func @conv2d_bias_relu(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = relay.param["w"] : tensor<4x3x3x3xf32>
  %b = relay.param["b"] : tensor<4xf32>
  %c = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %ba = relay.nn.bias_add %c, %b : (tensor<1x4x8x8xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %r = relay.nn.relu %ba : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %r : tensor<1x4x8x8xf32>
}

// -----

// A diamond of elementwise ops fuses into one function: both branches meet at the multiply,
// the post-dominator of the add. The scalar constant used only there moves inside.
// CHECK-LABEL: func.func private @fused_add_exp_sqrt_multiply
// CHECK-SAME:    (%[[X:[[:alnum:]_]+]]: tensor<4x4xf32>) -> tensor<4x4xf32> attributes {primitive}
// CHECK-NEXT:    %[[ONE:.*]] = relay.const
// CHECK-NEXT:    %[[A:.*]] = relay.add %[[X]], %[[ONE]]
// CHECK-NEXT:    %[[E:.*]] = relay.exp %[[A]]
// CHECK-NEXT:    %[[S:.*]] = relay.sqrt %[[A]]
// CHECK-NEXT:    %[[M:.*]] = relay.multiply %[[E]], %[[S]]
// CHECK-NEXT:    func.return %[[M]]
// CHECK-LABEL: func.func @diamond
// CHECK-NEXT:    %[[Y:.*]] = func.call @fused_add_exp_sqrt_multiply(%{{.*}})
// CHECK-NEXT:    func.return %[[Y]]
func.func @diamond(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %one = relay.const dense<1.0> : tensor<f32>
  %a = relay.add %x, %one : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %e = relay.exp %a : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = relay.sqrt %a : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = relay.multiply %e, %s : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return %m : tensor<4x4xf32>
}

// -----

// A reduction absorbs its elementwise input; as in TVM, ops after a reduction start a new group,
// and an injective (not elementwise) producer of a reduction stays apart.
// CHECK-LABEL: func.func private @fused_exp_sum
// CHECK-NEXT:    relay.exp
// CHECK-NEXT:    relay.sum
// CHECK-NEXT:    func.return
// CHECK-LABEL: func.func private @fused_sqrt
// CHECK-LABEL: func.func private @fused_transpose
// CHECK-LABEL: func.func private @fused_max
// CHECK-LABEL: func.func @reduction
// CHECK-NEXT:    %[[S:.*]] = func.call @fused_exp_sum(
// CHECK-NEXT:    %[[R:.*]] = func.call @fused_sqrt(%[[S]])
// CHECK-NEXT:    %[[T:.*]] = func.call @fused_transpose(
// CHECK-NEXT:    %[[M:.*]] = func.call @fused_max(%[[T]])
// CHECK-NEXT:    func.return %[[R]], %[[M]]
func.func @reduction(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<8xf32>) {
  %e = relay.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = relay.sum %e {axis = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  %r = relay.sqrt %s : (tensor<4xf32>) -> tensor<4xf32>
  %t = relay.transpose %x : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %m = relay.max %t {axis = array<i64: 1>} : (tensor<8x4xf32>) -> tensor<8xf32>
  func.return %r, %m : tensor<4xf32>, tensor<8xf32>
}

// -----

// An opaque op (lrn) is a function of its own and splits the elementwise chain around it.
// CHECK-LABEL: func.func private @fused_exp
// CHECK-LABEL: func.func private @fused_nn_lrn
// CHECK-NEXT:    relay.nn.lrn
// CHECK-NEXT:    func.return
// CHECK-LABEL: func.func private @fused_exp_1
// CHECK-LABEL: func.func @opaque_split
// CHECK-NEXT:    %[[A:.*]] = func.call @fused_exp(
// CHECK-NEXT:    %[[B:.*]] = func.call @fused_nn_lrn(%[[A]])
// CHECK-NEXT:    %[[C:.*]] = func.call @fused_exp_1(%[[B]])
// CHECK-NEXT:    func.return %[[C]]
func.func @opaque_split(%x: tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32> {
  %a = relay.exp %x : (tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32>
  %b = relay.nn.lrn %a {size = 3 : i64} : (tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32>
  %c = relay.exp %b : (tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32>
  func.return %c : tensor<1x6x4x4xf32>
}

// -----

// TVM's test_concatenate: the pool stands alone (its consumer is injective, not elementwise);
// upsampling, concatenate and the add fuse.
// CHECK-LABEL: func.func private @fused_nn_max_pool2d
// CHECK-LABEL: func.func private @fused_nn_upsampling_concatenate_add
// CHECK-NEXT:    relay.nn.upsampling
// CHECK-NEXT:    relay.concatenate
// CHECK-NEXT:    relay.const
// CHECK-NEXT:    relay.add
// CHECK-NEXT:    func.return
// CHECK-LABEL: func.func @concatenate
// CHECK-NEXT:    %[[P:.*]] = func.call @fused_nn_max_pool2d(%[[X:[[:alnum:]_]+]])
// CHECK-NEXT:    %[[Y:.*]] = func.call @fused_nn_upsampling_concatenate_add(%[[P]], %[[X]])
// CHECK-NEXT:    func.return %[[Y]]
func.func @concatenate(%x: tensor<1x4x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %p = relay.nn.max_pool2d %x {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %u = relay.nn.upsampling %p {scale_h = 2.0 : f64, scale_w = 2.0 : f64} : (tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32>
  %c = relay.concatenate %u, %x {axis = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x8x8x8xf32>
  %one = relay.const dense<1.0> : tensor<f32>
  %y = relay.add %c, %one : (tensor<1x8x8x8xf32>, tensor<f32>) -> tensor<1x8x8x8xf32>
  func.return %y : tensor<1x8x8x8xf32>
}

// -----

// TVM's test_tuple_root: a returned tuple stays inline and nothing fuses into it.
// CHECK-LABEL: func.func private @fused_nn_max_pool2d
// CHECK-LABEL: func.func private @fused_nn_upsampling
// CHECK-LABEL: func.func @tuple_root
// CHECK-NEXT:    %[[P:.*]] = func.call @fused_nn_max_pool2d(%[[X:[[:alnum:]_]+]])
// CHECK-NEXT:    %[[U:.*]] = func.call @fused_nn_upsampling(%[[P]])
// CHECK-NEXT:    %[[T:.*]] = relay.tuple %[[U]], %[[X]]
// CHECK-NEXT:    func.return %[[T]]
func.func @tuple_root(%x: tensor<1x4x8x8xf32>) -> tuple<tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>> {
  %p = relay.nn.max_pool2d %x {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %u = relay.nn.upsampling %p {scale_h = 2.0 : f64, scale_w = 2.0 : f64} : (tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32>
  %t = relay.tuple %u, %x : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tuple<tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>>
  func.return %t : tuple<tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>>
}

// -----

// Tuples inside a group: the fields of a split fuse into the add that reads them; the exp is
// returned, so it ends its own group. A group's result may be a whole tuple (the last function).
// CHECK-LABEL: func.func private @fused_exp
// CHECK-LABEL: func.func private @fused_split_add
// CHECK-SAME:    -> tensor<2xf32> attributes {primitive}
// CHECK-NEXT:    relay.split
// CHECK-NEXT:    relay.tuple_get_item
// CHECK-NEXT:    relay.tuple_get_item
// CHECK-NEXT:    relay.add
// CHECK-LABEL: func.func private @fused_negative_split
// CHECK-SAME:    -> tuple<tensor<2xf32>, tensor<2xf32>> attributes {primitive}
// CHECK-LABEL: func.func @split_fields
// CHECK-NEXT:    %[[E:.*]] = func.call @fused_exp(
// CHECK-NEXT:    %[[Y:.*]] = func.call @fused_split_add(%[[E]])
// CHECK-NEXT:    %[[T:.*]] = func.call @fused_negative_split(%[[E]])
// CHECK-NEXT:    func.return %[[E]], %[[Y]], %[[T]]
func.func @split_fields(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xf32>, tuple<tensor<2xf32>, tensor<2xf32>>) {
  %e = relay.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %t = relay.split %e {indices_or_sections = 2 : i64} : (tensor<4xf32>) -> tuple<tensor<2xf32>, tensor<2xf32>>
  %a = relay.tuple_get_item %t[0] : (tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
  %b = relay.tuple_get_item %t[1] : (tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
  %y = relay.add %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %n = relay.negative %e : (tensor<4xf32>) -> tensor<4xf32>
  %u = relay.split %n {indices_or_sections = 2 : i64} : (tensor<4xf32>) -> tuple<tensor<2xf32>, tensor<2xf32>>
  func.return %e, %y, %u : tensor<4xf32>, tensor<2xf32>, tuple<tensor<2xf32>, tensor<2xf32>>
}

// -----

// Functions already primitive, private, or claimed by an external compiler are left alone.
// CHECK-LABEL: func.func @external
// CHECK-NEXT:    relay.exp
// CHECK-LABEL: func.func private @helper
// CHECK-NEXT:    relay.exp
// CHECK-NOT:     func.func private @fused
func.func @external(%x: tensor<4xf32>) -> tensor<4xf32> attributes {compiler = "accel"} {
  %e = relay.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %e : tensor<4xf32>
}
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = relay.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %e : tensor<4xf32>
}

// -----

// Each add reads its operand twice: once inlined, the exp would run 2^5 = 32 times per element
// in one kernel. The merge that would pass 16 copies is refused; the last add is its own kernel.
// CHECK-LABEL: func.func private @fused_exp_add_add_add_add
// CHECK:         func.return %[[E:.*]] : tensor<4xf32>
// CHECK-LABEL: func.func private @fused_add
// CHECK-NEXT:    relay.add
// CHECK-NEXT:    func.return
// CHECK-LABEL: func.func @doubling_chain
// CHECK-NEXT:    %[[IN:.*]] = func.call @fused_exp_add_add_add_add(%{{.*}})
// CHECK-NEXT:    %{{.*}} = func.call @fused_add(%[[IN]])
func.func @doubling_chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = relay.add %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = relay.add %b, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %d = relay.add %c, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %e = relay.add %d, %d : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %f = relay.add %e, %e : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %f : tensor<4xf32>
}
