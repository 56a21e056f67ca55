// RUN: xtvm-opt %s -p relay-fuse-ops,convert-relay-to-te --split-input-file | filecheck %s
// RUN: xtvm-opt %s -p 'relay-fuse-ops,convert-relay-to-te{target=cuda}' --split-input-file | filecheck %s --check-prefix=CUDA

// An elementwise chain becomes one kernel whose producers are inlined into the last stage,
// the only one with loops; the splat constant is read as a value, not passed.
// CHECK-LABEL: func.func private @fused_add_exp_multiply
// CHECK-SAME:    (%[[X:.*]]: tensor<7x13xf32>, %[[Y:.*]]: tensor<13xf32>) -> tensor<7x13xf32> {
// CHECK:         %[[ADD:.*]] = te.compute "T_add"
// CHECK:           te.read %[[X]]
// CHECK:           te.read %[[Y]][%{{.*}}] : tensor<13xf32>
// CHECK:         } {axis_names = ["i0", "i1"], tag = "broadcast"} : tensor<7x13xf32>
// CHECK:         %[[EXP:.*]] = te.compute "T_exp"
// CHECK:           te.read %[[ADD]]
// CHECK:           math.exp
// CHECK:         %[[MUL:.*]] = te.compute "T_multiply"
// CHECK:           te.read %[[EXP]]
// CHECK:           arith.constant 1.000000e+00 : f32
// CHECK:         te.schedule {
// CHECK-NEXT:      te.compute_inline "T_add"
// CHECK-NEXT:      te.compute_inline "T_exp"
// CHECK-NEXT:      te.parallel "T_multiply" {axis = "i0"}
// CHECK-NEXT:      te.vectorize "T_multiply" {axis = "i1"}
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[MUL]] : tensor<7x13xf32>
// CHECK-LABEL: func.func @elementwise_chain
// CHECK-NOT:     relay.const
// CHECK:         func.call @fused_add_exp_multiply(%{{.*}}, %{{.*}}) : (tensor<7x13xf32>, tensor<13xf32>) -> tensor<7x13xf32>
// CUDA-LABEL:  func.func private @fused_add_exp_multiply
// CUDA:          te.schedule {
// CUDA-NEXT:       te.compute_inline "T_add"
// CUDA-NEXT:       te.compute_inline "T_exp"
// CUDA-NEXT:       te.fuse "T_multiply" {axes = ["i0", "i1"], fused = "i0.i1.fused"}
// CUDA-NEXT:       te.split "T_multiply" {axis = "i0.i1.fused", factor = 91 : i64, outer = "i0.i1.fused.outer", inner = "i0.i1.fused.inner"}
// CUDA-NEXT:       te.bind "T_multiply" {axis = "i0.i1.fused.outer", thread = "blockIdx.x"}
// CUDA-NEXT:       te.bind "T_multiply" {axis = "i0.i1.fused.inner", thread = "threadIdx.x"}
// CUDA-NEXT:     }
func.func @elementwise_chain(%x: tensor<7x13xf32>, %y: tensor<13xf32>) -> tensor<7x13xf32> {
  %one = relay.const dense<1.0> : tensor<f32>
  %a = relay.add %x, %y : (tensor<7x13xf32>, tensor<13xf32>) -> tensor<7x13xf32>
  %e = relay.exp %a : (tensor<7x13xf32>) -> tensor<7x13xf32>
  %m = relay.multiply %e, %one : (tensor<7x13xf32>, tensor<f32>) -> tensor<7x13xf32>
  func.return %m : tensor<7x13xf32>
}

// -----

