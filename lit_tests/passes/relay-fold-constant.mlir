// RUN: xtvm-opt %s -p relay-fold-constant --split-input-file | filecheck %s

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
