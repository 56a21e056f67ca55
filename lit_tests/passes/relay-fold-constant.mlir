// RUN: xtvm-opt %s -p relay-fold-constant --split-input-file | filecheck %s
// RUN: xtvm-opt %s -p 'relay-fold-constant{keep_weight_transposes=true}' --split-input-file | filecheck %s --check-prefix=KEEP

// The add of two constants becomes one constant and the dead inputs go; %x is untouched.
// CHECK-LABEL: func.func @fold_add_of_constants
// CHECK-SAME:    (%[[X:.*]]: tensor<2xi32>)
// CHECK-NEXT:    %[[SUM:.*]] = relay.const dense<[4, 6]> : tensor<2xi32>
// CHECK-NEXT:    %[[R:.*]] = relay.add %[[X]], %[[SUM]]
// CHECK-NEXT:    func.return %[[R]]
func.func @fold_add_of_constants(%x: tensor<2xi32>) -> tensor<2xi32> {
  %a = relay.const dense<[1, 2]> : tensor<2xi32>
  %b = relay.const dense<[3, 4]> : tensor<2xi32>
  %s = relay.add %a, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %r = relay.add %x, %s : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  func.return %r : tensor<2xi32>
}

// -----

// A chain of ops on constants folds to its final value.
// CHECK-LABEL: func.func @fold_chain
// CHECK-NEXT:    %[[V:.*]] = relay.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    func.return %[[V]]
func.func @fold_chain() -> tensor<2xf32> {
  %a = relay.const dense<[1.0, 4.0]> : tensor<2xf32>
  %s = relay.sqrt %a : (tensor<2xf32>) -> tensor<2xf32>
  %r = relay.reshape %s {newshape = array<i64: -1>} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}

// -----

// Nothing to fold when an operand is an argument.
// CHECK-LABEL: func.func @keep_argument_operand
// CHECK-NOT:     relay.const
// CHECK:         relay.exp
func.func @keep_argument_operand(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = relay.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %e : tensor<4xf32>
}

// -----

// Params are supplied at run time: an op on a param and a constant stays.
// CHECK-LABEL: func.func @keep_param_operand
// CHECK:         %[[W:.*]] = relay.param["w"]
// CHECK:         %[[ONE:.*]] = relay.const
// CHECK:         relay.multiply %[[W]], %[[ONE]]
func.func @keep_param_operand() -> tensor<2xf32> {
  %w = relay.param["w"] : tensor<2xf32>
  %one = relay.const dense<1.0> : tensor<2xf32>
  %m = relay.multiply %w, %one : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %m : tensor<2xf32>
}

// -----

// A tuple-valued op (split) folds to a tuple of constants, and reading a field of it
// gives that constant directly.
// CHECK-LABEL: func.func @fold_split_field
// CHECK-NEXT:    %[[SECOND:.*]] = relay.const dense<[3, 4]> : tensor<2xi32>
// CHECK-NEXT:    func.return %[[SECOND]]
func.func @fold_split_field() -> tensor<2xi32> {
  %a = relay.const dense<[1, 2, 3, 4]> : tensor<4xi32>
  %t = relay.split %a {indices_or_sections = array<i64: 2>} : (tensor<4xi32>) -> tuple<tensor<2xi32>, tensor<2xi32>>
  %s = relay.tuple_get_item %t[1] : (tuple<tensor<2xi32>, tensor<2xi32>>) -> tensor<2xi32>
  func.return %s : tensor<2xi32>
}

// -----

// Comparisons fold to i1 constants.
// CHECK-LABEL: func.func @fold_comparison
// CHECK-NEXT:    %[[LESS:.*]] = relay.const dense<[true, false]> : tensor<2xi1>
// CHECK-NEXT:    func.return %[[LESS]]
func.func @fold_comparison() -> tensor<2xi1> {
  %a = relay.const dense<[1, 5]> : tensor<2xi32>
  %b = relay.const dense<[3, 4]> : tensor<2xi32>
  %l = relay.less %a, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
  func.return %l : tensor<2xi1>
}

// -----

// A transposed constant read only as a product's weight folds, unless keep_weight_transposes
// leaves it to relay-alter-dense-layout; one read otherwise (the negate) folds either way.
// CHECK-LABEL: func.func @weight_transpose
// CHECK-NOT:     relay.transpose
// CHECK:         func.return
// KEEP-LABEL:  func.func @weight_transpose
// KEEP:          %[[T:.*]] = relay.transpose %{{.*}} {axes = array<i64: 1, 0>}
// KEEP-NEXT:     relay.nn.matmul %x, %[[T]]
// KEEP-NOT:      relay.transpose
// KEEP:          func.return
func.func @weight_transpose(%x: tensor<8x3xf32>) -> (tensor<8x2xf32>, tensor<3x2xf32>) {
  %w = relay.const dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %t = relay.transpose %w {axes = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %m = relay.nn.matmul %x, %t : (tensor<8x3xf32>, tensor<3x2xf32>) -> tensor<8x2xf32>
  %u = relay.transpose %w {axes = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %n = relay.negative %u : (tensor<3x2xf32>) -> tensor<3x2xf32>
  func.return %m, %n : tensor<8x2xf32>, tensor<3x2xf32>
}