// conv2d + bias_add + relu: the padding and the bias are inlined, the convolution gets its
// register tile (8 output channels x 16 columns, reduction outside the tile, the loops outside
// fused and parallel), relu the injective schedule; the bias constant is hoisted to the call.
// CHECK-LABEL: func.func private @fused_nn_conv2d_nn_bias_add_nn_relu
// CHECK-SAME:    (%[[X:.*]]: tensor<1x3x8x34xf32>, %[[W:.*]]: tensor<16x3x3x3xf32>, %[[B:.*]]: tensor<16xf32>) -> tensor<1x16x8x34xf32> {
// CHECK:         %[[PAD:.*]] = te.compute "pad_temp"
// CHECK:           scf.if
// CHECK:             te.read %[[X]]
// CHECK:         } {axis_names = ["i0", "i1", "i2", "i3"], tag = "injective,pad"} : tensor<1x3x10x36xf32>
// CHECK:         %[[CONV:.*]] = te.compute "conv2d_nchw" {
// CHECK-NEXT:    ^bb0(%[[N:.*]]: index, %[[F:.*]]: index, %[[OY:.*]]: index, %[[OX:.*]]: index):
// CHECK-NEXT:      te.reduce "sum" {
// CHECK-NEXT:      ^bb0(%[[RC:.*]]: index, %[[RY:.*]]: index, %[[RX:.*]]: index):
// CHECK-NEXT:        %[[IY:.*]] = arith.addi %[[OY]], %[[RY]] : index
// CHECK-NEXT:        %[[IX:.*]] = arith.addi %[[OX]], %[[RX]] : index
// CHECK-NEXT:        %[[IN:.*]] = te.read %[[PAD]][%[[N]], %[[RC]], %[[IY]], %[[IX]]]
// CHECK-NEXT:        %[[WT:.*]] = te.read %[[W]][%[[F]], %[[RC]], %[[RY]], %[[RX]]]
// CHECK-NEXT:        %[[P:.*]] = arith.mulf %[[IN]], %[[WT]] : f32
// CHECK-NEXT:        te.yield %[[P]] : f32
// CHECK-NEXT:      } {extents = array<i64: 3, 3, 3>, axis_names = ["rc", "ry", "rx"]} : f32
// CHECK:         } {axis_names = ["n", "f", "y", "x"], tag = "conv2d_nchw"} : tensor<1x16x8x34xf32>
// CHECK:         te.compute "T_bias_add"
// CHECK:           te.read %[[B]]
// CHECK:         te.compute "T_relu"
// CHECK:         te.schedule {
// CHECK-NEXT:      te.compute_inline "pad_temp"
// CHECK-NEXT:      te.compute_inline "T_bias_add"
// The padding is computed once, in parallel; the convolution is computed inside each 8x16
// tile of the relu stage that ends the group, unrolled over channels, vectorized along x.
// CHECK-NEXT:      te.compute_root "pad_temp"
// CHECK-NEXT:      te.fuse "pad_temp" {axes = ["i0", "i1", "i2"], fused = "i0.i1.i2.fused"}
// CHECK-NEXT:      te.parallel "pad_temp" {axis = "i0.i1.i2.fused"}
// CHECK-NEXT:      te.vectorize "pad_temp" {axis = "i3"}
// CHECK-NEXT:      te.split "T_relu" {axis = "i1", factor = 8 : i64, outer = "i1.outer", inner = "i1.inner"}
// CHECK-NEXT:      te.split "T_relu" {axis = "i3", factor = 16 : i64, outer = "i3.outer", inner = "i3.inner"}
// CHECK-NEXT:      te.reorder "T_relu" {order = ["i0", "i1.outer", "i2", "i3.outer", "i1.inner", "i3.inner"]}
// CHECK-NEXT:      te.fuse "T_relu" {axes = ["i0", "i1.outer", "i2"], fused = "i0.i1.outer.i2.fused"}
// CHECK-NEXT:      te.parallel "T_relu" {axis = "i0.i1.outer.i2.fused"}
// CHECK-NEXT:      te.vectorize "T_relu" {axis = "i3.inner"}
// CHECK-NEXT:      te.compute_at "conv2d_nchw" {parent = "T_relu", axis = "i3.outer"}
// CHECK-NEXT:      te.reorder "conv2d_nchw" {order = ["n", "y", "rc", "ry", "rx", "f", "x"]}
// CHECK-NEXT:      te.unroll "conv2d_nchw" {axis = "f"}
// CHECK-NEXT:      te.vectorize "conv2d_nchw" {axis = "x"}
// CHECK-NEXT:    }
// CHECK-LABEL: func.func @conv2d_bias_relu
// CHECK-NEXT:    %[[PW:.*]] = relay.param["w"]
// CHECK-NEXT:    %[[PB:.*]] = relay.const dense<
// CHECK-NEXT:    %{{.*}} = func.call @fused_nn_conv2d_nn_bias_add_nn_relu(%{{.*}}, %[[PW]], %[[PB]])
// On CUDA the convolution is tiled over blocks and threads, its weight and padded input
// staged through shared memory per input-channel block.
// CUDA-LABEL:  func.func private @fused_nn_conv2d_nn_bias_add_nn_relu
// CUDA:          te.bind "conv2d_nchw" {axis = "n", thread = "blockIdx.z"}
// CUDA-NEXT:     te.bind "conv2d_nchw" {axis = "f.outer", thread = "blockIdx.y"}
// CUDA-NEXT:     te.bind "conv2d_nchw" {axis = "y.x.fused.outer", thread = "blockIdx.x"}
// CUDA-NEXT:     te.bind "conv2d_nchw" {axis = "f.inner.outer", thread = "threadIdx.y"}
// CUDA-NEXT:     te.bind "conv2d_nchw" {axis = "y.x.fused.inner.outer", thread = "threadIdx.x"}
// CUDA-NEXT:     %{{.*}} = te.cache_read %w {name = "w.shared", scope = "shared", readers = ["conv2d_nchw"]}
// CUDA-NEXT:     te.compute_at "w.shared" {parent = "conv2d_nchw", axis = "rc.outer"}
// CUDA:          %{{.*}} = te.cache_read %pad_temp {name = "pad_temp.shared", scope = "shared", readers = ["conv2d_nchw"]}
// CUDA-NEXT:     te.compute_at "pad_temp.shared" {parent = "conv2d_nchw", axis = "rc.outer"}
func.func @conv2d_bias_relu(%x: tensor<1x3x8x34xf32>) -> tensor<1x16x8x34xf32> {
  %w = relay.param["w"] : tensor<16x3x3x3xf32>
  %b = relay.const dense<[0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5]> : tensor<16xf32>
  %c = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x34xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x8x34xf32>
  %ba = relay.nn.bias_add %c, %b : (tensor<1x16x8x34xf32>, tensor<16xf32>) -> tensor<1x16x8x34xf32>
  %r = relay.nn.relu %ba : (tensor<1x16x8x34xf32>) -> tensor<1x16x8x34xf32>
  func.return %r : tensor<1x16x8x34xf32>
}

