// Symbolic sizes (`?`: TVM's `relay.Any()` and size variables) through type inference: a size
// derived from a symbolic one is symbolic, the others stay static, and the verifier checks
// the result types written against the ones inferred.
// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s | xtvm-opt | filecheck %s

// CHECK-LABEL: func.func @shapes(%x: tensor<?x3x4xf32>, %y: tensor<?x3x2xf32>) -> tensor<?x12xf32> {
// CHECK-NEXT:    %f = relay.nn.batch_flatten %x : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
// CHECK-NEXT:    %c = relay.concatenate %x, %y {axis = 2 : i64} : (tensor<?x3x4xf32>, tensor<?x3x2xf32>) -> tensor<?x3x6xf32>
// CHECK-NEXT:    %p = relay.nn.pad %c {pad_width = array<i64: 1, 1, 0, 0, 1, 1>} : (tensor<?x3x6xf32>) -> tensor<?x3x8xf32>
// CHECK-NEXT:    %r = relay.reshape %p {newshape = array<i64: 0, -1>} : (tensor<?x3x8xf32>) -> tensor<?x?xf32>
// CHECK-NEXT:    %s = relay.split %x {indices_or_sections = array<i64: 1>, axis = 2 : i64} : (tensor<?x3x4xf32>) -> tuple<tensor<?x3x1xf32>, tensor<?x3x3xf32>>
// CHECK-NEXT:    %t = relay.strided_slice %c {begin = array<i64: 0, 1>, end = array<i64: 9223372036854775807, 3>} : (tensor<?x3x6xf32>) -> tensor<?x2x6xf32>
// CHECK-NEXT:    %u = relay.image.resize1d %p {size = array<i64: -9223372036854775808>} : (tensor<?x3x8xf32>) -> tensor<?x3x?xf32>
// CHECK-NEXT:    func.return %f : tensor<?x12xf32>
func.func @shapes(%x: tensor<?x3x4xf32>, %y: tensor<?x3x2xf32>) -> tensor<?x12xf32> {
  %f = relay.nn.batch_flatten %x : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
  %c = relay.concatenate %x, %y {axis = 2 : i64} : (tensor<?x3x4xf32>, tensor<?x3x2xf32>) -> tensor<?x3x6xf32>
  %p = relay.nn.pad %c {pad_width = array<i64: 1, 1, 0, 0, 1, 1>} : (tensor<?x3x6xf32>) -> tensor<?x3x8xf32>
  %r = relay.reshape %p {newshape = array<i64: 0, -1>} : (tensor<?x3x8xf32>) -> tensor<?x?xf32>
  %s = relay.split %x {indices_or_sections = array<i64: 1>, axis = 2 : i64} : (tensor<?x3x4xf32>) -> tuple<tensor<?x3x1xf32>, tensor<?x3x3xf32>>
  %t = relay.strided_slice %c {begin = array<i64: 0, 1>, end = array<i64: 9223372036854775807, 3>} : (tensor<?x3x6xf32>) -> tensor<?x2x6xf32>
  %u = relay.image.resize1d %p {size = array<i64: -9223372036854775808>} : (tensor<?x3x8xf32>) -> tensor<?x3x?xf32>
  func.return %f : tensor<?x12xf32>
}
