// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

func.func @undeclared_value(%a: i32) -> i32 {
  // expected-error@+1 {{use of undeclared SSA value '%zz'}}
  %b = arith.addi %a, %zz : i32
  func.return %b : i32
}

// -----

func.func @undeclared_in_nested_region(%c: i1) {
  scf.if %c {
    // expected-error@+1 {{use of undeclared SSA value '%never'}}
    %x = arith.addi %never, %never : i32
  }
  func.return
}

// -----

func.func @redefinition(%a: i32) -> i32 {
  %b = arith.addi %a, %a : i32
  // expected-error@+1 {{redefinition of SSA value '%b'}}
  %b = arith.muli %a, %a : i32
  func.return %b : i32
}

// -----

func.func @redefinition_of_argument(%a: i32) {
  // expected-error@+1 {{redefinition of SSA value '%a'}}
  %a = arith.constant 1 : i32
  func.return
}

// -----

func.func @uses_disagree_on_type(%a: i32, %f: f32) {
  %b = arith.addi %a, %a : i32
  // expected-error@+1 {{use of value '%b' expects different type than prior uses: 'f32' vs 'i32'}}
  %c = arith.addf %b, %f : f32
  func.return
}

// -----

func.func @forward_use_disagrees_with_definition() {
  cf.br ^next
^use:
  // expected-error@+1 {{use of value '%late' expects different type than its definition: 'i32' vs 'i64'}}
  %x = arith.addi %late, %late : i32
  func.return
^next:
  %late = arith.constant 1 : i64
  cf.br ^use
}

// -----

func.func @unknown_op_custom_form() {
  // expected-error@+1 {{unknown operation 'foo.bar'}}
  %x = foo.bar : i32
  func.return
}

// -----

func.func @unknown_op_generic_form() {
  // expected-error@+1 {{unknown operation 'foo.bar'}}
  "foo.bar"() : () -> ()
  func.return
}

// -----

func.func @affine_value_as_dimension_and_symbol(%m: memref<16xf32>, %i: index) {
  // expected-error@+1 {{'%i' is used both as a dimension and as a symbol}}
  %v = affine.load %m[%i + symbol(%i)] : memref<16xf32>
  func.return
}

// -----

func.func @op_without_custom_syntax(%c: index) {
  // expected-error@+1 {{operation 'scf.parallel' has no custom syntax; write it in the generic form "scf.parallel"(...)}}
  scf.parallel (%i) = (%c) to (%c) step (%c) {
  }
  func.return
}

// -----

func.func @affine_parallel_bounds(%n: index) {
  // expected-error@+1 {{'affine.parallel' op has 2 induction variables but 2 lower and 1 upper bounds}}
  affine.parallel (%i, %j) = (0, 0) to (%n) {
  }
  func.return
}

// -----

func.func @affine_parallel_group_keyword(%n: index) {
  // expected-error@+1 {{expected 'max' before a group of bounds, got 'min'}}
  affine.parallel (%i) = (min(0, %n)) to (%n) {
  }
  func.return
}

// -----

func.func @affine_parallel_reduction(%n: index) {
  // expected-error@+1 {{unknown reduction 'add'}}
  %r = affine.parallel (%i) = (0) to (%n) reduce ("add") -> (f32) {
  }
  func.return
}

// -----

// expected-error@+1 {{unexpected 'f33', expected type or '('}}
func.func @unknown_element_type(%a: tensor<2x?xf33>) {
  func.return
}

// -----

// expected-error@+1 {{unexpected '3', expected type or '('}}
func.func @memref_without_element_type(%a: memref<2x3>) {
  func.return
}

// -----

// expected-error@+1 {{unexpected '>'}}
func.func @unclosed_tensor(%a: tensor<4xf32>>) {
  func.return
}

// -----

func.func @integer_out_of_range() {
  // expected-error@+1 {{out of range for type i8}}
  %c = arith.constant 300 : i8
  func.return
}

// -----

func.func @wrong_number_of_result_names(%a: i32) {
  // expected-error@+1 {{operation 'arith.addi' has 1 results but 2 names were given}}
  %b, %c = arith.addi %a, %a : i32
  func.return
}

// -----

func.func @undefined_block() {
  // expected-error@+1 {{reference to an undefined block '^nowhere'}}
  cf.br ^nowhere
}

// -----

func.func @unknown_predicate(%a: i32) {
  // expected-error@+1 {{unknown predicate 'foo' for 'arith.cmpi'}}
  %b = arith.cmpi foo, %a, %a : i32
  func.return
}

// -----

func.func @wrong_return_type(%a: i32) -> f32 {
  // expected-error@+1 {{'func.return' op expected arguments to have the same types as the function output types: expected [f32], got [i32]}}
  func.return %a : i32
}

// -----

func.func @wrong_return_count(%a: i32) -> (i32, i32) {
  // expected-error@+1 {{'func.return' op expected arguments to have the same types as the function output types}}
  func.return %a : i32
}

// -----

// A function, unlike a loop, has no implicit terminator.
func.func @missing_terminator(%a: i32) -> i32 {
  // expected-error@+1 {{'func.func' op body ends with 'arith.addi', which is not a terminator; a function has no implicit terminator: end it with 'func.return'}}
  %b = arith.addi %a, %a : i32
}

// -----

// expected-error@+1 {{'func.func' op expected non-empty function body}}
func.func @empty_body() {
}

// -----

func.func @affine_bound_without_max(%a: index) {
  // expected-error@+1 {{loop bound affine map with multiple results requires 'max' prefix}}
  affine.for %i = affine_map<(d0) -> (d0, 0)>(%a) to 8 {
  }
  func.return
}

// -----

func.func @for_yield_type_mismatch(%n: index, %a: i32, %f: f32) -> i32 {
  // expected-error@+1 {{'scf.for' op expected yield arg #0 to be i32, but got f32}}
  %r = scf.for %i = %n to %n step %n iter_args(%x = %a) -> (i32) {
    scf.yield %f : f32
  }
  func.return %r : i32
}

// -----

func.func @call_of_unknown_function() {
  // expected-error@+1 {{'func.call' op}}
  func.call @nowhere() : () -> ()
  func.return
}

// -----

func.func @call_result_count(%a: i32) {
  // expected-error@+1 {{'func.call' op incorrect number of results for callee}}
  %r = func.call @call_result_count(%a) : (i32) -> i32
  func.return
}

// -----

// A constraint failure keeps its reason, which xDSL gives on a second line.
func.func @select_result_type(%c: i1, %a: i32) {
  // expected-error@+1 {{'arith.select' op result 'result' at position 0 does not verify: attribute i32 expected from variable '_T', but got f32}}
  %r = "arith.select"(%c, %a, %a) : (i1, i32, i32) -> f32
  func.return
}

// -----

func.func @load_index_count(%m: memref<4x4xf32>, %i: index) {
  // expected-error@+1 {{'memref.load' op expected an index for each dimension}}
  %v = memref.load %m[%i] : memref<4x4xf32>
  func.return
}

// -----

func.func @unterminated_region(%a: i32) -> i32 {
  %b = arith.addi %a, %a : i32
  // expected-error@+1 {{unexpected end of input}}
  func.return %b : i32