// -----

// Two dense + sigmoid groups with the same shapes share one kernel; each call passes its own
// weight, the constant one hoisted out of its function.
// CHECK-LABEL: func.func private @fused_nn_dense_sigmoid
// CHECK-SAME:    (%{{.*}}: tensor<2x8xf32>, %{{.*}}: tensor<8x8xf32>) -> tensor<2x8xf32> {
// CHECK:         } {axis_names = ["i0", "i1"], tag = "dense"} : tensor<2x8xf32>
// CHECK-NOT:   func.func private
// CHECK-LABEL: func.func @dense_twice
// CHECK-NEXT:    %[[W1:.*]] = relay.const dense<{{.*}}> : tensor<8x8xf32>
// CHECK-NEXT:    %[[S1:.*]] = func.call @fused_nn_dense_sigmoid(%{{.*}}, %[[W1]])
// CHECK-NEXT:    %[[W2:.*]] = relay.param["w2"]
// CHECK-NEXT:    %[[S2:.*]] = func.call @fused_nn_dense_sigmoid(%[[S1]], %[[W2]])
// CHECK-NEXT:    func.return %[[S2]]
func.func @dense_twice(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %w1 = relay.const dense<[[0.5, -0.5, 0.25, 1.0, 0.0, 2.0, -1.0, 0.125], [0.5, -0.5, 0.25, 1.0, 0.0, 2.0, -1.0, 0.125], [0.5, -0.5, 0.25, 1.0, 0.0, 2.0, -1.0, 0.125], [0.5, -0.5, 0.25, 1.0, 0.0, 2.0, -1.0, 0.125], [0.5, -0.5, 0.25, 1.0, 0.0, 2.0, -1.0, 0.125], [0.5, -0.5, 0.25, 1.0, 0.0, 2.0, -1.0, 0.125], [0.5, -0.5, 0.25, 1.0, 0.0, 2.0, -1.0, 0.125], [0.5, -0.5, 0.25, 1.0, 0.0, 2.0, -1.0, 0.125]]> : tensor<8x8xf32>
  %d1 = relay.nn.dense %x, %w1 : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
  %s1 = relay.sigmoid %d1 : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %w2 = relay.param["w2"] : tensor<8x8xf32>
  %d2 = relay.nn.dense %s1, %w2 : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
  %s2 = relay.sigmoid %d2 : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %s2 : tensor<2x8xf32>
}

