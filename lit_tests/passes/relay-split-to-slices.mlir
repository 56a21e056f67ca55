// RUN: xtvm-opt %s -p relay-split-to-slices --split-input-file | filecheck %s

// Every part read by injective ops: one strided_slice per part, at the split's boundaries.
// CHECK-LABEL: func.func @parts_read_by_reshapes
// CHECK-SAME:    (%[[X:.*]]: tensor<2x12xf32>)
// CHECK-NOT:     relay.split
// CHECK:         %[[A:.*]] = relay.strided_slice %[[X]] {begin = array<i64: 0>, end = array<i64: 4>, axes = array<i64: 1>}
// CHECK-NEXT:    %[[B:.*]] = relay.strided_slice %[[X]] {begin = array<i64: 4>, end = array<i64: 12>, axes = array<i64: 1>}
// CHECK-NEXT:    relay.reshape %[[A]]
// CHECK-NEXT:    relay.transpose %[[B]]
func.func @parts_read_by_reshapes(%x: tensor<2x12xf32>) -> (tensor<8xf32>, tensor<8x2xf32>) {
  %t = relay.split %x {indices_or_sections = array<i64: 4>, axis = -1 : i64} : (tensor<2x12xf32>) -> tuple<tensor<2x4xf32>, tensor<2x8xf32>>
  %a = relay.tuple_get_item %t[0] : (tuple<tensor<2x4xf32>, tensor<2x8xf32>>) -> tensor<2x4xf32>
  %b = relay.tuple_get_item %t[1] : (tuple<tensor<2x4xf32>, tensor<2x8xf32>>) -> tensor<2x8xf32>
  %ra = relay.reshape %a {newshape = array<i64: 8>} : (tensor<2x4xf32>) -> tensor<8xf32>
  %tb = relay.transpose %b : (tensor<2x8xf32>) -> tensor<8x2xf32>
  func.return %ra, %tb : tensor<8xf32>, tensor<8x2xf32>
}

// -----

// A part returned (or read by a product, a conv2d): the split stays one kernel.
// CHECK-LABEL: func.func @part_returned
// CHECK:         relay.split
// CHECK-NOT:     relay.strided_slice
func.func @part_returned(%x: tensor<2x12xf32>) -> (tensor<2x6xf32>, tensor<2x6xf32>) {
  %t = relay.split %x {indices_or_sections = 2 : i64, axis = 1 : i64} : (tensor<2x12xf32>) -> tuple<tensor<2x6xf32>, tensor<2x6xf32>>
  %a = relay.tuple_get_item %t[0] : (tuple<tensor<2x6xf32>, tensor<2x6xf32>>) -> tensor<2x6xf32>
  %b = relay.tuple_get_item %t[1] : (tuple<tensor<2x6xf32>, tensor<2x6xf32>>) -> tensor<2x6xf32>
  %e = relay.exp %a : (tensor<2x6xf32>) -> tensor<2x6xf32>
  func.return %e, %b : tensor<2x6xf32>, tensor<2x6xf32>
}

// -----

// A part added to a product's result (the LSTM's input gates of one step): the add joins the
// product's kernel, where a slice cannot; the split stays.
// CHECK-LABEL: func.func @part_added_to_a_product
// CHECK:         relay.split
// CHECK-NOT:     relay.strided_slice
func.func @part_added_to_a_product(%x: tensor<1x8xf32>, %h: tensor<1x4xf32>, %w: tensor<4x4xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>) {
  %t = relay.split %x {indices_or_sections = 2 : i64, axis = 1 : i64} : (tensor<1x8xf32>) -> tuple<tensor<1x4xf32>, tensor<1x4xf32>>
  %a = relay.tuple_get_item %t[0] : (tuple<tensor<1x4xf32>, tensor<1x4xf32>>) -> tensor<1x4xf32>
  %b = relay.tuple_get_item %t[1] : (tuple<tensor<1x4xf32>, tensor<1x4xf32>>) -> tensor<1x4xf32>
  %d = relay.nn.dense %h, %w : (tensor<1x4xf32>, tensor<4x4xf32>) -> tensor<1x4xf32>
  %s = relay.add %a, %d : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  %e = relay.exp %b : (tensor<1x4xf32>) -> tensor<1x4xf32>
  func.return %s, %e : tensor<1x4xf32>, tensor<1x4xf32>
}
