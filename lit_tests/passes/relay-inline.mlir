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

// -----

// An external codegen's function marked inline becomes a function literal at its call, as in
// TVM: a copy named `<caller>_lifted` (the API's name for a literal), the original erased.
// CHECK-NOT:     func.func @ext
// CHECK-LABEL: func.func @main_lifted
// CHECK-SAME:    compiler = "ccompiler"
// CHECK:         relay.abs
// CHECK-LABEL: func.func @main
// CHECK-NEXT:    func.call @main_lifted
func.func @ext(%a: tensor<4xf32>) -> tensor<4xf32> attributes {compiler = "ccompiler", inline = 1 : i64} {
  %s = relay.abs %a : (tensor<4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = func.call @ext(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %t : tensor<4xf32>
}

// -----

// One named by its global_symbol is that literal's outlined form: called as it is.
// CHECK-LABEL: func.func @tvmgen_default_ccompiler_main_0
// CHECK-LABEL: func.func @main
// CHECK-NEXT:    func.call @tvmgen_default_ccompiler_main_0
func.func @tvmgen_default_ccompiler_main_0(%a: tensor<4xf32>) -> tensor<4xf32> attributes {compiler = "ccompiler", global_symbol = "tvmgen_default_ccompiler_main_0", inline = 1 : i64} {
  %s = relay.abs %a : (tensor<4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = func.call @tvmgen_default_ccompiler_main_0(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %t : tensor<4xf32>
}

// -----

// A function that calls an external codegen's inline function is inlined itself; the literal
// its body brings along belongs to the caller it lands in (`main_lifted`), as in TVM, and the
// copy named for the inlined function goes with it.
// CHECK-NOT:     func.func @ext
// CHECK-NOT:     func.func @mid
// CHECK-LABEL: func.func @main_lifted
// CHECK-SAME:    compiler = "ccompiler"
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[L:.*]] = func.call @main_lifted(%[[X]])
// CHECK-NEXT:    %[[S:.*]] = relay.add %[[X]], %[[L]]
// CHECK-NEXT:    func.return %[[S]]
// CHECK-NOT:     func.func @mid_lifted
func.func @ext(%a: tensor<4xf32>) -> tensor<4xf32> attributes {compiler = "ccompiler", inline = 1 : i64} {
  %s = relay.abs %a : (tensor<4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
func.func @mid(%a: tensor<4xf32>) -> tensor<4xf32> attributes {inline = 1 : i64} {
  %e = func.call @ext(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %s = relay.add %a, %e : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = func.call @mid(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %t : tensor<4xf32>
}