// -----

// A tuple result is flattened: split's kernel returns three tensors, which @main reads
// directly where it took tuple fields. Softmax is three stages: two reductions, each with
// parallel rows, and the normalisation inlined into the maximum after it.
// CHECK-LABEL: func.func private @fused_split
// CHECK-SAME:    -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
// CHECK-LABEL: func.func private @fused_nn_softmax_maximum
// CHECK:         te.compute "T_softmax_maxelem"
// CHECK:           te.reduce "max"
// CHECK:         te.compute "T_softmax_expsum"
// CHECK:           te.reduce "sum"
// CHECK:         te.schedule {
// CHECK-NEXT:      te.compute_inline "T_softmax_norm"
// CHECK-NEXT:      te.parallel "T_softmax_maxelem" {axis = "i0"}
// CHECK-NEXT:      te.parallel "T_softmax_expsum" {axis = "i0"}
// CHECK-LABEL: func.func @split_tuple
// CHECK-NEXT:    %[[A:.*]], %{{.*}}, %[[B:.*]] = func.call @fused_split(%{{.*}})
// CHECK-NEXT:    %[[M:.*]] = func.call @fused_nn_softmax_maximum(%[[A]], %[[B]])
// CHECK-NEXT:    func.return %[[M]]
func.func @split_tuple(%x: tensor<2x6xf32>) -> tensor<2x2xf32> {
  %t = relay.split %x {indices_or_sections = 3 : i64, axis = 1 : i64} : (tensor<2x6xf32>) -> tuple<tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>>
  %a = relay.tuple_get_item %t[0] : (tuple<tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>>) -> tensor<2x2xf32>
  %b = relay.tuple_get_item %t[2] : (tuple<tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>>) -> tensor<2x2xf32>
  %s = relay.nn.softmax %a : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %m = relay.maximum %s, %b : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %m : tensor<2x2xf32>
}

// -----

// Unsigned tensors are te uint8 tensors: values keep the ui8 type and the ops whose meaning
// depends on signedness take their unsigned variant (divui, cmpi ult).
// CHECK-LABEL: func.func private @fused_divide_less
// CHECK-SAME:    (%[[X:.*]]: tensor<4xui8>, %[[Y:.*]]: tensor<4xui8>) -> tensor<4xi1> {
// CHECK:         %[[DIV:.*]] = te.compute "T_divide"
// CHECK:           %[[A:.*]] = te.read %[[X]][%{{.*}}] : tensor<4xui8> -> ui8
// CHECK-NEXT:      %[[B:.*]] = te.read %[[Y]][%{{.*}}] : tensor<4xui8> -> ui8
// CHECK-NEXT:      %[[Q:.*]] = arith.divui %[[A]], %[[B]] : ui8
// CHECK:         te.compute "T_less"
// CHECK:           arith.cmpi ult, %{{.*}}, %{{.*}} : ui8
// CHECK-LABEL: func.func @unsigned_divide_less
func.func @unsigned_divide_less(%x: tensor<4xui8>, %y: tensor<4xui8>) -> tensor<4xi1> {
  %q = relay.divide %x, %y : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %l = relay.less %q, %y : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  func.return %l : tensor<4xi1>
}

