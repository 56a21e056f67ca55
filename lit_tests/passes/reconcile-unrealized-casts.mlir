// RUN: xtvm-opt %s -p reconcile-unrealized-casts --split-input-file 2>/dev/null | filecheck %s

// A cast and its inverse cancel.
// CHECK-LABEL: func.func @cancel_round_trip
// CHECK-SAME:    (%[[A:.*]]: i32)
// CHECK-NEXT:    func.return %[[A]] : i32
func.func @cancel_round_trip(%a: i32) -> i32 {
  %b = builtin.unrealized_conversion_cast %a : i32 to i64
  %c = builtin.unrealized_conversion_cast %b : i64 to i32
  func.return %c : i32
}

// -----

// A longer chain back to the original type cancels as a whole.
// CHECK-LABEL: func.func @cancel_chain
// CHECK-SAME:    (%[[A:.*]]: i32)
// CHECK-NEXT:    func.return %[[A]] : i32
func.func @cancel_chain(%a: i32) -> i32 {
  %b = builtin.unrealized_conversion_cast %a : i32 to i64
  %c = builtin.unrealized_conversion_cast %b : i64 to index
  %d = builtin.unrealized_conversion_cast %c : index to i32
  func.return %d : i32
}

// -----

// Unused casts and casts to the same type go.
// CHECK-LABEL: func.func @erase_dead_and_identity_casts
// CHECK-SAME:    (%[[A:.*]]: i32)
// CHECK-NEXT:    func.return %[[A]] : i32
func.func @erase_dead_and_identity_casts(%a: i32) -> i32 {
  %unused = builtin.unrealized_conversion_cast %a : i32 to i64
  %same = builtin.unrealized_conversion_cast %a : i32 to i32
  func.return %same : i32
}

// -----

// A chain that ends in another type is a real conversion still to be done: it stays (the
// pass warns about it on stderr).
// CHECK-LABEL: func.func @keep_unreconcilable_chain
// CHECK-NEXT:    %[[B:.*]] = builtin.unrealized_conversion_cast %{{.*}} : i32 to i64
// CHECK-NEXT:    %[[C:.*]] = builtin.unrealized_conversion_cast %[[B]] : i64 to index
// CHECK-NEXT:    func.return %[[C]] : index
func.func @keep_unreconcilable_chain(%a: i32) -> index {
  %b = builtin.unrealized_conversion_cast %a : i32 to i64
  %c = builtin.unrealized_conversion_cast %b : i64 to index
  func.return %c : index
}
