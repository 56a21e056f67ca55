// RUN: xtvm-opt %s -p relay-inline --split-input-file | filecheck %s

// A call of a function marked inline becomes its body on the call's operands, and the
// function, called by nobody any more, goes; @main, an entry, stays.
// CHECK-NOT:     func.func @twice
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[SUM:.*]] = relay.add %[[X]], %[[X]]
// CHECK-NEXT:    %[[E:.*]] = relay.exp %[[SUM]]
// CHECK-NEXT:    func.return %[[E]]
func.func @twice(%a: tensor<4xf32>) -> tensor<4xf32> attributes {inline = 1 : i64} {
  %s = relay.add %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = func.call @twice(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %e = relay.exp %t : (tensor<4xf32>) -> tensor<4xf32>
  func.return %e : tensor<4xf32>
}

// -----

// A function without the mark, or a recursive one with it, is called as before.
// CHECK-LABEL: func.func @plain
// CHECK-LABEL: func.func @count
// CHECK:         func.call @count
// CHECK-LABEL: func.func @main
// CHECK-NEXT:    func.call @plain
// CHECK-NEXT:    func.call @count
func.func @plain(%a: tensor<i32>) -> tensor<i32> {
  func.return %a : tensor<i32>
}
func.func @count(%a: tensor<i32>) -> tensor<i32> attributes {inline = 1 : i64} {
  %r = func.call @count(%a) : (tensor<i32>) -> tensor<i32>
  func.return %r : tensor<i32>
}
func.func @main(%x: tensor<i32>) -> tensor<i32> {
  %p = func.call @plain(%x) : (tensor<i32>) -> tensor<i32>
  %c = func.call @count(%p) : (tensor<i32>) -> tensor<i32>
  func.return %c : tensor<i32>
}
