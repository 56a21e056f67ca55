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

// -----

// A cast of one value to several, and a cast from nothing, cannot cancel: they stay.
// CHECK-LABEL: func.func @keep_casts_that_change_the_number_of_values
// CHECK-NEXT:    %[[U:.*]] = builtin.unrealized_conversion_cast %{{.*}} : index to i64
// CHECK-NEXT:    %{{.*}}, %[[Q:.*]] = builtin.unrealized_conversion_cast %[[U]] : i64 to i32, i32
// CHECK-NEXT:    %[[W:.*]] = builtin.unrealized_conversion_cast to i8
// CHECK-NEXT:    func.return %[[Q]], %[[W]] : i32, i8
func.func @keep_casts_that_change_the_number_of_values(%n: index) -> (i32, i8) {
  %u = builtin.unrealized_conversion_cast %n : index to i64
  %p:2 = builtin.unrealized_conversion_cast %u : i64 to i32, i32
  %w = builtin.unrealized_conversion_cast to i8
  func.return %p#1, %w : i32, i8
}

// -----

// Two values cast to other types and back cancel as a pair.
// CHECK-LABEL: func.func @cancel_pair
// CHECK-SAME:    (%[[A:.*]]: i32, %[[B:.*]]: i64)
// CHECK-NEXT:    func.return %[[A]], %[[B]] : i32, i64
func.func @cancel_pair(%a: i32, %b: i64) -> (i32, i64) {
  %c:2 = builtin.unrealized_conversion_cast %a, %b : i32, i64 to index, index
  %d:2 = builtin.unrealized_conversion_cast %c#0, %c#1 : index, index to i32, i64
  func.return %d#0, %d#1 : i32, i64
}