// -----

// Relay ops whose results nobody reads (relay-fuse-ops leaves them in place) are pure: they
// go, with the ops only they read, rather than becoming kernels with no output.
// CHECK-LABEL: func.func private @fused_less_where
// CHECK-NOT:   func.func private
// CHECK-LABEL: func.func @unread_ops
// CHECK-NEXT:    %[[W:.*]] = func.call @fused_less_where(%{{.*}}, %{{.*}})
// CHECK-NEXT:    func.return %[[W]] : tensor<4xf32>
func.func @unread_ops(%x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<4xi32>) -> tensor<4xf32> {
  %eq = relay.equal %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %lt = relay.less %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %gt = relay.greater %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %n = relay.logical_not %gt : (tensor<4xi1>) -> tensor<4xi1>
  %w = relay.where %lt, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %w : tensor<4xf32>
}

// -----

// A transpose of the innermost axes of a chain computed from two tensors (rotary embeddings
// on keys, transposed for Q.K^T): the chain runs contiguous into a buffer of its own (T_add,
// not inlined), and the transpose is a copy in 8x8 register squares; inlined, each output
// vector recomputed the chain from elements a row apart.
// CHECK-LABEL: func.func private @fused_strided_slice_strided_slice_negative_concatenate_multiply_multiply_add_transpose
// CHECK:         te.schedule {
// CHECK:           te.compute_inline "T_multiply_1"
// CHECK-NOT:       te.compute_inline
// CHECK:           te.parallel "T_add" {axis = "i0.i1.fused"}
// CHECK-NEXT:      te.vectorize "T_add" {axis = "i2"}
// CHECK-NEXT:      te.split "T_transpose" {axis = "i1", factor = 8 : i64, outer = "i1.outer", inner = "i1.inner"}
// CHECK-NEXT:      te.split "T_transpose" {axis = "i2", factor = 8 : i64, outer = "i2.outer", inner = "i2.inner"}
// CHECK:           te.vectorize "T_transpose" {axis = "i2.inner"}
// CHECK-NEXT:    }
func.func @rotary_transposed(%x: tensor<4x16x16xf32>, %c: tensor<16x16xf32>) -> tensor<4x16x16xf32> {
  %lo = relay.strided_slice %x {begin = array<i64: 0>, end = array<i64: 8>, axes = array<i64: 2>} : (tensor<4x16x16xf32>) -> tensor<4x16x8xf32>
  %hi = relay.strided_slice %x {begin = array<i64: 8>, end = array<i64: 16>, axes = array<i64: 2>} : (tensor<4x16x16xf32>) -> tensor<4x16x8xf32>
  %n = relay.negative %hi : (tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  %t = relay.concatenate %n, %lo {axis = 2 : i64} : (tensor<4x16x8xf32>, tensor<4x16x8xf32>) -> tensor<4x16x16xf32>
  %a = relay.multiply %x, %c : (tensor<4x16x16xf32>, tensor<16x16xf32>) -> tensor<4x16x16xf32>
  %b = relay.multiply %t, %c : (tensor<4x16x16xf32>, tensor<16x16xf32>) -> tensor<4x16x16xf32>
  %s = relay.add %a, %b : (tensor<4x16x16xf32>, tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %r = relay.transpose %s {axes = array<i64: 0, 2, 1>} : (tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  func.return %r : tensor<4x16x16xf32>
}
